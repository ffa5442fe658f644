"""A live match: one game being played by its seats, made of narrow parts that each do one job.

- `ActionLog` (action_log.py): the single writer. Every accepted action is appended to the store
  and committed before it is applied in memory and before any seat hears of it, so a crash at any
  moment loses nothing that was acknowledged.
- `Turns` (turns.py): the clocks and the robots: when the server moves for a seat, and what it plays.
- `Connections` (connections.py): the sockets of each seat and of the spectators; reactions.
- `Wire` (wire.py): the messages, built from the game's views (`rules`) and public metadata only;
  that metadata (who sits where, the clocks, the rules' changes) is match_meta.py's.
- `Hints` (hints.py): the coach of casual two-player matches.
- `early_ending` (forfeits.py): the result of a match with a stranger aborted, resigned or left.

`LiveMatch` holds them together and is what the platform, the sockets and tournaments talk to. It
drives any `Game` (two-player Gin, three-player Gin, team Gin, Rummy) the same way; it knows its
host only through `MatchHost`, so nothing here imports the platform.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from ..rules import ActionError, Game, GameAction, Match, game_action_from_json
from .action_log import ActionLog
from .config import ServiceConfig
from .connections import REACTION_BURST, REACTIONS, Connection, Connections, Reactions
from .errors import Refusal
from .forfeits import early_ending
from .hints import HINT_BURST, HINT_RATE, Hints
from .match_meta import rule_changes, seat_meta, spectator_meta
from .ports import (
    Lease,
    LeaseLost,
    MatchKind,
    MatchOutcome,
    MatchStatus,
    SeatRow,
    Store,
    StoreBusy,
    StoreError,
)
from .ratings import seat_changes
from .seats import SeatInfo
from .turns import SHOWDOWN_PAUSE, STANDIN_LEVEL, TIMEOUTS_GONE, Turns
from .wire import dumps, error_message, wire_for

__all__ = [
    "Connection",
    "HINT_BURST",
    "HINT_RATE",
    "LiveMatch",
    "MatchHost",
    "REACTIONS",
    "REACTION_BURST",
    "SHOWDOWN_PAUSE",
    "STANDIN_LEVEL",
    "SeatInfo",
    "TIMEOUTS_GONE",
    "error_message",
]

log = logging.getLogger("ginrummy.service")

#: Seconds a change of the spectators' count waits, so that a burst of them is sent once.
SPECTATORS_PUSH = 0.5


class MatchHost(Protocol):
    """What a live match needs from the platform that runs it."""

    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> ServiceConfig: ...

    def clock(self) -> float: ...

    def outcome(
        self, live: LiveMatch, finished_at: float, *, forfeit_winner: int | None = None
    ) -> MatchOutcome | None:
        """What the finished match adds to statistics, leaderboards and ratings (None: nothing)."""
        ...

    def finished(self, live: LiveMatch, result: dict[str, Any] | None, finished_at: float) -> None:
        """The match just ended: `result` as stored at `finished_at` (None: it could not be stored)."""
        ...

    def fence(self, match_id: str) -> Lease | None:
        """The lease that fences the match's appends in a cluster (None for a single process)."""
        ...

    def lease_lost(self, live: LiveMatch) -> None:
        """An append was refused: another process owns the match now."""
        ...

    def release(self, live: LiveMatch) -> None:
        """Nobody watches the match any more: the host may forget it if it is over."""
        ...


