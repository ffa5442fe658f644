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
its players, its matches): after a restart it is rebuilt from there and pairing resumes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import BadRequest, Forbidden, NotFound
from .options import parse_rules, parse_turn_seconds, robot_level_for
from .ports import MatchRow, SeatRow, StoreError, TournamentPlayer, TournamentRow
from .ratings import GAME
from .swiss import Cell, SwissStanding, swiss_cells, swiss_pairing, swiss_standings

if TYPE_CHECKING:
    from .live import Connection
    from .platform import GameService

__all__ = [
    "ArenaLive",
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
#: to 100 open pages, longer with more (every page gets every push), at most 2 s.
BROADCAST_EVERY = 0.25
BROADCAST_MOST = 2.0
ROBOT_RATINGS = {"novice": 1100, "casual": 1400, "skilled": 1600, "advanced": 1800, "expert": 2000}
NAME_MAX = 40
#: A Swiss round is paired by the FIDE Dutch system in Python: about 6 s for 200 players on a
#: loaded 2-core machine (benchmarks/bench_swiss.py), so a Swiss tournament holds at most this many.
SWISS_MAX_PLAYERS = 256
SWISS_MAX_ROUNDS = 15
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


def arena_standings(
    matches: list[MatchRow],
    players: list[TournamentPlayer],
    ratings: dict[str, float],
    *,
    until: float,
) -> list[Standing]:
    """The standings from the finished matches (in the order they finished, up to `until`)."""
    table = {p.guest_id: Standing(p.guest_id, joined_at=p.joined_at) for p in players}
    done = sorted(
        (m for m in matches if m.status == "over" and m.finished_at is not None and m.finished_at <= until),
        key=lambda m: (m.finished_at or 0.0, m.id),
    )
    for match in done:
        result = match.result or {}
        if result.get("ended") == "aborted":
            continue
        winner = result.get("winner")
        for seat in match.seats:
            line = table.get(seat.guest_id or "")
            if line is None:
                continue
            other = match.seats[1 - seat.seat]
            opponent = (
                ratings.get(other.guest_id, 1500.0)
                if other.guest_id
                else ROBOT_RATINGS.get(other.robot_level or "", 1500)
            )
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
    return sorted(table.values(), key=lambda s: (-s.score, -s.performance, s.joined_at, s.guest_id))


def arena_pairs(
    waiting: list[str], last_opponent: dict[str, str | None]
) -> tuple[list[tuple[str, str]], str | None]:
    """Pairs of `waiting` (given in standings order) and the one left over, if any.

    Each player takes the nearest player below in the standings, skipping the opponent of its
    last match while another choice exists; nobody is in two pairs, nobody meets itself.
    """
    free = list(dict.fromkeys(waiting))
    pairs = []
    while len(free) >= 2:
        first = free.pop(0)
        choice = next(
            (
                i
                for i, other in enumerate(free)
                if last_opponent.get(first) != other and last_opponent.get(other) != first
            ),
            0,
        )
        pairs.append((first, free.pop(choice)))
    return pairs, (free[0] if free else None)


class TournamentLive:
    """One running tournament: the only object that pairs its players (under `lock`).

    What arenas and Swiss tournaments share: players joining, pausing and withdrawing, starting
    matches, and pushing the page's state to every socket watching.
    """

    def __init__(self, service: GameService, row: TournamentRow) -> None:
        self.service = service
        self.row = row
        self.lock = asyncio.Lock()
        self.players: dict[str, TournamentPlayer] = {}
        self.current: dict[str, str] = {}  # guest id -> the tournament match it is playing
        self.waiting_since: dict[str, float] = {}
        self.names: dict[str, str] = {}
        self.conns: dict[Connection, str | None] = {}  # socket -> the guest watching (None: nobody signed)
        self.matches: list[MatchRow] = []
        self._push_due: asyncio.TimerHandle | None = None

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
        self.matches = await store.tournament_matches(self.id)
        self.current = {
            seat.guest_id: match.id
            for match in self.matches
            if match.status != "over"
            for seat in match.seats
            if seat.guest_id
        }
        await self._restand()

    async def _ratings(self) -> dict[str, float]:
        store = self.service.store
        ids = list(self.players)
        ratings = {g: r.rating for g, r in (await store.get_ratings(ids, GAME)).items()} if ids else {}
        missing = [g for g in ids if g not in self.names]
        if missing:
            self.names.update({g.id: g.name for g in (await store.get_guests(missing)).values()})
        return ratings

    async def _restand(self) -> None:
        raise NotImplementedError

    # -- players -----------------------------------------------------------------------

    def _may_join(self, guest_id: str) -> None:
        """Raise `Forbidden` when `guest_id` may not join now."""
        if self.row.status == "finished":
            raise Forbidden("this tournament is over")

    async def join(self, guest_id: str, name: str) -> None:
        async with self.lock:
            self._may_join(guest_id)
            old = self.players.get(guest_id)
            player = TournamentPlayer(guest_id, old.joined_at if old else self.clock(), False, False)
            await self.service.store.set_tournament_player(self.id, player)
            self.players[guest_id] = player
            self.names[guest_id] = name
            self.waiting_since[guest_id] = self.clock()
            await self._restand()
        self.broadcast()

    async def set_state(self, guest_id: str, *, withdrawn: bool, paused: bool) -> None:
        """Withdraw (leave for good; rejoining is possible) or pause (not paired until resumed)."""
        async with self.lock:
            old = self.players.get(guest_id)
            if old is None:
                raise NotFound("you have not joined this tournament")
            player = TournamentPlayer(guest_id, old.joined_at, withdrawn, paused)
            await self.service.store.set_tournament_player(self.id, player)
            self.players[guest_id] = player
            if not (withdrawn or paused):
                self.waiting_since[guest_id] = self.clock()
        self.broadcast()

    def _active(self) -> list[str]:
        return [g for g, p in self.players.items() if not p.withdrawn and not p.paused]

    # -- matches ------------------------------------------------------------------------

    async def _seats(self, first: str, second: str | None) -> tuple[SeatRow, SeatRow]:
        """The seats of a match between two people (in random seats) or one and a robot of its strength."""
        if second is None:
            rating = (await self.service.boards.rating_of(first))["rating"]
            return SeatRow(0, first), SeatRow(1, robot_level=robot_level_for(rating))
        if secrets.randbelow(2):
            first, second = second, first
        return SeatRow(0, first), SeatRow(1, second)

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

    async def _opened(self, row: MatchRow) -> None:
        """A match of the tournament was stored: note who plays it and open it. Call with `lock` held."""
        self.matches.append(row)
        for seat in row.seats:
            if seat.guest_id:
                self.current[seat.guest_id] = row.id
                self.waiting_since.pop(seat.guest_id, None)
        await self.service.get_live(row.id)
        players = ", ".join(s.guest_id or f"robot:{s.robot_level}" for s in row.seats)
        log.info("tournament %s: match %s for %s", self.id, row.id, players)

    async def match_over(self, match_id: str) -> None:
        """A tournament match ended: its players wait for the next pairing; standings change."""
        async with self.lock:
            fresh = await self.service.store.get_match(match_id)
            if fresh is None:
                return
            self.matches = [fresh if m.id == match_id else m for m in self.matches]
            now = self.clock()
            for guest, current in list(self.current.items()):
                if current == match_id:
                    del self.current[guest]
                    self.waiting_since[guest] = now
            await self._restand()
        self.broadcast()

    async def _set_status(self, status: str, *, ends_at: float | None = None) -> None:
        await self.service.store.set_tournament_status(self.id, status, ends_at=ends_at)
        changes: dict[str, Any] = {"status": status}
        if ends_at is not None:
            changes["ends_at"] = ends_at
        self.row = TournamentRow(**{**_fields(self.row), **changes})
        if status == "finished":
            await self._restand()
        self.broadcast()

    async def wave(self) -> None:
        raise NotImplementedError

    # -- what pages see ---------------------------------------------------------------

    def _winner(self) -> str | None:
        raise NotImplementedError

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
            "winner": {"id": winner, "name": self.names.get(winner, "Guest")} if winner else None,
            "url": f"/t/{row.id}",
        }

    def _lines(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _all_lines(self) -> dict[str, dict[str, Any]]:
        lines = {}
        for line in self._lines():
            player = self.players.get(line["id"])
            line["withdrawn"] = bool(player and player.withdrawn)
            line["paused"] = bool(player and player.paused)
            line["playing"] = line["id"] in self.current
            lines[line["id"]] = line
        return lines

    def _shared(self, lines: dict[str, dict[str, Any]]) -> dict[str, Any]:
        """What every viewer gets: the first lines, the best-placed matches to watch, the clock."""
        rank = {guest: line["rank"] for guest, line in lines.items()}
        in_play: dict[str, int] = {}
        for guest, match_id in self.current.items():
            in_play[match_id] = min(in_play.get(match_id, 1 << 30), rank.get(guest, 1 << 30))
        by_id = {m.id: m for m in self.matches if m.id in in_play}
        live = []
        for match_id in sorted(in_play, key=lambda m: (in_play[m], m))[:WATCH_SHOWN]:
            m = by_id.get(match_id)
            if m is None:
                continue
            names = [
                self.names.get(s.guest_id or "", "Guest") if s.guest_id else f"Robot ({s.robot_level})"
                for s in m.seats
            ]
            live.append({"id": match_id, "names": names, "watch": f"/watch/{match_id}"})
        return {
            "type": "tournament",
            "tournament": self.summary(),
            "now": self.clock(),
            "standings": list(lines.values())[:STANDINGS_SHOWN],
            "players_ranked": len(lines),
            "playing": live,
        }

    def _me(self, guest_id: str | None, lines: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
        """The viewer's own part: joined or not, its match, its rank and its line."""
        if guest_id is None or guest_id not in self.players:
            return None
        player = self.players[guest_id]
        line = lines.get(guest_id)
        return {
            "joined": not player.withdrawn,
            "paused": player.paused,
            "match_id": self.current.get(guest_id),
            "rank": line["rank"] if line else None,
            "line": line,
        }

    def state(self, guest_id: str | None) -> dict[str, Any]:
        """The tournament page's message: standings, matches to watch, and the viewer's own state."""
        lines = self._all_lines()
        return {**self._shared(lines), "me": self._me(guest_id, lines)}

    def broadcast(self) -> None:
        """Push the state to every page soon; changes meanwhile go out together."""
        if self._push_due is None and self.conns:
            delay = min(BROADCAST_MOST, BROADCAST_EVERY * max(1.0, len(self.conns) / 100))
            self._push_due = asyncio.get_running_loop().call_later(delay, self._push)

    def _push(self) -> None:
        self._push_due = None
        lines = self._all_lines()
        # The shared part is encoded once; each signed viewer's own part is spliced in.
        shared = _dumps(self._shared(lines))[:-1]
        anonymous = shared + ',"me":null}'
        for conn, guest in list(self.conns.items()):
            me = self._me(guest, lines)
            conn.send_text(anonymous if me is None else f'{shared},"me":{_dumps(me)}}}')

    def connect(self, conn: Connection, guest_id: str | None) -> None:
        self.conns[conn] = guest_id
        conn.send_text(_dumps(self.state(guest_id)))

    def disconnect(self, conn: Connection) -> None:
        self.conns.pop(conn, None)


class ArenaLive(TournamentLive):
    """A running arena: pairs whoever waits as soon as their match ends, until the clock ends."""

    def __init__(self, service: GameService, row: TournamentRow) -> None:
        super().__init__(service, row)
        self.last_opponent: dict[str, str | None] = {}
        self.standings: list[Standing] = []

    async def load(self) -> None:
        await super().load()
        self.last_opponent = {}
        for match in sorted(self.matches, key=lambda m: m.created_at):
            ids = [s.guest_id or f"robot:{s.robot_level}" for s in match.seats]
            for seat in match.seats:
                if seat.guest_id:
                    self.last_opponent[seat.guest_id] = ids[1 - seat.seat]

    async def _restand(self) -> None:
        ratings = await self._ratings()
        self.standings = arena_standings(
            self.matches, list(self.players.values()), ratings, until=self.row.ends_at
        )

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
        async with self.lock:
            rank = {s.guest_id: i for i, s in enumerate(self.standings)}
            waiting = [g for g in self._active() if g not in self.current and g in self.waiting_since]
            waiting.sort(key=lambda g: (rank.get(g, len(rank)), g))
            pairs, odd = arena_pairs(waiting, self.last_opponent)
            for a, b in pairs:
                await self._start(a, b)
            if odd is not None and row.robots and now - self.waiting_since.get(odd, now) >= 3.0:
                await self._start(odd, None)
        if pairs or odd:
            self.broadcast()

    async def _start(self, first: str, second: str | None) -> None:
        """A match of the arena between two players (or one and a robot). Call with `lock` held."""
        seats = await self._seats(first, second)
        row = self._match_row(seats)
        await self.service.store.create_match(row)
        ids = [s.guest_id or f"robot:{s.robot_level}" for s in seats]
        for seat in seats:
            if seat.guest_id:
                self.last_opponent[seat.guest_id] = ids[1 - seat.seat]
        await self._opened(row)

    def _winner(self) -> str | None:
        return self.standings[0].guest_id if self.standings and self.standings[0].played else None

    def _lines(self) -> list[dict[str, Any]]:
        return [
            {
                "rank": rank,
                "id": s.guest_id,
                "name": self.names.get(s.guest_id, "Guest"),
                "score": s.score,
                "played": s.played,
                "won": s.won,
                "fire": s.fire,
                "sheet": s.sheet[-12:],
                "performance": round(s.performance) if s.played else None,
            }
            for rank, s in enumerate(self.standings, start=1)
        ]


class SwissLive(TournamentLive):
    """A running Swiss tournament: round after round, each paired once every match of the last ended.

    The next round is paired `swiss_round_gap` seconds after the last match of the round ended;
    it ends after its last round, or early when a round cannot be paired without a rematch or
    fewer than two players are left. Late joining is open until more than half the rounds have
    been paired (Lichess's rule).
    """

    def __init__(self, service: GameService, row: TournamentRow) -> None:
        super().__init__(service, row)
        self.byes: list[tuple[int, str]] = []
        self.cells: dict[str, list[Cell]] = {}
        self.standings: list[SwissStanding] = []
        self.next_round_at: float | None = None

    @property
    def rounds(self) -> int:
        return self.row.rounds or 1

    async def load(self) -> None:
        self.byes = await self.service.store.tournament_byes(self.id)
        await super().load()

    async def _restand(self) -> None:
        ratings = await self._ratings()
        self.cells = swiss_cells(self.matches, self.byes, list(self.players), self.row.round)
        self.standings = swiss_standings(self.cells, list(self.players.values()), ratings)

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
        ends = [m.finished_at or 0.0 for m in self.matches if m.round == self.row.round]
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
        rows = [self._match_row(await self._seats(a, b), number) for a, b in pairs]
        byes = []
        if left is not None:
            if self.row.robots:
                rows.append(self._match_row(await self._seats(left, None), number))
            else:
                byes.append(left)
        if not await self.service.store.start_round(self.id, number, rows, byes):
            # Another process paired this round: take what it stored.
            fresh = await self.service.store.get_tournament(self.id)
            if fresh is not None:
                self.row = fresh
            self.byes = await self.service.store.tournament_byes(self.id)
            await super().load()
            return True
        self.row = TournamentRow(**{**_fields(self.row), "round": number})
        self.byes.extend((number, g) for g in byes)
        for row in rows:
            await self._opened(row)
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

    def _lines(self) -> list[dict[str, Any]]:
        return [
            {
                "rank": rank,
                "id": s.guest_id,
                "name": self.names.get(s.guest_id, "Guest"),
                "score": s.score,
                "played": s.played,
                "won": s.won,
                "sheet": [c.mark for c in s.cells],
                "buchholz": s.buchholz,
                "sonneborn_berger": s.sonneborn_berger,
            }
            for rank, s in enumerate(self.standings, start=1)
        ]


def _fields(row: TournamentRow) -> dict[str, Any]:
    return {name: getattr(row, name) for name in TournamentRow.__dataclass_fields__}


def _clean_name(value: Any) -> str:
    if not isinstance(value, str):
        raise BadRequest("name must be a string")
    name = " ".join(value.split())
    if not 1 <= len(name) <= NAME_MAX:
        raise BadRequest(f"a tournament name has 1 to {NAME_MAX} characters")
    return name


def _number(body: dict[str, Any], key: str, default: float, low: float, high: float) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
        raise BadRequest(f"{key} must be a number from {low:g} to {high:g}, got {value!r}")
    return float(value)


def _flag(body: dict[str, Any], key: str, default: bool) -> bool:
    value = body.get(key, default)
    if not isinstance(value, bool):
        raise BadRequest(f"{key} must be true or false, got {value!r}")
    return value


class Tournaments:
    """Every arena of the server: created by players or on the daily schedule, rebuilt at start."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.live: dict[str, TournamentLive] = {}
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        for row in await self.service.store.tournaments(("created", "started"), listed_only=False):
            await self._open(row)
        await self.schedule_daily()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _open(self, row: TournamentRow) -> TournamentLive:
        arena = self.live.get(row.id)
        if arena is None:
            arena = SwissLive(self.service, row) if row.format == "swiss" else ArenaLive(self.service, row)
            await arena.load()
            self.live[row.id] = arena
        return arena

    async def schedule_daily(self) -> int:
        """Create the daily tournaments of the next 24 hours that do not exist yet; returns how many.

        Arenas start at `daily_hours`, Swiss tournaments at `daily_swiss_hours` (UTC). Their ids
        come from their start (daily-YYYYMMDD-HH, daily-swiss-YYYYMMDD-HH), so each is made once
        however often this runs, by however many processes.
        """
        config = self.service.config
        now = self.service.clock()
        made = 0
        day = int(now // 86400)
        kinds = (("arena", config.daily_hours), ("swiss", config.daily_swiss_hours))
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

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.service.config.tournament_interval)
            try:
                await self.schedule_daily()
            except Exception:
                log.exception("the daily tournaments could not be scheduled")
            for arena in list(self.live.values()):
                try:
                    await arena.wave()
                except Exception:
                    log.exception("tournament %s: a pairing wave failed", arena.id)
                if arena.row.status == "finished" and not arena.conns:
                    self.live.pop(arena.id, None)

    async def create(self, creator: str, body: dict[str, Any]) -> TournamentLive:
        """A player-made tournament. Options: format ("arena" or "swiss"), name, starts_in
        (minutes), minutes (an arena's length) or rounds (a Swiss's), rules, turn_seconds, rated,
        robots, listed."""
        fmt = body.get("format", "arena")
        if fmt not in ("arena", "swiss"):
            raise BadRequest(f"format must be 'arena' or 'swiss', got {fmt!r}")
        name = _clean_name(body.get("name", "Arena" if fmt == "arena" else "Swiss"))
        now = self.service.clock()
        starts = now + 60 * _number(body, "starts_in", 0, 0, 7 * 24 * 60)
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
        return [(await self._open(row)).summary() for row in rows]

    def match_over(self, tournament_id: str, match_id: str) -> None:
        arena = self.live.get(tournament_id)
        if arena is not None:
            task = asyncio.get_running_loop().create_task(arena.match_over(match_id))
            task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)
