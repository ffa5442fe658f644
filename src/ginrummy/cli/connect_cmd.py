"""The `connect` subcommand: a stdio engine plays on a ginrummy site as a bot account."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from pathlib import Path

import typer

from .root import app


@app.command()
def connect(
    server: str = typer.Option(..., "--server", help="The site's address, e.g. https://cards.example."),
    token: str = typer.Option(
        ...,
        "--token",
        envvar="GINRUMMY_BOT_TOKEN",
        help="The bot account's API token (or set GINRUMMY_BOT_TOKEN, which keeps it out of ps).",
    ),
    engine: str = typer.Option(
        ..., "--engine", help='The engine\'s command line, e.g. "ginrummy engine --bot expert".'
    ),
    presets: str | None = typer.Option(
        None, "--presets", help="Accept only these rule presets, comma-separated (default: every one)."
    ),
    min_target: int = typer.Option(1, "--min-target", help="Decline matches to fewer points."),
    max_target: int = typer.Option(500, "--max-target", help="Decline matches to more points."),
    rated: str = typer.Option(
        "any", "--rated", help="Accept 'any' challenge, 'only' rated ones, or 'never'."
    ),
    min_clock: float = typer.Option(0.0, "--min-clock", help="Decline turn clocks shorter than this (s)."),
    max_games: int = typer.Option(1, "--max-games", help="Games played at once (one engine process each)."),
    move_time: float | None = typer.Option(
        None, "--move-time", help="Most seconds the engine may think per move (default: the clock less 2 s)."
    ),
    log_frames: Path | None = typer.Option(
        None, "--log-frames", help="Append every message the site sends to this file (JSON lines)."
    ),
) -> None:
    """Play on a site as a bot account: accept challenges and play every game through ENGINE.

    The engine speaks the stdio protocol (docs/protocol.md, version 1); the site's API is in
    docs/bots-online.md. Connections that drop are opened again by themselves. Ctrl+C once stops
    taking challenges and lets the games in progress finish; twice quits at once.
    """
    from .bridge import Bridge, ChallengeFilter

    if rated not in ("any", "only", "never"):
        typer.echo(f"error: --rated must be any, only or never, got {rated!r}", err=True)
        raise typer.Exit(2)
    if max_games < 1 or min_target > max_target:
        typer.echo("error: --max-games must be at least 1 and --min-target at most --max-target", err=True)
        raise typer.Exit(2)
    wanted = frozenset(p.strip() for p in presets.split(",") if p.strip()) if presets else None
    accept = ChallengeFilter(
        presets=wanted,
        min_target=min_target,
        max_target=max_target,
        rated={"any": None, "only": True, "never": False}[rated],
        min_clock=min_clock,
        max_games=max_games,
    )

    def say(line: str) -> None:
        print(f"{time.strftime('%H:%M:%S')} {line}", flush=True)

    async def main() -> int:
        frames = log_frames.open("a", encoding="utf-8") if log_frames is not None else None
        interrupts: asyncio.Queue[None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):  # not on Windows: Ctrl+C stops at once there
                loop.add_signal_handler(number, interrupts.put_nowait, None)
        try:
            bridge = Bridge(server, token, engine, accept=accept, move_time=move_time, frames=frames, say=say)
            return await bridge.run(interrupts)
        finally:
            if frames is not None:
                frames.close()

    try:
        code = asyncio.run(main())
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        code = 130
    sys.stdout.flush()
    raise typer.Exit(code)
