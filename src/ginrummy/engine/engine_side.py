"""The engine side of the protocol: serve one of our players over stdin/stdout, one JSON per line.

Given a way to seat a player at any game (`seat_for`), the engine speaks versions 1 and 2 and
answers the host's hello in the version it was offered; without one, version 1 only.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from typing import TextIO

from ..bots import Player
from ..bots.table_players import TablePlayer
from ..rules import GameAction, Rules, View
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

SeatFor = Callable[[Rules], TablePlayer]

__all__ = ["serve"]

log = logging.getLogger("ginrummy.engine")


def serve(
    new_player: Callable[[], Player],
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    *,
    seat_for: SeatFor | None = None,
) -> int:
    """Answer host messages from `stdin` on `stdout` until `quit` or end of input; return 0.

    Each two-player Gin match is played by a player fresh from `new_player()`, so what a player
    learnt of its opponent lasts one match, unless the host names the same opponent (the
    `opponent` field of `act` and `result`, docs/protocol.md) in two matches running.
    `seat_for(rules)` gives the player for any other game (version 2), once per game.

    A line that cannot be read, or a request the player cannot answer, gets an
    `error` reply and the loop goes on: one bad message must not end a match.
    Only protocol messages go to `stdout`; logs go to the `ginrummy.engine` logger.
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout

    def send(message: Message) -> None:
        stdout.write(encode(message))
        stdout.flush()  # the host waits for each line; never leave one in a buffer

    versions = (2, 1) if seat_for is not None else (PROTOCOL_VERSION,)
    matches = _Matches(new_player)
    log.info("engine %s ready (protocol %s)", matches.player.name, " and ".join(str(v) for v in versions))
    try:
        return _Session(matches, seat_for, versions, send).loop(stdin)
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


class _Session:
    """One conversation: the version agreed in the hello, and the players seated so far."""

    def __init__(
        self,
        matches: _Matches,
        seat_for: SeatFor | None,
        versions: tuple[int, ...],
        send: Callable[[Message], None],
    ) -> None:
        self.matches = matches
        self.seat_for = seat_for
        self.versions = versions
        self.send = send
        self.version = versions[-1]
        self.seats: dict[str, TablePlayer] = {}

    def loop(self, stdin: TextIO) -> int:
        send = self.send
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
                message = parse_host_message(line, self.version)
            except ProtocolError as exc:
                log.warning("unreadable message: %s", exc)
                send(ErrorMessage(str(exc)))
                continue
            if isinstance(message, Quit):
                log.info("quit received; exiting")
                return 0
            if isinstance(message, Hello):
                if message.protocol not in self.versions:
                    spoken = " and ".join(str(v) for v in sorted(self.versions))
                    send(
                        ErrorMessage(
                            f"unsupported protocol version {message.protocol}; this engine speaks {spoken}"
                        )
                    )
                    continue
                self.version = message.protocol
                send(Hello(self.version, self.matches.player.name))
            elif isinstance(message, Act):
                send(self.act(message))
            elif isinstance(message, Result):
                try:
                    self.observe(message)
                except Exception:  # a player's bug must not end the engine
                    log.error("player failed to observe a result:\n%s", traceback.format_exc())

    def seat(self, rules: Rules) -> TablePlayer:
        assert self.seat_for is not None  # version 2 is only spoken with one
        seat = self.seats.get(rules.game)
        if seat is None:
            seat = self.seats[rules.game] = self.seat_for(rules)
        return seat

    def act(self, message: Act) -> ActionReply | ErrorMessage:
        view = message.view
        if not view.legal:
            return ErrorMessage(
                f"act {message.id}: the view lists no legal action, so there is nothing to do"
            )
        try:
            action: GameAction
            if isinstance(view, View):
                action = self.matches.player_for(view, message.opponent).act(view)
            else:
                action = self.seat(view.rules).act(view)
        except Exception as exc:  # report it to the host rather than die mid-match
            log.error("player failed on act %d:\n%s", message.id, traceback.format_exc())
            return ErrorMessage(f"act {message.id}: the player failed: {type(exc).__name__}: {exc}")
        return ActionReply(message.id, action)

    def observe(self, message: Result) -> None:
        view = message.view
        if isinstance(view, View):
            player = self.matches.player_for(view, message.opponent)
            self.matches.ended(view)
            player.observe(view)
        else:
            self.seat(view.rules).observe(view)


def _skip_rest_of_line(stdin: TextIO) -> None:
    while True:
        chunk = stdin.readline(MAX_LINE)
        if not chunk or chunk.endswith("\n"):
            return
