"""`baseline`: a clean-room version of the reference player of the 2021 EAAI Gin Rummy challenge.

Its rules, as published with the challenge: take the upcard (first offer or a normal
draw) only when it is part of a meld with cards in hand, otherwise draw from the
stock; discard a card chosen uniformly at random among those that leave the least
deadwood, never the card just taken from the discard pile; knock at the first
chance, with the least deadwood; pay no attention to the opponent.
"""

from __future__ import annotations

import random

from ..rules import Action, BigGin, View
from ..rules.actions import DISCARDS, DRAW_DISCARD, DRAW_STOCK, KNOCKS, PASS
from ..rules.fast_core import best_discards, bits, forms_meld
from .base import register_player

__all__ = ["BaselinePlayer"]


class BaselinePlayer:
    """The challenge's baseline: melds-only upcard, least-deadwood discards, knock at once."""

    name = "baseline"

    def __init__(self, *, seed: int | None = None, time_budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.time_budget = time_budget

    def act(self, view: View) -> Action:
        legal = view.legal
        phase = view.phase
        if phase == "offer" or phase == "draw":
            upcard = view.discard_pile[-1] if view.discard_pile else None
            wants = upcard is not None and DRAW_DISCARD in legal and forms_meld(upcard.index, view.hand.mask)
            if wants:
                return DRAW_DISCARD
            return PASS if phase == "offer" else DRAW_STOCK
        if isinstance(legal[-1], BigGin):  # the legal list ends with Big Gin when it is allowed
            return legal[-1]
        # The card just taken from the pile may not be thrown back this turn.
        forbid = -1
        if view.history:
            last = view.history[-1]
            if last.source == "discard" and last.card is not None:
                forbid = last.card.index
        # The least deadwood a discard leaves, and every card (not the one just taken) that
        # leaves it: the choice is among those, lowest card first.
        left, ties = best_discards(view.hand.mask, forbid)
        choices = bits(ties)
        card = choices[0] if len(choices) == 1 else self.rng.choice(choices)
        return KNOCKS[card] if left <= view.knock_limit else DISCARDS[card]

    def observe(self, view: View) -> None:
        return None


register_player("baseline", BaselinePlayer)
