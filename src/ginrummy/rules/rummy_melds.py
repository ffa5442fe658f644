"""Classic Rummy's melds with the ace low, high or either (docs/rules.md §8, document 002).

Runs live inside one suit. A suit's cards are read as a 14-bit pattern: bit 0 the ace
below the two, bits 1-12 the two to the king, bit 13 the ace above the king. An ace that
ranks low sits at bit 0, one that ranks high at bit 13, and under `either` both readings
are tried (never both ends at once, so K-A-2 is no run). A table over every 14-bit
pattern gives the least run-only value of a suit; sets are enumerated as in `melds`.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product
from typing import Final, Literal

from .cards import CardLike, CardSet, as_mask
from .fast_core import points

__all__ = [
    "AceRank",
    "is_rummy_meld",
    "rummy_deadwood",
    "rummy_melds",
    "rummy_layoff_cards",
    "rummy_layoff_fits",
    "rummy_hand_points",
    "rummy_least_left",
    # The mask forms the Rummy table (rules.rummy) plays on: 52-bit ints, as in rules.masks.
    "is_meld_mask",
    "deadwood_of_mask",
    "melds_of_mask",
    "attachable_mask",
]

AceRank = Literal["low", "high", "either"]

SUIT_BITS: Final = 0x1FFF
# Points of each bit of a 14-bit suit pattern: both aces count 1 (document 002).
_POINTS14: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1)


def _build_run_table() -> list[int]:
    """Least run-only value of every 14-bit suit pattern (see the module docstring)."""
    size = 1 << 14
    best = [0] * size
    for m in range(1, size):
        low = (m & -m).bit_length() - 1
        value = best[m & ~(1 << low)] + _POINTS14[low]
        length = 1
        while low + length < 14 and m >> (low + length) & 1:
            length += 1
            if length >= 3:
                rest = m & ~(((1 << length) - 1) << low)
                if best[rest] < value:
                    value = best[rest]
        best[m] = value
    return best


_RUN14: Final = _build_run_table()


def _readings(pattern: int, ace: str) -> tuple[int, ...]:
    """The 14-bit readings of a 13-bit suit pattern under the ace rule."""
    if not pattern & 1 or ace == "low":
        return (pattern,)
    high = (pattern & ~1) | 1 << 13
    if ace == "high":
        return (high,)
    return (pattern, high)


def _suit_value(pattern: int, ace: str) -> int:
    return min(_RUN14[r] for r in _readings(pattern, ace))


def _is_run_pattern(pattern14: int) -> bool:
    low = pattern14 & -pattern14
    shifted = pattern14 // low
    return shifted.bit_count() >= 3 and shifted & (shifted + 1) == 0


def is_rummy_meld(cards: CardSet | Iterable[CardLike] | str, ace: AceRank = "low") -> bool:
    """True for a set (3 or 4 of a rank) or a run (3+ in suit and sequence) under the ace rule.

    >>> is_rummy_meld("QH KH AH"), is_rummy_meld("QH KH AH", "high"), is_rummy_meld("KH AH 2H", "either")
    (False, True, False)
    """
    return is_meld_mask(as_mask(cards), ace)


def is_meld_mask(mask: int, ace: str) -> bool:
    if mask.bit_count() < 3:
        return False
    c0 = mask & SUIT_BITS
    c1 = mask >> 13 & SUIT_BITS
    c2 = mask >> 26 & SUIT_BITS
    c3 = mask >> 39
    held = (c0 != 0) + (c1 != 0) + (c2 != 0) + (c3 != 0)
    if held == 1:
        pattern = c0 | c1 | c2 | c3
        if not pattern & 1 or ace == "low":
            return _is_run_pattern(pattern)
        high = (pattern & ~1) | 1 << 13
        if ace == "high":
            return _is_run_pattern(high)
        return _is_run_pattern(pattern) or _is_run_pattern(high)
    # A set: one card in each of three or four suits, all of one rank.
    return held == mask.bit_count() and (c0 | c1 | c2 | c3).bit_count() == 1


def rummy_deadwood(cards: CardSet | Iterable[CardLike] | str, ace: AceRank = "low") -> int:
    """The least points left in `cards` after laying every meld they can form (ace counts 1).

    >>> rummy_deadwood("QH KH AH 5C", "low"), rummy_deadwood("QH KH AH 5C", "high")
    (26, 5)
    """
    return deadwood_of_mask(as_mask(cards), ace)


def deadwood_of_mask(mask: int, ace: str) -> int:
    suits = [mask >> (13 * s) & SUIT_BITS for s in range(4)]
    c0, c1, c2, c3 = suits
    sets = (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)
    if not sets:
        return sum(_suit_value(p, ace) for p in suits)
    options: list[list[int]] = []  # per set rank: the suit patterns it may remove (0 = none)
    while sets:
        bit = sets & -sets
        r = bit.bit_length() - 1
        held = [s for s in range(4) if suits[s] >> r & 1]
        choices = [0, sum(1 << s for s in held)]
        if len(held) == 4:
            choices += [15 & ~(1 << s) for s in held]
        options.append([c << 4 | r for c in choices])  # pack (suits removed, rank)
        sets ^= bit
    best = 1000
    for combo in product(*options):
        removed = [0, 0, 0, 0]
        for packed in combo:
            chosen, r = packed >> 4, packed & 15
            for s in range(4):
                if chosen >> s & 1:
                    removed[s] |= 1 << r
        value = sum(_suit_value(suits[s] & ~removed[s], ace) for s in range(4))
        if value < best:
            best = value
    return best


def rummy_melds(cards: CardSet | Iterable[CardLike] | str, ace: AceRank = "low") -> list[CardSet]:
    """Every meld that can be laid from `cards`, sets first (by rank), then runs (by suit).

    >>> [str(m) for m in rummy_melds("7C 7D 7H 8H 9H")]
    ['7C 7D 7H', '7H 8H 9H']
    """
    return [CardSet.from_mask(m) for m in melds_of_mask(as_mask(cards), ace)]


def melds_of_mask(mask: int, ace: str) -> list[int]:
    result: list[int] = []
    c0 = mask & SUIT_BITS
    c1 = mask >> 13 & SUIT_BITS
    c2 = mask >> 26 & SUIT_BITS
    c3 = mask >> 39 & SUIT_BITS
    sets = (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)
    while sets:
        bit = sets & -sets
        sets ^= bit
        r = bit.bit_length() - 1
        held = [1 << (13 * s + r) for s, c in enumerate((c0, c1, c2, c3)) if c & bit]
        full = sum(held)
        if len(held) == 4:
            result.extend(full & ~b for b in held)
        result.append(full)
    for s, pattern in enumerate((c0, c1, c2, c3)):
        if not pattern & pattern >> 1 & pattern >> 2 and not (
            ace != "low" and pattern & 1 and pattern >> 11 == 3
        ):
            continue  # no three in sequence, not even Q-K-A
        readings = _readings(pattern, ace)
        seen: set[int] = set()
        for reading in readings:
            rest = reading
            while rest:
                lo = (rest & -rest).bit_length() - 1
                ones = rest >> lo
                length = (~ones & (ones + 1)).bit_length() - 1  # the run of cards from `lo` up
                rest &= ~(((1 << length) - 1) << lo)
                for start in range(length - 2):
                    for end in range(start + 3, length + 1):
                        run14 = ((1 << (end - start)) - 1) << (lo + start)
                        run13 = (run14 & SUIT_BITS) | (run14 >> 13 & 1)
                        if len(readings) > 1:
                            if run13 in seen:
                                continue
                            seen.add(run13)
                        result.append(run13 << (13 * s))
    return result


def rummy_layoff_fits(card: CardLike, meld: CardSet | Iterable[CardLike] | str, ace: AceRank = "low") -> bool:
    """Whether `card` may be added to the table meld `meld` (the fourth of a set, or a run's next card)."""
    bit = as_mask([card])
    mask = as_mask(meld)
    return not mask & bit and is_meld_mask(mask | bit, ace)


def rummy_layoff_cards(meld: CardSet | Iterable[CardLike] | str, ace: AceRank = "low") -> CardSet:
    """Every card that may be laid off on the table meld `meld` now (a set's missing suit, a
    run's next card at either end).

    >>> str(rummy_layoff_cards("6H 7H 8H")), str(rummy_layoff_cards("QH KH AH", "high"))
    ('5H 9H', 'JH')
    """
    return CardSet.from_mask(attachable_mask(as_mask(meld), ace))


def rummy_least_left(
    cards: CardSet | Iterable[CardLike] | str,
    table: Iterable[CardSet | Iterable[CardLike] | str] = (),
    ace: AceRank = "low",
) -> int:
    """The least points left in `cards` after laying melds from them and laying off on the
    `table` melds, a card at a time (so a card may fit only once another has extended a run).

    >>> rummy_least_left("9H 8D 2C", ["6H 7H 8H"]), rummy_least_left("TH 9H 2C", ["6H 7H 8H"])
    (10, 2)
    """
    return _least_left_mask(as_mask(cards), tuple(as_mask(m) for m in table), ace)


def attachable_mask(meld: int, ace: str) -> int:
    """The cards that may be laid off on `meld`: a set's missing suit, a run's next cards."""
    c = [meld >> (13 * s) & SUIT_BITS for s in range(4)]
    suits = [s for s in range(4) if c[s]]
    if not suits:
        return 0
    if len(suits) > 1:  # a set
        if len(suits) != 3:
            return 0
        rank = c[suits[0]].bit_length() - 1
        missing = next(s for s in range(4) if not c[s])
        return 1 << (13 * missing + rank)
    suit = suits[0]
    found = 0
    for reading in _readings(c[suit], ace):
        if not _is_run_pattern(reading):
            continue
        low = (reading & -reading).bit_length() - 1
        high = reading.bit_length() - 1
        for spot in (low - 1, high + 1):
            if spot == 0 and ace != "high":
                found |= 1  # the ace below the two
            elif spot == 13 and ace != "low" and not c[suit] & 1:
                found |= 1  # the ace above the king
            elif 1 <= spot <= 12:
                found |= 1 << spot
    return (found << (13 * suit)) & ~meld


def _layoff_closure(hand: int, table: tuple[int, ...], ace: str) -> int:
    """The cards of `hand` left after laying off on `table` everything that fits, to a fixpoint.

    Runs are extended before sets are completed: a card that fits both does more on the
    run (it may make room for the next card) than on the set (which takes only it).
    """
    melds = list(table)
    spots = [attachable_mask(m, ace) for m in melds]
    is_run = [sum(1 for s in range(4) if m >> 13 * s & SUIT_BITS) == 1 for m in melds]
    left = hand
    while left:
        fitting = 0
        for spot in spots:
            fitting |= spot
        fitting &= left
        if not fitting:
            return left
        chosen = -1
        for j, spot in enumerate(spots):
            if spot & fitting and (chosen < 0 or (is_run[j] and not is_run[chosen])):
                chosen = j
        bit = spots[chosen] & fitting
        bit &= -bit
        melds[chosen] |= bit
        spots[chosen] = attachable_mask(melds[chosen], ace)
        left ^= bit
    return left


def _least_left_mask(hand: int, table: tuple[int, ...], ace: str) -> int:
    if not table:
        return deadwood_of_mask(hand, ace)
    melds = melds_of_mask(hand, ace)
    best = points(_layoff_closure(hand, table, ace))

    def search(start: int, remaining: int) -> None:
        nonlocal best
        for i in range(start, len(melds)):
            meld = melds[i]
            if meld & remaining == meld:
                rest = remaining & ~meld
                value = points(_layoff_closure(rest, table, ace))
                if value < best:
                    best = value
                if best == 0:
                    return
                search(i + 1, rest)

    search(0, hand)
    return best


def rummy_hand_points(cards: CardSet | Iterable[CardLike] | str) -> int:
    """What a loser pays for the cards left in hand: their point values, melds or not."""
    return points(as_mask(cards))
