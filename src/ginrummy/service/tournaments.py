"""Tournaments: arenas (Lichess-style) and Swiss tournaments (rounds paired by the FIDE Dutch system).

Arena: a fixed time, join any time, paired again as soon as a match ends.

Scoring (Lichess's arena): a match won is worth 2, drawn 1, lost 0. Two wins in a row put a
player "on fire": while on fire a won or drawn match is worth double, and anything but a win puts
the fire out. An aborted match counts for nothing. Ties are broken by performance: the mean over
the player's matches of the opponent's rating, +500 for a win and -500 for a loss (robots count
at the rating of their level). Pairing: whoever is waiting is paired with the waiting player
nearest in the standings, but not with the opponent of their last match while someone else is
waiting; an odd one out plays a robot when the tournament allows robots. When the clock ends,
nobody is paired any more and matches still being played continue but count for nothing, as on
Lichess.

Swiss: see `service.swiss` for its scoring, byes and tie-breaks, and `SwissLive` for its rounds.

A tournament is one writer (`ArenaLive`, `SwissLive`) whose whole state is in the database (the tournament,
its players, its matches): after a restart it is rebuilt from there and pairing resumes. In a
cluster one process runs each tournament (it holds the lease `tournament:ID`, and the matches of
its waves are stored fenced by it); the others forward joins and the rest to it and relay its
page pushes, and when it goes another process rebuilds the tournament from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import json
import logging
import secrets
import time
import unicodedata
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .cluster.ports import Droppable, Page, TournamentElsewhere
from .errors import BadRequest, Forbidden, NotFound, Unavailable
from .host import ServiceHost
from .names import refuse_invisible
from .options import parse_rules, parse_turn_seconds, robot_level_for
from .ports import GuestRow, Lease, MatchRow, SeatRow, StoreError, TournamentPlayer, TournamentRow
from .ratings import GAME
from .swiss import Cell, SwissStanding, swiss_cells, swiss_pairing, swiss_standings

if TYPE_CHECKING:
    from .live import Connection

__all__ = [
    "ArenaLive",
    "ArenaTable",
    "PageFeed",
    "Standing",
    "SwissLive",
    "TournamentLive",
    "Tournaments",
    "arena_pairs",
    "arena_standings",
]

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
#: An arena pairs again this long after a match ends (and every `tournament_interval` anyway):
#: whoever finishes meanwhile is paired in the same wave.
PAIR_SOON = 0.25
#: Two players who just met are paired again at once only when nobody else could be free soon;
#: otherwise they wait up to this long for someone else.
REMATCH_HOLD = 1.0
#: An odd player out waits this long before a robot plays it (when the arena allows robots).
ROBOT_AFTER = 3.0
ROBOT_RATINGS = {"novice": 1100, "casual": 1400, "skilled": 1600, "advanced": 1800, "expert": 2000}
NAME_MAX = 40
#: A Swiss round is paired by the FIDE Dutch system in Python: about 6 s for 200 players on a
#: loaded 2-core machine (benchmarks/bench_swiss.py), so a Swiss tournament holds at most this many.
SWISS_MAX_PLAYERS = 256
SWISS_MAX_ROUNDS = 15
#: A player-made tournament starts at most this many days ahead; a start up to START_GRACE
#: seconds ago (the form took a moment) means now.
START_AHEAD_DAYS = 30
START_GRACE = 60.0
#: The shortest pause between waves while a tournament is about to start.
START_SLACK = 0.1
#: In a cluster the end of a tournament match played on another process is told over the bus,
#: which may lose a message: this often the tournament's process reads its matches' ends itself.
RECONCILE_EVERY = 30.0
_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


@dataclass(slots=True)
class Standing:
    """One player's line in an arena's standings."""

    guest_id: str
    score: int = 0
    played: int = 0
    won: int = 0
    fire: bool = False  # two wins in a row: the next wins count double
    streak: int = 0
    performance_sum: float = 0.0
    sheet: list[int] = field(default_factory=list)  # points of each match, in order
    joined_at: float = 0.0

    @property
    def performance(self) -> float:
        return self.performance_sum / self.played if self.played else 0.0

    @property
    def order(self) -> tuple[float, float, float, str]:
        """Its place: more points first, then the better performance, then who joined first."""
        return (-self.score, -self.performance, self.joined_at, self.guest_id)


def _seat_rating(seat: SeatRow, ratings: dict[str, float]) -> float:
    """A seat's rating when its match was made; `ratings` for matches stored without it."""
    if seat.rating is not None:
        return seat.rating
    if seat.guest_id:
        return ratings.get(seat.guest_id, 1500.0)
    return float(ROBOT_RATINGS.get(seat.robot_level or "", 1500))


