"""Least deadwood, best arrangements and knock options against an independent brute force.

The oracle (rules_brute.py) enumerates every collection of disjoint melds from scratch
with (rank, suit) cards; hands come in three shapes: uniform, few ranks (sets crowd
each other) and few suits (long runs), so the hard cases are common, not rare.
"""

from __future__ import annotations

import rules_brute as brute
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import (
    CardSet,
    all_best_arrangements,
    best_arrangement,
    knock_options,
    min_deadwood,
)
from ginrummy.rules.cards import CARDS
from ginrummy.rules.masks import knock_options as knock_options_mask
from ginrummy.rules.masks import least_deadwood

SETTINGS = settings(max_examples=150, deadline=None)


@st.composite
def hands(draw: st.DrawFn, min_size: int = 0, max_size: int = 11) -> CardSet:
    """A hand of `min_size`..`max_size` distinct cards, often dense in ranks or suits."""
    shape = draw(st.sampled_from(["uniform", "few_ranks", "few_suits", "window"]))
    if shape == "uniform":
        pool = list(range(52))
    elif shape == "few_ranks":
        fewest = max(2, -(-min_size // 4))
        ranks = draw(st.sets(st.integers(0, 12), min_size=fewest, max_size=max(4, fewest)))
        pool = [s * 13 + r for r in ranks for s in range(4)]
    elif shape == "few_suits":
        suits = draw(st.sets(st.integers(0, 3), min_size=1, max_size=2))
        pool = [s * 13 + r for r in range(13) for s in suits]
    else:  # a window of consecutive ranks in every suit: sets and runs cross everywhere
        width = draw(st.integers(max(3, -(-min_size // 4)), 5))
        low = draw(st.integers(0, 13 - width))
        pool = [s * 13 + r for r in range(low, low + width) for s in range(4)]
    size = draw(st.integers(min_size, min(max_size, len(pool))))
    chosen = draw(st.lists(st.sampled_from(pool), min_size=size, max_size=size, unique=True))
    return CardSet(chosen)


def to_brute(cards: CardSet) -> brute.Cards:
    """Cross to the oracle through text only."""
    return brute.cards_of(cards.to_json())


def brute_text(melds: tuple[brute.Cards, ...]) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(brute.card_text(c) for c in m) for m in melds)


@SETTINGS
@given(hands())
def test_min_deadwood_equals_brute_force(cards: CardSet) -> None:
    expected = brute.min_deadwood(to_brute(cards))
    assert min_deadwood(cards) == expected
    assert least_deadwood(cards.mask) == expected
    assert min_deadwood(str(cards)) == expected  # text input takes the same path


@SETTINGS
@given(hands())
def test_best_arrangement_is_valid_disjoint_and_complete(cards: CardSet) -> None:
    arrangement = best_arrangement(cards)
    used = CardSet()
    for meld in arrangement.melds:
        assert brute.is_meld(to_brute(meld)), str(meld)
        assert used.isdisjoint(meld), f"{meld} overlaps {used}"
        used |= meld
    assert used | arrangement.deadwood_cards == cards
    assert used.isdisjoint(arrangement.deadwood_cards)
    assert brute.total(to_brute(arrangement.deadwood_cards)) == arrangement.deadwood
    assert arrangement.deadwood == brute.min_deadwood(to_brute(cards))


@settings(max_examples=100, deadline=None)
@given(hands(max_size=10))
def test_all_best_arrangements_are_exactly_the_brute_force_ones(cards: CardSet) -> None:
    found = all_best_arrangements(cards)
    least = brute.min_deadwood(to_brute(cards))
    for arrangement in found:
        assert arrangement.deadwood == least
        used = CardSet()
        for meld in arrangement.melds:
            assert brute.is_meld(to_brute(meld)) and used.isdisjoint(meld)
            used |= meld
        assert used | arrangement.deadwood_cards == cards
        assert brute.total(to_brute(arrangement.deadwood_cards)) == least
    engine = [frozenset(frozenset(m.to_json()) for m in a.melds) for a in found]
    assert len(set(engine)) == len(engine), "an arrangement is listed twice"
    expected = {brute_text(melds) for melds in brute.best_arrangements(to_brute(cards))}
    assert set(engine) == expected


@SETTINGS
@given(hands(min_size=11, max_size=11), st.integers(0, 15))
def test_knock_options_equal_brute_force_over_discards(cards: CardSet, limit: int) -> None:
    expected = {brute.card_text(c): d for c, d in brute.knock_options(to_brute(cards), limit).items()}
    options = knock_options(cards, limit)
    assert {str(CARDS[i]): d for i, d in options.items()} == expected
    assert knock_options_mask(cards.mask, limit) == options
    assert knock_options(cards, -1) == {}


@settings(max_examples=30, deadline=None)
@given(hands(min_size=11, max_size=11))
def test_knock_options_with_a_huge_limit_list_every_card(cards: CardSet) -> None:
    options = knock_options(cards, 100)
    assert set(options) == {c.index for c in cards}
    assert all(options[c.index] == brute.min_deadwood(to_brute(cards - c)) for c in cards)


def test_brute_force_oracle_knows_the_rule_book_example() -> None:
    """The oracle itself reproduces RULES.md §2 (so the comparisons above mean something)."""
    assert brute.min_deadwood(brute.cards_of("3S 4S 5S 6S 9C 9D 9H 9S AD KC")) == 11
    assert not brute.is_meld(brute.cards_of("QH KH AH"))
    assert brute.is_meld(brute.cards_of("AH 2H 3H"))
    assert brute.min_deadwood(brute.cards_of("")) == 0
