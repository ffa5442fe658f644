"""The deal: each deal's seed (from the game's seed) and its commitment, the deck of a deal seed,
the same for every game of the rules engine, and who deals the next hand.

Anyone can check a deal from its published seed with Python's own `random` module.
"""

from __future__ import annotations

import hashlib
import random
from typing import Final

from .variants import NextDealer

__all__ = ["DEAL_BITS", "deal_order", "deal_seed", "next_dealer", "seed_commitment", "shuffled_deck"]

DEAL_BITS = (64, 256)


def deal_seed(match_seed: int | str, deal_index: int, *, bits: int = 64) -> int:
    """The seed of deal number `deal_index` (0-based, void deals included) of a match.

    Derived by SHA-256, so publishing one deal's seed reveals nothing about the next: the first
    `bits` bits of the digest (64, or all 256, as the web platform deals, so that neither the
    commitment nor the cards a player sees narrow the deal down to a searchable set of seeds).

    >>> deal_seed("abc", 0) == deal_seed("abc", 0, bits=256) >> 192
    True
    """
    if bits not in DEAL_BITS:
        raise ValueError(f"deal seeds have 64 or 256 bits, not {bits!r}")
    digest = hashlib.sha256(f"ginrummy/{match_seed}/deal/{deal_index}".encode()).digest()
    return int.from_bytes(digest[: bits // 8], "big")


def seed_commitment(seed: int) -> str:
    """The SHA-256 commitment published before a deal: hex digest of the seed's decimal text."""
    return hashlib.sha256(str(seed).encode()).hexdigest()


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
