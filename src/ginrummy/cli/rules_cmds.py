"""Rules subcommands: `deadwood`, `play` (a match or game in the terminal against computer
players, set up by cli/play_setup.py), `replay`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from ..rules import (
    CardError,
    RecordError,
    best_arrangement,
    loads,
    parse_cards,
    render_game,
)
from .root import app


def _console() -> Console:
    # Made per command, not at import, so the output goes wherever stdout is at call time.
    return Console(highlight=False, soft_wrap=True)


@app.command()
def deadwood(
    cards: list[str] = typer.Argument(..., help="Cards in rule-book notation, e.g. 3S 4S 5S 9C"),
) -> None:
    """Print the best arrangement of some cards and their least deadwood."""
    console = _console()
    try:
        hand = parse_cards(" ".join(cards))
    except CardError as exc:
        console.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from None
    arrangement = best_arrangement(hand)
    for meld in arrangement.melds:
        console.print(f"meld:     {meld}")
    console.print(f"deadwood: {arrangement.deadwood_cards or '-'}")
    console.print(f"deadwood count: {arrangement.deadwood}")


@app.command()
def play(
    seed: int | None = typer.Option(None, "--seed", help="Match seed: the same seed deals the same cards."),
    rules: str = typer.Option(
        "classic", "--rules", help="Rules preset: classic, hoyle, oklahoma or big_gin."
    ),
    opponent: str | None = typer.Option(
        None, "--opponent", help="Computer player (default: baseline if available, else random)."
    ),
    seat: int = typer.Option(
        0, "--seat", min=0, help="Your seat: 0 or 1 (0 to players-1 at a bigger table)."
    ),
    save: Path | None = typer.Option(None, "--save", help="Write the game record (JSON) to this file."),
    game: str = typer.Option(
        "gin", "--game", help="gin (two players), gin3 (three), gin4_teams (two teams of two) or rummy."
    ),
    players: int | None = typer.Option(None, "--players", help="Rummy: two to six players (default four)."),
) -> None:
    """Play a whole match in the terminal against computer players.

    `--opponent` names one level for every computer seat, or a comma-separated list, seat by seat.
    """
    from .play_setup import run_play

    run_play(_console(), game, players, seed, rules, opponent, seat, save)


@app.command()
def replay(
    file: Path = typer.Argument(..., help="A record written by `ginrummy play --save` (any game)."),
) -> None:
    """Print a recorded match or game hand by hand."""
    console = _console()
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        console.print(f"[red]error:[/red] cannot read {escape(str(file))}: {escape(str(exc))}")
        raise typer.Exit(2) from None
    try:
        record = loads(text)
        rendered = render_game(record)
    except (RecordError, ValueError) as exc:
        console.print(f"[red]error:[/red] {escape(str(file))} is not a valid game record: {escape(str(exc))}")
        raise typer.Exit(2) from None
    # Plain echo: the rendering's [meld] brackets are text, not Rich markup.
    typer.echo(rendered)
