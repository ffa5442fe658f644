"""Brute-force oracles for classic Rummy's melds, written from RULES.md §8 and document 002
without the engine's code: plain (rank, suit) cards, rank 1 (ace) to 13 (king), and an
exhaustive search. Slow on purpose: it is the reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from rules_brute import BruteCard, points

ACE_HIGH_RANK = 14


def run_ranks(ranks: list[int], ace: str) -> bool:
    """Whether the ranks (one suit) are consecutive with the ace placed as the rule allows."""
    readings = []
    if ace in ("low", "either"):
        readings.append(sorted(ranks))
    if ace in ("high", "either"):
        readings.append(sorted(ACE_HIGH_RANK if r == 1 else r for r in ranks))
    return any(all(b == a + 1 for a, b in zip(r, r[1:], strict=False)) for r in readings)


def is_meld(cards: Iterable[BruteCard], ace: str) -> bool:
    """Three or four cards of one rank, or three or more of one suit in sequence."""
    group = list(cards)
    if len(group) < 3 or len(set(group)) != len(group):
        return False
    ranks = [rank for rank, _ in group]
    suits = {suit for _, suit in group}
    if len(set(ranks)) == 1:
        return len(group) <= 4
    return len(suits) == 1 and run_ranks(ranks, ace)


def all_melds(cards: Iterable[BruteCard], ace: str) -> set[frozenset[BruteCard]]:
    """Every subset of the cards that is a meld."""
    pool = sorted(set(cards))
    found: set[frozenset[BruteCard]] = set()
    for size in range(3, len(pool) + 1):
        for combo in combinations(pool, size):
            if is_meld(combo, ace):
                found.add(frozenset(combo))
    return found


def least_left(cards: Iterable[BruteCard], ace: str) -> int:
    """The least points left after laying any collection of disjoint melds."""
    pool = frozenset(cards)
    melds = sorted(all_melds(pool, ace), key=sorted)
    best = sum(points(c) for c in pool)

    def search(start: int, left: frozenset[BruteCard]) -> None:
        nonlocal best
        best = min(best, sum(points(c) for c in left))
        for i in range(start, len(melds)):
            if melds[i] <= left:
                search(i + 1, left - melds[i])

    search(0, pool)
    return best


def least_left_with_table(cards: Iterable[BruteCard], table: list[frozenset[BruteCard]], ace: str) -> int:
    """The least points left when any subset of the cards is laid off on the table melds (each
    table meld plus the cards laid on it must still be a meld) and the rest melded as well as
    possible. Laying off one card at a time can reach every such final meld (a run grows at
    its ends), so only the final melds are checked."""
    pool = sorted(set(cards))
    best = sum(points(c) for c in pool)
    for size in range(len(pool) + 1):
        for laid in combinations(pool, size):
            if not _fits_somewhere(list(laid), [set(m) for m in table], ace):
                continue
            rest = [c for c in pool if c not in laid]
            best = min(best, least_left(rest, ace))
    return best


def _fits_somewhere(cards: list[BruteCard], melds: list[set[BruteCard]], ace: str) -> bool:
    """Whether the cards can be shared out among the melds so that every meld stays a meld."""
    if not cards:
        return all(is_meld(m, ace) for m in melds)
    first, rest = cards[0], cards[1:]
    for meld in melds:
        meld.add(first)
        ok = _fits_somewhere(rest, melds, ace)
        meld.discard(first)
        if ok:
            return True
    return False
