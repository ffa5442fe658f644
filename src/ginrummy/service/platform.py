"""The game service: the live tables of this process, robot matches, and the parts the web layers
call by name (`guests`, `cookies`, `rooms`, `seeking`, `history` for lists, replays and profiles,
`tournaments`, `bots`, `analyses`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..rules import GAMES, Game, Match
from . import outcomes
from .accounts import AccountService
from .action_log import ActionLog, game_of
from .analysis import Analyses
from .bots import BotAccounts
from .challenges import Challenges
from .cluster.ports import OwnedElsewhere, Ownership, Table
from .config import ServiceConfig
from .cookies import Cookies
from .errors import BadRequest, Unavailable
from .fairplay import FairPlay
from .guests import Guests
from .history import MatchHistory
from .identity import (
    new_secret,
)
from .leaderboards import Leaderboards
from .live import LiveMatch, SeatInfo
from .live_games import LIVE_SHOWN, entries, is_public, ordered
from .options import (
    parse_robot_levels,
    parse_rules,
    robot_name,
)
from .ports import (
    GuestRow,
    Lease,
    MatchOutcome,
    MatchRow,
    SeatRow,
    Store,
)
from .ratings import BOT_POOL, GAME, public_rating, seat_changes
from .robots import LEVELS
from .rooms import Rooms
from .seeking import Seeking
from .tournaments import Tournaments

__all__ = ["GameService"]

log = logging.getLogger("ginrummy.service")


class GameService:
    """Everything the HTTP and WebSocket layers do goes through here."""

    def __init__(
        self,
        store: Store,
        config: ServiceConfig | None = None,
        *,
        secret: str | None = None,
        clock: Callable[[], float] = time.time,
        accounts: AccountService | None = None,
    ) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.clock = clock
        self.accounts = accounts or AccountService(store, clock=clock)
        self.boards = Leaderboards(store, clock)
        self.fairplay = FairPlay(store, clock, rated_same_address=self.config.rated_same_address)
        self.tournaments = Tournaments(self)
        self.bots = BotAccounts(store, clock)
        self.challenges = Challenges(self)
        self.analyses = Analyses(self)
        self.cookies = Cookies(store, lambda: self.secret, clock)
        self.guests = Guests(store, self.accounts, self.boards, renamed=self._renamed_everywhere, clock=clock)
        self.seeking = Seeking(self)
        self.rooms = Rooms(self)
        self.pool = self.seeking.pool
        self.live: dict[str, LiveMatch] = {}
        #: Lists of a guest's matches, replays and profiles (service/history.py).
        self.history = MatchHistory(store, self.bots, self.challenges, self.live, clock)
        self._pairer: asyncio.Task[None] | None = None
        self._secret = secret
        self._loading: dict[str, asyncio.Future[LiveMatch | None]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        #: Set by the cluster layer (service/cluster) when many processes share the site; None alone.
        self.ownership: Ownership | None = None

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        """Start the store, settle the secret, and rebuild the recently played matches from their logs.

        Unfinished matches untouched for `restore_seconds` (a player who left a robot match, a
        room both players left) are not rebuilt now: nothing is due in them until somebody opens
        one, and then `get_live` rebuilds it. A restart stays quick however many there are.
        """
        await self.store.start()
        if self._secret is None:
            # Generated once and kept in the database, so cookies survive restarts.
            self._secret = await self.store.get_or_create_setting("secret", new_secret())
        rows = await self.store.live_matches(active_since=self.clock() - self.config.restore_seconds)
        for row in rows:
            try:
                await self._load(row)
            except OwnedElsewhere:
                continue  # another process of the cluster runs it
            except Exception:
                log.exception("match %s could not be rebuilt from its log", row.id)
        if rows:
            log.info("rebuilt %d unfinished matches from the log", len(rows))
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())
        self._pairer = asyncio.get_running_loop().create_task(self._pair_forever())
        await self.tournaments.start()
        await self.analyses.start()

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(max(1.0, self.config.idle_seconds / 4))
            self.sweep()

    def sweep(self) -> int:
        """Unload matches nobody watches and nothing is due in (they reload from the log on demand)."""
        now = self.clock()
        idle = [live for live in self.live.values() if live.idle_since(now) >= self.config.idle_seconds]
        for live in idle:
            del self.live[live.id]
            live.closed = True
            self._unloaded(live)
        return len(idle)

    async def _pair_forever(self) -> None:
        while True:
            await asyncio.sleep(self.config.pairing_interval)
            try:
                if self.ownership is not None and await self.ownership.pool_owner() is not None:
                    continue  # another process of the cluster runs the pools
                await self.pool.wave()
            except Unavailable:
                continue  # this process is leaving the cluster
            except Exception:
                log.exception("a pairing wave failed")

    async def close(self) -> None:
        if self.ownership is not None:
            await self.ownership.close()  # hands the matches over before they stop here
        await self.analyses.close()
        await self.tournaments.close()
        self.challenges.close()
        for task in (self._sweeper, self._pairer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for live in list(self.live.values()):
            await live.close()
        self.live.clear()
        await self.fairplay.close()
        await self.store.close()

    @property
    def secret(self) -> str:
        if self._secret is None:
            raise RuntimeError("the service is not started")
        return self._secret

    def _renamed_everywhere(self, guest_id: str, name: str) -> None:
        """A guest took a new name: every live table seating it shows it, here and (cluster hook)
        on the other processes."""
        self.renamed(guest_id, name)
        if self.ownership is not None:
            self.ownership.renamed(guest_id, name)

    def renamed(self, guest_id: str, name: str) -> None:
        """Show a guest's new name at every live table of this process it sits at."""
        for live in self.live.values():
            seat = live.seat_of(guest_id)
            if seat is not None:
                live.seats[seat].name = name
                live.broadcast()

    # -- creating matches ------------------------------------------------------

    def new_match_row(self, **fields: Any) -> MatchRow:
        return MatchRow(
            id=secrets.token_urlsafe(9),
            # The match seed: 256 random bits, never sent before the match is over.
            seed=secrets.token_hex(32),
            created_at=self.clock(),
            **fields,
        )

    async def create_robot_match(self, guest: GuestRow, level: Any, rules: Any, *, levels: Any = None) -> str:
        """You (seat 0) against robots: of `level` in every other seat, or one level per seat (`levels`).

        Any game: two-player Gin, three-player Gin, team Gin (your partner a robot too), Rummy.
        """
        parsed = parse_rules(rules, games=GAMES)
        chosen = parse_robot_levels(level, levels, parsed.players - 1, LEVELS)
        row = self.new_match_row(
            kind="robot",
            status="playing",
            rules=parsed.to_json(),
            seats=(
                SeatRow(0, guest.id),
                *(SeatRow(n, robot_level=lv) for n, lv in enumerate(chosen, start=1)),
            ),
        )
        await self.store.create_match(row)
        await self._load(row, names={guest.id: guest.name})
        return row.id

    # -- live matches ----------------------------------------------------------

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
            live = await self._load(row) if row is not None else None
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
            await self._load(row, names=names, fresh=True)

    @staticmethod
    def fresh_match(row: MatchRow) -> Match:
        """The two-player match of `row` at its start: its rules and deals, no action played."""
        game = game_of(row)
        if not isinstance(game, Match):
            raise BadRequest(f"only two-player Gin is analysed, not {game.rules.game}")
        return game

    async def _load(
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

    def finished(self, live: LiveMatch, result: dict[str, Any] | None, finished_at: float) -> None:
        """A match just ended: `result` as stored with it at `finished_at` (None: it could not be
        stored; the next start finishes it from its log)."""
        if live.tournament_id is not None:
            self.tournaments.match_over(live.tournament_id, live.id, result, finished_at)
        self.challenges.match_over(live)
        people = tuple(s.guest_id for s in live.seats if s.kind == "human" and s.guest_id is not None)
        if live.rated and result is not None and len(people) == 2 and not any(s.bot for s in live.seats):
            self.fairplay.match_over(live.id, (people[0], people[1]), result, finished_at)
        log.info("match %s finished after %d actions", live.id, live.version)

    def release(self, live: LiveMatch) -> None:
        """Forget a finished match nobody is watching (it reloads from the log on demand)."""
        if live.status == "over" and not live.has_connections() and self.live.get(live.id) is live:
            del self.live[live.id]
            self._unloaded(live)

    # -- live games ----------------------------------------------------------------

    def _listed_tournament(self, tournament_id: str) -> bool:
        arena = self.tournaments.live.get(tournament_id)
        return arena is not None and arena.row.listed

    async def live_games(self, limit: Any = LIVE_SHOWN) -> list[dict[str, Any]]:
        """The public matches being played (service/live_games.py), highest rated first; `limit`
        a whole number (or its digits, from a query string). In a cluster each process lists the
        matches it runs, and the one asked gathers the others' lists."""
        if isinstance(limit, str) and limit.isdigit() and len(limit) < 4:
            limit = int(limit)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= LIVE_SHOWN:
            raise BadRequest(f"limit must be a whole number from 1 to {LIVE_SHOWN}, got {limit!r}")
        found = await self.local_live_games()
        if self.ownership is not None:  # cluster hook
            found += await self.ownership.live_elsewhere()
        return ordered(found, limit)

    async def local_live_games(self) -> list[dict[str, Any]]:
        """The list's entries of the public matches this process runs, the best `LIVE_SHOWN`."""
        public = [live for live in self.live.values() if is_public(live, self._listed_tournament)]
        wanted: dict[str, set[str]] = {}
        for live in public:
            pool = BOT_POOL if any(s.bot for s in live.seats) else GAME
            wanted.setdefault(pool, set()).update(
                s.guest_id for s in live.seats if s.kind == "human" and s.guest_id
            )
        now = self.clock()
        ratings = {}
        for pool, ids in wanted.items():
            rows = await self.store.get_ratings(sorted(ids), pool)
            ratings[pool] = {guest_id: public_rating(rows.get(guest_id), now) for guest_id in ids}
        tournaments = {
            live.tournament_id: {"id": live.tournament_id, "name": arena.row.name}
            for live in public
            if live.tournament_id is not None
            and (arena := self.tournaments.live.get(live.tournament_id)) is not None
        }
        return ordered(entries(public, ratings, tournaments))
