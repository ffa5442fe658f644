"""Gin's players at three- and four-player tables, and hints for every game through one call."""

from __future__ import annotations

import random
from typing import Any

from ginrummy import GinTableView, Rules, View, new_game
from ginrummy.bots import suggest
from ginrummy.bots.table_players import GinTablePlayer, make_game_player, suggest_move


class Recorder:
    """A two-player player that plays the first legal move and records what it is shown."""

    name = "recorder"

    def __init__(self) -> None:
        self.acted: list[View] = []
        self.observed: list[View] = []

    def act(self, view: View) -> Any:
        self.acted.append(view)
        return view.legal[0]

    def observe(self, view: View) -> None:
        self.observed.append(view)


def test_a_gin_player_at_three_player_gin_sees_only_the_hands_it_plays() -> None:
    game = new_game(Rules.preset("gin3").replace(target=30), seed=3)
    recorder = Recorder()
    seated = {
        0: GinTablePlayer(recorder),
        1: make_game_player("casual", game.rules),
        2: make_game_player("novice", game.rules),
    }  # type: ignore[arg-type]
    played: set[int] = set()
    while not game.is_over:
        seat = game.seats_to_act[0]
        number = game.hand_number
        view = game.view(seat)
        assert isinstance(view, GinTableView)
        if seat == 0:
            played.add(number)
        if game.apply(seated[seat].act(view), seat) is not None:
            for s, player in seated.items():
                player.observe(game.hand_view(s, number))
                player.observe(game.hand_view(s, number))  # a second notice of the same hand is ignored
    assert recorder.acted and all(v.seat in (0, 1) for v in recorder.acted)
    assert sorted(v.hand_number for v in recorder.observed) == sorted(played)
    assert all(v.phase == "over" for v in recorder.observed)


def test_hints_for_gin_tables_are_the_two_player_hints_of_the_seats_own_hand() -> None:
    for preset in ("gin3", "gin4_teams"):
        game = new_game(preset, seed=5)
        rng = random.Random(5)
        for _ in range(40):
            seat = rng.choice(game.seats_to_act)
            view = game.view(seat)
            assert isinstance(view, GinTableView)
            hint = suggest_move(view, "casual")
            plain = suggest(view.two_player(), "casual")
            assert (hint.action, hint.reason, hint.level) == (plain.action, plain.reason, plain.level)
            assert hint.action in view.legal
            game.apply(hint.action, seat)
    two = new_game("classic", seed=1)
    view = two.view(two.seats_to_act[0])
    assert suggest_move(view, "novice").action in view.legal  # type: ignore[arg-type]
