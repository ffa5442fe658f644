"""The coach over the wire: a hint asked over the match socket, and the analysis API (start, progress,
result, asked again) of a match played to its end against a robot."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

from server_helpers import live_server, new_guest, pick, run, test_settings

from ginrummy.rules import Rules

SHORT = Rules.preset("classic").replace(target=25).to_json()


def test_a_hint_over_the_socket_then_the_analysis_of_the_finished_match(host: str) -> None:
    coach_over_the_wire(host)


def test_the_same_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    with live_server(test_settings(tmp_path, database_url=postgres_url)) as host:
        coach_over_the_wire(host)


def coach_over_the_wire(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        match_id = await guest.robot_match("casual", SHORT)
        # Nothing to analyse before the match ends.
        status, data = await guest.request("POST", f"/api/matches/{match_id}/analysis")
        assert status == 409 and data["error"]["code"] == "not_finished"
        table = await guest.connect(match_id)
        state = await table.my_turn()
        assert state["match"]["hints"] is True
        await table.send({"type": "hint", "version": state["version"]})
        hint = await table.until(lambda m: m["type"] in ("hint", "error"))
        assert hint["type"] == "hint", hint
        assert hint["version"] == state["version"] and hint["action"] in state["view"]["legal"]
        assert hint["why"] and hint["level"] == "expert"
        await table.send({"type": "hint", "version": "soon"})
        assert (await table.error())["code"] == "bad_message"
        # Play it out (random moves, knocking when allowed).
        rng = random.Random(3)
        while state["result"] is None:
            if state["view"]["legal"]:
                await table.act(pick(state["view"]["legal"], rng), version=state["version"])
            state = await table.until(lambda m: m["type"] == "state")
        # A finished match: no analysis asked for yet; asking queues it; it is polled to the end.
        status, none = await guest.request("GET", f"/api/matches/{match_id}/analysis")
        assert status == 200 and none["status"] == "none"
        status, first = await guest.request("POST", f"/api/matches/{match_id}/analysis")
        assert status == 200 and first["status"] in ("queued", "running", "done"), first
        seen: list[dict[str, Any]] = [first]
        while seen[-1]["status"] in ("queued", "running"):
            progress = seen[-1]["progress"]
            assert 0 <= progress["done"] <= max(progress["total"], 0) or progress["total"] == 0
            await asyncio.sleep(0.05)
            status, polled = await guest.request("GET", f"/api/matches/{match_id}/analysis")
            assert status == 200
            seen.append(polled)
        done = seen[-1]
        assert done["status"] == "done", done
        analysis = done["analysis"]
        assert analysis["seats"] == [0] and analysis["decisions"]
        assert {d["seat"] for d in analysis["decisions"]} == {0}
        assert all(d["mark"] in (None, "inaccuracy", "mistake", "blunder") for d in analysis["decisions"])
        summary = analysis["summary"]["0"]
        assert summary["decisions"] == len(analysis["decisions"])
        assert sum(summary[m] for m in ("inaccuracy", "mistake", "blunder")) == sum(
            1 for d in analysis["decisions"] if d["mark"]
        )
        # Asked again (by anyone with the replay): the stored analysis, unchanged.
        other = await new_guest(host)
        status, again = await other.request("POST", f"/api/matches/{match_id}/analysis")
        assert status == 200 and again == done
        status, missing = await guest.request("GET", "/api/matches/nothing-here/analysis")
        assert status == 404 and missing["error"]["code"] == "not_found"

    run(body)
