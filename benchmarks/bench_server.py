"""Server load benchmark: many WebSocket clients, each playing a whole match against a robot, on ONE server.

Starts `ginrummy serve` as a subprocess on loopback (a temp SQLite database, or a fresh one on
PostgreSQL; robots without delay), opens N clients (asyncio + websockets), each creates a match against `casual` robots
(one in two-player Gin; every other seat at the bigger tables, `--rules rummy`, `gin3`,
`gin4_teams`) and plays it to the end, and prints: matches finished, actions per second (the clients' own and
all accepted ones, robots' included), and the action round trip: from sending an action to
receiving the state that reflects it (p50/p90/p99/max). Every action is committed to the
database before that state is sent.

    .venv/bin/python benchmarks/bench_server.py                       # 300 concurrent matches
    .venv/bin/python benchmarks/bench_server.py --matches 50 --think 0.5
    .venv/bin/python benchmarks/bench_server.py --matches 200 --rules rummy   # 4-seat Rummy, you + 3 robots
    .venv/bin/python benchmarks/bench_server.py --json
    .venv/bin/python benchmarks/bench_server.py --think 1.0 --profile server.svg  # py-spy of the play
    .venv/bin/python benchmarks/bench_server.py --postgres "$GINRUMMY_TEST_POSTGRES_URL"  # on PostgreSQL
    # this checkout's server and another's, alternately, twice each (CPU per action side by side):
    git worktree add /tmp/before HEAD~1 && .venv/bin/python benchmarks/bench_server.py --think 1.0 \
        --timeout 60 --against /tmp/before/src --rounds 2

Bounded: at most --matches clients, stops after --timeout seconds (partial figures then).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.cookiejar
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import httpx
import websockets

from ginrummy.rules import CardSet, min_deadwood

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cluster import fresh_database  # noqa: E402

COOKIE = "gr_guest"


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A quick, sensible client of any game: knock (Gin) or lay melds and lay off (Rummy) when it
    can, usually discard to the least deadwood."""
    legal = view["legal"]
    enders = [a for a in legal if a["type"] in ("knock", "big_gin", "meld", "layoff")]
    if enders:
        return enders[0]
    discards = [a for a in legal if a["type"] == "discard"]
    if discards and rng.random() < 0.9:
        hand = CardSet(view["hand"])
        scored = [(min_deadwood(hand - CardSet([a["card"]])), a) for a in discards]
        best = min(s for s, _ in scored)
        return rng.choice([a for s, a in scored if s == best])
    if view["phase"] in ("offer", "draw") and rng.random() < 0.7:
        return legal[0] if legal[0].get("source") == "stock" else rng.choice(legal)
    return rng.choice(legal)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def _start_profiler(path: str, pid: int) -> subprocess.Popen[bytes]:
    """py-spy (the dev extra) sampling the server while the matches play: a flame graph (.svg),
    speedscope (.json) or collapsed stacks (.txt). Sampling never pauses the server, and it costs
    the server nothing (py-spy is its own process), but it takes a share of the machine."""
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile needs py-spy (pip install -e '.[dev]')")
    kind = {".json": "speedscope", ".txt": "raw"}.get(Path(path).suffix, "flamegraph")
    command = [spy, "record", "--pid", str(pid), "--nonblocking", "--rate", "100", "--format", kind]
    return subprocess.Popen([*command, "--output", path], stdout=subprocess.DEVNULL)


