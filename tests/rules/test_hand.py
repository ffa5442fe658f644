"""One hand as a state machine (RULES.md §3): the deal, the upcard offer, turns, knock, Gin,
Big Gin, void hands, errors that leave the state untouched, and views/actions as JSON."""

from __future__ import annotations

import json
import pickle
import random
from typing import Any

import pytest
from rules_helpers import ALL_ACTIONS, rig_hand, rig_match, seed_with_upcard

from ginrummy import (
    ActionError,
    BigGin,
    Card,
    CardSet,
    Discard,
    Draw,
    Hand,
    IllegalActionError,
    Knock,
    Match,
    NotYourTurnError,
    Pass,
    PublicStep,
    Rules,
    View,
    ViewError,
    action_from_json,
    build_view,
    deal_order,
    min_deadwood,
    parse_action,
    parse_cards,
)


def c(text: str) -> Card:
    return Card.parse(text)


def snapshot(hand: Hand) -> dict[str, Any]:
    """Every field of a hand, copied, so a rejected action can be shown to change nothing."""
    state: dict[str, Any] = {}
    for name in Hand.__slots__:
        if name == "after_table":
            continue  # the turn's discard table is worked out by the first query; not game state
        value = getattr(hand, name)
        state[name] = list(value) if isinstance(value, list) else value
    return state


def rejected(
    hand: Hand, action: Any, match: str, seat: int | None = None, error: type[Exception] = IllegalActionError
) -> None:
    """`action` raises `error` with a message matching `match`, and nothing changes."""
    before = snapshot(hand)
    legal_before = hand.legal_actions()
    with pytest.raises(error, match=match):
        hand.apply(action, seat)
    assert snapshot(hand) == before
    assert hand.legal_actions() == legal_before


# A non-dealer who knocks easily: run 3-6♥ and four nines, deadwood 2♣ 2♦.
READY = "3H 4H 5H 6H 9S 9D 9C 9H 2C 2D"
OTHER = "KS KD KC 5S 6S 7S 8S TC 8D AD"


# -- the deal ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 12345, 2**62 + 7])
@pytest.mark.parametrize("dealer", [0, 1])
def test_deal_ten_each_non_dealer_first_upcard_and_31_stock(seed: int, dealer: int) -> None:
    hand = Hand(Rules(), seed, dealer)
    deck = deal_order(seed)
    assert sorted(deck) == list(range(52))
    non_dealer = 1 - dealer
    assert hand.hand_of(non_dealer) == CardSet(deck[0:20:2])  # first card to the non-dealer
    assert hand.hand_of(dealer) == CardSet(deck[1:20:2])
    assert hand.discard_pile == [deck[20]] and hand.upcard == deck[20]
    assert len(hand.stock) == hand.stock_count == 31
    assert sorted(hand.stock) == sorted(deck[21:])
    assert hand.stock[-1] == deck[21]  # the next card of the shuffled deck is drawn first
    assert (hand.phase, hand.to_act, hand.result) == ("offer", non_dealer, None)
    assert hand.cards_in_play() == 52
    assert Hand(Rules(), seed, dealer).hands == hand.hands  # the seed fixes the deal


def test_deal_order_is_documented_shuffle_of_index_order() -> None:
    import random

    deck = list(range(52))
    random.Random(99).shuffle(deck)
    assert deal_order(99) == deck


def test_bad_dealer_is_rejected() -> None:
    with pytest.raises(ValueError, match="dealer"):
        Hand(Rules(), 1, 2)


# -- the first upcard ----------------------------------------------------------------------


