"""Leaderboard benchmark: how long each board takes to answer with a million finished matches stored.

Fills a fresh database (a temp SQLite file, or a PostgreSQL URL) with --players people and
--matches finished rated matches spread evenly over the last --days days: the `matches`,
`match_seats` and `player_matches` rows, the leaderboard buckets those matches add (the same
`bucket_keys` the server uses when a match finishes) and one rating per person. The event log of
each match is not written (no board reads it). Then asks the store for each board --repeat times,
with the asker's own line, through the same `SqlStore` calls the server makes, and prints the
median, p95 and worst time of each.

    .venv/bin/python benchmarks/bench_leaderboards.py                          # SQLite, 10^6 matches
    .venv/bin/python benchmarks/bench_leaderboards.py --url postgresql://u:p@127.0.0.1:5432/bench
    .venv/bin/python benchmarks/bench_leaderboards.py --matches 20000 --json   # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from ginrummy.service.glicko2 import Glicko
from ginrummy.service.leaderboards import BOARD_SIZE, ROLLING_DAYS, bucket_keys, utc_day, window
from ginrummy.service.ratings import GAME, ranked_until
from ginrummy.storage import SqlStore, make_engine, migrate
from ginrummy.storage.schema import guests, match_seats, matches, player_matches, ratings, score_buckets

DAY = 86400


def _insert(conn: sa.Connection, table: sa.Table, rows: list[dict[str, Any]], chunk: int = 20_000) -> None:
    for start in range(0, len(rows), chunk):
        conn.execute(table.insert(), rows[start : start + chunk])


def fill(url: str, *, players: int, count: int, days: int, now: float, seed: int) -> dict[str, float]:
    """Write the data set; returns how long each part took (seconds)."""
    rng = random.Random(seed)
    engine = make_engine(url)
    timings: dict[str, float] = {}
    try:
        migrate(engine)
        ids = [f"p{i:07d}-bench" for i in range(players)]
        start = time.perf_counter()
        with engine.begin() as conn:
            _insert(
                conn,
                guests,
                [{"id": g, "name": f"Player {i}", "created_at": now - days * DAY} for i, g in enumerate(ids)],
            )
        per_day: dict[tuple[int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        first = now - days * DAY
        batch = 50_000
        for base in range(0, count, batch):
            match_rows, seat_rows, line_rows = [], [], []
            for number in range(base, min(count, base + batch)):
                a, b = rng.sample(range(players), 2)
                finished = first + (number + rng.random()) * (days * DAY / count)
                winner = rng.randrange(2)
                scores = [rng.randrange(100, 160), rng.randrange(0, 100)]
                if winner:
                    scores.reverse()
                match_id = f"m{number:08d}"
                match_rows.append(
                    {
                        "id": match_id,
                        "kind": "online",
                        "status": "over",
                        "rules": '{"preset":"classic"}',
                        "seed": "0" * 64,
                        "created_at": finished - 900,
                        "finished_at": finished,
                        "result": json.dumps({"winner": winner, "scores": scores}),
                        "rated": True,
                    }
                )
                day = utc_day(finished)
                for seat, player in enumerate((a, b)):
                    seat_rows.append({"match_id": match_id, "seat": seat, "guest_id": ids[player]})
                    won = int(winner == seat)
                    line_rows.append(
                        {
                            "match_id": match_id,
                            "guest_id": ids[player],
                            "game": GAME,
                            "finished_at": finished,
                            "seat": seat,
                            "score": float(won),
                            "points": scores[seat],
                            "hands": 5,
                            "gins": 0,
                            "undercuts": 0,
                            "knocks": 2,
                            "knock_deadwood": 10,
                            "opponent_id": ids[(a, b)[1 - seat]],
                        }
                    )
                    totals = per_day[(day, ids[player])]
                    totals[0] += won
                    totals[1] += scores[seat]
                    totals[2] += 1
            with engine.begin() as conn:
                _insert(conn, matches, match_rows)
                _insert(conn, match_seats, seat_rows)
                _insert(conn, player_matches, line_rows)
        timings["matches"] = time.perf_counter() - start
        start = time.perf_counter()
        # What the server's finish_match adds, match by match, summed per window.
        buckets: dict[tuple[int, int, str], list[int]] = defaultdict(lambda: [0, 0, 0])
        for (day, guest), (w, p, m) in per_day.items():
            for span, last_day in bucket_keys(day):
                totals = buckets[(span, last_day, guest)]
                totals[0] += w
                totals[1] += p
                totals[2] += m
        with engine.begin() as conn:
            _insert(
                conn,
                score_buckets,
                [
                    {
                        "game": GAME,
                        "span": span,
                        "last_day": last,
                        "guest_id": guest,
                        "wins": w,
                        "points": p,
                        "matches": m,
                    }
                    for (span, last, guest), (w, p, m) in buckets.items()
                ],
            )
            rating_rows = []
            for guest in ids:
                glicko = Glicko(rng.gauss(1500, 250), rng.choice([60.0, 70.0, 90.0, 200.0]), 0.06)
                last = now - rng.random() * 20 * DAY
                rating_rows.append(
                    {
                        "guest_id": guest,
                        "game": GAME,
                        "rating": glicko.rating,
                        "deviation": glicko.deviation,
                        "volatility": glicko.volatility,
                        "games": rng.randrange(10, 400),
                        "last_at": last,
                        "ranked_until": ranked_until(glicko, last),
                    }
                )
            _insert(conn, ratings, rating_rows)
        timings["buckets and ratings"] = time.perf_counter() - start
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(sa.text("VACUUM ANALYZE"))
        else:
            with engine.begin() as conn:
                conn.execute(sa.text("ANALYZE"))
        timings["bucket rows"] = float(len(buckets))
    finally:
        engine.dispose()
    return timings


async def measure(
    url: str, *, players: int, now: float, repeat: int, seed: int
) -> dict[str, dict[str, float]]:
    rng = random.Random(seed)
    store = SqlStore(url)
    await store.start()
    today = utc_day(now)
    boards = {
        "today": lambda me: store.points_board(GAME, window(1, today), BOARD_SIZE, me),
        f"{ROLLING_DAYS} days": lambda me: store.points_board(
            GAME, window(ROLLING_DAYS, today), BOARD_SIZE, me
        ),
        "top ratings": lambda me: store.rating_board(GAME, now, BOARD_SIZE, me),
    }
    figures: dict[str, dict[str, float]] = {}
    try:
        for name, ask in boards.items():
            await ask(None)  # warm the caches once, as a running server has them
            times = []
            outside = 0
            for _ in range(repeat):
                me = f"p{rng.randrange(players):07d}-bench"
                start = time.perf_counter()
                lines, mine = await ask(me)
                times.append((time.perf_counter() - start) * 1000)
                assert 0 < len(lines) <= BOARD_SIZE, (name, len(lines))
                if mine is not None and mine.rank > BOARD_SIZE:
                    outside += 1
            times.sort()
            figures[name] = {
                "median_ms": statistics.median(times),
                "p95_ms": times[max(0, int(len(times) * 0.95) - 1)],
                "max_ms": times[-1],
                "asked_outside_top": outside,
            }
    finally:
        await store.close()
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="database URL (default: a temp SQLite file)")
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.players < 2 or args.matches < 1 or args.days < 1:
        parser.error("need at least 2 players, 1 match and 1 day")
    now = (utc_day(time.time()) + 0.5) * DAY  # midday: today's board holds half a day of matches
    with tempfile.TemporaryDirectory() as tmp:
        url = args.url or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        fill_times = fill(
            url, players=args.players, count=args.matches, days=args.days, now=now, seed=args.seed
        )
        figures = asyncio.run(measure(url, players=args.players, now=now, repeat=args.repeat, seed=args.seed))
    backend = "postgresql" if url.startswith("postgres") else "sqlite"
    if args.json:
        print(
            json.dumps(
                {
                    "backend": backend,
                    "matches": args.matches,
                    "players": args.players,
                    "fill": fill_times,
                    "boards": figures,
                }
            )
        )
        return 0
    print(
        f"{backend}: {args.matches:,} finished matches, {args.players:,} players, {args.days} days "
        f"({int(fill_times['bucket rows']):,} bucket rows; filled in {fill_times['matches'] + fill_times['buckets and ratings']:.0f} s)"
    )
    for name, f in figures.items():
        print(
            f"  {name:>12}: median {f['median_ms']:.1f} ms, p95 {f['p95_ms']:.1f} ms, max {f['max_ms']:.1f} ms "
            f"(top {BOARD_SIZE} + the asker's rank; {int(f['asked_outside_top'])} of {args.repeat} askers outside the top)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
