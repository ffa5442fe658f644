"""Every worked example of RULES.md and of the seed documents (seeds/000-003), one named test each.

Seed 000 is the how-to guide, 001 the online site's rules page, 003 the guide with the
An/Bình sample hand. Each test builds concrete hands that realise the example and checks
the engine's showdown: outcome, scorer, points, deadwood counts and layoffs.
"""

from __future__ import annotations

import random

import pytest
from rules_helpers import greedy_policy, play, rig_hand, rig_match

from ginrummy import (
    CardSet,
    Discard,
    Draw,
    IllegalActionError,
    Match,
    Pass,
    Rules,
    Showdown,
    ShowdownError,
    best_arrangement,
    best_layoffs,
    deadwood_points,
    is_meld,
    min_deadwood,
    parse_cards,
    score_showdown,
)
from ginrummy.rules.cards import Card


def showdown(knocker: str, defender: str, rules: Rules | None = None) -> Showdown:
    """Score a showdown and check what every showdown must satisfy, whatever the example."""
    k, d = parse_cards(knocker), parse_cards(defender)
    assert len(k) == 10 and len(d) == 10 and k.isdisjoint(d)
    result = score_showdown(k, d, rules)
    # The knocker's melds and deadwood account for every knocker card exactly once.
    covered = CardSet()
    for meld in result.knocker_melds:
        assert is_meld(meld) and covered.isdisjoint(meld)
        covered |= meld
    assert covered | result.knocker_deadwood_cards == k
    assert covered.isdisjoint(result.knocker_deadwood_cards)
    assert deadwood_points(result.knocker_deadwood_cards) == result.knocker_deadwood
    # The defender's cards: own melds + own deadwood + laid-off cards, each exactly once.
    laid = result.laid_off
    covered = CardSet()
    for meld in result.defender_melds:
        assert is_meld(meld) and covered.isdisjoint(meld)
        covered |= meld
    assert covered | result.defender_deadwood_cards | laid == d
    assert len(covered) + len(result.defender_deadwood_cards) + len(laid) == 10
    assert deadwood_points(result.defender_deadwood_cards) == result.defender_deadwood
    # The points are the deadwood difference plus the bonus the outcome earns, which is told apart
    # so that a table can show each part (20 + Gin 25).
    played = rules if rules is not None else Rules()
    bonus = {"gin": played.gin_bonus, "undercut": played.undercut_bonus}.get(result.outcome, 0)
    assert result.bonus == bonus and result.to_json()["bonus"] == bonus
    assert result.points == abs(result.defender_deadwood - result.knocker_deadwood) + bonus
    return result


def laid_on(result: Showdown) -> dict[str, str]:
    """Each laid-off card -> the knocker meld it went on, as text."""
    return {str(lay.card): str(result.knocker_melds[lay.meld]) for lay in result.layoffs}


# -- RULES.md §1-2: cards and melds ---------------------------------------------------


def test_rules_md_1_point_values() -> None:
    """RULES.md §1: ace 1, two to ten face value, J = Q = K = 10."""
    values = {c: Card.parse(c + "S").points for c in "A23456789TJQK"}
    assert values == {
        "A": 1,
        "2": 2,
        "3": 3,
        "4": 4,
        "5": 5,
        "6": 6,
        "7": 7,
        "8": 8,
        "9": 9,
        "T": 10,
        "J": 10,
        "Q": 10,
        "K": 10,
    }


def test_rules_md_2_ace_is_low_only() -> None:
    """RULES.md §2 and guide 000: A-2-3 is a run; Q-K-A and K-A-2 are not."""
    assert is_meld("AH 2H 3H")
    assert not is_meld("QH KH AH")
    assert not is_meld("KH AH 2H")
    assert min_deadwood("QH KH AH") == 21


def test_guide000_meld_examples() -> None:
    """Guide 000: 10♦ 10♠ 10♣ is a set; J♦ Q♦ K♦ is a run."""
    assert is_meld("TD TS TC")
    assert is_meld("JD QD KD")
    assert not is_meld("JD QD KS")  # a run is one suit
    assert not is_meld("TD TS")  # a meld needs three cards


def test_guide003_meld_examples() -> None:
    """Guide 003: 8♥ 8♦ 8♠ is a set; 4♥ 5♥ 6♥ is a run."""
    assert is_meld("8H 8D 8S")
    assert is_meld("4H 5H 6H")
    assert not is_meld("4H 5H 7H")


