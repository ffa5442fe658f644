"""Calls between server processes over the bus: each process's inbox, calls, answers, questions to all.

Every process listens to its inbox `gr:p:<node>`. On it, as JSON:

- a call `{"id": N, "from": <caller>, "m": <subject>, "op": <op>, ...its arguments}`, the subject
  being the match (or tournament, or "pool") it is about; `id` 0 asks for no answer;
- an answer `{"re": N, "r": <answer>}`, to the caller's call N or to its question N;
- a question to every process is `{"id": N, "from": <caller>}` on a channel they all listen to,
  answered on the caller's inbox like a call.

A service call (the owner runs one of its `GameService` methods) is answered `{"ok": value}` or
`{"err": [code, status, message]}` (`service_answer`), and `Rpc.forward` gives the caller back
that value or raises that `ServiceError`. A call about a table is answered with its refusal as
`[code, message]`, or null (`relays`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import json
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ..errors import ServiceError, Unavailable
from ..ports import StoreError
from .ports import Bus, BusDown

__all__ = ["CallFailed", "Gathering", "Rpc", "inbox", "service_answer"]

log = logging.getLogger("ginrummy.cluster")

# Set while answering a forwarded call: it is never forwarded again (no call goes round in circles).
_answering = contextvars.ContextVar("answering", default=False)

#: A call (or question) and its arguments as it came in on the inbox.
Call = dict[str, Any]


def inbox(node: str) -> str:
    return f"gr:p:{node}"


class CallFailed(Exception):
    """The owner did not answer a call (gone, paused or cut off)."""


class Gathering:
    """The answers of every other process to one broadcast question, complete once all came."""

    __slots__ = ("answers", "done", "expected")

    def __init__(self) -> None:
        self.answers: list[Any] = []
        self.expected: int | None = None  # known once the question is sent
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def add(self, answer: Any) -> None:
        self.answers.append(answer)
        self._check()

    def expect(self, count: int) -> None:
        self.expected = count
        self._check()

    def _check(self) -> None:
        if self.expected is not None and len(self.answers) >= self.expected and not self.done.done():
            self.done.set_result(None)


async def service_answer(call: Call, run: Callable[[Call], Awaitable[Any]]) -> dict[str, Any]:
    """Run a service call forwarded here: {"ok": its value} or {"err": [code, status, message]}."""
    _answering.set(True)  # this task's own context: what it calls is not forwarded again
    try:
        return {"ok": await run(call)}
    except ServiceError as exc:
        return {"err": [exc.code, exc.status, exc.message]}
    except StoreError:
        log.exception("match %s: a forwarded %s failed", call.get("m"), call.get("op"))
        return {"err": ["unavailable", 503, "the server is busy; try again in a moment"]}


class Rpc:
    """The calls of one process (`name`) to the others, and theirs to it (answered by `serve`)."""

    def __init__(
        self,
        bus: Bus,
        name: str,
        *,
        timeout: float,
        serve: Callable[[Call], Awaitable[Any]],
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
    ) -> None:
        self.bus = bus
        self.name = name
        self.timeout = timeout
        self.serve = serve
        self.spawn = spawn
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._gatherings: dict[int, Gathering] = {}
        self._ids = itertools.count(1)

    def _call_text(self, call_id: int, subject: str, op: str, args: dict[str, Any]) -> str:
        return json.dumps({"id": call_id, "from": self.name, "m": subject, "op": op, **args})

    async def request(self, owner: str, subject: str, op: str, args: dict[str, Any]) -> Any:
        """Send a call to `owner`'s inbox and wait for its answer; `CallFailed` when none comes."""
        call_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        try:
            if not await self.bus.publish(inbox(owner), self._call_text(call_id, subject, op, args)):
                raise CallFailed("nobody listens")
            return await asyncio.wait_for(future, self.timeout)
        except BusDown as exc:
            raise CallFailed(str(exc)) from None
        except TimeoutError:
            raise CallFailed(f"no answer within {self.timeout:g} s") from None
        finally:
            self._calls.pop(call_id, None)

    async def send(self, owner: str, subject: str, op: str, args: dict[str, Any]) -> None:
        """Send a call that asks for no answer (lost when the bus is down)."""
        with contextlib.suppress(BusDown):
            await self.bus.publish(inbox(owner), self._call_text(0, subject, op, args))

    async def forward(self, owner: str, subject: str, op: str, args: dict[str, Any]) -> Any:
        """Have `owner` run the service call `op`: its value, or the `ServiceError` it raised."""
        if _answering.get():
            raise Unavailable("the table is moving between servers; try again in a moment", 1.0)
        try:
            reply = await self.request(owner, subject, op, args)
        except CallFailed as exc:
            log.warning("match %s: %s call to %s failed: %s", subject, op, owner, exc)
            raise Unavailable("the server of this table did not answer; try again in a moment", 1.0) from None
        if "err" in reply:
            code, status, message = reply["err"]
            error = ServiceError(message)
            error.code, error.status = str(code), int(status)
            raise error
        return reply["ok"]

    async def gather(self, channel: str) -> list[Any]:
        """Ask every other process listening to `channel`: the answers that came within the call
        timeout (a process that did not answer is left out). `BusDown` when nothing could be asked."""
        call_id = next(self._ids)
        gathering = self._gatherings[call_id] = Gathering()
        try:
            listeners = await self.bus.publish(channel, json.dumps({"id": call_id, "from": self.name}))
            gathering.expect(listeners - 1)  # every listener but this process answers
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(gathering.done, self.timeout)
        finally:
            del self._gatherings[call_id]
        return gathering.answers

    def answer(self, call: Call, answer: Any) -> None:
        """Answer a call or a question on its caller's inbox."""
        self.bus.publish_soon(inbox(call["from"]), json.dumps({"re": call["id"], "r": answer}))

    def on_inbox(self, text: str) -> None:
        data = json.loads(text)
        if "re" in data:
            gathering = self._gatherings.get(data["re"])
            if gathering is not None:
                gathering.add(data["r"])
                return
            future = self._calls.get(data["re"])
            if future is not None and not future.done():
                future.set_result(data["r"])
            return
        self.spawn(self._serve(data))

    async def _serve(self, call: Call) -> None:
        answer = await self.serve(call)
        if call["id"]:
            self.answer(call, answer)
