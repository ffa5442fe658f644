"""`ginrummy play --game …` (three-player Gin, team Gin, Rummy for two to six), `replay` of their
records and `arena --game …`, driven through Typer's CliRunner with scripted input."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from ginrummy import Game, Rules, load_game, new_game
from ginrummy.bots.table_players import make_game_player
from ginrummy.cli import app, load_commands
from ginrummy.cli.terminal import TerminalSession

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
