"""The checker's conversation with an engine: the program on its pipe, every line in and out recorded."""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import time
from collections.abc import Sequence

from ..pipe import EngineProcess, InputClosed, OutputClosed
from ..protocol import Act, Hello, Quit, Result, encode
from .report import Exchange

__all__ = ["CheckFailure", "Conversation"]


class CheckFailure(Exception):
    """A check failed; the message says what the engine did and what was expected."""


class Conversation:
    """A running engine with every line in and out recorded."""

    def __init__(self, argv: Sequence[str], start: float) -> None:
        self.start = start
        self.log: list[Exchange] = []
        try:
            self.pipe = EngineProcess(argv, on_stderr=self._heard)
        except OSError as exc:
            raise CheckFailure(f"could not start {shlex.join(argv)!r}: {exc}") from None

    def _now(self) -> float:
        return time.monotonic() - self.start

    def note(self, text: str) -> None:
        self.log.append(Exchange("note", self._now(), text))

    def send_text(self, text: str, *, shown: str | None = None) -> None:
        """Write one line (a newline is added); `shown` replaces it in the log when it is huge."""
        self.log.append(Exchange("host", self._now(), shown if shown is not None else _shorten(text)))
        try:
            self.pipe.write(text + "\n")
        except InputClosed:
            raise CheckFailure(f"the engine stopped reading its input{self.exit_story()}") from None

    def send(self, message: Act | Hello | Result | Quit) -> None:
        """Write one message as its line."""
        self.send_text(encode(message).rstrip("\n"))

    def receive(self, timeout: float) -> str | None:
        """The next non-blank line within `timeout` seconds; None on silence; raise on a closed output."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                line = self.pipe.next_line(remaining)
            except OutputClosed:
                raise CheckFailure(f"the engine closed its output{self.exit_story()}") from None
            if line is None:
                return None
            self.log.append(Exchange("engine", self._now(), _shorten(line.rstrip("\n"))))
            if line.strip():
                return line

    def exit_story(self) -> str:
        """How the engine ended, with its last words on stderr (a traceback's last lines)."""
        try:
            code = self.pipe.wait(0.3)
        except subprocess.TimeoutExpired:
            return ""
        self.pipe.join_stderr(0.3)
        said = [e.text for e in self.log if e.direction == "stderr" and e.text.strip()][-3:]
        last = f"; its last stderr lines: {' | '.join(said)}" if said else ""
        return f" (it exited with status {code}{last})"

    def alive(self) -> bool:
        return self.pipe.poll() is None

    def close(self, grace: float = 1.0) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.pipe.close_input()  # an engine should exit when its input ends
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.pipe.wait(grace)
        self.pipe.end()

    def _heard(self, line: str) -> None:
        """A line of the engine's standard error, recorded as it comes."""
        self.log.append(Exchange("stderr", self._now(), _shorten(line)))


def _shorten(text: str, limit: int = 600) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"