class Client:
    def __init__(self, index: int, host: str, args: argparse.Namespace) -> None:
        self.index = index
        self.host = host
        self.args = args
        self.rng = random.Random(args.seed * 100_003 + index)
        self.latencies: list[float] = []
        self.actions = 0
        self.final_version = 0
        self.finished = False
        self.error: str | None = None

    async def run(
        self,
        http: httpx.AsyncClient,
        start: asyncio.Event,
        setup: asyncio.Semaphore,
        on_ready: Callable[[], None],
    ) -> None:
        ws = None
        try:
            async with setup:
                me = await http.get(f"http://{self.host}/api/me")
                cookie = me.cookies[COOKIE]  # read from this response's Set-Cookie
                made = await http.post(
                    f"http://{self.host}/api/matches",
                    content=json.dumps({"level": self.args.level, "rules": self.args.rules}),
                    headers={"Cookie": f"{COOKIE}={cookie}"},
                )
                match_id = made.json()["match_id"]
                ws = await websockets.connect(
                    f"ws://{self.host}/ws/{match_id}",
                    additional_headers={"Cookie": f"{COOKIE}={cookie}"},
                    max_size=2**22,
                    ping_interval=None,
                    open_timeout=60,
                    compression=self.args.compression,
                )
        except Exception as exc:
            self.error = f"set-up: {type(exc).__name__}: {exc}"
            return
        finally:
            on_ready()
        try:
            await start.wait()
            async with ws:
                await self._play(ws)
        except Exception as exc:  # reported, not raised: one client failing must not hide the figures
            self.error = f"{type(exc).__name__}: {exc}"

    async def _play(self, ws: Any) -> None:
        acted = -1
        waiting_for: int | None = None
        sent_at = 0.0
        while True:
            message = json.loads(await ws.recv())
            if message["type"] != "state":
                if message["type"] == "error":
                    raise RuntimeError(f"server error: {message}")
                continue
            version = message["version"]
            if waiting_for is not None and version >= waiting_for:
                self.latencies.append(time.perf_counter() - sent_at)
                waiting_for = None
            self.final_version = version
            if message["result"] is not None:
                self.finished = True
                return
            legal = message["view"]["legal"]
            if legal and version > acted and waiting_for is None:
                acted = version
                if self.args.think:
                    await asyncio.sleep(self.rng.uniform(0.5, 1.5) * self.args.think)
                action = choose(message["view"], self.rng)
                waiting_for = version + 1
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "action", "action": action, "version": version}))
                self.actions += 1


class _NoCookies(http.cookiejar.DefaultCookiePolicy):
    def set_ok(self, cookie: Any, request: Any) -> bool:
        return False

    def return_ok(self, cookie: Any, request: Any) -> bool:
        return False


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def drive(host: str, args: argparse.Namespace, server_pid: int | None) -> dict[str, Any]:
    clients = [Client(i, host, args) for i in range(args.matches)]
    all_ready = asyncio.Event()
    ready = [0]

    def on_ready() -> None:
        ready[0] += 1
        if ready[0] == len(clients):
            all_ready.set()

    start = asyncio.Event()
    setup = asyncio.Semaphore(32)
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        # One HTTP client for all: it must keep no cookies, each client sends its own.
        http.cookies.jar.set_policy(_NoCookies())
        tasks = [asyncio.create_task(c.run(http, start, setup, on_ready)) for c in clients]
        # Everyone connects first, then all matches play at once.
        t_setup = time.perf_counter()
        await asyncio.wait_for(all_ready.wait(), timeout=max(60.0, args.matches * 0.5))
        setup_seconds = time.perf_counter() - t_setup
        profiler = _start_profiler(args.profile, server_pid) if args.profile and server_pid else None
        cpu0 = _cpu_seconds(server_pid) if server_pid else float("nan")
        mine0 = _cpu_seconds(os.getpid())
        t0 = time.perf_counter()
        start.set()
        done, pending = await asyncio.wait(tasks, timeout=args.timeout)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        elapsed = time.perf_counter() - t0
        cpu1 = _cpu_seconds(server_pid) if server_pid else float("nan")
        if profiler is not None:
            profiler.send_signal(signal.SIGINT)  # py-spy writes its file and exits
            await asyncio.to_thread(profiler.wait, 60)
        mine1 = _cpu_seconds(os.getpid())
        health = (await http.get(f"http://{host}/api/health")).json()
    latencies = [x for c in clients for x in c.latencies]
    client_actions = sum(c.actions for c in clients)
    all_actions = sum(c.final_version for c in clients)
    errors = [c.error for c in clients if c.error]
    return {
        "matches": args.matches,
        "finished": sum(c.finished for c in clients),
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        "setup_seconds": round(setup_seconds, 2),
        "seconds": round(elapsed, 2),
        "client_actions": client_actions,
        "all_actions": all_actions,
        "client_actions_per_s": round(client_actions / elapsed, 1),
        "all_actions_per_s": round(all_actions / elapsed, 1),
        "rtt_ms": {
            "p50": round(percentile(latencies, 0.50) * 1000, 2),
            "p90": round(percentile(latencies, 0.90) * 1000, 2),
            "p99": round(percentile(latencies, 0.99) * 1000, 2),
            "max": round(max(latencies) * 1000, 2) if latencies else None,
            "mean": round(statistics.fmean(latencies) * 1000, 2) if latencies else None,
        },
        "server_cpu_percent": round(100 * (cpu1 - cpu0) / elapsed, 1),
        # Unlike the round trip, this hardly depends on what else loads the machine: compare it.
        "server_cpu_us_per_action": round(1e6 * (cpu1 - cpu0) / all_actions, 1) if all_actions else None,
        "load_average": os.getloadavg()[0],
        "client_cpu_percent": round(100 * (mine1 - mine0) / elapsed, 1),
        "store": health.get("store"),
        "think_seconds": args.think,
        "level": args.level,
        "rules": args.rules,
        "sqlite_sync": args.sync,
        "compression": args.compression or "off",
        "client_loop": args.client_loop,
    }


