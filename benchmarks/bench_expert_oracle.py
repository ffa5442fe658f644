"""What the `expert` would gain from seeing parts of the opponent's hand (a research diagnostic).

The players never see hidden cards; this script cheats on purpose, to measure where the
expert's remaining strength lies. For each kind of knowledge it plays the undercut game
(`ADAPTIVE_OPENING = False`) against `baseline` on the same seeds (classic rules, to 100, match i dealt
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
from multiprocessing import Pool

from ginrummy.arena import wilson_interval
from ginrummy.bots.baseline import BaselinePlayer
from ginrummy.bots.expert import ExpertPlayer, Turn
from ginrummy.rules import View
from ginrummy.rules.masks import bits, forms_meld
from ginrummy.rules.match import new_match

KNOWLEDGE = ("nothing", "danger", "stock", "both")


class OracleExpert(ExpertPlayer):
    """The undercut game, told the opponent's hand (`opponent`, set by the match loop before
    each decision) for the parts of its reasoning named in `know`."""

    ADAPTIVE_OPENING = False

    def __init__(self, *, seed: int, know: str, blend: float = 1.0) -> None:
        super().__init__(seed=seed)
        self.know = know
        self.blend = blend
        self.opponent = 0

    def danger(self, card: int, turn: Turn) -> float:
        honest = super().danger(card, turn)
        if self.know not in ("danger", "both"):
            return honest
        exact = 1.0 if forms_meld(card, self.opponent) else 0.0
        return exact if self.blend >= 1.0 else self.blend * exact + (1.0 - self.blend) * honest

    def read(self, view: View) -> Turn:
        turn = super().read(view)
        if self.know in ("stock", "both"):
            turn.stock_w = [(c, 1.0) for c in bits(turn.k.unseen & ~self.opponent)]
            turn.stock_total = float(len(turn.stock_w)) or 1.0
        return turn


def play(job: tuple[int, str, float]) -> bool:
    """Play match `seed` with the given knowledge; True when the expert wins it."""
    seed, know, blend = job
    match = new_match("classic", seed=seed)
    seat = seed % 2
    oracle = OracleExpert(seed=seed * 2, know=know, blend=blend)
    players = {seat: oracle, 1 - seat: BaselinePlayer(seed=seed * 2 + 1)}
    while match.result is None:
        hand = match.hands[-1]
        to_act = hand.to_act
        oracle.opponent = hand.hands[1 - seat]
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
            wins = sum(map(play, jobs))
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
