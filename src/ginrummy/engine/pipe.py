"""An engine program run with its three standard streams piped, as the host and the checker run it.

One thread queues the lines the program writes to its standard output (each at most the
protocol's `MAX_LINE` characters), another hands each line of its standard error to a callback,
so that reading never blocks past a time limit and a program that floods stderr never stalls.
"""

from __future__ import annotations

import contextlib
import os
import queue
import subprocess
import threading
from collections.abc import Callable, Sequence

from .protocol import MAX_LINE

__all__ = ["EngineProcess", "InputClosed", "OutputClosed"]

_EOF = None  # what the reader thread queues when the engine's stdout closes


class InputClosed(Exception):
    """The program no longer reads its standard input."""


class OutputClosed(Exception):
    """The program closed its standard output (it exited, most likely)."""


class EngineProcess:
    """A running engine program: write lines to it, read its lines within a time limit, end it.

    Starting it raises `OSError` when the program cannot be started.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        on_stderr: Callable[[str], None],
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self._on_stderr = on_stderr
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self._readers = [
            threading.Thread(target=self._read_stdout, name="engine-stdout", daemon=True),
            threading.Thread(target=self._read_stderr, name="engine-stderr", daemon=True),
        ]
        for thread in self._readers:
            thread.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def poll(self) -> int | None:
        """The exit status, or None while the program runs."""
        return self.process.poll()

    def wait(self, timeout: float) -> int:
        """The exit status once the program ends; `subprocess.TimeoutExpired` after `timeout` seconds."""
        return self.process.wait(timeout=timeout)

    def write(self, text: str) -> None:
        """Write `text` to the program's input at once; `InputClosed` when it no longer reads it."""
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(text)
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise InputClosed from None

    def next_line(self, timeout: float) -> str | None:
        """The next line of the program's output as written (blank ones too, with their newline),
        or None when none comes within `timeout` seconds; `OutputClosed` once its output is closed."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return None
        if line is _EOF:
            self._lines.put(_EOF)  # later calls see the closed pipe too
            raise OutputClosed
        return line

    def join_stderr(self, timeout: float) -> None:
        """Wait up to `timeout` seconds for the last lines of the program's standard error."""
        self._readers[1].join(timeout=timeout)

    def close_input(self) -> None:
        """Close the program's input (an engine should exit when its input ends)."""
        stdin = self.process.stdin
        if stdin is not None:
            stdin.close()

    def end(self) -> None:
        """Kill the program if it still runs, wait for it, and close its pipes."""
        process = self.process
        if process.poll() is None:
            process.kill()
        process.wait()
        with contextlib.suppress(OSError, ValueError):
            self.close_input()
        for thread, pipe in zip(self._readers, (process.stdout, process.stderr), strict=True):
            thread.join(timeout=1.0)
            # A pipe still held open by a grandchild keeps its reader blocked; closing it
            # under a blocked reader could hang, so it is left to the daemon thread.
            if pipe is not None and not thread.is_alive():
                with contextlib.suppress(OSError, ValueError):
                    pipe.close()

    def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            while True:
                line = stdout.readline(MAX_LINE)
                if not line:
                    break
                self._lines.put(line)
        except (OSError, ValueError):
            pass  # the pipe was closed under us by end()
        finally:
            self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        try:
            for line in stderr:
                self._on_stderr(line.rstrip("\n"))
        except (OSError, ValueError):
            pass
