"""`ginrummy play --game …` (three-player Gin, team Gin, Rummy for two to six), `replay` of their
records and `arena --game …`, driven through Typer's CliRunner with scripted input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from broken_players import Broken
from rich.console import Console
from typer.testing import CliRunner

from ginrummy import Game, LayOff, Rules, RummyView, load_game, new_game, new_match
from ginrummy.bots import make_player
from ginrummy.bots.table_players import make_game_player
from ginrummy.cli import app, load_commands
from ginrummy.cli.faces import Face
from ginrummy.cli.gin_face import GinFace
from ginrummy.cli.table_faces import GinTableFace, RummyFace
from ginrummy.cli.terminal import SeatPlayer, TerminalSession

load_commands()
runner = CliRunner(env={"COLUMNS": "200"})


def scripted(rules: Rules, seed: int, you: int, opponent: str) -> tuple[list[str], Game]:
    """The person's input for a whole game (always the first legal move, Enter after each deal),
    found by playing it in advance against the computer players `play` seats."""
    game = new_game(rules, seed=seed)
    players = {
        s: make_game_player(opponent, rules, seed=seed * 8 + s) for s in range(rules.players) if s != you
    }
    lines: list[str] = []
    while not game.is_over:
        acting = game.seats_to_act
        seat = next((s for s in acting if s != you), you)
        number = game.hand_number
        view = game.view(seat)
        if seat == you:
            action = list(view.legal)[0]
            lines.append(str(action))
        else:
            action = players[seat].act(view)
        ended = game.apply(action, seat)
        if ended is not None:
            for s, player in players.items():
                player.observe(game.hand_view(s, number))
            if game.hand_number != number or game.is_over:
                lines.append("")
    return lines, game


@pytest.mark.parametrize(
    ("args", "rules", "you"),
    [
        (["--game", "rummy", "--players", "4"], Rules.for_game("rummy", 4), 0),
        (["--game", "rummy", "--players", "2", "--seat", "1"], Rules.for_game("rummy", 2), 1),
        (["--game", "gin3", "--seat", "2"], Rules.preset("gin3"), 2),
        (["--game", "gin4_teams", "--seat", "1"], Rules.preset("gin4_teams"), 1),
    ],
)
def test_play_a_whole_table_game_from_scripted_input(
    tmp_path: Path, args: list[str], rules: Rules, you: int
) -> None:
    lines, expected = scripted(rules, seed=5, you=you, opponent="novice")
    record = tmp_path / "game.json"
    result = runner.invoke(
        app,
        ["play", *args, "--seed", "5", "--opponent", "novice", "--save", str(record)],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    assert "Game over" in result.output and "Final:" in result.output
    assert f"you are seat {you}" in result.output
    saved = record.read_text(encoding="utf-8").strip()
    assert saved == expected.record().dumps()
    assert load_game(saved).record().dumps() == saved
    replay = runner.invoke(app, ["replay", str(record)])
    assert replay.exit_code == 0 and "Final scores" in replay.output


def test_rummy_table_shows_counts_melds_and_payments() -> None:
    rules = Rules.for_game("rummy", 3).replace(target=30)
    lines, _ = scripted(rules, seed=2, you=0, opponent="casual")
    script = iter(lines)
    out = io.StringIO()
    game = new_game(rules, seed=2)
    players = {s: make_game_player("casual", rules, seed=2 * 8 + s) for s in (1, 2)}
    table = TerminalSession(
        game, 0, players, Console(file=out, width=200, highlight=False), lambda _: next(script)
    )
    assert table.play()
    text = out.getvalue()
    assert "Cards held" in text and "Discard pile" in text and "Your hand" in text
    assert "pays" in text or "Void hand" in text
    assert "casual (seat 1) draws from the stock." in text
    assert next(script, None) is None


def test_hints_and_help_at_a_rummy_table() -> None:
    result = runner.invoke(
        app, ["play", "--game", "rummy", "--seed", "4", "--opponent", "casual"], input="h\nhelp\nmeld 2C\nq\n"
    )
    assert result.exit_code == 0
    assert "hint: draw" in result.output and "allowed: draw stock, draw discard" in result.output
    assert "a meld needs three or more cards" in result.output and "You leave the game." in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "rummy", "--players", "7"], "rummy is played by 2 to 6 players"),
        (["--game", "gin3", "--seat", "3"], "gin3 has seats 0 to 2, not 3"),
        (["--game", "rummy", "--opponent", "novice,casual"], "name one opponent for every computer seat (3)"),
        (["--game", "rummy", "--opponent", "expert"], "unknown Rummy player 'expert'"),
        (["--game", "rummy", "--rules", "hoyle"], "hoyle is a Gin variant"),
        (["--game", "gin3", "--rules", "rummy"], "choose it with --game rummy"),
        (["--game", "poker"], "unknown game 'poker'"),
        (["--seat", "2"], "two-player Gin has seats 0 and 1"),
    ],
)
def test_bad_table_choices_are_named(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["play", *args], input="q\n")
    assert result.exit_code == 2 and message in result.output


def test_a_gin_variant_plays_at_a_three_player_table() -> None:
    result = runner.invoke(app, ["play", "--game", "gin3", "--rules", "oklahoma", "--seed", "1"], input="q\n")
    assert result.exit_code == 0 and "rules custom" in result.output


def test_arena_ladder_at_rummy_tables_as_json() -> None:
    result = runner.invoke(
        app,
        ["arena", "--game", "rummy", "--players", "4", "--ladder", "novice", "casual", "-n", "2", "--json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["mode"] == "ladder" and data["players"] == 4 and len(data["seatings"]) == 6
    (pair,) = data["pairs"]
    assert (pair["a"], pair["b"], pair["games"]) == ("casual", "novice", 2)


def test_arena_table_refuses_unknown_players() -> None:
    result = runner.invoke(app, ["arena", "--game", "gin3", "casual", "wizard"])
    assert result.exit_code == 2 and "unknown gin3 player 'wizard'" in result.output


def test_arena_table_refuses_the_options_of_two_player_gin_instead_of_ignoring_them() -> None:
    result = runner.invoke(
        app, ["arena", "--game", "rummy", "casual", "novice", "--mirrored", "--rules", "hoyle"]
    )
    assert result.exit_code == 2
    assert "--mirrored, --rules apply to two-player Gin only" in result.output
    result = runner.invoke(app, ["arena", "--game", "gin3", "casual", "novice", "--stream"])
    assert result.exit_code == 2 and "--stream applies to two-player Gin only" in result.output


@pytest.mark.parametrize(
    ("rules", "face", "noun"),
    [
        (Rules.preset("classic"), GinFace, "match"),
        (Rules.preset("gin3"), GinTableFace, "game"),
        (Rules.preset("gin4_teams"), GinTableFace, "game"),
        (Rules.for_game("rummy", 2), RummyFace, "game"),
    ],
)
def test_the_one_session_shows_each_game_through_the_face_its_view_calls_for(
    rules: Rules, face: type[Face], noun: str
) -> None:
    """Every game is played by TerminalSession; what it prints is chosen from the seat's view."""
    game: Game
    players: dict[int, SeatPlayer]
    if rules.game == "gin" and rules.players == 2:
        game, players = new_match(rules, seed=1), {1: make_player("random", seed=1)}
    else:
        game = new_game(rules, seed=1)
        players = {s: make_game_player("novice", rules, seed=s) for s in range(1, rules.players)}
    out = io.StringIO()
    session = TerminalSession(game, 0, players, Console(file=out, width=200, highlight=False), lambda _: "q")
    assert type(session.face) is face and session.face.noun == noun
    assert not session.play()
    assert f"You leave the {noun}." in out.getvalue()