class ArenaTable:
    """An arena's standings, kept up to date one finished match at a time.

    Each player's line depends only on its own matches in the order they finished (a player is
    in one match at a time), so counting each match as it ends gives the table that counting all
    of them from the database does after a restart. The ranking is sorted again only when asked
    for after a change.
    """

    def __init__(self, until: float) -> None:
        self.until = until
        self.lines: dict[str, Standing] = {}
        self.counted: set[str] = set()
        self._ranked: list[Standing] | None = []
        self._ranks: dict[str, int] = {}

    def add_player(self, guest_id: str, joined_at: float) -> None:
        if guest_id not in self.lines:
            self.lines[guest_id] = Standing(guest_id, joined_at=joined_at)
            self._ranked = None

    def count(self, match: MatchRow, ratings: dict[str, float] | None = None) -> bool:
        """Add a finished match to its players' lines (once); False when it counts for nothing
        (not over, aborted, finished after the clock, counted already)."""
        if match.status != "over" or match.finished_at is None or match.finished_at > self.until:
            return False
        if match.id in self.counted:
            return False
        self.counted.add(match.id)
        result = match.result or {}
        if result.get("ended") == "aborted":
            return False
        winner = result.get("winner")
        for seat in match.seats:
            line = self.lines.get(seat.guest_id or "")
            if line is None:
                continue
            opponent = _seat_rating(match.seats[1 - seat.seat], ratings or {})
            if winner == seat.seat:
                points, bonus = 2, 500.0
                line.won += 1
                line.streak += 1
            elif winner is None:
                points, bonus = 1, 0.0
                line.streak = 0
            else:
                points, bonus = 0, -500.0
                line.streak = 0
            if line.fire:
                points *= 2
            line.fire = line.streak >= 2
            line.score += points
            line.played += 1
            line.performance_sum += opponent + bonus
            line.sheet.append(points)
        self._ranked = None
        return True

    def ranked(self) -> list[Standing]:
        """Every line, best first."""
        if self._ranked is None:
            self._ranked = sorted(self.lines.values(), key=lambda s: s.order)
            self._ranks = {s.guest_id: rank for rank, s in enumerate(self._ranked, start=1)}
        return self._ranked

    def ranks(self) -> dict[str, int]:
        """Each player's rank (1 for the first)."""
        self.ranked()
        return self._ranks


def arena_standings(
    matches: list[MatchRow],
    players: list[TournamentPlayer],
    ratings: dict[str, float],
    *,
    until: float,
) -> list[Standing]:
    """The standings from the finished matches (in the order they finished, up to `until`);
    `ratings` stand in for seats stored without their rating."""
    table = ArenaTable(until)
    for player in players:
        table.add_player(player.guest_id, player.joined_at)
    for match in sorted(
        (m for m in matches if m.finished_at is not None), key=lambda m: (m.finished_at or 0.0, m.id)
    ):
        table.count(match, ratings)
    return table.ranked()


