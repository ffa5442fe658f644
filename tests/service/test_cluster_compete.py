"""Quick pairing and tournaments in a cluster, on a real PostgreSQL and a real Redis: one process runs
the pools and each tournament (it holds the lease), the others forward to it, and when it goes
another process takes over (the pool again empty, the tournament rebuilt from the database)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from cluster_helpers import RedisServer
from ginrummy.service import GameService, ServiceConfig
from ginrummy.service.cluster import ClusterConfig, ClusterNode
from ginrummy.service.cluster.node import LIVE_KEPT
from ginrummy.service.ports import GuestRow, LeaseLost, SeatRow
from ginrummy.storage import SqlStore, make_engine
from ginrummy.storage.redis_bus import RedisBus

Node = tuple[GameService, ClusterNode]
POOL = {"preset": "classic", "target": 100, "rated": False}


def run_nodes(
    postgres_url: str,
    redis_url: str,
    body: Callable[[list[Node]], Awaitable[None]],
    lease_seconds: float = 10.0,
) -> None:
    """Two processes on one database and one Redis. Leases last 10 s unless a test needs them to
    run out (a killed process): 1 s leases renewed every 0.25 s can lapse on a loaded machine."""

    async def main() -> None:
        nodes: list[Node] = []
        try:
            for name in ("a", "b"):
                service = GameService(
                    SqlStore(postgres_url),
                    ServiceConfig(robot_delay=0.0, restore_seconds=0, pairing_interval=0.1),
                    secret="s" * 32,
                )
                config = ClusterConfig(
                    name=name, lease_seconds=lease_seconds, heartbeat=0.25, call_timeout=2.0
                )
                node = ClusterNode(service, RedisBus(redis_url), config)
                await service.start()
                await node.start()
                nodes.append((service, node))
            await body(nodes)
        finally:
            for service, _node in nodes:
                await service.close()

    asyncio.run(main())


async def kill(node: ClusterNode) -> None:
    """As `kill -9` leaves it: no heartbeat, no bus, the leases not given up (they run out)."""
    await node.keeper.close(release=False)
    node.handing_over = True
    await node.bus.close()


async def paired(service: GameService, guest: GuestRow) -> dict[str, Any]:
    """Wait (as the page does, in short polls) until `guest` is paired."""
    while True:
        news = await service.seeking.wait_for_pairing(guest, 1.0)
        if news["state"] == "paired":
            return news
        assert news["state"] == "waiting", news


def test_seekers_on_two_processes_are_paired_by_the_one_running_the_pool(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, node_b) = nodes
        ann, bob = await a.guests.new_guest(), await b.guests.new_guest()
        first = await a.seeking.seek(ann, POOL)
        second = await b.seeking.seek(bob, POOL)
        assert first["state"] == second["state"] == "waiting"
        runs = [s for s, n in nodes if "pool" in n.keeper.held]
        assert len(runs) == 1  # one process runs the pool; the other keeps none of its own
        other = b if runs[0] is a else a
        assert not other.pool.seeks and not other.pool.by_guest
        news_a, news_b = await asyncio.wait_for(asyncio.gather(paired(a, ann), paired(b, bob)), 10)
        assert news_a["match_id"] == news_b["match_id"] is not None
        row = await a.store.get_match(news_a["match_id"])
        assert row is not None and {s.guest_id for s in row.seats} == {ann.id, bob.id}
        # Leaving and "a robot instead" reach the pool from either process too.
        cid = await b.guests.new_guest()
        await b.seeking.seek(cid, POOL)
        assert await a.seeking.stop_seeking(cid) is True and await b.seeking.stop_seeking(cid) is False
        await a.seeking.seek(cid, {**POOL, "preset": "hoyle"})
        robot = await b.seeking.robot_instead(cid)
        robot_row = await a.store.get_match(robot)
        assert robot_row is not None and robot_row.kind == "robot" and robot_row.seats[0].guest_id == cid.id
        # The client address travels with a forwarded seek: two of one address, one on each
        # process, never meet in a rated pool; a third of another address meets one of them.
        rated = {**POOL, "rated": True}
        dee, eve, fay = await a.guests.new_guest(), await b.guests.new_guest(), await b.guests.new_guest()
        await a.seeking.seek(dee, rated, "203.0.113.7")
        await b.seeking.seek(eve, rated, "203.0.113.7")
        assert await a.store.shared_addresses(dee.id, eve.id) == ["203.0.113.7"]
        await b.seeking.seek(fay, rated, "198.51.100.20")
        news = await asyncio.wait_for(paired(b, fay), 10)
        row = await a.store.get_match(news["match_id"])
        assert row is not None and row.rated
        met = {s.guest_id for s in row.seats} - {fay.id}
        assert met in ({dee.id}, {eve.id})
        left = eve if met == {dee.id} else dee
        assert (await runs[0].seeking.wait_for_pairing(left, 0.0))["state"] == "waiting"

    run_nodes(postgres_url, redis_server.url, body)


async def seeking(nodes: list[Node]) -> tuple[GuestRow, Node, Node]:
    """A guest seeking from the first process (which takes the pool's lease if nobody has it
    yet); the process running the pool, and the other one."""
    first, second = nodes
    guest = await first[0].guests.new_guest()
    await first[0].seeking.seek(guest, POOL)
    owner, other = (first, second) if "pool" in first[1].keeper.held else (second, first)
    return guest, owner, other


def test_a_killed_pool_process_is_replaced_and_the_pages_join_again(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        ann, (owner, owner_node), (survivor, survivor_node) = await seeking(nodes)
        await kill(owner_node)
        await until(lambda: "pool" in survivor_node.keeper.held)  # the lease ran out; no request
        # The new pool starts empty: a wait finds no seek, and the page joins again (home-compete.js).
        try:
            await survivor.seeking.wait_for_pairing(ann, 0.1)
        except Exception as exc:  # noqa: BLE001 - the service's NotFound, checked by its code
            assert getattr(exc, "code", None) == "not_found"
        else:
            raise AssertionError("the wait should be gone with the killed process")
        bob = await survivor.guests.new_guest()
        await survivor.seeking.seek(ann, POOL)
        await survivor.seeking.seek(bob, POOL)
        news_a, news_b = await asyncio.wait_for(
            asyncio.gather(paired(survivor, ann), paired(survivor, bob)), 10
        )
        assert news_a["match_id"] == news_b["match_id"] is not None
        # The killed process's pool (as it was when it stopped) pairs nobody: it runs no wave.
        assert all(seek.match_id is None for seek in owner.pool.by_guest.values())

    run_nodes(postgres_url, redis_server.url, body, lease_seconds=1.0)


def test_a_pairing_made_just_before_the_pool_process_dies_is_told_when_the_pages_join_again(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        ann, (owner, owner_node), (survivor, survivor_node) = await seeking(nodes)
        bob = await owner.guests.new_guest()
        await owner.seeking.seek(bob, POOL)
        # The pool pairs them and stores the match; its process dies before either page asks again.
        await until(lambda: all(owner.pool.by_guest[g.id].match_id for g in (ann, bob)))
        match_id = owner.pool.by_guest[ann.id].match_id
        await kill(owner_node)
        await until(lambda: "pool" in survivor_node.keeper.held)
        # Each page, finding its wait gone, joins again (home-compete.js): it is told its match.
        cid = await survivor.guests.new_guest()
        for guest in (ann, bob):
            news = await survivor.seeking.seek(guest, POOL)
            assert news["state"] == "paired" and news["match_id"] == match_id, news
            assert (await survivor.seeking.wait_for_pairing(guest, 0.1))["match_id"] == match_id
        assert (await survivor.seeking.seek(cid, POOL))["state"] == "waiting"  # nobody else is sent anywhere

    run_nodes(postgres_url, redis_server.url, body, lease_seconds=1.0)


class Page:
    """A tournament page's socket: keeps what it is sent, and whether it was closed to reconnect."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.dropped: str | None = None

    def send_text(self, text: str) -> None:
        self.messages.append(json.loads(text))

    def drop(self, reason: str) -> None:
        self.dropped = reason


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    async def loop() -> None:
        while not check():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(loop(), timeout)


