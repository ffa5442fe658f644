"""What every game with a table of seats shares: choosing the first dealer from the game's seed."""

from __future__ import annotations

import hashlib
import random

__all__ = ["choose_first_dealer"]


def choose_first_dealer(seed: int | str, rule: str, seats: int) -> int:
    """The first dealer among `seats` seats (or sides), a function of the game's seed.

    `random` picks one uniformly. `cut` has every seat draw a card in seat order from a
    shuffled deck: the lowest rank deals (ace lowest); seats tied for the lowest draw again.

    >>> choose_first_dealer(7, "cut", 4) == choose_first_dealer(7, "cut", 4)
    True
    """
    digest = hashlib.sha256(f"ginrummy/{seed}/first-dealer".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    if rule == "random":
        return rng.randrange(seats)
    deck = list(range(52))
    rng.shuffle(deck)
    candidates = list(range(seats))
    position = 0
    while len(candidates) > 1 and position + len(candidates) <= 52:
        ranks = [deck[position + i] % 13 for i in range(len(candidates))]
        position += len(candidates)
        low = min(ranks)
        candidates = [seat for seat, rank in zip(candidates, ranks, strict=True) if rank == low]
    return candidates[0]
