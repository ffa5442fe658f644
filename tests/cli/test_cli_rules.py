"""The `deadwood`, `play` and `replay` commands, driven through Typer's CliRunner with scripted input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ginrummy import Discard, Knock, Match, dumps, loads, new_match, render_match
from ginrummy.bots import make_player
from ginrummy.cli import app, load_commands

load_commands()
runner = CliRunner(env={"COLUMNS": "200"})


def _scripted_lines(seed: int, rules: str = "classic", seat: int = 0) -> tuple[list[str], Match]:
    """The person's input for a whole match, found by playing it in advance against the same opponent.

    The person passes the first upcard, always draws from the stock, knocks when
    allowed and otherwise discards the first legal discard.
    """
    match = new_match(rules, seed=seed)
    opponent = make_player("random", seed=seed)
    lines: list[str] = []
    while not match.is_over:
        to_act = match.to_act
        number = match.hand_number
        view = match.view(to_act)  # type: ignore[arg-type]
        if to_act != seat:
            action = opponent.act(view)
        elif view.phase == "offer":
            action, text = view.legal[1], "p"
        elif view.phase == "draw":
            action, text = view.legal[0], "s"
        else:
            knocks = [a for a in view.legal if isinstance(a, Knock)]
            action = knocks[0] if knocks else next(a for a in view.legal if isinstance(a, Discard))
            text = f"knock {action.card}" if knocks else str(action.card)
        if to_act == seat:
            lines.append(text)
        if match.apply(action, to_act) is not None:
            opponent.observe(match.hand_view(1 - seat, number))
            lines.append("")  # Enter after each showdown (and after the final score)
    return lines, match


def test_deadwood_prints_rules_md_example() -> None:
    result = runner.invoke(app, ["deadwood", "3S", "4S", "5S", "6S", "9C", "9D", "9H", "9S", "AD", "KC"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "meld:     3S 4S 5S 6S" in lines
    assert "meld:     9C 9D 9H 9S" in lines
    assert "deadwood: KC AD" in lines  # cards print in the deck's order: clubs, diamonds, hearts, spades
    assert "deadwood count: 11" in lines


def test_deadwood_bad_card_is_named() -> None:
    result = runner.invoke(app, ["deadwood", "3S", "4S", "ZZ"])
    assert result.exit_code == 2
    assert "'ZZ' is not a card" in result.output


def test_deadwood_duplicate_card_is_an_error() -> None:
    result = runner.invoke(app, ["deadwood", "3S", "3s"])
    assert result.exit_code == 2
    assert "3S" in result.output and "error" in result.output


@pytest.mark.parametrize("seat", [0, 1])
def test_play_whole_match_from_scripted_input(tmp_path: Path, seat: int) -> None:
    lines, expected = _scripted_lines(seed=13, seat=seat)
    record_file = tmp_path / "match.json"
    result = runner.invoke(
        app,
        ["play", "--seed", "13", "--opponent", "random", "--seat", str(seat), "--save", str(record_file)],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Match over" in out
    assert expected.result is not None
    you, them = expected.result.scores[seat], expected.result.scores[1 - seat]
    assert f"Final: You {you} · random {them}" in out
    # Every hand's end is shown: each showdown, each void hand, each layoff line.
    results = [hand.result for hand in expected.hands if hand.result is not None]
    voids = sum(1 for r in results if r.outcome == "void")
    with_layoffs = sum(1 for r in results if r.showdown is not None and r.showdown.layoffs)
    assert voids > 0 and with_layoffs > 0  # this seed exercises both displays
    assert out.count("Showdown, hand") == len(results) - voids
    assert out.count("Void hand:") == voids
    assert out.count(" lay off ") + out.count(" lays off ") == with_layoffs
    assert "Scores" in out and "Discard pile" in out and "Your hand" in out and "deadwood:" in out
    # The saved record is exactly the match the script played, and replays.
    assert record_file.read_text().strip() == dumps(expected.record())


# A seed whose first hand offers the upcard to seat 0 (the person's default seat).
OFFERED_SEED = next(s for s in range(50) if new_match("classic", seed=s).to_act == 0)


def test_play_shows_prompts_and_the_opponent_moves() -> None:
    result = runner.invoke(app, ["play", "--seed", str(OFFERED_SEED), "--opponent", "random"], input="p\n")
    out = result.output
    assert result.exit_code == 0
    assert "[u]pcard / [p]ass" in out
    assert "random passes the first upcard." in out or "random takes" in out
    assert "Draw: [s]tock" in out  # after the pass, the person draws next either way
    assert "Input ended; the match is abandoned." in out


def test_play_bad_input_reprompts_with_the_engine_error() -> None:
    script = ["zz", "discard AS 2S", "knock", "p"]
    result = runner.invoke(
        app, ["play", "--seed", str(OFFERED_SEED), "--opponent", "random"], input="\n".join(script) + "\n"
    )
    assert result.exit_code == 0
    out = result.output
    assert "'zz' is not a card" in out
    assert "cannot read 'discard as 2s'" in out
    assert out.count("Take the first upcard") == 4  # asked again after each of the three bad lines


def test_play_illegal_move_names_the_rule() -> None:
    # Try to discard before drawing: the rules engine explains what is allowed.
    seed = OFFERED_SEED
    match = new_match("classic", seed=seed)
    card = next(iter(match.view(0).hand))
    result = runner.invoke(
        app, ["play", "--seed", str(seed), "--opponent", "random"], input=f"{card}\nhint\nhelp\nq\n"
    )
    out = result.output
    assert result.exit_code == 0
    assert f"discard {card} is not allowed now" in out
    assert "hint:" in out
    assert "allowed: draw discard, pass" in out
    assert "You leave the match." in out


def test_play_rejects_unknown_rules_and_opponent() -> None:
    result = runner.invoke(app, ["play", "--rules", "poker"])
    assert result.exit_code == 2 and "unknown rules preset 'poker'" in result.output
    result = runner.invoke(app, ["play", "--opponent", "nobody"])
    assert result.exit_code == 2 and "unknown player 'nobody'" in result.output


def test_play_oklahoma_shows_the_knock_limit_source() -> None:
    result = runner.invoke(
        app, ["play", "--seed", "3", "--rules", "oklahoma", "--opponent", "random"], input=""
    )
    assert result.exit_code == 0
    assert "Oklahoma: set by the first upcard" in result.output  # the table precedes the first prompt
    assert "Input ended" in result.output


def test_replay_prints_the_recorded_match(tmp_path: Path) -> None:
    _, match = _scripted_lines(seed=5)
    path = tmp_path / "m.json"
    path.write_text(dumps(match.record()))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 0
    assert result.output.rstrip("\n") == render_match(loads(path.read_text()))
    assert "Hand 1 — seat" in result.output and "Final:" in result.output


def test_replay_bad_files_get_a_clear_error(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["replay", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2 and "cannot read" in missing.output
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    result = runner.invoke(app, ["replay", str(garbage)])
    assert result.exit_code == 2 and "is not a valid game record" in result.output
    other = tmp_path / "other.json"
    other.write_text('{"format": "chess-pgn"}')
    result = runner.invoke(app, ["replay", str(other)])
    assert result.exit_code == 2 and "not a game record" in result.output


def test_replay_record_that_does_not_replay_is_rejected(tmp_path: Path) -> None:
    _, match = _scripted_lines(seed=5)
    data = match.record().to_json()
    data["hands"][0]["actions"][0][0] = 1 - data["hands"][0]["actions"][0][0]  # the wrong seat moves
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 2 and "is not a valid game record" in result.output


def test_play_waits_for_enter_after_each_showdown_and_at_the_end() -> None:
    """The next deal is not printed until the person has pressed Enter on the hand's end."""
    import io

    from rich.console import Console

    from ginrummy.cli.terminal import TerminalSession

    lines, expected = _scripted_lines(seed=13)
    script = iter(lines)
    out = io.StringIO()
    screens: list[tuple[str, str]] = []  # (prompt, everything printed since the last prompt)
    printed = 0

    def read(prompt: str) -> str:
        nonlocal printed
        text = out.getvalue()
        screens.append((prompt, text[printed:]))
        printed = len(text)
        return next(script)

    game = TerminalSession(
        new_match("classic", seed=13),
        0,
        {1: make_player("random", seed=13)},
        Console(file=out, width=200, highlight=False),
        read,
    )
    assert game.play()
    pauses = [(i, p) for i, (p, _) in enumerate(screens) if p.startswith("Press Enter")]
    ends = [h for h in expected.hands if h.result is not None]
    assert len(pauses) == len(ends)  # one after every hand, the last one at the final score
    for number, (index, prompt) in enumerate(pauses[:-1], start=2):
        assert prompt == "Press Enter for the next deal  (q = quit)"
        assert "Scores:" in screens[index][1] and f"Hand {number} —" not in screens[index][1]
        assert f"Hand {number} —" in screens[index + 1][1]  # the next deal is shown only after Enter
    assert pauses[-1][1] == "Press Enter to finish" and "Match over" in screens[pauses[-1][0]][1]
    assert next(script, None) is None  # every line of the script was read


