"""The life cycle every tournament shares: players joining, pausing and withdrawing, its matches
made and ended, its start and end, and its page pushed to every socket watching.

A tournament is one writer (`ArenaLive`, `SwissLive`) whose whole state is in the database (the tournament,
its players, its matches): after a restart it is rebuilt from there and pairing resumes. In a
cluster one process runs each tournament (it holds the lease `tournament:ID`, and the matches of
its waves are stored fenced by it); the others forward joins and the rest to it and relay its
page pushes, and when it goes another process rebuilds the tournament from the database.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import Forbidden, NotFound
from ..host import ServiceHost
from ..options import robot_level_for
from ..ports import Lease, MatchRow, SeatRow, TournamentPlayer, TournamentRow
from ..ratings import GAME
from .feed import PageFeed, dumps

if TYPE_CHECKING:
    from ..live import Connection

log = logging.getLogger("ginrummy.service")

#: The page shows the first lines of the standings (and the viewer's own line wherever it is),
#: and the matches of the best-placed players to watch: a thousand players' pages are not sent a
#: thousand lines on every change.
STANDINGS_SHOWN = 100
WATCH_SHOWN = 24
#: Changes within this many seconds are pushed to the pages together: a quarter of a second up
#: to BROADCAST_PAGES open pages, longer with more (every page gets every push), at most
#: BROADCAST_MOST.
BROADCAST_EVERY = 0.25
BROADCAST_PAGES = 1000
BROADCAST_MOST = 1.0
#: A robot plays at the rating of its level (its seat's rating, and its opponent's performance).
ROBOT_RATINGS = {"novice": 1100, "casual": 1400, "skilled": 1600, "advanced": 1800, "expert": 2000}


def row_fields(row: TournamentRow) -> dict[str, Any]:
    """`row`'s fields by name, to make a changed copy."""
    return {name: getattr(row, name) for name in TournamentRow.__dataclass_fields__}


