"""A cluster on this machine for the tests and benchmarks: Redis, N `ginrummy serve` processes on one
PostgreSQL database, and HAProxy in front with the repository's deploy/haproxy.cfg, all on free
loopback ports. Servers can be killed, paused, resumed, stopped gently and started again."""

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
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from ginrummy.storage import make_engine, migrate

__all__ = ["Cluster", "free_port", "running_cluster"]

ROOT = Path(__file__).resolve().parents[1]
HAPROXY_CFG = ROOT / "deploy" / "haproxy.cfg"
SERVERS = 3  # deploy/haproxy.cfg names three


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(
    what: str, ready: object, process: subprocess.Popen[bytes], log: Path, seconds: float = 120
) -> None:
    deadline = time.monotonic() + seconds  # a loaded machine starts slowly
    while True:
        try:
            if ready():  # type: ignore[operator]
                return
        except (OSError, httpx.HTTPError):
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not start: {log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.05)


@dataclass
class Server:
    index: int  # 1..3, as HAProxy's s1..s3
    port: int
    process: subprocess.Popen[bytes] | None = None
    generation: int = 0

    @property
    def name(self) -> str:
        """The node name of the running process (a restart is a new node)."""
        return f"s{self.index}-{self.generation}"


@dataclass
class Cluster:
    folder: Path
    database_url: str
    env: dict[str, str]
    redis_port: int
    lb_port: int
    servers: list[Server] = field(default_factory=list)
    redis: subprocess.Popen[bytes] | None = None
    haproxy: subprocess.Popen[bytes] | None = None
    balance: str = "shipped"  # or "roundrobin": the shipped config with round robin instead of hashing

    @property
    def lb(self) -> str:
        """Where clients connect: "127.0.0.1:PORT" of HAProxy."""
        return f"127.0.0.1:{self.lb_port}"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def server_named(self, node: str) -> Server:
        return next(s for s in self.servers if s.name == node)

    def pids(self) -> list[int]:
        return [s.process.pid for s in self.servers if s.process is not None and s.process.poll() is None]

    # -- Redis ---------------------------------------------------------------

    def start_redis(self) -> None:
        binary = shutil.which("redis-server") or "redis-server"
        log = self.folder / "redis.log"
        with open(log, "ab") as out:
            self.redis = subprocess.Popen(
                [binary, "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", ""]
                + ["--appendonly", "no", "--dir", str(self.folder), "--daemonize", "no"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )

        def pong() -> bool:
            with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")

        _wait("redis-server", pong, self.redis, log)

    def stop_redis(self) -> None:
        if self.redis is not None and self.redis.poll() is None:
            self.redis.kill()
            self.redis.wait(timeout=30)

    # -- servers -------------------------------------------------------------

    def start(self, *servers: Server) -> None:
        """Start the servers at once and wait until each answers (a restart is a new node)."""
        for server in servers:
            self._spawn(server)
        for server in servers:
            assert server.process is not None
            url = f"http://127.0.0.1:{server.port}/api/health"
            log = self.folder / f"{server.name}.log"
            _wait(
                f"server {server.name}",
                lambda url=url: httpx.get(url, timeout=1).status_code == 200,
                server.process,
                log,
            )

    def _spawn(self, server: Server) -> None:
        server.generation += 1
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "GINRUMMY_NODE_NAME": server.name,
            "GINRUMMY_FORWARDED_ALLOW_IPS": "127.0.0.1",
            "GINRUMMY_HTTP_RATE_LIMIT": "0",
            "GINRUMMY_RATED_SAME_ADDRESS": "1",  # every scripted player comes from 127.0.0.1
            "GINRUMMY_RATE_LIMIT": "1000/1000",
            "GINRUMMY_SOCKETS": "64/100000",
            "GINRUMMY_SOCKET_OPENS": "10000/10000",
            "GINRUMMY_TURN_SECONDS": "0",
            "GINRUMMY_LOG_LEVEL": "warning",
            **self.env,
        }
        env.pop("GINRUMMY_DATA_DIR", None)
        log = self.folder / f"{server.name}.log"
        with open(log, "ab") as out:
            server.process = subprocess.Popen(
                [sys.executable, "-c", "from ginrummy.cli import main; main()", "serve"]
                + ["--host", "127.0.0.1", "--port", str(server.port)],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        url = f"http://127.0.0.1:{server.port}/api/health"
        _wait(
            f"server {server.name}", lambda: httpx.get(url, timeout=1).status_code == 200, server.process, log
        )

    def kill(self, server: Server) -> None:
        """SIGKILL: no hand-over, the leases run out."""
        assert server.process is not None
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=30)

    def pause(self, server: Server) -> None:
        assert server.process is not None
        server.process.send_signal(signal.SIGSTOP)

    def resume(self, server: Server) -> None:
        assert server.process is not None
        server.process.send_signal(signal.SIGCONT)

    def terminate(self, server: Server) -> int:
        """SIGTERM: the graceful shutdown; returns the exit status."""
        assert server.process is not None
        server.process.send_signal(signal.SIGTERM)
        return server.process.wait(timeout=60)

    def log_of(self, server: Server, generation: int | None = None) -> str:
        name = f"s{server.index}-{generation or server.generation}"
        return (self.folder / f"{name}.log").read_text(errors="replace")

    # -- HAProxy -------------------------------------------------------------

    def haproxy_config(self) -> Path:
        """deploy/haproxy.cfg as shipped, or (balance "roundrobin") the same with round robin in
        place of the guest-cookie hash, so that most sockets land on a process that does not own
        their match and are relayed."""
        if self.balance == "shipped":
            return HAPROXY_CFG
        if self.balance != "roundrobin":
            raise ValueError(f"balance must be shipped or roundrobin, got {self.balance!r}")
        lines = []
        for line in HAPROXY_CFG.read_text().splitlines():
            if line.strip().startswith("balance "):
                line = "    balance roundrobin"
            elif line.strip().startswith("hash-type "):
                continue
            lines.append(line)
        path = self.folder / "haproxy-roundrobin.cfg"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start_haproxy(self) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        env = {**os.environ, "GINRUMMY_LB_BIND": self.lb}
        for server in self.servers:
            env[f"GINRUMMY_SERVER_{server.index}"] = f"127.0.0.1:{server.port}"
        log = self.folder / "haproxy.log"
        with open(log, "ab") as out:
            self.haproxy = subprocess.Popen(
                [binary, "-f", str(self.haproxy_config()), "-db"],
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        url = f"http://{self.lb}/api/health"
        _wait("haproxy", lambda: httpx.get(url, timeout=1).status_code == 200, self.haproxy, log)

    def close(self) -> None:
        for server in self.servers:
            process = server.process
            if process is not None and process.poll() is None:
                process.send_signal(signal.SIGCONT)
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=30)
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.kill()
            self.haproxy.wait(timeout=30)
        self.stop_redis()


