"""The searching expert: the expert's play, with close decisions settled by search over the
hidden cards (perfect-information Monte Carlo).

When the expert's valuation leaves two or more discards close, or taking the upcard close to
drawing from the stock, it samples whole deals the seat cannot see: opponent hands from the
expert's inference (`infer.evolved_hands`, which replays what the opponent took, passed and
threw) and a stock order. Every candidate is played out in every sampled deal by the fast
hand simulator (`rollout`), from the same deal and the same random choices for each candidate
(common random numbers), and each outcome is valued by the chance of winning the match from
the score it leaves (`match_odds`). The valuation's choice stands unless another candidate
wins the match more often deal by deal by a clear margin (`SEARCH_Z` standard errors of the
mean gain), so the noise of a few dozen playouts cannot overturn a sound choice. Knocking is
weighed against playing on the same way (`ExpertPlayer._match_knock`) at every knock the
steady game leaves open, not only near the end of the match.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator

from ...rules import View
from ...rules.fast_core import bits, showdown_points
from ..knowledge import Knowledge
from .infer import evolved_hands
from .match_odds import match_win
from .player import ExpertPlayer, Scored, Turn
from .rollout import KnockRule, first_chance, quick_discard, rollout
from .steady import SteadyPlayer

__all__ = ["SearchingExpert"]

#: The chance of winning the match after a hand worth these points (+ this seat scores).
_Worth = Callable[[int], float]


class SearchingExpert(ExpertPlayer):
    """The expert, searching sampled deals to choose between close discards and draws."""

    name = "searcher"

    #: Weigh knocking against playing on by sampled deals at any score (the expert: near the
    #: end of a match only).
    CLINCH_REACH = 100
    THREAT_REACH = 100

    #: Discards whose value (expected deadwood after the next draw, plus danger) is within
    #: SEARCH_MARGIN of the best are searched, at most SEARCH_WIDTH of them ...
    SEARCH_MARGIN = 2.0
    SEARCH_WIDTH = 3
    #: ... and the upcard is searched when taking it is valued within DRAW_MARGIN of a stock draw ...
    DRAW_MARGIN = 2.0
    #: ... over this many sampled deals (fewer past a time budget's deadline, never fewer
    #: than SEARCH_MIN_WORLDS).
    SEARCH_WORLDS = 32
    SEARCH_MIN_WORLDS = 8
    #: Only while the stock holds at most this many cards (31 after the deal: always).
    SEARCH_STOCK = 31
    #: The search overrides the valuation only when its choice wins the match more often by
    #: this many standard errors of the mean gain over the sampled deals.
    SEARCH_Z = 2.0

    # -- the decisions it searches ---------------------------------------------------

    def pick_discard(self, view: View, turn: Turn, scored: list[Scored], deadline: float | None) -> Scored:
        best = scored[0][0]
        cands = [s for s in scored[: self.SEARCH_WIDTH] if s[0] <= best + self.SEARCH_MARGIN]
        k = turn.k
        if len(cands) < 2 or k.opp_hidden <= 0 or not 2 < k.stock_count <= self.SEARCH_STOCK:
            return scored[0]
        values = self.search_discards(view, turn, [c for _, c, _ in cands], deadline)
        # Against the valuation's choice, deal by deal: another discard goes only when it wins
        # the match clearly more often (its mean gain SEARCH_Z standard errors above nought).
        pick, gain = 0, 0.0
        for i in range(1, len(cands)):
            mean = _clear_gain([a - b for a, b in zip(values[i], values[0], strict=True)], self.SEARCH_Z)
            if mean is not None and mean > gain:
                pick, gain = i, mean
        return cands[pick]

    def search_discards(
        self, view: View, turn: Turn, cards: list[int], deadline: float | None
    ) -> list[list[float]]:
        """The chance of winning the match after each discard of `cards`, in each sampled deal
        (each deal played out once per card, with the same random choices)."""
        k = turn.k
        values: list[list[float]] = [[] for _ in cards]
        for opp, stock, seed, worth in self._worlds(view, turn, deadline):
            for i, c in enumerate(cards):
                points = self._play_out(
                    view, k, k.hand ^ (1 << c), opp, list(stock), c, k.pile_mask, random.Random(seed), 0
                )
                values[i].append(worth(points))
        return values

    def prefer_take(
        self, view: View, turn: Turn, take: Scored, stock_value: float, deadline: float | None
    ) -> bool:
        k = turn.k
        prefer = take[0] < stock_value
        if (
            view.phase != "draw"
            or abs(take[0] - stock_value) > self.DRAW_MARGIN
            or k.opp_hidden <= 0
            or not 3 < k.stock_count <= self.SEARCH_STOCK
        ):
            return prefer
        me_knocks = self._knock_rules()[0]
        up, throw = k.upcard, take[1]
        taken = (k.hand | 1 << up) ^ (1 << throw)
        gaps = []  # taking less drawing, deal by deal
        for opp, stock, seed, worth in self._worlds(view, turn, deadline):
            took = self._play_out(view, k, taken, opp, list(stock), throw, k.dead, random.Random(seed), 1)
            rest = list(stock)
            drawn = k.hand | 1 << rest.pop()
            d, c = quick_discard(drawn, -1, ~(drawn | k.pile_mask | k.opp_known))
            after = drawn ^ (1 << c)
            if d == 0 or (d <= k.knock_limit and me_knocks is not None and me_knocks(d, k.my_draws + 1)):
                drew = showdown_points(after, opp, view.rules)
            else:
                drew = self._play_out(view, k, after, opp, rest, c, k.pile_mask, random.Random(seed), 1)
            gaps.append(worth(took) - worth(drew))
        # The valuation's choice stands unless the other wins the match clearly more often.
        gain = _clear_gain(gaps if not prefer else [-g for g in gaps], self.SEARCH_Z)
        return prefer if gain is None else not prefer

    # -- sampled deals -----------------------------------------------------------------

    def _play_out(
        self,
        view: View,
        k: Knowledge,
        mine: int,
        opp: int,
        stock: list[int],
        up: int,
        dead: int,
        rng: random.Random,
        drawn: int,
    ) -> int:
        """`rollout` from the opponent's turn, this seat holding `mine` after `drawn` more draws
        this turn (0 or 1), with the playouts' knock rules: the points (+ this seat scores)."""
        me_knocks, opp_knocks = self._knock_rules()
        return rollout(
            mine,
            opp,
            stock,
            up,
            dead,
            view.rules,
            k.knock_limit,
            rng,
            me_knocks=me_knocks,
            opp_knocks=opp_knocks,
            my_draws=k.my_draws + drawn,
            opp_draws=k.opp_draws,
        )

    def _knock_rules(self) -> tuple[KnockRule | None, KnockRule]:
        """How the two sides knock in a playout: in the steady game both by its judgement; in the
        undercut game this seat only with Gin, the opponent at its first chance."""
        if self.exploiting:
            return None, first_chance
        return SteadyPlayer.knocks, SteadyPlayer.knocks

    def _worlds(
        self, view: View, turn: Turn, deadline: float | None
    ) -> Iterator[tuple[int, list[int], int, _Worth]]:
        """Sampled deals: (opponent hand, stock order with its top last, a seed for the
        playouts' random choices, the match value of a hand's points)."""
        k = turn.k
        rng = self.rng
        target = view.rules.target
        mine = view.scores[k.seat]
        theirs = view.scores[1 - k.seat]

        def worth(points: int) -> float:
            if points >= 0:
                return match_win(mine + points, theirs, target)
            return match_win(mine, theirs - points, target)

        opps = evolved_hands(
            k,
            self.SEARCH_WORLDS,
            rng,
            turn.weights,
            knock_asap=self._knock_asap(),
            # Leave half the remaining time for the playouts.
            deadline=None if deadline is None else deadline - (deadline - time.perf_counter()) / 2,
            minimum=self.SEARCH_MIN_WORLDS,
        )
        for n, opp in enumerate(opps):
            if deadline is not None and n >= self.SEARCH_MIN_WORLDS and time.perf_counter() > deadline:
                return
            stock = bits(k.unseen & ~opp)
            rng.shuffle(stock)
            yield opp, stock, rng.getrandbits(32), worth


def _clear_gain(gains: list[float], z: float) -> float | None:
    """The mean of `gains` when it is more than `z` standard errors above nought, else None."""
    n = len(gains)
    if n < 2:
        return None
    mean = sum(gains) / n
    var = sum((g - mean) ** 2 for g in gains) / (n - 1)
    return mean if mean > 0 and mean * mean * n > z * z * var else None
