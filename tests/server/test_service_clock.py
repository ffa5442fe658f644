"""The service without HTTP: the turn clock, the grace period and stand-in robots, robot levels, store failures."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from ginrummy.service import GameService, GuestRow, LiveMatch, ServiceConfig, StoreError, resolve_level
from ginrummy.storage import SqlStore


class FakeSocket:
    """A connection that keeps what it is sent."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.event = asyncio.Event()

    def send_text(self, text: str) -> None:
        self.messages.append(json.loads(text))
        self.event.set()

    @property
    def state(self) -> dict[str, Any]:
        return [m for m in self.messages if m["type"] == "state"][-1]

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 5.0
    ) -> dict[str, Any]:
        async def loop() -> dict[str, Any]:
            while True:
                for message in self.messages:
                    if message["type"] == "state" and predicate(message):
                        return message
                self.event.clear()
                await self.event.wait()

        return await asyncio.wait_for(loop(), timeout)


def with_service(tmp_path: Path, body: Callable[[GameService], Awaitable[None]], **config: Any) -> None:
    async def main() -> None:
        settings = {"robot_delay": 0.0, "grace_seconds": 30.0, "min_turn_seconds": 0.05, **config}
        service = GameService(
            SqlStore(f"sqlite:///{tmp_path / 's.sqlite3'}"), ServiceConfig(**settings), secret="s" * 32
        )
        await service.start()
        try:
            await body(service)
        finally:
            await service.close()

    asyncio.run(main())


async def room_of_two(service: GameService, turn_seconds: Any = 0) -> tuple[LiveMatch, list[GuestRow]]:
    alice, bob = await service.guests.new_guest(), await service.guests.new_guest()
    _code, match_id = await service.rooms.create_room(alice, "classic", turn_seconds)
    await service.rooms.join_room(bob, _code)
    live = await service.get_live(match_id)
    assert live is not None
    return live, [alice, bob]