def test_rules_md_2_guide000_cannot_knock_with_11() -> None:
    """RULES.md §2 / guide 000: run 3-4-5-6♠, set 9-9-9-9, A♦, K♣ -> deadwood 11, no knock."""
    cards = parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC")
    arrangement = best_arrangement(cards)
    assert arrangement.deadwood == 11 == min_deadwood(cards)
    assert set(arrangement.melds) == {parse_cards("3S 4S 5S 6S"), parse_cards("9C 9D 9H 9S")}
    assert arrangement.deadwood_cards == parse_cards("AD KC")
    with pytest.raises(ShowdownError, match="knock limit is 10"):
        score_showdown(cards, "2C 3C 4C 7D 8D JD QH 2H TS JS")


def test_guide003_deadwood_sums() -> None:
    """Guide 003: deadwood A♦ 3♠ 5♣ = 9; with Q♣ instead of 5♣ it is 14."""
    assert deadwood_points("AD 3S 5C") == 9 == min_deadwood("AD 3S 5C")
    assert deadwood_points("AD 3S QC") == 14 == min_deadwood("AD 3S QC")


# -- RULES.md §4 and the seeds: layoffs ------------------------------------------------


def test_guide003_an_binh_knock_with_layoffs() -> None:
    """Guide 003 / RULES.md §4: An knocks with 9 (2♦3♠4♣); Bình's 23 drops to 12 after
    laying off 8♥ and 3♥ on the heart run; An scores 12 - 9 = 3."""
    an = "4H 5H 6H 7H 9S 9D 9C 2D 3S 4C"
    binh = "KS KH KD 5S 6S 7S 8H 3H JC 2S"
    assert min_deadwood(binh) == 23
    result = showdown(an, binh)
    assert (result.outcome, result.scorer, result.points) == ("knock", "knocker", 3)
    assert result.knocker_deadwood == 9 and result.defender_deadwood == 12
    assert laid_on(result) == {"8H": "4H 5H 6H 7H", "3H": "4H 5H 6H 7H"}
    assert result.defender_deadwood_cards == parse_cards("JC 2S")
    assert set(result.defender_melds) == {parse_cards("KS KH KD"), parse_cards("5S 6S 7S")}


def test_guide003_an_binh_undercut_at_9_or_8() -> None:
    """Guide 003: had Bình laid off down to 9 or 8, An would be undercut (a tie is an
    undercut) and Bình would score the difference plus 25."""
    an = "4H 5H 6H 7H 9S 9D 9C 2D 3S 4C"
    tie = showdown(an, "KS KH KD 5S 6S 7S 8H 3H 7C 2S")  # 7♣ + 2♠ left = 9
    assert (tie.outcome, tie.scorer, tie.points, tie.defender_deadwood) == ("undercut", "defender", 25, 9)
    lower = showdown(an, "KS KH KD 5S 6S 7S 8H 3H 6C 2S")  # 6♣ + 2♠ left = 8
    assert (lower.outcome, lower.scorer, lower.points, lower.defender_deadwood) == (
        "undercut",
        "defender",
        26,
        8,
    )


def test_guide003_an_gin_v_12_scores_37_without_layoffs() -> None:
    """Guide 003: had An gone Gin with Bình holding 12, An scores 25 + 12 = 37 and Bình
    may not lay off (8♥ and 3♥ would fit An's heart run)."""
    an = "4H 5H 6H 7H 9S 9D 9C 2D 3D 4D"
    binh = "KS KH KD 5S 6S 7S 8S 8H 3H AC"
    result = showdown(an, binh)
    assert (result.outcome, result.scorer, result.points) == ("gin", "knocker", 37)
    assert result.knocker_deadwood == 0 and result.defender_deadwood == 12
    assert result.layoffs == ()
    assert result.defender_deadwood_cards == parse_cards("8H 3H AC")


