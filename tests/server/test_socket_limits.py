"""Match sockets per guest and per address: capped, opened at a bounded rate, messages shared per guest."""

from __future__ import annotations

import asyncio
from pathlib import Path

import websockets
from server_helpers import Guest, Table, live_server, new_guest, run, test_settings


async def _refused(guest: Guest, match_id: str) -> dict[str, object]:
    """Open a socket the server refuses: its one error message, and the close code."""
    table = await guest.connect(match_id)
    error = await table.error()
    try:
        await asyncio.wait_for(table.ws.recv(), 10)
    except websockets.ConnectionClosed as closed:
        assert closed.rcvd is not None
        return {**error, "close": closed.rcvd.code}
    raise AssertionError("the refused socket stayed open")


async def _open(guest: Guest, match_id: str) -> Table:
    table = await guest.connect(match_id)
    await table.until(lambda m: m["type"] == "state")
    return table


def test_sockets_are_capped_per_guest_and_per_address(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, sockets_per_guest=3, sockets_per_address=5)

    async def body(host: str) -> None:
        alice, bob = await new_guest(host), await new_guest(host)
        mine, theirs = await alice.robot_match(), await bob.robot_match()
        alices = [await _open(alice, mine) for _ in range(3)]
        refused = await _refused(alice, mine)
        assert refused["code"] == "too_many_sockets" and refused["close"] == 1013
        assert "open in 3 places" in str(refused["message"])
        # The same address: two more, then the address is full for everyone on it.
        bobs = [await _open(bob, theirs) for _ in range(2)]
        refused = await _refused(bob, theirs)
        assert refused["code"] == "too_many_sockets" and "your address" in str(refused["message"])
        # Closing one frees its place (counted as closed when the server sees the close).
        await alices[0].close()
        for _ in range(100):
            table = await alice.connect(mine)
            first = await table.recv()
            if first["type"] == "state":
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("a closed socket's place was never given back")
        assert len(bobs) == 2

    with live_server(settings) as host:
        run(lambda: body(host))


def test_opening_sockets_is_rate_limited_per_address(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, socket_open_rate=0.01, socket_open_burst=4)

    async def body(host: str) -> None:
        alice = await new_guest(host)
        match_id = await alice.robot_match()
        for _ in range(4):
            await (await _open(alice, match_id)).close()
        refused = await _refused(alice, match_id)
        assert refused["code"] == "rate_limited" and refused["close"] == 1013
        assert "try again in" in str(refused["message"])

    with live_server(settings) as host:
        run(lambda: body(host))


def test_more_sockets_do_not_mean_more_messages_and_a_flood_is_closed(tmp_path: Path) -> None:
    settings = test_settings(tmp_path, rate_per_second=2.0, rate_burst=6)

    async def body(host: str) -> None:
        alice = await new_guest(host)
        match_id = await alice.robot_match()
        tables = [await _open(alice, match_id) for _ in range(3)]
        for table in tables:
            for _ in range(6):
                await table.send({"type": "ping"})
        pongs = 0
        for table in tables:
            pongs += sum(1 for m in await table.quiet(0.5) if m["type"] == "pong")
        assert 6 <= pongs <= 9  # one bucket of 6 for the guest (plus what refills), not 6 per socket
        # A socket that keeps sending far past its limit is closed; the others stay.
        flooder = tables[0]
        try:
            for _ in range(400):
                await flooder.send({"type": "ping"})
            await asyncio.wait_for(flooder.quiet(2.0), 10)
            closed = None
        except websockets.ConnectionClosed as exc:
            closed = exc
        assert closed is not None and closed.rcvd is not None and closed.rcvd.code == 1008
        await asyncio.sleep(3.5)  # the shared bucket refills at 2 a second
        await tables[1].send({"type": "ping"})
        assert await tables[1].until(lambda m: m["type"] == "pong")

    with live_server(settings) as host:
        run(lambda: body(host))