def test_the_turn_clock_makes_the_move_when_it_runs_out(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        live, _guests = await room_of_two(service, turn_seconds=0.3)
        sockets = [FakeSocket(), FakeSocket()]
        for seat in (0, 1):
            live.connect(seat, sockets[seat])
        state = sockets[0].state
        deadline = state["match"]["turn_deadline"]
        assert deadline is not None and deadline == pytest.approx(service.clock() + 0.3, abs=0.25)
        to_act = live.match.to_act
        assert to_act is not None
        # Nobody moves: when the clock runs out a robot moves for the seat to act.
        moved = await sockets[1 - to_act].wait_for(lambda m: m["version"] == 1, timeout=5)
        assert moved["view"]["history"][-1]["seat"] == to_act
        assert moved["match"]["turn_deadline"] > deadline  # the next decision has its own clock

    with_service(tmp_path, body)


def test_a_disconnected_player_gets_a_grace_period_then_a_robot_plays_until_it_returns(
    tmp_path: Path,
) -> None:
    async def body(service: GameService) -> None:
        live, _guests = await room_of_two(service, turn_seconds=0)
        sockets = [FakeSocket(), FakeSocket()]
        for seat in (0, 1):
            live.connect(seat, sockets[seat])
        absent = live.match.to_act
        assert absent is not None
        present = 1 - absent
        live.disconnect(absent, sockets[absent])
        seen = await sockets[present].wait_for(lambda m: not m["match"]["players"][absent]["connected"])
        assert seen["version"] == 0 and not seen["match"]["players"][absent]["autoplay"]
        # Before the grace period ends nothing happens...
        await asyncio.sleep(0.1)
        assert live.version == 0
        # ...then a stand-in robot plays the absent seat's moves, so the other player is not stuck.
        state = await sockets[present].wait_for(lambda m: m["version"] >= 1 and bool(m["view"]["legal"]))
        assert state["match"]["players"][absent]["autoplay"] is True
        assert all(h["seat"] == absent for h in state["view"]["history"][-1:])
        # The player returns: the robot stops; the seat is theirs again.
        back = FakeSocket()
        live.connect(absent, back)
        assert back.state["match"]["players"][absent]["autoplay"] is False
        version = live.version
        await live.act(present, state["view"]["legal"][0], state["version"])
        assert live.version == version + 1
        await asyncio.sleep(0.5)
        assert live.version == version + 1 and live.match.to_act in (absent, present)
        if live.match.to_act == absent:
            assert back.state["view"]["legal"]

    with_service(tmp_path, body, grace_seconds=0.3)


def test_nobody_is_moved_for_when_nobody_is_waiting(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        # Both players gone: no robot plays either seat.
        live, _guests = await room_of_two(service, turn_seconds=0)
        await asyncio.sleep(0.3)
        assert live.version == 0
        # Against a robot, an absent person is simply waited for (no clock, no stand-in).
        guest = await service.guests.new_guest()
        match_id = await service.create_robot_match(guest, "casual", "classic")
        robot_live = await service.get_live(match_id)
        assert robot_live is not None
        await asyncio.sleep(0.3)
        assert robot_live.match.to_act == 0  # the robot moved if it was first, then waits
        socket = FakeSocket()
        robot_live.connect(0, socket)
        assert socket.state["match"]["turn_deadline"] is None

    with_service(tmp_path, body, grace_seconds=0.05)


def test_robot_levels_fall_back_to_the_nearest_registered_one(caplog: pytest.LogCaptureFixture) -> None:
    from ginrummy.bots import available_players

    registered = set(available_players())
    for level in ("novice", "casual", "skilled", "advanced", "expert"):
        resolved = resolve_level(level)
        assert resolved in registered
        if level in registered:
            assert resolved == level
    with caplog.at_level(logging.WARNING, logger="ginrummy.service"):
        assert resolve_level("no-such-level") in registered


class FailingStore(SqlStore):
    """Refuses every event: as if the database went away."""

    fail = False

    async def append_event(self, match_id: str, event: Any) -> None:
        if self.fail:
            raise StoreError("database is down")
        await super().append_event(match_id, event)


def test_an_action_that_cannot_be_stored_changes_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        store = FailingStore(f"sqlite:///{tmp_path / 'f.sqlite3'}")
        service = GameService(store, ServiceConfig(robot_delay=0.0), secret="s" * 32)
        await service.start()
        try:
            live, _guests = await room_of_two(service)
            sockets = [FakeSocket(), FakeSocket()]
            for seat in (0, 1):
                live.connect(seat, sockets[seat])
            seat = live.match.to_act
            assert seat is not None
            before = sockets[seat].state
            store.fail = True
            refused = await live.act(seat, sockets[seat].state["view"]["legal"][0], 0)
            assert refused is not None and refused[0] == "server_error"
            assert live.version == 0 and live.state(seat) == before
            store.fail = False
            assert await live.act(seat, sockets[seat].state["view"]["legal"][0], 0) is None
            assert live.version == 1
        finally:
            await service.close()

    asyncio.run(main())


def test_idle_matches_are_unloaded_and_come_back_from_the_log(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        guest = await service.guests.new_guest()
        match_id = await service.create_robot_match(guest, "casual", "classic")
        live = await service.get_live(match_id)
        assert live is not None
        socket = FakeSocket()
        live.connect(0, socket)
        state = await socket.wait_for(lambda m: bool(m["view"]["legal"]))
        await live.act(0, state["view"]["legal"][0], state["version"])
        await socket.wait_for(lambda m: bool(m["view"]["legal"]) and m["version"] > state["version"])
        assert service.sweep() == 0  # watched: kept
        live.disconnect(0, socket)
        await asyncio.sleep(0.3)
        assert service.sweep() == 1 and match_id not in service.live
        again = await service.get_live(match_id)
        assert again is not None and again is not live
        assert again.version == live.version and again.state(0)["view"] == live.state(0)["view"]

    with_service(tmp_path, body, idle_seconds=0.2)


def test_a_restart_rebuilds_recent_matches_at_once_and_old_ones_when_opened(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.sqlite3'}"

    async def main() -> None:
        first = GameService(SqlStore(url), ServiceConfig(robot_delay=0.0), secret="s" * 32)
        await first.start()
        guest = await first.guests.new_guest()
        match_id = await first.create_robot_match(guest, "casual", "classic")
        live = await first.get_live(match_id)
        assert live is not None
        for _ in range(100):  # the robot may move first
            if live.match.to_act == 0:
                break
            await asyncio.sleep(0.05)
        view = live.match.view(0)
        await live.act(0, view.legal[0].to_json(), live.version)
        version = live.version
        await first.close()

        for hours_later, loaded_at_start in ((0.0, True), (2.0, False)):
            later = time.time() + hours_later * 3600
            service = GameService(
                SqlStore(url),
                ServiceConfig(robot_delay=0.0),
                secret="s" * 32,
                clock=lambda later=later: later,
            )
            await service.start()
            try:
                assert (match_id in service.live) is loaded_at_start
                again = await service.get_live(match_id)
                assert again is not None and again.version >= version  # nothing lost either way
            finally:
                await service.close()

    asyncio.run(main())
