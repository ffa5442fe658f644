"""Quick pairing and an arena in a cluster: three `ginrummy serve` processes behind HAProxy (clusterproc.py).

Three measurements, each printed as figures:

- pairing: --pairs pairs of strangers seek at once through HAProxy (their requests reach any
  process; one runs the pool), then long-poll as the page does (`wait=3`) until paired; figures:
  the seek call's round trip p50/p99 (ms), seconds from seeking to learning the match p50/p99/max,
  and whether every guest got exactly one match.
- pool failover: the pool's process is killed (SIGKILL); two new seekers keep seeking as the page
  does (joining again after an error) and the seconds from the kill until both are paired are
  measured, --kills times (the killed process is started again before the next kill).
- arena: --players join one arena through HAProxy; the join call's round trip p50/p99 (ms) and the
  seconds from the last join until every player is in a match (each exactly once).

    GINRUMMY_TEST_POSTGRES_URL=postgresql+psycopg://... nice -n 10 .venv/bin/python benchmarks/bench_cluster_compete.py
    .venv/bin/python benchmarks/bench_cluster_compete.py --pairs 100 --kills 3 --players 100 --json
    .venv/bin/python benchmarks/bench_cluster_compete.py --servers 1     # the same load on one process

Each run makes a fresh PostgreSQL database (dropped after) on the server of the URL given
(--database or $GINRUMMY_TEST_POSTGRES_URL). Bounded: every wait has a limit, and everything
started is killed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from typing import Any

import httpx
import sqlalchemy as sa

from bench_cluster import fresh_database
from clusterproc import Cluster, running_cluster
from ginrummy.storage import make_engine

POOL = {"preset": "classic", "target": 100, "rated": False}
LIMIT = 120.0  # seconds any one wait may take


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Visitor:
    """One browser: its own cookie, talking to the site through HAProxy."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.cookie = ""

    async def start(self) -> None:
        """A new guest (one at a time: the client's cookie jar must be empty for each)."""
        self.http.cookies.clear()
        response = await self.http.get("/api/me")
        self.cookie = response.cookies["gr_guest"]
        self.http.cookies.clear()

    async def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        return await self.http.request(method, path, json=body, headers={"Cookie": f"gr_guest={self.cookie}"})


async def seek_until_paired(visitor: Visitor, deadline: float) -> tuple[float, str]:
    """Seek and poll as home-compete.js does (joining again after "gone" or an error); the seek's
    round trip (s) and the match id."""
    started = time.monotonic()
    response = await visitor.call("POST", "/api/pool", POOL)
    seek_rtt = time.monotonic() - started
    while time.monotonic() < deadline:
        news = response.json() if response.status_code == 200 else None
        if news is not None and news["state"] == "paired":
            return seek_rtt, str(news["match_id"])
        if news is None or news["state"] == "gone":
            await asyncio.sleep(0.5)
            response = await visitor.call("POST", "/api/pool", POOL)
            continue
        response = await visitor.call("GET", "/api/pool?wait=3")
    raise TimeoutError("not paired in time")


async def pairing(cluster: Cluster, pairs: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=2 * pairs + 10)
    async with httpx.AsyncClient(base_url=f"http://{cluster.lb}", timeout=30, limits=limits) as http:
        visitors = [Visitor(http) for _ in range(2 * pairs)]
        for visitor in visitors:
            await visitor.start()
        started = time.monotonic()

        async def one(visitor: Visitor) -> tuple[float, float, str]:
            rtt, match_id = await seek_until_paired(visitor, started + LIMIT)
            return rtt, time.monotonic() - started, match_id

        found = await asyncio.gather(*(one(v) for v in visitors))
    matches: dict[str, int] = {}
    for _, _, match_id in found:
        matches[match_id] = matches.get(match_id, 0) + 1
    rtts = [1000 * r for r, _, _ in found]
    waits = [w for _, w, _ in found]
    return {
        "pairs": pairs,
        "seek_ms": {"p50": round(pct(rtts, 0.5), 1), "p99": round(pct(rtts, 0.99), 1)},
        "paired_s": {
            "p50": round(pct(waits, 0.5), 2),
            "p99": round(pct(waits, 0.99), 2),
            "max": round(max(waits), 2),
        },
        "each_once": len(matches) == pairs and set(matches.values()) == {2},
    }


def pool_owner(url: str) -> str | None:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(sa.text("SELECT owner FROM leases WHERE name = 'pool'")).first()
            return None if row is None else row.owner
    finally:
        engine.dispose()


async def pool_failover(cluster: Cluster, kills: int) -> list[float]:
    figures = []
    async with httpx.AsyncClient(base_url=f"http://{cluster.lb}", timeout=30) as http:
        for _ in range(kills):
            warm = [Visitor(http), Visitor(http)]
            for visitor in warm:
                await visitor.start()
            await asyncio.gather(*(seek_until_paired(v, time.monotonic() + LIMIT) for v in warm))
            owner = await asyncio.to_thread(pool_owner, cluster.database_url)
            assert owner is not None
            victim = cluster.server_named(owner)
            cluster.kill(victim)
            killed = time.monotonic()
            seekers = [Visitor(http), Visitor(http)]
            for visitor in seekers:
                await visitor.start()
            await asyncio.gather(*(seek_until_paired(v, killed + LIMIT) for v in seekers))
            figures.append(time.monotonic() - killed)
            cluster.start(victim)
    return figures


