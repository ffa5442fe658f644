"""Layoffs and the showdown (RULES.md §4-5) against an independent brute force.

The oracle (rules_brute.py) tries every subset of the defender's cards, lays it off in
every order onto every meld that stays a meld, and takes the defender's best own
arrangement of the rest; the knocker's arrangement is the least-deadwood one that
leaves the defender the most. Hands are dealt from dense pools so layoffs, contested
cards (fitting a set and a run) and equal-deadwood knocker arrangements are common.
"""

from __future__ import annotations

import rules_brute as brute
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ginrummy import (
    CardSet,
    Rules,
    Showdown,
    all_best_arrangements,
    best_arrangement,
    best_layoffs,
    score_showdown,
)

SETTINGS = settings(max_examples=250, deadline=None)


@st.composite
def pools(draw: st.DrawFn, size: int) -> list[int]:
    """At least `size` card indices: uniform, a window of ranks in every suit, or two suits."""
    shape = draw(st.sampled_from(["uniform", "window", "window", "two_suits"]))
    if shape == "uniform":
        return list(range(52))
    if shape == "two_suits":
        suits = draw(st.lists(st.integers(0, 3), min_size=2, max_size=2, unique=True))
        return [s * 13 + r for s in suits for r in range(13)]
    width = draw(st.integers(-(-size // 4), 8))
    low = draw(st.integers(0, 13 - width))
    return [s * 13 + r for s in range(4) for r in range(low, low + width)]


@st.composite
def pooled_deals(draw: st.DrawFn) -> tuple[CardSet, CardSet]:
    """A knocker's ten cards and a defender's ten, disjoint, from a dense pool."""
    pool = draw(pools(20))
    order = draw(st.permutations(pool))
    return CardSet(order[:10]), CardSet(order[10:20])


@st.composite
def contested_deals(draw: st.DrawFn) -> tuple[CardSet, CardSet]:
    """The knocker holds a set of three and a run in the set's missing suit next to its
    rank, so the missing card fits both; everything else comes from the ranks around."""
    rank = draw(st.integers(0, 12))
    suit = draw(st.integers(0, 3))
    core = {t * 13 + rank for t in range(4) if t != suit}
    below = [r for r in (rank - 3, rank - 2, rank - 1) if r >= 0]
    above = [r for r in (rank + 1, rank + 2, rank + 3) if r <= 12]
    run = below if len(below) == 3 and (len(above) < 3 or draw(st.booleans())) else above
    core |= {suit * 13 + r for r in run}
    window = [t * 13 + r for t in range(4) for r in range(max(0, rank - 5), min(13, rank + 6))]
    rest = draw(st.permutations([i for i in window if i not in core]))
    knocker = sorted(core) + list(rest[:4])
    return CardSet(knocker), CardSet(rest[4:14])


def deals() -> st.SearchStrategy[tuple[CardSet, CardSet]]:
    return st.one_of(pooled_deals(), contested_deals())


MELD_SHAPES = [(3, 3, 4), (3, 7), (4, 6), (5, 5), (3, 3, 4), (4, 3, 3), (10,)]
BIG_SHAPES = [(3, 4, 4), (3, 3, 5), (4, 7), (5, 6), (3, 8), (4, 4, 3)]


@st.composite
def melded_hands(draw: st.DrawFn, shapes: list[tuple[int, ...]]) -> CardSet:
    """A hand made only of melds (Gin or Big Gin), sets and runs chosen at random."""
    cards = 0
    for size in draw(st.sampled_from(shapes)):
        if size <= 4 and draw(st.booleans()):
            rank = draw(st.integers(0, 12))
            suits = draw(st.lists(st.integers(0, 3), min_size=size, max_size=size, unique=True))
            meld = sum(1 << (s * 13 + rank) for s in suits)
        else:
            suit = draw(st.integers(0, 3))
            start = draw(st.integers(0, 13 - size))
            meld = sum(1 << (suit * 13 + r) for r in range(start, start + size))
        assume(not cards & meld)
        cards |= meld
    return CardSet.from_mask(cards)


def to_brute(cards: CardSet) -> brute.Cards:
    return brute.cards_of(cards.to_json())


def check_layoff_sequence(melds: tuple[CardSet, ...], result: Showdown, defender: CardSet) -> None:
    """The engine's layoffs, applied in order, each keep their meld a meld (oracle check)."""
    grown = [set(to_brute(m)) for m in melds]
    seen = CardSet()
    for layoff in result.layoffs:
        assert layoff.card in defender and layoff.card not in seen
        seen |= layoff.card
        target = grown[layoff.meld]
        target.add(brute.from_text(str(layoff.card)))
        assert brute.is_meld(target), f"{layoff.card} does not fit meld {layoff.meld}"


def check_defender_rest(result: Showdown, defender: CardSet) -> None:
    """The defender's own melds and deadwood cover the cards not laid off, exactly."""
    used = CardSet()
    for meld in result.defender_melds:
        assert brute.is_meld(to_brute(meld)) and used.isdisjoint(meld)
        used |= meld
    rest = defender - result.laid_off
    assert used | result.defender_deadwood_cards == rest
    assert used.isdisjoint(result.defender_deadwood_cards)
    assert brute.total(to_brute(result.defender_deadwood_cards)) == result.defender_deadwood


@SETTINGS
@given(deals())
def test_best_layoffs_equal_brute_force(deal: tuple[CardSet, CardSet]) -> None:
    """For each of the knocker's best arrangements, the defender's least deadwood after
    layoffs equals the oracle's search over every subset, order and meld choice."""
    knocker, defender = deal
    for arrangement in all_best_arrangements(knocker)[:6]:
        melds = [to_brute(m) for m in arrangement.melds]
        value, layoffs = best_layoffs(arrangement.melds, defender)
        assert value == brute.defender_deadwood(melds, defender_brute := to_brute(defender))
        laid = CardSet(lay.card for lay in layoffs)
        assert laid <= defender
        assert brute.min_deadwood(defender_brute - to_brute(laid)) == value
        grown = [set(m) for m in melds]
        for lay in layoffs:
            grown[lay.meld].add(brute.from_text(str(lay.card)))
            assert brute.is_meld(grown[lay.meld])


@SETTINGS
@given(deals())
def test_showdown_equals_brute_force(deal: tuple[CardSet, CardSet]) -> None:
    """The whole showdown: the knocker's least deadwood (the knocker never lays off), the
    arrangement that leaves the defender the most, the defender's best layoffs, the score."""
    knocker, defender = deal
    k, d = to_brute(knocker), to_brute(defender)
    least = brute.min_deadwood(k)
    assume(least > 0)  # Gin has its own test
    rules = Rules()
    result = score_showdown(knocker, defender, rules, knock_limit=200)
    assert result.knocker_deadwood == least
    used = CardSet()
    for meld in result.knocker_melds:
        assert brute.is_meld(to_brute(meld)) and used.isdisjoint(meld)
        used |= meld
    assert used | result.knocker_deadwood_cards == knocker
    assert brute.total(to_brute(result.knocker_deadwood_cards)) == least
    expected = brute.showdown_defender_deadwood(k, d)
    assert result.defender_deadwood == expected
    # The arrangement shown is one that achieves it.
    assert brute.defender_deadwood([to_brute(m) for m in result.knocker_melds], d) == expected
    check_layoff_sequence(result.knocker_melds, result, defender)
    check_defender_rest(result, defender)
    if expected > least:
        assert (result.outcome, result.scorer, result.points) == ("knock", "knocker", expected - least)
    else:
        assert (result.outcome, result.scorer) == ("undercut", "defender")
        assert result.points == least - expected + rules.undercut_bonus


@settings(max_examples=80, deadline=None)
@given(melded_hands(MELD_SHAPES), st.data())
def test_gin_allows_no_layoffs(knocker: CardSet, data: st.DataObject) -> None:
    """Gin: no layoffs at all, even for cards that fit the knocker's melds."""
    rest = sorted(set(range(52)) - {c.index for c in knocker})
    near = [i for i in rest if any(abs(i - c.index) == 1 or i % 13 == c.rank for c in knocker)]
    defender = CardSet(data.draw(st.permutations(near + [i for i in rest if i not in near]))[:10])
    result = score_showdown(knocker, defender)
    expected = brute.min_deadwood(to_brute(defender))
    assert (result.outcome, result.scorer, result.knocker_deadwood) == ("gin", "knocker", 0)
    assert result.layoffs == ()
    assert result.defender_deadwood == expected and result.points == 25 + expected
    check_defender_rest(result, defender)


@settings(max_examples=60, deadline=None)
@given(melded_hands(BIG_SHAPES), st.data())
def test_big_gin_allows_no_layoffs(knocker: CardSet, data: st.DataObject) -> None:
    """Big Gin: eleven melded cards, no layoffs, 31 + the defender's own least deadwood."""
    rest = sorted(set(range(52)) - {c.index for c in knocker})
    defender = CardSet(data.draw(st.permutations(rest))[:10])
    result = score_showdown(knocker, defender, Rules.preset("big_gin"))
    expected = brute.min_deadwood(to_brute(defender))
    assert (result.outcome, result.scorer) == ("big_gin", "knocker")
    assert result.layoffs == ()
    assert result.defender_deadwood == expected and result.points == 31 + expected
    assert sum(len(m) for m in result.knocker_melds) == 11


def test_contested_card_goes_where_it_helps() -> None:
    """9♠ fits both the knocker's set 9♣9♦9♥ and run 10-J-Q♠; only on the run can 8♠ follow.
    (A regression: the engine once put 9♠ on the set and missed 8♠.)"""
    knocker = CardSet("TS JS QS 9C 9D 9H 2C 3C 4D AD")
    defender = CardSet("9S 8S KD KH KC 5H 6H 7H 2D 3D")
    melds = best_arrangement(knocker).melds
    value, layoffs = best_layoffs(melds, defender)
    assert value == brute.defender_deadwood([to_brute(m) for m in melds], to_brute(defender)) == 5
    assert {str(lay.card) for lay in layoffs} == {"9S", "8S"}
