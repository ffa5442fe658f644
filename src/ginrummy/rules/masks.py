"""The card-mask API: the rules on 52-bit ints, for players that weigh thousands of hands.

A hand is an int whose bit ``suit * 13 + rank`` is set for each card it holds: the
`CardSet.mask` of the same cards (clubs ace to king are bits 0-12, then diamonds, hearts
and spades). Every rule a computer player needs is here, once: least deadwood, one best
arrangement, the best discard and what it leaves, knock options, layoffs and the points of
a showdown under a `Rules`. The typed functions of `melds` and `showdown` are built on
these, so a player and the referee can never disagree.

This module holds every meld of a hand, every best arrangement, melding one card, layoffs
and the showdown; least deadwood, one best arrangement, discards and knocks are
`mask_deadwood`'s, and given here with the rest (`__all__` is the whole API).

>>> from ginrummy.rules import CardSet, parse_cards
>>> hand = parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC").mask
>>> least_deadwood(hand)
11
>>> [[str(CardSet.from_mask(m)) for m in melds] for melds in all_best_melds(hand)]
[['9C 9D 9H 9S', '3S 4S 5S 6S']]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .mask_deadwood import (
    CARD_POINTS,
    FULL_DECK,
    RANK_MASKS,
    RANK_OF,
    SUIT_BITS,
    SUIT_OF,
    best_discards,
    best_melds,
    bits,
    deadwood_after_discards,
    deadwood_cards,
    knock_options,
    least_after_discard,
    least_deadwood,
    points,
)
from .variants import Rules

__all__ = [
    "CARD_POINTS",
    "FULL_DECK",
    "RANK_MASKS",
    "RANK_OF",
    "SUIT_BITS",
    "SUIT_OF",
    "all_best_melds",
    "all_melds",
    "best_discards",
    "best_layoffs",
    "best_melds",
    "bits",
    "deadwood_after_discards",
    "deadwood_cards",
    "forms_meld",
    "knock_options",
    "layoff_deadwood",
    "least_after_discard",
    "least_deadwood",
    "meld_partners",
    "points",
    "showdown_points",
]

# -- every meld ------------------------------------------------------------------------


def _build_suit_runs() -> tuple[tuple[int, ...], ...]:
    """Every run inside each 13-bit suit pattern, by lowest card then length."""
    table: list[tuple[int, ...]] = [()] * (1 << 13)
    for pattern in range(1, 1 << 13):
        low = (pattern & -pattern).bit_length() - 1
        length = 1
        starting: list[int] = []
        while low + length < 13 and pattern >> (low + length) & 1:
            length += 1
            if length >= 3:
                starting.append(((1 << length) - 1) << low)
        table[pattern] = (*starting, *table[pattern & ~(1 << low)])
    return tuple(table)


_SUIT_RUNS: Final = _build_suit_runs()


def all_melds(mask: int) -> list[int]:
    """Every meld (set or run) that can be formed from the cards of `mask`: the sets by
    rank (a rank held four times gives its set of four, then each set of three), then the
    runs by suit, lowest card first, shortest first."""
    result: list[int] = []
    c0 = mask & SUIT_BITS
    c1 = mask >> 13 & SUIT_BITS
    c2 = mask >> 26 & SUIT_BITS
    c3 = mask >> 39 & SUIT_BITS
    sets = (c0 & c1 & (c2 | c3)) | ((c0 | c1) & c2 & c3)
    while sets:
        low = sets & -sets
        sets ^= low
        full = mask & RANK_MASKS[low.bit_length() - 1]
        result.append(full)
        if full.bit_count() == 4:
            m = full
            while m:
                card = m & -m
                m ^= card
                result.append(full ^ card)
    for shift, pattern in ((0, c0), (13, c1), (26, c2), (39, c3)):
        if pattern & pattern >> 1 & pattern >> 2:
            result.extend(run << shift for run in _SUIT_RUNS[pattern])
    return result


def all_best_melds(mask: int) -> list[list[int]]:
    """The melds of every distinct arrangement of `mask` that reaches the least deadwood.

    The knocker's choice among them changes what the defender can lay off.
    """
    found: list[list[int]] = []
    if not mask:
        found.append([])
        return found
    # The lowest card left is either deadwood or in a meld of the cards left, whose own
    # lowest card it then is: the melds are looked up by the index of their lowest card.
    none: list[int] = []
    by_low = [none] * 52
    for m in all_melds(mask):
        low = (m & -m).bit_length() - 1
        bucket = by_low[low]
        if bucket is none:
            by_low[low] = [m]
        else:
            bucket.append(m)
    _search_arrangements(mask, 0, least_deadwood(mask), by_low, [], found)
    return found


def _search_arrangements(
    remaining: int,
    dead_points: int,
    target: int,
    by_low: list[list[int]],
    chosen: list[int],
    found: list[list[int]],
) -> None:
    """Add to `found` each way of arranging `remaining` that brings the deadwood counted so far
    (`dead_points`, with the melds `chosen`) to exactly `target`: melds on the lowest card
    first, then that card as deadwood."""
    low = remaining & -remaining
    index = low.bit_length() - 1
    for m in by_low[index]:
        if not m & ~remaining:
            chosen.append(m)
            rest = remaining ^ m
            if rest:
                _search_arrangements(rest, dead_points, target, by_low, chosen, found)
            elif dead_points == target:
                found.append(list(chosen))
            chosen.pop()
    dead = dead_points + CARD_POINTS[index]
    if dead <= target:
        rest = remaining ^ low
        if rest:
            _search_arrangements(rest, dead, target, by_low, chosen, found)
        elif dead == target:
            found.append(list(chosen))


# -- melding one card -----------------------------------------------------------------


def _build_partners() -> tuple[tuple[tuple[int, int], ...], ...]:
    table = []
    for card in range(52):
        rank, suit = card % 13, card // 13
        others = [s * 13 + rank for s in range(4) if s != suit]
        pairs = [(others[0], others[1]), (others[0], others[2]), (others[1], others[2])]
        for lo in (rank - 2, rank - 1, rank):
            if lo >= 0 and lo + 2 <= 12:
                run = [suit * 13 + r for r in range(lo, lo + 3) if r != rank]
                pairs.append((run[0], run[1]))
        table.append(tuple(pairs))
    return tuple(table)


_PARTNERS: Final = _build_partners()


def meld_partners(card: int) -> tuple[tuple[int, int], ...]:
    """The pairs of other cards that make a meld of three with `card`: two of its rank, or
    its run neighbours (below and below, around, above and above).

    >>> from ginrummy.rules import CardSet, parse_card
    >>> [str(CardSet.from_mask(1 << a | 1 << b)) for a, b in meld_partners(parse_card("2H").index)]
    ['2C 2D', '2C 2S', '2D 2S', 'AH 3H', '3H 4H']
    """
    return _PARTNERS[card]


def forms_meld(card: int, hand: int) -> bool:
    """True when `card` is part of a meld made of it and two or more cards of `hand`."""
    rank = card % 13
    if (hand & RANK_MASKS[rank] & ~(1 << card)).bit_count() >= 2:
        return True
    pattern = hand >> (card - rank) & SUIT_BITS
    # Two below, one each side, or two above.
    if rank >= 2 and (pattern >> (rank - 2)) & 3 == 3:
        return True
    if 1 <= rank <= 11 and (pattern >> (rank - 1)) & 5 == 5:
        return True
    return rank <= 10 and (pattern >> (rank + 1)) & 3 == 3


# -- layoffs and the showdown -----------------------------------------------------------


def _attach(melds: Sequence[int], cards: int) -> tuple[int, list[tuple[int, int]]]:
    """Lay off as many of `cards` as can be attached, in any order; (attached mask, layoffs).

    Runs are extended first, to a fixpoint, and sets completed after: a card that fits
    both a set and a run goes on the run, where it can make room for the next card,
    while a set can only ever take that one card. So the closure is the largest one.
    """
    # Each meld: set -> [0, rank, count, 0]; run -> [1, suit, lo, hi]
    state: list[list[int]] = []
    for m in melds:
        idx = bits(m)
        if len({i % 13 for i in idx}) == 1:
            state.append([0, idx[0] % 13, len(idx), 0])
        else:
            state.append([1, idx[0] // 13, idx[0] % 13, idx[-1] % 13])
    attached = 0
    layoffs: list[tuple[int, int]] = []
    for kind in (1, 0):  # runs, then sets
        changed = True
        while changed:
            changed = False
            rest = cards & ~attached
            while rest:
                low = rest & -rest
                rest ^= low
                i = low.bit_length() - 1
                rank, suit = i % 13, i // 13
                for k, st in enumerate(state):  # noqa: B007 - k is used after the break
                    if st[0] != kind:
                        continue
                    if st[0] == 0:
                        if st[1] == rank and st[2] < 4:
                            st[2] += 1
                            break
                    elif st[1] == suit:
                        if rank == st[2] - 1:
                            st[2] = rank
                            break
                        if rank == st[3] + 1:
                            st[3] = rank
                            break
                else:
                    continue
                attached |= low
                layoffs.append((i, k))
                changed = True
    return attached, layoffs


def best_layoffs(melds: Sequence[int], defender: int) -> tuple[int, int, list[tuple[int, int]]]:
    """The defender's least deadwood after laying off on the knocker's `melds`:
    (deadwood, mask of the cards laid off, [(card, index of the meld it goes on)]).

    Among layoffs that leave the same deadwood, the one laying off the fewest cards.
    """
    # Most showdowns leave the defender no card that goes on any meld: the cards next to
    # each run and the card that completes each set of three say so without laying off.
    touching = 0
    for m in melds:
        if m & m >> 1:  # a run: its cards are neighbours in one suit
            lo = (m & -m).bit_length() - 1
            hi = m.bit_length() - 1
            if lo % 13:
                touching |= 1 << (lo - 1)
            if hi % 13 != 12:
                touching |= 1 << (hi + 1)
        else:
            touching |= RANK_MASKS[RANK_OF[m.bit_length() - 1]] & ~m
    if not defender & touching:
        return (least_deadwood(defender), 0, [])
    reachable, layoffs = _attach(melds, defender)
    if not reachable:
        return (least_deadwood(defender), 0, [])
    rest = defender & ~reachable
    m = reachable
    while m:
        low = m & -m
        if forms_meld(low.bit_length() - 1, defender ^ low):
            break
        m ^= low
    else:
        # No card that can be laid off could meld in the defender's own hand: laying off
        # every one of them is the one best choice (each kept card would add its points).
        return (least_deadwood(rest), reachable, layoffs)
    best: tuple[int, int, list[tuple[int, int]]] = (least_deadwood(defender), 0, [])
    sub = reachable
    while sub:
        attached, layoffs = _attach(melds, sub)
        if attached == sub:
            value = least_deadwood(defender & ~sub)
            if value < best[0] or (value == best[0] and sub.bit_count() < best[1].bit_count()):
                best = (value, sub, layoffs)
        sub = (sub - 1) & reachable
    return best


def layoff_deadwood(melds: Sequence[int], defender: int) -> int:
    """The defender's least deadwood after laying off on the knocker's `melds`."""
    return best_layoffs(melds, defender)[0]


def showdown_points(knocker: int, defender: int, rules: Rules) -> int:
    """The points of a showdown, signed for the knocker: positive when the knocker scores,
    negative when the defender does (an undercut), 0 for a tie (docs/rules.md §4-5).

    `knocker` holds 10 cards after its face-down discard, or 11 for Big Gin; `defender` 10.
    The knocker shows the best arrangement against these layoffs, as `score_showdown`
    does, and the points are the same as its (without an Oklahoma multiplier). The hands
    are not checked: `score_showdown` says what is wrong with a showdown that cannot happen.

    >>> from ginrummy.rules import Rules, parse_cards
    >>> showdown_points(parse_cards("4H 5H 6H 7H 9S 9D 9C 2D 3S 4C").mask,
    ...                 parse_cards("KS KH KD 5S 6S 7S 8H 3H JC 2S").mask, Rules())
    3
    """
    kd = least_deadwood(knocker)
    if kd == 0:
        bonus = rules.big_gin_bonus if knocker.bit_count() == 11 and rules.big_gin_bonus is not None else None
        return (rules.gin_bonus if bonus is None else bonus) + least_deadwood(defender)
    candidates = all_best_melds(knocker)
    after = max(layoff_deadwood(melds, defender) for melds in candidates)
    if after < kd or (after == kd and rules.undercut_on_tie):
        return -(kd - after + rules.undercut_bonus)
    return after - kd
