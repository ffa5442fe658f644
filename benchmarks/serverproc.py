"""A `ginrummy serve` subprocess on a free loopback port, for the benchmarks that measure a real server."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

__all__ = ["Server", "free_port", "rss_kib", "running_server"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """A memory figure of a process from /proc (VmRSS: resident now; VmHWM: the peak so far), KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise ValueError(f"no {field} for process {pid}")


@dataclass
class Server:
    host: str  # "127.0.0.1:PORT"
    process: subprocess.Popen[bytes]
    data_dir: Path

    @property
    def pid(self) -> int:
        return self.process.pid


@contextlib.contextmanager
def running_server(env: dict[str, str] | None = None, *, src: str | None = None) -> Iterator[Server]:
    """Serve on loopback with a fresh SQLite database, robots without delay, no HTTP rate limit.

    `env` adds or overrides variables; `src` puts another checkout's `src` first on the server's
    PYTHONPATH (to measure the code before a change with the same script). Stops the server after.
    """
    tmp = Path(tempfile.mkdtemp(prefix="ginrummy-bench-"))
    port = free_port()
    host = f"127.0.0.1:{port}"
    child_env = {
        **os.environ,
        "GINRUMMY_DATA_DIR": str(tmp),
        "GINRUMMY_ROBOT_DELAY": "0",
        "GINRUMMY_HTTP_RATE_LIMIT": "0",
        "GINRUMMY_RATED_SAME_ADDRESS": "1",  # every scripted player comes from 127.0.0.1
        "GINRUMMY_LOG_LEVEL": "warning",
        **(env or {}),
    }
    child_env.pop("DATABASE_URL", None)
    if src is not None:
        child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, os.environ.get("PYTHONPATH")]))
    command = [sys.executable, "-c", "from ginrummy.cli import main; main()"]
    with open(tmp / "server.log", "wb") as log:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(
            [*command, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=child_env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    try:
        deadline = time.monotonic() + 120  # a loaded machine starts slowly
        while True:
            try:
                if httpx.get(f"http://{host}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: {(tmp / 'server.log').read_text()[-2000:]}")
            time.sleep(0.1)
        yield Server(host, process, tmp)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(tmp, ignore_errors=True)
