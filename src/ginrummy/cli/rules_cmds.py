"""Rules subcommands: `deadwood`, `play`, `replay`."""

from __future__ import annotations

import typer
from rich.console import Console

from ..rules import CardError, best_arrangement, parse_cards
from . import app

console = Console()


@app.command()
def deadwood(cards: list[str] = typer.Argument(..., help="Cards in rule-book notation, e.g. 3S 4S 5S 9C")) -> None:
    """Print the best arrangement of some cards and their least deadwood."""
    try:
        hand = parse_cards(" ".join(cards))
    except CardError as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from None
    arrangement = best_arrangement(hand)
    for meld in arrangement.melds:
        console.print(f"meld:     {meld}")
    console.print(f"deadwood: {arrangement.deadwood_cards or '-'}")
    console.print(f"deadwood count: {arrangement.deadwood}")
