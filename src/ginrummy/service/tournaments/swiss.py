"""Swiss tournaments run round by round: `service.swiss` scores, pairs (the FIDE Dutch system) and
breaks ties; `SwissLive` pairs each round once the last one ended, and ends the tournament."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..errors import Forbidden
from ..host import ServiceHost
from ..ports import MatchRow, TournamentPlayer, TournamentRow
from ..swiss import Cell, SwissStanding, swiss_cells, swiss_pairing, swiss_standings
from .live import TournamentLive, row_fields

log = logging.getLogger("ginrummy.service")

#: A Swiss round is paired by the FIDE Dutch system in Python: about 6 s for 200 players on a
#: loaded 2-core machine (benchmarks/bench_swiss.py), so a Swiss tournament holds at most this many.
SWISS_MAX_PLAYERS = 256
SWISS_MAX_ROUNDS = 15


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
        self.row = TournamentRow(**{**row_fields(self.row), "round": number})
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
