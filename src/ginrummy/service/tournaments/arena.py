"""Arenas (Lichess-style): a fixed time, join any time, paired again as soon as a match ends.

Scoring (Lichess's arena): a match won is worth 2, drawn 1, lost 0. Two wins in a row put a
player "on fire": while on fire a won or drawn match is worth double, and anything but a win puts
the fire out. An aborted match counts for nothing. Ties are broken by performance: the mean over
the player's matches of the opponent's rating, +500 for a win and -500 for a loss (robots count
at the rating of their level). Pairing: whoever is waiting is paired with the waiting player
nearest in the standings, but not with the opponent of their last match while someone else is
waiting; an odd one out plays a robot when the tournament allows robots. When the clock ends,
nobody is paired any more and matches still being played continue but count for nothing, as on
Lichess.
"""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from ..host import ServiceHost
from ..ports import MatchRow, SeatRow, TournamentPlayer, TournamentRow
from .live import ROBOT_RATINGS, TournamentLive

#: An arena pairs again this long after a match ends (and every `tournament_interval` anyway):
#: whoever finishes meanwhile is paired in the same wave.
PAIR_SOON = 0.25
#: Two players who just met are paired again at once only when nobody else could be free soon;
#: otherwise they wait up to this long for someone else.
REMATCH_HOLD = 1.0
#: An odd player out waits this long before a robot plays it (when the arena allows robots).
ROBOT_AFTER = 3.0


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
