"""Benchmark: `min_deadwood` on 10 random cards against OpenSpiel's C++ `GinRummyUtils.min_deadwood`.

Both sides get the same hands in the same run; the figure that matters is the
median ratio ours/theirs over several rounds (issue 27 target: <= 0.25). It runs once per
build of the card masks (benchmarks/builds.py): the Python source, then the fast core
(scripts/build_fast_core.py), each against OpenSpiel measured beside it.

    python benchmarks/bench_deadwood.py [--seconds N] [--rounds R] [--hands H] [--seed S]
                                        [--build both|python|compiled]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ginrummy.rules import CardSet, min_deadwood, parse_card

sys.path.insert(0, str(Path(__file__).resolve().parent))
from builds import add_build_options, child_argv, run_both, write_result, wrong_build  # noqa: E402

TARGET = 0.25


def _load_pyspiel() -> Any:
    try:
        import pyspiel  # type: ignore[import-not-found]  # optional extra `bench`, no stubs
    except ImportError:
        return None
    return pyspiel


def openspiel_to_ours(utils: Any) -> list[int]:
    """Our card index for each OpenSpiel card int, read off OpenSpiel's own card names.

    OpenSpiel orders suits s, c, d, h and names cards like 'As'; we order C, D, H, S.
    """
    return [parse_card(utils.card_string(i).upper()).index for i in range(52)]


def random_hands(count: int, seed: int) -> list[list[int]]:
    """`count` hands of 10 distinct cards (our indices), uniformly random."""
    rng = random.Random(seed)
    deck = list(range(52))
    return [rng.sample(deck, 10) for _ in range(count)]


def time_per_call(call: Callable[[Any], int], inputs: Sequence[Any], seconds: float) -> float:
    """Seconds per call of `call` over `inputs`, cycling them for at least `seconds`."""
    calls = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for item in inputs:
            call(item)
        calls += len(inputs)
        now = time.perf_counter()
        if now >= deadline:
            return (now - start) / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per side per round (default 1)")
    parser.add_argument(
        "--rounds", type=int, default=5, help="rounds; the median ratio is reported (default 5)"
    )
    parser.add_argument("--hands", type=int, default=2000, help="distinct random hands (default 2000)")
    parser.add_argument("--seed", type=int, default=2024)
    add_build_options(parser)
    args = parser.parse_args(argv)

    pyspiel = _load_pyspiel()
    if pyspiel is None:
        print("skipped: pyspiel is not installed (pip install -e '.[bench]' to compare with OpenSpiel)")
        return 0
    if args.build == "both":
        results = run_both(__file__, child_argv(argv))
        print("=== both builds: median ratio ours/OpenSpiel (target <= 0.25) ===")
        for build, figures in results.items():
            print(
                f"{build:>8} build: {figures['ours_us']:.3f} µs per call, OpenSpiel {figures['theirs_us']:.3f} µs, "
                f"ratio {figures['ratio']:.3f} ({'meets' if figures['ratio'] <= TARGET else 'misses'} the target)"
            )
        return 0
    problem = wrong_build(args.build)
    if problem is not None:
        print(f"skipped the {args.build} build: {problem}")
        return 0
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    to_ours = openspiel_to_ours(utils)
    to_theirs = {ours: theirs for theirs, ours in enumerate(to_ours)}

    hands = random_hands(args.hands, args.seed)
    ours_inputs = [CardSet(h) for h in hands]
    theirs_inputs = [[to_theirs[c] for c in h] for h in hands]

    # Same hands, same answers: a speed comparison of different results would mean nothing.
    mismatches = [
        (str(cs), min_deadwood(cs), utils.min_deadwood(th))
        for cs, th in zip(ours_inputs, theirs_inputs, strict=True)
        if min_deadwood(cs) != utils.min_deadwood(th)
    ]
    if mismatches:
        print(f"MISMATCH on {len(mismatches)} of {len(hands)} hands, e.g.:")
        for text, our_value, their_value in mismatches[:5]:
            print(f"  {text}: ours {our_value}, OpenSpiel {their_value}")
        return 1
    print(f"agreement: both give the same deadwood on all {len(hands)} hands")

    theirs_call = utils.min_deadwood
    ratios = []
    ours_times: list[float] = []
    theirs_times: list[float] = []
    print(f"{'round':>5}  {'ours µs/call':>12}  {'OpenSpiel µs/call':>17}  {'ours/theirs':>11}")
    for number in range(1, args.rounds + 1):
        # Alternate who goes first so drift in machine load does not favour one side.
        if number % 2:
            ours = time_per_call(min_deadwood, ours_inputs, args.seconds)
            theirs = time_per_call(theirs_call, theirs_inputs, args.seconds)
        else:
            theirs = time_per_call(theirs_call, theirs_inputs, args.seconds)
            ours = time_per_call(min_deadwood, ours_inputs, args.seconds)
        ratios.append(ours / theirs)
        ours_times.append(ours)
        theirs_times.append(theirs)
        print(f"{number:>5}  {ours * 1e6:>12.3f}  {theirs * 1e6:>17.3f}  {ours / theirs:>11.3f}")
    median = statistics.median(ratios)
    verdict = "meets" if median <= TARGET else "misses"
    print(f"median ratio ours/OpenSpiel = {median:.3f} ({verdict} the target <= {TARGET})")
    write_result(
        args.result_file,
        {
            "ratio": median,
            "ours_us": statistics.median(ours_times) * 1e6,
            "theirs_us": statistics.median(theirs_times) * 1e6,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
