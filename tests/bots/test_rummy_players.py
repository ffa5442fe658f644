"""The Rummy levels: legal moves only from their own view, going out whenever they can, what each
level adds over the one below (in chosen positions), reasons for every move, and hints."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ginrummy import (
    Card,
    Discard,
    Draw,
    LayMeld,
    LayOff,
    Rules,
    RummyGame,
    RummyView,
    build_rummy_view,
    parse_cards,
)
from ginrummy.arena.tables import play_table_game
from ginrummy.bots.rummy_players import RUMMY_LEVELS, make_rummy_player, rummy_player_names
from ginrummy.bots.table_players import make_game_player, suggest_move

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules"))
from table_helpers import rig_rummy  # noqa: E402

STOCK = Draw("stock")
UPCARD = Draw("discard")


def c(text: str) -> Card:
    return Card.parse(text)


def view_of(hand: object, seat: int) -> RummyView:
    return build_rummy_view(hand, seat, hand_number=1, scores=(0,) * hand.players)  # type: ignore[attr-defined]


def play_turn(hand: object, seat: int, level: str) -> list[object]:
    """Let `level` play seat `seat`'s whole turn; the actions it chose."""
    player = make_rummy_player(level, seed=1)
    chosen = []
    while hand.to_act == seat and hand.phase != "over":  # type: ignore[attr-defined]
        action = player.act(view_of(hand, seat))
        assert action in view_of(hand, seat).legal
        hand.apply(action, seat)  # type: ignore[attr-defined]
        chosen.append(action)
    return chosen


@pytest.mark.parametrize("players", [2, 3, 5])
def test_every_level_plays_whole_games_at_every_table_size(players: int) -> None:
    rules = Rules.for_game("rummy", players).replace(target=40)
    names = [RUMMY_LEVELS[s % len(RUMMY_LEVELS)] for s in range(players)]
    stats = play_table_game(names, rules, seed=players)
    assert stats.forfeit is None and stats.stalled is None and len(stats.winners) == 1
    assert stats.actions > 0 and all(stats.times[s] for s in range(players))


@pytest.mark.parametrize("level", RUMMY_LEVELS)
def test_every_level_goes_out_when_it_can(level: str) -> None:
    """3♥4♥5♥6♥ and three nines after drawing the 2♣: lay both, throw the 2♣, out (rummy)."""
    hand = rig_rummy(
        hands=["3H 4H 5H 6H 9C 9D 9S", "KS QS", "2D 3D", "TD"], upcard="5S", stock_top=["2C"], dealer=3
    )
    play_turn(hand, 0, level)
    assert hand.result is not None and hand.result.winner == 0 and hand.result.outcome == "rummy"


@pytest.mark.parametrize("level", RUMMY_LEVELS)
def test_every_level_goes_out_by_laying_off_on_its_own_meld(level: str) -> None:
    hand = rig_rummy(
        hands=["7C 7D 7H", "KS QS", "2D 3D", "TD 9S 8S"], upcard="5S", stock_top=["7S"], dealer=3
    )
    hand.laid_before[0] = True
    play_turn(hand, 0, level)
    assert hand.result is not None and hand.result.winner == 0 and hand.discard_pile[-1] == c("5S").index


def position_with_a_run_on_the_table(seat0: str, stock_top: str) -> object:
    """Seat 1 has laid 8♠9♠10♠; seat 0 (holding `seat0`) is about to draw `stock_top`."""
    hand = rig_rummy(
        hands=[seat0, "8S 9S TS 4C 5C", "KH KD", "2D 6D"],
        upcard="7D",
        stock_top=["QD", "QH", "2H", stock_top],
        dealer=0,
    )
    hand.apply(STOCK, 1)
    hand.apply(LayMeld(parse_cards("8S 9S TS")), 1)
    hand.apply(Discard(c("QD")), 1)
    for seat, card in ((2, "QH"), (3, "2H")):
        hand.apply(STOCK, seat)
        hand.apply(Discard(c(card)), seat)
    return hand


