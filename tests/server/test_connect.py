"""`ginrummy connect`: which challenges it takes, and (slow) the real subprocess against a real
`ginrummy serve` that is killed mid-game and restarted: the bridge reconnects by itself and plays
the game to the end; a revoked token stops it with the reason; Ctrl+C lets a game in progress finish."""

from __future__ import annotations

import asyncio
import os
import random
import shlex
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Guest, new_guest, run
from test_browser import LiveServer
from test_browser_bots import ginrummy_command
from test_leak import greedy_or_random

from ginrummy.cli.bridge import Bridge as BridgeOf
from ginrummy.cli.bridge import ChallengeFilter, socket_url

PASSWORD = "a long enough secret"


def offer(**fields: Any) -> dict[str, Any]:
    return {"preset": "classic", "target": 100, "rated": True, "turn_seconds": 60, **fields}


def test_the_filter_says_why_it_declines() -> None:
    picky = ChallengeFilter(
        presets=frozenset({"classic"}), min_target=25, max_target=150, rated=True, min_clock=30, max_games=2
    )
    assert picky.decline_reason(offer(), playing=0) is None
    assert picky.decline_reason(offer(), playing=2) == "later"
    assert picky.decline_reason(offer(preset="hoyle"), playing=0) == "rules"
    assert picky.decline_reason(offer(target=10), playing=0) == "target"
    assert picky.decline_reason(offer(target=250), playing=0) == "target"
    assert picky.decline_reason(offer(rated=False), playing=0) == "rated"
    assert picky.decline_reason(offer(turn_seconds=20), playing=0) == "clock"
    assert ChallengeFilter(rated=False).decline_reason(offer(), playing=0) == "casual"
    assert ChallengeFilter().decline_reason(offer(preset="oklahoma", target=1), playing=0) is None


def test_socket_addresses_follow_the_site() -> None:
    assert socket_url("https://cards.example/", "/api/bot/stream") == "wss://cards.example/api/bot/stream"
    assert socket_url("http://127.0.0.1:8000", "/api/bot/game/x") == "ws://127.0.0.1:8000/api/bot/game/x"
    assert socket_url("localhost:9000", "/s") == "ws://localhost:9000/s"
    with pytest.raises(ValueError, match="http"):
        socket_url("ftp://cards.example", "/s")


def test_an_engine_that_cannot_start_stops_the_bridge_before_it_connects(tmp_path: Path) -> None:
    # No site at this address: the engine is checked first, and its failure is the message.
    said: list[str] = []
    bridge = BridgeOf("http://127.0.0.1:9", "grb_x.y", str(tmp_path / "no-such-engine"), say=said.append)
    assert asyncio.run(bridge.run(asyncio.Queue())) == 2
    assert len(said) == 1 and said[0].startswith("the engine cannot play") and "could not start" in said[0]


class Bridge:
    """`ginrummy connect` in a subprocess, its output in a file."""

    def __init__(self, url: str, token: str, log: Path) -> None:
        self.log = log
        engine = shlex.join([*ginrummy_command(), "engine", "--bot", "casual"])
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [*ginrummy_command(), "connect", "--server", url, "--engine", engine],
                env={**os.environ, "GINRUMMY_BOT_TOKEN": token},
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    async def said(self, text: str, *, count: int = 1) -> None:
        deadline = time.monotonic() + 120  # bounds a hang; no speed is asked for
        while self.text().count(text) < count:
            assert time.monotonic() < deadline, f"the bridge never said {text!r}: {self.text()}"
            await asyncio.sleep(0.1)

    async def exit_code(self) -> int:
        return await asyncio.to_thread(self.process.wait, 120)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


async def start_game(person: Guest, bot_id: str, target: int) -> str:
    status, made = await person.request(
        "POST",
        f"/api/players/{bot_id}/challenge",
        {"preset": "classic", "target": target, "turn_seconds": 60},
    )
    assert status == 200, made
    status, seen = await person.request("GET", f"/api/challenges/{made['id']}?wait=25")
    assert seen["status"] == "accepted", seen
    return str(seen["match_id"])


async def play_until(person: Guest, match_id: str, moves: int | None) -> dict[str, Any]:
    """Play the person's seat: `moves` of its moves (then return), or to the end (None)."""
    table = await person.connect(match_id)
    rng = random.Random(match_id)
    acted = -1
    made = 0
    try:
        while True:
            message = await table.recv(timeout=60)
            if message["type"] != "state":
                continue
            if message["result"] is not None or (moves is not None and made >= moves):
                return message
            if message["view"]["legal"] and message["version"] > acted:
                acted = message["version"]
                made += 1
                await table.act(greedy_or_random(message["view"], rng), version=message["version"])
    finally:
        await table.close()


@pytest.mark.slow
def test_the_bridge_reconnects_after_a_crash_stops_on_a_revoked_token_and_drains_on_ctrl_c(
    tmp_path: Path,
) -> None:
    server = LiveServer(tmp_path / "data", tmp_path / "server.log").start()
    bridges: list[Bridge] = []

    async def body() -> None:
        host = server.url.removeprefix("http://")
        owner = await new_guest(host)
        status, _ = await owner.request("POST", "/api/account", {"name": "Bridge_own", "password": PASSWORD})
        assert status == 200
        status, made = await owner.request("POST", "/api/bots", {"name": "BridgeBot"})
        bot_id, token = made["bot"]["id"], made["token"]
        bridge = Bridge(server.url, token, tmp_path / "bridge1.log")
        bridges.append(bridge)
        await bridge.said("connected to")
        person = await new_guest(host)
        match_id = await start_game(person, bot_id, target=25)
        await play_until(person, match_id, moves=3)

        # The server dies mid-game and comes back: the bridge finds its game again by itself.
        await asyncio.to_thread(server.kill)
        await bridge.said("connection lost")
        await asyncio.to_thread(server.start)
        await bridge.said("connected to", count=2)
        person = Guest(host, person.cookie)
        end = await play_until(person, match_id, moves=None)
        assert end["result"] is not None
        await bridge.said(f"game {match_id} is over")
        assert "reconnecting in" in bridge.text()

        # A revoked token ends the bridge, saying why (retrying could not help).
        status, _ = await owner.request("DELETE", f"/api/bots/{bot_id}/token")
        assert status == 200
        assert await bridge.exit_code() == 1
        assert "the site refused the bot's token" in bridge.text() and "revoked" in bridge.text()

        # Ctrl+C once mid-game: no new challenge, the game finishes, then the bridge stops.
        status, fresh = await owner.request("POST", f"/api/bots/{bot_id}/token")
        bridge = Bridge(server.url, fresh["token"], tmp_path / "bridge2.log")
        bridges.append(bridge)
        await bridge.said("connected to")
        match_id = await start_game(person, bot_id, target=10)
        await play_until(person, match_id, moves=1)
        bridge.process.send_signal(signal.SIGINT)
        await bridge.said("game(s) will finish")
        status, busy = await person.request(
            "POST", f"/api/players/{bot_id}/challenge", {"preset": "classic", "target": 10}
        )
        status, seen = await person.request("GET", f"/api/challenges/{busy['id']}?wait=25")
        assert (seen["status"], seen["decline_reason"]) == ("declined", "later")
        await play_until(person, match_id, moves=None)
        assert await bridge.exit_code() == 0
        assert "stopped" in bridge.text()

    try:
        run(body)
    finally:
        for bridge in bridges:
            bridge.stop()
        server.stop()