class LiveMatch:
    """One match being played: the only object that changes it (under `lock`)."""

    def __init__(
        self,
        host: MatchHost,
        *,
        kind: MatchKind,
        status: MatchStatus,
        log: ActionLog,
        seats: list[SeatInfo],
        room_code: str | None,
        turn_seconds: float | None,
        rematch_id: str | None,
        rated: bool = False,
        tournament_id: str | None = None,
        ending: dict[str, Any] | None = None,
        ratings: list[Any] | None = None,
    ) -> None:
        self.host = host
        self.log = log
        self.id = log.match_id
        self.kind = kind
        self.status: MatchStatus = status
        self.seats = seats
        self.room_code = room_code
        self.rematch_id = rematch_id
        self.rated = rated  # rated matches are between people; no help (hints) is given in them
        self.tournament_id = tournament_id
        #: The result of a match ended before the rules ended it: aborted, resigned or abandoned.
        self.ending = ending
        #: Per seat, what the finished match did to its rating (`ratings.public_change`); None
        #: while it is played and when it moved no rating.
        self.ratings = ratings
        self.closed = False
        now = self.clock()
        self.last_activity = now
        # A person counts as away until a socket opens (also after a restart).
        self.conns = Connections(len(seats), [now if s.kind == "human" else None for s in seats])
        self.reactions = Reactions(len(seats), now)
        #: Casual two-player matches give hints; rated and tournament matches never do.
        self.coach = Hints(
            len(seats),
            now,
            given=not rated and tournament_id is None and kind != "tourney" and isinstance(log.game, Match),
            clock=self.clock,
        )
        self._count_due: asyncio.TimerHandle | None = None  # the spectators' count, to be sent
        self.turns = Turns(
            log=log,
            conns=self.conns,
            seats=seats,
            kind=kind,
            turn_seconds=turn_seconds,
            config=host.config,
            clock=self.clock,
            move=self._server_move,
            playing=lambda: self.status == "playing" and not self.log.game.is_over,
            abandon=self._left,
        )
        self.wire = wire_for(log.game)
        #: What differs from the book rules of the game, as every state message shows it.
        self.rule_changes = rule_changes(log.game.rules)

    def clock(self) -> float:
        return self.host.clock()

    @property
    def match(self) -> Game:
        """The game being played (a two-player `Match`, or any other `Game`)."""
        return self.log.game

    @property
    def version(self) -> int:
        """How many actions are stored (and applied)."""
        return self.log.version

    @property
    def lock(self) -> Any:
        """Held by whoever changes the match (the action log's lock)."""
        return self.log.lock

    @property
    def hints(self) -> bool:
        """Whether the match gives hints (casual two-player Gin only)."""
        return self.coach.given

    @property
    def timeouts(self) -> list[int]:
        """Per seat: turn clocks run out in a row."""
        return self.turns.timeouts

    @property
    def turn_seconds(self) -> float | None:
        return self.turns.turn_seconds

    # -- seats and connections -------------------------------------------------

    def seat_of(self, guest_id: str) -> int | None:
        """The seat `guest_id` sits in, or None."""
        for info in self.seats:
            if info.kind == "human" and info.guest_id == guest_id:
                return info.seat
        return None

    def seat_rows(self) -> tuple[SeatRow, ...]:
        """The seats as stored (who sits where)."""
        return tuple(SeatRow(s.seat, s.guest_id, s.level if s.kind == "robot" else None) for s in self.seats)

    def free_seats(self) -> list[int]:
        """The seats nobody sits in nor is invited to (a room's link fills them in order)."""
        return [s.seat for s in self.seats if s.kind is None and s.invited is None]

    def seated(self, seat: int, guest_id: str, name: str, *, guest: bool) -> None:
        """A person took the free `seat` (stored already; `guest`: it has no account). Call with
        `lock` held.

        The game is dealt once the last seat is taken: every clock starts then.
        """
        self.seats[seat] = SeatInfo(seat, "human", guest_id, None, name, guest=guest)
        self.conns.away_since[seat] = self.clock()
        if all(s.kind is not None for s in self.seats):
            self.status = "playing"
            self.turns.start()
        self.broadcast()
        self.reschedule()

    def connected(self, seat: int) -> bool:
        return self.seats[seat].kind == "robot" or self.conns.present(seat)

    def autoplay(self, seat: int) -> bool:
        """True when a stand-in robot plays for this person: gone past the grace period, or timed out."""
        return self.turns.autoplay(seat)

    def connect(self, seat: int, conn: Connection) -> None:
        """A seated player's socket opened: it gets the state at once; the other seats hear of it."""
        self.last_activity = self.clock()
        if self.conns.open(seat, conn):
            self.turns.came_back(seat)  # a player who opens the table again is at the keyboard
            self.broadcast()
            self.reschedule()
        else:
            conn.send_text(self.state_text(seat))

    def disconnect(self, seat: int, conn: Connection) -> None:
        """A socket closed; the last one closing starts the grace period."""
        self.last_activity = self.clock()
        if not self.conns.close(seat, conn, self.clock()) or self.closed:
            return
        self.watch_absence(seat)
        self.broadcast()
        self.reschedule()
        self.host.release(self)

    def has_connections(self) -> bool:
        return self.conns.any_open()

    @property
    def spectators(self) -> int:
        """How many spectators' sockets are open, here and (in a cluster) on the other processes,
        which one connection stands for (`cluster.tables.ChannelSeat.spectators`)."""
        return sum(getattr(conn, "spectators", 1) for conn in self.conns.watchers)

    def watch(self, conn: Connection) -> None:
        """A spectator's socket opened: it gets the public view now and after every change."""
        self.conns.watchers.add(conn)
        self.last_activity = self.clock()
        conn.send_text(self.spectator_text())
        self.spectators_changed()

    def unwatch(self, conn: Connection) -> None:
        self.conns.watchers.discard(conn)
        self.last_activity = self.clock()
        self.spectators_changed()
        self.host.release(self)

    def spectators_changed(self) -> None:
        """Tell the spectators how many they are, once for every burst of arrivals and departures
        (a crowd opening a featured match would otherwise cost one message per pair of them)."""
        if self._count_due is not None or self.closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): the next change tells them
            return

        def send() -> None:
            self._count_due = None
            if not self.closed:
                self.conns.send_watchers(self.spectator_text)

        self._count_due = loop.call_later(SPECTATORS_PUSH, send)

    def idle_since(self, now: float) -> float:
        """Seconds nobody has watched this match with nothing due in it (0 when busy)."""
        if self.has_connections() or self.turns.busy():
            return 0.0
        return now - self.last_activity

    # -- outbound messages -----------------------------------------------------

    def state(self, seat: int) -> dict[str, Any]:
        """The state message for `seat`: its VIEW, the last finished hand's VIEW, public metadata."""
        if self.status == "waiting":
            return self.wire.waiting(seat_meta(self, seat), self.version)
        return self.wire.state(seat, seat_meta(self, seat), self.version, self.ending)

    def state_text(self, seat: int) -> str:
        """`state(seat)` as JSON text."""
        if self.status == "waiting":
            return dumps(self.wire.waiting(seat_meta(self, seat), self.version))
        return self.wire.state_text(seat, seat_meta(self, seat), self.version, self.ending)

    def spectator_text(self) -> str:
        """What a spectator sees: only what every seat sees, never the match state itself."""
        if self.status == "waiting":  # a room whose first hand is not dealt yet: nothing to see
            return dumps(
                {"type": "spectate", "version": self.version, "match": {"id": self.id, "status": "waiting"}}
            )
        meta = spectator_meta(self)
        return dumps(self.wire.spectator(meta, self.version, self.ending))

    def broadcast(self) -> None:
        """Queue a fresh state to every open socket, each seat its own view, spectators the public one."""
        self.conns.send_each(self.state_text)
        self.conns.send_watchers(self.spectator_text)

    # -- actions ---------------------------------------------------------------

    async def act(self, seat: int, data: Any, version: Any) -> Refusal | None:
        """A player's action message; returns (code, message) when refused, None when accepted.

        `version` is the state the player chose in: refused as stale when what the seat had to
        decide changed since (in team Gin a move at the other hand does not make it stale).
        """
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            return Refusal("bad_message", f"version must be a whole number, got {version!r}")
        try:
            action = game_action_from_json(data)
        except ActionError as exc:
            return Refusal("bad_message", f"bad action: {exc}")
        async with self.lock:
            if self.closed:
                return Refusal("server_error", "the server is shutting down; reconnect in a moment")
            if version is not None and not self.turns.fresh(seat, version):
                return Refusal(
                    "stale",
                    f"your table is out of date (version {version}, now {self.version}); it is refreshed",
                )
            if self.status == "waiting":
                return Refusal("illegal_action", "waiting for every seat to be taken")
            if self.status == "over":
                return Refusal("illegal_action", "the match is over")
            refused = self.log.refusal(seat, action)
            if refused is not None:
                return refused
            try:
                await self._accept(seat, action, by_player=True)
            except LeaseLost:  # cluster hook: another process owns the match now
                return Refusal("unavailable", "the table moved to another server; it reconnects")
            except StoreBusy as exc:
                return Refusal(
                    "unavailable",
                    f"the server is busy; nothing changed, try again in {exc.retry_after:g} s",
                )
            except StoreError:
                log.exception("match %s: could not store an action", self.id)
                return Refusal("server_error", "the move could not be saved; nothing changed, try again")
        return None

    def back(self, seat: int) -> None:
        """The player says they are back after timing out: the stand-in robot stops playing for them."""
        if self.turns.back(seat):
            self.broadcast()
            self.reschedule()

    def react(self, seat: int, emote: Any) -> Refusal | None:
        """A quick reaction for the other players; returns (code, message) when refused."""
        message = self.reactions.message(seat, emote, self.clock())
        if isinstance(message, tuple):
            return message
        self.conns.send_seated(message)
        return None

    async def hint(self, seat: int, version: Any) -> str | Refusal:
        """The expert's move for this seat's own turn with its reason, as a `hint` message; or
        (code, message) when refused (`hints.Hints`)."""
        return await self.coach.hint(
            self.match, seat, version, playing=self.status == "playing", now_version=self.version
        )

    async def _server_move(self, seat: int, action: GameAction, timed_out: bool) -> None:
        await self._accept(seat, action, timed_out=timed_out)

    async def _accept(
        self, seat: int, action: GameAction, *, by_player: bool = False, timed_out: bool = False
    ) -> None:
        """Store, then apply and announce a checked action. Call with `lock` held."""
        number = self.match.hand_number
        try:
            # Cluster hook: fenced by this process's lease of the match (a single process has none).
            result = await self.log.append(seat, action, auto=not by_player, fence=self.host.fence(self.id))
        except LeaseLost:
            self.host.lease_lost(self)
            raise
        self.last_activity = self.clock()
        self.turns.applied(
            seat, ended_hand=number if result is not None else None, by_player=by_player, timed_out=timed_out
        )
        game = self.match
        if game.result is not None:
            self.status = "over"
            now = self.clock()
            final = game.result.to_json()
            stored: dict[str, Any] | None = final
            outcome = self.host.outcome(self, now)
            try:
                await self.host.store.finish_match(self.id, final, now, outcome)
            except StoreError:
                # The log holds the final action: the next start marks the match finished.
                log.exception("match %s: could not mark the match finished", self.id)
                stored = None
            if stored is not None and outcome is not None and outcome.rate is not None:
                await self._read_ratings()
            self.host.finished(self, stored, now)
        self.broadcast()
        self.reschedule()

    async def _read_ratings(self) -> None:
        """Read what the match just stored did to the ratings, for the end screen's last state."""
        try:
            points = await self.host.store.rating_changes([self.id])
        except StoreError:
            # The ratings are stored; the end screen shows them once the match is opened again.
            log.exception("match %s: could not read its rating changes", self.id)
            return
        self.ratings = seat_changes(points, [s.guest_id for s in self.seats], self.match.rules.game)

    def reschedule(self) -> None:
        """Arrange the next server-made moves, if any are due; cancel stale ones."""
        self.turns.reschedule()

    async def close(self) -> None:
        """Stop timers and robot moves (server shutdown)."""
        self.closed = True
        if self._count_due is not None:
            self._count_due.cancel()
        await self.turns.close()

    # -- aborting, resigning and leaving a match with a stranger --------------------

    @property
    def forfeitable(self) -> bool:
        """Matches between strangers (quick pairing, tournaments) can be aborted, resigned and abandoned."""
        return self.kind in ("online", "tourney")

    def _gin(self) -> Match:
        match = self.match
        if not isinstance(match, Match):  # strangers are paired for two-player Gin only
            raise TypeError(f"only two-player Gin is played between strangers, not {match.rules.game}")
        return match

    def moved(self, seat: int) -> bool:
        """True once `seat` has made a move in this match (two-player Gin with a stranger): a person
        must have made it themselves, a move the stand-in made when their clock ran out is none."""
        if self.seats[seat].kind == "robot":  # an arena's odd player out plays a robot
            return any(step.seat == seat for hand in self._gin().hands for step in hand.steps)
        return self.log.played[seat] > 0

    def watch_absence(self, seat: int) -> None:
        """A person of a match with a stranger who stays away `grace_seconds` leaves it (see `_left`)."""
        if self.forfeitable and self.status == "playing" and self.seats[seat].kind == "human":
            self.turns.watch_absence(seat)

    async def _left(self, seat: int) -> None:
        async with self.lock:
            if self.closed or self.status != "playing" or self.conns.present(seat):
                return
            await self._end_early(seat, "abandoned")

    async def abort(self, seat: int) -> Refusal | None:
        """End the match with no result, allowed until both players have moved."""
        async with self.lock:
            if not self.forfeitable or self.status != "playing":
                return Refusal(
                    "illegal_action", "only a match with a stranger that is being played can be aborted"
                )
            if self.moved(0) and self.moved(1):
                return Refusal(
                    "illegal_action",
                    "both players have moved: the match can no longer be aborted (resign instead)",
                )
            await self._end_early(seat, "aborted")
        return None

    async def resign(self, seat: int) -> Refusal | None:
        """Give the match up: the opponent wins it (before both have moved, it is aborted instead)."""
        async with self.lock:
            if not self.forfeitable or self.status != "playing":
                return Refusal(
                    "illegal_action", "only a match with a stranger that is being played can be resigned"
                )
            await self._end_early(seat, "resigned")
        return None

    async def _end_early(self, seat: int, reason: str) -> None:
        """Finish the match for a reason of its own. Call with `lock` held.

        The rules of that result are `forfeits.early_ending`'s.
        """
        self.ending = early_ending(
            self._gin(),
            seat,
            reason,
            both_moved=self.moved(0) and self.moved(1),
            rated=self.rated,
            moves=list(self.log.played),
        )
        winner = self.ending["winner"]
        self.status = "over"
        now = self.last_activity = self.clock()
        outcome = self.host.outcome(self, now, forfeit_winner=winner) if winner is not None else None
        stored: dict[str, Any] | None = self.ending
        try:
            await self.host.store.finish_match(self.id, self.ending, now, outcome)
        except StoreError:
            log.exception("match %s: could not store its early end", self.id)
            stored = None
        if stored is not None and outcome is not None and outcome.rate is not None:
            await self._read_ratings()
        self.turns.stop()
        self.host.finished(self, stored, now)
        self.broadcast()