def _run_clients(coro: Any, args: argparse.Namespace) -> dict[str, Any]:
    # The 300 clients share one process and one core with everything else: a lighter loop keeps
    # their own overhead out of the round trips they measure.
    if args.client_loop == "uvloop":
        try:
            import uvloop
        except ImportError:
            args.client_loop = "asyncio"
        else:
            return cast(dict[str, Any], uvloop.run(coro))
    return cast(dict[str, Any], asyncio.run(coro))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--matches", type=int, default=300, help="concurrent clients, one match each (≤ 2000)"
    )
    parser.add_argument("--level", default="casual")
    parser.add_argument(
        "--rules", default="classic", help="a preset: classic ... or gin3, gin4_teams, rummy (4 seats)"
    )
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds a client waits before acting")
    parser.add_argument("--timeout", type=float, default=300.0, help="stop after this many seconds of play")
    parser.add_argument(
        "--postgres",
        default=None,
        metavar="URL",
        help="run the server on a fresh database made on this PostgreSQL server (dropped after), "
        "e.g. $GINRUMMY_TEST_POSTGRES_URL; SQLite by default",
    )
    parser.add_argument(
        "--sync", default="NORMAL", help="GINRUMMY_SQLITE_SYNC of the server (NORMAL or FULL)"
    )
    parser.add_argument("--compression", default=None, choices=[None, "deflate"], help="permessage-deflate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--host", default=None, help="use a running server at HOST:PORT instead of starting one"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="sample the server with py-spy while the matches play: FILE.svg, .json (speedscope), .txt",
    )
    parser.add_argument(
        "--client-loop",
        default="uvloop",
        choices=["uvloop", "asyncio"],
        help="event loop of the clients' process (uvloop, as the server uses, when installed)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        metavar="SRC",
        help="also run the server from another checkout's src/ (e.g. `git worktree add /tmp/before HEAD~3`), "
        "alternating with this one, and print both figures",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="with --against: runs of each version, alternating (default 2)"
    )
    return parser


def serve_and_drive(args: argparse.Namespace, source: Path | None = None) -> dict[str, Any] | None:
    """Start a server (from `source`, a checkout's src/, or this one's) unless --host names one,
    play the matches against it, stop it; the figures, or None when it did not start."""
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(fresh_database(args.postgres)) if args.postgres else None
        return _serve_and_drive(args, source, database)


