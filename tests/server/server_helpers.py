"""Test helpers: a real Uvicorn server in a thread, and guests that talk to it over HTTP and WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn
import websockets

from ginrummy.rules import parse_cards
from ginrummy.rules.cards import CARDS
from ginrummy.rules.masks import deadwood_after_discards
from ginrummy.server import Settings, create_app

COOKIE = "gr_guest"
DEVICE_COOKIE = "gr_device"


def test_settings(tmp_path: Path, **changes: Any) -> Settings:
    """Settings for tests: a fresh SQLite file, robots without delay, generous rate limit.

    Every test guest comes from 127.0.0.1, as on a shared network, so players of one address may
    meet in rated play here (`rated_same_address`); tests/server/test_fair_play.py turns it off.
    """
    base = Settings(
        database_url=f"sqlite:///{tmp_path / 'test.sqlite3'}",
        secret="test-secret-" + "x" * 20,
        robot_delay=0.0,
        grace_seconds=30.0,
        turn_seconds=None,
        rate_per_second=1000.0,
        rate_burst=1000,
        http_per_minute=0.0,
        tournaments_per_hour=0,
        sockets_per_address=10_000,
        socket_open_rate=1000.0,
        socket_open_burst=1000,
        rated_same_address=True,
    )
    return dataclasses.replace(base, **changes)


test_settings.__test__ = False  # type: ignore[attr-defined]  # not a test, despite its name


@contextlib.contextmanager
def live_server(settings: Settings) -> Iterator[str]:
    """Serve `create_app(settings)` on a free loopback port in a thread; yields "127.0.0.1:PORT"."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(settings),
        log_level="warning",
        lifespan="on",
        loop="asyncio",
        **settings.server_options(),  # as `ginrummy serve` runs it
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


class Table:
    """One WebSocket of a guest at a match: every message received is kept, raw and parsed."""

    def __init__(self, ws: Any, guest: Guest, match_id: str) -> None:
        self.ws = ws
        self.guest = guest
        self.match_id = match_id
        self.raw: list[str] = []
        self.state: dict[str, Any] | None = None
        self.errors: list[dict[str, Any]] = []

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(text, str)
        self.raw.append(text)
        message: dict[str, Any] = json.loads(text)
        if message["type"] == "state":
            if self.state is not None:
                assert message["version"] >= self.state["version"], "versions never go back"
            self.state = message
        elif message["type"] == "error":
            self.errors.append(message)
        return message

    async def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 10.0
    ) -> dict[str, Any]:
        """Receive until a message satisfies `predicate`; return it."""
        deadline = time.monotonic() + timeout
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if predicate(message):
                return message

    async def state_at_least(self, version: int, timeout: float = 10.0) -> dict[str, Any]:
        if self.state is not None and self.state["version"] >= version:
            return self.state
        return await self.until(lambda m: m["type"] == "state" and m["version"] >= version, timeout)

    async def my_turn(self, timeout: float = 10.0) -> dict[str, Any]:
        """The state in which this seat has something to play (the current one or a later one)."""
        if self.state is not None and self.state["view"]["legal"]:
            return self.state
        return await self.until(lambda m: m["type"] == "state" and bool(m["view"]["legal"]), timeout)

    async def error(self, timeout: float = 5.0) -> dict[str, Any]:
        return await self.until(lambda m: m["type"] == "error", timeout)

    async def send(self, payload: Any) -> None:
        await self.ws.send(payload if isinstance(payload, (str, bytes)) else json.dumps(payload))

    async def act(self, action: dict[str, Any], *, version: int | None = None) -> None:
        message: dict[str, Any] = {"type": "action", "action": action}
        if version is not None:
            message["version"] = version
        await self.send(message)

    async def quiet(self, seconds: float = 0.2) -> list[dict[str, Any]]:
        """Everything that arrives within `seconds` (to check that nothing does)."""
        got = []
        with contextlib.suppress(TimeoutError):
            while True:
                got.append(await self.recv(seconds))
        return got

    async def close(self) -> None:
        await self.ws.close()


