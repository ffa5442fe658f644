"""Ratings, their history and players' statistics, and what a finished match adds to them."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ...service.ports import MatchOutcome, PlayerStats, RatingPoint, RatingRow
from ..schema import player_matches, rating_history, ratings, score_buckets
from .common import insert_for, rows_in
from .writer import StoreBase


class RatingQueries(StoreBase):
    """The ratings and statistics of `SqlStore`."""

    async def get_ratings(self, guest_ids: list[str], game: str) -> dict[str, RatingRow]:
        wanted = sorted(set(guest_ids))
        return await self._run(lambda conn: _ratings(conn, wanted, game), read=True) if wanted else {}

    async def rating_history(self, guest_id: str, game: str, limit: int = 500) -> list[RatingPoint]:
        def job(conn: sa.Connection) -> list[RatingPoint]:
            rows = conn.execute(
                sa.select(rating_history)
                .where(rating_history.c.guest_id == guest_id, rating_history.c.game == game)
                .order_by(rating_history.c.at.desc())
                .limit(limit)
            )
            points = [_rating_point(r) for r in rows]
            points.reverse()
            return points

        return await self._run(job, read=True)

    async def rating_changes(self, match_ids: list[str]) -> list[RatingPoint]:
        def job(conn: sa.Connection) -> list[RatingPoint]:
            return [
                _rating_point(r) for r in rows_in(conn, rating_history.c.match_id, sorted(set(match_ids)))
            ]

        return await self._run(job, read=True) if match_ids else []

    async def player_stats(self, guest_id: str, game: str) -> PlayerStats:
        pm = player_matches.c

        def job(conn: sa.Connection) -> PlayerStats:
            row = conn.execute(
                sa.select(
                    sa.func.count(),
                    sa.func.sum(sa.case((pm.score == 1.0, 1), else_=0)),
                    sa.func.sum(sa.case((pm.score == 0.5, 1), else_=0)),
                    sa.func.sum(pm.hands),
                    sa.func.sum(pm.gins),
                    sa.func.sum(pm.undercuts),
                    sa.func.sum(pm.knocks),
                    sa.func.sum(pm.knock_deadwood),
                ).where(pm.guest_id == guest_id, pm.game == game)
            ).one()
            return PlayerStats(*(int(value or 0) for value in row))

        return await self._run(job, read=True)


def _ratings(conn: sa.Connection, guest_ids: list[str], game: str) -> dict[str, RatingRow]:
    found: dict[str, RatingRow] = {}
    for r in rows_in(conn, ratings.c.guest_id, guest_ids, ratings.c.game == game):
        found[r.guest_id] = RatingRow(
            r.guest_id, r.game, r.rating, r.deviation, r.volatility, r.games, r.last_at, r.ranked_until
        )
    return found


def _rating_point(r: Any) -> RatingPoint:
    return RatingPoint(r.guest_id, r.match_id, r.at, r.rating_before, r.rating, r.deviation)


def write_outcome(conn: sa.Connection, match_id: str, finished_at: float, outcome: MatchOutcome) -> None:
    """Statistics lines, leaderboard buckets and ratings of a match just finished (one transaction)."""
    if outcome.lines:
        conn.execute(
            player_matches.insert(),
            [
                {
                    "match_id": match_id,
                    "guest_id": line.guest_id,
                    "game": outcome.game,
                    "finished_at": finished_at,
                    "seat": line.seat,
                    "score": line.score,
                    "points": line.points,
                    "hands": line.hands,
                    "gins": line.gins,
                    "undercuts": line.undercuts,
                    "knocks": line.knocks,
                    "knock_deadwood": line.knock_deadwood,
                    "opponent_id": line.opponent_id,
                    "opponent_robot": line.opponent_robot,
                }
                for line in outcome.lines
            ],
        )
    if outcome.counts and outcome.buckets:
        rows = [
            {
                "game": outcome.game,
                "span": span,
                "last_day": last_day,
                "guest_id": line.guest_id,
                "wins": 1 if line.score == 1.0 else 0,
                "points": line.points,
                "matches": 1,
            }
            for line in outcome.lines
            for span, last_day in outcome.buckets
        ]
        insert = insert_for(conn, score_buckets)
        conn.execute(
            insert.on_conflict_do_update(
                index_elements=["game", "span", "last_day", "guest_id"],
                set_={
                    "wins": score_buckets.c.wins + insert.excluded.wins,
                    "points": score_buckets.c.points + insert.excluded.points,
                    "matches": score_buckets.c.matches + insert.excluded.matches,
                },
            ),
            rows,
        )
    if outcome.rate is not None:
        ids = [line.guest_id for line in outcome.lines]
        stored = _ratings(conn, ids, outcome.game)
        updated = outcome.rate({guest_id: stored.get(guest_id) for guest_id in ids})
        values = [
            {
                "guest_id": r.guest_id,
                "game": r.game,
                "rating": r.rating,
                "deviation": r.deviation,
                "volatility": r.volatility,
                "games": r.games,
                "last_at": r.last_at,
                "ranked_until": r.ranked_until,
            }
            for _, r in updated
        ]
        insert = insert_for(conn, ratings)
        conn.execute(
            insert.on_conflict_do_update(
                index_elements=["guest_id", "game"],
                set_={
                    name: getattr(insert.excluded, name)
                    for name in ("rating", "deviation", "volatility", "games", "last_at", "ranked_until")
                },
            ),
            values,
        )
        conn.execute(
            rating_history.insert(),
            [
                {
                    "guest_id": r.guest_id,
                    "game": r.game,
                    "match_id": match_id,
                    "at": r.last_at,
                    "rating_before": before,
                    "rating": r.rating,
                    "deviation": r.deviation,
                }
                for before, r in updated
            ],
        )
