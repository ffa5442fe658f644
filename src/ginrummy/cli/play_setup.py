"""What `ginrummy play` sets up: any game (two-player Gin, three-player Gin, team Gin, classic
Rummy for two to six) with its computer players from the command's options, played in the
terminal by the one `TerminalSession`, its record saved if asked."""

from __future__ import annotations

import secrets
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from ..rules import Game, Rules, RulesError, new_game, new_match
from .terminal import SeatPlayer, TerminalSession

__all__ = ["run_play"]

GAME_TITLES = {
    "gin3": "Three-player Gin",
    "gin4_teams": "Team Gin",
    "rummy": "Classic Rummy",
    "gin": "Gin Rummy",
}

#: A game to play, its computer players by seat, and the line that introduces it.
Seating = tuple[Game, dict[int, SeatPlayer], str]


def _fail(console: Console, message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}")
    return typer.Exit(2)


def _read_line(prompt: str) -> str:
    # typer.prompt reads stdin line by line, so a pipe can drive a whole match;
    # at the end of input it raises typer.Abort, which the match loop handles. An empty line
    # is an answer (Enter after a showdown), not a reason to ask again silently.
    return str(typer.prompt(prompt, default="", show_default=False, prompt_suffix="\n> "))


def run_play(
    console: Console,
    game: str,
    players: int | None,
    seed: int | None,
    rules: str,
    opponent: str | None,
    seat: int,
    save: Path | None,
) -> None:
    """`ginrummy play`'s work: seat the computer players, play the game in the terminal, save
    its record if asked."""
    if seed is None:
        seed = secrets.randbelow(10**9)
    if game != "gin" or players not in (None, 2):
        chosen, seated, intro = _table(console, game, players, seed, rules, opponent, seat)
    else:
        chosen, seated, intro = _two_player(console, seed, rules, opponent, seat)
    console.print(intro)
    session = TerminalSession(chosen, seat, seated, console, _read_line)
    session.play()
    if save is not None:
        try:
            save.write_text(chosen.record().dumps() + "\n", encoding="utf-8")
        except OSError as exc:
            console.print(
                f"[red]error:[/red] cannot write the record to {escape(str(save))}: {escape(str(exc))}"
            )
            raise typer.Exit(1) from None
        console.print(
            f"{session.face.noun.capitalize()} record saved to {escape(str(save))} "
            "(replay it with `ginrummy replay`)."
        )


def _two_player(console: Console, seed: int, rules_name: str, opponent: str | None, seat: int) -> Seating:
    """Two-player Gin against one computer player (`--opponent` defaults to the baseline)."""
    from ..bots import available_players, make_player

    if seat > 1:
        raise _fail(console, f"two-player Gin has seats 0 and 1, not {seat}")
    try:
        rules = Rules.preset(rules_name)
    except RulesError as exc:
        raise _fail(console, escape(str(exc))) from None
    name = opponent or ("baseline" if "baseline" in available_players() else "random")
    try:
        player = make_player(name, seed=seed)
    except ValueError as exc:
        raise _fail(console, escape(str(exc))) from None
    intro = (
        f"Gin Rummy — rules {rules.preset_name}, target {rules.target}, seed {seed}; "
        f"you are seat {seat}, {escape(name)} is seat {1 - seat}."
    )
    return new_match(rules, seed=seed), {1 - seat: player}, intro


def _table(
    console: Console,
    game_name: str,
    players: int | None,
    seed: int,
    rules_name: str,
    opponent: str | None,
    seat: int,
) -> Seating:
    """`--game NAME [--players N]`: a table of computer players (`--opponent` defaults to casual)."""
    from ..bots.table_players import make_game_player

    try:
        rules = Rules.for_game(game_name, players)
        if rules_name not in ("classic", game_name):
            rules = _with_gin_variant(rules, rules_name)
    except RulesError as exc:
        raise _fail(console, escape(str(exc))) from None
    if not 0 <= seat < rules.players:
        raise _fail(console, f"{game_name} has seats 0 to {rules.players - 1}, not {seat}")
    others = [s for s in range(rules.players) if s != seat]
    names = [n.strip() for n in (opponent or "casual").split(",") if n.strip()]
    if len(names) == 1:
        names *= len(others)
    if len(names) != len(others):
        raise _fail(console, f"name one opponent for every computer seat ({len(others)}), or one for all")
    seated: dict[int, SeatPlayer] = {}
    try:
        for other, name in zip(others, names, strict=True):
            seated[other] = make_game_player(name, rules, seed=seed * 8 + other)
    except ValueError as exc:
        raise _fail(console, escape(str(exc))) from None
    who = ", ".join(f"seat {s}: {seated[s].name}" for s in others)
    intro = (
        f"{GAME_TITLES[rules.game]} — {rules.players} players, rules {rules.preset_name}, target "
        f"{rules.target}, seed {seed}; you are seat {seat}; {escape(who)}."
    )
    return new_game(rules, seed=seed), seated, intro


def _with_gin_variant(rules: Rules, name: str) -> Rules:
    """A table Gin game under a two-player preset's scoring (e.g. `--rules oklahoma`)."""
    if rules.game == "rummy":
        raise RulesError(f"--rules {name} is a Gin variant; Rummy's rules are the rummy preset's")
    variant = Rules.preset(name)
    if variant.game != "gin":
        raise RulesError(f"--rules {name} is a whole game; choose it with --game {variant.game}")
    return rules.replace(**variant.changes())
