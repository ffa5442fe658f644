"""Replay analysis in the background: one match at a time per process, queued, stored once.

A finished match's analysis is asked for once (`request`): the store keeps one row per match,
so asking again returns the same analysis, queued, running or done. A worker task takes the
queue in order and analyses one match at a time on a thread of its own, one decision per job,
so the event loop keeps answering between decisions and a shutdown waits for one decision at
most. Progress (decisions done of how many) lives in memory and is polled; the result is
stored with the engine that made it (`bots.review.ENGINE`). After a restart the analyses that
were queued or running are queued again and made from the start (the result is the same: the
appraisals are seeded by where each decision was).

Each person's decisions are appraised from that seat's VIEW at the time and nothing else
(`bots.review.positions`). The analysis is shown with the replay, which opens only once the
match is over and shows every card then, so it reveals nothing the replay does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, Protocol, TypeVar

from ..bots.review import ENGINE, MARKS, THRESHOLDS, Position, Review, positions, review, summary
from ..rules import Match, action_from_json
from .action_log import game_of
from .errors import BadRequest, NotFinished, NotFound, Unavailable
from .ports import AnalysisRow, AnalysisStore, EventRow, MatchRow, StoreError
from .tasks import stop_task

__all__ = ["Analyses", "AnalysisPorts", "MAX_WAITING", "fresh_match"]

log = logging.getLogger("ginrummy.service")
T = TypeVar("T")

#: Analyses that may wait in the queue at once; more are refused for a while (503).
MAX_WAITING: Final = 64


class AnalysisPorts(AnalysisStore, Protocol):
    """What the analyses read and write: the analyses, and a finished match's row and moves."""

    async def get_match(self, match_id: str) -> MatchRow | None: ...

    async def events(self, match_id: str) -> list[EventRow]: ...


def fresh_match(row: MatchRow) -> Match:
    """The two-player match of `row` at its start: its rules and deals, no action played."""
    game = game_of(row)
    if not isinstance(game, Match):
        raise BadRequest(f"only two-player Gin is analysed, not {game.rules.game}")
    return game


