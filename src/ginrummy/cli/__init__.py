"""The `ginrummy` command: one Typer app with a subcommand per job."""

from __future__ import annotations

import sys

import typer

app = typer.Typer(
    name="ginrummy",
    help="Gin Rummy: exact rules, computer players, and a web platform.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Gin Rummy: exact rules, computer players, and a web platform."""


def _load_commands() -> None:
    # Each module registers its subcommands on `app` when imported.
    from . import arena, connect_cmd, engine_check_cmd, engine_cmd, rules_cmds, serve_cmd  # noqa: F401


def main() -> None:
    """Entry point of the `ginrummy` console script."""
    _load_commands()
    from .arena import optional_option_values

    app(args=optional_option_values(sys.argv[1:]), prog_name="ginrummy")
