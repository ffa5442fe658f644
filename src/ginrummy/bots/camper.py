"""`camper`: a clean-room sparring partner after the published strategy of the 2021 EAAI
Gin Rummy challenge's winner.

As that strategy was described: it takes the upcard only when it completes a meld; it
throws the card that minimises the deadwood left, plus a lookahead term weighted
18 x 0.9^(turn - 1) (turn being its own turn number in the hand), plus the chance the card
completes a meld in the opponent's hand; it knocks only during its first three turns and
afterwards plays for Gin; at a knock it shows the melds that leave the fewest layoffs.

Here the lookahead term is the chance that the next unseen card does not make a new meld
with the cards kept (so early in a hand it keeps the cards with the most live outs, late in
it the fewest points), and the opponent's odds are `knowledge.card_probs`. The referee
already shows a knocker's best arrangement against the defender's layoffs (docs/rules.md §4), so
its own part at a knock is the card it knocks with: the one whose melds offer the fewest
live layoff cards. Nothing here is the original's code.
"""

from __future__ import annotations

import random
from typing import Final

from ..rules import Action, BigGin, Discard, Knock, View
from ..rules.actions import DRAW_DISCARD, DRAW_STOCK, PASS
from ..rules.cards import CARDS
from ..rules.fast_core import RANK_MASKS, best_melds, bits, forms_meld, least_deadwood
from .base import register_player
from .knowledge import card_probs, meld_danger, track

__all__ = ["CamperPlayer"]

#: The lookahead term's weight on its first turn, and how it shrinks each turn after.
LOOKAHEAD_WEIGHT: Final = 18.0
LOOKAHEAD_DECAY: Final = 0.9
#: It knocks only during this many of its own turns; after that only Gin ends its hand.
KNOCK_TURNS: Final = 3


def layoff_targets(melds: list[int]) -> int:
    """The cards that could be laid off on `melds`: the fourth of a set, the ends of a run."""
    targets = 0
    for meld in melds:
        cards = bits(meld)
        if len({c % 13 for c in cards}) == 1:
            targets |= RANK_MASKS[cards[0] % 13] & ~meld
        else:
            suit = cards[0] // 13
            lo, hi = cards[0] % 13, cards[-1] % 13
            if lo > 0:
                targets |= 1 << (13 * suit + lo - 1)
            if hi < 12:
                targets |= 1 << (13 * suit + hi + 1)
    return targets


def miss_chance(kept: int, unseen: int) -> float:
    """The chance that the next unseen card makes no new meld with the cards of `kept`."""
    n = unseen.bit_count()
    if not n:
        return 1.0
    outs = sum(1 for c in bits(unseen) if forms_meld(c, kept))
    return 1.0 - outs / n


class CamperPlayer:
    """Takes only meld-making upcards, knocks only early, then camps for Gin."""

    name = "camper"

    def __init__(self, *, seed: int | None = None, time_budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.time_budget = time_budget

    def act(self, view: View) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        if view.phase in ("offer", "draw"):
            up = view.discard_pile[-1] if view.discard_pile else None
            if up is not None and DRAW_DISCARD in legal and forms_meld(up.index, view.hand.mask):
                return DRAW_DISCARD
            return PASS if view.phase == "offer" else DRAW_STOCK
        if isinstance(legal[-1], BigGin):
            return legal[-1]
        hand = view.hand.mask
        knocks = [a.card.index for a in legal if isinstance(a, Knock)]
        discards = [a.card.index for a in legal if isinstance(a, Discard)]
        k = track(view)
        gin = [c for c in knocks if least_deadwood(hand ^ 1 << c) == 0]
        if gin:
            return Knock(CARDS[gin[0]])
        if knocks and k.my_draws <= KNOCK_TURNS:
            return Knock(CARDS[self._knock_card(hand, knocks, k.unseen)])
        card = self.choose_discard(hand, discards, k.my_draws, k.unseen, card_probs(k))
        return Discard(CARDS[card])

    def choose_discard(
        self, hand: int, discards: list[int], turn: int, unseen: int, probs: list[float]
    ) -> int:
        """The card among `discards` minimising deadwood + 18 x 0.9^(turn - 1) x the chance the
        next unseen card makes no new meld with the rest + the chance it feeds the opponent."""
        weight = LOOKAHEAD_WEIGHT * LOOKAHEAD_DECAY ** (max(turn, 1) - 1)
        best = 1e9
        choices: list[int] = []
        for c in discards:
            kept = hand ^ 1 << c
            value = least_deadwood(kept) + weight * miss_chance(kept, unseen) + meld_danger(c, probs)
            if value < best - 1e-9:
                best, choices = value, [c]
            elif value <= best + 1e-9:
                choices.append(c)
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)

    @staticmethod
    def _knock_card(hand: int, knocks: list[int], unseen: int) -> int:
        """The knock with the least deadwood whose melds offer the fewest live layoff cards."""

        def key(card: int) -> tuple[int, int, int]:
            kept = hand ^ 1 << card
            live = layoff_targets(best_melds(kept)) & unseen
            return (least_deadwood(kept), live.bit_count(), card)

        return min(knocks, key=key)

    def observe(self, view: View) -> None:
        return None


register_player("camper", CamperPlayer)
