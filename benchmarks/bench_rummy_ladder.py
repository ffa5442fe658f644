"""Benchmark: the Rummy ladder measured by the arena at four-seat tables of mixed levels.

Each level plays the one below it (casual against novice, skilled against casual, advanced
against skilled) at tables of two of each: every block of six games deals one seed to the six
seatings AABB, ABAB, ABBA, BAAB, BABA, BBAA (`arena.tables.arrangements`), and block k is dealt
from seed S+k. A game is a whole game to the rules' target (net balance 100 in the `rummy`
preset); it counts 1 for the higher level when a player of that level wins it, 0 when a player
of the lower level does (½ for a stalled game, which has no winner). The figure is the higher
level's share of games with its 95% Wilson interval. `--cross` adds every other pair.

    python benchmarks/bench_rummy_ladder.py [--games 240] [--workers 2] [--seed 0] [--players 4] [--cross]
    python benchmarks/bench_rummy_ladder.py --games 960 --step skilled      # one step only
"""

from __future__ import annotations

import argparse
import json
import time

from ginrummy.arena.tables import run_table_arena
from ginrummy.bots.rummy_players import RUMMY_LEVELS
from ginrummy.rules import Rules


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--games", type=int, default=240, help="games per pair (a multiple of 6 keeps seatings even)"
    )
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--cross", action="store_true", help="also every pair two or more levels apart")
    parser.add_argument(
        "--step", action="append", choices=RUMMY_LEVELS[1:], help="only the step of this level (repeatable)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per pair as well")
    args = parser.parse_args(argv)
    rules = Rules.for_game("rummy", args.players)
    levels = list(RUMMY_LEVELS)
    pairs = [(levels[i + 1], levels[i]) for i in range(len(levels) - 1)]
    if args.step:
        pairs = [(higher, lower) for higher, lower in pairs if higher in args.step]
    if args.cross:
        pairs += [(levels[j], levels[i]) for i in range(len(levels)) for j in range(i + 2, len(levels))]
    print(f"Rummy, {args.players} seats, {args.games} games per pair, seed {args.seed}")
    print(
        f"{'higher vs lower':<22}{'share':>7}  {'95% CI':<17}{'won':>5}{'lost':>6}{'split':>7}{'hands/game':>12}{'s':>8}"
    )
    for higher, lower in pairs:
        start = time.perf_counter()
        summary = run_table_arena(
            higher, lower, rules=rules, games=args.games, workers=args.workers, seed=args.seed
        )
        data = summary.to_json()
        lo, hi = data["ci95"]
        print(
            f"{higher + ' vs ' + lower:<22}{data['win_rate']:>7.3f}  [{lo:.3f}, {hi:.3f}]  "
            f"{data['a_wins']:>4}{data['b_wins']:>6}{data['split']:>7}{data['hands_per_game']:>12.1f}"
            f"{time.perf_counter() - start:>8.0f}",
            flush=True,
        )
        if args.json:
            print(json.dumps(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