def test_guide003_layoff_extends_run_by_rank_and_suit() -> None:
    """Guide 003: on a run 6-7-8♠ the opponent lays off 5♠ or 9♠, never 9♥."""
    run = [parse_cards("6S 7S 8S")]
    assert best_layoffs(run, "5S KD KH QC JC 2D 3D 4H TC TD")[0] == min_deadwood("KD KH QC JC 2D 3D 4H TC TD")
    for card in ("5S", "9S"):
        value, layoffs = best_layoffs(run, f"{card} KD KH QC JC 2D 3D 4H TC TD")
        assert [str(lay.card) for lay in layoffs] == [card] and layoffs[0].meld == 0
    value, layoffs = best_layoffs(run, "9H KD KH QC JC 2D 3D 4H TC TD")
    assert layoffs == [] and value == min_deadwood("9H KD KH QC JC 2D 3D 4H TC TD")
    # The same in a whole showdown: knocker 6-7-8♠ with three kings and a run of clubs.
    result = showdown("6S 7S 8S KC KD KH 2C 3C 4C AD", "9H 9S 5S QD JD 2H 3H 7D 8C TS")
    assert set(laid_on(result)) == {"5S", "9S", "TS"}  # 9♠ then makes room for 10♠
    assert "9H" in result.defender_deadwood_cards


def test_guide000_layoff_fifth_onto_set_or_run() -> None:
    """Guide 000: the opponent's deadwood 5 goes on the knocker's three 5s, or on a run
    6-7-8 or 2-3-4 of its suit."""
    defender = "5S KD KH QC JC 9D 3D 4H TC TD"
    for meld in ("5C 5D 5H", "6S 7S 8S", "2S 3S 4S"):
        value, layoffs = best_layoffs([parse_cards(meld)], defender)
        assert [str(lay.card) for lay in layoffs] == ["5S"], meld
        assert value == min_deadwood(defender) - 5
    # A 5 of another suit fits neither run.
    assert best_layoffs([parse_cards("6S 7S 8S")], "5H KD KH QC JC 9D 3D 4H TC TD")[1] == []


def test_rules_md_4_laid_off_card_makes_room_for_the_next() -> None:
    """RULES.md §4: a laid-off card may extend a run further for the next one. 9♠ fits
    both the knocker's three nines and the run 10-J-Q♠; only on the run does it let 8♠
    follow, so the best layoff puts both on the run: 22 -> 5, an undercut."""
    knocker = "TS JS QS 9C 9D 9H 2C 3C 4D AD"
    defender = "9S 8S KD KH KC 5H 6H 7H 2D 3D"
    result = showdown(knocker, defender)
    assert laid_on(result) == {"9S": "TS JS QS", "8S": "TS JS QS"}
    assert result.defender_deadwood == 5
    assert (result.outcome, result.scorer, result.points) == ("undercut", "defender", 30)


def test_rules_md_4_defender_breaks_own_meld_when_it_pays() -> None:
    """RULES.md §4: the defender's arrangement and layoffs are chosen together. With four
    eights, 8♥ goes on the knocker's 5-6-7♥ (then 9♥ follows) while 8♣8♦8♠ stays a set:
    better than keeping the four eights and 9♥ as deadwood."""
    knocker = "5H 6H 7H KS KD KC 2C 3C 4C AD"
    defender = "8H 8C 8D 8S 9H QS QD JS 2S 3S"
    assert min_deadwood(defender) == 44
    result = showdown(knocker, defender)
    assert laid_on(result) == {"8H": "5H 6H 7H", "9H": "5H 6H 7H"}
    assert parse_cards("8C 8D 8S") in result.defender_melds
    assert result.defender_deadwood == 35  # Q♠ Q♦ J♠ 2♠ 3♠ left


def test_rules_md_4_knocker_arrangement_blocks_layoffs() -> None:
    """RULES.md §4: among equal-deadwood arrangements the knocker's is the one that lets
    the defender lay off least. 6-7-8-9♠ + 9♣9♦9♥ and 6-7-8♠ + four nines both leave
    6; only the second stops the defender's 10♠."""
    knocker = "6S 7S 8S 9S 9C 9D 9H 2C 3C AD"
    defender = "TS KD KH QC JC 4D 5D 6D 2H 3H"
    result = showdown(knocker, defender)
    assert result.knocker_deadwood == 6
    assert parse_cards("9S 9C 9D 9H") in result.knocker_melds
    assert parse_cards("6S 7S 8S") in result.knocker_melds
    assert result.layoffs == ()
    assert result.defender_deadwood == 10 + 20 + 20 + 5
    assert (result.outcome, result.points) == ("knock", 49)


def test_rules_md_4_knocker_never_lays_off() -> None:
    """RULES.md §4: only the opponent lays off; the knocker's 8♥ stays deadwood even
    though the defender holds a heart run it would extend."""
    result = showdown("8H 9S 9D 9C 2C 3C 4C KS KD KH", "5H 6H 7H AS AD 2S 3D 4D QC JC")
    assert result.knocker_deadwood == 8
    assert result.knocker_deadwood_cards == parse_cards("8H")
    assert result.layoffs == ()