@contextlib.contextmanager
def running_cluster(
    database_url: str,
    *,
    servers: int = SERVERS,
    env: dict[str, str] | None = None,
    keep: Path | None = None,
    balance: str = "shipped",
) -> Iterator[Cluster]:
    """Redis, `servers` processes (1 to 3) and HAProxy; everything is killed after.

    `env` adds server settings (lease and heartbeat seconds, robot delay...); the logs are kept
    in `keep` when given (else a temporary folder that is removed). `balance`: "shipped" (the
    guest-cookie hash of deploy/haproxy.cfg) or "roundrobin".
    """
    folder = keep or Path(tempfile.mkdtemp(prefix="ginrummy-cluster-"))
    folder.mkdir(parents=True, exist_ok=True)
    cluster = Cluster(folder, database_url, env or {}, free_port(), free_port(), balance=balance)
    try:
        cluster.start_redis()
        for index in range(1, SERVERS + 1):
            cluster.servers.append(Server(index, free_port()))
        # The schema first, once: then the servers start side by side with nothing left to migrate.
        engine = make_engine(database_url)
        try:
            migrate(engine)
        finally:
            engine.dispose()
        cluster.start(*cluster.servers[:servers])
        cluster.start_haproxy()
        yield cluster
    finally:
        cluster.close()
        if keep is None:
            shutil.rmtree(folder, ignore_errors=True)
