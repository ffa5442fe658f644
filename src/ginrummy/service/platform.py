"""The game service: it builds the platform's parts and starts and stops them, makes robot matches,
tells the parts when a match ends, and lists the live games; the web layers call the parts by
name (`tables`, the live matches of this process; `guests`, `cookies`, `rooms`, `seeking`,
`history` for lists, replays and profiles, `tournaments`, `bots`, `analyses`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from ..rules import GAMES
from .accounts import AccountService
from .analysis import Analyses
from .bots import BotAccounts
from .challenges import Challenges
from .cluster.ports import OwnedElsewhere, Ownership
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
from .live import LiveMatch
from .live_games import LIVE_SHOWN, entries, is_public, ordered
from .live_tables import LiveTables
from .options import (
    parse_robot_levels,
    parse_rules,
)
from .ports import (
    GuestRow,
    MatchRow,
    SeatRow,
    Store,
)
from .ratings import BOT_POOL, GAME, public_rating
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
        self._config = config or ServiceConfig()
        self._clock = clock
        self.accounts = accounts or AccountService(store, clock=clock)
        self.boards = Leaderboards(store, clock)
        self.fairplay = FairPlay(store, clock, rated_same_address=self.config.rated_same_address)
        self.tournaments = Tournaments(self)
        self.bots = BotAccounts(store, clock)
        self.challenges = Challenges(self)
        self.analyses = Analyses(store, lambda: self._clock())  # the clock tests replace, too
        self.cookies = Cookies(store, lambda: self.secret, clock)
        self.guests = Guests(store, self.accounts, self.boards, renamed=self._renamed_everywhere, clock=clock)
        self.seeking = Seeking(self)
        self.rooms = Rooms(self)
        self.pool = self.seeking.pool
        #: The live matches of this process (service/live_tables.py), and its entry points here.
        self.tables = LiveTables(store, self.config, clock, self.bots, finished=self.finished)
        self.live = self.tables.live
        self.get_live = self.tables.get_live
        self.open_table = self.tables.open_table
        self.open_new = self.tables.open_new
        self.outcome_of = self.tables.outcome_of
        self.sweep = self.tables.sweep
        #: Lists of a guest's matches, replays and profiles (service/history.py).
        self.history = MatchHistory(store, self.bots, self.challenges, self.live, clock)
        self._pairer: asyncio.Task[None] | None = None
        self._secret = secret
        self._sweeper: asyncio.Task[None] | None = None

    @property
    def clock(self) -> Callable[[], float]:
        """The service's clock (time.time unless given); the live tables keep time by it."""
        return self._clock

    @clock.setter
    def clock(self, value: Callable[[], float]) -> None:
        self._clock = value
        self.tables.clock = value

    @property
    def config(self) -> ServiceConfig:
        """The service's settings; the live tables read the same."""
        return self._config

    @config.setter
    def config(self, value: ServiceConfig) -> None:
        self._config = value
        self.tables.config = value

    @property
    def ownership(self) -> Ownership | None:
        """Set by the cluster layer (service/cluster) when many processes share the site; None alone."""
        return self.tables.ownership

    @ownership.setter
    def ownership(self, value: Ownership | None) -> None:
        self.tables.ownership = value

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
                await self.tables.load(row)
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
        self.tables.renamed(guest_id, name)
        if self.ownership is not None:
            self.ownership.renamed(guest_id, name)

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
        await self.tables.load(row, names={guest.id: guest.name})
        return row.id

    # -- the end of a match -------------------------------------------------------

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
