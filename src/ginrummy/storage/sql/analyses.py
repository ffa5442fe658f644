"""Replay analyses: asked for, claimed by a worker, finished or failed."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa

from ...service.ports import AnalysisRow, AnalysisStatus, StoreError
from ..schema import analyses
from .common import compact_json, insert_ignore
from .writer import StoreBase


class AnalysisQueries(StoreBase):
    """The replay analyses of `SqlStore`."""

    async def request_analysis(self, match_id: str, engine: str, at: float) -> AnalysisRow:
        def job(conn: sa.Connection) -> AnalysisRow:
            conn.execute(
                insert_ignore(self.engine.dialect.name, analyses).values(
                    match_id=match_id, status="queued", engine=engine, requested_at=at
                )
            )
            row = _analysis(conn, match_id)
            assert row is not None
            if row.status == "failed" or row.engine != engine:
                conn.execute(
                    analyses.update()
                    .where(analyses.c.match_id == match_id)
                    .values(
                        status="queued",
                        engine=engine,
                        requested_at=at,
                        finished_at=None,
                        result=None,
                        error=None,
                    )
                )
                row = AnalysisRow(match_id, "queued", engine, at)
            return row

        return await self._run(job)

    async def get_analysis(self, match_id: str) -> AnalysisRow | None:
        return await self._run(lambda conn: _analysis(conn, match_id), read=True)

    async def set_analysis(
        self,
        match_id: str,
        status: AnalysisStatus,
        at: float,
        *,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        values: dict[str, Any] = {"status": status, "error": error}
        if status in ("done", "failed"):
            values["finished_at"] = at
            values["result"] = compact_json(result) if result is not None else None

        def job(conn: sa.Connection) -> None:
            done = conn.execute(analyses.update().where(analyses.c.match_id == match_id).values(**values))
            if done.rowcount != 1:
                raise StoreError(f"no analysis of match {match_id!r}")

        await self._run(job)

    async def unfinished_analyses(self) -> list[str]:
        def job(conn: sa.Connection) -> list[str]:
            rows = conn.execute(
                sa.select(analyses.c.match_id)
                .where(analyses.c.status.in_(("queued", "running")))
                .order_by(analyses.c.requested_at, analyses.c.match_id)
            )
            return [row.match_id for row in rows]

        return await self._run(job, read=True)


def _analysis(conn: sa.Connection, match_id: str) -> AnalysisRow | None:
    row = conn.execute(sa.select(analyses).where(analyses.c.match_id == match_id)).first()
    if row is None:
        return None
    return AnalysisRow(
        row.match_id,
        row.status,
        row.engine,
        row.requested_at,
        row.finished_at,
        json.loads(row.result) if row.result is not None else None,
        row.error,
    )
