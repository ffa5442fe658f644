"""Benchmark: whole hands of classic Rummy with four players, every move a uniformly random legal action.

A hand is `RummyHand(Rules.for_game("rummy", N), seed, dealer)` driven by `legal_actions()` and
`apply()` (every action checked, as a live game checks it) from the deal until someone goes out
or the stock runs out for the last time. Void hands (the stock spent) count as hands. Prints the
rate of each round and the median, with how the hands ended.

    python benchmarks/bench_rummy_hands.py [--players 4] [--seconds N] [--rounds R] [--seed S]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from ginrummy.rules import Rules, RummyHand


def play_hand(rules: Rules, rng: random.Random) -> tuple[str, int]:
    """One random hand from the deal to its end; (outcome, actions)."""
    hand = RummyHand(rules, rng.getrandbits(63), rng.randrange(rules.players))
    choice = rng.choice
    actions = 0
    while hand.phase != "over":
        hand.apply(choice(hand.legal_actions()))
        actions += 1
    assert hand.result is not None and sum(hand.result.payments) == 0
    return hand.result.outcome, actions


def run(rules: Rules, seed: int, seconds: float) -> tuple[float, Counter[str], int]:
    """Hands per second for at least `seconds`, the outcomes seen and the actions played."""
    rng = random.Random(seed)
    outcomes: Counter[str] = Counter()
    actions = 0
    start = time.perf_counter()
    deadline = start + seconds
    count = 0
    while True:
        outcome, steps = play_hand(rules, rng)
        outcomes[outcome] += 1
        actions += steps
        count += 1
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start), outcomes, actions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rules = Rules.for_game("rummy", args.players)
    rates = []
    total: Counter[str] = Counter()
    actions = 0
    for round_number in range(args.rounds):
        rate, outcomes, steps = run(rules, args.seed + round_number, args.seconds)
        rates.append(rate)
        total += outcomes
        actions += steps
        print(f"round {round_number + 1}: {rate:,.1f} random whole Rummy hands/s ({args.players} players)")
    hands = sum(total.values())
    ended = ", ".join(f"{name} {100 * n / hands:.1f}%" for name, n in sorted(total.items()))
    print(f"median: {statistics.median(rates):,.1f} hands/s; {actions / hands:.1f} actions per hand; {ended}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
