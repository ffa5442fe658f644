"""The single writer of one match: every accepted action is appended to the event log, then applied.

The log in the store is the match: a game is its rules and seed plus these events, so after a
crash `rebuild` replays them into exactly the game that was being played. An action is stored
and committed before it changes the game in memory and before anyone hears of it, so nothing
acknowledged is ever lost, and an action the store refused changed nothing. One `ActionLog` (and
its lock) per live match: no two writers.
"""

from __future__ import annotations

import asyncio
import functools
import json

from ..rules import (
    Game,
    GameAction,
    HandOutcome,
    IllegalActionError,
    NotYourTurnError,
    Rules,
    deal_seed,
    game_action_from_json,
    new_game,
)
from .errors import Refusal
from .ports import EventRow, EventStore, Lease, MatchRow, StoreError

__all__ = ["ActionLog", "game_of"]

#: Bits of the deal seeds of every match the platform makes (`deal_seed`); older ones kept 64.
PLATFORM_DEAL_BITS = 256


_dumps = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode


@functools.lru_cache(maxsize=256)
def _stored_rules(text: str) -> Rules:
    """The rules a match was stored with: a tournament's matches share theirs, parsed once."""
    return Rules.from_json(json.loads(text))


def game_of(row: MatchRow) -> Game:
    """A match's game as first dealt, before any action: its rules, its secret seed, its deal seeds."""
    seed, bits = row.seed, row.deal_bits

    def seeds(index: int) -> int:
        return deal_seed(seed, index, bits=bits)

    return new_game(_stored_rules(_dumps(row.rules)), seed=seed, seed_source=seeds)


class ActionLog:
    """The game of one live match and its version (the number of events stored)."""

    def __init__(
        self,
        match_id: str,
        game: Game,
        version: int,
        store: EventStore,
        played: list[int] | None = None,
        acted: list[int] | None = None,
    ) -> None:
        self.match_id = match_id
        self.game = game
        self.version = version
        self.store = store
        #: Per seat: the moves its player made themselves (not the server for them: a robot, or a
        #: stand-in when the turn clock ran out). Rated play asks for real moves (service/fairplay.py).
        self.played = played if played is not None else [0] * game.seat_count
        #: Per seat: every move made for it, by its player or the server (a seat that sat every
        #: deal out, as three-player Gin's dealer does, has none and was not absent).
        self.acted = acted if acted is not None else [0] * game.seat_count
        #: Held by whoever changes the match: one writer at a time.
        self.lock = asyncio.Lock()

    @classmethod
    def fresh(cls, row: MatchRow, store: EventStore) -> ActionLog:
        """The log of a match just stored: nothing to read back, no action yet."""
        return cls(row.id, game_of(row), 0, store)

    @classmethod
    async def rebuild(cls, row: MatchRow, store: EventStore) -> ActionLog:
        """The match as its stored events left it; `StoreError` if the log has a gap or does not replay."""
        game = game_of(row)
        events = await store.events(row.id)
        played = [0] * game.seat_count
        acted = [0] * game.seat_count
        for expected, event in enumerate(events, start=1):
            if event.seq != expected:
                raise StoreError(f"match {row.id}: event {expected} is missing from the log")
            try:
                game.apply(game_action_from_json(event.action), event.seat)
            except (IllegalActionError, ValueError) as exc:
                raise StoreError(f"match {row.id}: stored event {event.seq} does not replay: {exc}") from None
            acted[event.seat] += 1
            if not event.auto:
                played[event.seat] += 1
        return cls(row.id, game, len(events), store, played, acted)

    def absent(self) -> list[bool]:
        """Per seat: True when moves were made for it and none by its player (a stand-in played it all)."""
        return [acted > 0 and played == 0 for acted, played in zip(self.acted, self.played, strict=True)]

    def refusal(self, seat: int, action: GameAction) -> Refusal | None:
        """Why the game refuses `seat`'s action now, as (code, message); None when it is legal."""
        try:
            self.game.check(action, seat)
        except NotYourTurnError:
            return Refusal("not_your_turn", "it is not your turn")
        except IllegalActionError as exc:
            return Refusal("illegal_action", str(exc))
        return None

    async def append(
        self, seat: int, action: GameAction, *, auto: bool = False, fence: Lease | None = None
    ) -> HandOutcome | None:
        """Store a checked action, then apply it; returns the hand's result when it ended one.

        `auto`: the server chose the action for the seat (a robot, a stand-in). `fence`: in a cluster, the lease of the match this process holds (the store refuses the
        append with `LeaseLost` if another process owns it now). Call with `lock` held. If the
        store fails (`StoreError`) nothing has changed.
        """
        seq = self.version + 1
        event = EventRow(seq, seat, action.to_json(), auto)
        if fence is None:
            await self.store.append_event(self.match_id, event)
        else:
            await self.store.append_event(self.match_id, event, fence=fence)
        result = self.game.apply(action, seat)
        self.version = seq
        self.acted[seat] += 1
        if not auto:
            self.played[seat] += 1
        return result