def test_offer_non_dealer_then_dealer_then_forced_stock_draw() -> None:
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH", stock_top=["JH"])
    assert hand.legal_actions() == [Draw("discard"), Pass()]
    rejected(hand, Draw("stock"), "first upcard QH is offered")
    rejected(hand, Discard(c("2C")), "first upcard QH is offered")
    rejected(hand, Pass(), "seat 1's turn, not seat 0's", seat=0, error=NotYourTurnError)
    hand.apply(Pass(), seat=1)
    assert (hand.phase, hand.to_act) == ("offer", 0)
    assert hand.legal_actions() == [Draw("discard"), Pass()]
    hand.apply(Pass(), seat=0)
    assert (hand.phase, hand.to_act) == ("draw", 1)
    assert hand.legal_actions() == [Draw("stock")]
    rejected(hand, Draw("discard"), "non-dealer must draw from the stock")
    hand.apply(Draw("stock"))
    assert c("JH") in hand.hand_of(1) and hand.stock_count == 30
    assert hand.discard_pile == [c("QH").index]
    hand.apply(Discard(c("JH")))  # a card drawn from the stock may go straight back
    assert (hand.phase, hand.to_act) == ("draw", 0)
    assert hand.legal_actions() == [Draw("stock"), Draw("discard")]


def test_dealer_takes_the_passed_upcard_then_the_non_dealer_plays() -> None:
    hand = rig_hand(dealer=1, non_dealer=READY, dealer_cards=OTHER, upcard="QH")
    hand.apply(Pass(), seat=0)
    hand.apply(Draw("discard"), seat=1)
    assert c("QH") in hand.hand_of(1) and hand.discard_pile == []
    assert hand.phase == "discard" and hand.to_act == 1
    hand.apply(Discard(c("AD")), seat=1)
    assert (hand.phase, hand.to_act) == ("draw", 0)
    assert hand.legal_actions() == [Draw("stock"), Draw("discard")]


def test_non_dealer_takes_the_upcard_then_the_dealer_plays() -> None:
    hand = rig_hand(dealer=1, non_dealer=READY, dealer_cards=OTHER, upcard="QH")
    hand.apply(Draw("discard"), seat=0)
    hand.apply(Discard(c("2C")), seat=0)
    assert (hand.phase, hand.to_act) == ("draw", 1)
    assert hand.stock_count == 31


# -- the card just taken -------------------------------------------------------------------


def test_card_just_taken_can_be_neither_discarded_nor_knocked_until_next_turn() -> None:
    hand = rig_hand(dealer=1, non_dealer=READY, dealer_cards=OTHER, upcard="KH", stock_top=["QD", "7H"])
    hand.apply(Draw("discard"))  # seat 0 takes K♥: knocking with it would leave 4
    legal = hand.legal_actions()
    assert Discard(c("KH")) not in legal and Knock(c("KH")) not in legal
    assert not any(isinstance(a, Knock) for a in legal)  # every other knock leaves K♥: 12+
    rejected(hand, Discard(c("KH")), "KH was just taken from the discard pile")
    rejected(hand, Knock(c("KH")), "KH was just taken from the discard pile")
    hand.apply(Discard(c("2C")))
    hand.apply(Draw("stock"))  # seat 1 draws Q♦
    hand.apply(Discard(c("QD")))
    hand.apply(Draw("stock"))  # seat 0 draws 7♥, extending the heart run
    legal = hand.legal_actions()
    assert Discard(c("KH")) in legal and Knock(c("KH")) in legal  # a turn later, it may go
    hand.apply(Knock(c("KH")))
    assert hand.result is not None and hand.result.showdown is not None
    assert hand.result.showdown.knocker_deadwood == 2


def test_card_taken_and_stock_draw_rule_only_binds_the_discard_pile() -> None:
    hand = rig_hand(dealer=1, non_dealer=READY, dealer_cards=OTHER, upcard="KH", stock_top=["QD"])
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    assert Discard(c("QD")) in hand.legal_actions()


# -- knock, Gin, Big Gin -------------------------------------------------------------------