def playing(url: str, tournament_id: str) -> list[list[str]]:
    """The people of each unfinished match of the tournament, as the database has them."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT m.id, s.guest_id FROM matches m JOIN match_seats s ON s.match_id = m.id"
                    " WHERE m.tournament_id = :t AND m.status <> 'over' AND s.guest_id IS NOT NULL"
                ),
                {"t": tournament_id},
            )
            seats: dict[str, list[str]] = {}
            for row in rows:
                seats.setdefault(row.id, []).append(row.guest_id)
            return list(seats.values())
    finally:
        engine.dispose()


def test_an_arenas_joins_on_both_processes_are_paired_once_and_it_moves_when_its_process_dies(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, node_b) = nodes
        creator = await a.guests.new_guest()
        arena = await a.tournaments.create(creator.id, {"name": "Both", "minutes": 30, "robots": False})
        assert f"tournament:{arena.id}" in node_a.keeper.held and arena.id not in b.tournaments.live
        # A page on b is fed by a through the tournament's channel.
        people = [await a.guests.new_guest() for _ in range(3)] + [
            await b.guests.new_guest() for _ in range(3)
        ]
        page = Page()
        relay = await b.tournaments.page(arena.id)
        relay.connect(page, people[3].id)
        await until(lambda: any(m["type"] == "tournament" for m in page.messages))
        for person in people[:3]:
            await a.tournaments.act(arena.id, "join", person)
        for person in people[3:]:
            state = await b.tournaments.act(arena.id, "join", person)
            assert state["me"]["joined"] is True
        assert arena.id not in b.tournaments.live  # b runs no wave of it
        await until(lambda: len(playing(postgres_url, arena.id)) == 3)
        pairs = playing(postgres_url, arena.id)
        assert sorted(g for pair in pairs for g in pair) == sorted(p.id for p in people)  # each once
        await until(lambda: any(m["type"] == "pairing" for m in page.messages))  # b's page hears
        state = await b.tournaments.state(arena.id, people[4].id)
        assert state["me"]["match_id"] is not None and state["players_ranked"] == 6

        # a dies: b takes the tournament over (and its matches) once the leases run out.
        stale = node_a.keeper.held[f"tournament:{arena.id}"]
        await kill(node_a)
        await until(lambda: arena.id in b.tournaments.live)
        await until(lambda: page.dropped is not None)  # its page reconnects, to b now
        moved = b.tournaments.live[arena.id]
        assert moved.current == arena.current and len(moved.players) == 6
        # A match ends at b: its two players are paired again there, nobody twice.
        match_id = next(iter(moved.current.values()))
        await until(lambda: match_id in b.live)
        assert await b.live[match_id].resign(0) is None
        await until(lambda: len(moved.matches) == 4)
        now = playing(postgres_url, arena.id)
        assert len(now) == 3 and sorted(g for pair in now for g in pair) == sorted(p.id for p in people)
        assert len(moved.matches) == len(set(moved.matches)) == 4
        # The dead process's lease fences the store: a wave it would still write is refused.
        late = a.new_match_row(
            kind="tourney",
            status="playing",
            rules=arena.row.rules,
            seats=(SeatRow(0, people[0].id), SeatRow(1, people[1].id)),
            tournament_id=arena.id,
        )
        with pytest.raises(LeaseLost):
            await a.store.create_matches([late], fence=stale)
        assert await a.store.get_match(late.id) is None
        # Nor a join, pause or withdrawal, nor its end: the stale process writes none of them.
        before = sorted(await a.store.tournament_players(arena.id), key=lambda p: p.guest_id)
        with pytest.raises(LeaseLost):
            await a.store.set_tournament_player(arena.id, replace(before[0], paused=True), fence=stale)
        with pytest.raises(LeaseLost):
            await a.store.set_tournament_status(arena.id, "finished", fence=stale)
        with pytest.raises(LeaseLost):
            await arena.set_state(people[0].id, withdrawn=True, paused=False)
        assert sorted(await a.store.tournament_players(arena.id), key=lambda p: p.guest_id) == before
        found = await a.store.get_tournament(arena.id)
        assert found is not None and found.status == "started"

    run_nodes(postgres_url, redis_server.url, body, lease_seconds=1.0)


def test_a_graceful_shutdown_hands_the_pool_and_a_tournament_over_without_waiting_for_the_leases(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, node_b) = nodes
        ann = await a.guests.new_guest()
        await a.seeking.seek(ann, POOL)
        arena = await a.tournaments.create(ann.id, {"name": "Handed", "minutes": 30, "robots": False})
        if "pool" not in node_a.keeper.held:  # b took the pool first: hand b's over instead
            a, node_a, b, node_b = b, node_b, a, node_a
            arena = await a.tournaments.create(ann.id, {"name": "Handed", "minutes": 30, "robots": False})
        page = Page()
        arena.connect(page, ann.id)
        await node_a.hand_over()
        assert page.dropped is not None  # its page reconnects, to b
        # b runs both long before a 60 s lease could run out.
        await until(lambda: "pool" in node_b.keeper.held and arena.id in b.tournaments.live)
        assert arena.id not in a.tournaments.live
        bob = await b.guests.new_guest()
        assert (await b.tournaments.act(arena.id, "join", bob))["me"]["joined"] is True
        assert (await b.seeking.seek(bob, POOL))["state"] == "waiting"

    run_nodes(postgres_url, redis_server.url, body, lease_seconds=60.0)


def test_a_tournament_counts_the_end_of_a_match_it_was_not_told_of(tmp_path: Path) -> None:
    """The word of a match's end may be lost on the bus: the tournament reads it from the database."""

    async def main() -> None:
        service = GameService(SqlStore(f"sqlite:///{tmp_path / 'r.sqlite3'}"), secret="s" * 32)
        await service.start()
        try:
            ann, bob = await service.guests.new_guest(), await service.guests.new_guest()
            arena = await service.tournaments.create(ann.id, {"name": "Lost word", "robots": False})
            for person in (ann, bob):
                await arena.join(person.id, person.name)
            await arena.wave()
            match_id = arena.current[ann.id]
            told: list[str] = []
            service.tournaments.match_over = lambda _t, m, _r, _f: told.append(m)  # type: ignore[method-assign]
            assert await service.live[match_id].resign(0) is None
            assert told == [match_id] and arena.current[ann.id] == match_id  # the word went nowhere
            del service.tournaments.match_over
            assert await service.tournaments.reconcile() == 1
            assert ann.id not in arena.current and bob.id not in arena.current
            assert arena.matches[match_id].status == "over"
            assert await service.tournaments.reconcile() == 0  # counted once
        finally:
            await service.close()

    asyncio.run(main())


