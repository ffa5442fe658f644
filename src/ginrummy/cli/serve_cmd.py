"""`ginrummy serve`: the web platform on Uvicorn (settings from the environment)."""

from __future__ import annotations

import dataclasses
import logging

import typer

from . import app

__all__ = ["serve"]


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0 for every interface)."),
    port: int = typer.Option(8000, help="TCP port."),
    log_level: str = typer.Option("", help="debug, info, warning... (default GINRUMMY_LOG_LEVEL or info)."),
) -> None:
    """Serve the web platform: play in the browser against robots or friends."""
    import uvicorn

    from ..server import Settings, SettingsError, create_app

    try:
        settings = dataclasses.replace(Settings.from_env(), tune_gc=True)
    except SettingsError as exc:
        raise typer.BadParameter(str(exc)) from None
    level = (log_level or settings.log_level).lower()
    logging.basicConfig(level=level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(
        create_app(settings),
        host=host,
        port=port,
        log_level=level,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=5,
        **settings.server_options(),
    )