def test_a_computer_player_that_fails_or_cheats_plays_its_first_legal_move_instead() -> None:
    """A broken bot must not wreck the person's match: its error or illegal move is said, and
    the first legal move is played for it."""
    import io

    from broken_players import Broken
    from rich.console import Console

    from ginrummy import BigGin
    from ginrummy.cli.terminal import TerminalSession

    out = io.StringIO()
    robot = Broken(lambda view: BigGin())  # never legal under the classic rules
    match = new_match("classic", seed=5)

    def read(prompt: str) -> str:
        if len(robot.views) >= 3:
            return "q"
        view = match.view(0)
        if view.phase == "offer":
            return "p"
        if view.phase == "draw":
            return "s"
        return str(next(a for a in view.legal if isinstance(a, Discard)).card)

    game = TerminalSession(match, 0, {1: robot}, Console(file=out, width=200, highlight=False), read)
    assert not game.play()  # the person quit
    text = out.getvalue()
    assert "broken failed (out of cards); it plays its first legal move instead" in text
    assert f"broken chose the illegal {BigGin()}; it plays its first legal move instead" in text
    robot_moves = [step.action for hand in match.hands for step in hand.steps if step.seat == 1]
    assert robot_moves[:2] == [robot.views[0].legal[0], robot.views[1].legal[0]]
