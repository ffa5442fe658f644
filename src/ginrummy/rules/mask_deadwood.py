"""Least deadwood on card masks: the run tables, one best arrangement, and what each discard leaves.

The first half of the card-mask API (`masks` gives all of it, and the rest: every meld,
layoffs and the showdown). A hand is an int whose bit ``suit * 13 + rank`` is set for each
card it holds, as in `masks`.

How least deadwood is found. Runs live inside one suit, so a table over every 13-bit suit
pattern gives the least deadwood a suit reaches with runs alone. Sets cross suits, but only
ranks held three or four times can form one, and a hand of 11 cards has at most three such
ranks, so the few ways to use those ranks as sets are enumerated and each leftover is priced
with four table lookups. A discard changes one suit's pattern, so the table of what each
discard leaves (`deadwood_after_discards`) prices each way of using the sets once.

>>> from ginrummy.rules import CardSet, parse_cards
>>> hand = parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC").mask
>>> least_deadwood(hand)
11
>>> [str(CardSet.from_mask(m)) for m in best_melds(hand)]
['9C 9D 9H 9S', '3S 4S 5S 6S']
>>> points(deadwood_cards(hand))
11
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Final

from .cards import CARD_POINTS, FULL_MASK, RANK_POINTS

__all__ = [
    "CARD_POINTS",
    "FULL_DECK",
    "RANK_MASKS",
    "RANK_OF",
    "SUIT_BITS",
    "SUIT_OF",
    "best_discards",
    "best_melds",
    "bits",
    "deadwood_after_discards",
    "deadwood_cards",
    "knock_options",
    "least_after_discard",
    "least_deadwood",
    "points",
]

#: Every card of the deck.
FULL_DECK: Final = FULL_MASK
#: The 13 bits of one suit (shift by ``13 * suit``).
SUIT_BITS: Final = 0x1FFF
#: Rank (0 = ace .. 12 = king) and suit (0 = clubs .. 3 = spades) of each card index.
RANK_OF: Final = tuple(i % 13 for i in range(52))
SUIT_OF: Final = tuple(i // 13 for i in range(52))
#: The four cards of each rank.
RANK_MASKS: Final = tuple(sum(1 << (13 * s + r) for s in range(4)) for r in range(13))


def bits(mask: int) -> list[int]:
    """The card indices of `mask`, lowest first.

    >>> bits(0b1011)
    [0, 1, 3]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def points(mask: int) -> int:
    """The sum of the point values of the cards of `mask` (all counted as deadwood)."""
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_POINTS[low.bit_length() - 1]
        mask ^= low
    return total


# -- least deadwood -------------------------------------------------------------------


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


_RUN_DEADWOOD, _RUN_CHOICE = _build_run_tables()

# Ways to use one rank held by the suits in `pattern` as a set: the suit patterns
# removed from the hand (0 = no set). A rank held four times may form the set of
# four or any set of three, leaving the fourth card free for a run.
_SET_OPTIONS: Final = {
    pattern: ((0, pattern) if pattern.bit_count() == 3 else (0, 15, 14, 13, 11, 7))
    for pattern in range(16)
    if pattern.bit_count() >= 3
}


# The same ways as the cards each suit gives up, for a set of rank r held in `pattern`:
# ``_SET_REMOVALS[r][pattern]`` is one (clubs, diamonds, hearts, spades) tuple of masks per way.
_SET_REMOVALS: Final[tuple[dict[int, tuple[tuple[int, int, int, int], ...]], ...]] = tuple(
    {
        pattern: tuple(
            (
                (1 << r) * (way & 1),
                (1 << r) * (way >> 1 & 1),
                (1 << r) * (way >> 2 & 1),
                (1 << r) * (way >> 3 & 1),
            )
            for way in ways
        )
        for pattern, ways in _SET_OPTIONS.items()
    }
    for r in range(13)
)


def _set_ways(c0: int, c1: int, c2: int, c3: int, sets: int) -> Iterator[tuple[int, int, int, int]]:
    """Each way of using the ranks of `sets` as sets, as the cards each suit gives up to them
    (clubs, diamonds, hearts, spades), no set at all first; for the ranks held four times, the
    set of four comes before each set of three."""
    choices: list[tuple[tuple[int, int, int, int], ...]] = []
    while sets:
        low = sets & -sets
        r = low.bit_length() - 1
        pattern = (c0 >> r & 1) | (c1 >> r & 1) << 1 | (c2 >> r & 1) << 2 | (c3 >> r & 1) << 3
        choices.append(_SET_REMOVALS[r][pattern])
        sets ^= low
    for combo in product(*choices):
        r0 = r1 = r2 = r3 = 0
        for a, b, c, d in combo:
            r0 |= a
            r1 |= b
            r2 |= c
            r3 |= d
        yield r0, r1, r2, r3


