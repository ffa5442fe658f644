"""Test helpers for the bigger tables: seat people and robots at any game through the service, play it
to the end with simple clients, and keep every text each seat (and a spectator) was sent."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from dataclasses import dataclass, field
from typing import Any

from ginrummy.rules import CardSet, min_deadwood
from ginrummy.service import GameService, GuestRow, LiveMatch, NotFinished

LEVELS = ("novice", "casual", "skilled", "advanced", "expert")


class Recorder:
    """A socket that keeps every text it is sent, and wakes the driver."""

    def __init__(self, wake: asyncio.Event) -> None:
        self.texts: list[str] = []
        self.wake = wake
        self.latest: str | None = None  # the last state text

    def send_text(self, text: str) -> None:
        self.texts.append(text)
        if text.startswith('{"type":"state"'):
            self.latest = text
        self.wake.set()


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A quick client for every game: goes out, knocks and melds when it can, draws mostly from the stock."""
    legal = view["legal"]
    kinds = {a["type"] for a in legal}
    enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
    if enders:
        return rng.choice(enders)
    if "meld" in kinds or "layoff" in kinds:
        hand = view["hand"]
        out = [
            a
            for a in legal
            if (a["type"] == "meld" and len(a["cards"]) == len(hand))
            or (a["type"] == "layoff" and len(hand) == 1)
        ]
        if out:
            return out[0]
        lays = [a for a in legal if a["type"] in ("meld", "layoff")]
        if rng.random() < 0.7:
            return rng.choice(lays)
    draws = [a for a in legal if a["type"] == "draw"]
    if draws and rng.random() < 0.85:
        stock = [a for a in draws if a["source"] == "stock"]
        if stock:
            return stock[0]
    discards = [a for a in legal if a["type"] == "discard"]
    if discards and view.get("game") is None and rng.random() < 0.8:
        hand = CardSet(view["hand"])
        scored = [(min_deadwood(hand - CardSet([a["card"]])), a) for a in discards]
        best = min(score for score, _ in scored)
        return rng.choice([a for score, a in scored if score == best])
    if discards and rng.random() < 0.6:
        return rng.choice(discards)
    return rng.choice(legal)


def seat_view(view: dict[str, Any]) -> dict[str, Any]:
    """The part of a view a client decides on: a Gin table's own hand as a two-player-like view."""
    if view.get("game") in ("gin3", "gin4_teams"):
        for table in view["tables"]:
            if view["seat"] in table["players"]:
                return {"legal": view["legal"], "hand": table["hand"]}
    return view


@dataclass
class Table:
    """A game being played at the service: the live match, its people and what each was sent."""

    service: GameService
    live: LiveMatch
    guests: dict[int, GuestRow]  # the seats people sit in
    code: str | None
    wake: asyncio.Event
    sockets: dict[int, list[Recorder]] = field(default_factory=dict)
    watcher: Recorder | None = None
    late_watcher: Recorder | None = None  # a spectator who arrived while the game was being played
    http: dict[int, list[str]] = field(default_factory=dict)  # what each person fetched, as JSON text

    def texts(self, seat: int) -> list[str]:
        return [text for sock in self.sockets.get(seat, []) for text in sock.texts]

    def connect(self, seat: int) -> Recorder:
        sock = Recorder(self.wake)
        self.sockets.setdefault(seat, []).append(sock)
        self.live.connect(seat, sock)
        return sock

    async def fetch(self, seat: int) -> None:
        """What a person may fetch over HTTP while the game runs: the room link, My matches, the replay."""
        guest = self.guests[seat]
        got = self.http.setdefault(seat, [])
        if self.code is not None:
            got.append(json.dumps(await self.service.rooms.room_info(guest, self.code)))
        got.append(json.dumps(await self.service.history.my_matches(guest)))
        if self.live.status != "over":
            try:
                await self.service.history.replay(self.live.id)
            except NotFinished:
                pass
            else:
                raise AssertionError("the replay of an unfinished game opened")


async def seat_table(
    service: GameService, rules: Any, people: int, levels: list[str], *, turn_seconds: Any = 0
) -> Table:
    """`people` people (the first creates, the others join by the link) and robots of `levels` in the
    remaining seats (a robot match when one person plays alone)."""
    host = await service.guests.rename(await service.guests.new_guest(), "Host")
    code = None
    if people == 1:
        match_id = await service.create_robot_match(host, None, rules, levels=levels)
    else:
        seats: list[Any] = ["friend"] * (people - 1) + [{"robot": level} for level in levels]
        code, match_id = await service.rooms.create_room(host, rules, turn_seconds, seats=seats)
    live = await service.get_live(match_id)
    assert live is not None
    guests = {0: host}
    for n in range(1, people):
        friend = await service.guests.rename(await service.guests.new_guest(), f"Friend {n}")
        assert code is not None
        await service.rooms.join_room(friend, code)
        seat = live.seat_of(friend.id)
        assert seat is not None
        guests[seat] = friend
    return Table(service, live, guests, code, asyncio.Event())


async def play_to_end(
    table: Table,
    rng: random.Random,
    *,
    reconnects: bool = True,
    watch: bool = True,
    late_watch: int | None = None,
) -> None:
    """Connect every person, play their moves until the game is over; now and then a person leaves
    for a while (a stand-in robot may play for them) and comes back, and fetches what a page fetches.
    `watch`: a spectator watches from the start; `late_watch`: another arrives at the first step
    that starts with the table at that version or later (counted in versions, not steps, so a
    game that robots and stand-ins play quickly still gets its late spectator before it ends)."""
    live = table.live
    humans = sorted(table.guests)
    for seat in humans:
        table.connect(seat)
    if watch:
        table.watcher = Recorder(table.wake)
        live.watch(table.watcher)
    acted = dict.fromkeys(humans, -1)
    away: dict[int, int] = {}  # seat -> the step it comes back at
    leave_at = {seat: rng.randrange(3, 40) for seat in humans if reconnects and rng.random() < 0.6}
    fetch_at = {seat: rng.randrange(2, 30) for seat in humans}
    steps = 0
    last_version, still = live.version, 0
    while live.status != "over":
        steps += 1
        table.wake.clear()
        if late_watch is not None and table.late_watcher is None and live.version >= late_watch:
            table.late_watcher = Recorder(table.wake)
            live.watch(table.late_watcher)
        for seat in humans:
            if seat in away:
                if steps >= away[seat]:
                    del away[seat]
                    table.connect(seat)
                continue
            if leave_at.get(seat) == steps:
                live.disconnect(seat, table.sockets[seat][-1])
                away[seat] = steps + rng.randrange(2, 8)
                continue
            if fetch_at.get(seat) == steps:
                await table.fetch(seat)
            text = table.sockets[seat][-1].latest
            if text is None:
                continue
            state = json.loads(text)
            view = state["view"]
            if view is None or not view["legal"] or state["version"] <= acted[seat] or state["result"]:
                continue
            acted[seat] = state["version"]
            refused = await live.act(seat, choose(seat_view(view), rng), state["version"])
            assert refused is None or refused[0] == "stale", refused
        if live.status == "over":
            break
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(table.wake.wait(), 0.05)
        if live.version == last_version:
            still += 1
            assert still < 400, f"the game stopped at version {live.version}"
        else:
            last_version, still = live.version, 0
    # The status is "over" from the moment the last move is applied; its end is stored before the
    # lock is let go (and before any seat is told), so what reads the database next sees it.
    async with live.lock:
        pass
    for seat in humans:
        await table.fetch(seat)
