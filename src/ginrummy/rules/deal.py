"""The deal's shuffle: the deck of a deal seed, the same for every game of the rules engine.

Anyone can check a deal from its published seed with Python's own `random` module.
"""

from __future__ import annotations

import random
from typing import Final

__all__ = ["deal_order", "shuffled_deck"]


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
