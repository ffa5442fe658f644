"""Processes of a cluster in one event loop, on a real PostgreSQL and a real Redis: sockets relayed to
a match's owner, a killed owner's matches taken over after the lease runs out, a stale owner that
cannot append, a graceful hand-over, a Redis restart, an owner that does not answer, and rooms and
rematches asked of a process that does not own the match."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import sqlalchemy as sa

from cluster_helpers import RedisServer
from ginrummy.service import GameService, LiveMatch, ServiceConfig, ServiceError
from ginrummy.service.cluster import ClusterConfig, ClusterNode, RemoteTable
from ginrummy.service.connections import REACTION_BURST, REACTIONS
from ginrummy.storage import SqlStore, make_engine
from ginrummy.storage.redis_bus import RedisBus


class Socket:
    """A page's socket: keeps what it is sent, and whether the server closed it to make it reconnect."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.dropped: str | None = None
        self.event = asyncio.Event()

    def send_text(self, text: str) -> None:
        self.messages.append(json.loads(text))
        self.event.set()

    def drop(self, reason: str) -> None:
        self.dropped = reason
        self.event.set()

    @property
    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == "state"]

    async def until(self, predicate: Callable[[Socket], bool], timeout: float = 10.0) -> None:
        async def loop() -> None:
            while not predicate(self):
                self.event.clear()
                await self.event.wait()

        await asyncio.wait_for(loop(), timeout)

    async def state_at(self, version: int) -> dict[str, Any]:
        await self.until(lambda s: bool(s.states) and s.states[-1]["version"] >= version)
        return self.states[-1]


Node = tuple[GameService, ClusterNode]


def run_cluster(
    postgres_url: str, redis_url: str, body: Callable[[list[Node]], Awaitable[None]], **cluster: Any
) -> None:
    async def main() -> None:
        nodes: list[Node] = []
        try:
            for name in ("a", "b"):
                service = GameService(
                    SqlStore(postgres_url), ServiceConfig(robot_delay=0.0, restore_seconds=0), secret="s" * 32
                )
                # Leases last 10 s unless a test needs them to run out (a killed owner): 1 s
                # leases renewed every 0.25 s can lapse on a loaded machine.
                options = {"lease_seconds": 10.0, "heartbeat": 0.25, "call_timeout": 2.0, **cluster}
                node = ClusterNode(service, RedisBus(redis_url), ClusterConfig(name=name, **options))
                await service.start()
                await node.start()
                nodes.append((service, node))
            await body(nodes)
        finally:
            for service, _node in nodes:
                await service.close()

    asyncio.run(main())


async def robot_match(service: GameService) -> LiveMatch:
    guest = await service.guests.new_guest()
    match_id = await service.create_robot_match(guest, "novice", {"preset": "classic", "target": 500})
    live = service.live[match_id]
    # The robot match's person, seat 0: the tests play it.
    assert live.seat_of(guest.id) == 0
    return live


async def play(table: Any, socket: Socket, moves: int) -> dict[str, Any]:
    """Play `moves` of seat 0's moves through `table`, each one answered by a newer state."""
    state = await socket.state_at(0)
    for _ in range(moves):
        await socket.until(lambda s: bool(s.states[-1]["view"]["legal"]))
        state = socket.states[-1]
        assert await table.act(0, state["view"]["legal"][0], state["version"]) is None
        state = await socket.state_at(state["version"] + 1)
    return state


def events(url: str, match_id: str) -> list[tuple[int, int | None]]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT seq, epoch FROM events WHERE match_id = :m ORDER BY seq"), {"m": match_id}
            )
            return [(row.seq, row.epoch) for row in rows]
    finally:
        engine.dispose()