def test_novice_never_looks_at_the_other_players_melds_and_casual_does() -> None:
    novice = position_with_a_run_on_the_table("JS 2C 3D 5H KC", stock_top="4H")
    chosen = play_turn(novice, 0, "novice")
    assert not any(isinstance(a, LayOff) for a in chosen) and c("JS") in novice.hand_of(0)  # type: ignore[attr-defined]
    casual = position_with_a_run_on_the_table("JS 2C 3D 5H KC", stock_top="4H")
    chosen = play_turn(casual, 0, "casual")
    assert LayOff(c("JS"), 0) in chosen and c("JS") not in casual.hand_of(0)  # type: ignore[attr-defined]


def test_casual_takes_an_upcard_it_can_lay_off_and_novice_does_not() -> None:
    hand = position_with_a_run_on_the_table("2C 3D 5H KC AD", stock_top="4H")
    hand.discard_pile.append(c("JS").index)  # JS on top of the pile, as seat 3's discard
    view = view_of(hand, 0)
    assert make_rummy_player("casual").decide(view).action == UPCARD
    assert "goes on" in make_rummy_player("casual").decide(view).reason
    assert make_rummy_player("novice").decide(view).action == STOCK


def test_novice_throws_its_highest_loose_card_and_casual_keeps_a_start() -> None:
    hand = rig_rummy(
        hands=["9C 8C 2H 3S KD", "KS QS", "2D 3D", "TD"], upcard="5S", stock_top=["AD"], dealer=3
    )
    hand.apply(STOCK, 0)
    view = view_of(hand, 0)
    assert make_rummy_player("novice").act(view) == Discard(c("KD"))
    assert make_rummy_player("casual").act(view) == Discard(c("KD"))
    # With a 7♦ for the king, the novice throws the 9♣ (highest) where casual keeps 8♣9♣ together.
    hand = rig_rummy(
        hands=["9C 8C 2H 3S 7D", "KS QS", "2D 3D", "TD"], upcard="5S", stock_top=["AD"], dealer=3
    )
    hand.apply(STOCK, 0)
    view = view_of(hand, 0)
    assert make_rummy_player("novice").act(view) == Discard(c("9C"))
    assert make_rummy_player("casual").act(view) == Discard(c("7D"))


def test_skilled_does_not_feed_what_the_next_player_took() -> None:
    """Seat 1 took the 8♥ from the pile; casual throws its 9♥ (its highest), skilled keeps it."""
    hand = rig_rummy(
        hands=["9H 2C 3D 4S", "KS QS JD", "2D 6D TC", "5C 6C TD"],
        upcard="8H",
        stock_top=["QH", "KH", "AC"],
        dealer=0,
    )
    hand.apply(UPCARD, 1)
    hand.apply(Discard(c("KS")), 1)
    for seat, card in ((2, "QH"), (3, "KH")):
        hand.apply(STOCK, seat)
        hand.apply(Discard(c(card)), seat)
    hand.apply(STOCK, 0)
    view = view_of(hand, 0)
    assert view.known[1] == parse_cards("8H")
    assert make_rummy_player("casual").act(view) == Discard(c("9H"))
    assert make_rummy_player("skilled").act(view) == Discard(c("4S"))


def test_every_decision_has_a_reason_and_hints_cover_every_game() -> None:
    game = RummyGame(Rules.preset("rummy"), seed=12)
    for _ in range(30):
        seat = game.seats_to_act[0]
        view = game.view(seat)
        for level in RUMMY_LEVELS:
            decision = make_rummy_player(level, seed=2).decide(view)
            assert decision.action in view.legal and decision.reason
        hint = suggest_move(view, "skilled")
        assert hint.action in view.legal and hint.level == "skilled" and hint.to_json()["reason"]
        game.apply(make_rummy_player("advanced").act(view), seat)
    assert suggest_move(game.view(game.seats_to_act[0]), "expert").level == "advanced"
    with pytest.raises(ValueError, match="unknown Rummy level 'grandmaster'"):
        suggest_move(game.view(game.seats_to_act[0]), "grandmaster")
    idle = next(s for s in range(4) if s not in game.seats_to_act)
    with pytest.raises(ValueError, match="not this seat's turn"):
        suggest_move(game.view(idle))


def test_unknown_players_are_named() -> None:
    assert rummy_player_names() == ["advanced", "casual", "novice", "random", "rummy-random", "skilled"]
    with pytest.raises(ValueError, match="unknown Rummy player 'expert'"):
        make_game_player("expert", Rules.preset("rummy"))
    with pytest.raises(ValueError, match="unknown player 'wizard'"):
        make_game_player("wizard", Rules.preset("gin3"))
