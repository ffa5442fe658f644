"""`baseline`: a clean-room version of the reference player of the 2021 EAAI Gin Rummy challenge.

Its rules, as published with the challenge: take the upcard (first offer or a normal
draw) only when it is part of a meld with cards in hand, otherwise draw from the
stock; discard a card chosen uniformly at random among those that leave the least
deadwood, never the card just taken from the discard pile; knock at the first
chance, with the least deadwood; pay no attention to the opponent.
"""

from __future__ import annotations

import random

from ..rules import Action, BigGin, Discard, Knock, View
from ..rules.actions import DRAW_DISCARD, DRAW_STOCK, PASS
from ..rules.melds import _min_deadwood_mask
from .base import register_player
from .knowledge import forms_meld

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
        # Discard phase: the legal list already holds every discard and every knock.
        knocks: list[Knock] = []
        discards: list[Discard] = []
        for action in legal:
            if isinstance(action, BigGin):
                return action
            if isinstance(action, Knock):
                knocks.append(action)
            elif isinstance(action, Discard):
                discards.append(action)
        hand = view.hand.mask
        options: list[Knock] | list[Discard] = knocks if knocks else discards
        # Throwing a card lowers the least deadwood by at most its points, so visiting
        # the cards from the highest down lets most of them be skipped without a search.
        whole = _min_deadwood_mask(hand)
        best = 1000
        choices: list[Action] = []
        for action in sorted(options, key=_points_first):
            card = action.card
            if whole - card.points > best:
                break
            left = _min_deadwood_mask(hand & ~(1 << card.index))
            if left < best:
                best = left
                choices = [action]
            elif left == best:
                choices.append(action)
        if len(choices) > 1:
            choices.sort(key=_by_index)  # the same seed picks the same card whatever the order above
            return self.rng.choice(choices)
        return choices[0]

    def observe(self, view: View) -> None:
        return None


def _points_first(action: Discard | Knock) -> int:
    return -action.card.points


def _by_index(action: Action) -> int:
    return action.card.index  # type: ignore[union-attr]


register_player("baseline", BaselinePlayer)