def test_a_swiss_round_with_joins_on_both_processes_is_paired_once_by_its_process(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, _) = nodes
        people = [await a.guests.new_guest() for _ in range(2)] + [
            await b.guests.new_guest() for _ in range(2)
        ]
        swiss = await a.tournaments.create(
            people[0].id, {"format": "swiss", "name": "Both", "rounds": 2, "robots": False, "starts_in": 0.03}
        )
        for person in people[:2]:
            await a.tournaments.act(swiss.id, "join", person)
        for person in people[2:]:
            await b.tournaments.act(swiss.id, "join", person)
        assert swiss.id not in b.tournaments.live
        await until(lambda: swiss.row.round == 1, timeout=20)
        pairs = playing(postgres_url, swiss.id)
        assert len(pairs) == 2 and sorted(g for pair in pairs for g in pair) == sorted(p.id for p in people)
        state = await b.tournaments.state(swiss.id, people[3].id)
        assert state["tournament"]["round"] == 1 and state["me"]["match_id"] is not None

    run_nodes(postgres_url, redis_server.url, body)


def test_the_live_games_list_is_the_same_whichever_process_is_asked(
    postgres_url: str, redis_server: RedisServer
) -> None:
    """Matches run on both processes: each lists its own and gathers the other's, so a visitor sees
    every public match whichever process the page reaches; a robot match on either is never listed."""

    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, node_b) = nodes
        ann, bob = await a.guests.new_guest(), await b.guests.new_guest()
        await a.seeking.seek(ann, POOL)
        await b.seeking.seek(bob, POOL)
        news, _ = await asyncio.wait_for(asyncio.gather(paired(a, ann), paired(b, bob)), 10)
        pooled = news["match_id"]
        owner = a if pooled in a.live else b
        other = b if owner is a else a
        # A casual match of two strangers the other process runs (its quick pairing made elsewhere
        # and taken over, as after a failover): stored, then loaded there.
        cy, dee = await other.guests.new_guest(), await other.guests.new_guest()
        row = other.new_match_row(
            kind="online",
            status="playing",
            rules={"preset": "classic", "target": 100},
            seats=(SeatRow(0, cy.id), SeatRow(1, dee.id)),
        )
        await other.store.create_match(row)
        assert await other.get_live(row.id) is not None
        await other.create_robot_match(await other.guests.new_guest(), "novice", "classic")
        await owner.create_robot_match(await owner.guests.new_guest(), "novice", "classic")
        for service in (a, b):
            games = await service.live_games()
            assert sorted(g["id"] for g in games) == sorted([pooled, row.id])
            assert {p["id"] for g in games for p in g["players"]} == {ann.id, bob.id, cy.id, dee.id}
        # A process that is gone is left out after the call timeout; the asking one still answers.
        await asyncio.sleep(LIVE_KEPT)  # past the keeping time of the list gathered before
        await kill(node_b)
        assert [g["id"] for g in await a.live_games()] == [m for m in (pooled, row.id) if m in a.live]

    run_nodes(postgres_url, redis_server.url, body)
