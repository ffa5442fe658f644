"""The `ginrummy` Typer app itself; each command module registers its subcommands on it."""

from __future__ import annotations

import typer

__all__ = ["app"]

app = typer.Typer(
    name="ginrummy",
    help="Gin Rummy: exact rules, computer players, and a web platform.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Gin Rummy: exact rules, computer players, and a web platform."""