def test_team_gin_shows_a_round_once_both_tables_are_done_and_tells_every_seat_at_the_persons_table() -> None:
    rules = Rules.preset("gin4_teams")
    lines, expected = scripted(rules, seed=5, you=1, opponent="novice")
    script = iter(lines)
    prompts: list[str] = []
    out = io.StringIO()
    players = {s: make_game_player("novice", rules, seed=5 * 8 + s) for s in (0, 2, 3)}

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(script)

    session = TerminalSession(
        new_game(rules, seed=5), 1, players, Console(file=out, width=200, highlight=False), read
    )
    assert session.play()
    text = out.getvalue()
    rounds = expected.hand_number
    assert rounds > 1
    assert [text.count(f"Round {n} —") for n in range(1, rounds + 1)] == [1] * rounds
    assert prompts.count("Press Enter for the next deal  (q = quit)") == rounds - 1
    assert text.count("Round: team of seats 0+2 made") == rounds
    # The person's table is told move by move; seat 0 plays the person's seat 1 in round one.
    assert "novice (seat 0) draws from the stock." in text or "novice (seat 0) takes" in text
    assert next(script, None) is None


def test_a_computer_player_at_a_table_that_fails_or_cheats_plays_its_first_legal_move_instead() -> None:
    rules = Rules.for_game("rummy", 3)
    game = new_game(rules, seed=3)
    robot = Broken(lambda view: LayOff(next(iter(view.hand)), 99))  # there is no table meld 99
    out = io.StringIO()

    def read(prompt: str) -> str:
        return "q" if len(robot.views) >= 3 else str(list(game.view(0).legal)[0])

    players: dict[int, SeatPlayer] = {1: robot, 2: make_game_player("novice", rules, seed=3)}
    session = TerminalSession(game, 0, players, Console(file=out, width=200, highlight=False), read)
    assert not session.play()
    text = out.getvalue()
    assert "broken (seat 1) failed (out of cards); it plays its first legal move instead" in text
    assert "broken (seat 1) chose the illegal layoff " in text
    view = game.view(0)
    assert isinstance(view, RummyView)
    moves = [event.action for event in view.history if event.seat == 1]
    assert moves[:2] == [robot.views[0].legal[0], robot.views[1].legal[0]]
