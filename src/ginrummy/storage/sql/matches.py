"""Matches, their seats and their event logs: creating, seating, playing, finishing, listing."""

from __future__ import annotations

import json
import time
from typing import Any, cast

import sqlalchemy as sa

from ...service.ports import EventRow, Lease, MatchOutcome, MatchRow, SeatRow, StoreError
from ..schema import events, match_seats, matches
from .common import compact_json, rows_in
from .ratings import write_outcome
from .writer import StoreBase


class MatchQueries(StoreBase):
    """The matches and event logs of `SqlStore`."""

    async def create_match(self, match: MatchRow) -> None:
        await self._run(lambda conn: _insert_match(conn, match))

    async def create_matches(self, matches: list[MatchRow], fence: Lease | None = None) -> None:
        def job(conn: sa.Connection) -> None:
            self._check_fence(conn, fence)
            insert_matches(conn, matches)

        if matches:
            await self._run(job)

    async def get_match(self, match_id: str) -> MatchRow | None:
        def job(conn: sa.Connection) -> MatchRow | None:
            found = load_matches(conn, matches.c.id == match_id)
            return found[0] if found else None

        return await self._run(job, read=True)

    async def get_match_by_code(self, code: str) -> MatchRow | None:
        def job(conn: sa.Connection) -> MatchRow | None:
            found = load_matches(conn, matches.c.room_code == code)
            return found[0] if found else None

        return await self._run(job, read=True)

    async def take_seat(self, match_id: str, seat: int, guest_id: str) -> bool:
        def job(conn: sa.Connection) -> bool:
            done = conn.execute(
                match_seats.update()
                .where(
                    match_seats.c.match_id == match_id,
                    match_seats.c.seat == seat,
                    match_seats.c.guest_id.is_(None),
                    match_seats.c.robot_level.is_(None),
                )
                .values(guest_id=guest_id)
            )
            if done.rowcount != 1:
                return False
            empty = conn.execute(
                sa.select(sa.func.count())
                .select_from(match_seats)
                .where(
                    match_seats.c.match_id == match_id,
                    match_seats.c.guest_id.is_(None),
                    match_seats.c.robot_level.is_(None),
                )
            ).scalar_one()
            if empty == 0:  # the last seat: the match is dealt
                conn.execute(
                    matches.update()
                    .where(matches.c.id == match_id, matches.c.status == "waiting")
                    .values(status="playing")
                )
            return True

        return await self._run(job)

    async def append_event(self, match_id: str, event: EventRow, fence: Lease | None = None) -> None:
        row = {
            "match_id": match_id,
            "seq": event.seq,
            "seat": event.seat,
            "action": compact_json(event.action),
            "created_at": time.time(),
            "epoch": fence.epoch if fence is not None else None,
            "auto": event.auto,
        }

        def job(conn: sa.Connection) -> None:
            # Run alone (its batch failed): the same fence, then the same insert.
            self._check_fence(conn, fence)
            conn.execute(events.insert(), [row])

        await self._run(job, row, fence)

    async def events(self, match_id: str) -> list[EventRow]:
        def job(conn: sa.Connection) -> list[EventRow]:
            rows = conn.execute(
                sa.select(events.c.seq, events.c.seat, events.c.action, events.c.auto)
                .where(events.c.match_id == match_id)
                .order_by(events.c.seq)
            )
            return [EventRow(r.seq, r.seat, json.loads(r.action), bool(r.auto)) for r in rows]

        return await self._run(job, read=True)

    async def finish_match(
        self,
        match_id: str,
        result: dict[str, Any],
        finished_at: float,
        outcome: MatchOutcome | None = None,
    ) -> None:
        text = json.dumps(result, separators=(",", ":"))

        def job(conn: sa.Connection) -> None:
            done = conn.execute(
                matches.update()
                .where(matches.c.id == match_id, matches.c.status != "over")
                .values(status="over", result=text, finished_at=finished_at)
            )
            # Only the first finish adds the outcome: a second call (a restart finishing a match
            # whose final action was stored) must not count the match twice.
            if done.rowcount == 1 and outcome is not None:
                write_outcome(conn, match_id, finished_at, outcome)

        await self._run(job)

    async def set_rematch(self, match_id: str, rematch: MatchRow) -> str:
        def job(conn: sa.Connection) -> str:
            row = conn.execute(sa.select(matches.c.rematch_id).where(matches.c.id == match_id)).first()
            if row is None:
                raise StoreError(f"no match {match_id!r}")
            if row[0] is not None:
                return cast(str, row[0])
            _insert_match(conn, rematch)
            conn.execute(matches.update().where(matches.c.id == match_id).values(rematch_id=rematch.id))
            return rematch.id

        return await self._run(job)

    async def live_matches(self, active_since: float | None = None) -> list[MatchRow]:
        where = matches.c.status != "over"
        if active_since is not None:
            played = sa.exists().where(events.c.match_id == matches.c.id, events.c.created_at >= active_since)
            where = sa.and_(where, sa.or_(matches.c.created_at >= active_since, played))
        return await self._run(lambda conn: load_matches(conn, where), read=True)

    async def matches_of(self, guest_id: str, limit: int = 100) -> list[MatchRow]:
        def job(conn: sa.Connection) -> list[MatchRow]:
            ids = (
                sa.select(match_seats.c.match_id).where(match_seats.c.guest_id == guest_id).scalar_subquery()
            )
            return load_matches(conn, matches.c.id.in_(ids), limit=limit)

        return await self._run(job, read=True)