def arena_pairs(
    waiting: list[str], last_opponent: dict[str, str | None]
) -> tuple[list[tuple[str, str]], str | None]:
    """Pairs of `waiting` (given in standings order) and the one left over, if any.

    Each player takes the nearest player below in the standings, skipping the opponent of its
    last match while another choice exists; nobody is in two pairs, nobody meets itself.
    """
    free = deque(dict.fromkeys(waiting))
    pairs = []
    while len(free) >= 2:
        first = free.popleft()
        choice = next(
            (
                i
                for i, other in enumerate(free)
                if last_opponent.get(first) != other and last_opponent.get(other) != first
            ),
            0,
        )
        second = free[choice]
        del free[choice]
        pairs.append((first, second))
    return pairs, (free[0] if free else None)


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
        self.row = TournamentRow(**{**_fields(self.row), **changes})
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
            text = self._texts[standing.guest_id] = _dumps(self._line_body(standing))
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
                "null" if match_id is None else _dumps(match_id),
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
            summary=_dumps(self.summary()),
            playing=_dumps(self._playing(ranks)),
        )
        full: str | None = None
        mine: dict[str | None, str] = {}  # one encoding per viewer, however many of its pages are open
        for conn, guest in list(self.conns.items()):
            me = mine.get(guest)
            if me is None:
                me = mine[guest] = self._me_text(guest, ranks)
            if conn in feed.fresh:
                if full is None:
                    full = _dumps(self._shared(ranks))[:-1]
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
                    text = _dumps({"type": "pairing", "match_id": row.id, "url": f"/m/{row.id}", "now": now})
                    for conn in pages:
                        conn.send_text(text)

    def connect(self, conn: Connection, guest_id: str | None) -> None:
        self.conns[conn] = guest_id
        self.feed.opened(conn, guest_id)
        conn.send_text(_dumps(self.state(guest_id)))

    def disconnect(self, conn: Connection) -> None:
        guest = self.conns.pop(conn, None)
        self.feed.closed(conn, guest)


class PageFeed:
    """What the tournament pages were last sent, so that a push carries only what changed.

    A page gets the whole state when it opens (and again at the first push after, so nothing
    changed meanwhile is missed); every push after that is a delta: `order` (the ids of the lines
    shown, best first) when it changed, `lines` (by id, without the rank) for the lines that
    changed, `tournament` and `playing` when they changed, and `me` when the viewer's own part
    changed; a page for which nothing changed is sent nothing. Every push reaches every open page
    in order (a page too slow to keep up is closed, reopens and starts again from a whole state),
    so a page that applies each delta to what it has shows what the server would send whole.
    """

    def __init__(self) -> None:
        self.order: list[str] = []
        self.ranked = 0
        self.lines: dict[str, str] = {}
        self.summary = ""
        self.playing = ""
        self.fresh: set[Connection] = set()  # opened since the last push
        self.me_sent: dict[Connection, str] = {}
        self.pages: dict[str, set[Connection]] = {}  # guest id -> its open pages

    def opened(self, conn: Connection, guest_id: str | None) -> None:
        self.fresh.add(conn)
        if guest_id is not None:
            self.pages.setdefault(guest_id, set()).add(conn)

    def closed(self, conn: Connection, guest_id: str | None) -> None:
        self.fresh.discard(conn)
        self.me_sent.pop(conn, None)
        pages = self.pages.get(guest_id or "")
        if pages is not None:
            pages.discard(conn)
            if not pages:
                del self.pages[guest_id or ""]

    def delta(
        self, *, now: float, ranked: int, lines: dict[str, str], summary: str, playing: str
    ) -> tuple[str, bool]:
        """The delta message since the last push, without its closing brace, and whether anything
        every page shows changed; remembers this push."""
        parts = ['{"type":"tournament","delta":true,"now":', _dumps(now), ',"players_ranked":', str(ranked)]
        size = len(parts)
        if ranked != self.ranked:
            parts.append("")  # counted as a change; the count is in every push
        order = list(lines)
        if order != self.order:
            parts += [',"order":', _dumps(order)]
        news = [f"{_dumps(guest)}:{text}" for guest, text in lines.items() if self.lines.get(guest) != text]
        if news:
            parts += [',"lines":{', ",".join(news), "}"]
        if summary != self.summary:
            parts += [',"tournament":', summary]
        if playing != self.playing:
            parts += [',"playing":', playing]
        self.order, self.lines, self.ranked = order, lines, ranked
        self.summary, self.playing = summary, playing
        return "".join(parts), len(parts) > size


