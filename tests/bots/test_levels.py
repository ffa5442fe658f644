"""Each level plays the way docs/bots.md says: knock timing, discards, upcards, card tracking."""

from __future__ import annotations

from bot_helpers import hand_view
from hypothesis import given
from hypothesis import strategies as st

from ginrummy.bots import make_player
from ginrummy.bots.expert import SteadyPlayer
from ginrummy.bots.knowledge import (
    Knowledge,
    discard_danger,
    expected_deadwood,
    meld_draw_count,
    opponent_probabilities,
    partial_melds,
    track,
)
from ginrummy.bots.levels import AdvancedPlayer, SkilledPlayer
from ginrummy.rules import (
    Card,
    CardSet,
    Discard,
    Draw,
    Hand,
    Knock,
    Rules,
    View,
    build_view,
    new_match,
    parse_cards,
)
from ginrummy.rules.masks import FULL_DECK


def _discard_view(cards: str) -> View:
    h = Hand(Rules(), 1, dealer=1)
    h.hands[0] = parse_cards(cards).mask
    h.hands[1] = 0
    h.to_act = 0
    h.phase = "discard"
    return build_view(h, 0, hand_number=1, scores=(0, 0))


def _knowledge(hand: str, *, my_draws: int = 0, unseen: int | None = None, opp_taken: str = "") -> Knowledge:
    mask = parse_cards(hand).mask
    taken = parse_cards(opp_taken).mask if opp_taken else 0
    return Knowledge(
        seat=0,
        phase="discard",
        hand=mask,
        upcard=-1,
        dead=0,
        stock_count=31 - 2 * my_draws,
        knock_limit=10,
        opp_known=taken,
        opp_taken=taken,
        my_draws=my_draws,
        opp_draws=my_draws,
        unseen=(FULL_DECK & ~mask & ~taken) if unseen is None else unseen,
    )


def test_novice_ignores_points_when_discarding() -> None:
    # Lone cards: a king, a queen and an ace. Casual throws a ten-pointer; the novice
    # counts only partners, so it may throw the ace.
    view = _discard_view("2C 3C 4C 6D 7D 8D KS AH 9H 9S QC")
    casual = {str(make_player("casual", seed=s).act(view)) for s in range(10)}
    novice = {str(make_player("novice", seed=s).act(view)) for s in range(20)}
    assert casual <= {"discard KS", "discard QC"}
    assert "discard AH" in novice and novice <= {"discard AH", "discard KS", "discard QC"}


def test_casual_knocks_at_the_first_chance_and_novice_waits_for_five() -> None:
    view = _discard_view("AC 2C 3C 5D 6D 7D 9H 9S 9C 8H KS")  # throw KS: 8 deadwood
    assert isinstance(make_player("casual", seed=1).act(view), Knock)
    assert isinstance(make_player("novice", seed=1).act(view), Discard)
    view = _discard_view("AC 2C 3C 5D 6D 7D 9H 9S 9C 4H KS")  # throw KS: 4 deadwood
    assert isinstance(make_player("novice", seed=1).act(view), Knock)


def test_casual_keeps_two_card_draws_among_equal_deadwood() -> None:
    # Throwing KS or QH leaves the same deadwood, but QH JH is a two-card draw: keep it.
    view = _discard_view("2C 3C 4C 6D 7D 8D QH JH KS 4S AS")
    assert make_player("casual", seed=1).act(view) == Discard(Card.parse("KS"))


def test_skilled_knocks_at_the_first_chance_and_advanced_tightens_after_four_turns() -> None:
    skilled, advanced = SkilledPlayer(seed=1), AdvancedPlayer(seed=1)
    for turn in (1, 4, 5, 12):
        assert skilled.knock_allowance(_knowledge("AC", my_draws=turn)) == 10
    assert advanced.knock_allowance(_knowledge("AC", my_draws=2)) == 10
    assert advanced.knock_allowance(_knowledge("AC", my_draws=4)) == 10
    assert advanced.knock_allowance(_knowledge("AC", my_draws=5)) == 3
    assert advanced.knock_allowance(_knowledge("AC", my_draws=12)) == 3
    # A late hand with 4 deadwood: skilled knocks, advanced plays on.
    view = _discard_view("AC 2C 3C 5D 6D 7D 9H 9S 9C 4H KS")
    k = track(view)
    k.my_draws = 7
    probs = opponent_probabilities(k)
    options = {Card.parse("KS").index: 4}
    assert skilled.judge_knock(view, k, probs, options) is not None
    assert advanced.judge_knock(view, k, probs, options) is None
    assert advanced.judge_knock(view, k, probs, {Card.parse("KS").index: 3}) is not None


