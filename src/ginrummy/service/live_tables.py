"""The live tables of this process: the matches played here, loaded from their logs on demand
(one load at a time per match) and unloaded when nothing is due in them and nobody watches, and
what a live match asks of its host (`live.MatchHost`: the store, the clock, its lease in a
cluster, what its end adds to the ratings, and who is told it ended).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

from ..rules import Game
from . import outcomes
from .action_log import ActionLog
from .bots import BotAccounts
from .cluster.ports import Ownership, Table
from .config import ServiceConfig
from .live import LiveMatch, SeatInfo
from .options import robot_name
from .ports import Lease, MatchOutcome, MatchRow, SeatRow, Store
from .ratings import seat_changes

__all__ = ["LiveTables"]

log = logging.getLogger("ginrummy.service")


class LiveTables:
    """The live matches of this process, by id; the one object that loads, unloads and hosts them."""

    def __init__(
        self,
        store: Store,
        config: ServiceConfig,
        clock: Callable[[], float],
        bots: BotAccounts,
        *,
        finished: Callable[[LiveMatch, dict[str, Any] | None, float], None],
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.bots = bots
        self._finished = finished
        self.live: dict[str, LiveMatch] = {}
        self._loading: dict[str, asyncio.Future[LiveMatch | None]] = {}
        #: Set by the cluster layer (service/cluster) when many processes share the site; None alone.
        self.ownership: Ownership | None = None

    def finished(self, live: LiveMatch, result: dict[str, Any] | None, finished_at: float) -> None:
        """A match just ended: `result` as stored with it at `finished_at` (None: it could not be
        stored; the next start finishes it from its log). The platform's parts are told."""
        self._finished(live, result, finished_at)

    def sweep(self) -> int:
        """Unload matches nobody watches and nothing is due in (they reload from the log on demand)."""
        now = self.clock()
        idle = [live for live in self.live.values() if live.idle_since(now) >= self.config.idle_seconds]
        for live in idle:
            del self.live[live.id]
            live.closed = True
            self._unloaded(live)
        return len(idle)

    def renamed(self, guest_id: str, name: str) -> None:
        """Show a guest's new name at every live table of this process it sits at."""
        for live in self.live.values():
            seat = live.seat_of(guest_id)
            if seat is not None:
                live.seats[seat].name = name
                live.broadcast()

    async def open_table(self, match_id: str) -> LiveMatch | Table | None:
        """What a socket of the match talks to: the live match, or in a cluster perhaps a relay to
        the process that owns it."""
        if self.ownership is not None:
            return await self.ownership.open_table(match_id)
        return await self.get_live(match_id)

    def fence(self, match_id: str) -> Lease | None:
        """The lease that fences the match's event appends in a cluster (None for a single process)."""
        return self.ownership.fence(match_id) if self.ownership is not None else None

    def lease_lost(self, live: LiveMatch) -> None:
        """An append of `live` was refused: another process owns it now; this one lets it go."""
        if self.ownership is not None:
            self.ownership.lost(live.id)

    def _unloaded(self, live: LiveMatch) -> None:
        if self.ownership is not None:
            self.ownership.unloaded(live.id)

    async def get_live(self, match_id: str) -> LiveMatch | None:
        """The live match (loaded from the log if needed), or None if there is no such match."""
        live = self.live.get(match_id)
        if live is not None:
            return live
        pending = self._loading.get(match_id)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveMatch | None] = asyncio.get_running_loop().create_future()
        self._loading[match_id] = future
        try:
            row = await self.store.get_match(match_id)
            live = await self.load(row) if row is not None else None
            future.set_result(live)
            return live
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody else waits
            raise
        finally:
            del self._loading[match_id]

    async def _invited(self, row: MatchRow) -> dict[int, str]:
        """The names of the players a rematch still waits for, by seat (their seats are kept for them)."""
        if row.status != "waiting" or row.rematch_of is None:
            return {}
        old = await self.store.get_match(row.rematch_of)
        if old is None:
            return {}
        free = {s.seat for s in row.seats if s.guest_id is None and s.robot_level is None}
        wanted = {s.seat: s.guest_id for s in old.seats if s.seat in free and s.guest_id is not None}
        found = await self.store.get_guests(list(wanted.values())) if wanted else {}
        return {seat: found[gid].name if gid in found else "Guest" for seat, gid in wanted.items()}

    async def open_new(self, rows: list[MatchRow], names: dict[str, str]) -> None:
        """Open matches just stored (a tournament's pairing): nothing to read back, no action yet.

        `names`: the players' names (who is missing is read from the store).
        """
        for row in rows:
            await self.load(row, names=names, fresh=True)

    async def load(
        self, row: MatchRow, names: dict[str, str] | None = None, *, fresh: bool = False
    ) -> LiveMatch:
        """A live match for `row`, rebuilt from its log (`fresh`: just stored, so it has none)."""
        existing = self.live.get(row.id)
        if existing is not None:
            return existing
        if self.ownership is not None:
            # The lease first, then the log: from here on no other process can append to it.
            await self.ownership.claim(row.id)
        action_log = ActionLog.fresh(row, self.store) if fresh else await ActionLog.rebuild(row, self.store)
        game = action_log.game
        wanted = [s.guest_id for s in row.seats if s.guest_id is not None and s.guest_id not in (names or {})]
        found = {g.id: g.name for g in (await self.store.get_guests(wanted)).values()} if wanted else {}
        names = {**(names or {}), **found}
        invited = await self._invited(row)
        people = [s.guest_id for s in row.seats if s.guest_id is not None]
        bots = await self.bots.of(people)
        members = await self.store.get_accounts(people) if people else {}
        seats = []
        for s in row.seats:
            if s.guest_id is not None:
                name = names.get(s.guest_id, "Guest")
                seats.append(
                    SeatInfo(
                        s.seat,
                        "human",
                        s.guest_id,
                        None,
                        name,
                        bot=s.guest_id in bots,
                        guest=s.guest_id not in members,
                    )
                )
            elif s.robot_level is not None:
                seats.append(SeatInfo(s.seat, "robot", None, s.robot_level, robot_name(s.robot_level)))
            else:
                seats.append(SeatInfo(s.seat, invited=invited.get(s.seat)))
        status = row.status
        if game.result is not None and status != "over":
            # The final action was stored but the crash came before the match was marked finished.
            now = self.clock()
            outcome = self.outcome_of(game, row.seats, row.rated, now, absent=action_log.absent())
            await self.store.finish_match(row.id, game.result.to_json(), now, outcome)
            status = "over"
        ratings = None
        if status == "over" and row.rated:
            ratings = seat_changes(
                await self.store.rating_changes([row.id]), [s.guest_id for s in row.seats], game.rules.game
            )
        live = LiveMatch(
            self,
            kind=row.kind,
            status=status,
            log=action_log,
            seats=seats,
            room_code=row.room_code,
            turn_seconds=row.turn_seconds,
            rematch_id=row.rematch_id,
            rated=row.rated,
            tournament_id=row.tournament_id,
            ending=row.result if status == "over" and game.result is None else None,
            ratings=ratings,
        )
        existing = self.live.get(row.id)
        if existing is not None:  # loaded meanwhile by another request
            return existing
        self.live[row.id] = live
        live.reschedule()
        for seat in range(len(seats)):
            live.watch_absence(seat)  # strangers must come to the table (again, after a restart)
        return live

    def outcome(
        self, live: LiveMatch, finished_at: float, *, forfeit_winner: int | None = None
    ) -> MatchOutcome | None:
        """What a finished match adds to statistics, leaderboards and ratings (written with its result)."""
        return self.outcome_of(
            live.match,
            live.seat_rows(),
            live.rated,
            finished_at,
            forfeit_winner=forfeit_winner,
            absent=live.log.absent(),
        )

    def outcome_of(
        self,
        game: Game,
        seats: tuple[SeatRow, ...],
        rated: bool,
        finished_at: float,
        *,
        forfeit_winner: int | None = None,
        absent: Sequence[bool] = (),
    ) -> MatchOutcome | None:
        """What a finished game adds to statistics, boards and ratings (`outcomes.outcome_of`)."""
        return outcomes.outcome_of(
            game,
            seats,
            rated,
            finished_at,
            bot_seated=self.bots.seated(seats),
            forfeit_winner=forfeit_winner,
            absent=absent,
        )

    def release(self, live: LiveMatch) -> None:
        """Forget a finished match nobody is watching (it reloads from the log on demand)."""
        if live.status == "over" and not live.has_connections() and self.live.get(live.id) is live:
            del self.live[live.id]
            self._unloaded(live)
