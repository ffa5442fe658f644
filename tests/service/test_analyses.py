"""Replay analyses (`service/analysis.py`) against their ports in memory: which matches may be
analysed, the queue's order and its bound, one analysis made once and kept, a failed one asked for
again, and the analyses a stopped process left queued or running made after a restart.

`tests/server/test_coach.py` runs analyses through the real service and SQL store and checks what
an analysis says about a match."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ginrummy.bots import make_player
from ginrummy.bots.review import ENGINE
from ginrummy.rules import Rules
from ginrummy.service.analysis import MAX_WAITING, Analyses, fresh_match
from ginrummy.service.errors import BadRequest, NotFinished, NotFound, Unavailable
from ginrummy.service.ports import AnalysisRow, AnalysisStatus, EventRow, MatchRow, SeatRow, StoreError

SHORT = Rules.preset("classic").replace(target=10)


def finished_row(match_id: str, rules: Rules = SHORT, status: str = "over") -> MatchRow:
    return MatchRow(
        id=match_id,
        kind="robot",
        status=status,  # type: ignore[arg-type]
        rules=rules.to_json(),
        seed=f"seed of {match_id}",
        seats=(SeatRow(0, guest_id="ann"), SeatRow(1, robot_level="casual")),
        created_at=0.0,
    )


@functools.cache
def played(match_id: str) -> tuple[EventRow, ...]:
    """The moves of a whole match of `finished_row(match_id)`: two casual players."""
    match = fresh_match(finished_row(match_id))
    players = [make_player("casual", seed=s) for s in (0, 1)]
    events: list[EventRow] = []
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        action = players[seat].act(match.view(seat))
        match.apply(action, seat)
        events.append(EventRow(len(events) + 1, seat, action.to_json(), auto=seat == 1))
    return tuple(events)


class MemoryAnalyses:
    """The analyses' ports in memory: match rows, their moves and the analyses, with the writes made."""

    def __init__(self) -> None:
        self.matches: dict[str, MatchRow] = {}
        self.moves: dict[str, tuple[EventRow, ...]] = {}
        self.analyses: dict[str, AnalysisRow] = {}
        self.writes: list[tuple[str, str]] = []  # (match, status) of every change of an analysis
        self.broken: set[str] = set()  # matches whose moves cannot be read

    def finished(self, match_id: str) -> None:
        self.matches[match_id] = finished_row(match_id)
        self.moves[match_id] = played(match_id)

    async def get_match(self, match_id: str) -> MatchRow | None:
        return self.matches.get(match_id)

    async def events(self, match_id: str) -> list[EventRow]:
        if match_id in self.broken:
            raise StoreError("the disk went away")
        return list(self.moves.get(match_id, ()))

    async def request_analysis(self, match_id: str, engine: str, at: float) -> AnalysisRow:
        row = self.analyses.get(match_id)
        if row is None or row.status == "failed" or row.engine != engine:
            row = AnalysisRow(match_id, "queued", engine, at)
            self.analyses[match_id] = row
            self.writes.append((match_id, "queued"))
        return row

    async def get_analysis(self, match_id: str) -> AnalysisRow | None:
        return self.analyses.get(match_id)

    async def set_analysis(
        self,
        match_id: str,
        status: AnalysisStatus,
        at: float,
        *,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        done = at if status in ("done", "failed") else None
        self.analyses[match_id] = dataclasses.replace(
            self.analyses[match_id], status=status, finished_at=done, result=result, error=error
        )
        self.writes.append((match_id, status))

    async def unfinished_analyses(self) -> list[str]:
        waiting = [r for r in self.analyses.values() if r.status in ("queued", "running")]
        return [r.match_id for r in sorted(waiting, key=lambda r: r.requested_at)]


def run(
    body: Callable[[Analyses, MemoryAnalyses], Awaitable[Any]], store: MemoryAnalyses | None = None
) -> Any:
    async def main() -> Any:
        analyses = Analyses(store or MemoryAnalyses(), lambda: 1000.0)
        try:
            return await body(analyses, analyses.store)  # type: ignore[arg-type]
        finally:
            await analyses.close()

    return asyncio.run(main())


async def settled(analyses: Analyses, match_id: str) -> dict[str, Any]:
    for _ in range(3000):
        status = await analyses.status(match_id)
        if status["status"] in ("done", "failed"):
            return status
        await asyncio.sleep(0.01)
    raise AssertionError(f"the analysis of {match_id} did not end: {status}")


def test_only_a_finished_two_player_match_is_analysed() -> None:
    async def body(analyses: Analyses, store: MemoryAnalyses) -> None:
        store.matches["live"] = finished_row("live", status="playing")
        store.matches["rummy"] = finished_row("rummy", Rules.for_game("rummy", 4))
        with pytest.raises(NotFound, match="no match 'nope'"):
            await analyses.request("nope")
        with pytest.raises(NotFinished, match="not finished"):
            await analyses.request("live")
        with pytest.raises(BadRequest, match="only two-player Gin is analysed, not rummy"):
            await analyses.status("rummy")
        assert store.analyses == {}

    run(body)


def test_analyses_queue_in_order_are_made_once_and_kept() -> None:
    async def body(analyses: Analyses, store: MemoryAnalyses) -> None:
        for match_id in ("m1", "m2"):
            store.finished(match_id)
        assert await analyses.status("m1") == {"match_id": "m1", "status": "none", "engine": ENGINE}
        first = await analyses.request("m1")
        second = await analyses.request("m2")
        # Nothing runs yet (the worker starts with the service): both wait, in order.
        assert (first["status"], first["ahead"], second["ahead"]) == ("queued", 0, 1)
        assert first["progress"] == {"done": 0, "total": 0}
        assert (await analyses.request("m1"))["ahead"] == 0  # asked again: the same place
        await analyses.start()
        done = [await settled(analyses, m) for m in ("m1", "m2")]
        assert [d["status"] for d in done] == ["done", "done"]
        assert store.writes == [
            ("m1", "queued"),
            ("m2", "queued"),
            ("m1", "running"),
            ("m1", "done"),
            ("m2", "running"),
            ("m2", "done"),
        ]
        made = done[0]["analysis"]
        assert made["engine"] == ENGINE and made["seats"] == [0]  # the robot's moves are not appraised
        people_moves = sum(1 for e in store.moves["m1"] if e.seat == 0)
        assert 0 < len(made["decisions"]) <= people_moves
        assert {d["seat"] for d in made["decisions"]} == {0}
        # Asked again: the one kept, not made again.
        again = await analyses.request("m1")
        assert again["status"] == "done" and again["analysis"] == made
        assert len(store.writes) == 6

    run(body)


def test_a_full_queue_refuses_more_for_a_while_but_answers_what_it_holds() -> None:
    async def body(analyses: Analyses, store: MemoryAnalyses) -> None:
        for n in range(MAX_WAITING + 1):
            store.matches[f"m{n}"] = finished_row(f"m{n}")
        for n in range(MAX_WAITING):
            assert (await analyses.request(f"m{n}"))["ahead"] == n
        with pytest.raises(Unavailable, match=f"{MAX_WAITING} analyses are waiting") as refused:
            await analyses.request(f"m{MAX_WAITING}")
        assert refused.value.retry_after == 60 and f"m{MAX_WAITING}" not in store.analyses
        assert (await analyses.request("m3"))["ahead"] == 3  # one already queued is still answered

    run(body)


def test_a_failed_analysis_says_why_and_is_made_again_when_asked() -> None:
    async def body(analyses: Analyses, store: MemoryAnalyses) -> None:
        store.finished("m1")
        store.broken.add("m1")
        await analyses.start()
        await analyses.request("m1")
        failed = await settled(analyses, "m1")
        assert failed["status"] == "failed" and "the disk went away" in failed["error"]
        store.broken.clear()
        assert (await analyses.request("m1"))["status"] in ("queued", "running")
        assert (await settled(analyses, "m1"))["status"] == "done"

    run(body)


def test_what_a_stopped_process_left_queued_or_running_is_made_after_a_restart() -> None:
    store = MemoryAnalyses()
    for match_id in ("m1", "m2"):
        store.finished(match_id)
    store.analyses["m1"] = AnalysisRow("m1", "running", ENGINE, 5.0)  # the process died making it
    store.analyses["m2"] = AnalysisRow("m2", "queued", ENGINE, 6.0)

    async def body(analyses: Analyses, store: MemoryAnalyses) -> None:
        await analyses.start()
        assert [(await settled(analyses, m))["status"] for m in ("m1", "m2")] == ["done", "done"]
        assert store.writes == [("m1", "running"), ("m1", "done"), ("m2", "running"), ("m2", "done")]

    run(body, store)
