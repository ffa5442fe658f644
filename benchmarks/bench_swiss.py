"""Swiss pairing benchmark: how long the FIDE Dutch pairing (py4swiss) of one round takes.

Plays --rounds rounds of a Swiss tournament of --players players with random results (a tenth of
them drawn), pairing each round with the same `swiss_pairing` the server calls, and prints the
time of each round's pairing and the worst. The server pairs in a worker thread; this is how long
a round's players wait for their pairing once the last match of the round ended (plus the gap).

    .venv/bin/python benchmarks/bench_swiss.py                      # 256 players (the cap), 5 rounds
    .venv/bin/python benchmarks/bench_swiss.py --players 64 --rounds 7 --json
"""

from __future__ import annotations

import argparse
import json
import random
import time

from ginrummy.service.ports import MatchRow, SeatRow
from ginrummy.service.swiss import swiss_cells, swiss_pairing
from ginrummy.service.tournaments.swiss import SWISS_MAX_PLAYERS


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=SWISS_MAX_PLAYERS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args()
    if args.players < 2 or args.rounds < 1:
        parser.error("need at least 2 players and 1 round")

    rng = random.Random(args.seed)
    players = [f"p{i:04d}" for i in range(args.players)]
    ratings = {g: rng.gauss(1500, 250) for g in players}
    order = sorted(players, key=lambda g: -ratings[g])
    matches: list[MatchRow] = []
    byes: list[tuple[int, str]] = []
    times = []
    for number in range(1, args.rounds + 1):
        cells = swiss_cells(matches, byes, players, number - 1)
        started = time.perf_counter()
        found = swiss_pairing(cells, order, set(players), ratings, args.rounds)
        times.append(time.perf_counter() - started)
        if found is None:
            print(f"round {number} could not be paired")
            break
        pairs, bye = found
        for a, b in pairs:
            roll = rng.random()
            winner = None if roll < 0.1 else (0 if roll < 0.55 else 1)
            matches.append(
                MatchRow(
                    id=f"m{len(matches)}",
                    kind="tourney",
                    status="over",
                    rules={},
                    seed="0",
                    seats=(SeatRow(0, a), SeatRow(1, b)),
                    created_at=0.0,
                    finished_at=0.0,
                    result={"winner": winner},
                    round=number,
                )
            )
        if bye:
            byes.append((number, bye))

    figures = {
        "players": args.players,
        "rounds": len(times),
        "round_seconds": [round(t, 3) for t in times],
        "worst_seconds": round(max(times), 3),
    }
    if args.json:
        print(json.dumps(figures))
        return
    print(f"Swiss pairing (FIDE Dutch, py4swiss): {args.players} players")
    for number, seconds in enumerate(times, start=1):
        print(f"  round {number}: {seconds * 1000:9.1f} ms")
    print(f"  worst:   {max(times) * 1000:9.1f} ms")


if __name__ == "__main__":
    main()
