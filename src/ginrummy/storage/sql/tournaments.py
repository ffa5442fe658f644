"""Tournaments, their rounds, byes and players."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from ...service.ports import Lease, MatchRow, TournamentPlayer, TournamentRow
from ..schema import matches, tournament_byes, tournament_players, tournaments
from .common import columns_of
from .matches import insert_matches, load_matches
from .writer import StoreBase


class TournamentQueries(StoreBase):
    """The tournaments of `SqlStore`."""

    async def create_tournament(self, tournament: TournamentRow) -> None:
        values = columns_of(
            tournament, rules=json.dumps(tournament.rules, sort_keys=True, separators=(",", ":"))
        )
        await self._run(lambda conn: conn.execute(tournaments.insert().values(**values)))

    async def get_tournament(self, tournament_id: str) -> TournamentRow | None:
        def job(conn: sa.Connection) -> TournamentRow | None:
            row = conn.execute(sa.select(tournaments).where(tournaments.c.id == tournament_id)).first()
            return _tournament(row) if row is not None else None

        return await self._run(job, read=True)

    async def tournaments(
        self, statuses: tuple[str, ...], *, listed_only: bool, created_by: str | None = None
    ) -> list[TournamentRow]:
        def job(conn: sa.Connection) -> list[TournamentRow]:
            query = sa.select(tournaments).where(tournaments.c.status.in_(statuses))
            if listed_only:
                query = query.where(tournaments.c.listed.is_(True))
            if created_by is not None:
                query = query.where(tournaments.c.created_by == created_by)
            return [_tournament(r) for r in conn.execute(query.order_by(tournaments.c.starts_at))]

        return await self._run(job, read=True)

    async def set_tournament_status(
        self, tournament_id: str, status: str, *, ends_at: float | None = None, fence: Lease | None = None
    ) -> None:
        values: dict[str, Any] = {"status": status}
        if ends_at is not None:
            values["ends_at"] = ends_at

        def job(conn: sa.Connection) -> None:
            self._check_fence(conn, fence)
            conn.execute(tournaments.update().where(tournaments.c.id == tournament_id).values(**values))

        await self._run(job)

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        matches: list[MatchRow],
        byes: list[str],
        fence: Lease | None = None,
    ) -> bool:
        def job(conn: sa.Connection) -> bool:
            self._check_fence(conn, fence)
            done = conn.execute(
                tournaments.update()
                .where(tournaments.c.id == tournament_id, tournaments.c.round == round_number - 1)
                .values(round=round_number)
            )
            if done.rowcount != 1:
                return False
            if matches:
                insert_matches(conn, matches)
            if byes:
                conn.execute(
                    tournament_byes.insert(),
                    [{"tournament_id": tournament_id, "round": round_number, "guest_id": g} for g in byes],
                )
            return True

        return await self._run(job)

    async def tournament_byes(self, tournament_id: str) -> list[tuple[int, str]]:
        tb = tournament_byes.c

        def job(conn: sa.Connection) -> list[tuple[int, str]]:
            rows = conn.execute(
                sa.select(tb.round, tb.guest_id).where(tb.tournament_id == tournament_id).order_by(tb.round)
            )
            return [(r.round, r.guest_id) for r in rows]

        return await self._run(job, read=True)

    async def set_tournament_player(
        self, tournament_id: str, player: TournamentPlayer, fence: Lease | None = None
    ) -> None:
        tp = tournament_players.c

        def job(conn: sa.Connection) -> None:
            self._check_fence(conn, fence)
            done = conn.execute(
                tournament_players.update()
                .where(tp.tournament_id == tournament_id, tp.guest_id == player.guest_id)
                .values(withdrawn=player.withdrawn, paused=player.paused)
            )
            if done.rowcount == 0:
                conn.execute(
                    tournament_players.insert().values(**columns_of(player, tournament_id=tournament_id))
                )

        await self._run(job)

    async def tournament_players(self, tournament_id: str) -> list[TournamentPlayer]:
        tp = tournament_players.c

        def job(conn: sa.Connection) -> list[TournamentPlayer]:
            rows = conn.execute(
                sa.select(tournament_players).where(tp.tournament_id == tournament_id).order_by(tp.joined_at)
            )
            return [
                TournamentPlayer(r.guest_id, r.joined_at, bool(r.withdrawn), bool(r.paused)) for r in rows
            ]

        return await self._run(job, read=True)

    async def tournament_matches(self, tournament_id: str) -> list[MatchRow]:
        return await self._run(
            lambda conn: load_matches(conn, matches.c.tournament_id == tournament_id), read=True
        )


def _tournament(r: Any) -> TournamentRow:
    return TournamentRow(
        id=r.id,
        name=r.name,
        format=r.format,
        status=r.status,
        starts_at=r.starts_at,
        ends_at=r.ends_at,
        rules=json.loads(r.rules),
        turn_seconds=r.turn_seconds,
        rated=bool(r.rated),
        robots=bool(r.robots),
        listed=bool(r.listed),
        created_by=r.created_by,
        created_at=r.created_at,
        rounds=r.rounds,
        round=r.round,
    )