def test_knock_ends_the_hand_face_down() -> None:
    hand = rig_hand(dealer=1, non_dealer=READY, dealer_cards=OTHER, upcard="KH")
    hand.apply(Draw("discard"))
    knocks = {a.card for a in hand.legal_actions() if isinstance(a, Knock)}
    assert knocks == set()
    hand = rig_hand(dealer=1, non_dealer=READY, dealer_cards=OTHER, upcard="KH", stock_top=["7H"])
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    knocks = {str(a.card) for a in hand.legal_actions() if isinstance(a, Knock)}
    # 3♥ or 4♥ leave part of the run 3-7♥; any nine leaves a set of three.
    assert knocks == {"2C", "2D", "3H", "4H", "7H", "9S", "9D", "9C", "9H"}
    rejected(
        hand,
        Knock(c("5H")),
        "cannot knock by discarding 5H: 24 deadwood would remain and the knock limit is 10",
    )
    rejected(hand, Knock(c("KS")), "KS is not in your hand")
    hand.apply(Knock(c("2D")))
    assert hand.phase == "over" and hand.knock_card == c("2D").index
    assert c("2D") not in hand.hand_of(0) and c("2D").index not in hand.discard_pile
    assert hand.discard_pile == [c("KH").index]
    assert hand.cards_in_play() == 52
    result = hand.result
    assert result is not None and (result.outcome, result.knocker, result.scorer) == ("knock", 0, 0)
    assert result.points == 19 - 2
    assert hand.legal_actions() == []
    rejected(hand, Discard(c("2C")), "the hand is over")


def test_gin_scores_bonus_plus_deadwood() -> None:
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH", stock_top=["2H"])
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))  # 2♥ joins the heart run: 2-6♥, nines, 2♣ 2♦ dead
    assert Knock(c("2C")) in hand.legal_actions()
    hand = rig_hand(
        dealer=0,
        non_dealer="3H 4H 5H 6H 9S 9D 9C AC 2C 7D",
        dealer_cards=OTHER,
        upcard="QH",
        stock_top=["3C"],
    )
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    hand.apply(Knock(c("7D")))
    result = hand.result
    assert result is not None and (result.outcome, result.scorer, result.points) == ("gin", 1, 25 + 19)


GIN_TEN = "3H 4H 5H 6H 9S 9D 9C AC 2C 3C"  # already Gin; 4♣ from the stock makes eleven melded


@pytest.mark.parametrize("preset", ["classic", "hoyle", "oklahoma"])
def test_big_gin_is_refused_unless_the_variant_is_played(preset: str) -> None:
    rules = Rules.preset(preset)
    taken = (parse_cards(GIN_TEN) | parse_cards(OTHER) | c("4C")).mask
    seed = seed_with_upcard(lambda i: not taken >> i & 1)  # Oklahoma keeps the seed's upcard
    hand = rig_hand(rules, dealer=0, non_dealer=GIN_TEN, dealer_cards=OTHER, stock_top=["4C"], seed=seed)
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    assert BigGin() not in hand.legal_actions()
    assert Knock(c("4C")) in hand.legal_actions()  # Gin by knocking is the way out
    rejected(hand, BigGin(), "Big Gin is not played under these rules")


def test_big_gin_when_played() -> None:
    rules = Rules.preset("big_gin")
    hand = rig_hand(rules, dealer=0, non_dealer=GIN_TEN, dealer_cards=OTHER, upcard="QH", stock_top=["7D"])
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))  # 7♦ is deadwood: no Big Gin, but Gin by knocking it
    assert BigGin() not in hand.legal_actions()
    rejected(hand, BigGin(), "Big Gin needs all eleven cards melded; 7 deadwood remains")
    hand = rig_hand(rules, dealer=0, non_dealer=GIN_TEN, dealer_cards=OTHER, upcard="QH", stock_top=["4C"])
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    legal = hand.legal_actions()
    assert legal[-1] == BigGin() and Knock(c("4C")) in legal  # Gin by knocking is still allowed
    hand.apply(BigGin())
    result = hand.result
    assert result is not None and (result.outcome, result.scorer, result.knocker) == ("big_gin", 1, 1)
    assert result.points == 31 + min_deadwood(parse_cards(OTHER)) == 31 + 19
    assert len(hand.hand_of(1)) == 11 and hand.knock_card is None and hand.cards_in_play() == 52


