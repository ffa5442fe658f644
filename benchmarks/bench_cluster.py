"""Cluster benchmark: `ginrummy serve` processes on PostgreSQL and Redis behind HAProxy (clusterproc.py).

Two measurements, each printed as figures:

- failover: a client plays a robot match through HAProxy as fast as it can; the process owning
  the match is killed (SIGKILL) and the seconds until the first action of the client is accepted
  again (on the process that took the match over) are measured; the killed process is started
  again (a new node) before the next kill. Over --kills kills.
- load: --matches clients at human pace (each thinks --think seconds on average before a move)
  each plays robot matches through HAProxy for --seconds; figures: the action round trip (send →
  the state that shows it) p50/p99/max, accepted actions (robots' too, counted in the event log),
  and the servers' CPU per accepted action (user + system time of every server process over the
  window). With --servers 1 and 3 (the default runs both) the same load meets one process or three.

    GINRUMMY_TEST_POSTGRES_URL=postgresql+psycopg://... nice -n 10 .venv/bin/python benchmarks/bench_cluster.py
    .venv/bin/python benchmarks/bench_cluster.py --kills 5 --matches 0          # failover only
    .venv/bin/python benchmarks/bench_cluster.py --kills 0 --matches 300 --servers 3 --json

Each run makes a fresh PostgreSQL database (dropped after) on the server of the URL given
(--database or $GINRUMMY_TEST_POSTGRES_URL). Bounded: every wait has a limit, clients stop after
--seconds, and everything started is killed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import sqlalchemy as sa
import websockets
from psycopg import sql
from sqlalchemy.engine import make_url

from clusterproc import Cluster, running_cluster
from ginrummy.storage import make_engine

COOKIE = "gr_guest"
#: --churn: a client's socket closing (or a move unanswered) this long after a kill counts as cut off by it.
KILL_CUTS = 10.0
TICKS = os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    url = make_url(server_url)
    name = f"ginrummy_bench_{uuid.uuid4().hex[:12]}"
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def count_events(url: str) -> int:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text("SELECT count(*) FROM events")).scalar_one())
    finally:
        engine.dispose()


def owner_of(url: str, match_id: str) -> str | None:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                sa.text("SELECT owner FROM leases WHERE name = :n"), {"n": f"match:{match_id}"}
            ).first()
            return None if row is None else row.owner
    finally:
        engine.dispose()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


class Player:
    """One client through HAProxy: a guest, a robot match, a socket that reconnects by itself."""

    def __init__(self, lb: str, rng: random.Random) -> None:
        self.lb = lb
        self.rng = rng
        self.cookie = ""
        self.match_id = ""
        self.ws: Any = None
        self.state: dict[str, Any] = {}
        self.shown = 0  # the highest version of this match a state of it has shown
        self.stale = 0  # states received older than one shown before (not shown: as the page does)
        self.accepted: list[float] = []  # when each of its moves was answered (perf_counter)
        self.hurt: list[float] = []  # when its socket closed or a move went unanswered
        self.trace: list[tuple[float, str]] | None = None  # what happened when (--trace)

    def note(self, text: str) -> None:
        if self.trace is not None:
            self.trace.append((time.perf_counter(), text))

    async def new_match(self, http: httpx.AsyncClient) -> None:
        if not self.cookie:
            response = await http.get("/api/me")
            self.cookie = response.cookies[COOKIE]
        response = await http.post(
            "/api/matches",
            json={"level": "novice", "rules": {"preset": "classic", "target": 100}},
            headers={"Cookie": f"{COOKIE}={self.cookie}"},
        )
        response.raise_for_status()
        self.match_id = response.json()["match_id"]
        self.state = {}
        self.shown = 0
        await self.connect()

    async def connect(self, deadline: float = 60.0) -> None:
        until = time.monotonic() + deadline
        while True:
            if self.ws is not None:
                await self.ws.close()
                self.ws = None
            try:
                self.ws = await websockets.connect(
                    f"ws://{self.lb}/ws/{self.match_id}",
                    additional_headers={"Cookie": f"{COOKIE}={self.cookie}"},
                    open_timeout=10,
                    ping_interval=None,
                    max_size=2**22,
                )
                self.note("open")
                await self.receive(10)
                return
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError) as exc:
                self.note(f"connect failed: {exc!r}")
                if time.monotonic() > until:
                    raise
                await asyncio.sleep(0.1)

    async def receive(self, timeout: float) -> dict[str, Any]:
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
            if message["type"] != "state":
                self.note(f"{message['type']}: {message.get('code')} {message.get('message')}")
            else:
                self.note(f"state {message['version']}")
                if message["version"] < self.shown:
                    self.stale += 1
                    continue
                self.shown = message["version"]
                self.state = message
                return message

    async def move(self, think: float) -> float | None:
        """One move (after thinking); its round trip in seconds, None if the match is over."""
        while self.state["match"]["status"] == "playing" and not self.state["view"]["legal"]:
            await self.receive(30)
        if self.state["match"]["status"] != "playing":
            return None
        if think:
            await asyncio.sleep(self.rng.uniform(0.5, 1.5) * think)
        legal = self.state["view"]["legal"]
        enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
        action = enders[0] if enders else self.rng.choice(legal)
        version = self.state["version"]
        sent = time.perf_counter()
        await self.ws.send(json.dumps({"type": "action", "action": action, "version": version}))
        while self.state["version"] <= version:
            await self.receive(30)
        self.accepted.append(time.perf_counter())
        return time.perf_counter() - sent


async def failover(cluster: Cluster, kills: int, rng: random.Random) -> list[float]:
    """Seconds from SIGKILL of the owner to the first accepted action, for each kill."""
    figures: list[float] = []
    async with httpx.AsyncClient(base_url=f"http://{cluster.lb}", timeout=30) as http:
        player = Player(cluster.lb, rng)
        await player.new_match(http)
        for _ in range(kills):
            for _ in range(3):
                if await player.move(0) is None:
                    await player.new_match(http)
            owner = await asyncio.to_thread(owner_of, cluster.database_url, player.match_id)
            victim = cluster.server_named(owner) if owner else None
            if victim is None:
                continue
            killed = time.perf_counter()
            await asyncio.to_thread(cluster.kill, victim)
            while True:
                try:
                    if await player.move(0) is None:
                        await player.new_match(http)
                        continue
                    break
                except (websockets.exceptions.ConnectionClosed, TimeoutError):
                    await player.connect()
            figures.append(time.perf_counter() - killed)
            await asyncio.to_thread(cluster.start, victim)  # back to three before the next kill
        if player.ws is not None:
            await player.ws.close()
    return figures


async def churn(
    cluster: Cluster,
    matches: int,
    kills: int,
    think: float,
    restart_after: float,
    seed: int,
    trace: bool = False,
) -> dict[str, Any]:
    """--matches clients play robot matches at --think pace through HAProxy while a random process
    is killed (-9) --kills times, each started again `restart_after` seconds later (a new node).

    For each kill and each client whose socket closed (or whose move went unanswered) after it:
    the seconds from the kill to that client's next accepted move (it moves at once after a
    reconnect). Also every state a client received that was older than one it had shown.
    """
    rng = random.Random(seed)
    killed_at: list[float] = []
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(base_url=f"http://{cluster.lb}", timeout=60, limits=limits) as http:
        players = [Player(cluster.lb, random.Random(seed * 100_003 + i)) for i in range(matches)]
        for player in players:
            player.trace = [] if trace else None
        await asyncio.gather(*(p.new_match(http) for p in players))
        done = asyncio.Event()

        async def run(player: Player) -> None:
            while not done.is_set():
                hurt = bool(player.hurt) and (not player.accepted or player.accepted[-1] < player.hurt[-1])
                try:
                    if await player.move(0 if hurt else think) is None:
                        await player.new_match(http)
                except (websockets.exceptions.ConnectionClosed, TimeoutError, OSError) as exc:
                    player.note(f"hurt: {exc!r}")
                    player.hurt.append(time.perf_counter())
                    with contextlib.suppress(websockets.exceptions.WebSocketException, TimeoutError, OSError):
                        await player.connect()

        tasks = [asyncio.create_task(run(p)) for p in players]
        await asyncio.sleep(5)  # every client past its first moves
        for _ in range(kills):
            victim = rng.choice(
                [s for s in cluster.servers if s.process is not None and s.process.poll() is None]
            )
            killed_at.append(time.perf_counter())
            await asyncio.to_thread(cluster.kill, victim)
            await asyncio.sleep(restart_after)
            await asyncio.to_thread(cluster.start, victim)
            await asyncio.sleep(max(5.0, restart_after))
        done.set()
        await asyncio.wait(tasks, timeout=60)
        for task in tasks:
            task.cancel()
        for player in players:
            if player.ws is not None:
                with contextlib.suppress(Exception):
                    await player.ws.close()
    figures: list[float] = []  # kill -> next accepted move, of the clients the kill cut off
    others: list[float] = []  # cut off later (not by a kill): cut -> next accepted move
    never = 0
    worst: list[tuple[float, float, Player]] = []
    for player in players:
        for cut in player.hurt:
            if any(at <= cut < at + KILL_CUTS for at in killed_at) and cut in _first_cuts(player, killed_at):
                continue
            after = [a for a in player.accepted if a > cut]
            if after:
                others.append(after[0] - cut)
    for at in killed_at:
        for player in players:
            hurt = [h for h in player.hurt if at <= h < at + KILL_CUTS]
            if not hurt:
                continue
            after = [a for a in player.accepted if a > hurt[0]]
            if after:
                figures.append(after[0] - at)
            else:
                never += 1
            worst.append((after[0] - at if after else float("inf"), at, player))
    if trace:
        worst.sort(key=lambda w: -w[0])
        for took, at, player in worst[:5]:
            print(f"match {player.match_id}: {took:.2f} s after the kill", file=sys.stderr)
            for when, text in player.trace or ():
                if at - 1 <= when <= at + took + 1:
                    print(f"  {when - at:+7.2f} {text}", file=sys.stderr)
    return {
        "matches": matches,
        "kills": len(killed_at),
        "clients_moved": len(figures),
        "never_moved_again": never,
        "failover_s": {
            "median": round(statistics.median(figures), 2) if figures else None,
            "p99": round(percentile(figures, 0.99), 2),
            "max": round(max(figures, default=0.0), 2),
        },
        "other_cuts": len(others),
        "other_cut_s_max": round(max(others, default=0.0), 2),
        "stale_states": sum(p.stale for p in players),
    }


def _first_cuts(player: Player, killed_at: list[float]) -> set[float]:
    """The first cut of `player` after each kill (within KILL_CUTS of it)."""
    firsts = set()
    for at in killed_at:
        hurt = [h for h in player.hurt if at <= h < at + KILL_CUTS]
        if hurt:
            firsts.add(hurt[0])
    return firsts


async def load(cluster: Cluster, matches: int, think: float, seconds: float, seed: int) -> dict[str, Any]:
    rtts: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=100)
    async with httpx.AsyncClient(base_url=f"http://{cluster.lb}", timeout=60, limits=limits) as http:
        players = [Player(cluster.lb, random.Random(seed * 100_003 + i)) for i in range(matches)]
        await asyncio.gather(*(p.new_match(http) for p in players))
        stop = time.monotonic() + seconds
        measuring = asyncio.Event()

        async def run(player: Player) -> None:
            nonlocal errors
            while time.monotonic() < stop:
                try:
                    rtt = await player.move(think)
                except (websockets.exceptions.ConnectionClosed, TimeoutError):
                    errors += 1
                    await player.connect()
                    continue
                if rtt is None:
                    await player.new_match(http)
                elif measuring.is_set():
                    rtts.append(rtt)

        tasks = [asyncio.create_task(run(p)) for p in players]
        await asyncio.sleep(min(5.0, seconds / 4))  # warm up: every client past its first moves
        measuring.set()
        pids = cluster.pids()
        cpu0, events0, t0 = (
            cpu_seconds(pids),
            await asyncio.to_thread(count_events, cluster.database_url),
            time.monotonic(),
        )
        await asyncio.gather(*tasks)
        cpu1, events1, t1 = (
            cpu_seconds(pids),
            await asyncio.to_thread(count_events, cluster.database_url),
            time.monotonic(),
        )
        for player in players:
            if player.ws is not None:
                await player.ws.close()
    accepted = events1 - events0
    return {
        "matches": matches,
        "think": think,
        "seconds": round(t1 - t0, 1),
        "client_actions": len(rtts),
        "accepted_actions": accepted,
        "accepted_per_s": round(accepted / (t1 - t0), 1),
        "rtt_ms": {
            "p50": round(percentile(rtts, 0.5) * 1000, 1),
            "p99": round(percentile(rtts, 0.99) * 1000, 1),
            "max": round(max(rtts, default=0.0) * 1000, 1),
        },
        "server_cpu_us_per_action": round((cpu1 - cpu0) / max(1, accepted) * 1e6),
        "errors": errors,
    }


def run(coro: Any) -> Any:
    """The clients' event loop: uvloop (as the servers use) when installed."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coro)
    return uvloop.run(coro)


