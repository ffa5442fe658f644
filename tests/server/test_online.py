"""Play online over the real server: two strangers are paired, abort is free, resigning and leaving lose."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest
from server_helpers import Guest, Table, live_server, new_guest, pick, run, test_settings


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # A short grace: a stranger who stays away 1.5 s has left the match.
    with live_server(test_settings(tmp_path_factory.mktemp("online"), grace_seconds=1.5)) as address:
        yield address


async def paired(a: Guest, b: Guest, *, rated: bool = True, target: int = 25) -> str:
    """Both wait in the same pool; returns the match both are sent to."""
    choice = {"preset": "classic", "target": target, "rated": rated}
    for guest in (a, b):
        status, data = await guest.request("POST", "/api/pool", choice)
        assert status == 200 and data["state"] == "waiting", data
    news = await asyncio.gather(*(g.request("GET", "/api/pool?wait=10") for g in (a, b)))
    assert [n[1]["state"] for n in news] == ["paired", "paired"], news
    assert news[0][1]["match_id"] == news[1][1]["match_id"]
    return str(news[0][1]["match_id"])


async def both_move(tables: list[Table], rng: random.Random) -> None:
    """Play until each seat has made at least one move."""
    moved = {0: False, 1: False}
    while not all(moved.values()):
        for table in tables:
            state = table.state
            if state and state["view"]["legal"]:
                await table.act(pick(state["view"]["legal"], rng), version=state["version"])
                moved[state["match"]["seat"]] = True
                await table.state_at_least(state["version"] + 1)
        await asyncio.sleep(0.05)
        for table in tables:
            await table.quiet(0.05)


async def rating(guest: Guest) -> dict[str, Any]:
    return (await guest.me())["rating"]  # type: ignore[no-any-return]


def test_strangers_are_paired_abort_is_free_and_resigning_loses(host: str) -> None:
    async def body() -> None:
        rng = random.Random(3)
        ann, bob = await new_guest(host), await new_guest(host)
        match_id = await paired(ann, bob)
        tables = [await ann.connect(match_id), await bob.connect(match_id)]
        for table in tables:
            state = await table.until(lambda m: m["type"] == "state")
            assert state["match"]["kind"] == "online" and state["match"]["rated"] is True
            assert state["match"]["abortable"] is True and state["match"]["turn_deadline"] is not None
        # Abort before both have moved: over, nobody won, no rating moved.
        await tables[0].send({"type": "abort"})
        over = await tables[1].until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        assert over["result"]["ended"] == "aborted" and over["result"]["winner"] is None
        assert over["match"]["ratings"] is None  # an aborted match moves no rating
        assert (await rating(ann))["games"] == 0 and (await rating(bob))["games"] == 0
        aborted = match_id
        await tables[0].act({"type": "pass"})
        assert (await tables[0].error())["code"] == "illegal_action"

        # A second match: once both have moved, abort is refused and resigning gives the match away.
        match_id = await paired(ann, bob)
        tables = [await ann.connect(match_id), await bob.connect(match_id)]
        for table in tables:
            await table.until(lambda m: m["type"] == "state")
        await both_move(tables, rng)
        assert tables[0].state is not None and tables[0].state["match"]["abortable"] is False
        await tables[0].send({"type": "abort"})
        assert "resign instead" in (await tables[0].error())["message"]
        loser_seat = tables[0].state["match"]["seat"]
        await tables[0].send({"type": "resign"})
        over = await tables[1].until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        assert over["result"]["ended"] == "resigned" and over["result"]["winner"] == 1 - loser_seat
        ann_rating, bob_rating = await rating(ann), await rating(bob)
        assert (
            ann_rating["games"] == bob_rating["games"] == 1
            and bob_rating["rating"] > 1500 > ann_rating["rating"]
        )
        # The last state both tables get carries what the match did to each seat's rating, as
        # stored; a table opened after the end gets it too.
        last = await tables[0].until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        late = await ann.connect(match_id)
        again = await late.until(lambda m: m["type"] == "state")
        await late.close()
        now = {loser_seat: ann_rating, 1 - loser_seat: bob_rating}
        for state in (over, last, again):
            changes = state["match"]["ratings"]
            for seat in (0, 1):
                assert changes[seat] == {
                    "before": 1500,
                    "rating": now[seat]["rating"],
                    "change": now[seat]["rating"] - 1500,
                    "provisional": True,
                }
        assert changes[loser_seat]["change"] < 0 < changes[1 - loser_seat]["change"]
        # My matches shows the change for both seats of the rated match, nothing for the aborted one.
        status, mine = await ann.request("GET", "/api/matches")
        assert status == 200
        rows = {m["id"]: m for m in mine["matches"]}
        assert rows[match_id]["ratings"] == changes and rows[aborted]["ratings"] is None
        # The profile's history keeps the rating each match started from, and the chart's start.
        status, profile = await ann.request("GET", f"/api/players/{(await ann.me())['id']}")
        assert status == 200 and [(p["before"], p["rating"]) for p in profile["history"]] == [
            (1500, ann_rating["rating"])
        ]
        assert profile["history_start"]["rating"] == 1500
        assert profile["history_start"]["at"] < profile["history"][0]["at"]
        assert profile["matches"][0]["rating"] == changes[loser_seat]
        status, board = await bob.request("GET", "/api/leaderboards/today")
        assert (
            status == 200 and board["me"]["wins"] == 1 and board["lines"][0]["id"] == (await bob.me())["id"]
        )
        status, replay = await ann.request("GET", f"/api/matches/{match_id}/replay")
        assert status == 200 and replay["result"]["ended"] == "resigned"

    run(body)


def test_a_stranger_who_leaves_loses_and_casual_pools_rate_nothing(host: str) -> None:
    async def body() -> None:
        rng = random.Random(5)
        cy, dee = await new_guest(host), await new_guest(host)
        match_id = await paired(cy, dee, rated=False)
        tables = [await cy.connect(match_id), await dee.connect(match_id)]
        for table in tables:
            state = await table.until(lambda m: m["type"] == "state")
            assert state["match"]["rated"] is False
        await both_move(tables, rng)
        leaver_seat = tables[0].state["match"]["seat"] if tables[0].state else 0
        await tables[0].close()
        over = await tables[1].until(
            lambda m: m["type"] == "state" and m["match"]["status"] == "over", timeout=15
        )
        assert over["result"]["ended"] == "abandoned" and over["result"]["winner"] == 1 - leaver_seat
        assert (await rating(cy))["games"] == 0 and (await rating(dee))["games"] == 0  # casual
        status, profile = await dee.request("GET", f"/api/players/{(await dee.me())['id']}")
        assert status == 200 and profile["stats"]["won"] == 1 and profile["matches"][0]["rated"] is False

    run(body)


def test_waiting_alone_offers_a_robot_and_bad_pools_are_refused(host: str) -> None:
    async def body() -> None:
        eve = await new_guest(host)
        for bad, reason in (
            ({"preset": "chess"}, "preset must be one of"),
            ({"target": 5}, "target must be"),
            ({"rated": "yes"}, "rated must be"),
        ):
            status, data = await eve.request("POST", "/api/pool", bad)
            assert status == 400 and reason in data["error"]["message"]
        status, data = await eve.request("GET", "/api/pool?wait=0")
        assert status == 404
        status, data = await eve.request("POST", "/api/pool", {"target": 50, "rated": True})
        assert status == 200 and data["robot_offer"] is False and data["pool"]["target"] == 50
        status, made = await eve.request("POST", "/api/pool/robot")
        assert status == 200 and made["url"] == f"/m/{made['match_id']}"
        table = await eve.connect(made["match_id"])
        state = await table.until(lambda m: m["type"] == "state")
        assert state["match"]["kind"] == "robot" and state["match"]["rated"] is False
        assert state["match"]["rules"]["target"] == 50
        status, data = await eve.request("DELETE", "/api/pool")
        assert status == 200 and data == {"left": False}

    run(body)


def test_a_rematch_between_strangers_waits_for_both_and_stays_rated(host: str) -> None:
    async def body() -> None:
        rng = random.Random(7)
        fay, gus = await new_guest(host), await new_guest(host)
        match_id = await paired(fay, gus)
        tables = [await fay.connect(match_id), await gus.connect(match_id)]
        for table in tables:
            await table.until(lambda m: m["type"] == "state")
        await both_move(tables, rng)
        await tables[0].send({"type": "resign"})
        await tables[1].until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        # Fay asks: the stranger is not seated without being asked; their seat is kept for them.
        status, made = await fay.request("POST", f"/api/matches/{match_id}/rematch")
        assert status == 200, made
        rematch_id = made["match_id"]
        told = await tables[1].until(
            lambda m: m["type"] == "state" and m["match"]["rematch_id"] == rematch_id
        )
        assert told["match"]["status"] == "over"
        fresh = await fay.connect(rematch_id)
        waiting = await fresh.until(lambda m: m["type"] == "state")
        assert waiting["match"]["status"] == "waiting" and waiting["view"] is None
        assert waiting["match"]["kind"] == "online" and waiting["match"]["rated"] is True
        invited = [p.get("invited") for p in waiting["match"]["players"]]
        assert invited.count((await gus.me())["name"]) == 1
        # Gus accepts: the rematch starts, rated like the match it repeats.
        status, again = await gus.request("POST", f"/api/matches/{match_id}/rematch")
        assert status == 200 and again["match_id"] == rematch_id
        started = await fresh.until(lambda m: m["type"] == "state" and m["match"]["status"] == "playing")
        assert started["match"]["rated"] is True
        for table in (*tables, fresh):
            await table.close()

    run(body)