class ArenaLive(TournamentLive):
    """A running arena: pairs whoever waits as soon as their match ends, until the clock ends.

    Its standings are an `ArenaTable` counted from the database when it is loaded and kept up to
    date as each match ends; a pairing wave runs every `tournament_interval` and soon after a
    match ends (`PAIR_SOON`), stores all of its matches in one transaction and opens them without
    reading them back.
    """

    def __init__(self, service: ServiceHost, row: TournamentRow) -> None:
        super().__init__(service, row)
        self.last_opponent: dict[str, str | None] = {}
        self.table = ArenaTable(row.ends_at)
        self._pair_due: asyncio.TimerHandle | None = None
        self._pairing: set[str] = set()  # players of a wave whose matches are being written

    @property
    def standings(self) -> list[Standing]:
        return self.table.ranked()

    async def load(self) -> None:
        await super().load()
        self.last_opponent = {}
        for match in self.matches.values():  # in the order they were made
            ids = [s.guest_id or f"robot:{s.robot_level}" for s in match.seats]
            for seat in match.seats:
                if seat.guest_id:
                    self.last_opponent[seat.guest_id] = ids[1 - seat.seat]

    async def _restand(self) -> None:
        unrated = {
            s.guest_id for m in self.matches.values() for s in m.seats if s.guest_id and s.rating is None
        }
        # Matches stored before seats kept their rating count the player's rating now.
        ratings = await self._ratings(sorted(unrated)) if unrated else {}
        self._texts.clear()
        self.table = ArenaTable(self.row.ends_at)
        for player in self.players.values():
            self.table.add_player(player.guest_id, player.joined_at)
        done = (m for m in self.matches.values() if m.finished_at is not None)
        for match in sorted(done, key=lambda m: (m.finished_at or 0.0, m.id)):
            self.table.count(match, ratings)

    async def _joined(self, player: TournamentPlayer) -> None:
        self.table.add_player(player.guest_id, player.joined_at)

    def _counted(self, match: MatchRow) -> None:
        self.table.count(match)
        self._pair_soon()

    def _pair_soon(self) -> None:
        """Pair again shortly: whoever finishes meanwhile is paired in the same wave."""
        self._pair_in(PAIR_SOON)

    def _pair_in(self, delay: float) -> None:
        """A wave in `delay` seconds, unless one is due sooner."""
        if self.row.status != "started":
            return
        loop = asyncio.get_running_loop()
        due = self._pair_due
        if due is not None:
            if due.when() <= loop.time() + delay:
                return
            due.cancel()
        self._pair_due = loop.call_later(max(0.0, delay), self._pair_now)

    def _pair_now(self) -> None:
        self._pair_due = None
        self._task(self.wave())

    def close(self) -> None:
        if self._pair_due is not None:
            self._pair_due.cancel()
            self._pair_due = None
        super().close()

    async def wave(self) -> None:
        """Start, pair the waiting players, or finish, as the clock says."""
        now = self.clock()
        row = self.row
        if row.status == "created" and now >= row.starts_at:
            await self._set_status("started")
        if row.status == "started" and now >= row.ends_at:
            await self._set_status("finished")
            return
        if self.row.status != "started":
            return
        # Chosen without waiting on anything, then written: a wave in flight never holds up the
        # next one (it leaves out the players being paired), nor a match's end.
        rank = self.table.ranks()
        waiting = [
            g
            for g in self._active()
            if g not in self.current and g in self.waiting_since and g not in self._pairing
        ]
        waiting.sort(key=lambda g: (rank.get(g, len(rank) + 1), g))
        pairs, odd = arena_pairs(waiting, self.last_opponent)
        others_playing = len(self.current) > 0
        starts: list[tuple[str, str | None]] = []
        for a, b in pairs:
            rematch = self.last_opponent.get(a) == b or self.last_opponent.get(b) == a
            waited = now - max(self.waiting_since.get(a, now), self.waiting_since.get(b, now))
            if rematch and others_playing and waited < REMATCH_HOLD:
                # Someone else may be free in a moment: wait for them a little, and no longer.
                self._pair_in(REMATCH_HOLD - waited)
                continue
            starts.append((a, b))
        if odd is not None and row.robots:
            alone = now - self.waiting_since.get(odd, now)
            if alone >= ROBOT_AFTER:
                starts.append((odd, None))
            else:
                self._pair_in(ROBOT_AFTER - alone)
        if not starts:
            return
        chosen = {g for pair in starts for g in pair if g is not None}
        self._pairing |= chosen
        try:
            ratings = await self._ratings(sorted(chosen))
            rows = [self._match_row(self._seats(a, b, ratings)) for a, b in starts]
            await self.service.store.create_matches(rows, fence=self._fence())
        finally:
            self._pairing -= chosen  # paired now, or free to be paired again if the write failed
        for match in rows:
            ids = [s.guest_id or f"robot:{s.robot_level}" for s in match.seats]
            for seat in match.seats:
                if seat.guest_id:
                    self.last_opponent[seat.guest_id] = ids[1 - seat.seat]
        await self._opened(rows)
        self.broadcast()

    def _winner(self) -> str | None:
        standings = self.table.ranked()
        return standings[0].guest_id if standings and standings[0].played else None

    def _ranked(self) -> list[Any]:
        return self.table.ranked()

    def _ranks(self) -> dict[str, int]:
        return self.table.ranks()

    def _fields_of(self, standing: Any) -> dict[str, Any]:
        s: Standing = standing
        return {
            "score": s.score,
            "played": s.played,
            "won": s.won,
            "fire": s.fire,
            "sheet": s.sheet[-12:],
            "performance": round(s.performance) if s.played else None,
        }


