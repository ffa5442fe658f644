"""Gin for three and for four by guide 000 (seeds/000_…, "Bước 1. Chơi với hai người"; RULES.md §7)
and the team scoring written down in docs/rules.md, with its worked example."""

from __future__ import annotations

import random

import pytest
from rules_helpers import rig_hand

from ginrummy import (
    Card,
    Discard,
    Draw,
    IllegalActionError,
    Knock,
    NotYourTurnError,
    Pass,
    Rules,
    TeamGin,
    ThreeGin,
)

STOCK = Draw("stock")


def c(text: str) -> Card:
    return Card.parse(text)


def play_randomly(game: ThreeGin | TeamGin, rng: random.Random, hands: int) -> None:
    """Random play, knocking whenever it may, until `hands` deals are done or the match ends."""
    while not game.is_over and game.hand_number <= hands:
        seat = rng.choice(game.seats_to_act)
        legal = game.legal_actions(seat)
        knocks = [a for a in legal if isinstance(a, Knock)]
        game.apply(rng.choice(knocks) if knocks else rng.choice(legal), seat)


# -- three players ------------------------------------------------------------------------


def test_guide000_third_player_deals_without_cards_and_the_role_rotates() -> None:
    """000: "hãy nhờ một người đóng vai trò là người chia bài mà không chia cho họ bất kỳ lá bài
    nào. Sau đó xoay vị trí này xung quanh bàn cho mỗi ván bài tiếp theo"."""
    rules = Rules.preset("gin3")
    for seed in range(6):
        game = ThreeGin(rules, seed=seed)
        rng = random.Random(seed)
        play_randomly(game, rng, hands=8)
        for number, (hand, dealer) in enumerate(zip(game.hands, game.dealers, strict=True), start=1):
            first, second = game.players_of(number)
            assert (first, second) == ((dealer + 1) % 3, (dealer + 2) % 3)
            assert dealer not in (first, second), "the dealer holds no cards"
            assert {s.seat for s in hand.steps} <= {0, 1}
        for (before, dealer), after in zip(
            zip(game.hands, game.dealers, strict=False), game.dealers[1:], strict=False
        ):
            assert before.result is not None
            assert after == (dealer if before.result.outcome == "void" else (dealer + 1) % 3)


def test_the_seat_sitting_out_holds_nothing_and_may_not_act() -> None:
    game = ThreeGin(Rules.preset("gin3"), seed=4, first_dealer=2)
    view = game.view(2)
    assert view.table is None and view.tables[0].hand is None and view.legal == ()
    assert game.seats_to_act == (0,), "the dealer's left is offered the first upcard"
    with pytest.raises(NotYourTurnError, match="seat 2 dealt this hand and sits it out"):
        game.apply(Pass(), 2)
    assert [len(game.view(s).tables[0].hand or ()) for s in (0, 1)] == [10, 10]


def test_three_running_totals_go_to_each_hands_scorer() -> None:
    """Guide 003's knock 4 v 19 (15 points) played in a three-player hand dealt by seat 1."""
    rules = Rules.preset("gin3")
    game = ThreeGin(rules, seed=1, first_dealer=1)
    game.hands[-1] = rig_hand(
        rules,
        dealer=1,
        non_dealer="3H 4H 5H 6H 9S 9D 9C 9H 2C 2D",  # seat 2 (the dealer's left)
        dealer_cards="KS KD KC 5S 6S 7S 8S TC 8D AD",  # seat 0
        upcard="QS",
        stock_top=["KH"],
    )
    assert game.seats_to_act == (2,)
    game.apply(Pass(), 2)
    game.apply(Pass(), 0)
    game.apply(STOCK, 2)
    result = game.apply(Knock(c("KH")), 2)
    assert result is not None and (result.outcome, result.points) == ("knock", 15)
    assert game.scores == [0, 0, 15] and game.hands_won == [0, 0, 1]
    assert game.dealer == 2, "the deal passes to the next seat"
    assert game.record().hands[0].result == {"outcome": "knock", "scorer": 2, "points": 15, "knocker": 2}


