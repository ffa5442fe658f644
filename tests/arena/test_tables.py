"""The arena at tables of three to six: seatings, whole games of every table game, forfeits, the
share of wins at mixed tables, and the Gin levels at three- and four-player tables."""

from __future__ import annotations

from typing import Any

import pytest

from ginrummy import GameView, Rules, View
from ginrummy.arena.tables import (
    TableGameStats,
    TableSummary,
    arrangements,
    play_table_game,
    run_table_arena,
    run_table_round_robin,
)
from ginrummy.bots.table_players import GinTablePlayer, make_game_player


def test_seatings_share_seats_and_cards_alike() -> None:
    four = arrangements(Rules.preset("rummy"))
    assert four == [(0, 0, 1, 1), (0, 1, 0, 1), (0, 1, 1, 0), (1, 0, 0, 1), (1, 0, 1, 0), (1, 1, 0, 0)]
    for seat in range(4):
        assert sum(s[seat] for s in four) == 3  # each player sits in every seat as often
    three = arrangements(Rules.preset("gin3"))
    assert len(three) == 6 and {sum(s) for s in three} == {1, 2}
    assert [sum(s[i] for s in three) for i in range(3)] == [3, 3, 3]
    assert arrangements(Rules.preset("gin4_teams")) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert len(arrangements(Rules.for_game("rummy", 5))) == 20
    assert arrangements(Rules.for_game("rummy", 2)) == [(0, 1), (1, 0)]


@pytest.mark.parametrize(
    ("preset", "names"),
    [
        ("gin3", ["novice", "advanced", "casual"]),
        ("gin4_teams", ["skilled", "baseline", "casual", "novice"]),
        ("rummy", ["novice", "casual", "skilled", "advanced"]),
    ],
)
def test_whole_games_of_every_table_game(preset: str, names: list[str]) -> None:
    rules = Rules.preset(preset).replace(target=40)
    stats = play_table_game(names, rules, seed=7)
    assert stats.forfeit is None and stats.stalled is None
    assert stats.winners and stats.hands >= 1 and stats.actions > 10
    if preset == "gin4_teams":
        assert stats.winners in ((0, 2), (1, 3))
    assert len(stats.scores) == (2 if preset == "gin4_teams" else len(names))
    assert stats.to_json()["seats"] == names


class _Cheat:
    """Plays a Gin seat's first legal move until the given hand, then an illegal one."""

    name = "cheat"

    def act(self, view: GameView) -> Any:
        legal = list(view.legal)
        if view.hand_number >= 2:
            from ginrummy import Draw

            return next(a for a in (Draw("stock"), Draw("discard")) if a not in legal)
        return legal[0]

    def observe(self, view: GameView) -> None:
        return None


def test_an_illegal_move_forfeits_the_game_to_the_other_side() -> None:
    rules = Rules.preset("gin4_teams").replace(target=200)
    stats = play_table_game([_Cheat(), "casual", "casual", "casual"], rules, seed=1)
    assert stats.forfeit == 0 and "played an illegal action" in (stats.forfeit_reason or "")
    assert stats.winners == (1, 3), "the other team wins"
    assert stats.share("cheat") == 0.0 and stats.share("casual") == 1.0 and stats.scores


def test_gin_table_players_see_a_two_player_view_of_their_own_hand() -> None:
    seen: list[View] = []

    class Recorder:
        name = "recorder"

        def act(self, view: View) -> Any:
            assert isinstance(view, View) and view.seat in (0, 1) and len(view.scores) == 2
            seen.append(view)
            return view.legal[0]

        def observe(self, view: View) -> None:
            assert view.phase == "over"

    rules = Rules.preset("gin3").replace(target=30)
    stats = play_table_game([GinTablePlayer(Recorder()), "casual", "casual"], rules, seed=2)  # type: ignore[arg-type]
    assert stats.forfeit is None and seen


def test_mixed_tables_count_each_game_once_with_shares() -> None:
    games: list[TableGameStats] = []
    summary = run_table_arena(
        "casual",
        "novice",
        rules=Rules.preset("rummy").replace(target=30),
        games=7,
        seed=3,
        on_game=lambda stats, _summary: games.append(stats),
    )
    assert isinstance(summary, TableSummary) and summary.games == 7 == len(games)
    assert summary.a_wins + summary.b_wins + summary.split == 7
    assert summary.a_score == pytest.approx(sum(g.share("casual") for g in games))
    assert [g.seed for g in games] == [3, 3, 3, 3, 3, 3, 4], "six seatings per deal seed"
    assert [g.seats.count("casual") for g in games] == [2] * 7
    data = summary.to_json()
    assert data["game"] == "rummy" and data["players"] == 4 and 0 <= data["ci95"][0] <= data["win_rate"]
    with pytest.raises(ValueError, match="unknown Rummy player 'expert'"):
        run_table_arena("expert", "novice", games=1)
    with pytest.raises(ValueError, match="must differ"):
        run_table_arena("novice", "novice", games=1)


def test_round_robin_at_three_player_gin() -> None:
    table = run_table_round_robin(
        ["novice", "casual", "skilled"], rules=Rules.preset("gin3").replace(target=25), games=2
    )
    assert set(table) == {("novice", "casual"), ("novice", "skilled"), ("casual", "skilled")}
    assert all(s.games == 2 for s in table.values())


def test_make_game_player_per_game() -> None:
    assert isinstance(make_game_player("casual", Rules.preset("gin3")), GinTablePlayer)
    assert make_game_player("casual", Rules.preset("rummy")).name == "casual"
    assert make_game_player("expert", Rules()).name == "expert"
