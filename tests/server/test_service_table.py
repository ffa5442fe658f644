"""The service behind the table page: turn clocks that run out, the grace countdown, quick reactions,
rematches both players accept, and what a room link shows before joining."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from server_helpers import pick
from test_service_clock import FakeSocket, room_of_two, with_service

from ginrummy.service import GameService, LiveMatch, NotFound
from ginrummy.service.live import REACTION_BURST, REACTIONS, TIMEOUTS_GONE


def test_two_clocks_run_out_in_a_row_and_the_player_counts_as_gone_until_back(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        live, _guests = await room_of_two(service, turn_seconds=0.3)
        sockets = [FakeSocket(), FakeSocket()]
        for seat in (0, 1):
            live.connect(seat, sockets[seat])
        idle = live.match.to_act
        assert idle is not None
        other = 1 - idle
        # The first clock runs out: a move is made for the idle player and both are told.
        first = await sockets[other].wait_for(lambda m: m["version"] == 1, timeout=5)
        assert first["match"]["players"][idle]["timeouts"] == 1
        assert not first["match"]["players"][idle]["autoplay"]
        assert sockets[idle].state["match"]["players"][idle]["timeouts"] == 1
        # The idle player is still to act (draw, then discard) or plays the next offer: the second
        # clock of theirs that runs out makes them gone, and from then on the stand-in moves at once.
        gone = await sockets[other].wait_for(
            lambda m: m["match"]["players"][idle]["timeouts"] >= TIMEOUTS_GONE, timeout=10
        )
        assert gone["match"]["players"][idle]["autoplay"] is True
        loop = asyncio.get_running_loop()
        started = loop.time()
        await sockets[other].wait_for(
            lambda m: bool(m["view"]["legal"]) and m["version"] > gone["version"], timeout=10
        )
        # The other player is not kept waiting for another clock (0.3 s) for each of the idle one's moves.
        assert live.timeouts[idle] >= TIMEOUTS_GONE
        # "I'm back": the stand-in stops; the player has a clock of their own again.
        live.back(idle)
        back = sockets[other].state
        assert (
            back["match"]["players"][idle]["timeouts"] == 0 and not back["match"]["players"][idle]["autoplay"]
        )
        assert loop.time() - started < 10

    with_service(tmp_path, body)


def test_a_move_of_the_player_resets_the_count_of_clocks_run_out(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        live, _guests = await room_of_two(service, turn_seconds=1.0)
        sockets = [FakeSocket(), FakeSocket()]
        for seat in (0, 1):
            live.connect(seat, sockets[seat])
        idle = live.match.to_act
        assert idle is not None
        state = await sockets[idle].wait_for(
            lambda m: (
                m["version"] >= 1
                and bool(m["view"]["legal"])
                and m["match"]["players"][idle]["timeouts"] == 1
            ),
            timeout=10,
        )
        assert await live.act(idle, state["view"]["legal"][0], state["version"]) is None
        assert live.timeouts[idle] == 0 and sockets[1 - idle].state["match"]["players"][idle]["timeouts"] == 0

    with_service(tmp_path, body)


def test_the_grace_countdown_is_sent_and_a_timeout_is_not_counted_for_a_player_who_left(
    tmp_path: Path,
) -> None:
    async def body(service: GameService) -> None:
        live, _guests = await room_of_two(service, turn_seconds=60)
        sockets = [FakeSocket(), FakeSocket()]
        for seat in (0, 1):
            live.connect(seat, sockets[seat])
        absent = live.match.to_act
        assert absent is not None
        assert sockets[1 - absent].state["match"]["players"][absent]["autoplay_at"] is None
        before = service.clock()
        live.disconnect(absent, sockets[absent])
        seen = await sockets[1 - absent].wait_for(lambda m: not m["match"]["players"][absent]["connected"])
        at = seen["match"]["players"][absent]["autoplay_at"]
        # The robot steps in when the grace ends, long before the 60 s turn clock: that is the countdown.
        assert at == pytest.approx(before + 0.3, abs=0.2) and at < seen["match"]["turn_deadline"]
        moved = await sockets[1 - absent].wait_for(lambda m: m["version"] >= 1, timeout=5)
        assert moved["match"]["players"][absent]["autoplay"] is True
        assert moved["match"]["players"][absent]["timeouts"] == 0

    with_service(tmp_path, body, grace_seconds=0.3)


def test_reactions_reach_both_players_from_a_fixed_set_and_are_rate_limited(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        now = [1000.0]
        service.clock = lambda: now[0]
        live, _guests = await room_of_two(service)
        sockets = [FakeSocket(), FakeSocket()]
        for seat in (0, 1):
            live.connect(seat, sockets[seat])
        assert live.react(0, "gg") is None
        for sock in sockets:
            assert sock.messages[-1] == {"type": "reaction", "seat": 0, "emote": "gg"}
        # No free text: anything outside the set is refused and nobody hears of it.
        for bad in ("you suck", "", None, 3, ["gg"]):
            refused = live.react(0, bad)
            assert refused is not None and refused[0] == "bad_message"
        assert sum(m["type"] == "reaction" for m in sockets[1].messages) == 1
        # A burst, then one every two seconds.
        for _ in range(REACTION_BURST - 1):
            assert live.react(0, "wow") is None
        assert live.react(0, "wow") == ("rate_limited", "too many reactions: wait a moment")
        assert live.react(1, "hello") is None  # the other seat has its own allowance
        now[0] += 2.0
        assert live.react(0, "thanks") is None
        assert live.react(0, "thanks") is not None
        assert set(REACTIONS) >= {"hello", "gg", "thanks"}

    with_service(tmp_path, body)


async def finish(live: LiveMatch) -> None:
    """Play the match to its end with random legal moves (knocking whenever allowed)."""
    rng = random.Random(5)
    while live.status != "over":
        seat = live.match.to_act
        assert seat is not None
        action = pick([a.to_json() for a in live.match.view(seat).legal], rng)
        assert await live.act(seat, action, live.version) is None


def test_a_rematch_between_two_people_waits_until_both_accept(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        live, (alice, bob) = await room_of_two(service)
        await finish(live)
        old = [FakeSocket(), FakeSocket()]
        for seat in (0, 1):
            live.connect(seat, old[seat])
        rematch_id = await service.rooms.rematch(bob, live.id)
        fresh = await service.get_live(rematch_id)
        assert fresh is not None and fresh.status == "waiting"
        sock = FakeSocket()
        fresh.connect(1, sock)
        players = sock.state["match"]["players"]
        assert players[1]["name"] == bob.name and players[0]["kind"] is None
        assert players[0]["invited"] == alice.name  # "waiting for Alice to accept"
        assert sock.state["view"] is None  # nothing is dealt before both sit down
        # The old table tells Alice a rematch is asked for.
        assert old[0].state["match"]["rematch_id"] == rematch_id
        # Nobody else can take Alice's seat, and the room link no longer leads there.
        carol = await service.guests.new_guest()
        with pytest.raises(Exception, match="only the players"):
            await service.rooms.rematch(carol, live.id)
        # Alice accepts: both seated, the match starts.
        assert await service.rooms.rematch(alice, live.id) == rematch_id
        assert fresh.status == "playing" and fresh.seat_of(alice.id) == 0 and fresh.seat_of(bob.id) == 1
        started = await sock.wait_for(lambda m: m["match"]["status"] == "playing")
        assert started["match"]["players"][0]["name"] == alice.name
        # Pressing again changes nothing.
        assert await service.rooms.rematch(alice, live.id) == rematch_id and fresh.version == 0

    with_service(tmp_path, body)


def test_a_rematch_survives_a_restart_still_waiting_for_the_friend(tmp_path: Path) -> None:
    state: dict[str, str] = {}

    async def first(service: GameService) -> None:
        live, (alice, bob) = await room_of_two(service)
        await finish(live)
        state.update(old=live.id, alice=alice.id, bob=bob.id, name=alice.name)
        state["rematch"] = await service.rooms.rematch(bob, live.id)

    async def second(service: GameService) -> None:
        fresh = await service.get_live(state["rematch"])
        assert fresh is not None and fresh.status == "waiting"
        assert fresh.seats[0].invited == state["name"] and fresh.seat_of(state["bob"]) == 1
        alice = await service.guests.guest(state["alice"])
        assert alice is not None
        assert await service.rooms.rematch(alice, state["old"]) == state["rematch"]
        assert fresh.status == "playing"

    with_service(tmp_path, first)
    with_service(tmp_path, second)


def test_a_room_link_shows_who_invites_and_whether_a_seat_is_free(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        alice = await service.guests.rename(await service.guests.new_guest(), "Alice")
        bob = await service.guests.new_guest()
        code, match_id = await service.rooms.create_room(alice, {"preset": "hoyle", "target": 150}, 90)
        info = await service.rooms.room_info(None, code.lower())
        assert info["host"] == "Alice" and info["status"] == "waiting" and not info["full"]
        assert info["rules"]["preset"] == "hoyle" and info["rules"]["target"] == 150  # hoyle, to 150
        assert info["turn_seconds"] == 90 and info["match_id"] is None and not info["seated"]
        await service.rooms.join_room(bob, code)
        assert (await service.rooms.room_info(bob, code))["match_id"] == match_id
        carol = await service.guests.new_guest()
        assert (await service.rooms.room_info(carol, code))["full"] is True
        with pytest.raises(NotFound):
            await service.rooms.room_info(None, "ZZZZZZ")

    with_service(tmp_path, body)
