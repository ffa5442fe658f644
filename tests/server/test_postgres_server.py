"""The whole server on PostgreSQL: play, stop, start again on the same database, continue."""

from __future__ import annotations

import random
from pathlib import Path

from server_helpers import Guest, live_server, new_guest, pick, run, test_settings


def test_the_server_runs_on_postgresql_and_continues_after_a_restart(
    postgres_url: str, tmp_path: Path
) -> None:
    settings = test_settings(tmp_path, database_url=postgres_url)
    rng = random.Random(4)
    saved: dict[str, object] = {}

    with live_server(settings) as host:

        async def play() -> None:
            guest = await new_guest(host)
            match_id = await guest.robot_match("casual")
            table = await guest.connect(match_id)
            for _ in range(8):
                state = await table.my_turn()
                await table.act(pick(state["view"]["legal"], rng), version=state["version"])
                await table.state_at_least(state["version"] + 1)
            assert table.state is not None
            saved.update(
                cookie=guest.cookie, match=match_id, version=table.state["version"], view=table.state["view"]
            )

        run(play)

    with live_server(settings) as host:

        async def resume() -> None:
            guest = Guest(host, str(saved["cookie"]))
            table = await guest.connect(str(saved["match"]))
            state = await table.until(lambda m: m["type"] == "state")
            assert state["version"] >= int(saved["version"])  # type: ignore[call-overload]
            if state["version"] == saved["version"]:
                assert state["view"] == saved["view"]
            _, mine = await guest.request("GET", "/api/matches")
            assert [m["id"] for m in mine["matches"]] == [saved["match"]]

        run(resume)
