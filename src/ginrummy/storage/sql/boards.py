"""Leaderboards: the points board (from the score buckets) and the rating board."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from ...service.ports import BoardLine, BoardPart
from ..schema import ratings, score_buckets
from .writer import StoreBase


class BoardQueries(StoreBase):
    """The leaderboards of `SqlStore`."""

    async def points_board(
        self, game: str, window: BoardPart, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        return await self._run(lambda conn: _points_board(conn, game, window, limit, guest_id), read=True)

    async def rating_board(
        self, game: str, now: float, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        return await self._run(lambda conn: _rating_board(conn, game, now, limit, guest_id), read=True)


def _ranked(rows: list[Any], key: Callable[[Any], tuple[Any, ...]]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of rows sorted best first."""
    ranks: list[int] = []
    for i, row in enumerate(rows):
        ranks.append(ranks[-1] if i and key(rows[i - 1]) == key(row) else i + 1)
    return ranks


def _points_board(
    conn: sa.Connection, game: str, window: BoardPart, limit: int, guest_id: str | None
) -> tuple[list[BoardLine], BoardLine | None]:
    sb = score_buckets.c
    span, last_day = window
    in_window = sa.and_(sb.game == game, sb.span == span, sb.last_day == last_day)
    # Read backwards along ix_score_buckets_board: the first `limit` rows are the top.
    top = list(
        conn.execute(
            sa.select(sb.guest_id, sb.wins, sb.points, sb.matches)
            .where(in_window)
            .order_by(sb.wins.desc(), sb.points.desc(), sb.guest_id.desc())
            .limit(limit)
        )
    )
    ranks = _ranked(top, lambda r: (r.wins, r.points))
    lines = [
        BoardLine(rank, r.guest_id, int(r.wins), int(r.points), int(r.matches))
        for rank, r in zip(ranks, top, strict=True)
    ]
    mine = None
    if guest_id is not None:
        mine = next((line for line in lines if line.guest_id == guest_id), None)
        row = None
        if mine is None:
            row = conn.execute(
                sa.select(sb.wins, sb.points, sb.matches).where(in_window, sb.guest_id == guest_id)
            ).first()
        if row is not None:
            # Everyone ahead: a range of the same index.
            better = conn.execute(
                sa.select(sa.func.count()).where(
                    in_window,
                    sa.or_(sb.wins > row.wins, sa.and_(sb.wins == row.wins, sb.points > row.points)),
                )
            ).scalar_one()
            mine = BoardLine(int(better) + 1, guest_id, int(row.wins), int(row.points), int(row.matches))
    return lines, mine


def _rating_board(
    conn: sa.Connection, game: str, now: float, limit: int, guest_id: str | None
) -> tuple[list[BoardLine], BoardLine | None]:
    r = ratings.c
    ranked = sa.and_(r.game == game, r.ranked_until > now)
    top = list(
        conn.execute(
            sa.select(r.guest_id, r.rating, r.deviation, r.games)
            .where(ranked)
            .order_by(r.rating.desc(), r.guest_id.desc())
            .limit(limit)
        )
    )
    ranks = _ranked(top, lambda row: (round(row.rating),))

    def line(rank: int, row: Any) -> BoardLine:
        return BoardLine(rank, row.guest_id, 0, 0, int(row.games), rating=row.rating, deviation=row.deviation)

    lines = [line(rank, row) for rank, row in zip(ranks, top, strict=True)]
    mine = None
    if guest_id is not None:
        mine = next((x for x in lines if x.guest_id == guest_id), None)
        if mine is None:
            row = conn.execute(
                sa.select(r.guest_id, r.rating, r.deviation, r.games).where(ranked, r.guest_id == guest_id)
            ).first()
            if row is not None:
                better = conn.execute(
                    sa.select(sa.func.count()).where(ranked, r.rating > row.rating)
                ).scalar_one()
                mine = line(int(better) + 1, row)
    return lines, mine