def least_deadwood(mask: int) -> int:
    """The least deadwood count any arrangement of the cards of `mask` leaves (docs/rules.md §2)."""
    c0 = mask & SUIT_BITS
    c1 = mask >> 13 & SUIT_BITS
    c2 = mask >> 26 & SUIT_BITS
    c3 = mask >> 39 & SUIT_BITS
    table = _RUN_DEADWOOD
    sets = (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)
    if not sets:
        return table[c0] + table[c1] + table[c2] + table[c3]
    best = 1000
    if not sets & (sets - 1):  # one rank for a set: the common case, without the product
        r = sets.bit_length() - 1
        pattern = (c0 >> r & 1) | (c1 >> r & 1) << 1 | (c2 >> r & 1) << 2 | (c3 >> r & 1) << 3
        for r0, r1, r2, r3 in _SET_REMOVALS[r][pattern]:
            v = table[c0 & ~r0] + table[c1 & ~r1] + table[c2 & ~r2] + table[c3 & ~r3]
            if v < best:
                best = v
        return best
    low = sets & -sets
    second = sets ^ low
    if not second & (second - 1):  # two ranks, as most knocking hands with sets: two loops
        r = low.bit_length() - 1
        pattern = (c0 >> r & 1) | (c1 >> r & 1) << 1 | (c2 >> r & 1) << 2 | (c3 >> r & 1) << 3
        s = second.bit_length() - 1
        other = (c0 >> s & 1) | (c1 >> s & 1) << 1 | (c2 >> s & 1) << 2 | (c3 >> s & 1) << 3
        ways = _SET_REMOVALS[s][other]
        for a0, a1, a2, a3 in _SET_REMOVALS[r][pattern]:
            for b0, b1, b2, b3 in ways:
                v = (
                    table[c0 & ~(a0 | b0)]
                    + table[c1 & ~(a1 | b1)]
                    + table[c2 & ~(a2 | b2)]
                    + table[c3 & ~(a3 | b3)]
                )
                if v < best:
                    best = v
        return best
    for r0, r1, r2, r3 in _set_ways(c0, c1, c2, c3, sets):
        v = table[c0 & ~r0] + table[c1 & ~r1] + table[c2 & ~r2] + table[c3 & ~r3]
        if v < best:
            best = v
    return best


def best_melds(mask: int) -> list[int]:
    """The melds of one least-deadwood arrangement of `mask` (sets first, then runs by suit).

    Among equal arrangements it is always the same one: the one `best_arrangement` shows.
    """
    c0 = mask & SUIT_BITS
    c1 = mask >> 13 & SUIT_BITS
    c2 = mask >> 26 & SUIT_BITS
    c3 = mask >> 39 & SUIT_BITS
    sets = (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)
    melds: list[int] = []
    if sets:
        # The first way of using the set ranks that reaches the least deadwood.
        table = _RUN_DEADWOOD
        best = 1000
        removed = (0, 0, 0, 0)
        for r0, r1, r2, r3 in _set_ways(c0, c1, c2, c3, sets):
            value = table[c0 & ~r0] + table[c1 & ~r1] + table[c2 & ~r2] + table[c3 & ~r3]
            if value < best:
                best, removed = value, (r0, r1, r2, r3)
        given = removed[0] | removed[1] << 13 | removed[2] << 26 | removed[3] << 39
        while sets:  # the sets of the way chosen, by rank
            low = sets & -sets
            sets ^= low
            meld = given & RANK_MASKS[low.bit_length() - 1]
            if meld:
                melds.append(meld)
        c0 &= ~removed[0]
        c1 &= ~removed[1]
        c2 &= ~removed[2]
        c3 &= ~removed[3]
    for shift, pattern in ((0, c0), (13, c1), (26, c2), (39, c3)):
        for low, length in _RUN_CHOICE[pattern]:
            melds.append(((1 << length) - 1) << (low + shift))
    return melds


def deadwood_cards(mask: int) -> int:
    """The deadwood cards of the arrangement `best_melds` gives."""
    for meld in best_melds(mask):
        mask &= ~meld
    return mask


# -- discards and knocks --------------------------------------------------------------

# Each card index with its points, highest points first (ties by index): throwing a card
# worth p lowers the least deadwood by at most p, so a search in this order stops early.
_BY_POINTS: Final = tuple(sorted(range(52), key=lambda i: (-CARD_POINTS[i], i)))


