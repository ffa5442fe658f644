"""What the `expert` would gain from seeing parts of the opponent's hand (a research diagnostic).

The players never see hidden cards; this script cheats on purpose, to measure where the
expert's remaining strength lies. For each kind of knowledge it plays the undercut game
(`adapt=False`) against `baseline` on the same seeds (classic rules, to 100, match i dealt
from seed S+i, seats alternating) and prints the match win rate:

- `nothing`: the honest player;
- `danger`: the chance that a discard completes an opponent meld is exact (0 or 1);
- `stock`: the odds of the next stock card are exact (no weight on the opponent's cards);
- `both`: both exact.

`--blend W` mixes the exact danger with the expert's own estimate (W x exact + (1 - W) x
estimate), to see what a partly sharper estimate would be worth.

    python benchmarks/bench_expert_oracle.py --matches 400 --workers 2 --seed 0
    python benchmarks/bench_expert_oracle.py --matches 400 --workers 2 --know nothing stock both
    python benchmarks/bench_expert_oracle.py --matches 400 --workers 2 --know danger --blend 0.5
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from multiprocessing import Pool

from ginrummy.bots import expert
from ginrummy.bots.arena import wilson_interval
from ginrummy.bots.baseline import BaselinePlayer
from ginrummy.bots.expert import DEFAULT_PARAMS, ExpertPlayer
from ginrummy.bots.expert_infer import InferenceParams, bits
from ginrummy.bots.expert_knowledge import Knowledge
from ginrummy.bots.expert_sim import forms_meld_fast
from ginrummy.rules.match import new_match

KNOWLEDGE = ("nothing", "danger", "stock", "both")
MAX_HAND_ACTIONS = 1000

# The opponent's hand at the expert's current decision (set by the match loop below),
# and the weight of the exact danger against the estimate.
_opponent = [0]
_blend = [1.0]
_honest_danger = expert._danger
_HonestTurn = expert._Turn


def _exact_danger(card: int, probs: list[float]) -> float:
    exact = 1.0 if forms_meld_fast(_opponent[0], card) else 0.0
    w = _blend[0]
    return exact if w >= 1.0 else w * exact + (1.0 - w) * _honest_danger(card, probs)


class _ExactStockTurn(_HonestTurn):
    """The per-decision data with the next stock card's odds made exact."""

    def __init__(self, k: Knowledge, inference: InferenceParams) -> None:
        super().__init__(k, inference)
        self.stock_w = [(c, 1.0) for c in bits(k.unseen & ~_opponent[0])]
        self.stock_total = float(len(self.stock_w)) or 1.0


def _install(know: str) -> None:
    expert._danger = _exact_danger if know in ("danger", "both") else _honest_danger  # type: ignore[assignment]
    expert._Turn = _ExactStockTurn if know in ("stock", "both") else _HonestTurn  # type: ignore[misc]


def play(job: tuple[int, str, float]) -> bool:
    """Play match `seed` with the given knowledge; True when the expert wins it."""
    seed, know, blend = job
    _install(know)
    _blend[0] = blend
    match = new_match("classic", seed=seed)
    seat = seed % 2
    players = {
        seat: ExpertPlayer(seed=seed * 2, params=replace(DEFAULT_PARAMS, adapt=False)),
        1 - seat: BaselinePlayer(seed=seed * 2 + 1),
    }
    while match.result is None:
        hand = match.hands[-1]
        if len(hand.steps) > MAX_HAND_ACTIONS:
            return False  # a hand retaking the same cards without end (as the arena: unfinished)
        to_act = hand.to_act
        _opponent[0] = hand.hands[1 - seat]
        result = match.apply(players[to_act].act(match.view(to_act)), to_act)
        if result is not None:
            number = len(match.hands) if match.result is not None else len(match.hands) - 1
            for s in (0, 1):
                players[s].observe(match.hand_view(s, number))
    return match.result.winner == seat


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--know", nargs="+", choices=KNOWLEDGE, default=["nothing", "danger"])
    parser.add_argument(
        "--blend", type=float, default=1.0, help="weight of the exact danger against the estimate (0 to 1)"
    )
    args = parser.parse_args(argv)
    if args.matches < 1 or not 0.0 <= args.blend <= 1.0:
        print("error: --matches must be at least 1 and --blend between 0 and 1", file=sys.stderr)
        return 2
    seeds = range(args.seed, args.seed + args.matches)
    for know in args.know:
        start = time.perf_counter()
        jobs = [(s, know, args.blend) for s in seeds]
        if args.workers > 1:
            with Pool(args.workers) as pool:
                wins = sum(pool.map(play, jobs, chunksize=4))
        else:
            try:
                wins = sum(map(play, jobs))
            finally:
                _install("nothing")
                _blend[0] = 1.0
        lo, hi = wilson_interval(wins, args.matches)
        label = know if args.blend >= 1.0 or know not in ("danger", "both") else f"{know} x{args.blend:g}"
        print(
            f"undercut game knowing {label:7s} vs baseline, seeds {seeds[0]}-{seeds[-1]}: "
            f"{wins}/{args.matches} = {wins / args.matches:.1%} (95% CI {lo:.1%} - {hi:.1%}), "
            f"{time.perf_counter() - start:.0f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
