"""The sockets at one table: each seat's open sockets, the spectators', and the quick reactions between seats.

A seat may have several sockets (two tabs, a phone and a laptop); the seat counts as present while
one is open, and as away from the moment the last one closed (a person also counts as away until
their first socket opens, after a restart too). Nothing here knows what a message says: the live
match gives each seat its own text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Protocol

from .errors import Refusal

__all__ = [
    "Allowance",
    "REACTIONS",
    "REACTION_BURST",
    "REACTION_RATE",
    "Connection",
    "Connections",
    "Reactions",
]

#: The quick reactions a player may send the table: a fixed set, so there is nothing to moderate.
REACTIONS = ("hello", "good_luck", "nice", "wow", "oops", "thinking", "thanks", "gg")
REACTION_RATE = 0.5  # reactions a second a seat may send on average...
REACTION_BURST = 3  # ...and this many at once


class Connection(Protocol):
    """One open socket of a seated player or a spectator; `send_text` queues a message and never blocks."""

    def send_text(self, text: str) -> None: ...


class Connections:
    """Who is connected where: the sockets of every seat and of the spectators."""

    def __init__(self, seats: int, away_since: list[float | None]) -> None:
        self.by_seat: list[set[Connection]] = [set() for _ in range(seats)]
        self.watchers: set[Connection] = set()
        #: Per seat: since when its person has had no socket open (None while connected, and for robots).
        self.away_since = away_since

    def present(self, seat: int) -> bool:
        """True while the seat has a socket open."""
        return bool(self.by_seat[seat])

    def any_open(self) -> bool:
        return any(self.by_seat) or bool(self.watchers)

    def open(self, seat: int, conn: Connection) -> bool:
        """Add a socket; True when it is the seat's first (the seat has just come back)."""
        first = not self.by_seat[seat]
        self.by_seat[seat].add(conn)
        if first:
            self.away_since[seat] = None
        return first

    def close(self, seat: int, conn: Connection, now: float) -> bool:
        """Remove a socket; True when it was the seat's last (the seat is away from `now`)."""
        sockets = self.by_seat[seat]
        if conn not in sockets:
            return False
        sockets.discard(conn)
        if sockets:
            return False
        self.away_since[seat] = now
        return True

    def send_each(self, text_for: Callable[[int], str]) -> None:
        """Every connected seat its own text (built once per seat, only for seats with a socket)."""
        for seat, sockets in enumerate(self.by_seat):
            if sockets:
                text = text_for(seat)
                for conn in list(sockets):
                    conn.send_text(text)

    def send_seated(self, text: str) -> None:
        """The same text to every seated socket (a reaction)."""
        for sockets in self.by_seat:
            for conn in list(sockets):
                conn.send_text(text)

    def send_watchers(self, text_of: Callable[[], str]) -> None:
        if self.watchers:
            text = text_of()
            for conn in list(self.watchers):
                conn.send_text(text)


class Allowance:
    """A token bucket per seat: `rate` a second on average, `burst` at once."""

    def __init__(self, seats: int, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = [self.burst] * seats
        self.at = [now] * seats

    def take(self, seat: int, now: float) -> bool:
        """True (and one token spent) when the seat may do it now."""
        tokens = min(self.burst, self.tokens[seat] + (now - self.at[seat]) * self.rate)
        self.at[seat] = now
        if tokens < 1.0:
            self.tokens[seat] = tokens
            return False
        self.tokens[seat] = tokens - 1.0
        return True


class Reactions:
    """The emotes seats send each other, from a fixed set, each seat with its own token bucket."""

    def __init__(self, seats: int, now: float) -> None:
        self._allowance = Allowance(seats, REACTION_RATE, REACTION_BURST, now)

    def message(self, seat: int, emote: object, now: float) -> Refusal | str:
        """The reaction message to send, or (code, message) when it is refused."""
        if emote not in REACTIONS:
            return Refusal("bad_message", f"unknown reaction {emote!r}; send one of {', '.join(REACTIONS)}")
        if not self._allowance.take(seat, now):
            return Refusal("rate_limited", "too many reactions: wait a moment")
        return json.dumps({"type": "reaction", "seat": seat, "emote": emote}, separators=(",", ":"))
