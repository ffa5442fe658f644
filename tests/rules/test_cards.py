"""Cards and CardSet (RULES.md §1): a 52-bit set that behaves like a Python set, and the notation."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ginrummy import Card, CardError, CardSet, card_points, parse_card, parse_cards
from ginrummy.rules.cards import CARDS

RANKS = "A23456789TJQK"
SUITS = "CDHS"
ALL_TEXT = [r + s for s in SUITS for r in RANKS]  # index order: clubs A-K, diamonds, hearts, spades

card_texts = st.sampled_from(ALL_TEXT)
text_sets = st.frozensets(card_texts, max_size=52)


def cs(texts: frozenset[str] | set[str]) -> CardSet:
    return CardSet(sorted(texts))


# -- Card --------------------------------------------------------------------------------


def test_card_index_rank_suit_and_text() -> None:
    for index, text in enumerate(ALL_TEXT):
        card = Card(index)
        assert card.index == index
        assert (card.rank, card.suit) == (RANKS.index(text[0]), SUITS.index(text[1]))
        assert str(card) == text
        assert Card.parse(text) is card
        assert Card.from_rank_suit(card.rank, card.suit) is card
        assert card.points == card_points(text) == min(RANKS.index(text[0]) + 1, 10)


def test_card_parse_is_case_insensitive_and_accepts_10() -> None:
    assert parse_card("td") is parse_card("10D") is parse_card("10d") is parse_card(" TD ")
    assert parse_card("as") is Card(39)


def test_card_repr_round_trips() -> None:
    for card in CARDS:
        assert eval(repr(card), {"Card": Card}) is card
        assert pickle.loads(pickle.dumps(card)) is card


def test_card_is_immutable_and_hashable() -> None:
    card = Card.parse("7H")
    with pytest.raises(AttributeError):
        card.rank = 3  # type: ignore[misc]
    assert len({Card.parse("7H"), Card.parse("7h"), Card(32)}) == 1
    assert Card.parse("2C") < Card.parse("AD")  # index order


@pytest.mark.parametrize("bad", ["", "1S", "11H", "ZZ", "AX", "A", "ASS", "10", "♠A", "K S"])
def test_parse_card_error_names_the_token(bad: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(bad)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("bad", [52, -1, 3.0, "AS", None])
def test_card_index_out_of_range(bad: object) -> None:
    with pytest.raises(CardError):
        Card(bad)  # type: ignore[arg-type]


def test_from_rank_suit_out_of_range() -> None:
    with pytest.raises(CardError, match="rank 13"):
        Card.from_rank_suit(13, 0)
    with pytest.raises(CardError, match="suit 4"):
        Card.from_rank_suit(0, 4)


# -- parse_cards -------------------------------------------------------------------------


def test_parse_cards_examples() -> None:
    assert str(parse_cards("4H 5H 10h")) == "4H 5H TH"
    assert parse_cards("4h,5H , TH") == parse_cards(["4H", "5h", "th"])
    assert len(parse_cards("")) == 0


def test_parse_cards_bad_token_is_named() -> None:
    with pytest.raises(CardError, match="'XQ'"):
        parse_cards("4H XQ 5H")


def test_parse_cards_duplicate_is_named() -> None:
    with pytest.raises(CardError, match="duplicate card TH"):
        parse_cards("4H TH 5H 10h")
    assert parse_cards("TH 10h", allow_duplicates=True) == parse_cards("TH")


# -- CardSet behaves like a frozenset of cards --------------------------------------------


@settings(max_examples=150, deadline=None)
@given(a=text_sets, b=text_sets, probe=card_texts)
def test_cardset_matches_python_sets(a: frozenset[str], b: frozenset[str], probe: str) -> None:
    x, y = cs(a), cs(b)
    assert len(x) == len(a) and bool(x) == bool(a)
    assert (Card.parse(probe) in x) == (probe in a) == (probe in x)
    for op in ("__or__", "__and__", "__sub__", "__xor__"):
        expected = getattr(a, op)(b)
        assert {str(c) for c in getattr(x, op)(y)} == expected, op
    assert (x <= y) == (a <= b) and (x < y) == (a < b)
    assert (x >= y) == (a >= b) and (x > y) == (a > b)
    assert x.isdisjoint(y) == a.isdisjoint(b)
    assert (x == y) == (a == b)
    if a == b:
        assert hash(x) == hash(y)
    assert x == {Card.parse(t) for t in a}
    # Iteration is in index order (clubs A-K, diamonds, hearts, spades), stable.
    order = [str(c) for c in x]
    assert order == sorted(a, key=ALL_TEXT.index) == [str(c) for c in x]
    # str is the rule-book notation, repr pastes back.
    assert str(x) == " ".join(order)
    assert eval(repr(x), {"CardSet": CardSet}) == x
    assert CardSet.from_mask(x.mask) == x == CardSet(x.mask) == parse_cards(str(x))
    assert pickle.loads(pickle.dumps(x)) == x
    assert x.to_json() == order
    assert x.points == sum(min(ALL_TEXT.index(t) % 13 + 1, 10) for t in a)


@settings(max_examples=50, deadline=None)
@given(a=text_sets, card=card_texts)
def test_cardset_add_remove_return_new_sets(a: frozenset[str], card: str) -> None:
    x = cs(a)
    added = x.add(card)
    assert {str(c) for c in added} == a | {card} and {str(c) for c in x} == a
    if card in a:
        assert {str(c) for c in x.remove(card)} == a - {card}
    else:
        with pytest.raises(CardError, match=card):
            x.remove(card)


def test_cardset_mask_bits_are_card_indices() -> None:
    assert CardSet("AC").mask == 1 and CardSet("KS").mask == 1 << 51
    assert CardSet.full_deck().mask == (1 << 52) - 1 and len(CardSet.full_deck()) == 52
    assert [c.index for c in CardSet.full_deck()] == list(range(52))


def test_cardset_is_immutable() -> None:
    x = parse_cards("AS 2S")
    with pytest.raises(AttributeError):
        x.mask = 0  # type: ignore[misc]


def test_cardset_combines_with_single_cards_and_builtin_sets() -> None:
    x = parse_cards("AS 2S")
    assert x | Card.parse("3S") == parse_cards("AS 2S 3S")
    assert x - Card.parse("AS") == parse_cards("2S")
    assert x & {Card.parse("2S"), Card.parse("KD")} == parse_cards("2S")
    with pytest.raises(TypeError):
        x | 5  # noqa: B018


def test_cardset_rejects_bad_masks_and_cards() -> None:
    with pytest.raises(CardError):
        CardSet(1 << 52)
    with pytest.raises(CardError):
        CardSet(-1)
    with pytest.raises(CardError, match="'ZZ'"):
        CardSet(["AS", "ZZ"])
    assert "ZZ" not in parse_cards("AS")