def test_big_gin_after_taking_the_discard() -> None:
    hand = rig_hand(
        Rules.preset("big_gin"),
        dealer=0,
        non_dealer="3H 4H 5H 6H 9S 9D 9C AC 2C 3C",
        dealer_cards=OTHER,
        upcard="4C",
    )
    hand.apply(Draw("discard"))
    assert BigGin() in hand.legal_actions()
    hand.apply(BigGin())
    assert hand.result is not None and hand.result.outcome == "big_gin"


# -- the void hand -------------------------------------------------------------------------


def test_void_hand_at_two_stock_cards_not_before() -> None:
    hand = rig_hand(
        dealer=0, non_dealer=OTHER, dealer_cards=READY.replace("2C 2D", "JC QS"), upcard="QH", stock_size=4
    )
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))  # 3 left
    hand.apply(Discard(c("KS")))
    assert (hand.phase, hand.stock_count, hand.result) == ("draw", 3, None)
    hand.apply(Draw("stock"))  # 2 left: the next discard without a knock voids the hand
    hand.apply(Discard(hand.legal_actions()[0].card))  # type: ignore[union-attr]
    result = hand.result
    assert hand.phase == "over" and result is not None
    assert (result.outcome, result.scorer, result.points, result.knocker) == ("void", None, 0, None)
    assert hand.legal_actions() == []


def test_knock_is_still_allowed_with_two_stock_cards() -> None:
    hand = rig_hand(
        dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH", stock_top=["7H"], stock_size=3
    )
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))  # the third-to-last card: 2 left
    assert hand.stock_count == 2
    hand.apply(Knock(c("2C")))
    assert hand.result is not None and hand.result.outcome == "knock"


def test_taking_the_discard_does_not_run_the_stock_down() -> None:
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH", stock_size=3)
    hand.apply(Draw("discard"))
    hand.apply(Discard(c("2C")))  # the stock still holds 3: play goes on
    assert (hand.phase, hand.to_act, hand.stock_count) == ("draw", 0, 3)
    hand.apply(Draw("stock"))
    hand.apply(Discard(c("KS")))  # 2 left after a plain discard: void
    assert hand.result is not None and hand.result.outcome == "void"


# -- whose turn, errors --------------------------------------------------------------------


def test_not_your_turn_in_every_phase() -> None:
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH")
    for action in [Pass(), Draw("discard")]:
        rejected(hand, action, "it is seat 1's turn, not seat 0's", seat=0, error=NotYourTurnError)
    hand.apply(Draw("discard"), seat=1)
    rejected(hand, Discard(c("KS")), "it is seat 1's turn", seat=0, error=NotYourTurnError)
    hand.apply(Discard(c("2C")), seat=1)
    rejected(hand, Draw("stock"), "it is seat 0's turn, not seat 1's", seat=1, error=NotYourTurnError)
    assert issubclass(NotYourTurnError, IllegalActionError)


def test_wrong_phase_errors_say_what_is_allowed() -> None:
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH")
    hand.apply(Pass())
    hand.apply(Draw("discard"))
    rejected(hand, Draw("stock"), "discard a card or knock")
    rejected(hand, Pass(), "discard a card or knock")
    hand.apply(Discard(c("KS")))
    rejected(hand, Discard(c("2C")), "draw from the stock or the discard pile")
    rejected(hand, Knock(c("2C")), "draw from the stock or the discard pile")
    rejected(hand, Pass(), "draw from the stock or the discard pile")
    rejected(hand, BigGin(), "draw from the stock or the discard pile")