def _insert_match(conn: sa.Connection, match: MatchRow) -> None:
    insert_matches(conn, [match])


def insert_matches(conn: sa.Connection, rows: list[MatchRow]) -> None:
    """Insert matches and their seats with one statement each (an executemany for many)."""
    conn.execute(
        matches.insert(),
        [
            {
                "id": match.id,
                "kind": match.kind,
                "status": match.status,
                "rules": json.dumps(match.rules, sort_keys=True, separators=(",", ":")),
                "seed": match.seed,
                "room_code": match.room_code,
                "turn_seconds": match.turn_seconds,
                "created_at": match.created_at,
                "finished_at": match.finished_at,
                "result": json.dumps(match.result, separators=(",", ":"))
                if match.result is not None
                else None,
                "rematch_of": match.rematch_of,
                "rematch_id": match.rematch_id,
                "deal_bits": match.deal_bits,
                "rated": match.rated,
                "tournament_id": match.tournament_id,
                "round": match.round,
            }
            for match in rows
        ],
    )
    conn.execute(
        match_seats.insert(),
        [
            {
                "match_id": match.id,
                "seat": s.seat,
                "guest_id": s.guest_id,
                "robot_level": s.robot_level,
                "rating": s.rating,
            }
            for match in rows
            for s in match.seats
        ],
    )


def load_matches(conn: sa.Connection, where: Any, *, limit: int | None = None) -> list[MatchRow]:
    query = sa.select(matches).where(where).order_by(matches.c.created_at.desc(), matches.c.id)
    if limit is not None:
        query = query.limit(limit)
    rows = list(conn.execute(query))
    if not rows:
        return []
    seats: dict[str, dict[int, SeatRow]] = {}
    for s in rows_in(conn, match_seats.c.match_id, [r.id for r in rows]):
        seats.setdefault(s.match_id, {})[s.seat] = SeatRow(s.seat, s.guest_id, s.robot_level, s.rating)
    found = []
    for r in rows:
        by_seat = seats.get(r.id, {})
        found.append(
            MatchRow(
                id=r.id,
                kind=r.kind,
                status=r.status,
                rules=json.loads(r.rules),
                seed=r.seed,
                seats=tuple(by_seat.get(n, SeatRow(n)) for n in range(max(2, len(by_seat)))),
                created_at=r.created_at,
                room_code=r.room_code,
                turn_seconds=r.turn_seconds,
                finished_at=r.finished_at,
                result=json.loads(r.result) if r.result is not None else None,
                rematch_of=r.rematch_of,
                rematch_id=r.rematch_id,
                deal_bits=r.deal_bits,
                rated=bool(r.rated),
                tournament_id=r.tournament_id,
                round=r.round,
            )
        )
    return found
