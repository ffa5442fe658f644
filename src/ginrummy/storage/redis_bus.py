"""The cluster's message bus on Redis pub/sub (redis-py's asyncio client), reconnecting by itself.

One subscriber connection carries every channel this process listens to; one publisher task sends
what is queued, in order, in pipelines. When Redis goes away, queued messages are dropped (the bus
is at most once), the subscriber reconnects with a growing pause, subscribes to every channel
again and tells the cluster layer, which makes the pages of tables it relays reconnect for a
fresh state. Redis never holds anything the database does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from ..service.cluster.ports import BusDown

__all__ = ["RedisBus"]

log = logging.getLogger("ginrummy.cluster")

_PIPELINE = 256  # most messages sent in one round trip


class RedisBus:
    """`service.cluster.ports.Bus` on one Redis server (`redis://host:port/db`)."""

    def __init__(self, url: str, *, timeout: float = 2.0) -> None:
        self.url = url
        # Commands fail after `timeout` seconds instead of hanging on a Redis that does not answer.
        self._client = aioredis.Redis.from_url(
            url, decode_responses=True, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        # The subscriber waits for messages as long as it likes: no socket timeout of its own.
        self._subscriber = aioredis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=timeout)
        self._pubsub: aioredis.client.PubSub | None = None
        self._handlers: dict[str, Callable[[str], None]] = {}
        self._outbox: deque[tuple[str, str, asyncio.Future[int] | None]] = deque()
        self._wake = asyncio.Event()
        self._reconnected: list[Callable[[], Awaitable[None]]] = []
        self._tasks: list[asyncio.Task[None]] = []
        self.up = False
        # Closed for good: every use after `close` fails as a bus that is down, and none opens a
        # connection again (one opened then would be left for the garbage collector).
        self._closed = False

    async def start(self) -> None:
        await self._connect()  # the first connection must work: a wrong REDIS_URL stops the server
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read_forever()), loop.create_task(self._send_forever())]

    async def close(self) -> None:
        self._closed = True
        self.up = False
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._fail_outbox()
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]
        for client in (self._client, self._subscriber):
            with contextlib.suppress(RedisError, OSError):
                await client.aclose()

    # -- subscribing -----------------------------------------------------------

    async def _connect(self) -> None:
        pubsub = self._subscriber.pubsub(ignore_subscribe_messages=True)
        try:
            await pubsub.ping()
            if self._handlers:
                await pubsub.subscribe(*self._handlers)
        except BaseException:  # refused, or the bus closed meanwhile: its connection goes too
            with contextlib.suppress(RedisError, OSError):
                await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]
            raise
        self._pubsub = pubsub
        self.up = True

    async def subscribe(self, channel: str, handler: Callable[[str], None]) -> None:
        self._handlers[channel] = handler
        if self._pubsub is not None:
            # Only sends the command; the reader task sees the confirmation. While Redis is down
            # the reader subscribes to every channel again when it reconnects.
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.subscribe(channel)

    async def unsubscribe(self, channel: str) -> None:
        if self._handlers.pop(channel, None) is not None and self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.unsubscribe(channel)

    async def _read_forever(self) -> None:
        pause = 0.1
        while True:
            pubsub = self._pubsub
            try:
                if pubsub is None:
                    await self._connect()
                    pause = 0.1
                    log.warning("the message bus is back (%s)", self.url)
                    for callback in list(self._reconnected):
                        try:
                            await callback()
                        except Exception:
                            log.exception("a bus reconnect callback failed")
                    continue
                message = await pubsub.get_message(timeout=1.0)
            except (RedisError, OSError) as exc:
                if pubsub is not None:
                    log.warning("the message bus is down (%s): %s", self.url, exc)
                    self.up = False
                    self._pubsub = None
                    with contextlib.suppress(RedisError, OSError):
                        await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]
                await asyncio.sleep(pause)
                pause = min(2.0, pause * 2)
                continue
            if message is None or message.get("type") != "message":
                continue
            handler = self._handlers.get(message["channel"])
            if handler is not None:
                try:
                    handler(message["data"])
                except Exception:
                    log.exception("a bus message on %s could not be handled", message["channel"])

    def on_reconnect(self, callback: Callable[[], Awaitable[None]]) -> None:
        self._reconnected.append(callback)

    # -- publishing ------------------------------------------------------------

    def publish_soon(self, channel: str, text: str) -> None:
        if self._closed:
            return  # at most once, as when the bus is down
        self._outbox.append((channel, text, None))
        self._wake.set()

    async def publish(self, channel: str, text: str) -> int:
        if self._closed:
            raise BusDown("the message bus is closed")
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._outbox.append((channel, text, future))
        self._wake.set()
        return await future

    async def _send_forever(self) -> None:
        outbox = self._outbox
        while True:
            await self._wake.wait()
            self._wake.clear()
            while outbox:
                batch = [outbox.popleft() for _ in range(min(len(outbox), _PIPELINE))]
                try:
                    async with self._client.pipeline(transaction=False) as pipe:
                        for channel, text, _ in batch:
                            pipe.publish(channel, text)
                        counts = await pipe.execute()
                except (RedisError, OSError) as exc:
                    # At most once: what could not be sent is dropped; pages resync on reconnect.
                    log.warning("the message bus could not send %d messages: %s", len(batch), exc)
                    for _, _, future in batch:
                        if future is not None and not future.done():
                            future.set_exception(BusDown(f"the message bus is unreachable: {exc}"))
                    self._fail_outbox()
                    break
                for (_, _, future), count in zip(batch, counts, strict=True):
                    if future is not None and not future.done():
                        future.set_result(int(count))

    def _fail_outbox(self) -> None:
        while self._outbox:
            _, _, future = self._outbox.popleft()
            if future is not None and not future.done():
                future.set_exception(BusDown("the message bus is unreachable"))

    async def listeners(self, channels: Iterable[str]) -> dict[str, int]:
        names = list(channels)
        if not names:
            return {}
        if self._closed:
            raise BusDown("the message bus is closed")
        try:
            counts = await self._client.pubsub_numsub(*names)
        except (RedisError, OSError) as exc:
            raise BusDown(f"the message bus is unreachable: {exc}") from None
        return {str(name): int(count) for name, count in counts}