def test_the_experts_opening_game_knocks_early_cashes_in_high_hands_then_plays_for_gin() -> None:
    player = SteadyPlayer(seed=1)
    view = _discard_view("AC 2C 3C 5D 6D 7D 9H 9S 9C 8H KS")
    k = track(view)
    probs = opponent_probabilities(k)
    hand = view.hand.mask
    eight = {Card.parse("KS").index: 8, Card.parse("8H").index: 10}
    two = {Card.parse("KS").index: 2}

    def knocks(turn: int, options: dict[int, int]) -> bool:
        k.my_draws = turn
        return player.judge_knock(view, k, probs, options) is not None

    assert knocks(3, eight) and knocks(3, two)  # early: any knock
    assert knocks(6, eight) and not knocks(6, two)  # 8 cannot undercut: take the points; 2 plays on
    assert not knocks(8, eight) and not knocks(8, two)  # late: Gin only
    assert hand == view.hand.mask


def test_casual_grabs_an_upcard_that_goes_with_a_loose_card_and_skilled_does_not() -> None:
    # 9C melds with nothing but sits next to the loose JC (same suit, two apart).
    view = hand_view("7H 8H 2C 3C 4C 6D 7D 8D JC KS", "9C")
    assert make_player("casual", seed=1).act(view) == Draw("discard")
    assert make_player("skilled", seed=1).act(view) == Draw("stock")
    # A card next to nothing loose is left alone.
    view = hand_view("7H 8H 2C 3C 4C 6D 7D 8D JC KS", "5S")
    assert make_player("casual", seed=1).act(view) == Draw("stock")


def test_advanced_always_takes_gin() -> None:
    view = _discard_view("AC 2C 3C 4C 5D 6D 7D 9H 9S 9C KS")
    action = make_player("advanced", seed=1).act(view)
    assert action == Knock(Card.parse("KS"))


def test_tracking_counts_only_live_outs() -> None:
    # 7H 8H: outs 6H and 9H. With both outs dead the draw is worth nothing.
    hand = parse_cards("7H 8H 2C 3C 4C JD QS KC 5S AD").mask
    live = _knowledge("7H 8H 2C 3C 4C JD QS KC 5S AD")
    dead_outs = _knowledge("7H 8H 2C 3C 4C JD QS KC 5S AD", unseen=live.unseen & ~parse_cards("6H 9H").mask)
    probs = [0.3] * 52
    assert expected_deadwood(hand, live, probs) < expected_deadwood(hand, dead_outs, probs)
    assert expected_deadwood(hand, dead_outs, probs) == 7 + 8 + 10 + 10 + 10 + 5 + 1


def test_inference_makes_cards_near_the_opponents_pickups_dangerous() -> None:
    k = _knowledge("2C 3C 4C 6D 7D 8D KS QS AH 9S", opp_taken="7H 8C")
    probs = opponent_probabilities(k)
    plain = opponent_probabilities(k, inference=False)
    seven_c, six_h = Card.parse("7C").index, Card.parse("6H").index
    assert probs[seven_c] > plain[seven_c] and probs[six_h] > plain[six_h]
    assert probs[Card.parse("7H").index] == 1.0
    # 8H melds with 7H (held) and 9H / 6H: far more dangerous than a lone KD.
    assert discard_danger(Card.parse("8H").index, probs) > 3 * discard_danger(Card.parse("KD").index, probs)
    assert abs(sum(probs) - 10) < 0.6


def test_track_reads_refusals_and_pickups_from_the_history() -> None:
    match = new_match(seed=3)
    first = match.to_act
    assert first is not None
    upcard = match.hand.discard_pile[-1]
    match.apply(match.legal_actions()[1])  # the non-dealer passes the first upcard
    view = match.view(1 - first)
    k = track(view)
    assert k.opp_refused == 1 << upcard
    assert k.unseen & view.hand.mask == 0 and k.unseen >> upcard & 1 == 0
    assert k.unseen.bit_count() == 52 - 10 - 1


def test_advanced_takes_a_low_upcard_only_when_it_beats_the_stock() -> None:
    # AS melds with nothing but swaps for a king: far better than an average stock card.
    view = hand_view("7H 8H 2C 3C 4C 6D 7D 8D KS KC", "AS")
    assert make_player("advanced", seed=1).act(view) == Draw("discard")
    assert make_player("skilled", seed=1).act(view) == Draw("stock")


@given(st.sets(st.integers(0, 51), max_size=52), st.integers(0, (1 << 52) - 1))
def test_meld_draws_counted_by_bits_are_the_listed_ones(cards: set[int], live: int) -> None:
    """The count casual's discards are weighed by is the number of draws `partial_melds` lists,
    whatever cards are live (outs do not change how many draws there are)."""
    hand = sum(1 << c for c in cards)
    assert meld_draw_count(hand) == len(partial_melds(hand, FULL_DECK)) == len(partial_melds(hand, live))


def test_meld_draws_of_a_hand() -> None:
    # 5H 6H, 8S 9S and 9S TS one rank apart, KC KD a pair; 8S TS are not two apart with the middle
    # missing (9S is held), and 2C goes with nothing.
    hand = parse_cards("5H 6H 8S 9S TS KC KD 2C").mask
    listed = {str(CardSet.from_mask(m)) for m, _ in partial_melds(hand, FULL_DECK)}
    assert listed == {"5H 6H", "8S 9S", "9S TS", "KC KD"}
    assert meld_draw_count(hand) == 4
    assert meld_draw_count(parse_cards("3D 5D 7D").mask) == 2  # two gaps, each missing its middle