class Guest:
    """A browser-less guest: its own cookie, an HTTP client and WebSockets."""

    def __init__(
        self,
        host: str,
        cookie: str | None = None,
        *,
        local_address: str | None = None,
        address: str | None = None,
    ) -> None:
        self.host = host
        self.cookie = cookie
        #: The device cookie: set by a sign-up or sign-in, sent back like a browser does.
        self.device: str | None = None
        #: Seen by a server that believes this proxy (127.0.0.1) as the client's address.
        self.address = address
        # `local_address` (127.0.0.2...): its HTTP calls come from another loopback address, as
        # from another network (the server's per-address rules see two visitors).
        transport = httpx.AsyncHTTPTransport(local_address=local_address) if local_address else None
        self.http = httpx.AsyncClient(base_url=f"http://{host}", timeout=20, transport=transport)
        self.tables: list[Table] = []
        self.closed = False
        _guests.append(self)  # `run` closes it at the end of the test

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        cookies = [f"{COOKIE}={self.cookie}"] if self.cookie else []
        if self.device:
            cookies.append(f"{DEVICE_COOKIE}={self.device}")
        headers = {"Cookie": "; ".join(cookies)} if cookies else {}
        if self.address:
            headers["X-Forwarded-For"] = self.address
        content = json.dumps(body) if body is not None else None
        response = await self.http.request(method, path, content=content, headers=headers)
        self.http.cookies.clear()  # each guest carries only its own cookies, set below
        fresh = response.cookies.get(COOKIE)
        if fresh:
            self.cookie = fresh
        device = response.cookies.get(DEVICE_COOKIE)
        if device:
            self.device = device
        return response.status_code, response.json()

    async def me(self) -> dict[str, Any]:
        status, data = await self.request("GET", "/api/me")
        assert status == 200, data
        return data  # type: ignore[no-any-return]

    async def robot_match(self, level: str = "casual", rules: Any = "classic") -> str:
        status, data = await self.request("POST", "/api/matches", {"level": level, "rules": rules})
        assert status == 200, data
        return data["match_id"]  # type: ignore[no-any-return]

    async def room(self, rules: Any = "classic", turn_seconds: Any = 0) -> dict[str, Any]:
        status, data = await self.request(
            "POST", "/api/rooms", {"rules": rules, "turn_seconds": turn_seconds}
        )
        assert status == 200, data
        return data  # type: ignore[no-any-return]

    async def join(self, code: str) -> tuple[int, Any]:
        return await self.request("POST", f"/api/rooms/{code}/join")

    async def connect(self, match_id: str, *, cookie: str | None = None, origin: str | None = None) -> Table:
        value = cookie if cookie is not None else self.cookie
        headers = {}
        if value:
            headers["Cookie"] = f"{COOKIE}={value}"
        if origin:
            headers["Origin"] = origin
        ws = await websockets.connect(
            f"ws://{self.host}/ws/{match_id}",
            additional_headers=headers,
            max_size=2**22,
            open_timeout=10,
            ping_interval=None,
        )
        table = Table(ws, self, match_id)
        self.tables.append(table)
        return table

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for table in self.tables:
            await table.close()
        await self.http.aclose()


_guests: list[Guest] = []


async def new_guest(host: str, *, local_address: str | None = None) -> Guest:
    """A guest with its cookie (its HTTP calls from `local_address`); `run` closes it at the end of the test."""
    guest = Guest(host, local_address=local_address)
    await guest.me()
    return guest


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    """Run an async test body, then close every guest and socket it opened."""

    async def main() -> Any:
        try:
            return await body()
        finally:
            while _guests:
                await _guests.pop().close()

    return asyncio.run(main())


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal action, but knock or go gin whenever allowed (so matches end sooner)."""
    enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
    return rng.choice(enders) if enders else rng.choice(legal)


def least_deadwood_discard(view: dict[str, Any]) -> dict[str, Any]:
    """The legal discard of a view (as JSON) that leaves the least deadwood, so a scripted match
    ends in a few hands instead of going void hand after hand."""
    discards = {a["card"] for a in view["legal"] if a["type"] == "discard"}
    after = deadwood_after_discards(parse_cards(view["hand"]).mask)
    _, card = min((left, str(CARDS[c])) for c, left in after if str(CARDS[c]) in discards)
    return {"type": "discard", "card": card}