# -- RULES.md §5 and the seeds: scoring ------------------------------------------------

# A knocker frame: run 3-6♥ and four nines; two deadwood cards complete the ten.
FRAME = "3H 4H 5H 6H 9S 9D 9C 9H"


def test_guide001_knock_4_v_19_scores_15() -> None:
    """Site 001 / RULES.md §5: knocking with 4 against 19 scores 15 for the knocker."""
    result = showdown(FRAME + " 2C 2D", "KS KD KC 5S 6S 7S 8S TC 8D AD")
    assert (result.knocker_deadwood, result.defender_deadwood) == (4, 19)
    assert (result.outcome, result.scorer, result.points) == ("knock", "knocker", 15)


def test_guide001_gin_v_23_scores_48() -> None:
    """Site 001 / RULES.md §5: Gin against 23 scores 25 + 23 = 48."""
    result = showdown("3H 4H 5H 6H 9S 9D 9C AC 2C 3C", "KS KH KD 5S 6S 7S 8D 3D JC 2S")
    assert (result.knocker_deadwood, result.defender_deadwood) == (0, 23)
    assert (result.outcome, result.scorer, result.points) == ("gin", "knocker", 48)


def test_guide001_knock_8_v_5_undercut_scores_28() -> None:
    """Site 001 / RULES.md §5: knocking with 8 against 5 is an undercut: 3 + 25 = 28."""
    result = showdown(FRAME + " 2C 6D", "KS KD KC KH 5S 6S 7S 8S AD 4C")
    assert (result.knocker_deadwood, result.defender_deadwood) == (8, 5)
    assert (result.outcome, result.scorer, result.points) == ("undercut", "defender", 28)


def test_guide001_gin_is_never_undercut() -> None:
    """Site 001: Gin is never undercut, even against a hand with no deadwood."""
    result = showdown("3H 4H 5H 6H 9S 9D 9C AC 2C 3C", "KS KD KC 5S 6S 7S 8S TD JD QD")
    assert result.defender_deadwood == 0
    assert (result.outcome, result.scorer, result.points) == ("gin", "knocker", 25)


def test_guide000_knock_9_v_2_undercut_scores_32() -> None:
    """Guide 000 / RULES.md §5: knocking with 9 against 2 gives the opponent 7 + 25 = 32."""
    result = showdown(FRAME + " 2C 7D", "KS KD KC KH 5S 6S 7S 8S AD AC")
    assert (result.knocker_deadwood, result.defender_deadwood) == (9, 2)
    assert (result.outcome, result.scorer, result.points) == ("undercut", "defender", 32)


def test_guide000_two_queens_v_two_twos_scores_16() -> None:
    """Guide 000: after layoffs the opponent holds two queens (20), the knocker two 2s (4):
    the knocker scores 16. Here the opponent's 7♥ is laid off first (27 -> 20)."""
    result = showdown(FRAME + " 2C 2D", "KS KD KC 5S 6S 7S 8S QD QC 7H")
    assert laid_on(result) == {"7H": "3H 4H 5H 6H"}
    assert result.defender_deadwood_cards == parse_cards("QD QC")
    assert (result.knocker_deadwood, result.defender_deadwood) == (4, 20)
    assert (result.outcome, result.scorer, result.points) == ("knock", "knocker", 16)


def test_rules_md_5_big_gin_scores_31_plus_deadwood() -> None:
    """RULES.md §5 (Big Gin variant): all eleven cards melded scores 31 + the opponent's
    deadwood, with no layoffs; without the variant an 11-card showdown is refused."""
    knocker = "3H 4H 5H 6H 9S 9D 9C AC 2C 3C 4C"
    defender = "KS KH KD 5S 6S 7S 8D 3D JC 2S"
    result = score_showdown(knocker, defender, Rules.preset("big_gin"))
    assert (result.outcome, result.scorer, result.points) == ("big_gin", "knocker", 54)
    assert result.bonus == 31 and result.to_json()["bonus"] == 31
    assert result.layoffs == () and result.defender_deadwood == 23
    with pytest.raises(ShowdownError, match="Big Gin"):
        score_showdown(knocker, defender)


# -- RULES.md §3 and the seeds: play ---------------------------------------------------