class TournamentLive(ABC):
    """One running tournament: the only object that pairs its players.

    `lock` keeps a player's joining, pausing and withdrawing, and a Swiss round's pairing, one at
    a time; an arena's waves need no lock (see `ArenaLive.wave`). What arenas and Swiss
    tournaments share: players joining, pausing and withdrawing, starting
    matches, and pushing the page's state to every socket watching.
    """

    def __init__(self, service: ServiceHost, row: TournamentRow) -> None:
        self.service = service
        self.row = row
        self.lock = asyncio.Lock()
        self.players: dict[str, TournamentPlayer] = {}
        self.current: dict[str, str] = {}  # guest id -> the tournament match it is playing
        self.waiting_since: dict[str, float] = {}
        self.names: dict[str, str] = {}
        #: The players without an account (their lines are marked as guests').
        self.guests: set[str] = set()
        self.conns: dict[Connection, str | None] = {}  # socket -> the guest watching (None: nobody signed)
        self.matches: dict[str, MatchRow] = {}  # by id, in the order they were made
        self._push_due: asyncio.TimerHandle | None = None
        self.feed = PageFeed()
        #: Each player's line as JSON text (without its rank) while it has not changed: a push
        #: encodes only the lines that changed, and builds the viewers' own parts from these.
        self._texts: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def clock(self) -> Callable[[], float]:
        return self.service.clock

    async def load(self) -> None:
        """Rebuild everything from the database (at start, after a restart)."""
        store = self.service.store
        self.players = {p.guest_id: p for p in await store.tournament_players(self.id)}
        found = await store.tournament_matches(self.id)
        self.matches = {m.id: m for m in sorted(found, key=lambda m: (m.created_at, m.id))}
        self.current = {
            seat.guest_id: match.id
            for match in self.matches.values()
            if match.status != "over"
            for seat in match.seats
            if seat.guest_id
        }
        # Whoever was waiting when the server stopped waits on from now: the next wave pairs them.
        now = self.clock()
        self.waiting_since = {g: now for g in self.players if g not in self.current}
        await self._name(list(self.players))
        await self._restand()

    async def _name(self, guest_ids: list[str]) -> None:
        """Learn the names of those players whose names are not known yet."""
        missing = [g for g in guest_ids if g not in self.names]
        if missing:
            self.names.update({g.id: g.name for g in (await self.service.store.get_guests(missing)).values()})
            members = await self.service.store.get_accounts(missing)
            self.guests.update(g for g in missing if g not in members)

    async def _ratings(self, guest_ids: list[str] | None = None) -> dict[str, float]:
        """The current ratings of `guest_ids` (every player by default); 1500 for the unrated."""
        ids = list(self.players) if guest_ids is None else guest_ids
        found = await self.service.store.get_ratings(ids, GAME) if ids else {}
        return {g: found[g].rating if g in found else 1500.0 for g in ids}

    @abstractmethod
    async def _restand(self) -> None:
        """Compute the standings again from the matches (after loading, and at the end)."""

    # -- players -----------------------------------------------------------------------

    def _may_join(self, guest_id: str) -> None:
        """Raise `Forbidden` when `guest_id` may not join now."""
        if self.row.status == "finished":
            raise Forbidden("this tournament is over")

    async def join(self, guest_id: str, name: str, address: str | None = None) -> None:
        """Join (or come back), from the client `address`: a rated tournament takes one player per
        address (service/fairplay.py)."""
        await self.service.bots.refuse_bot(guest_id, "tournaments")
        async with self.lock:
            self._may_join(guest_id)
            if self.row.rated:
                fairplay = self.service.fairplay
                await fairplay.refuse_same_address(guest_id, address, self.players, self.row.created_at)
                await fairplay.entered(guest_id, address)
            old = self.players.get(guest_id)
            player = TournamentPlayer(guest_id, old.joined_at if old else self.clock(), False, False)
            await self.service.store.set_tournament_player(self.id, player, fence=self._fence())
            self.players[guest_id] = player
            self.names[guest_id] = name
            if await self.service.store.get_account(guest_id) is None:
                self.guests.add(guest_id)
            else:
                self.guests.discard(guest_id)
            self.waiting_since[guest_id] = self.clock()
            self._texts.pop(guest_id, None)
            await self._joined(player)
        self.broadcast()

    @abstractmethod
    async def _joined(self, player: TournamentPlayer) -> None:
        """A player joined (or came back): give it a line. Call with `lock` held."""

    async def set_state(self, guest_id: str, *, withdrawn: bool, paused: bool) -> None:
        """Withdraw (leave for good; rejoining is possible) or pause (not paired until resumed)."""
        async with self.lock:
            old = self.players.get(guest_id)
            if old is None:
                raise NotFound("you have not joined this tournament")
            player = TournamentPlayer(guest_id, old.joined_at, withdrawn, paused)
            await self.service.store.set_tournament_player(self.id, player, fence=self._fence())
            self.players[guest_id] = player
            self._texts.pop(guest_id, None)
            if not (withdrawn or paused):
                self.waiting_since[guest_id] = self.clock()
        self.broadcast()

    def _active(self) -> list[str]:
        return [g for g, p in self.players.items() if not p.withdrawn and not p.paused]

    # -- matches ------------------------------------------------------------------------

    def _seats(self, first: str, second: str | None, ratings: dict[str, float]) -> tuple[SeatRow, SeatRow]:
        """The seats of a match between two people (in random seats) or one and a robot of its
        strength, each with its rating now (`ratings`: the people's)."""
        if second is None:
            level = robot_level_for(ratings[first])
            return (
                SeatRow(0, first, rating=ratings[first]),
                SeatRow(1, robot_level=level, rating=float(ROBOT_RATINGS[level])),
            )
        if secrets.randbelow(2):
            first, second = second, first
        return SeatRow(0, first, rating=ratings[first]), SeatRow(1, second, rating=ratings[second])

    def _match_row(self, seats: tuple[SeatRow, SeatRow], round_number: int | None = None) -> MatchRow:
        return self.service.new_match_row(
            kind="tourney",
            status="playing",
            rules=self.row.rules,
            turn_seconds=self.row.turn_seconds,
            seats=seats,
            rated=self.row.rated and seats[1].guest_id is not None,
            tournament_id=self.id,
            round=round_number,
        )

    async def _opened(self, rows: list[MatchRow]) -> None:
        """Matches of the tournament were stored: note who plays them, then open them (noted
        first, so a wave running while they open never pairs their players again)."""
        for row in rows:
            self.matches[row.id] = row
            for seat in row.seats:
                if seat.guest_id:
                    self.current[seat.guest_id] = row.id
                    self.waiting_since.pop(seat.guest_id, None)
                    self._texts.pop(seat.guest_id, None)
            if log.isEnabledFor(logging.INFO):
                players = ", ".join(s.guest_id or f"robot:{s.robot_level}" for s in row.seats)
                log.info("tournament %s: match %s for %s", self.id, row.id, players)
        await self.service.open_new(rows, self.names)
        self._tell_paired(rows)

    def ended(self, match_id: str, result: dict[str, Any] | None, finished_at: float) -> None:
        """A tournament match ended, with `result` stored at `finished_at` (None: not stored, it
        counts once a restart has finished it): its players wait for the next pairing, and the
        standings count it. Nothing is read back: the tournament made the match's row itself."""
        row = self.matches.get(match_id)
        if row is None:
            return
        if result is not None:
            row = self.matches[match_id] = replace(row, status="over", result=result, finished_at=finished_at)
        now = self.clock()
        for seat in row.seats:
            if seat.guest_id:
                self._texts.pop(seat.guest_id, None)
                if self.current.get(seat.guest_id) == match_id:
                    del self.current[seat.guest_id]
                    self.waiting_since[seat.guest_id] = now
        if result is not None:
            self._counted(row)
        self.broadcast()

    @abstractmethod
    def _counted(self, match: MatchRow) -> None:
        """A finished match reaches the standings (no waiting: it runs between two awaits of any
        wave, which never touches the players of a match being played)."""

    async def _set_status(self, status: str, *, ends_at: float | None = None) -> None:
        await self.service.store.set_tournament_status(self.id, status, ends_at=ends_at, fence=self._fence())
        changes: dict[str, Any] = {"status": status}
        if ends_at is not None:
            changes["ends_at"] = ends_at
        self.row = TournamentRow(**{**row_fields(self.row), **changes})
        if status == "finished":
            await self._restand()
        self.broadcast()

    @abstractmethod
    async def wave(self) -> None:
        """One pairing wave (an arena) or round (a Swiss tournament)."""

    def _fence(self) -> Lease | None:
        """The lease the tournament's writes are stored under (a cluster only): its pairings, its
        players joining, pausing and withdrawing, its start and its end."""
        ownership = self.service.ownership
        return ownership.fence_of(f"tournament:{self.id}") if ownership is not None else None

    def close(self) -> None:
        """Stop everything due (this process no longer runs the tournament); nothing more is written."""
        if self._push_due is not None:
            self._push_due.cancel()
            self._push_due = None
        for task in list(self._tasks):
            task.cancel()

    def _task(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Run `coroutine` in a task of its own, kept until done; a failure is logged."""
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("tournament %s: a task failed", self.id, exc_info=task.exception())

    # -- what pages see ---------------------------------------------------------------

    @abstractmethod
    def _winner(self) -> str | None:
        """The winner's guest id once someone has played (None before)."""

    def summary(self) -> dict[str, Any]:
        row = self.row
        winner = self._winner() if row.status == "finished" else None
        return {
            "id": row.id,
            "name": row.name,
            "format": row.format,
            "status": row.status,
            "starts_at": row.starts_at,
            "ends_at": row.ends_at,
            "rules": row.rules,
            "turn_seconds": row.turn_seconds,
            "rated": row.rated,
            "robots": row.robots,
            "listed": row.listed,
            "players": sum(1 for p in self.players.values() if not p.withdrawn),
            "winner": {"id": winner, "name": self.names.get(winner, "Guest"), "guest": winner in self.guests}
            if winner
            else None,
            "url": f"/t/{row.id}",
        }

    @abstractmethod
    def _ranked(self) -> list[Any]:
        """The standings, best first: values with a `guest_id`, for `_line`."""

    def _ranks(self) -> dict[str, int]:
        return {s.guest_id: rank for rank, s in enumerate(self._ranked(), start=1)}

    @abstractmethod
    def _fields_of(self, standing: Any) -> dict[str, Any]:
        """The format's own fields of a line (score, sheet, tie-breaks)."""

    def _line_body(self, standing: Any) -> dict[str, Any]:
        """A line of the standings without its rank (a push gives the order instead)."""
        guest = standing.guest_id
        player = self.players.get(guest)
        return {
            "id": guest,
            "name": self.names.get(guest, "Guest"),
            "guest": guest in self.guests,
            **self._fields_of(standing),
            "withdrawn": bool(player and player.withdrawn),
            "paused": bool(player and player.paused),
            "playing": guest in self.current,
        }

    def _line(self, standing: Any, rank: int) -> dict[str, Any]:
        return {"rank": rank, **self._line_body(standing)}

    def _line_text(self, standing: Any) -> str:
        """`_line_body` as JSON text, encoded again only after the line changed."""
        text = self._texts.get(standing.guest_id)
        if text is None:
            text = self._texts[standing.guest_id] = dumps(self._line_body(standing))
        return text

    def _playing(self, ranks: dict[str, int]) -> list[dict[str, Any]]:
        """The matches of the best-placed players, to watch."""
        in_play: dict[str, int] = {}
        for guest, match_id in self.current.items():
            in_play[match_id] = min(in_play.get(match_id, 1 << 30), ranks.get(guest, 1 << 30))
        live = []
        for match_id in heapq.nsmallest(WATCH_SHOWN, in_play, key=lambda m: (in_play[m], m)):
            m = self.matches.get(match_id)
            if m is None:
                continue
            names = [
                self.names.get(s.guest_id or "", "Guest") if s.guest_id else f"Robot ({s.robot_level})"
                for s in m.seats
            ]
            live.append({"id": match_id, "names": names, "watch": f"/watch/{match_id}"})
        return live

    def _shared(self, ranks: dict[str, int]) -> dict[str, Any]:
        """What every viewer gets: the first lines, the best-placed matches to watch, the clock."""
        ranked = self._ranked()
        return {
            "type": "tournament",
            "tournament": self.summary(),
            "now": self.clock(),
            "standings": [self._line(s, rank) for rank, s in enumerate(ranked[:STANDINGS_SHOWN], start=1)],
            "players_ranked": len(ranked),
            "playing": self._playing(ranks),
        }

    def _me(self, guest_id: str | None, ranks: dict[str, int]) -> dict[str, Any] | None:
        """The viewer's own part: joined or not, its match, its rank and its line."""
        if guest_id is None or guest_id not in self.players:
            return None
        player = self.players[guest_id]
        rank = ranks.get(guest_id)
        line = self._line(self._ranked()[rank - 1], rank) if rank is not None else None
        return {
            "joined": not player.withdrawn,
            "paused": player.paused,
            "match_id": self.current.get(guest_id),
            "rank": rank,
            "line": line,
        }

    def _me_text(self, guest_id: str | None, ranks: dict[str, int]) -> str:
        """`_me` as JSON text, spliced from the line's text (a push builds one for every viewer)."""
        if guest_id is None or guest_id not in self.players:
            return "null"
        player = self.players[guest_id]
        rank = ranks.get(guest_id)
        match_id = self.current.get(guest_id)
        if rank is None:
            line = "null"
        else:
            line = f'{{"rank":{rank},{self._line_text(self._ranked()[rank - 1])[1:]}'
        return "".join(
            (
                '{"joined":',
                "false" if player.withdrawn else "true",
                ',"paused":',
                "true" if player.paused else "false",
                ',"match_id":',
                "null" if match_id is None else dumps(match_id),
                ',"rank":',
                "null" if rank is None else str(rank),
                ',"line":',
                line,
                "}",
            )
        )

    def state(self, guest_id: str | None) -> dict[str, Any]:
        """The tournament page's message: standings, matches to watch, and the viewer's own state."""
        ranks = self._ranks()
        return {**self._shared(ranks), "me": self._me(guest_id, ranks)}

    def broadcast(self) -> None:
        """Push the changes to every page soon; changes meanwhile go out together."""
        if self._push_due is None and self.conns:
            delay = min(BROADCAST_MOST, BROADCAST_EVERY * max(1.0, len(self.conns) / BROADCAST_PAGES))
            self._push_due = asyncio.get_running_loop().call_later(delay, self._push)

    def _push(self) -> None:
        """Send every page what changed since the last push (`feed` says how)."""
        self._push_due = None
        if not self.conns:
            return
        ranks = self._ranks()
        top = self._ranked()[:STANDINGS_SHOWN]
        feed = self.feed
        delta, changed = feed.delta(
            now=self.clock(),
            ranked=len(ranks),
            lines={s.guest_id: self._line_text(s) for s in top},
            summary=dumps(self.summary()),
            playing=dumps(self._playing(ranks)),
        )
        full: str | None = None
        mine: dict[str | None, str] = {}  # one encoding per viewer, however many of its pages are open
        for conn, guest in list(self.conns.items()):
            me = mine.get(guest)
            if me is None:
                me = mine[guest] = self._me_text(guest, ranks)
            if conn in feed.fresh:
                if full is None:
                    full = dumps(self._shared(ranks))[:-1]
                conn.send_text(f'{full},"me":{me}}}')
            elif feed.me_sent.get(conn) == me:
                if changed:  # nothing new for this page: nothing sent
                    conn.send_text(delta + "}")
            else:
                conn.send_text(f'{delta},"me":{me}}}')
            feed.me_sent[conn] = me
        feed.fresh.clear()

    def _tell_paired(self, rows: list[MatchRow]) -> None:
        """The players of new matches hear of them at once, before the next push."""
        now = self.clock()
        for row in rows:
            for seat in row.seats:
                pages = self.feed.pages.get(seat.guest_id or "")
                if pages:
                    text = dumps({"type": "pairing", "match_id": row.id, "url": f"/m/{row.id}", "now": now})
                    for conn in pages:
                        conn.send_text(text)

    def connect(self, conn: Connection, guest_id: str | None) -> None:
        self.conns[conn] = guest_id
        self.feed.opened(conn, guest_id)
        conn.send_text(dumps(self.state(guest_id)))

    def disconnect(self, conn: Connection) -> None:
        guest = self.conns.pop(conn, None)
        self.feed.closed(conn, guest)
