"""The match WebSocket: state messages, actions, every bad message, seat theft and reconnects."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
import websockets
from server_helpers import Guest, Table, live_server, new_guest, pick, run, test_settings


async def two_players(host: str, **room: Any) -> tuple[Guest, Guest, str, Table, Table]:
    """A private room with both seats taken and both players connected, at their first states."""
    alice, bob = await new_guest(host), await new_guest(host)
    created = await alice.room(**room)
    status, joined = await bob.join(created["code"])
    assert status == 200 and joined["match_id"] == created["match_id"]
    a, b = await alice.connect(created["match_id"]), await bob.connect(created["match_id"])
    for table in (a, b):
        await table.until(
            lambda m: (
                m["type"] == "state"
                and m["match"]["players"][0]["connected"]
                and m["match"]["players"][1]["connected"]
            )
        )
    return alice, bob, created["match_id"], a, b


def to_act(a: Table, b: Table) -> tuple[Table, Table]:
    """(the table whose turn it is, the other one)."""
    assert a.state is not None and b.state is not None
    return (a, b) if a.state["view"]["legal"] else (b, a)


def test_a_seated_player_gets_the_state_at_once(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        match_id = await guest.robot_match("casual")
        table = await guest.connect(match_id)
        state = await table.until(lambda m: m["type"] == "state")
        assert state["match"]["id"] == match_id and state["match"]["seat"] == 0
        assert state["match"]["status"] == "playing" and state["match"]["kind"] == "robot"
        assert [p["kind"] for p in state["match"]["players"]] == ["human", "robot"]
        assert state["match"]["players"][1]["level"] == "casual"
        assert state["match"]["turn_deadline"] is None  # no clock against robots
        assert len(state["match"]["commitment"]) == 64 and int(state["match"]["commitment"], 16) >= 0
        view = state["view"]
        assert view["seat"] == 0 and view["hand_number"] == 1 and len(view["hand"]) in (10, 11)
        assert state["last_hand"] is None and state["result"] is None
        # Robots answer at once in tests, so the table waits for this player now.
        state = await table.my_turn()
        assert state["view"]["legal"] and state["view"]["phase"] in ("offer", "draw")

    run(body)


def test_an_accepted_action_comes_back_as_the_next_version(host: str) -> None:
    async def body() -> None:
        _alice, _bob, _id, a, b = await two_players(host)
        mover, other = to_act(a, b)
        assert mover.state is not None
        version = mover.state["version"]
        action = mover.state["view"]["legal"][0]
        await mover.act(action, version=version)
        mine = await mover.state_at_least(version + 1)
        theirs = await other.state_at_least(version + 1)
        assert mine["version"] == theirs["version"] == version + 1
        assert mine["view"]["history"][-1]["action"]["type"] == action["type"]
        assert theirs["view"]["history"][-1] == {
            k: v
            for k, v in mine["view"]["history"][-1].items()
            if k != "card" or action["type"] != "draw" or action.get("source") == "discard"
        }

    run(body)


BAD_MESSAGES: list[tuple[Any, str]] = [
    ("this is not json", "bad_message"),
    ("[1, 2, 3]", "bad_message"),
    ({"no": "type"}, "bad_message"),
    ({"type": "dance"}, "bad_message"),
    ({"type": "action"}, "bad_message"),
    ({"type": "action", "action": {"type": "fly"}}, "bad_message"),
    ({"type": "action", "action": {"type": "discard", "card": "ZZ"}}, "bad_message"),
    ({"type": "action", "action": "pass"}, "bad_message"),
    ({"type": "action", "action": {"type": "pass"}, "version": "seven"}, "bad_message"),
    ({"type": "action", "action": {"type": "pass"}, "version": True}, "bad_message"),
    (b"\x00\x01binary", "bad_message"),
    ("x" * 5000, "too_large"),
    (json.dumps({"type": "ping", "pad": "é" * 2100}), "too_large"),  # 2.1k characters, 4.2 KiB
    (b"y" * 5000, "too_large"),
]


def test_every_bad_message_gets_a_clear_error_and_changes_nothing(host: str) -> None:
    async def body() -> None:
        _alice, _bob, _id, a, b = await two_players(host)
        mover, other = to_act(a, b)
        assert mover.state is not None
        before = mover.state
        for payload, code in BAD_MESSAGES:
            await mover.send(payload)
            error = await mover.error()
            assert error["code"] == code, (payload, error)
            assert error["message"] and isinstance(error["message"], str)
        # Nothing changed, nobody heard anything, and the socket is still open.
        await mover.send({"type": "ping"})
        assert await mover.until(lambda m: m["type"] != "error") == {"type": "pong"}
        assert mover.state == before
        assert await other.quiet(0.2) == []
        await mover.act(before["view"]["legal"][0], version=before["version"])
        assert (await mover.state_at_least(before["version"] + 1))["version"] == before["version"] + 1

    run(body)


def test_illegal_out_of_turn_and_stale_actions_are_refused(host: str) -> None:
    async def body() -> None:
        _alice, _bob, _id, a, b = await two_players(host)
        mover, waiter = to_act(a, b)
        assert mover.state is not None and waiter.state is not None
        version = mover.state["version"]
        await waiter.act(mover.state["view"]["legal"][0], version=version)
        assert (await waiter.error())["code"] == "not_your_turn"
        # The first upcard is on offer: discarding is not allowed yet.
        card = mover.state["view"]["hand"][0]
        await mover.act({"type": "discard", "card": card}, version=version)
        error = await mover.error()
        assert error["code"] == "illegal_action" and "offered" in error["message"]
        await mover.act({"type": "knock", "card": card})
        assert (await mover.error())["code"] == "illegal_action"
        await mover.act(mover.state["view"]["legal"][0], version=version - 1 if version else version + 5)
        assert (await mover.error())["code"] == "stale"
        assert await waiter.quiet(0.2) == []
        assert mover.state["version"] == version

    run(body)


def test_a_card_not_in_hand_is_refused_without_saying_who_holds_it(host: str) -> None:
    async def body() -> None:
        _alice, _bob, _id, a, b = await two_players(host)
        mover, _waiter = to_act(a, b)
        assert mover.state is not None
        # Draw, then try to discard a card the player does not hold.
        await mover.act(
            {"type": "draw", "source": "discard"}
            if mover.state["view"]["phase"] == "offer"
            else {"type": "draw", "source": "stock"}
        )
        state = await mover.state_at_least(mover.state["version"] + 1)
        mine = set(state["view"]["hand"])
        stranger = next(
            c
            for c in ("AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC")
            if c not in mine
        )
        await mover.act({"type": "discard", "card": stranger})
        error = await mover.error()
        assert error["code"] == "illegal_action" and error["message"] == f"{stranger} is not in your hand"

    run(body)


def test_nobody_can_sit_in_or_read_another_seat(host: str) -> None:
    async def body() -> None:
        owner, thief = await new_guest(host), await new_guest(host)
        match_id = await owner.robot_match()
        assert owner.cookie is not None and thief.cookie is not None
        owner_id = owner.cookie.split(".")[0]
        thief_id = thief.cookie.split(".")[0]
        attempts = {
            "another guest's own cookie": thief.cookie,
            "forged signature": owner_id + "." + "0" * 64,
            "signature of another id": owner_id + "." + thief.cookie.split(".")[1],
            "id without signature": owner_id,
            "tampered id": thief_id[:-1]
            + ("A" if thief_id[-1] != "A" else "B")
            + "."
            + thief.cookie.split(".")[1],
            "no cookie": "",
        }
        for label, cookie in attempts.items():
            table = await thief.connect(match_id, cookie=cookie)
            error = await table.recv()
            # A cookie that proves nothing is no identity at all; a real guest is simply not seated.
            expected = "not_seated" if label == "another guest's own cookie" else "no_guest"
            assert error["type"] == "error" and error["code"] == expected, label
            assert "join_url" not in error, label  # a robot match has no free seat to offer
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await table.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403, label
            assert not any('"view"' in raw for raw in table.raw), label
        # The owner still plays normally.
        table = await owner.connect(match_id)
        assert (await table.recv())["type"] == "state"
        await table.close()

    run(body)


def test_a_third_person_cannot_join_a_full_room_or_its_socket(host: str) -> None:
    async def body() -> None:
        alice, bob, match_id, a, b = await two_players(host)
        carol = await new_guest(host)
        assert a.state is not None
        status, data = await carol.join(a.state["match"]["room_code"])
        assert status == 409 and data["error"]["code"] == "room_full"
        table = await carol.connect(match_id)
        refused = await table.recv()
        assert refused["code"] == "not_seated" and "join_url" not in refused  # the room is full
        # The seated players re-joining keep their own seats.
        for guest, seat in ((alice, 0), (bob, 1)):
            status, data = await guest.join(a.state["match"]["room_code"].lower())
            assert status == 200 and data["match_id"] == match_id
            assert (await (await guest.connect(match_id)).recv())["match"]["seat"] == seat
        assert [p["kind"] for p in a.state["match"]["players"]] == ["human", "human"]

    run(body)


def test_unknown_match_and_foreign_origin_are_refused(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        table = await guest.connect("no-such-match")
        assert (await table.recv())["code"] == "not_found"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await table.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
        match_id = await guest.robot_match()
        table = await guest.connect(match_id, origin="http://evil.example")
        assert (await table.recv())["code"] == "forbidden"
        table = await guest.connect(match_id, origin=f"http://{host}")
        assert (await table.recv())["type"] == "state"

    run(body)


def test_a_waiting_room_accepts_no_action_until_the_friend_joins(host: str) -> None:
    async def body() -> None:
        alice, bob = await new_guest(host), await new_guest(host)
        created = await alice.room()
        assert len(created["code"]) == 6 and created["url"] == f"/r/{created['code']}"
        a = await alice.connect(created["match_id"])
        state = await a.recv()
        assert state["match"]["status"] == "waiting" and state["view"] is None
        assert state["match"]["players"][1] == {
            "seat": 1,
            "name": None,
            "kind": None,
            "level": None,
            "connected": False,
            "autoplay": False,
            "autoplay_at": None,
            "timeouts": 0,
            "invited": None,
            "bot": False,
            "guest": False,
        }
        await a.act({"type": "pass"})
        assert "waiting" in (await a.error())["message"]
        # Someone sent the table's address instead of the room link is shown the way in: the link.
        for cookie, code in ((None, "not_seated"), ("", "no_guest")):
            refused = await (await bob.connect(created["match_id"], cookie=cookie)).recv()
            assert refused["code"] == code and refused["join_url"] == created["url"], refused
        await bob.request("POST", "/api/me", {"name": "Bob"})
        status, _ = await bob.join(created["code"])
        assert status == 200
        state = await a.until(lambda m: m["type"] == "state" and m["match"]["status"] == "playing")
        assert (
            state["match"]["players"][1]["name"] == "Bob" and state["match"]["players"][1]["kind"] == "human"
        )
        assert state["version"] == 0

    run(body)


def test_reconnecting_continues_the_same_seat_and_the_opponent_sees_it(host: str) -> None:
    async def body() -> None:
        alice, _bob, match_id, a, b = await two_players(host)
        mover, _ = to_act(a, b)
        assert mover.state is not None
        await mover.act(mover.state["view"]["legal"][0])
        await a.state_at_least(1)
        await b.state_at_least(1)
        assert a.state is not None
        hand_before = a.state["view"]["hand"]
        await a.close()
        gone = await b.until(lambda m: m["type"] == "state" and not m["match"]["players"][0]["connected"])
        assert gone["version"] == 1
        again = await alice.connect(match_id)
        state = await again.recv()
        assert state["version"] == 1 and state["view"]["hand"] == hand_before and state["match"]["seat"] == 0
        back = await b.until(lambda m: m["type"] == "state" and m["match"]["players"][0]["connected"])
        assert back["version"] == 1
        # Two tabs of the same player both follow the table.
        tab2 = await alice.connect(match_id)
        assert (await tab2.recv())["version"] == 1

    run(body)


def test_ping_gets_pong(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        table = await guest.connect(await guest.robot_match())
        await table.send({"type": "ping"})
        assert await table.until(lambda m: m["type"] == "pong") == {"type": "pong"}

    run(body)


def test_a_flood_is_rate_limited_and_the_socket_stays_open(tmp_path: Path) -> None:
    async def body(host: str) -> None:
        guest = await new_guest(host)
        table = await guest.connect(await guest.robot_match())
        await table.recv()
        for _ in range(40):
            await table.send({"type": "ping"})
        got = await table.quiet(0.5)
        pongs = [m for m in got if m["type"] == "pong"]
        limited = [m for m in got if m.get("code") == "rate_limited"]
        assert 5 <= len(pongs) <= 8  # the burst, plus what refills while the flood arrives
        assert len(limited) == 1  # one error, not one per dropped message
        await asyncio.sleep(0.5)
        await table.send({"type": "ping"})
        assert await table.until(lambda m: m["type"] == "pong") == {"type": "pong"}

    with live_server(test_settings(tmp_path, rate_per_second=5.0, rate_burst=5)) as host:
        run(lambda: body(host))


def test_commitment_is_the_sha256_of_the_seed_revealed_after_the_hand(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        table = await guest.connect(await guest.robot_match("novice"))
        rng = random.Random(3)
        published: dict[int, str] = {}  # hand number -> the commitment shown while it was played
        while True:
            state = await table.until(lambda m: m["type"] == "state")
            if state["view"]["phase"] != "over":
                published.setdefault(state["view"]["hand_number"], state["match"]["commitment"])
            last = state["last_hand"]
            if last is not None and last["showdown"]["outcome"] == "void" and state["result"] is None:
                assert "seed" not in last["showdown"]  # a void hand's deal stays secret for now
            elif last is not None and last["hand_number"] in published:
                # (A hand the robot ended before this page connected was never seen being
                # played: the next one is checked instead.)
                seed = last["showdown"]["seed"]
                assert isinstance(seed, str) and seed.isdigit()
                commitment = published[last["hand_number"]]
                assert (
                    last["showdown"]["commitment"] == commitment == hashlib.sha256(seed.encode()).hexdigest()
                )
                assert last["phase"] == "over"
                if state["result"] is None:  # a new deal has a new commitment
                    assert state["match"]["commitment"] != commitment
                break
            if state["view"]["legal"]:
                await table.act(pick(state["view"]["legal"], rng), version=state["version"])

    run(body)
