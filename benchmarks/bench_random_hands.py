"""Benchmark: whole hands with uniformly random legal actions, ours against OpenSpiel's `gin_rummy`.

Ours: `Hand(rules, seed, dealer)` driven by `legal_actions()` / `apply()` (every
action checked). OpenSpiel: `pyspiel.load_game("gin_rummy")` driven through its
Python API, chance nodes sampled from `chance_outcomes()`, players by a random
choice among `legal_actions()`. Same run; issue 27 target: ours >= 10x their rate. It runs
once per build of the card masks (benchmarks/builds.py): the Python source, then the fast
core (scripts/build_fast_core.py), each against OpenSpiel measured beside it.

    python benchmarks/bench_random_hands.py [--seconds N] [--rounds R] [--seed S]
                                            [--build both|python|compiled]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ginrummy.rules import Hand, Rules

sys.path.insert(0, str(Path(__file__).resolve().parent))
from builds import add_build_options, child_argv, run_both, write_result, wrong_build  # noqa: E402

TARGET = 10.0


def _load_pyspiel() -> Any:
    try:
        import pyspiel  # type: ignore[import-not-found]  # optional extra `bench`, no stubs
    except ImportError:
        return None
    return pyspiel


def play_ours(rules: Rules, rng: random.Random) -> None:
    """One hand from the deal to its end, every move a random legal action."""
    hand = Hand(rules, rng.getrandbits(63), rng.randrange(2))
    choice = rng.choice
    while hand.phase != "over":
        hand.apply(choice(hand.legal_actions()))


def make_play_openspiel(game: Any) -> Callable[[random.Random], None]:
    """A function playing one OpenSpiel hand with random chance outcomes and random legal actions."""

    def play(rng: random.Random) -> None:
        state = game.new_initial_state()
        choice = rng.choice
        while not state.is_terminal():
            if state.is_chance_node():
                # gin_rummy's chance outcomes (deal and stock draws) are uniform over the
                # unseen cards (checked in `check_uniform_chance`), so a plain choice samples
                # them exactly and costs OpenSpiel's side the least Python time.
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))

    return play


def check_uniform_chance(game: Any, rng: random.Random, hands: int = 20) -> bool:
    """True when every chance node met in a few random hands lists equal probabilities."""
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                first = outcomes[0][1]
                if any(abs(p - first) > 1e-12 for _, p in outcomes):
                    return False
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return True


def hands_per_second(play: Callable[[random.Random], None], seed: int, seconds: float) -> float:
    """Hands completed per second by `play`, running for at least `seconds`."""
    rng = random.Random(seed)
    count = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        play(rng)
        count += 1
        if count % 16 == 0:
            now = time.perf_counter()
            if now >= deadline:
                return count / (now - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per side per round (default 2)")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds; the median ratio is reported (default 3)"
    )
    parser.add_argument("--seed", type=int, default=2024)
    add_build_options(parser)
    args = parser.parse_args(argv)

    pyspiel = _load_pyspiel()
    if pyspiel is None:
        print("skipped: pyspiel is not installed (pip install -e '.[bench]' to compare with OpenSpiel)")
        return 0
    if args.build == "both":
        results = run_both(__file__, child_argv(argv))
        print(f"=== both builds: median ratio ours/OpenSpiel (target >= {TARGET:g}x) ===")
        for build, figures in results.items():
            print(
                f"{build:>8} build: {figures['ours']:.0f} hands/s, OpenSpiel {figures['theirs']:.0f} hands/s, "
                f"ratio {figures['ratio']:.2f}x ({'meets' if figures['ratio'] >= TARGET else 'misses'} the target)"
            )
        return 0
    problem = wrong_build(args.build)
    if problem is not None:
        print(f"skipped the {args.build} build: {problem}")
        return 0
    game = pyspiel.load_game("gin_rummy")
    if not check_uniform_chance(game, random.Random(args.seed)):
        print("OpenSpiel's chance outcomes are not uniform in this version; the sampler would be biased")
        return 1
    play_theirs = make_play_openspiel(game)
    rules = Rules.preset("classic")

    def ours(rng: random.Random) -> None:
        play_ours(rules, rng)

    ratios = []
    ours_rates: list[float] = []
    theirs_rates: list[float] = []
    print(f"{'round':>5}  {'ours hands/s':>12}  {'OpenSpiel hands/s':>17}  {'ours/theirs':>11}")
    for number in range(1, args.rounds + 1):
        seed = args.seed + number
        # Alternate who goes first so drift in machine load does not favour one side.
        if number % 2:
            mine = hands_per_second(ours, seed, args.seconds)
            theirs = hands_per_second(play_theirs, seed, args.seconds)
        else:
            theirs = hands_per_second(play_theirs, seed, args.seconds)
            mine = hands_per_second(ours, seed, args.seconds)
        ratios.append(mine / theirs)
        ours_rates.append(mine)
        theirs_rates.append(theirs)
        print(f"{number:>5}  {mine:>12.0f}  {theirs:>17.0f}  {mine / theirs:>11.2f}")
    median = statistics.median(ratios)
    verdict = "meets" if median >= TARGET else "misses"
    print(f"median ratio ours/OpenSpiel = {median:.2f}x ({verdict} the target >= {TARGET:g}x)")
    write_result(
        args.result_file,
        {"ratio": median, "ours": statistics.median(ours_rates), "theirs": statistics.median(theirs_rates)},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
