"""The engine side of the protocol: serve one of our players over stdin/stdout, one JSON per line."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from typing import TextIO

from ..bots import Player
from .protocol import (
    MAX_LINE,
    PROTOCOL_VERSION,
    Act,
    ActionReply,
    ErrorMessage,
    Hello,
    Message,
    ProtocolError,
    Quit,
    Result,
    encode,
    parse_host_message,
)

__all__ = ["serve"]

log = logging.getLogger("ginrummy.engine")


def serve(player: Player, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Answer host messages from `stdin` on `stdout` until `quit` or end of input; return 0.

    A line that cannot be read, or a request the player cannot answer, gets an
    `error` reply and the loop goes on: one bad message must not end a match.
    Only protocol messages go to `stdout`; logs go to the `ginrummy.engine` logger.
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout

    def send(message: Message) -> None:
        stdout.write(encode(message))
        stdout.flush()  # the host waits for each line; never leave one in a buffer

    log.info("engine %s ready (protocol %d)", player.name, PROTOCOL_VERSION)
    try:
        return _loop(player, stdin, send)
    except (BrokenPipeError, ConnectionResetError):
        # The host went away without `quit`: nobody is left to answer, so end quietly.
        log.info("the host closed the connection; exiting")
        return 0


def _loop(player: Player, stdin: TextIO, send: Callable[[Message], None]) -> int:
    while True:
        line = stdin.readline(MAX_LINE)
        if not line:
            log.info("end of input; exiting")
            return 0
        if not line.strip():
            continue  # blank lines are harmless keep-alives
        if not line.endswith("\n") and len(line) >= MAX_LINE:
            _skip_rest_of_line(stdin)
            send(ErrorMessage(f"line longer than {MAX_LINE} characters"))
            continue
        try:
            message = parse_host_message(line)
        except ProtocolError as exc:
            log.warning("unreadable message: %s", exc)
            send(ErrorMessage(str(exc)))
            continue
        if isinstance(message, Quit):
            log.info("quit received; exiting")
            return 0
        if isinstance(message, Hello):
            if message.protocol != PROTOCOL_VERSION:
                send(
                    ErrorMessage(
                        f"unsupported protocol version {message.protocol}; this engine speaks {PROTOCOL_VERSION}"
                    )
                )
                continue
            send(Hello(PROTOCOL_VERSION, player.name))
        elif isinstance(message, Act):
            reply = _act(player, message)
            send(reply)
        elif isinstance(message, Result):
            try:
                player.observe(message.view)
            except Exception:  # a player's bug must not end the engine
                log.error("player failed to observe a result:\n%s", traceback.format_exc())


def _act(player: Player, message: Act) -> ActionReply | ErrorMessage:
    view = message.view
    if not view.legal:
        return ErrorMessage(f"act {message.id}: the view lists no legal action, so there is nothing to do")
    try:
        action = player.act(view)
    except Exception as exc:  # report it to the host rather than die mid-match
        log.error("player failed on act %d:\n%s", message.id, traceback.format_exc())
        return ErrorMessage(f"act {message.id}: the player failed: {type(exc).__name__}: {exc}")
    return ActionReply(message.id, action)


def _skip_rest_of_line(stdin: TextIO) -> None:
    while True:
        chunk = stdin.readline(MAX_LINE)
        if not chunk or chunk.endswith("\n"):
            return