class Analyses:
    """The analysis queue of one server process, on its store and clock."""

    def __init__(self, store: AnalysisPorts, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock
        self._queue: asyncio.Queue[str] = asyncio.Queue()
        self._waiting: list[str] = []  # queued here, in order (the one running is not in it)
        self._running: str | None = None
        self._progress: tuple[int, int] = (0, 0)  # decisions done, of how many, of the one running
        self._worker: asyncio.Task[None] | None = None
        self._executor: ThreadPoolExecutor | None = None

    async def start(self) -> None:
        """Queue again what a previous run left queued or running, and start the worker."""
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ginrummy-analysis")
        for match_id in await self.store.unfinished_analyses():
            self._enqueue(match_id)
        self._worker = asyncio.get_running_loop().create_task(self._work())

    async def close(self) -> None:
        await stop_task(self._worker)
        self._worker = None
        if self._executor is not None:
            executor, self._executor = self._executor, None
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)

    # -- asking ------------------------------------------------------------------

    async def request(self, match_id: str) -> dict[str, Any]:
        """Ask for the analysis of a finished match: the stored one, or a new one queued."""
        await self._finished_match(match_id)
        row = await self.store.get_analysis(match_id)
        if self._needs_queue(row) and len(self._waiting) >= MAX_WAITING:
            raise Unavailable(
                f"{MAX_WAITING} analyses are waiting already; ask again in a minute", retry_after=60
            )
        row = await self.store.request_analysis(match_id, ENGINE, self.clock())
        if row.status in ("queued", "running"):
            self._enqueue(match_id)
        return self._json(row)

    async def status(self, match_id: str) -> dict[str, Any]:
        """Where the analysis of a finished match stands (`"none"` when nobody asked for one)."""
        await self._finished_match(match_id)
        row = await self.store.get_analysis(match_id)
        if row is None:
            return {"match_id": match_id, "status": "none", "engine": ENGINE}
        return self._json(row)

    async def _finished_match(self, match_id: str) -> None:
        row = await self.store.get_match(match_id)
        if row is None:
            raise NotFound(f"no match {match_id!r}")
        if row.status != "over":
            raise NotFinished("the match is not finished; it can be analysed when it ends")
        if row.rules.get("game", "gin") != "gin":
            raise BadRequest(f"only two-player Gin is analysed, not {row.rules['game']}")

    @staticmethod
    def _needs_queue(row: AnalysisRow | None) -> bool:
        return row is None or row.status == "failed" or row.engine != ENGINE

    def _here(self, match_id: str) -> bool:
        return match_id == self._running or match_id in self._waiting

    def _enqueue(self, match_id: str) -> None:
        if not self._here(match_id):
            self._waiting.append(match_id)
            self._queue.put_nowait(match_id)

    def _json(self, row: AnalysisRow) -> dict[str, Any]:
        out: dict[str, Any] = {
            "match_id": row.match_id,
            "status": row.status,
            "engine": row.engine,
            "requested_at": row.requested_at,
            "finished_at": row.finished_at,
        }
        if row.status in ("queued", "running"):
            running = row.match_id == self._running
            done, total = self._progress if running else (0, 0)
            out["status"] = "running" if running else "queued"
            out["progress"] = {"done": done, "total": total}
            # How many analyses go first (0: this one is being made).
            out["ahead"] = 0 if running else self._ahead(row.match_id)
        elif row.status == "done":
            out["analysis"] = row.result
        else:
            out["error"] = row.error
        return out

    def _ahead(self, match_id: str) -> int:
        before = self._waiting.index(match_id) if match_id in self._waiting else len(self._waiting)
        return before + (1 if self._running is not None else 0)

    # -- the worker ----------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            match_id = await self._queue.get()
            if match_id in self._waiting:
                self._waiting.remove(match_id)
            self._running = match_id
            self._progress = (0, 0)
            try:
                await self._analyse(match_id)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.exception("match %s could not be analysed", match_id)
                with contextlib.suppress(StoreError):
                    await self.store.set_analysis(
                        match_id, "failed", self.clock(), error=f"the analysis failed: {exc}"
                    )
            finally:
                self._running = None

    async def _analyse(self, match_id: str) -> None:
        store = self.store
        row = await store.get_match(match_id)
        if row is None:  # pragma: no cover - matches are never deleted
            raise StoreError(f"no match {match_id!r}")
        events = await store.events(match_id)
        await store.set_analysis(match_id, "running", self.clock())
        started = time.perf_counter()
        people = [s.seat for s in row.seats if s.guest_id is not None]
        match = fresh_match(row)
        actions = [(e.seat, action_from_json(e.action)) for e in events]
        found: list[Position] = await self._in_worker(lambda: list(positions(match, actions, people)))
        reviews: list[Review] = []
        for done, position in enumerate(found):
            self._progress = (done, len(found))
            reviews.append(await self._in_worker(functools.partial(review, position)))
        self._progress = (len(found), len(found))
        result = {
            "engine": ENGINE,
            "seats": people,
            "marks": list(MARKS),
            "thresholds": list(THRESHOLDS),
            "seconds": round(time.perf_counter() - started, 2),
            "summary": summary(reviews, people),
            "decisions": [r.to_json() for r in reviews],
        }
        await store.set_analysis(match_id, "done", self.clock(), result=result)
        log.info("match %s analysed: %d decisions in %.1f s", match_id, len(reviews), result["seconds"])

    async def _in_worker(self, job: Callable[[], T]) -> T:
        """Run `job` on the analysis thread (one job at a time, whoever asks)."""
        if self._executor is None:  # pragma: no cover - closed under the worker's feet
            raise asyncio.CancelledError
        return await asyncio.get_running_loop().run_in_executor(self._executor, job)
