"""An arena in the real service and store: pausing and resuming, standings kept up to date equal to
standings rebuilt from the database, pushes that carry only changes adding up to the whole state,
and two players who just met held back while someone else may come free."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from test_leaderboards import MIDNIGHT, Clock, people, run

from ginrummy.service import GameService
from ginrummy.service.tournaments.arena import REMATCH_HOLD, ArenaLive


class Page:
    """A tournament page's socket: every message it was sent, and the state they add up to."""

    def __init__(self) -> None:
        self.state: dict[str, Any] | None = None
        self.pushes = 0

    def send_text(self, text: str) -> None:
        message = json.loads(text)
        if message["type"] != "tournament":
            return
        self.pushes += 1
        self.state = absorb(self.state, message)


def absorb(state: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """What tournament.js does with a message: a whole state replaces the page's, a delta changes it."""
    if not message.get("delta") or state is None:
        return message
    lines = {line["id"]: {k: v for k, v in line.items() if k != "rank"} for line in state["standings"]}
    lines.update(message.get("lines", {}))
    order = message.get("order", [line["id"] for line in state["standings"]])
    return {
        **state,
        "now": message["now"],
        "players_ranked": message["players_ranked"],
        "standings": [{"rank": rank, **lines[guest]} for rank, guest in enumerate(order, start=1)],
        "tournament": message.get("tournament", state["tournament"]),
        "playing": message.get("playing", state["playing"]),
        "me": message["me"] if "me" in message else state["me"],
    }


async def decide(service: GameService, arena: ArenaLive, match_id: str, loser: int) -> None:
    """Both players move, then `loser` resigns; returns once the arena has counted the match."""
    live = await service.get_live(match_id)
    assert live is not None
    while not (live.moved(0) and live.moved(1)):
        seat = live.match.to_act
        assert seat is not None
        assert await live.act(seat, live.match.legal_actions()[0].to_json(), live.version) is None
    assert await live.resign(loser) is None
    for _ in range(500):  # the end reaches the arena in a task of its own
        if match_id in arena.table.counted:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"match {match_id} never reached the standings")


def match_of(arena: ArenaLive, guest_id: str) -> str:
    return arena.current[guest_id]


def test_a_paused_player_is_not_paired_keeps_its_standing_and_comes_back_on_resuming(
    tmp_path: Path,
) -> None:
    clock = Clock(MIDNIGHT + 3600)

    async def body(service: GameService) -> None:
        ann, bob, cy, dee = await people(service, "Ann", "Bob", "Cy", "Dee")
        arena = await service.tournaments.create(ann.id, {"minutes": 30, "robots": False})
        assert isinstance(arena, ArenaLive)
        for guest in (ann, bob, cy, dee):
            await arena.join(guest.id, guest.name)
        await arena.wave()
        assert len(set(arena.current.values())) == 2  # everyone plays
        first = match_of(arena, ann.id)
        seat = next(s.seat for s in arena.matches[first].seats if s.guest_id == ann.id)
        # Ann pauses during her match (so no wave can pair her again as it ends), then wins it:
        # 2 points. The others are paired as their matches end, she is not.
        await arena.set_state(ann.id, withdrawn=False, paused=True)
        await decide(service, arena, first, loser=1 - seat)
        other = next(m for m in set(arena.current.values()) if m != first)
        await decide(service, arena, other, loser=0)
        clock.now += REMATCH_HOLD + 1  # nobody waits for anyone any more
        await arena.wave()
        # Three players free, one pair: Ann is never one of them.
        assert ann.id not in arena.current and len(arena.current) == 2
        line = next(s for s in arena.standings if s.guest_id == ann.id)
        assert (line.score, line.played, line.sheet) == (2, 1, [2])  # her standing stays
        state = arena.state(ann.id)
        assert state["me"]["paused"] is True and state["me"]["joined"] is True
        assert state["me"]["match_id"] is None and state["me"]["line"]["score"] == 2
        assert next(x for x in state["standings"] if x["id"] == ann.id)["paused"] is True
        # Waves go on without her, however long she stays paused.
        clock.now += 60
        await arena.wave()
        assert ann.id not in arena.current
        # Pausing survives a restart: the row says so.
        row = await service.store.get_tournament(arena.id)
        assert row is not None
        again = ArenaLive(service, row)
        await again.load()
        assert again.players[ann.id].paused and ann.id not in again.current

        # Resuming puts her back: she is paired with the player left over.
        await arena.set_state(ann.id, withdrawn=False, paused=False)
        assert arena.state(ann.id)["me"]["paused"] is False
        clock.now += REMATCH_HOLD + 1
        await arena.wave()
        assert ann.id in arena.current and len(arena.current) == 4
        assert next(s for s in arena.standings if s.guest_id == ann.id).sheet == [2]

    run(f"sqlite:///{tmp_path / 'pause.sqlite3'}", clock, body)


