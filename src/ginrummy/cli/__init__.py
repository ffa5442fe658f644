"""The `ginrummy` command: one Typer app (`root.app`) with a subcommand per job."""

from __future__ import annotations

import sys

from .root import app

__all__ = ["app", "load_commands", "main"]


def load_commands() -> None:
    """Register every subcommand on `app` (each command module does so when imported; they are
    imported only when the command runs, so importing the package stays light)."""
    from . import (  # noqa: F401
        arena,
        connect_cmd,
        engine_check_cmd,
        engine_cmd,
        fair_play_cmd,
        rules_cmds,
        serve_cmd,
    )


def main() -> None:
    """Entry point of the `ginrummy` console script."""
    load_commands()
    from .arena import optional_option_values

    app(args=optional_option_values(sys.argv[1:]), prog_name="ginrummy")