def test_a_socket_on_another_process_plays_through_the_owner_and_sees_only_its_seat(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, _), (b, node_b) = nodes
        live = await robot_match(a)
        table = await b.open_table(live.id)
        assert isinstance(table, RemoteTable) and table.owner == "a"
        socket = Socket()
        table.connect(0, socket)
        first = await socket.state_at(0)
        assert first["view"]["hand"] == live.match.view(0).to_json()["hand"]  # seat 0's own cards
        await play(table, socket, 6)
        # Seat 0 to move again: the robot has answered, so nothing moves until seat 0 does.
        await socket.until(lambda s: bool(s.states[-1]["view"]["legal"]))
        state = socket.states[-1]
        assert state["version"] == live.version >= 6
        assert json.loads(live.state_text(0)) == state  # exactly what a socket at the owner gets
        # The coach's hint through the relay: the owner's hint for seat 0, and its refusals.
        assert live.hints
        hint = await table.hint(0, live.version)
        assert isinstance(hint, str) and hint == await live.hint(0, live.version)
        assert json.loads(hint)["type"] == "hint"
        assert (await table.hint(0, live.version + 5))[0] == "stale"
        # Refusals come back from the owner with their reasons.
        other = 1 - (live.match.to_act or 0)
        refused = await table.act(other, {"type": "pass"}, None)
        assert refused is not None and refused[0] in ("not_your_turn", "illegal_action")
        assert await table.act(0, {"type": "draw", "source": "stock"}, 0) == (
            "stale",
            f"your table is out of date (version 0, now {live.version}); it is refreshed",
        )

        # A reaction the owner refuses is told to the relayed seat's socket, with the owner's reason.
        def refusal(code: str) -> Callable[[Socket], bool]:
            return lambda s: any(m["type"] == "error" and m["code"] == code for m in s.messages)

        assert table.react(0, "boo") is None  # answered once the owner has
        await socket.until(refusal("bad_message"))
        for _ in range(REACTION_BURST + 1):
            table.react(0, REACTIONS[0])
        await socket.until(refusal("rate_limited"))
        # A second socket of the seat on the relaying process gets the state at once.
        second = Socket()
        table.connect(0, second)
        assert second.states[-1]["version"] == live.version
        # Never the robot's cards: every state a relayed socket got is seat 0's view.
        assert all(m["view"]["seat"] == 0 for m in socket.states)
        # A spectator on the relaying process gets the public view, built by the owner.
        watcher = Socket()
        table.watch(watcher)
        await watcher.until(lambda s: any(m["type"] == "spectate" for m in s.messages))
        seen = [m for m in watcher.messages if m["type"] == "spectate"][-1]
        assert seen == json.loads(live.spectator_text())
        table.unwatch(watcher)
        table.disconnect(0, socket)
        table.disconnect(0, second)
        await asyncio.sleep(0.3)
        # The relay is gone, and the owner heard the seat left.
        assert live.id not in node_b.relays.remote and not live.conns.by_seat[0]

    run_cluster(postgres_url, redis_server.url, body)


def test_a_killed_owners_match_moves_and_the_stale_owner_cannot_append(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, _) = nodes
        live = await robot_match(a)
        socket = Socket()
        live.connect(0, socket)
        await play(live, socket, 4)
        await socket.until(lambda s: bool(s.states[-1]["view"]["legal"]))
        # "Killed": the heartbeat and the bus stop, the leases are not given up.
        await node_a.keeper.close(release=False)
        node_a.keeper.held[f"match:{live.id}"] = await a.store.get_lease(f"match:{live.id}")  # type: ignore[attr-defined]
        node_a.handing_over = True
        await node_a.bus.close()

        async def moved() -> None:
            while live.id not in b.live:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(moved(), 10)  # adopted by b once the lease ran out
        taken = b.live[live.id]
        assert taken.version == live.version and taken.match.view(0) == live.match.view(0)
        # The stale owner comes back and tries to write: the lease's epoch refuses it, nothing is stored.
        state = socket.states[-1]
        refused = await live.act(0, state["view"]["legal"][0], state["version"])
        assert refused == ("unavailable", "the table moved to another server; it reconnects")
        assert live.id not in a.live and socket.dropped is not None  # its page reconnects
        before = events(postgres_url, live.id)
        assert len(before) == taken.version
        # Play goes on at the new owner, under the new epoch.
        again = Socket()
        taken.connect(0, again)
        await play(taken, again, 2)
        after = events(postgres_url, live.id)
        assert after[: len(before)] == before and {epoch for _, epoch in after[len(before) :]} == {2}
        assert [seq for seq, _ in after] == list(range(1, len(after) + 1))

    run_cluster(postgres_url, redis_server.url, body, lease_seconds=1.0)


def test_a_graceful_shutdown_hands_the_match_over_without_waiting_for_the_lease(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, _) = nodes
        live = await robot_match(a)
        table = await b.open_table(live.id)
        assert isinstance(table, RemoteTable)
        socket = Socket()
        table.connect(0, socket)
        state = await play(table, socket, 3)
        await node_a.hand_over()
        # The relayed page is told to reconnect; the match is b's long before a 60 s lease could run out.
        await socket.until(lambda s: s.dropped is not None)
        reopened = await b.open_table(live.id)
        assert isinstance(reopened, LiveMatch) and reopened.version == state["version"]
        again = Socket()
        reopened.connect(0, again)
        await play(reopened, again, 2)

    run_cluster(postgres_url, redis_server.url, body, lease_seconds=60.0, heartbeat=0.5)


def test_redis_restarted_mid_play_loses_nothing(postgres_url: str, redis_server: RedisServer) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, node_b) = nodes
        live = await robot_match(a)
        table = await b.open_table(live.id)
        assert isinstance(table, RemoteTable)
        socket = Socket()
        table.connect(0, socket)
        await play(table, socket, 2)
        await socket.until(lambda s: bool(s.states[-1]["view"]["legal"]))
        redis_server.stop()
        # Redis is down: a relayed action is refused with a reason, and the page reconnects...
        state = socket.states[-1]
        refused = await table.act(0, state["view"]["legal"][0], state["version"])
        assert refused is not None and refused[0] == "unavailable"
        assert socket.dropped is not None
        # ...while the match itself goes on at its owner: nothing of it is only in Redis.
        local = Socket()
        live.connect(0, local)
        await play(live, local, 2)
        redis_server.start()

        async def back() -> None:  # both processes are on the bus again (each reconnects by itself)
            while not (node_a.bus.up and node_b.bus.up):  # type: ignore[attr-defined]
                await asyncio.sleep(0.05)

        await asyncio.wait_for(back(), 15)
        table = await b.open_table(live.id)
        assert isinstance(table, RemoteTable)
        relayed = Socket()
        table.connect(0, relayed)
        assert (await relayed.state_at(live.version))["version"] == live.version
        await play(table, relayed, 2)

    run_cluster(postgres_url, redis_server.url, body)