def test_standings_kept_up_to_date_equal_standings_rebuilt_and_pushes_add_up_to_the_state(
    tmp_path: Path,
) -> None:
    clock = Clock(MIDNIGHT + 7200)

    async def body(service: GameService) -> None:
        players = await people(service, "Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
        arena = await service.tournaments.create(players[0].id, {"minutes": 30, "robots": False})
        assert isinstance(arena, ArenaLive)
        pages = {guest.id: Page() for guest in players}
        anonymous = Page()
        for guest in players:
            await arena.join(guest.id, guest.name)
            arena.connect(pages[guest.id], guest.id)
        arena.connect(anonymous, None)
        for number in range(12):
            clock.now += REMATCH_HOLD + 1
            await arena.wave()
            playing = sorted(set(arena.current.values()))
            await decide(service, arena, playing[number % len(playing)], loser=number % 2)
            arena._push()  # what the timer does: every page gets the changes since the last push
            for guest in players:
                assert _same(pages[guest.id].state, arena.state(guest.id)), guest.name
            assert _same(anonymous.state, arena.state(None))
        assert all(page.pushes >= 12 for page in pages.values())
        # Someone's match moved the standings: fire, streaks and performance among them.
        assert sum(s.played for s in arena.standings) == 24
        # Rebuilt from the database alone (a restart), the standings are the same, line for line.
        row = await service.store.get_tournament(arena.id)
        assert row is not None
        again = ArenaLive(service, row)
        await again.load()
        kept = [(s.guest_id, s.score, s.sheet, s.fire, s.performance) for s in arena.standings]
        rebuilt = [(s.guest_id, s.score, s.sheet, s.fire, s.performance) for s in again.standings]
        assert rebuilt == kept
        assert again.current == arena.current

    run(f"sqlite:///{tmp_path / 'kept.sqlite3'}", clock, body)


def test_two_players_who_just_met_wait_a_little_for_someone_else(tmp_path: Path) -> None:
    clock = Clock(MIDNIGHT + 3600)

    async def body(service: GameService) -> None:
        ann, bob, cy, dee = await people(service, "Ann", "Bob", "Cy", "Dee")
        arena = await service.tournaments.create(ann.id, {"minutes": 30, "robots": False})
        assert isinstance(arena, ArenaLive)
        for guest in (ann, bob, cy, dee):
            await arena.join(guest.id, guest.name)
        await arena.wave()
        first = match_of(arena, ann.id)
        pair = {g for g, m in arena.current.items() if m == first}
        await decide(service, arena, first, loser=0)
        await arena.wave()
        # The other match is still being played: its players may be free in a moment.
        assert not pair & set(arena.current)
        # Rebuilt from the database (a restart), the two are still waiting to be paired.
        row = await service.store.get_tournament(arena.id)
        assert row is not None
        again = ArenaLive(service, row)
        await again.load()
        assert pair <= set(again.waiting_since) and not pair & set(again.current)
        clock.now += REMATCH_HOLD + 1
        await arena.wave()
        # Nobody else came free: they meet again rather than wait on.
        assert pair <= set(arena.current) and len({arena.current[g] for g in pair}) == 1

    run(f"sqlite:///{tmp_path / 'hold.sqlite3'}", clock, body)


def _same(page: dict[str, Any] | None, state: dict[str, Any]) -> bool:
    """The page's state is the server's whole state (but for the clock reading)."""
    assert page is not None
    return {**page, "now": 0, "delta": None} == {**state, "now": 0, "delta": None}
