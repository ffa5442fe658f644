"""The engine side of the protocol: serve one of our players over stdin/stdout, one JSON per line."""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from typing import TextIO

from ..bots import Player
from ..rules import View
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


def serve(new_player: Callable[[], Player], stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Answer host messages from `stdin` on `stdout` until `quit` or end of input; return 0.

    Each match is played by a player fresh from `new_player()`, so what a player learnt of
    its opponent lasts one match, unless the host names the same opponent (the `opponent`
    field of `act` and `result`, docs/protocol.md) in two matches running.
    A line that cannot be read, or a request the player cannot answer, gets an
    `error` reply and the loop goes on: one bad message must not end a match.
    Only protocol messages go to `stdout`; logs go to the `ginrummy.engine` logger.
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout

    def send(message: Message) -> None:
        stdout.write(encode(message))
        stdout.flush()  # the host waits for each line; never leave one in a buffer

    matches = _Matches(new_player)
    log.info("engine %s ready (protocol %d)", matches.player.name, PROTOCOL_VERSION)
    try:
        return _loop(matches, stdin, send)
    except (BrokenPipeError, ConnectionResetError):
        # The host went away without `quit`: nobody is left to answer, so end quietly.
        log.info("the host closed the connection; exiting")
        return 0


class _Matches:
    """Which player plays the match a view belongs to: a new one for each match, unless the
    host names the same opponent as in the match before."""

    def __init__(self, new_player: Callable[[], Player]) -> None:
        self._new_player = new_player
        self.player = new_player()
        self._played = False  # whether `player` has seen a view yet
        self._opponent: str | None = None
        self._hand_number = 0
        self._over = False  # the last result ended the match

    def player_for(self, view: View, opponent: str | None) -> Player:
        """The player of the match `view` belongs to (a new match after a match-ending result
        or when the hand number goes back)."""
        if not self._played or self._over or view.hand_number < self._hand_number:
            if self._played and (opponent is None or opponent != self._opponent):
                log.info("a new match against %s: a fresh player", opponent or "an unnamed opponent")
                self.player = self._new_player()
            self._opponent = opponent
            self._over = False
        self._played = True
        self._hand_number = view.hand_number
        return self.player

    def ended(self, view: View) -> None:
        """A hand is over: note whether it ended the match."""
        self._over = max(view.scores) >= view.rules.target


def _loop(matches: _Matches, stdin: TextIO, send: Callable[[Message], None]) -> int:
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
            send(Hello(PROTOCOL_VERSION, matches.player.name))
        elif isinstance(message, Act):
            reply = _act(matches.player_for(message.view, message.opponent), message)
            send(reply)
        elif isinstance(message, Result):
            player = matches.player_for(message.view, message.opponent)
            matches.ended(message.view)
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