def test_every_illegal_action_is_refused_without_change() -> None:
    """For a few states, every action of the universe the checker refuses leaves the hand
    as it was, and exactly the legal ones pass the checker."""
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="KH", stock_top=["7H"])
    script = [Pass(), Pass(), Draw("stock"), Discard(c("7H")), Draw("discard")]
    for step in [*script, None]:
        legal = hand.legal_actions()
        assert len(set(legal)) == len(legal)
        for action in ALL_ACTIONS:
            assert hand.is_legal(action) == (action in legal), action
            if action not in legal:
                before = snapshot(hand)
                with pytest.raises(IllegalActionError):
                    hand.apply(action)
                assert snapshot(hand) == before
        if step is not None:
            hand.apply(step)


def test_copy_is_independent() -> None:
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="KH")
    twin = hand.copy()
    twin.apply(Draw("discard"))
    twin.apply(Discard(c("2C")))
    assert snapshot(hand) == snapshot(rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="KH"))
    assert hand.phase == "offer" and len(twin.steps) == 2


# -- views and actions as JSON -------------------------------------------------------------


def test_views_during_a_hand_show_only_what_each_seat_saw() -> None:
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="KH", stock_top=["QD", "7H"])
    match = rig_match(None, hand)
    match.apply(Draw("discard"))  # seat 1 takes K♥ in the open
    match.apply(Discard(c("2C")))
    match.apply(Draw("stock"))  # seat 0 draws Q♦ in secret
    view1, view0 = match.view(1), match.view(0)
    assert view1.opponent_known == CardSet() and view0.opponent_known == parse_cards("KH")
    assert view0.hand == parse_cards(OTHER) | c("QD") and view0.legal and not view1.legal
    assert view1.history[-1] == PublicStep(0, "draw", "stock")
    assert view0.history[-1] == PublicStep(0, "draw", "stock", c("QD"))
    assert view1.history[0] == PublicStep(1, "draw", "discard", c("KH"))
    assert view1.history[-1].to_json() == {"seat": 0, "action": {"type": "draw", "source": "stock"}}
    assert view0.history[-1].to_json() == {
        "seat": 0,
        "action": {"type": "draw", "source": "stock"},
        "card": "QD",
    }
    assert "QD" not in json.dumps(view1.to_json())
    assert (view0.phase, view0.stock_count, view0.upcard) == ("discard", 30, c("2C"))
    match.apply(Discard(c("QD")))
    match.apply(Draw("stock"))  # seat 1 draws 7♥
    match.apply(Knock(c("KH")))
    finished = match.hand_view(0, 1)
    assert finished.phase == "over" and finished.showdown is not None
    assert finished.showdown.knock_card == c("KH")
    assert finished.history[-1].to_json()["action"] == {"type": "knock", "card": "KH"}


def test_opponent_knock_card_is_hidden_until_the_showdown() -> None:
    """A knock ends the hand at once, so no view shows a knock before the showdown; the
    face-down card is named in the showdown."""
    hand = rig_hand(dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH", stock_top=["7H"])
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    hand.apply(Knock(c("2D")))
    view = build_view(hand, 0, hand_number=1, scores=(0, 0))
    assert view.phase == "over" and view.showdown is not None and view.showdown.knock_card == c("2D")
    assert view.showdown.to_json()["knock_card"] == "2D"


def test_view_json_round_trip() -> None:
    hand = rig_hand(
        Rules.preset("hoyle"), dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="KH", stock_top=["7H"]
    )
    match = rig_match(Rules.preset("hoyle"), hand)
    script = [Draw("discard"), Discard(c("2C")), Draw("stock"), Discard(c("7H")), Draw("stock")]
    for action in [*script, None]:
        for seat in (0, 1):
            view = match.view(seat)
            data = view.to_json()
            assert View.from_json(data) == view
            assert View.from_json(json.dumps(data)) == view
            assert View.from_json(view.dumps()) == view
            assert json.loads(json.dumps(data)) == data  # plain JSON types only
            assert set(data) == {
                "seat",
                "dealer",
                "hand_number",
                "scores",
                "rules",
                "knock_limit",
                "phase",
                "hand",
                "discard_pile",
                "stock_count",
                "opponent_known",
                "history",
                "legal",
                "showdown",
            }
        if action is not None:
            match.apply(action)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("not json", "not valid JSON"),
        ([], "must be a JSON object"),
        ({"seat": 0}, "missing the field"),
    ],
)
def test_bad_view_json(data: Any, message: str) -> None:
    with pytest.raises(ViewError, match=message):
        View.from_json(data)


