"""Every tournament of the server: made by players or on the daily schedule, rebuilt at start, run
by one process of a cluster and reached through it from the others."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from typing import Any

from ..cluster.ports import Droppable, Page, TournamentElsewhere
from ..errors import BadRequest, Forbidden, NotFound, Unavailable
from ..host import ServiceHost
from ..options import parse_rules, parse_turn_seconds
from ..ports import GuestRow, StoreError, TournamentRow
from ..tasks import stop_task
from .arena import ArenaLive
from .form import parse_flag, parse_name, parse_number, parse_start
from .live import TournamentLive
from .swiss import SWISS_MAX_ROUNDS, SwissLive

log = logging.getLogger("ginrummy.service")

#: The shortest pause between waves while a tournament is about to start.
START_SLACK = 0.1
#: In a cluster the end of a tournament match played on another process is told over the bus,
#: which may lose a message: this often the tournament's process reads its matches' ends itself.
RECONCILE_EVERY = 30.0


class Tournaments:
    """Every arena of the server: created by players or on the daily schedule, rebuilt at start."""

    def __init__(self, service: ServiceHost) -> None:
        self.service = service
        self.live: dict[str, TournamentLive] = {}
        self._task: asyncio.Task[None] | None = None
        #: Tournaments being rebuilt: the ends of their matches heard meanwhile, applied once built.
        self._early: dict[str, list[tuple[str, dict[str, Any] | None, float]]] = {}

    async def start(self) -> None:
        for row in await self.service.store.tournaments(("created", "started"), listed_only=False):
            try:
                await self._open(row)
            except TournamentElsewhere:
                continue  # another process of the cluster runs it
        await self.schedule_daily()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        await stop_task(self._task)

    async def _open(self, row: TournamentRow) -> TournamentLive:
        """The tournament of `row`, rebuilt from the database if it is not here yet.

        In a cluster a tournament still running is rebuilt only by the process that takes its
        lease (`TournamentElsewhere` when another holds it); a finished one anywhere, to be read.
        """
        arena = self.live.get(row.id)
        if arena is not None:
            return arena
        ownership = self.service.ownership
        if ownership is not None and row.status != "finished":
            await ownership.claim_tournament(row.id)
        early = self._early.setdefault(row.id, [])
        try:
            arena = SwissLive(self.service, row) if row.format == "swiss" else ArenaLive(self.service, row)
            await arena.load()
            existing = self.live.get(row.id)
            if existing is not None:  # rebuilt meanwhile for another request
                return existing
            self.live[row.id] = arena
        finally:
            if self._early.get(row.id) is early:
                del self._early[row.id]
        for match_id, result, finished_at in early:
            arena.ended(match_id, result, finished_at)
        return arena

    # -- in a cluster: the process running each tournament ------------------------------

    async def _forward(self, exc: TournamentElsewhere, op: str, **args: Any) -> Any:
        ownership = self.service.ownership
        if ownership is None:
            raise exc
        return await ownership.forward(exc.owner, exc.tournament_id, op, {"t": exc.tournament_id, **args})

    async def state(self, tournament_id: str, guest_id: str | None) -> dict[str, Any]:
        """The tournament page's state for `guest_id`, from whichever process runs it."""
        try:
            return (await self.get(tournament_id)).state(guest_id)
        except TournamentElsewhere as exc:
            found: dict[str, Any] = await self._forward(exc, "t_state", guest=guest_id)
            return found

    async def summary(self, tournament_id: str) -> dict[str, Any]:
        try:
            return (await self.get(tournament_id)).summary()
        except TournamentElsewhere as exc:
            found: dict[str, Any] = await self._forward(exc, "t_summary")
            return found

    async def act(
        self, tournament_id: str, verb: str, guest: GuestRow, address: str | None = None
    ) -> dict[str, Any]:
        """join, withdraw, pause or resume (from the client `address`); the page's state after it."""
        if verb not in ("join", "withdraw", "pause", "resume"):
            raise NotFound(f"no action {verb!r}; use join, withdraw, pause or resume")
        try:
            arena = await self.get(tournament_id)
        except TournamentElsewhere as exc:  # cluster hook: its process does it
            done: dict[str, Any] = await self._forward(
                exc, "t_act", guest=guest.id, verb=verb, address=address
            )
            return done
        if verb == "join":
            await arena.join(guest.id, guest.name, address)
        else:
            await arena.set_state(guest.id, withdrawn=verb == "withdraw", paused=verb == "pause")
        return arena.state(guest.id)

    async def page(self, tournament_id: str) -> Page:
        """What a page socket of the tournament talks to: the tournament, or a relay to its process."""
        try:
            return await self.get(tournament_id)
        except TournamentElsewhere as exc:
            ownership = self.service.ownership
            if ownership is None:
                raise
            return await ownership.tournament_page(tournament_id, exc.owner)

    async def take(self, tournament_id: str) -> None:
        """Run a tournament whose lease another process let go or let run out (a cluster only)."""
        row = await self.service.store.get_tournament(tournament_id)
        if row is None or row.status == "finished":
            if self.service.ownership is not None:
                self.service.ownership.tournament_gone(tournament_id)
            return
        await self._open(row)

    async def reconcile(self) -> int:
        """Count the ends of matches stored but not heard of (a cluster: the message telling this
        process was lost); returns how many. Once per `RECONCILE_EVERY`, and when the bus is back."""
        counted = 0
        for arena in list(self.live.values()):
            if arena.row.status == "finished" or not arena.current:
                continue
            playing = set(arena.current.values())
            for match in await self.service.store.tournament_matches(arena.id):
                if match.id in playing and match.status == "over" and self.live.get(arena.id) is arena:
                    log.warning("tournament %s: match %s ended unheard of; counted now", arena.id, match.id)
                    arena.ended(match.id, match.result, match.finished_at or self.service.clock())
                    counted += 1
        return counted

    def evict(self, tournament_id: str, reason: str) -> None:
        """This process no longer runs the tournament: stop it, and its pages here reconnect."""
        arena = self.live.pop(tournament_id, None)
        if arena is None:
            return
        log.warning("tournament %s: no longer run here (%s)", tournament_id, reason)
        arena.close()
        for conn in list(arena.conns):
            if isinstance(conn, Droppable):
                conn.drop(reason)

    def _unloaded(self, arena: TournamentLive) -> None:
        if self.live.get(arena.id) is arena:
            del self.live[arena.id]
            arena.close()
            if self.service.ownership is not None:
                self.service.ownership.tournament_gone(arena.id)

    async def schedule_daily(self) -> int:
        """Create the daily tournaments of the next 24 hours that do not exist yet; returns how many.

        Arenas start at `daily_arena_hours`, Swiss tournaments at `daily_swiss_hours` (UTC). Their ids
        come from their start (daily-YYYYMMDD-HH, daily-swiss-YYYYMMDD-HH), so each is made once
        however often this runs, by however many processes.
        """
        config = self.service.config
        now = self.service.clock()
        made = 0
        day = int(now // 86400)
        kinds = (("arena", config.daily_arena_hours), ("swiss", config.daily_swiss_hours))
        for offset in (0, 1):
            for fmt, hours in kinds:
                for hour in hours:
                    starts = (day + offset) * 86400 + hour * 3600
                    if not now - config.daily_minutes * 60 < starts <= now + 86400:
                        continue
                    row = self._daily(fmt, hour, starts, now)
                    if row.id in self.live or await self.service.store.get_tournament(row.id):
                        continue
                    try:
                        await self.service.store.create_tournament(row)
                    except StoreError:
                        continue  # made meanwhile by another process
                    with contextlib.suppress(TournamentElsewhere):
                        await self._open(row)
                    made += 1
        return made

    def _daily(self, fmt: str, hour: int, starts: float, now: float) -> TournamentRow:
        config = self.service.config
        stamp = time.strftime("%Y%m%d-%H", time.gmtime(starts))
        swiss = fmt == "swiss"
        return TournamentRow(
            id=f"daily-swiss-{stamp}" if swiss else f"daily-{stamp}",
            name=f"Daily Swiss {hour:02d}:00 UTC" if swiss else f"Daily arena {hour:02d}:00 UTC",
            format=fmt,
            status="created",
            starts_at=starts,
            ends_at=starts if swiss else starts + config.daily_minutes * 60,
            rules={"preset": "classic", "target": config.daily_target},
            turn_seconds=config.online_turn_seconds,
            rated=True,
            robots=True,
            listed=True,
            created_by=None,
            created_at=now,
            rounds=config.daily_swiss_rounds if swiss else None,
        )

    def _pause(self) -> float:
        """Seconds until the next wave: `tournament_interval`, or less when a tournament starts
        sooner (its first wave runs at its start, not up to a whole interval after)."""
        interval = self.service.config.tournament_interval
        now = self.service.clock()
        soonest = min(
            (t.row.starts_at for t in self.live.values() if t.row.status == "created"), default=None
        )
        if soonest is None:
            return interval
        return min(interval, max(START_SLACK, soonest - now))

    async def _run(self) -> None:
        reconciled = self.service.clock()
        while True:
            await asyncio.sleep(self._pause())
            try:
                await self.schedule_daily()
            except Exception:
                log.exception("the daily tournaments could not be scheduled")
            if self.service.ownership is not None and self.service.clock() - reconciled >= RECONCILE_EVERY:
                reconciled = self.service.clock()
                try:
                    await self.reconcile()
                except Exception:
                    log.exception("the ends of tournament matches could not be read")
            for arena in list(self.live.values()):
                try:
                    await arena.wave()
                except Exception:
                    log.exception("tournament %s: a pairing wave failed", arena.id)
                if arena.row.status == "finished" and not arena.conns:
                    self._unloaded(arena)

    async def create(self, creator: str, body: dict[str, Any]) -> TournamentLive:
        """A player-made tournament. Options: format ("arena" or "swiss"), name, the start as
        starts_in (minutes from now) or starts_at (unix seconds: a date and time the page turns
        from the creator's own time zone into UTC), minutes (an arena's length) or rounds (a
        Swiss's), rules, turn_seconds, rated, robots, listed."""
        fmt = body.get("format", "arena")
        if fmt not in ("arena", "swiss"):
            raise BadRequest(f"format must be 'arena' or 'swiss', got {fmt!r}")
        name = parse_name(body.get("name", "Arena" if fmt == "arena" else "Swiss"))
        cap = self.service.config.open_tournaments
        if cap:
            mine = await self.service.store.tournaments(
                ("created", "started"), listed_only=False, created_by=creator
            )
            if len(mine) >= cap:
                raise Forbidden(
                    f"you have {len(mine)} tournaments that have not finished yet; one person may have "
                    f"{cap} at a time: make another when one of them is over"
                )
        now = self.service.clock()
        starts = parse_start(body, now)
        rounds: int | None = None
        if fmt == "swiss":
            rounds = round(parse_number(body, "rounds", 5, 1, SWISS_MAX_ROUNDS))
            if rounds != body.get("rounds", 5):
                raise BadRequest(f"rounds must be a whole number, got {body.get('rounds')!r}")
            minutes = 0.0
        else:
            minutes = parse_number(body, "minutes", 30, 0.1, 24 * 60)
        rules = parse_rules(body.get("rules"))
        config = self.service.config
        turn = parse_turn_seconds(
            body.get("turn_seconds", ...), config.online_turn_seconds, config.min_turn_seconds
        )
        row = TournamentRow(
            id=secrets.token_urlsafe(6),
            name=name,
            format=fmt,
            status="created",
            starts_at=starts,
            ends_at=starts + minutes * 60,
            rules=rules.to_json(),
            turn_seconds=turn,
            rated=parse_flag(body, "rated", True),
            robots=parse_flag(body, "robots", True),
            listed=parse_flag(body, "listed", False),
            created_by=creator,
            created_at=now,
            rounds=rounds,
        )
        await self.service.store.create_tournament(row)
        return await self._open(row)

    async def get(self, tournament_id: str) -> TournamentLive:
        arena = self.live.get(tournament_id)
        if arena is not None:
            return arena
        row = await self.service.store.get_tournament(tournament_id)
        if row is None:
            raise NotFound(f"no tournament {tournament_id!r}")
        return await self._open(row)

    async def listed(self) -> list[dict[str, Any]]:
        rows = await self.service.store.tournaments(("created", "started"), listed_only=True)
        return [await self._listed(row) for row in rows]

    async def _listed(self, row: TournamentRow) -> dict[str, Any]:
        try:
            return (await self._open(row)).summary()
        except TournamentElsewhere as exc:
            try:
                found: dict[str, Any] = await self._forward(exc, "t_summary")
                return found
            except Unavailable:
                pass  # its process is gone and the tournament is moving: as the database has it
        snapshot = SwissLive(self.service, row) if row.format == "swiss" else ArenaLive(self.service, row)
        await snapshot.load()
        return snapshot.summary()

    def match_over(
        self, tournament_id: str, match_id: str, result: dict[str, Any] | None, finished_at: float
    ) -> None:
        arena = self.live.get(tournament_id)
        if arena is not None:
            arena.ended(match_id, result, finished_at)
        elif tournament_id in self._early:
            self._early[tournament_id].append((match_id, result, finished_at))
        elif self.service.ownership is not None:  # cluster hook: the tournament runs elsewhere
            self.service.ownership.tell_tournament(
                tournament_id, "t_ended", match=match_id, result=result, at=finished_at
            )
