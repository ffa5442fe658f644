"""Rummy's melds under every ace rule against an independent brute force (rummy_brute.py).

Hands come in shapes that crowd sets and runs together, and near both ends of a suit so
the ace's two places matter.
"""

from __future__ import annotations

import rules_brute
import rummy_brute as brute
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import (
    CardSet,
    is_rummy_meld,
    rummy_deadwood,
    rummy_hand_points,
    rummy_layoff_fits,
    rummy_least_left,
    rummy_melds,
)
from ginrummy.rules.cards import CARDS

SETTINGS = settings(max_examples=150, deadline=None)
ACES = st.sampled_from(["low", "high", "either"])


@st.composite
def hands(draw: st.DrawFn, min_size: int = 0, max_size: int = 11) -> CardSet:
    """A hand, often dense in ranks, in suits, or at the ends of the suits (around the ace)."""
    shape = draw(st.sampled_from(["uniform", "few_ranks", "few_suits", "ends"]))
    if shape == "uniform":
        pool = list(range(52))
    elif shape == "few_ranks":
        ranks = draw(st.sets(st.integers(0, 12), min_size=2, max_size=4))
        pool = [s * 13 + r for r in ranks for s in range(4)]
    elif shape == "few_suits":
        suits = draw(st.sets(st.integers(0, 3), min_size=1, max_size=2))
        pool = [s * 13 + r for r in range(13) for s in suits]
    else:  # J Q K A 2 3 in every suit: high and low aces compete
        pool = [s * 13 + r for r in (10, 11, 12, 0, 1, 2) for s in range(4)]
    size = draw(st.integers(min_size, min(max_size, len(pool))))
    return CardSet(draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True)))


def to_brute(cards: CardSet) -> rules_brute.Cards:
    return rules_brute.cards_of(cards.to_json())


@SETTINGS
@given(hands(max_size=9), ACES)
def test_least_points_left_equals_brute_force(cards: CardSet, ace: str) -> None:
    assert rummy_deadwood(cards, ace) == brute.least_left(to_brute(cards), ace)  # type: ignore[arg-type]


@SETTINGS
@given(hands(max_size=8), ACES)
def test_every_meld_is_listed_once_and_nothing_else(cards: CardSet, ace: str) -> None:
    listed = rummy_melds(cards, ace)  # type: ignore[arg-type]
    as_text = [frozenset(m.to_json()) for m in listed]
    assert len(set(as_text)) == len(as_text), "a meld is listed twice"
    expected = {frozenset(rules_brute.card_text(c) for c in m) for m in brute.all_melds(to_brute(cards), ace)}
    assert set(as_text) == expected


@SETTINGS
@given(hands(min_size=1, max_size=6), ACES)
def test_is_meld_equals_brute_force(cards: CardSet, ace: str) -> None:
    assert is_rummy_meld(cards, ace) == brute.is_meld(to_brute(cards), ace)  # type: ignore[arg-type]


@SETTINGS
@given(hands(min_size=3, max_size=6), st.integers(0, 51), ACES)
def test_layoff_fits_exactly_when_the_meld_grows_into_a_meld(cards: CardSet, card: int, ace: str) -> None:
    extra = CARDS[card]
    expected = extra not in cards and brute.is_meld(to_brute(cards | extra), ace)
    if brute.is_meld(to_brute(cards), ace):
        assert rummy_layoff_fits(extra, cards, ace) == expected  # type: ignore[arg-type]


@st.composite
def tables(draw: st.DrawFn) -> tuple[CardSet, list[CardSet]]:
    """A hand of up to seven cards and up to three disjoint table melds beside it."""
    hand = draw(hands(max_size=7))
    melds: list[CardSet] = []
    used = hand.mask
    for _ in range(draw(st.integers(0, 3))):
        ace = draw(ACES)
        options = [m for m in rummy_melds(CardSet.from_mask(~used & ((1 << 52) - 1)), "low") if len(m) <= 4]
        options += [m for m in rummy_melds(CardSet.from_mask(~used & ((1 << 52) - 1)), ace) if len(m) <= 4]
        near = [
            m
            for m in options
            if any(abs(a.index - b.index) <= 2 or a.rank == b.rank for a in m for b in hand)
        ]
        pick = draw(st.sampled_from(near or options))
        melds.append(pick)
        used |= pick.mask
    return hand, melds


@settings(max_examples=120, deadline=None)
@given(tables(), ACES)
def test_least_left_with_layoffs_equals_brute_force(
    position: tuple[CardSet, list[CardSet]], ace: str
) -> None:
    hand, table = position
    if not all(is_rummy_meld(m, ace) for m in table):  # type: ignore[arg-type]
        table = [m for m in table if is_rummy_meld(m, ace)]  # type: ignore[arg-type]
    expected = brute.least_left_with_table(to_brute(hand), [to_brute(m) for m in table], ace)
    assert rummy_least_left(hand, table, ace) == expected  # type: ignore[arg-type]
    assert rummy_least_left(hand, table, ace) <= rummy_deadwood(hand, ace)  # type: ignore[arg-type]


@SETTINGS
@given(hands())
def test_hand_points_are_the_pip_values(cards: CardSet) -> None:
    assert rummy_hand_points(cards) == rules_brute.total(to_brute(cards))


def test_the_oracle_knows_the_ace_rules() -> None:
    """The oracle itself follows document 002's ace (so the comparisons above mean something)."""
    assert brute.is_meld(rules_brute.cards_of("AH 2H 3H"), "low")
    assert not brute.is_meld(rules_brute.cards_of("QH KH AH"), "low")
    assert brute.is_meld(rules_brute.cards_of("QH KH AH"), "high")
    assert not brute.is_meld(rules_brute.cards_of("AH 2H 3H"), "high")
    for ace in ("low", "high", "either"):
        assert not brute.is_meld(rules_brute.cards_of("KH AH 2H"), ace)
    assert brute.least_left(rules_brute.cards_of("QH KH AH 5C"), "high") == 5
