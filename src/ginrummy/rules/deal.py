"""The deal: the deck of a deal seed, the same for every game of the rules engine, and who
deals the next hand.

Anyone can check a deal from its published seed with Python's own `random` module.
"""

from __future__ import annotations

import random
from typing import Final

from .variants import NextDealer

__all__ = ["deal_order", "next_dealer", "shuffled_deck"]


def deal_order(seed: int) -> list[int]:
    """The shuffled deck for a deal seed: card indices, first dealt first.

    The deck starts in index order (clubs A-K, diamonds, hearts, spades) and is
    shuffled with Python's `random.Random(seed).shuffle`, so anyone can check a
    deal from its published seed.
    """
    return shuffled_deck(random.Random(seed))


# For each position i of the shuffle (51 down to 1): the count i + 1 of cards it draws from, and
# how many random bits `Random._randbelow` asks for to draw below it.
_SHUFFLE_DRAWS: Final = tuple((i, i + 1, (i + 1).bit_length()) for i in range(51, 0, -1))


def shuffled_deck(rng: random.Random) -> list[int]:
    """The 52 card indices as ``rng.shuffle(list(range(52)))`` leaves them.

    The same draws as `random.Random.shuffle` (a Fisher-Yates shuffle from the end, each index
    drawn below ``i + 1`` by rejecting ``getrandbits`` results), without its call per card: a
    hand is dealt at every reset of an environment. `tests/rules/test_hand.py` checks it against
    `random.Random.shuffle` itself.
    """
    deck = list(range(52))
    getrandbits = rng.getrandbits
    for i, n, k in _SHUFFLE_DRAWS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def next_dealer(
    rule: NextDealer, dealer: int, after: int, winner: int | None, loser: int | None, *, void: bool
) -> int:
    """Who deals the next hand (a seat, or in team Gin a team) by the rules' `next_dealer`:
    `dealer` again after a void hand, and after one nobody scored unless the deal alternates;
    else `after`, the next in turn, or the hand's (team Gin: the round's) `winner` or `loser`
    (None where the rules allow no `loser`: Rummy for more than two).

    >>> next_dealer("loser", 0, 1, winner=None, loser=None, void=False)
    0
    >>> next_dealer("alternate", 0, 1, winner=None, loser=None, void=False)
    1
    """
    if void:
        return dealer
    if rule == "alternate":
        return after
    if winner is None:
        return dealer
    return loser if rule == "loser" and loser is not None else winner
