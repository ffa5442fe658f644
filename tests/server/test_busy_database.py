"""Another process holding the SQLite file: the server keeps answering, waits a bounded time, says 503."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from server_helpers import Guest, live_server, new_guest, run, test_settings


@contextmanager
def write_lock(path: Path) -> Iterator[None]:
    """A real outside connection holding the database's write lock (BEGIN IMMEDIATE)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def test_other_routes_and_matches_answer_while_a_write_waits_for_the_lock(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, db_timeout=60.0)
    database = tmp_path / "test.sqlite3"

    async def body(host: str) -> None:
        alice, bob = await new_guest(host), await new_guest(host)
        table = await bob.connect(await bob.robot_match())
        await table.until(lambda m: m["type"] == "state")
        with write_lock(database):
            creating = asyncio.create_task(alice.request("POST", "/api/matches", {"level": "novice"}))
            await asyncio.sleep(0.3)  # let the request reach the server and wait for the lock
            # Meanwhile: a route without the database, reads, and another player's live table.
            status, health = await alice.request("GET", "/api/health")
            assert status == 200 and health["ok"] is True
            assert (await alice.me())["id"] and (await bob.request("GET", "/api/matches"))[0] == 200
            await table.send({"type": "ping"})
            assert await table.until(lambda m: m["type"] == "pong", timeout=10)
            assert not creating.done()  # the write still waits, without holding anyone else up
        status, made = await creating  # the lock is gone: the write goes through
        assert status == 200 and made["match_id"]

    with live_server(settings) as host:
        run(lambda: body(host))


def test_a_write_that_cannot_get_the_lock_in_time_gets_503_and_changes_nothing(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, db_timeout=0.5)
    database = tmp_path / "test.sqlite3"

    async def body(host: str) -> None:
        alice = await new_guest(host)
        table = await alice.connect(await alice.robot_match())
        state = await table.my_turn()
        with write_lock(database):
            response = await alice.http.post(
                "/api/matches", content=b"{}", headers={"Cookie": f"gr_guest={alice.cookie}"}
            )
            assert response.status_code == 503
            assert response.json()["error"]["code"] == "unavailable"
            assert int(response.headers["Retry-After"]) >= 1
            fresh = Guest(host)  # a new visitor is a write too: told to come back, not left hanging
            status, data = await fresh.request("GET", "/api/me")
            assert status == 503 and data["error"]["code"] == "unavailable"
            await table.act(state["view"]["legal"][0], version=state["version"])
            error = await table.error()
            assert error["code"] == "unavailable" and "nothing changed" in error["message"]
        assert (await alice.request("GET", "/api/matches"))[1]["matches"][0]["id"] == table.match_id
        assert len((await alice.request("GET", "/api/matches"))[1]["matches"]) == 1
        # The lock is gone: the same move is accepted as the next version.
        await table.act(state["view"]["legal"][0], version=state["version"])
        assert (await table.state_at_least(state["version"] + 1))["version"] >= state["version"] + 1

    with live_server(settings) as host:
        run(lambda: body(host))
