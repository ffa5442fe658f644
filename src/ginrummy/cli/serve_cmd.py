"""`ginrummy serve`: the web platform on Uvicorn (settings from the environment)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
from types import FrameType
from typing import Any

import typer

from .root import app

__all__ = ["serve"]

HAND_OVER_SECONDS = 10.0  # most a SIGTERM waits for the matches to be handed over before stopping


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
    web = create_app(settings)
    config = uvicorn.Config(
        web,
        host=host,
        port=port,
        log_level=level,
        ws_ping_interval=20.0,
        ws_ping_timeout=20.0,
        timeout_graceful_shutdown=5,
        **settings.server_options(),
    )
    _Server(config, web).run()


class _Server:
    """Uvicorn's server; in a cluster, SIGTERM first hands the matches over to the other processes
    (while this one still answers them), then the sockets close and the pages reconnect there."""

    def __init__(self, config: Any, web: Any) -> None:
        import uvicorn

        server = self.server = uvicorn.Server(config)
        plain_exit = server.handle_exit

        def handle_exit(sig: int, frame: FrameType | None) -> None:
            hand_over = getattr(web.state, "hand_over", None)
            if sig != signal.SIGTERM or hand_over is None or server.should_exit:
                plain_exit(sig, frame)
                return
            loop = asyncio.get_event_loop()

            def done(task: asyncio.Task[None]) -> None:
                if not task.cancelled() and task.exception() is not None:
                    logging.getLogger("ginrummy.cluster").error("the hand-over failed: %s", task.exception())
                plain_exit(sig, frame)  # whatever happened: a stuck hand-over must not keep us up

            def start() -> None:
                loop.create_task(asyncio.wait_for(hand_over(), HAND_OVER_SECONDS)).add_done_callback(done)

            loop.call_soon_threadsafe(start)

        server.handle_exit = handle_exit  # type: ignore[method-assign]

    def run(self) -> None:
        self.server.run()
        if not self.server.started:
            raise SystemExit(3)  # as uvicorn.run: the server could not start (a port taken...)