def test_loser_deals_variant_seats_the_winner_against_the_one_who_sat_out() -> None:
    rules = Rules.preset("gin3").replace(next_dealer="loser")
    for seed in range(4):
        game = ThreeGin(rules, seed=seed)
        play_randomly(game, random.Random(seed), hands=6)
        for number in range(1, len(game.hands)):
            result = game.hands[number - 1].result
            assert result is not None
            players = game.players_of(number)
            following = game.dealers[number]
            if result.scorer is None:
                assert following == game.dealers[number - 1]
            else:
                assert following == players[1 - result.scorer]
                assert game.dealers[number - 1] in game.players_of(number + 1), "who sat out plays next"


def test_three_player_end_of_match_bonuses() -> None:
    """docs/rules.md: game bonus to the winner, box bonus per hand won, and the shutout bonus once
    per other player who won no hand."""
    rules = Rules.preset("gin3").replace(target=40)
    shutouts = 0
    for seed in range(30):
        game = ThreeGin(rules, seed=seed)
        play_randomly(game, random.Random(seed), hands=10_000)
        result = game.result
        assert result is not None
        winner = max(range(3), key=lambda s: result.points[s])
        assert result.points[winner] >= 40 and sorted(result.points)[1] < 40
        blanks = sum(1 for s in range(3) if s != winner and result.hands_won[s] == 0)
        shutouts += blanks
        assert result.shutout_bonus == tuple(100 * blanks if s == winner else 0 for s in range(3))
        assert result.game_bonus == tuple(100 if s == winner else 0 for s in range(3))
        assert result.box_bonus == tuple(25 * w for w in result.hands_won)
        assert result.scores == tuple(
            result.points[s] + result.game_bonus[s] + result.box_bonus[s] + result.shutout_bonus[s]
            for s in range(3)
        )
    assert shutouts > 0


# -- four players in two teams --------------------------------------------------------------

TEAM = Rules.preset("gin4_teams")


def test_guide000_two_games_at_once_partners_add_their_points() -> None:
    """000: "thành lập các đội và sau hai trò chơi đồng thời, cộng điểm của bạn và đồng đội của bạn
    để xem liệu bạn có cùng nhau đánh bại đối thủ của mình hay không" — and the worked example of
    docs/rules.md, round by round."""
    game = TeamGin(TEAM, seed=1, first_dealer=1)
    # Round 1, team 1 deals; seat 0 v seat 1, seat 2 v seat 3.
    game.rounds[-1] = (
        rig_hand(
            TEAM,
            dealer=1,
            non_dealer="3H 4H 5H 6H 9S 9D 9C 9H 2C 2D",  # seat 0: knocks with 4
            dealer_cards="KS KD KC 5S 6S 7S 8S TC 8D AD",  # seat 1: 19
            upcard="QS",
            stock_top=["KH"],
        ),
        rig_hand(
            TEAM,
            dealer=1,
            non_dealer="KS KH KD 5S 6S 7S 8D 3D JC 2S",  # seat 2: 23
            dealer_cards="3H 4H 5H 6H 9S 9D 9C AC 2C 3C",  # seat 3: Gin
            upcard="QS",
            stock_top=["QH", "QC"],
        ),
    )
    assert game.seats_to_act == (0, 2), "both hands are played at once"
    game.apply(Pass(), 2)
    game.apply(Pass(), 0)
    game.apply(Pass(), 3)
    game.apply(Pass(), 1)
    assert game.seats_to_act == (0, 2)
    game.apply(STOCK, 0)
    result = game.apply(Knock(c("KH")), 0)
    assert result is not None and (result.outcome, result.points) == ("knock", 15)
    assert game.hand_number == 1 and game.seats_to_act == (2,), "the round waits for the other hand"
    assert game.view(1).tables[0].showdown is not None
    game.apply(STOCK, 2)
    game.apply(Discard(c("QH")), 2)
    game.apply(STOCK, 3)
    result = game.apply(Knock(c("QC")), 3)
    assert result is not None and (result.outcome, result.points) == ("gin", 48)
    assert game.round_results[0].to_json() == {"team_points": [15, 48], "scorer": 1, "points": 33}
    assert game.scores == [0, 33] and game.hand_number == 2 and game.dealer == 1, "winners deal"
    # Round 2, team 1 deals again; opponents change: seat 0 v seat 3, seat 2 v seat 1.
    assert [t.players for t in game.view(0).tables] == [(0, 3), (2, 1)]
    game.rounds[-1] = (
        rig_hand(
            TEAM,
            dealer=1,
            non_dealer="3H 4H 5H 6H 9S 9D 9C AC 2C 3C",  # seat 0: Gin
            dealer_cards="AS 2S 3S 4D 5D 6D TC JC QH KS",  # seat 3: 40
            upcard="7H",
            stock_top=["KD"],
        ),
        rig_hand(
            TEAM,
            dealer=1,
            non_dealer="3H 4H 5H 6H 9S 9D 9C 9H 2C 6D",  # seat 2: knocks with 8
            dealer_cards="KS KD KC KH 5S 6S 7S 8S AD 4C",  # seat 1: 5
            upcard="QS",
            stock_top=["QC"],
        ),
    )
    for seat in (0, 2, 3, 1):
        game.apply(Pass(), seat)
    game.apply(STOCK, 2)
    result = game.apply(Knock(c("QC")), 2)
    assert result is not None and (result.outcome, result.scorer, result.points) == ("undercut", 1, 28)
    game.apply(STOCK, 0)
    result = game.apply(Knock(c("KD")), 0)
    assert result is not None and (result.outcome, result.points) == ("gin", 65)
    assert game.round_results[1].to_json() == {"team_points": [65, 28], "scorer": 0, "points": 37}
    assert game.scores == [37, 33] and game.dealer == 0
    record = game.record()
    assert record.hands[1].result is not None and record.hands[1].result["hands"][1] == {
        "outcome": "undercut",
        "scorer": 1,
        "points": 28,
        "knocker": 2,
    }
    assert [seat for seat, _ in record.hands[1].actions] == [0, 2, 3, 1, 2, 2, 0, 0]