def _churn_text(report: dict[str, Any]) -> str:
    c = report["churn"]
    f = c["failover_s"]
    return (
        f"churn ({report['balance']} balancing, lease {report['lease_seconds']:g} s): {c['matches']} clients, "
        f"{c['kills']} kill -9 of a random process: {c['clients_moved']} clients moved, kill -> their next "
        f"accepted move median {f['median']} s, p99 {f['p99']} s, max {f['max']} s; "
        f"{c['never_moved_again']} never moved again; {c['other_cuts']} other cuts (longest {c['other_cut_s_max']} s "
        f"to the next accepted move); {c['stale_states']} stale states received"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default=os.environ.get("GINRUMMY_TEST_POSTGRES_URL", ""))
    parser.add_argument(
        "--kills", type=int, default=5, help="kill -9 of a match's owner, one after another (≤ 20)"
    )
    parser.add_argument("--matches", type=int, default=200, help="concurrent human-pace clients (≤ 2000)")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a client thinks before a move")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the load measurement")
    parser.add_argument("--servers", type=int, nargs="*", default=[1, 3], help="server counts to load (1..3)")
    parser.add_argument(
        "--lease", default="", help="GINRUMMY_LEASE_SECONDS of the servers (default: shipped)"
    )
    parser.add_argument(
        "--churn",
        type=int,
        default=0,
        help="instead: this many human-pace clients while --kills random processes are killed (-9)",
    )
    parser.add_argument(
        "--restart", type=float, default=10.0, help="--churn: seconds until a killed one restarts"
    )
    parser.add_argument("--trace", action="store_true", help="--churn: the slowest clients' timelines")
    parser.add_argument("--keep", type=Path, help="keep the servers' logs in this folder")
    parser.add_argument(
        "--balance", choices=["shipped", "roundrobin"], default="shipped", help="HAProxy's balancing"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.database:
        parser.error("give --database URL or set GINRUMMY_TEST_POSTGRES_URL (a PostgreSQL server)")
    env = {"GINRUMMY_ROBOT_DELAY": "0"}
    if args.lease:
        env["GINRUMMY_LEASE_SECONDS"] = args.lease
    report: dict[str, Any] = {"lease_seconds": float(args.lease or 3), "balance": args.balance}
    if args.churn > 0:
        with (
            fresh_database(args.database) as url,
            running_cluster(url, env=env, balance=args.balance, keep=args.keep) as cluster,
        ):
            report["churn"] = run(
                churn(
                    cluster,
                    min(args.churn, 2000),
                    min(args.kills, 20),
                    args.think,
                    args.restart,
                    args.seed,
                    trace=args.trace,
                )
            )
        print(json.dumps(report) if args.json else _churn_text(report))
        return 0
    if args.kills > 0:
        with (
            fresh_database(args.database) as url,
            running_cluster(url, env=env, balance=args.balance) as cluster,
        ):
            figures = run(failover(cluster, min(args.kills, 20), random.Random(args.seed)))
        report["failover_s"] = {
            "each": [round(f, 2) for f in figures],
            "median": round(statistics.median(figures), 2) if figures else None,
            "max": round(max(figures), 2) if figures else None,
        }
    if args.matches > 0:
        report["load"] = []
        for count in args.servers:
            with (
                fresh_database(args.database) as url,
                running_cluster(url, servers=count, env=env, balance=args.balance) as cluster,
            ):
                figures = run(load(cluster, min(args.matches, 2000), args.think, args.seconds, args.seed))
            report["load"].append({"servers": count, **figures})
    if args.json:
        print(json.dumps(report))
    else:
        if "failover_s" in report:
            f = report["failover_s"]
            print(
                f"failover (lease {report['lease_seconds']:g} s): kill -9 -> first accepted action, s: {f['each']}"
            )
            print(f"  median {f['median']} s, max {f['max']} s")
        for row in report.get("load", []):
            rtt = row["rtt_ms"]
            print(
                f"{row['servers']} server(s), {row['matches']} matches thinking ~{row['think']:g} s: "
                f"rtt p50 {rtt['p50']} ms, p99 {rtt['p99']} ms, max {rtt['max']} ms; "
                f"{row['accepted_per_s']} accepted actions/s; "
                f"{row['server_cpu_us_per_action']} µs server CPU per accepted action; errors {row['errors']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
