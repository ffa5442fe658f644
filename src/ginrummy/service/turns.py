"""Clocks and robots at one table: when the server moves for a seat, and what it plays there.

The server moves for a seat that has something to do (`Game.seats_to_act`: two seats at once in
team Gin, each with its own clock) when:

- a robot sits there (after `robot_delay`);
- a friend left the table (rooms): a stand-in robot plays for them once the grace period is over,
  until they are back;
- the turn clock ran out on a person at the table: the stand-in makes that one move; after
  `TIMEOUTS_GONE` clocks in a row the person counts as gone and the stand-in plays at once, until
  they say they are back or act again.

Nobody is moved for when nobody is kept waiting (a person alone with robots, or everyone else
away). A seat's clock starts when its options change (the moment it has a new decision to make),
so in team Gin a move at the other hand neither restarts nor stops it; after a hand ends the
clocks wait for the showdown to be read. A person of a match with a stranger who stays away for
the grace period leaves the match (`abandon`).

Robots see their seat's view and nothing else, like everyone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from ..bots.table_players import TablePlayer
from ..rules import GameAction
from .action_log import ActionLog
from .config import ServiceConfig
from .connections import Connections
from .ports import MatchKind, StoreError
from .robots import QUICK_LEVELS, resolve_level, robot_for
from .seats import SeatInfo

__all__ = ["SHOWDOWN_PAUSE", "STANDIN_LEVEL", "TIMEOUTS_GONE", "Turns"]

log = logging.getLogger("ginrummy.service")

STANDIN_LEVEL = "casual"  # plays for a disconnected or timed-out person
SHOWDOWN_PAUSE = 8.0  # seconds the table shows a showdown before the clocks of the next deal run
#: After this many turn clocks in a row run out, a player counts as gone: the stand-in robot plays
#: for them at once (as for a player who left) until they say they are back or act again.
TIMEOUTS_GONE = 2

#: Makes a move the server chose: (seat, action, timed_out), called with the log's lock held.
Mover = Callable[[int, GameAction, bool], Awaitable[None]]


class Turns:
    """The clocks of every seat, the robots that play, and the moves the server makes for them."""

    def __init__(
        self,
        *,
        log: ActionLog,
        conns: Connections,
        seats: Sequence[SeatInfo],
        kind: MatchKind,
        turn_seconds: float | None,
        config: ServiceConfig,
        clock: Callable[[], float],
        move: Mover,
        playing: Callable[[], bool],
        abandon: Callable[[int], Coroutine[Any, Any, None]],
    ) -> None:
        self.log = log
        self.conns = conns
        self.seats = seats
        self.kind = kind
        self.turn_seconds = turn_seconds
        self.config = config
        self.clock = clock
        self._move = move
        self._playing = playing
        self._abandon = abandon
        game = log.game
        n = game.seat_count
        now = clock()
        self.timeouts = [0] * n  # turn clocks run out in a row, per seat
        self.turn_started = [now] * n
        # Per seat: its legal actions, and the version since which they have not changed.
        self._options: list[tuple[GameAction, ...]] = [tuple(game.legal_actions(s)) for s in range(n)]
        self._since = [log.version] * n
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._leaving: dict[int, asyncio.TimerHandle] = {}
        self._thinking: dict[int, int] = {}  # seat -> the version its robot move was started at
        self._tasks: set[asyncio.Task[None]] = set()
        self._players: dict[int, TablePlayer] = {}  # robots, and stand-ins for absent people
        self._quick: dict[int, bool] = {}  # seat -> its robot decides on the event loop
        self.closed = False

    # -- what the table shows ------------------------------------------------------

    def fresh(self, seat: int, version: int) -> bool:
        """True when a move `seat` chose at `version` still answers the seat's situation now:
        nothing the seat has to decide changed since (in team Gin the other hand may have moved)."""
        return self._since[seat] <= version <= self.log.version

    def deadline(self, seat: int) -> float | None:
        """When `seat`'s turn clock runs out (None: no clock, or nothing to do)."""
        if not self.turn_seconds or not self._playing() or not self._options[seat]:
            return None
        return self.turn_started[seat] + self.turn_seconds

    def first_deadline(self) -> float | None:
        """The soonest clock of the seats to act."""
        times = [t for s in self.log.game.seats_to_act if (t := self.deadline(s)) is not None]
        return min(times) if times else None

    def autoplay(self, seat: int) -> bool:
        """True when a stand-in robot plays for this person: gone past the grace period, or timed out."""
        if self.kind != "room" or self.seats[seat].kind != "human":
            return False
        if self.timeouts[seat] >= TIMEOUTS_GONE:
            return True
        at = self.autoplay_at(seat)
        return at is not None and self.clock() >= at

    def autoplay_at(self, seat: int) -> float | None:
        """When the stand-in robot takes over for this disconnected person (None while connected)."""
        since = self.conns.away_since[seat]
        if self.kind != "room" or self.seats[seat].kind != "human" or self.conns.present(seat):
            return None
        return None if since is None else since + self.config.grace_seconds

    def busy(self) -> bool:
        """True while a server move is due or being made."""
        return bool(self._timers or self._thinking or self._tasks)

    # -- changes ---------------------------------------------------------------------

    def start(self) -> None:
        """Every clock starts now (the deal of a room whose last seat was just taken)."""
        game = self.log.game
        now = self.clock()
        for seat in range(game.seat_count):
            self._options[seat] = tuple(game.legal_actions(seat))
            self._since[seat] = self.log.version
            self.turn_started[seat] = now

    def applied(
        self, seat: int, *, ended_hand: int | None, by_player: bool = False, timed_out: bool = False
    ) -> None:
        """An action of `seat` was applied (`ended_hand`: the number of the hand it ended)."""
        if by_player:
            self.timeouts[seat] = 0
        elif timed_out:
            self.timeouts[seat] += 1
        game = self.log.game
        now = self.clock()
        start = now + (SHOWDOWN_PAUSE if ended_hand is not None else 0.0)
        acting = set(game.seats_to_act)
        for other in range(game.seat_count):
            if not self._options[other] and other not in acting:
                continue  # had nothing to do and still has nothing
            options = tuple(game.legal_actions(other))
            if options != self._options[other] or other == seat:
                self._options[other] = options
                self._since[other] = self.log.version
                self.turn_started[other] = start
        if ended_hand is not None:
            self._robots_observe(ended_hand)

    def came_back(self, seat: int) -> None:
        """A person opened the table again: at the keyboard, and no longer leaving."""
        self.timeouts[seat] = 0
        timer = self._leaving.pop(seat, None)
        if timer is not None:
            timer.cancel()

    def back(self, seat: int) -> bool:
        """The person says they are back after timing out; False if they had not timed out."""
        if self.timeouts[seat] == 0:
            return False
        self.timeouts[seat] = 0
        self.turn_started[seat] = max(self.turn_started[seat], self.clock())  # a whole clock for this move
        return True

    def _robots_observe(self, number: int) -> None:
        game = self.log.game
        for seat, player in self._players.items():
            try:
                player.observe(game.hand_view(seat, number))
            except Exception:
                log.exception("match %s: robot in seat %d failed to observe a hand", self.log.match_id, seat)

    # -- the server's moves ------------------------------------------------------------

    def _connected(self, seat: int) -> bool:
        return self.seats[seat].kind == "robot" or self.conns.present(seat)

    def _move_at(self, seat: int) -> tuple[float, bool] | None:
        """When the server should move for `seat` (robot, stand-in or clock), or None to wait;
        with True when that move is the turn clock running out on a person at the table."""
        config = self.config
        now = self.clock()
        if self.seats[seat].kind == "robot":
            return now + config.robot_delay, False
        waiting = any(self._connected(s) for s in range(len(self.seats)) if s != seat)
        if self.kind == "robot" or not waiting:
            return None  # nobody is kept waiting
        if self.timeouts[seat] >= TIMEOUTS_GONE:
            return now + config.robot_delay, False  # timed out again and again: treated as gone
        present = self.conns.present(seat)
        times: list[tuple[float, bool]] = []
        since = self.conns.away_since[seat]
        if since is not None and not present and self.kind == "room":
            # Friends get a stand-in; strangers who leave lose the match instead (watch_absence).
            times.append((since + config.grace_seconds, False))
        if self.turn_seconds:
            # The clock running out counts against a person at the table, not one who left.
            times.append((self.turn_started[seat] + self.turn_seconds, present))
        if not times:
            return None
        at, timed_out = min(times)
        return max(at, now + config.robot_delay), timed_out

    def reschedule(self) -> None:
        """Arrange the next server-made move of every seat to act, if one is due; cancel stale ones."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        if self.closed or not self._playing():
            return
        loop = asyncio.get_running_loop()
        version = self.log.version
        for seat in self.log.game.seats_to_act:
            if self._thinking.get(seat, -1) >= self._since[seat]:
                continue  # its robot is already choosing this move
            due = self._move_at(seat)
            if due is None:
                continue
            at, timed_out = due
            self._timers[seat] = loop.call_later(
                max(0.0, at - self.clock()), self._start_move, seat, version, timed_out
            )

    def _start_move(self, seat: int, version: int, timed_out: bool) -> None:
        self._timers.pop(seat, None)
        if self.closed:
            return
        self._spawn(self._server_move(seat, version, timed_out))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _player(self, seat: int) -> TablePlayer:
        player = self._players.get(seat)
        if player is None:
            info = self.seats[seat]
            level = info.level if info.kind == "robot" and info.level else STANDIN_LEVEL
            rules = self.log.game.rules
            player = robot_for(level, rules, time_budget=self.config.robot_time_budget)
            self._players[seat] = player
            self._quick[seat] = resolve_level(level, rules.game) in QUICK_LEVELS
        return player

    async def _server_move(self, seat: int, version: int, timed_out: bool) -> None:
        game = self.log.game
        if not self.fresh(seat, version) or seat not in game.seats_to_act or not self._playing():
            return
        player = self._player(seat)
        view = game.view(seat)  # the robot gets this seat's view and nothing else
        self._thinking[seat] = version
        action: GameAction | None
        try:
            if self._quick[seat]:
                action = player.act(view)
            else:
                action = await asyncio.to_thread(player.act, view)
        except Exception:
            log.exception("match %s: robot in seat %d failed to choose", self.log.match_id, seat)
            action = None
        finally:
            self._thinking.pop(seat, None)
        async with self.log.lock:
            if self.closed or not self.fresh(seat, version) or not self._playing():
                return
            legal = view.legal
            if action is None or action not in legal:
                log.error(
                    "match %s: robot in seat %d chose an illegal action; it plays a legal one",
                    self.log.match_id,
                    seat,
                )
                action = legal[0]
            try:
                await self._move(seat, action, timed_out)
            except StoreError:
                log.exception("match %s: could not store a robot move; retrying", self.log.match_id)
                loop = asyncio.get_running_loop()
                self._timers[seat] = loop.call_later(1.0, self.reschedule)

    # -- leaving a match with a stranger --------------------------------------------

    def watch_absence(self, seat: int) -> None:
        """Start the grace period of a person who is away: if they stay away they leave the match."""
        if self.conns.present(seat) or seat in self._leaving or self.closed:
            return
        loop = asyncio.get_running_loop()
        self._leaving[seat] = loop.call_later(self.config.grace_seconds, self._left, seat)

    def _left(self, seat: int) -> None:
        self._leaving.pop(seat, None)
        self._spawn(self._abandon(seat))

    def stop(self) -> None:
        """No more server moves or departures (the match ended)."""
        for timer in (*self._timers.values(), *self._leaving.values()):
            timer.cancel()
        self._timers.clear()
        self._leaving.clear()

    async def close(self) -> None:
        """Stop timers and robot moves (server shutdown)."""
        self.closed = True
        self.stop()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