def test_bad_view_fields_are_named() -> None:
    view = rig_match(None, rig_hand(non_dealer=READY, dealer_cards=OTHER, upcard="KH")).view(0)
    data = view.to_json()
    for key, value, message in [
        ("phase", "bidding", "unknown phase 'bidding'"),
        ("hand", ["AS", "ZZ"], "'ZZ'"),
        ("legal", [{"type": "fold"}], "unknown action type 'fold'"),
        ("scores", [1], "scores must be a list of two"),
    ]:
        with pytest.raises(ViewError, match=message):
            View.from_json({**data, key: value})


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"seat": True, "action": {"type": "pass"}}, "seat must be 0 or 1, got True"),
        ({"seat": 1.0, "action": {"type": "pass"}}, "seat must be 0 or 1, got 1.0"),
        ({"seat": 2, "action": {"type": "pass"}}, "seat must be 0 or 1, got 2"),
        ({"seat": 0, "action": {"type": "draw", "source": "discard"}}, "needs its card"),
        ({"seat": 0, "action": {"type": "draw", "source": "deck"}}, "source must be"),
        ({"seat": 0, "action": {"type": "discard"}}, "discard in the history needs its card"),
        ({"seat": 0, "action": {"type": "discard", "card": "ZZ"}}, "'ZZ'"),
        ({"seat": 0, "action": {"type": "fold"}}, "unknown history action 'fold'"),
        ({"seat": 0, "action": {"type": ["draw"]}}, "unknown history action"),
        ({"seat": 0, "action": "pass"}, "must be an object with an action"),
    ],
)
def test_bad_history_entries_are_named(entry: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PublicStep.from_json(entry)
    view = rig_match(None, rig_hand(non_dealer=READY, dealer_cards=OTHER, upcard="KH")).view(0)
    with pytest.raises(ViewError, match=message):
        View.from_json({**view.to_json(), "history": [entry]})


def test_history_steps_are_shared_values() -> None:
    """Every step the rules engine writes reads back as the very same value; no entry is shared."""
    kh = c("KH")
    steps = [
        PublicStep(0, "pass"),
        PublicStep(1, "big_gin"),
        PublicStep(0, "draw", "stock"),
        PublicStep(1, "draw", "stock", kh),
        PublicStep(0, "draw", "discard", kh),
        PublicStep(1, "discard", None, kh),
        PublicStep(0, "knock", None, kh),
        PublicStep(1, "knock"),
    ]
    for step in steps:
        data = step.to_json()
        assert PublicStep.from_json(data) is step
        assert PublicStep.from_json(json.loads(json.dumps(data))) is step
        assert pickle.loads(pickle.dumps(step)) is step
        data["seat"] = 9
        assert step.to_json()["seat"] == step.seat
    with pytest.raises(ValueError, match="no such history step"):
        PublicStep(0, "discard")
    with pytest.raises(AttributeError):
        steps[0].seat = 1  # type: ignore[misc]


def test_every_action_round_trips_through_json() -> None:
    for action in ALL_ACTIONS:
        data = action.to_json()
        assert action_from_json(data) == action
        assert action_from_json(json.dumps(data)) == action
        assert parse_action(str(action)) == action
    assert action_from_json({"type": "knock", "card": "10h"}) == Knock(c("TH"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ('{"type": ', "not valid JSON"),
        ([1, 2], "must be a JSON object"),
        ({"type": "fold"}, "unknown action type 'fold'"),
        ({}, "unknown action type None"),
        ({"type": "draw", "source": "deck"}, "draw source must be 'stock' or 'discard', got 'deck'"),
        ({"type": "discard"}, "needs a 'card'"),
        ({"type": "knock", "card": "ZZ"}, "'ZZ' is not a card"),
    ],
)
def test_bad_action_json(data: Any, message: str) -> None:
    with pytest.raises(ActionError, match=message):
        action_from_json(data)


def test_parse_action_short_forms_and_errors() -> None:
    assert parse_action("stock") == Draw("stock") and parse_action("upcard") == Draw("discard")
    assert parse_action("d 7h") == Discard(c("7H")) and parse_action("7h") == Discard(c("7H"))
    assert parse_action("gin 2c") == Knock(c("2C")) and parse_action("big gin") == BigGin()
    with pytest.raises(ActionError, match="empty"):
        parse_action("  ")
    with pytest.raises(ActionError, match="cannot read 'fold'"):
        parse_action("fold")
    with pytest.raises(ActionError, match="'zz' is not a card"):
        parse_action("discard zz")
    with pytest.raises(ActionError, match="'deck'"):
        Draw("deck")  # type: ignore[arg-type]


@pytest.mark.parametrize("preset", [n for n in Rules.preset_names() if Rules.preset(n).game == "gin"])
@pytest.mark.parametrize("seed", range(3))
def test_legal_masks_allow_exactly_what_the_checker_allows(preset: str, seed: int) -> None:
    """`Hand.legal_masks` (flags and card masks) against `check` for every action, whole matches."""
    rules = Rules.preset(preset).replace(target=40)
    match = Match(rules, seed=seed)
    rng = random.Random(seed)
    # Uniform random play is mostly void hands; 1,500 steps still cross many deals and endings.
    for _ in range(1_500):
        if match.is_over:
            break
        hand = match.hands[-1]
        legal = hand.legal_masks()
        allowed = {
            Pass: legal.pass_upcard,
            BigGin: legal.big_gin,
        }
        for action in ALL_ACTIONS:
            if isinstance(action, Draw):
                expected = legal.draw_stock if action.source == "stock" else legal.take_upcard
            elif isinstance(action, (Discard, Knock)):
                cards = legal.discards if isinstance(action, Discard) else legal.knocks
                expected = bool(cards >> action.card.index & 1)
            else:
                expected = allowed[type(action)]
            assert hand.is_legal(action) == expected, (action, legal)
        match.apply(rng.choice(match.legal_actions()))


def test_the_turns_discard_table_is_the_views_and_gives_the_knocks() -> None:
    # The referee works out the deadwood each discard leaves once a turn; the player's view
    # carries that table, a view read back from JSON works it out alike, and the legal
    # knocks are exactly the discards it allows.
    from ginrummy.rules import Knock, View, new_match

    match = new_match("classic", seed=21)
    rng = random.Random(4)
    checked = 0
    while not match.is_over and checked < 200:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        if view.phase == "discard":
            table = view.after_discards
            assert table == View.from_json(view.to_json()).after_discards
            taken = view.history[-1].card if view.history[-1].source == "discard" else None
            knocks = {a.card.index for a in view.legal if isinstance(a, Knock)}
            allowed = {c for c, d in table if d <= view.knock_limit and (taken is None or c != taken.index)}
            assert knocks == allowed
            checked += 1
        match.apply(rng.choice(view.legal), seat)
    assert checked > 50


def test_the_deal_is_pythons_own_shuffle_of_the_deck() -> None:
    """`deal_order` promises `random.Random(seed).shuffle`, which anyone can rerun to check a deal."""
    from ginrummy.rules.hand import shuffled_deck

    for seed in [0, 1, 2**63 - 1, 2**256 - 1, *range(12345, 12345 + 300)]:
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        assert deal_order(seed) == deck
        rng, twin = random.Random(seed), random.Random(seed)
        twin.shuffle(deck := list(range(52)))
        assert shuffled_deck(rng) == deck and rng.random() == twin.random()  # the same draws used