async def arena(cluster: Cluster, players: int) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=players + 10)
    async with httpx.AsyncClient(base_url=f"http://{cluster.lb}", timeout=30, limits=limits) as http:
        creator = Visitor(http)
        await creator.start()
        made = (await creator.call("POST", "/api/tournaments", {"name": "Bench", "minutes": 30})).json()
        tid = made["id"]
        visitors = [Visitor(http) for _ in range(players)]
        for visitor in visitors:
            await visitor.start()

        async def join(visitor: Visitor) -> float:
            started = time.monotonic()
            response = await visitor.call("POST", f"/api/tournaments/{tid}/join")
            assert response.status_code == 200, response.text
            return time.monotonic() - started

        rtts = [1000 * r for r in await asyncio.gather(*(join(v) for v in visitors))]
        joined = time.monotonic()

        def seated() -> list[str]:
            engine = make_engine(cluster.database_url)
            try:
                with engine.connect() as conn:
                    rows = conn.execute(
                        sa.text(
                            "SELECT s.guest_id FROM matches m JOIN match_seats s ON s.match_id = m.id"
                            " WHERE m.tournament_id = :t AND s.guest_id IS NOT NULL"
                        ),
                        {"t": tid},
                    )
                    return [row.guest_id for row in rows]
            finally:
                engine.dispose()

        while True:
            people = await asyncio.to_thread(seated)
            if len(set(people)) >= players or time.monotonic() > joined + LIMIT:
                break
            await asyncio.sleep(0.1)
        return {
            "players": players,
            "join_ms": {"p50": round(pct(rtts, 0.5), 1), "p99": round(pct(rtts, 0.99), 1)},
            "all_paired_s": round(time.monotonic() - joined, 2),
            "each_once": len(people) == len(set(people)) == players,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default=os.environ.get("GINRUMMY_TEST_POSTGRES_URL", ""))
    parser.add_argument("--pairs", type=int, default=50, help="pairs of strangers seeking at once (≤ 500)")
    parser.add_argument("--kills", type=int, default=3, help="kill -9 of the pool's process (≤ 10)")
    parser.add_argument("--players", type=int, default=60, help="players joining one arena (≤ 500)")
    parser.add_argument("--lease", default="3", help="GINRUMMY_LEASE_SECONDS of the servers")
    parser.add_argument(
        "--servers",
        type=int,
        default=3,
        help="server processes (1..3; with 1 nothing is forwarded, no kills)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.database:
        parser.error("give --database URL or set GINRUMMY_TEST_POSTGRES_URL (a PostgreSQL server)")
    env = {"GINRUMMY_LEASE_SECONDS": args.lease}
    report: dict[str, Any] = {"lease_seconds": float(args.lease)}
    servers = max(1, min(args.servers, 3))
    report["servers"] = servers
    with fresh_database(args.database) as url, running_cluster(url, servers=servers, env=env) as cluster:
        if args.pairs > 0:
            report["pairing"] = asyncio.run(pairing(cluster, min(args.pairs, 500)))
        if args.players > 0:
            report["arena"] = asyncio.run(arena(cluster, min(args.players, 500)))
        if args.kills > 0 and servers > 1:
            figures = asyncio.run(pool_failover(cluster, min(args.kills, 10)))
            report["pool_failover_s"] = {
                "each": [round(f, 2) for f in figures],
                "median": round(statistics.median(figures), 2),
                "max": round(max(figures), 2),
            }
    if args.json:
        print(json.dumps(report))
        return 0
    if "pairing" in report:
        p = report["pairing"]
        print(
            f"pairing, {p['pairs']} pairs through {servers} server(s): seek rtt p50 {p['seek_ms']['p50']} ms, "
            f"p99 {p['seek_ms']['p99']} ms; seek -> paired p50 {p['paired_s']['p50']} s, "
            f"p99 {p['paired_s']['p99']} s, max {p['paired_s']['max']} s; each once: {p['each_once']}"
        )
    if "arena" in report:
        a = report["arena"]
        print(
            f"arena, {a['players']} players joining through {servers} server(s): join rtt p50 {a['join_ms']['p50']} ms, "
            f"p99 {a['join_ms']['p99']} ms; last join -> all paired {a['all_paired_s']} s; "
            f"each once: {a['each_once']}"
        )
    if "pool_failover_s" in report:
        f = report["pool_failover_s"]
        print(f"pool failover (lease {args.lease} s): kill -9 -> a new pair paired, s: {f['each']}")
        print(f"  median {f['median']} s, max {f['max']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