def _serve_and_drive(
    args: argparse.Namespace, source: Path | None, database: str | None
) -> dict[str, Any] | None:
    process = None
    tmp = None
    host = args.host
    if host is None:
        tmp = tempfile.mkdtemp(prefix="ginrummy-bench-")
        port = _free_port()
        host = f"127.0.0.1:{port}"
        env = {
            **os.environ,
            "GINRUMMY_DATA_DIR": tmp,
            "GINRUMMY_ROBOT_DELAY": "0",
            "GINRUMMY_RATE_LIMIT": "1000/1000",
            "GINRUMMY_HTTP_RATE_LIMIT": "0",
            "GINRUMMY_RATED_SAME_ADDRESS": "1",
            # Every client comes from 127.0.0.1 here: lift the per-address socket limits.
            "GINRUMMY_SOCKETS": "8/100000",
            "GINRUMMY_SOCKET_OPENS": "100000/100000",
            "GINRUMMY_SQLITE_SYNC": args.sync,
            "GINRUMMY_LOG_LEVEL": "warning",
        }
        env.pop("DATABASE_URL", None)
        if database is not None:
            env["DATABASE_URL"] = database
        if source is not None:
            # The other version's package comes first on the path (an editable install is a .pth).
            env["PYTHONPATH"] = os.pathsep.join([str(source.resolve()), env.get("PYTHONPATH", "")])
        command = [sys.executable, "-c", "from ginrummy.cli import main; main()"]
        with open(Path(tmp) / "server.log", "wb") as server_log:  # the child keeps its own copy
            process = subprocess.Popen(
                [*command, "serve", "--host", "127.0.0.1", "--port", str(port)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=server_log,
            )
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://{host}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                print(f"the server did not start (see {tmp}/server.log)", file=sys.stderr)
                process.kill()
                return None
            time.sleep(0.1)
    try:
        figures = _run_clients(drive(host, args, process.pid if process else None), args)
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return figures


def _print_figures(args: argparse.Namespace, figures: dict[str, Any]) -> None:
    rtt = figures["rtt_ms"]
    print(
        f"server: one `ginrummy serve` process, "
        f"{'PostgreSQL' if args.postgres else f'SQLite (WAL, synchronous={args.sync})'}, rules `{args.rules}`, "
        f"robots `{args.level}`, "
        f"robot delay 0, client think time {args.think:g} s, compression {figures['compression']}, "
        f"client loop {figures['client_loop']}"
    )
    print(
        f"matches: {figures['finished']}/{figures['matches']} finished in {figures['seconds']} s "
        f"({figures['errors']} client errors; set-up {figures['setup_seconds']} s)"
    )
    print(
        f"actions: {figures['client_actions']} by clients, {figures['all_actions']} in all (robots included)"
    )
    print(
        f"throughput: {figures['client_actions_per_s']} client actions/s, "
        f"{figures['all_actions_per_s']} accepted actions/s in all"
    )
    print(
        f"round trip (action sent -> state reflecting it received): p50 {rtt['p50']} ms, "
        f"p90 {rtt['p90']} ms, p99 {rtt['p99']} ms, max {rtt['max']} ms"
    )
    print(
        f"CPU: server {figures['server_cpu_percent']} % of one core "
        f"({figures['server_cpu_us_per_action']} µs per accepted action), clients {figures['client_cpu_percent']} %; "
        f"load average {figures['load_average']:.2f}; store: {figures['store']}"
    )
    if figures["first_error"]:
        print(f"first client error: {figures['first_error']}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.matches = max(1, min(args.matches, 2000))
    if args.against is None:
        figures = serve_and_drive(args)
        if figures is None:
            return 1
        if args.json:
            print(json.dumps(figures))
        else:
            _print_figures(args, figures)
        return 0
    if args.host is not None:
        raise SystemExit("--against starts its own servers: leave out --host")
    if not (args.against / "ginrummy").is_dir():
        raise SystemExit(f"--against {args.against}: no ginrummy package there (give a checkout's src/)")
    versions: dict[str, Path | None] = {"this": None, "against": args.against}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in versions}
    for round_ in range(max(1, args.rounds)):
        for name, source in versions.items():
            figures = serve_and_drive(args, source)
            if figures is None:
                return 1
            runs[name].append(figures)
            if not args.json:
                print(f"--- round {round_ + 1}, {name} ({source or 'this checkout'}) ---")
                _print_figures(args, figures)
    if args.json:
        print(json.dumps(runs))
        return 0
    print(f"\nalternating runs, {args.matches} matches, think {args.think:g} s, rules {args.rules}:")
    for name, source in versions.items():
        cpu = ", ".join(f"{f['server_cpu_us_per_action']}" for f in runs[name])
        p99 = ", ".join(f"{f['rtt_ms']['p99']}" for f in runs[name])
        rate = ", ".join(f"{f['all_actions_per_s']}" for f in runs[name])
        print(
            f"  {name:8} ({source or 'this checkout'}): µs of server CPU per accepted action {cpu}; "
            f"p99 {p99} ms; accepted actions/s {rate}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