def test_worked_example_end_of_match_bonuses() -> None:
    """docs/rules.md: had team 0 reached the target at 37 it would finish 37 + 100 + 25 = 162
    against 33 + 25 = 58."""
    from ginrummy.rules.results import final_result

    result = final_result([37, 33], [1, 1], TEAM.replace(target=37), 2, teams=True)
    assert (result.winner, result.scores, result.winners) == (0, (162, 58), (0, 2))
    shutout = final_result([37, 0], [1, 0], TEAM.replace(target=37), 2, teams=True)
    assert shutout.scores == (37 + 100 + 25 + 100, 0)


def test_opponents_change_every_round_and_one_team_deals_both_hands() -> None:
    for seed in range(3):
        game = TeamGin(TEAM, seed=seed)
        play_randomly(game, random.Random(seed), hands=6)
        for number, hands in enumerate(game.rounds, start=1):
            expected = ((0, 1), (2, 3)) if number % 2 else ((0, 3), (2, 1))
            assert game.pairing(number) == expected
            team = game.dealers[number - 1]
            assert all(h.dealer == team for h in hands), "inner seat 1 is always the team-1 player"


def test_a_seat_whose_hand_is_over_waits_for_the_round() -> None:
    game = TeamGin(TEAM, seed=8, first_dealer=0)
    game.rounds[-1] = (
        rig_hand(
            TEAM,
            dealer=0,
            non_dealer="3H 4H 5H 6H 9S 9D 9C AC 2C 3C",  # seat 1
            dealer_cards="AS 2S 3S 4D 5D 6D TC JC QH KS",  # seat 0
            upcard="7H",
            stock_top=["KD"],
        ),
        game.rounds[-1][1],
    )
    game.apply(Pass(), 1)
    game.apply(Pass(), 0)
    game.apply(STOCK, 1)
    game.apply(Knock(c("KD")), 1)
    for seat in (0, 1):
        assert game.legal_actions(seat) == []
        with pytest.raises(NotYourTurnError, match="hand is over"):
            game.apply(STOCK, seat)
    with pytest.raises(NotYourTurnError, match="say which seat"):
        game.check(STOCK)
    assert set(game.seats_to_act) <= {2, 3} and game.seats_to_act


def test_team_gin_refuses_what_gin_refuses() -> None:
    game = TeamGin(TEAM, seed=3)
    seat = game.seats_to_act[0]
    with pytest.raises(IllegalActionError, match="first upcard"):
        game.apply(STOCK, seat)