def test_guide003_taking_6h_to_4h_5h_still_needs_a_discard() -> None:
    """Guide 003: holding 4♥ 5♥ with 6♥ face up, taking it makes the run 4-5-6♥, but the
    player must still discard another card (guide 000: never the card just taken)."""
    hand = rig_hand(
        non_dealer="4H 5H KS KD QC JC 9D 8C 2S AD", dealer_cards="AC 2C 3C 4C 5C 6C 7C 8D 9H TH", upcard="6H"
    )
    me = hand.to_act
    hand.apply(Draw("discard"))
    assert hand.phase == "discard" and hand.to_act == me and len(hand.hand_of(me)) == 11
    assert parse_cards("4H 5H 6H") in best_arrangement(hand.hand_of(me)).melds
    assert Discard(Card.parse("6H")) not in hand.legal_actions()
    with pytest.raises(IllegalActionError, match="6H was just taken"):
        hand.apply(Discard(Card.parse("6H")))
    hand.apply(Discard(Card.parse("KS")))
    assert len(hand.hand_of(me)) == 10 and hand.discard_pile[-1] == Card.parse("KS").index


def test_guide001_void_hand_when_stock_reaches_two() -> None:
    """Site 001 / guide 000: the player who draws the third-to-last stock card and
    discards without knocking voids the hand; nobody scores and the same dealer deals."""
    hand = rig_hand(
        dealer=1,
        non_dealer="KS KD QC JC 9D 8C 2S AD 4H 7H",
        dealer_cards="AC 3C 5C 7C 9C JD QD 2H 6H TH",
        upcard="5S",
        stock_size=3,
    )
    match = rig_match(None, hand)
    match.apply(Pass())
    match.apply(Pass())
    match.apply(Draw("stock"))
    assert match.hand is hand and hand.stock_count == 2
    result = match.apply(Discard(Card.parse("KS")))
    assert result is not None and (result.outcome, result.scorer, result.points) == ("void", None, 0)
    assert match.scores == [0, 0] and len(match.hands) == 2
    assert match.hand.dealer == 1 and match.hand.phase == "offer"


def test_guide000_upcard_offer_order() -> None:
    """Guide 000 / RULES.md §3.3: the non-dealer is offered the upcard first, then the
    dealer; if both pass the non-dealer draws from the stock."""
    hand = rig_hand(
        dealer=0,
        non_dealer="KS KD QC JC 9D 8C 2S AD 4H 7H",
        dealer_cards="AC 3C 5C 7C 9C JD QD 2H 6H TH",
        upcard="5S",
        stock_top=["QH"],
    )
    assert (hand.phase, hand.to_act) == ("offer", 1)
    hand.apply(Pass())
    assert (hand.phase, hand.to_act) == ("offer", 0)
    hand.apply(Pass())
    assert (hand.phase, hand.to_act) == ("draw", 1)
    assert hand.legal_actions() == [Draw("stock")]
    hand.apply(Draw("stock"))
    assert Card.parse("QH") in hand.hand_of(1)


def test_guide000_hoyle_end_of_match_bonuses() -> None:
    """Guide 000 (preset hoyle): the winner gets 100, each player 25 per hand won, and a
    winner whose opponent won no hand 100 more; the highest total wins."""
    rules = Rules.preset("hoyle").replace(target=40)
    for seed in range(40):
        match = Match(rules, seed=seed)
        play(match, greedy_policy, random.Random(seed))
        result = match.result
        assert result is not None
        winner = 0 if result.points[0] >= rules.target else 1
        expected = [result.points[s] + 25 * result.hands_won[s] for s in (0, 1)]
        expected[winner] += 100
        if result.hands_won[1 - winner] == 0:
            expected[winner] += 100
        assert list(result.scores) == expected
        assert result.winner == (0 if expected[0] > expected[1] else 1)


def test_guide001_classic_totals_are_the_final_score() -> None:
    """Site 001 (preset classic): the first total to reach 100 wins; the totals are the
    final score, with no bonus, and a match never ends in a draw."""
    for seed in range(3):
        match = Match(Rules.preset("classic"), seed=seed)
        play(match, greedy_policy, random.Random(seed))
        result = match.result
        assert result is not None
        assert result.scores == result.points and max(result.points) >= 100
        assert result.winner == (0 if result.points[0] > result.points[1] else 1)
        assert min(result.points) < 100