class SwissLive(TournamentLive):
    """A running Swiss tournament: round after round, each paired once every match of the last ended.

    The next round is paired `swiss_round_gap` seconds after the last match of the round ended;
    it ends after its last round, or early when a round cannot be paired without a rematch or
    fewer than two players are left. Late joining is open until more than half the rounds have
    been paired (Lichess's rule).
    """

    def __init__(self, service: ServiceHost, row: TournamentRow) -> None:
        super().__init__(service, row)
        self.byes: list[tuple[int, str]] = []
        self.cells: dict[str, list[Cell]] = {}
        self.standings: list[SwissStanding] = []
        self.ratings: dict[str, float] = {}  # the players' ratings as last read (the last tie-break)
        self.next_round_at: float | None = None

    @property
    def rounds(self) -> int:
        return self.row.rounds or 1

    async def load(self) -> None:
        self.byes = await self.service.store.tournament_byes(self.id)
        await super().load()

    async def _restand(self) -> None:
        self.ratings = await self._ratings()
        self._recount()

    def _recount(self) -> None:
        """The cells and standings again from the matches and byes (the ratings as last read)."""
        self._texts.clear()
        self.cells = swiss_cells(list(self.matches.values()), self.byes, list(self.players), self.row.round)
        self.standings = swiss_standings(self.cells, list(self.players.values()), self.ratings)

    async def _joined(self, player: TournamentPlayer) -> None:
        await self._restand()

    def _counted(self, match: MatchRow) -> None:
        self._recount()  # a few hundred players at most: counted again whole

    def _may_join(self, guest_id: str) -> None:
        super()._may_join(guest_id)
        if guest_id not in self.players and len(self.players) >= SWISS_MAX_PLAYERS:
            raise Forbidden(f"this Swiss tournament is full ({SWISS_MAX_PLAYERS} players)")
        if (
            self.row.status == "started"
            and self.row.round > self.rounds // 2
            and guest_id not in self.players
        ):
            raise Forbidden("more than half the rounds have been played: joining is closed")

    def _round_over_at(self) -> float:
        """When the last match of the current round ended (the round's pairing time if none)."""
        ends = [m.finished_at or 0.0 for m in self.matches.values() if m.round == self.row.round]
        return max(ends, default=self.row.starts_at)

    async def wave(self) -> None:
        """Start, pair the next round, or finish, as the clock and the matches say."""
        now = self.clock()
        if self.row.status == "created" and now >= self.row.starts_at:
            await self._set_status("started")
        if self.row.status != "started":
            return
        async with self.lock:
            if self.current:
                return  # the round is being played
            if self.row.round >= self.rounds:
                await self._set_status("finished", ends_at=now)
                return
            if self.row.round > 0:
                self.next_round_at = self._round_over_at() + self.service.config.swiss_round_gap
                if now < self.next_round_at:
                    return
            paired = await self._pair_next()
        if paired:
            self.broadcast()

    async def _pair_next(self) -> bool:
        """Pair and start the next round (or finish when it cannot be). Call with `lock` held."""
        ratings = await self._ratings()
        present = set(self._active())
        order = sorted(self.players, key=lambda g: (-ratings.get(g, 1500.0), self.players[g].joined_at, g))
        found = None
        if len(present) >= 2:
            found = await asyncio.to_thread(swiss_pairing, self.cells, order, present, ratings, self.rounds)
        if found is None:
            log.info("tournament %s: round %d cannot be paired; it ends", self.id, self.row.round + 1)
            await self._set_status("finished", ends_at=self.clock())
            return False
        pairs, left = found
        number = self.row.round + 1
        rows = [self._match_row(self._seats(a, b, ratings), number) for a, b in pairs]
        byes = []
        if left is not None:
            if self.row.robots:
                rows.append(self._match_row(self._seats(left, None, ratings), number))
            else:
                byes.append(left)
        if not await self.service.store.start_round(self.id, number, rows, byes, fence=self._fence()):
            # Another process paired this round: take what it stored.
            fresh = await self.service.store.get_tournament(self.id)
            if fresh is not None:
                self.row = fresh
            self.byes = await self.service.store.tournament_byes(self.id)
            await super().load()
            return True
        self.row = TournamentRow(**{**_fields(self.row), "round": number})
        self.byes.extend((number, g) for g in byes)
        await self._opened(rows)
        self.next_round_at = None
        await self._restand()
        log.info("tournament %s: round %d paired (%d matches)", self.id, number, len(rows))
        return True

    def _winner(self) -> str | None:
        return self.standings[0].guest_id if self.standings and self.standings[0].played else None

    def summary(self) -> dict[str, Any]:
        data = super().summary()
        data.update(rounds=self.rounds, round=self.row.round, next_round_at=self.next_round_at)
        return data

    def _ranked(self) -> list[Any]:
        return self.standings

    def _fields_of(self, standing: Any) -> dict[str, Any]:
        s: SwissStanding = standing
        return {
            "score": s.score,
            "played": s.played,
            "won": s.won,
            "sheet": [c.mark for c in s.cells],
            "buchholz": s.buchholz,
            "sonneborn_berger": s.sonneborn_berger,
        }