def test_an_owner_that_does_not_answer_gives_a_clear_error_after_the_timeout(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, _) = nodes
        live = await robot_match(a)
        table = await b.open_table(live.id)
        assert isinstance(table, RemoteTable)
        socket = Socket()
        table.connect(0, socket)
        await socket.state_at(0)
        await socket.until(lambda s: bool(s.states[-1]["view"]["legal"]))
        state = socket.states[-1]
        node_a.bus._handlers["gr:p:a"] = lambda text: None  # type: ignore[attr-defined]  # paused
        refused = await table.act(0, state["view"]["legal"][0], state["version"])
        assert refused is not None and refused[0] == "unavailable" and "within 0.5 s" in refused[1]
        assert socket.dropped == "the server of this table did not answer"
        assert live.version == state["version"]  # the owner never heard of it: nothing was applied

    run_cluster(postgres_url, redis_server.url, body, call_timeout=0.5)


pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def test_rooms_and_rematches_work_whichever_process_a_request_reaches(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, _), (b, _) = nodes
        alice, bob = await a.guests.new_guest(), await a.guests.new_guest()
        code, match_id = await a.rooms.create_room(alice, {"preset": "classic", "target": 1}, 0)
        # The room link opened on b: b asks a, the owner.
        info = await b.rooms.room_info(None, code)
        assert info["host"] == alice.name and info["status"] == "waiting" and not info["full"]
        assert await b.rooms.join_room(bob, code) == match_id
        live = a.live[match_id]
        assert live.status == "playing" and live.seat_of(bob.id) == 1 and match_id not in b.live
        with pytest.raises(ServiceError) as refused:
            await b.rooms.join_room(await b.guests.new_guest(), code)
        assert (refused.value.code, refused.value.status) == ("room_full", 409)
        # One hand to 1 point ends the match.
        rng = random.Random(3)
        while live.status == "playing":
            seat = live.match.to_act
            assert seat is not None
            legal = [a.to_json() for a in live.match.legal_actions()]
            enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
            assert await live.act(seat, enders[0] if enders else rng.choice(legal), live.version) is None
        seen = Socket()
        live.connect(0, seen)
        # Alice asks for the rematch on b (b makes and owns it); a's table shows its link.
        rematch_id = await b.rooms.rematch(alice, match_id)
        await seen.until(lambda s: s.states[-1]["match"]["rematch_id"] == rematch_id)
        # Bob accepts on a: a asks b, which seats him, and the rematch starts.
        assert await a.rooms.rematch(bob, match_id) == rematch_id
        fresh = b.live[rematch_id]
        assert fresh.status == "playing" and fresh.seat_of(bob.id) is not None and rematch_id not in a.live

    run_cluster(postgres_url, redis_server.url, body)


def test_a_rename_on_one_process_shows_at_the_table_another_process_runs(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, _), (b, _) = nodes
        live = await robot_match(a)
        guest_id = live.seats[0].guest_id
        assert guest_id is not None
        guest = await b.store.get_guest(guest_id)
        assert guest is not None and live.id not in b.live
        socket = Socket()
        live.connect(0, socket)
        renamed = await b.guests.rename(guest, "Renamed Elsewhere")
        assert renamed.name == "Renamed Elsewhere"
        await socket.until(
            lambda s: any(p["name"] == "Renamed Elsewhere" for p in s.states[-1]["match"]["players"])
        )
        assert live.seats[0].name == "Renamed Elsewhere"

    run_cluster(postgres_url, redis_server.url, body)


def test_spectators_on_every_process_are_counted_by_the_owner_and_told_to_all(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, _), (b, _) = nodes
        live = await robot_match(a)
        table = await b.open_table(live.id)
        assert isinstance(table, RemoteTable)
        here, there, third = Socket(), Socket(), Socket()
        live.watch(here)  # at the owner
        table.watch(there)  # two on the other process, reached through its relay
        table.watch(third)

        def counted(n: int) -> Callable[[Socket], bool]:
            def told(socket: Socket) -> bool:
                seen = [m for m in socket.messages if m["type"] == "spectate"]
                return bool(seen) and seen[-1]["match"]["spectators"] == n

            return told

        for socket in (here, there, third):
            await socket.until(counted(3))
        assert live.spectators == 3
        table.unwatch(third)
        for socket in (here, there):
            await socket.until(counted(2))
        table.unwatch(there)
        await here.until(counted(1))
        assert live.spectators == 1

    run_cluster(postgres_url, redis_server.url, body)
