"""The Redis message bus (`storage/redis_bus.py`) once closed: a process killed in a test, or one
shutting down, may still be asked to publish, subscribe or count listeners. A closed bus answers
as a bus that is down and opens no connection again (one opened then would only be closed by the
garbage collector, with a warning)."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from cluster_helpers import RedisServer
from ginrummy.service.cluster.ports import BusDown
from ginrummy.storage.redis_bus import RedisBus


def test_a_closed_bus_is_down_and_opens_no_connection(redis_server: RedisServer) -> None:
    async def body() -> None:
        bus = RedisBus(redis_server.url)
        heard: list[str] = []
        await bus.subscribe("news", heard.append)
        await bus.start()
        assert bus.up
        assert await bus.listeners(["news"]) == {"news": 1}
        await bus.close()
        assert not bus.up
        with pytest.raises(BusDown):
            await bus.publish("news", "late")
        with pytest.raises(BusDown):
            await bus.listeners(["news"])
        bus.publish_soon("news", "late")
        await bus.subscribe("more", heard.append)
        await bus.unsubscribe("news")
        await asyncio.sleep(0.1)
        assert heard == []

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        asyncio.run(body())
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
