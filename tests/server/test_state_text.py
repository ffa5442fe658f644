"""The cached state text (incremental history, cached metadata) always equals the state built afresh."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from ginrummy.service import GameService, LiveMatch, ServiceConfig
from ginrummy.storage import SqlStore


class CheckingSocket:
    """Compares every state text with `live.state(seat)` at the moment it is sent."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.live: LiveMatch | None = None
        self.states: list[dict[str, Any]] = []
        self.mismatches: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self.event = asyncio.Event()

    def send_text(self, text: str) -> None:
        message = json.loads(text)
        if message["type"] == "state":
            assert self.live is not None
            fresh = self.live.state(self.seat)
            if message != fresh:
                self.mismatches.append((message, fresh))
            self.states.append(message)
        self.event.set()

    async def next_state(self, after_version: int) -> dict[str, Any]:
        while True:
            for message in reversed(self.states):
                if message["version"] > after_version and (message["view"]["legal"] or message["result"]):
                    return message
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), 10)


def run(tmp_path: Path, body: Any) -> None:
    async def main() -> None:
        service = GameService(
            SqlStore(f"sqlite:///{tmp_path / 's.sqlite3'}"), ServiceConfig(robot_delay=0.0), secret="s" * 32
        )
        await service.start()
        try:
            await body(service)
        finally:
            await service.close()

    asyncio.run(main())


def test_state_text_matches_the_fresh_state_through_a_whole_robot_match(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        guest = await service.guests.new_guest()
        # To 200: no single hand scores that much (at most the loser's deadwood and a big Gin's
        # bonus), so the match has a finished hand before its last; to 100 a random player's hand
        # full of deadwood could end it in one.
        match_id = await service.create_robot_match(guest, "casual", {"preset": "classic", "target": 200})
        live = await service.get_live(match_id)
        assert live is not None
        socket = CheckingSocket(0)
        socket.live = live
        live.connect(0, socket)
        rng = random.Random(7)
        version = -1
        hands_seen = set()
        while True:
            state = await socket.next_state(version)
            hands_seen.add(state["view"]["hand_number"])
            if state["result"] is not None:
                break
            version = state["version"]
            refused = await live.act(0, rng.choice(state["view"]["legal"]), version)
            assert refused is None
        assert socket.mismatches == []
        assert len(hands_seen) >= 2  # finished hands (last_hand, revealed knocks) were covered too

    run(tmp_path, body)


def test_state_text_follows_players_connecting_and_leaving(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        alice, bob = await service.guests.new_guest(), await service.guests.new_guest()
        code, match_id = await service.rooms.create_room(alice, "classic", 0)
        live = await service.get_live(match_id)
        assert live is not None
        first = CheckingSocket(0)
        first.live = live
        live.connect(0, first)
        await service.rooms.join_room(bob, code)
        other = CheckingSocket(1)
        other.live = live
        live.connect(1, other)
        live.disconnect(1, other)
        live.connect(1, other)
        assert first.mismatches == [] and other.mismatches == []
        connected = [s["match"]["players"][1]["connected"] for s in first.states]
        assert True in connected and False in connected[connected.index(True) :]

    run(tmp_path, body)
