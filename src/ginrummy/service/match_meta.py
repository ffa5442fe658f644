"""The public facts of a live match that its messages carry beside the game's views: who sits
where, present or away, their clocks and stand-ins; the room, the rules' changes, ratings, hints,
and whether the match may still be aborted or resigned. Nothing here is secret to any seat.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

from ..rules import Game, Rules
from .ports import MatchKind, MatchStatus
from .seats import SeatInfo
from .turns import Turns

__all__ = ["PublicFacts", "players", "rule_changes", "seat_meta", "spectator_meta"]


class PublicFacts(Protocol):
    """What the facts are read from (a `live.LiveMatch`); of its game, only the name is read."""

    id: str
    kind: MatchKind
    status: MatchStatus
    seats: list[SeatInfo]
    turns: Turns
    room_code: str | None
    rematch_id: str | None
    rule_changes: dict[str, Any]
    rated: bool
    tournament_id: str | None
    ratings: list[Any] | None

    @property
    def match(self) -> Game: ...

    @property
    def turn_seconds(self) -> float | None: ...

    @property
    def hints(self) -> bool: ...

    @property
    def forfeitable(self) -> bool: ...

    @property
    def spectators(self) -> int: ...

    def connected(self, seat: int) -> bool: ...

    def moved(self, seat: int) -> bool: ...


@functools.lru_cache(maxsize=64)
def rule_changes(rules: Rules) -> dict[str, Any]:
    """What differs from the book rules of the game (two-player Gin: from classic); a
    tournament's matches share their rules, so it is computed once (the dict is only read)."""
    return rules.changes(Rules.for_game(rules.game, rules.players))


def players(live: PublicFacts) -> list[dict[str, Any]]:
    """Who sits where: each seat's name, kind, presence, stand-in and clock."""
    turns = live.turns
    return [
        {
            "seat": s.seat,
            "name": s.name,
            "kind": s.kind,
            "level": s.level,
            "connected": live.connected(s.seat) if s.kind is not None else False,
            "autoplay": turns.autoplay(s.seat),
            "autoplay_at": turns.autoplay_at(s.seat),
            "timeouts": turns.timeouts[s.seat],
            "invited": s.invited,
            "bot": s.bot,
            "guest": s.guest,
        }
        for s in live.seats
    ]


def seat_meta(live: PublicFacts, seat: int) -> dict[str, Any]:
    """The public `match` object of a state (the wire adds the rules and the deal's commitment)."""
    playing = live.status == "playing"
    return {
        "id": live.id,
        "kind": live.kind,
        "game": live.match.rules.game,
        "status": live.status,
        "seat": seat,
        "players": players(live),
        "turn_deadline": live.turns.first_deadline(),
        # Per seat: team Gin has two clocks running at once.
        "turn_deadlines": [live.turns.deadline(s) for s in range(len(live.seats))],
        "room_code": live.room_code,
        "rematch_id": live.rematch_id,
        # Every rule that differs from the game's book rules, for the table to show.
        "rule_changes": live.rule_changes,
        "rated": live.rated,
        "tournament_id": live.tournament_id,
        "ratings": live.ratings,
        "hints": live.hints,
        # Strangers may abort until both have moved (themselves), and resign after.
        "abortable": live.forfeitable and playing and not (live.moved(0) and live.moved(1)),
        "resignable": live.forfeitable and playing,
    }


def spectator_meta(live: PublicFacts) -> dict[str, Any]:
    """The public `match` object of a spectator's message of a dealt match."""
    return {
        "id": live.id,
        "kind": live.kind,
        "game": live.match.rules.game,
        "status": live.status,
        "players": players(live),
        "turn_deadline": live.turns.first_deadline(),
        # Each seat's clock (team Gin runs two at once) and the time a turn gives.
        "turn_deadlines": [live.turns.deadline(s) for s in range(len(live.seats))],
        "turn_seconds": live.turn_seconds,
        "rated": live.rated,
        "tournament_id": live.tournament_id,
        "spectators": live.spectators,
    }
