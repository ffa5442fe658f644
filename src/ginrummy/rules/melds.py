"""Melds, deadwood and the exact best arrangement of a hand (RULES.md §2).

The search splits a hand into two independent parts. Runs live inside one suit,
so a precomputed table over every 13-bit suit pattern gives the least deadwood a
suit can reach with runs alone. Sets cross suits, but only ranks held three or
four times can form one, and a hand of 11 cards has at most three such ranks, so
the few ways to use those ranks as sets are enumerated and each leftover is
priced with four table lookups.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import product
from typing import Final

from .cards import CARD_POINTS, RANK_POINTS, CardLike, CardSet, as_mask

__all__ = [
    "Meld",
    "Arrangement",
    "is_meld",
    "min_deadwood",
    "best_arrangement",
    "all_best_arrangements",
    "knock_options",
    "deadwood_points",
]

SUIT_BITS: Final = 0x1FFF


def _build_run_tables() -> tuple[list[int], list[tuple[tuple[int, int], ...]]]:
    """Least run-only deadwood for every 13-bit suit pattern, and the runs achieving it."""
    size = 1 << 13
    best = [0] * size
    runs: list[tuple[tuple[int, int], ...]] = [()] * size
    # Process patterns in increasing order: removing the lowest card(s) lowers the value.
    for m in range(1, size):
        low = (m & -m).bit_length() - 1
        # Lowest card as deadwood.
        value = best[m & ~(1 << low)] + RANK_POINTS[low]
        choice: tuple[tuple[int, int], ...] = runs[m & ~(1 << low)]
        # Lowest card starting a run of length 3, 4, ...
        length = 1
        while low + length < 13 and m >> (low + length) & 1:
            length += 1
            if length >= 3:
                rest = m & ~(((1 << length) - 1) << low)
                if best[rest] < value:
                    value = best[rest]
                    choice = ((low, length),) + runs[rest]
        best[m] = value
        runs[m] = choice
    return best, runs


RUN_DEADWOOD, RUN_CHOICE = _build_run_tables()

# Ways to use one rank held by the suits in `pattern` as a set: the suit patterns
# removed from the hand (0 = no set). A rank held four times may form the set of
# four or any set of three, leaving the fourth card free for a run.
_SET_OPTIONS: Final = {
    pattern: ((0, pattern) if pattern.bit_count() == 3 else (0, 15, 14, 13, 11, 7))
    for pattern in range(16)
    if pattern.bit_count() >= 3
}


def _set_ranks(c0: int, c1: int, c2: int, c3: int) -> int:
    """Bits of the ranks held in three or four suits."""
    return (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)


def _min_deadwood_mask(mask: int) -> int:
    c0 = mask & SUIT_BITS
    c1 = mask >> 13 & SUIT_BITS
    c2 = mask >> 26 & SUIT_BITS
    c3 = mask >> 39 & SUIT_BITS
    table = RUN_DEADWOOD
    sets = (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)
    if not sets:
        return table[c0] + table[c1] + table[c2] + table[c3]
    options = []
    while sets:
        low = sets & -sets
        r = low.bit_length() - 1
        pattern = (c0 >> r & 1) | (c1 >> r & 1) << 1 | (c2 >> r & 1) << 2 | (c3 >> r & 1) << 3
        options.append(
            [
                (low if p & 1 else 0, low if p & 2 else 0, low if p & 4 else 0, low if p & 8 else 0)
                for p in _SET_OPTIONS[pattern]
            ]
        )
        sets ^= low
    best = 1000
    if len(options) == 1:
        for r0, r1, r2, r3 in options[0]:
            v = table[c0 & ~r0] + table[c1 & ~r1] + table[c2 & ~r2] + table[c3 & ~r3]
            if v < best:
                best = v
        return best
    for combo in product(*options):
        r0 = r1 = r2 = r3 = 0
        for a, b, c, d in combo:
            r0 |= a
            r1 |= b
            r2 |= c
            r3 |= d
        v = table[c0 & ~r0] + table[c1 & ~r1] + table[c2 & ~r2] + table[c3 & ~r3]
        if v < best:
            best = v
    return best


def min_deadwood(cards: CardSet | Iterable[CardLike] | str) -> int:
    """The least deadwood count any arrangement of `cards` leaves (RULES.md §2).

    >>> min_deadwood(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC"))
    11
    """
    if type(cards) is CardSet:
        return _min_deadwood_mask(cards.mask)
    return _min_deadwood_mask(as_mask(cards))


def deadwood_points(cards: CardSet | Iterable[CardLike] | str) -> int:
    """The sum of the point values of `cards` (all counted as deadwood)."""
    mask = as_mask(cards)
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_POINTS[low.bit_length() - 1]
        mask ^= low
    return total


@dataclass(frozen=True, slots=True)
class Meld:
    """A set (3-4 cards of a rank) or a run (3+ consecutive cards of a suit)."""

    cards: CardSet

    @property
    def kind(self) -> str:
        """`"set"` or `"run"`."""
        ranks = {c.rank for c in self.cards}
        return "set" if len(ranks) == 1 else "run"

    def __str__(self) -> str:
        return str(self.cards)

    def to_json(self) -> list[str]:
        """The meld's cards in rule-book notation."""
        return self.cards.to_json()


def is_meld(cards: CardSet | Iterable[CardLike] | str) -> bool:
    """True for a valid set or run (RULES.md §2)."""
    mask = as_mask(cards)
    n = mask.bit_count()
    if n < 3:
        return False
    suits = [mask >> (13 * s) & SUIT_BITS for s in range(4)]
    if n <= 4 and sum(1 for p in suits if p) == n and len({p for p in suits if p}) == 1:
        return True
    held = [p for p in suits if p]
    if len(held) != 1:
        return False
    pattern = held[0]
    low = pattern & -pattern
    return (pattern // low) & ((pattern // low) + 1) == 0


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Disjoint melds plus the deadwood cards left over, with their count."""

    melds: tuple[CardSet, ...]
    deadwood_cards: CardSet
    deadwood: int

    def __iter__(self) -> Iterator[object]:
        # Allows `melds, deadwood_cards, deadwood = best_arrangement(hand)`.
        return iter((self.melds, self.deadwood_cards, self.deadwood))

    def to_json(self) -> dict[str, object]:
        """`{"melds": [[...], ...], "deadwood_cards": [...], "deadwood": n}`."""
        return {
            "melds": [m.to_json() for m in self.melds],
            "deadwood_cards": self.deadwood_cards.to_json(),
            "deadwood": self.deadwood,
        }

    def __str__(self) -> str:
        parts = [f"[{m}]" for m in self.melds]
        if self.deadwood_cards:
            parts.append(f"deadwood {self.deadwood_cards} = {self.deadwood}")
        else:
            parts.append("deadwood 0")
        return " ".join(parts)


def _runs_to_masks(suit: int, runs: tuple[tuple[int, int], ...]) -> list[int]:
    return [((1 << length) - 1) << (low + 13 * suit) for low, length in runs]


def best_arrangement(cards: CardSet | Iterable[CardLike] | str) -> Arrangement:
    """An arrangement with the least deadwood (melds, deadwood cards, deadwood count).

    >>> a = best_arrangement(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC"))
    >>> [str(m) for m in a.melds], str(a.deadwood_cards), a.deadwood
    (['9C 9D 9H 9S', '3S 4S 5S 6S'], 'KC AD', 11)
    """
    mask = as_mask(cards)
    suits = [mask >> (13 * s) & SUIT_BITS for s in range(4)]
    sets = _set_ranks(*suits)
    rank_options: list[list[tuple[int, int]]] = []  # (rank, removed suit pattern)
    while sets:
        low = sets & -sets
        r = low.bit_length() - 1
        pattern = sum((suits[s] >> r & 1) << s for s in range(4))
        rank_options.append([(r, p) for p in _SET_OPTIONS[pattern]])
        sets ^= low
    best_value = 1000
    best_combo: tuple[tuple[int, int], ...] = ()
    for combo in product(*rank_options):
        removed = [0, 0, 0, 0]
        for r, p in combo:
            for s in range(4):
                if p >> s & 1:
                    removed[s] |= 1 << r
        value = sum(RUN_DEADWOOD[suits[s] & ~removed[s]] for s in range(4))
        if value < best_value:
            best_value, best_combo = value, combo
    melds: list[int] = []
    removed = [0, 0, 0, 0]
    for r, p in best_combo:
        if p:
            melds.append(sum(1 << (13 * s + r) for s in range(4) if p >> s & 1))
            for s in range(4):
                if p >> s & 1:
                    removed[s] |= 1 << r
    for s in range(4):
        melds.extend(_runs_to_masks(s, RUN_CHOICE[suits[s] & ~removed[s]]))
    meld_mask = 0
    for m in melds:
        meld_mask |= m
    dead = CardSet.from_mask(mask & ~meld_mask)
    return Arrangement(tuple(CardSet.from_mask(m) for m in melds), dead, best_value)


def all_melds(mask: int) -> list[int]:
    """Every meld (as a mask) that can be formed from the cards of `mask`."""
    result: list[int] = []
    for r in range(13):
        held = [s for s in range(4) if mask >> (13 * s + r) & 1]
        if len(held) >= 3:
            bits = [1 << (13 * s + r) for s in held]
            full = sum(bits)
            result.append(full)
            if len(held) == 4:
                result.extend(full & ~b for b in bits)
    for s in range(4):
        pattern = mask >> (13 * s) & SUIT_BITS
        for lo in range(13):
            hi = lo
            while hi < 13 and pattern >> hi & 1:
                if hi - lo >= 2:
                    result.append(((1 << (hi - lo + 1)) - 1) << (lo + 13 * s))
                hi += 1
    return result


def all_best_arrangements(cards: CardSet | Iterable[CardLike] | str) -> list[Arrangement]:
    """Every distinct arrangement that reaches the least deadwood.

    Used at the showdown, where the knocker's choice among equal arrangements
    changes what the opponent can lay off.
    """
    mask = as_mask(cards)
    target = _min_deadwood_mask(mask)
    melds = all_melds(mask)
    found: list[Arrangement] = []

    def search(remaining: int, chosen: list[int], dead: int, dead_points: int) -> None:
        if dead_points > target:
            return
        if not remaining:
            if dead_points == target:
                found.append(
                    Arrangement(
                        tuple(CardSet.from_mask(m) for m in chosen),
                        CardSet.from_mask(dead),
                        dead_points,
                    )
                )
            return
        low = remaining & -remaining
        # The lowest remaining card is either deadwood or in a meld that avoids used cards.
        for m in melds:
            if m & low and m & ~remaining == 0:
                chosen.append(m)
                search(remaining & ~m, chosen, dead, dead_points)
                chosen.pop()
        search(remaining ^ low, chosen, dead | low, dead_points + CARD_POINTS[low.bit_length() - 1])

    search(mask, [], 0, 0)
    return found


def knock_options(cards: CardSet | Iterable[CardLike] | str, knock_limit: int = 10) -> dict[int, int]:
    """For an 11-card hand: each card index whose discard allows a knock, with the deadwood left.

    >>> opts = knock_options(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC 2D"))
    >>> {str(CardSet.from_mask(1 << i)): d for i, d in opts.items()}
    {'KC': 3}
    """
    mask = as_mask(cards)
    return _knock_options_mask(mask, knock_limit)


def _knock_options_mask(mask: int, knock_limit: int) -> dict[int, int]:
    if knock_limit < 0:
        return {}
    whole = _min_deadwood_mask(mask)
    # Discarding a card worth p lowers the least deadwood by at most p.
    need = whole - knock_limit
    result: dict[int, int] = {}
    if need > 10:
        return result
    m = mask
    while m:
        low = m & -m
        m ^= low
        index = low.bit_length() - 1
        if CARD_POINTS[index] >= need:
            d = _min_deadwood_mask(mask ^ low)
            if d <= knock_limit:
                result[index] = d
    return result
