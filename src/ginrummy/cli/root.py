"""The `ginrummy` Typer app itself; each command module registers its subcommands on it."""

from __future__ import annotations

import typer
from rich.console import Console

__all__ = ["app", "fail"]

app = typer.Typer(
    name="ginrummy",
    help="Gin Rummy: exact rules, computer players, and a web platform.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Gin Rummy: exact rules, computer players, and a web platform."""


def fail(message: str) -> typer.Exit:
    """Say what was wrong on stderr; the exit (status 2) for the command to raise."""
    Console(stderr=True).print(f"[red]error:[/red] {message}")
    return typer.Exit(2)
