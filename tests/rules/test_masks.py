"""The card-mask API (`ginrummy.rules.masks`) against the brute-force oracle of rules_brute.py.

Every function a computer player calls is checked against a computation written without
the engine's code: every meld, least deadwood, one best arrangement, the best discard and what it
leaves, knock options, melding one card, layoffs and the points of a showdown.
"""

from __future__ import annotations

import itertools

import rules_brute as brute
from hypothesis import given, settings
from hypothesis import strategies as st
from test_deadwood_oracle import hands, to_brute
from test_layoff_oracle import pooled_deals

from ginrummy import CardSet, Rules, score_showdown
from ginrummy.rules import masks

SETTINGS = settings(max_examples=150, deadline=None)


def brute_card(index: int) -> brute.BruteCard:
    return brute.from_text(str(CardSet.from_mask(1 << index)))


@SETTINGS
@given(hands(max_size=11))
def test_best_melds_is_a_least_deadwood_arrangement(cards: CardSet) -> None:
    mask = cards.mask
    melds = masks.best_melds(mask)
    used = 0
    for meld in melds:
        assert meld & ~mask == 0 and not used & meld
        assert brute.is_meld(to_brute(CardSet.from_mask(meld)))
        used |= meld
    dead = masks.deadwood_cards(mask)
    assert dead == mask & ~used
    assert masks.points(dead) == masks.least_deadwood(mask) == brute.min_deadwood(to_brute(cards))


def as_brute_melds(melds: list[int]) -> frozenset[brute.Cards]:
    return frozenset(to_brute(CardSet.from_mask(m)) for m in melds)


@SETTINGS
@given(hands(max_size=16))
def test_all_melds_are_every_meld_the_cards_hold(cards: CardSet) -> None:
    found = masks.all_melds(cards.mask)
    assert len(found) == len(set(found))
    assert as_brute_melds(found) == frozenset(brute.melds_in(to_brute(cards)))


@SETTINGS
@given(hands(min_size=11, max_size=11), st.integers(-1, 51))
def test_best_discards_and_least_after_discard(cards: CardSet, forbid: int) -> None:
    mask = cards.mask
    outcomes = {
        i: brute.min_deadwood(to_brute(CardSet.from_mask(mask & ~(1 << i))))
        for i in masks.bits(mask)
        if i != forbid
    }
    least = min(outcomes.values())
    ties = sum(1 << i for i, d in outcomes.items() if d == least)
    assert masks.best_discards(mask, forbid) == (least, ties)
    assert masks.least_after_discard(mask, forbid) == least


@SETTINGS
@given(hands(min_size=11, max_size=11))
def test_deadwood_after_each_discard(cards: CardSet) -> None:
    # The turn's table (sets priced once, each discard one look-up) against the oracle.
    mask = cards.mask
    expected = tuple(
        (i, brute.min_deadwood(to_brute(CardSet.from_mask(mask & ~(1 << i))))) for i in masks.bits(mask)
    )
    assert masks.deadwood_after_discards(mask) == expected


def test_deadwood_after_each_discard_with_sets_of_three_and_four() -> None:
    # Two ranks held four times and one three times: every set choice changes with the card thrown.
    for text in ("9C 9D 9H 9S 5C 5D 5H 5S 7H 7S 7D", "9C 9D 9H 9S TS JS QS 5C 5D 5H 2C"):
        mask = CardSet(text).mask
        expected = tuple(
            (i, brute.min_deadwood(to_brute(CardSet.from_mask(mask & ~(1 << i))))) for i in masks.bits(mask)
        )
        assert masks.deadwood_after_discards(mask) == expected


@SETTINGS
@given(hands(min_size=11, max_size=11), st.integers(0, 12), st.integers(-1, 51))
def test_knock_options_with_a_forbidden_card(cards: CardSet, limit: int, forbid: int) -> None:
    expected = {
        brute_index: dead
        for card, dead in brute.knock_options(to_brute(cards), limit).items()
        if (brute_index := CardSet([brute.card_text(card)]).mask.bit_length() - 1) != forbid
    }
    assert masks.knock_options(cards.mask, limit, forbid) == expected


@SETTINGS
@given(hands(max_size=10), st.integers(0, 51))
def test_forms_meld_and_meld_partners(cards: CardSet, card: int) -> None:
    hand = cards.mask & ~(1 << card)
    others = to_brute(CardSet.from_mask(hand))
    me = brute_card(card)
    melds_with = any(brute.is_meld({me, *pair}) for pair in itertools.combinations(others, 2)) or any(
        brute.is_meld({me, *more}) for n in (3, 4) for more in itertools.combinations(others, n)
    )
    assert masks.forms_meld(card, hand) == melds_with
    partners = {frozenset((a, b)) for a, b in masks.meld_partners(card)}
    expected = {
        frozenset(CardSet([brute.card_text(x)]).mask.bit_length() - 1 for x in pair)
        for pair in itertools.combinations(brute.cards_of(CardSet.full_deck().to_json()) - {me}, 2)
        if brute.is_meld({me, *pair})
    }
    assert partners == expected


@settings(max_examples=120, deadline=None)
@given(pooled_deals())
def test_layoffs_and_showdown_points(deal: tuple[CardSet, CardSet]) -> None:
    knocker, defender = deal
    k, d = to_brute(knocker), to_brute(defender)
    melds = masks.best_melds(knocker.mask)
    brute_melds = [to_brute(CardSet.from_mask(m)) for m in melds]
    assert masks.layoff_deadwood(melds, defender.mask) == brute.defender_deadwood(brute_melds, d)
    if brute.min_deadwood(k) > 10:
        return
    for rules in (Rules(), Rules(undercut_on_tie=False, undercut_bonus=10, gin_bonus=20)):
        sd = score_showdown(knocker, defender, rules)
        signed = sd.points if sd.scorer == "knocker" else -sd.points if sd.scorer == "defender" else 0
        assert masks.showdown_points(knocker.mask, defender.mask, rules) == signed
        defender_left = brute.showdown_defender_deadwood(k, d)
        knocker_left = brute.min_deadwood(k)
        if knocker_left == 0:
            assert signed == rules.gin_bonus + brute.min_deadwood(d)
        elif defender_left > knocker_left:
            assert signed == defender_left - knocker_left


def test_big_gin_points() -> None:
    knocker = CardSet("AC 2C 3C 4C 5H 6H 7H 8H 9S 9D 9C")
    defender = CardSet("KS QS JD TD 2S 4S 6S 3D 5D 7D")
    rules = Rules.preset("big_gin")
    assert masks.showdown_points(knocker.mask, defender.mask, rules) == 31 + masks.least_deadwood(
        defender.mask
    )
    sd = score_showdown(knocker, defender, rules)
    assert sd.outcome == "big_gin" and sd.points == masks.showdown_points(knocker.mask, defender.mask, rules)
