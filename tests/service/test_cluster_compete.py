"""Quick pairing and tournaments in a cluster, on a real PostgreSQL and a real Redis: one process runs
the pools and each tournament (it holds the lease), the others forward to it, and when it goes
another process takes over (the pool again empty, the tournament rebuilt from the database)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from cluster_helpers import RedisServer
from ginrummy.service import GameService, ServiceConfig
from ginrummy.service.cluster import ClusterConfig, ClusterNode
from ginrummy.service.ports import GuestRow
from ginrummy.storage import SqlStore
from ginrummy.storage.redis_bus import RedisBus

Node = tuple[GameService, ClusterNode]
POOL = {"preset": "classic", "target": 100, "rated": False}


def run_nodes(postgres_url: str, redis_url: str, body: Callable[[list[Node]], Awaitable[None]]) -> None:
    async def main() -> None:
        nodes: list[Node] = []
        try:
            for name in ("a", "b"):
                service = GameService(
                    SqlStore(postgres_url),
                    ServiceConfig(robot_delay=0.0, restore_seconds=0, pairing_interval=0.1),
                    secret="s" * 32,
                )
                config = ClusterConfig(name=name, lease_seconds=1.0, heartbeat=0.25, call_timeout=2.0)
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
        news = await service.wait_for_pairing(guest, 1.0)
        if news["state"] == "paired":
            return news
        assert news["state"] == "waiting", news


def test_seekers_on_two_processes_are_paired_by_the_one_running_the_pool(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, node_b) = nodes
        ann, bob = await a.new_guest(), await b.new_guest()
        first = await a.seek(ann, POOL)
        second = await b.seek(bob, POOL)
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
        cid = await b.new_guest()
        await b.seek(cid, POOL)
        assert await a.stop_seeking(cid) is True and await b.stop_seeking(cid) is False
        await a.seek(cid, {**POOL, "preset": "hoyle"})
        robot = await b.robot_instead(cid)
        robot_row = await a.store.get_match(robot)
        assert robot_row is not None and robot_row.kind == "robot" and robot_row.seats[0].guest_id == cid.id

    run_nodes(postgres_url, redis_server.url, body)


def test_a_killed_pool_process_is_replaced_and_the_pages_join_again(
    postgres_url: str, redis_server: RedisServer
) -> None:
    async def body(nodes: list[Node]) -> None:
        (a, node_a), (b, node_b) = nodes
        ann = await a.new_guest()
        await a.seek(ann, POOL)  # from a: a takes the pool's lease if nobody has it yet
        owner, owner_node, survivor = (a, node_a, b) if "pool" in node_a.keeper.held else (b, node_b, a)
        await kill(owner_node)

        async def taken() -> None:
            while "pool" not in (node_b if owner_node is node_a else node_a).keeper.held:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(taken(), 10)  # after the lease ran out, without any request
        # The new pool starts empty: a wait finds no seek, and the page joins again (home-compete.js).
        try:
            await survivor.wait_for_pairing(ann, 0.1)
        except Exception as exc:  # noqa: BLE001 - the service's NotFound, checked by its code
            assert getattr(exc, "code", None) == "not_found"
        else:
            raise AssertionError("the wait should be gone with the killed process")
        bob = await survivor.new_guest()
        await survivor.seek(ann, POOL)
        await survivor.seek(bob, POOL)
        news_a, news_b = await asyncio.wait_for(
            asyncio.gather(paired(survivor, ann), paired(survivor, bob)), 10
        )
        assert news_a["match_id"] == news_b["match_id"] is not None
        # The killed process's pool (as it was when it stopped) pairs nobody: it runs no wave.
        assert all(seek.match_id is None for seek in owner.pool.by_guest.values())

    run_nodes(postgres_url, redis_server.url, body)