def _fields(row: TournamentRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in TournamentRow.__dataclass_fields__}


def _clean_name(value: Any) -> str:
    if not isinstance(value, str):
        raise BadRequest("name must be a string")
    name = unicodedata.normalize("NFC", " ".join(value.split()))
    if not 1 <= len(name) <= NAME_MAX:
        raise BadRequest(f"a tournament name has 1 to {NAME_MAX} characters")
    refuse_invisible(name, "a tournament name")
    return name


def _number(body: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise BadRequest(f"{key} must be a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _start(body: dict[str, Any], now: float) -> float:
    """When a player-made tournament starts: `starts_in` minutes from now or at `starts_at` (unix
    seconds, UTC); now by default. Not in the past, at most `START_AHEAD_DAYS` ahead."""
    if "starts_at" in body and "starts_in" in body:
        raise BadRequest("give the start as starts_in (minutes from now) or starts_at (a time), not both")
    if "starts_at" not in body:
        return now + 60 * _number(body, "starts_in", 0, 0, START_AHEAD_DAYS * 24 * 60)
    value = body["starts_at"]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise BadRequest(f"starts_at must be a time in unix seconds (UTC), got {value!r}")
    late = now - float(value)
    if late > START_GRACE:
        stamp = (
            time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(value))) if value >= 0 else "before 1970"
        )
        raise BadRequest(f"starts_at is in the past ({stamp}): choose a time from now on")
    if float(value) > now + START_AHEAD_DAYS * 86400:
        raise BadRequest(f"starts_at is more than {START_AHEAD_DAYS} days ahead: choose an earlier time")
    return max(now, float(value))  # a start a few seconds ago (a slow form) is now


def _flag(body: dict[str, Any], key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise BadRequest(f"{key} must be true or false, got {value!r}")
    return value


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
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

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
        name = _clean_name(body.get("name", "Arena" if fmt == "arena" else "Swiss"))
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
        starts = _start(body, now)
        rounds: int | None = None
        if fmt == "swiss":
            rounds = round(_number(body, "rounds", 5, 1, SWISS_MAX_ROUNDS))
            if rounds != body.get("rounds", 5):
                raise BadRequest(f"rounds must be a whole number, got {body.get('rounds')!r}")
            minutes = 0.0
        else:
            minutes = _number(body, "minutes", 30, 0.1, 24 * 60)
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
            rated=_flag(body, "rated", True),
            robots=_flag(body, "robots", True),
            listed=_flag(body, "listed", False),
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
