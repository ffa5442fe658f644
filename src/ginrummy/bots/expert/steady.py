"""The steady game the expert opens with: `advanced`'s card play and a patient knock judgement.

It judges knocking against playing on for Gin, by what self-play measured (at every
position where a knock was legal, the knock's exact result against playing the hand out
from the same cards): it knocks freely during its first four turns; during the next two it
still cashes in a hand of 4 or more deadwood (too high to undercut a knock), while a lower
hand plays on for Gin or the undercut; after that it only goes Gin. It knocks with the card
that leaves the least deadwood plus expected layoffs. It holds up against any opponent, so
the expert knocks by it (with its own card play) until it has read how its opponent knocks.
"""

from __future__ import annotations

from ...rules import Knock, View
from ...rules.cards import CARD_POINTS, CARDS
from ..knowledge import Knowledge, layoff_exposure
from ..levels import AdvancedPlayer, Decision
from ..reasons import Reason

__all__ = ["SteadyPlayer"]


class SteadyPlayer(AdvancedPlayer):
    """The `advanced` game with the knock-or-play-for-Gin judgement found by self-play (not a
    level of its own): the `expert` knocks by it until it has read its opponent."""

    name = "steady"
    cash_in_turns = 6  # until its sixth draw it still knocks ...
    cash_in_deadwood = 4  # ... a hand with this much deadwood or more; lower hands play for Gin

    @staticmethod
    def knock_card(hand: int, knocks: dict[int, int], probs: list[float]) -> int:
        """Of the knocks within a point of the least deadwood, the one leaving the least deadwood
        plus the points the opponent is expected to lay off (it blocks layoffs)."""
        best = min(knocks.values())
        return min(
            (c for c, d in knocks.items() if d <= best + 1),
            key=lambda c: knocks[c] + layoff_exposure(hand & ~(1 << c), probs),
        )

    def judge_knock(
        self, view: View, k: Knowledge, probs: list[float], knocks: dict[int, int]
    ) -> Decision | None:
        if 0 in knocks.values():
            gin = max((c for c, d in knocks.items() if d == 0), key=lambda c: CARD_POINTS[c])
            return Decision(Knock(CARDS[gin]))
        card = self.knock_card(view.hand.mask, knocks, probs)
        why = self.knock_reason(knocks[card], k.my_draws)
        return None if why is None else Decision(Knock(CARDS[card]), why)

    @classmethod
    def knock_reason(cls, deadwood: int, draws: int) -> Reason | None:
        """Why the steady game knocks with `deadwood` after its `draws`-th draw, or None when
        it plays on."""
        if not cls.knocks(deadwood, draws):
            return None
        if cls.early_turns is None or draws <= cls.early_turns:
            return Reason.of("early_knock")
        return Reason.of("cash_in", deadwood=deadwood)

    @classmethod
    def knocks(cls, deadwood: int, draws: int) -> bool:
        """Whether the steady game knocks (short of Gin) with `deadwood` after its `draws`-th draw
        of the hand (a `rollout.KnockRule`)."""
        if cls.early_turns is None or draws <= cls.early_turns:
            return True
        return draws <= cls.cash_in_turns and deadwood >= cls.cash_in_deadwood