def best_discards(hand: int, forbid: int = -1) -> tuple[int, int]:
    """(least deadwood after one discard, mask of every card whose discard leaves it).

    `forbid` is a card that may not be thrown (the one just taken from the pile), or -1.

    >>> from ginrummy.rules import CardSet, parse_cards
    >>> left, cards = best_discards(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC 2D").mask)
    >>> left, str(CardSet.from_mask(cards))
    (3, 'KC')
    """
    whole = least_deadwood(hand)
    best = 1000
    ties = 0
    for i in _BY_POINTS:
        low = 1 << i
        if not hand & low or i == forbid:
            continue
        if whole - CARD_POINTS[i] > best:
            break
        d = least_deadwood(hand ^ low)
        if d < best:
            best, ties = d, low
        elif d == best:
            ties |= low
    return best, ties


def deadwood_after_discards(hand: int) -> tuple[tuple[int, int], ...]:
    """(card, least deadwood left after discarding it) for every card of `hand`, lowest card
    first: the table a turn's knock options and a player's discard both read.

    Each way of using the ranks that could form sets is priced once; discarding a card then
    changes only its own suit's run table entry under each choice that leaves it in the hand.

    >>> from ginrummy.rules import CardSet, parse_cards
    >>> table = deadwood_after_discards(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC 2D").mask)
    >>> [(str(CardSet.from_mask(1 << c)), d) for c, d in table if d <= 4]
    [('KC', 3)]
    """
    c0 = hand & SUIT_BITS
    c1 = hand >> 13 & SUIT_BITS
    c2 = hand >> 26 & SUIT_BITS
    c3 = hand >> 39 & SUIT_BITS
    table = _RUN_DEADWOOD
    sets = (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)
    out: list[tuple[int, int]] = []
    if not sets:
        total = table[c0] + table[c1] + table[c2] + table[c3]
        for s in range(4):
            pattern = hand >> (13 * s) & SUIT_BITS
            rest = total - table[pattern]
            base = 13 * s - 1
            m = pattern
            while m:
                low = m & -m
                m ^= low
                out.append((base + low.bit_length(), rest + table[pattern ^ low]))
        return tuple(out)
    # Every way of using the set ranks: its run-only total, and the suit patterns it leaves
    # for runs (way k's pattern of suit s is ``patterns[4 * k + s]``). Flat lists of ints,
    # which the compiled build reads without boxing.
    totals = [table[c0] + table[c1] + table[c2] + table[c3]]
    patterns = [c0, c1, c2, c3]
    for r0, r1, r2, r3 in _set_ways(c0, c1, c2, c3, sets):
        if r0 | r1 | r2 | r3:
            p0, p1, p2, p3 = c0 & ~r0, c1 & ~r1, c2 & ~r2, c3 & ~r3
            totals.append(table[p0] + table[p1] + table[p2] + table[p3])
            patterns.extend((p0, p1, p2, p3))
    for s in range(4):
        base = 13 * s - 1
        m = patterns[s]
        while m:
            low = m & -m
            m ^= low
            # The arrangements of the hand without this card are the set choices that
            # leave it in its suit, less the card: its set-mates keep any set without it.
            best = 1000
            k = s
            for total in totals:
                p = patterns[k]
                if p & low:
                    v = total - table[p] + table[p ^ low]
                    if v < best:
                        best = v
                k += 4
            out.append((base + low.bit_length(), best))
    return tuple(out)


def least_after_discard(hand: int, forbid: int = -1) -> int:
    """The least deadwood `hand` can keep after throwing one card (not `forbid`)."""
    whole = least_deadwood(hand)
    best = 1000
    for i in _BY_POINTS:
        low = 1 << i
        if not hand & low or i == forbid:
            continue
        if whole - CARD_POINTS[i] >= best:
            break
        d = least_deadwood(hand ^ low)
        if d < best:
            best = d
            if d == 0:
                break
    return best


def knock_options(hand: int, knock_limit: int, forbid: int = -1) -> dict[int, int]:
    """For an 11-card hand: each card (not `forbid`) whose discard allows a knock, with the
    deadwood left (0 is Gin)."""
    if knock_limit < 0:
        return {}
    whole = least_deadwood(hand)
    # Discarding a card worth p lowers the least deadwood by at most p.
    need = whole - knock_limit
    result: dict[int, int] = {}
    if need > 10:
        return result
    m = hand
    while m:
        low = m & -m
        m ^= low
        index = low.bit_length() - 1
        if CARD_POINTS[index] >= need and index != forbid:
            d = least_deadwood(hand ^ low)
            if d <= knock_limit:
                result[index] = d
    return result
