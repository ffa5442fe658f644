"""A private clean-room copy of the EAAI 2021 baseline, used to tune and test the expert.

Kept beside the expert so its tuning does not depend on another module's timing; the
shared `baseline` player of the bots package is the one the arena measures against.
"""

from __future__ import annotations

import random

from ..rules import Action, Discard, Draw, Knock, Pass, View
from ..rules.cards import CARDS
from ..rules.melds import _min_deadwood_mask

__all__ = ["BaselineRefPlayer", "forms_meld"]

_SUIT = 0x1FFF


def forms_meld(hand: int, card: int) -> bool:
    """True when `card` makes a set or a run with at least two cards of `hand`."""
    rank, suit = card % 13, card // 13
    same_rank = sum(1 for s in range(4) if s != suit and hand >> (s * 13 + rank) & 1)
    if same_rank >= 2:
        return True
    pattern = (hand >> (13 * suit) & _SUIT) | (1 << rank)
    lo = rank
    while lo > 0 and pattern >> (lo - 1) & 1:
        lo -= 1
    hi = rank
    while hi < 12 and pattern >> (hi + 1) & 1:
        hi += 1
    return hi - lo >= 2


class BaselineRefPlayer:
    """Takes an upcard only to make a meld, discards to least deadwood at random, knocks at once."""

    name = "baseline-ref"

    def __init__(self, *, seed: int | None = None, time_budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self._taken = -1

    def act(self, view: View) -> Action:
        hand = view.hand.mask
        if view.phase in ("offer", "draw"):
            up = view.upcard
            can_take = any(isinstance(a, Draw) and a.source == "discard" for a in view.legal)
            if up is not None and can_take and forms_meld(hand, up.index):
                self._taken = up.index
                return Draw("discard")
            self._taken = -1
            return Pass() if view.phase == "offer" else Draw("stock")
        best = 1000
        choices: list[int] = []
        m = hand
        while m:
            low = m & -m
            m ^= low
            i = low.bit_length() - 1
            if i == self._taken:
                continue
            d = _min_deadwood_mask(hand ^ low)
            if d < best:
                best, choices = d, [i]
            elif d == best:
                choices.append(i)
        card = self.rng.choice(choices)
        self._taken = -1
        if best <= view.knock_limit:
            return Knock(CARDS[card])
        return Discard(CARDS[card])

    def observe(self, view: View) -> None:
        return None
