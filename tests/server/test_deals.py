"""What a deal reveals and when: nothing before both seats are taken, a void hand's seed only at the end."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from server_helpers import Guest, Table, least_deadwood_discard, live_server, new_guest, run, test_settings

from ginrummy.rules import GameRecord, Match

CARD = re.compile(r'"(?:10|[A2-9TJQK])[CDHS]"')


def _shows_no_card(raw: str) -> bool:
    return CARD.search(raw) is None


def test_a_room_deals_nothing_until_both_seats_are_taken_even_across_a_restart(tmp_path: Path) -> None:
    settings = test_settings(tmp_path)

    async def create(host: str) -> dict[str, Any]:
        alice = await new_guest(host)
        created = await alice.room()
        table = await alice.connect(created["match_id"])
        state = await table.recv()
        assert state["match"]["status"] == "waiting"
        # No card, no upcard, no dealer, no commitment: nothing to keep or throw away a room for.
        assert state["view"] is None and state["last_hand"] is None and state["match"]["commitment"] is None
        assert _shows_no_card(table.raw[-1]), table.raw[-1]
        return {"code": created["code"], "match_id": created["match_id"], "cookie": alice.cookie}

    with live_server(settings) as host:
        room = run(lambda: create(host))

    async def after_restart(host: str) -> str:
        alice = Guest(host, room["cookie"])
        table = await alice.connect(room["match_id"])
        state = await table.recv()
        assert state["match"]["status"] == "waiting" and state["view"] is None
        assert _shows_no_card(table.raw[-1])
        bob = await new_guest(host)
        status, _ = await bob.join(room["code"])
        assert status == 200
        dealt = await table.until(lambda m: m["type"] == "state" and m["match"]["status"] == "playing")
        assert len(dealt["view"]["hand"]) == 10 and len(dealt["view"]["discard_pile"]) == 1
        assert len(dealt["match"]["commitment"]) == 64
        b = await bob.connect(room["match_id"])
        await b.until(lambda m: m["type"] == "state")
        await _play_to_the_end(table, b)
        status, replay = await alice.request("GET", f"/api/matches/{room['match_id']}/replay")
        assert status == 200
        first = replay["hands"][0]
        assert first["commitment"] == dealt["match"]["commitment"]
        assert int(first["seed"]).bit_length() > 64  # a 256-bit secret: no seed search can find it
        assert first["initial_hands"][dealt["match"]["seat"]] == dealt["view"]["hand"]
        record = GameRecord.from_json(replay["record"])
        assert Match.from_record(record).result is not None  # the stored log replays to the end
        return str(replay["result"]["winner"])

    with live_server(settings) as host:
        assert run(lambda: after_restart(host)) in ("0", "1")


async def _play_to_the_end(a: Table, b: Table, *, knock: bool = True) -> None:
    """Both seats play until the match is over: draw from stock, knock or go Gin when allowed."""
    tables = (a, b)
    while True:
        states = [t.state for t in tables]
        assert states[0] is not None and states[1] is not None
        if states[0]["result"] is not None and states[1]["result"] is not None:
            return
        mover = next((t for t in tables if t.state and t.state["view"] and t.state["view"]["legal"]), None)
        if mover is None:
            await a.state_at_least(states[0]["version"] + 1)
            continue
        assert mover.state is not None
        await mover.act(_choose(mover.state["view"], knock=knock), version=mover.state["version"])
        version = mover.state["version"] + 1
        for table in tables:
            await table.state_at_least(version)


def _choose(view: dict[str, Any], *, knock: bool) -> dict[str, Any]:
    legal = view["legal"]
    if knock:
        for action in legal:
            if action["type"] in ("knock", "big_gin"):
                return dict(action)
    for kind in ({"type": "pass"}, {"type": "draw", "source": "stock"}):
        if kind in legal:
            return kind
    if knock:  # throw the card that leaves the least deadwood, so that a knock comes soon
        return least_deadwood_discard(view)
    # Throw back the card just drawn from the stock (the hand never improves: it goes void).
    drawn = view["history"][-1].get("card")
    discard = {"type": "discard", "card": drawn}
    return discard if discard in legal else next(a for a in legal if a["type"] == "discard")


def test_a_void_hand_is_thrown_in_unseen_until_the_match_ends(host: str) -> None:
    async def body() -> None:
        alice, bob = await new_guest(host), await new_guest(host)
        created = await alice.room(rules={"preset": "classic", "target": 1})
        assert (await bob.join(created["code"]))[0] == 200
        a, b = await alice.connect(created["match_id"]), await bob.connect(created["match_id"])
        for table in (a, b):
            await table.until(lambda m: m["type"] == "state" and m["view"] is not None)
        # Nobody knocks: the hand runs down to two stock cards and is void.
        while True:
            await _play_one(a, b, knock=False)
            assert a.state is not None
            if a.state["last_hand"] is not None:
                break
        for table in (a, b):
            assert table.state is not None
            last = table.state["last_hand"]
            assert last["showdown"]["outcome"] == "void" and table.state["result"] is None
            assert "seed" not in last["showdown"] and "hands" not in last["showdown"]
        first_dealt = next(
            m for m in map(json.loads, a.raw) if m["type"] == "state" and m["view"] is not None
        )
        void_commitment = first_dealt["match"]["commitment"]
        await _play_to_the_end(a, b)
        status, replay = await alice.request("GET", f"/api/matches/{created['match_id']}/replay")
        assert status == 200
        void = replay["hands"][0]
        assert void["showdown"]["outcome"] == "void"
        # At the end every seed is out, the void hand's too, and it matches what was published.
        assert hashlib.sha256(void["seed"].encode()).hexdigest() == void["commitment"] == void_commitment
        assert len(set(void["initial_hands"][0]) | set(void["initial_hands"][1])) == 20

    run(body)


async def _play_one(a: Table, b: Table, *, knock: bool) -> None:
    for table in (a, b):
        assert table.state is not None
        view = table.state["view"]
        if view and view["legal"]:
            version = table.state["version"]
            await table.act(_choose(view, knock=knock), version=version)
            await a.state_at_least(version + 1)
            await b.state_at_least(version + 1)
            return
    await a.until(lambda m: m["type"] == "state")
