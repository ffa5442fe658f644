"""The card-mask API's speed: microseconds per call of each function players and the referee use.

Run: python benchmarks/bench_masks.py [--seconds 0.5] [--rounds 3] [--seed 2024]

Times `least_deadwood` (10 random cards), `best_discards`, `knock_options` and
`deadwood_after_discards` (11 random cards) and `showdown_points` (random knocks), on
the same hands every run, and prints the best of the rounds for each: for the Python
source (`ginrummy.rules.masks`) and, when it is built (scripts/build_fast_core.py), for the
fast core compiled from it, the two timed in turn in each round. Run it on two versions of
the code one after the other to compare them: on a shared machine only the ratio of two runs
made together means anything.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from ginrummy.rules import Rules, fast_core, masks


def per_call(call: Callable[[Any], object], inputs: Sequence[Any], seconds: float) -> float:
    """CPU seconds per call of `call`, cycling through `inputs` for at least `seconds`."""
    calls = 0
    start = time.process_time()
    while True:
        for item in inputs:
            call(item)
        calls += len(inputs)
        spent = time.process_time() - start
        if spent >= seconds:
            return spent / calls


def knocks(count: int, rng: random.Random) -> list[tuple[int, int]]:
    """(knocker, defender) hands of 10 cards each, the knocker with 10 deadwood or less."""
    out: list[tuple[int, int]] = []
    while len(out) < count:
        cards = rng.sample(range(52), 20)
        knocker = sum(1 << c for c in cards[:10])
        if masks.least_deadwood(knocker) <= 10:
            out.append((knocker, sum(1 << c for c in cards[10:])))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per function per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    tens = [sum(1 << c for c in rng.sample(range(52), 10)) for _ in range(2000)]
    elevens = [sum(1 << c for c in rng.sample(range(52), 11)) for _ in range(2000)]
    showdowns = knocks(300, rng)
    rules = Rules()
    compiled, problem = fast_core.compiled_build()
    builds: list[Any] = [masks] if compiled is None else [masks, compiled]
    if compiled is None:
        print(f"Python source only: {problem or 'no compiled build (python scripts/build_fast_core.py)'}")
        print(f"{'function':<36} {'python':>13}")
    else:
        print(f"{'function':<36} {'python':>13} {'compiled':>13} {'speed-up':>8}")

    def cases(module: Any) -> list[tuple[str, Callable[[Any], object], Sequence[Any]]]:
        found: list[tuple[str, Callable[[Any], object], Sequence[Any]]] = [
            ("least_deadwood (10 cards)", module.least_deadwood, tens),
            ("best_discards (11 cards)", module.best_discards, elevens),
            ("knock_options (11 cards)", lambda hand: module.knock_options(hand, 10), elevens),
            ("showdown_points", lambda pair: module.showdown_points(pair[0], pair[1], rules), showdowns),
        ]
        # Versions before the turn's discard table lack it; their runs print the other rows.
        table = getattr(module, "deadwood_after_discards", None)
        if table is not None:
            found.insert(3, ("deadwood_after_discards (11 cards)", table, elevens))
        return found

    for row in zip(*(cases(module) for module in builds), strict=True):
        best = [float("inf")] * len(row)
        for _ in range(args.rounds):
            for k, (_, call, inputs) in enumerate(row):
                best[k] = min(best[k], per_call(call, inputs, args.seconds))
        line = f"{row[0][0]:<36}" + "".join(f" {b * 1e6:>10.3f} µs" for b in best)
        if len(best) == 2:
            line += f" {best[0] / best[1]:>7.1f}x"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
