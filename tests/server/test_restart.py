"""The restart test: `ginrummy serve` killed with SIGKILL mid-match and started again loses nothing it acknowledged."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import Guest, Table, new_guest, pick, run

from ginrummy.rules import GameRecord, Match


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _command() -> list[str]:
    script = shutil.which("ginrummy", path=str(Path(sys.executable).parent))
    if script:
        return [script]
    return [sys.executable, "-c", "from ginrummy.cli import main; main()"]


@contextmanager
def serve(
    data_dir: Path, port: int, extra: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """A real `ginrummy serve` process (`extra`: more settings); yields once it answers.
    SIGKILLed at the end if still alive."""
    env = {
        **os.environ,
        "GINRUMMY_DATA_DIR": str(data_dir),
        "GINRUMMY_ROBOT_DELAY": "0",
        "GINRUMMY_RATE_LIMIT": "1000/1000",
        "GINRUMMY_HTTP_RATE_LIMIT": "0",
        "GINRUMMY_RATED_SAME_ADDRESS": "1",  # every test guest comes from 127.0.0.1
        "GINRUMMY_TURN_SECONDS": "0",
        **(extra or {}),
    }
    env.pop("DATABASE_URL", None)
    env.pop("GINRUMMY_SECRET", None)  # the secret is generated once and must survive the restart
    log = open(data_dir / f"server-{time.monotonic_ns()}.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [*_command(), "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"server exited with {process.returncode}")
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.1)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        log.close()


async def play_moves(table: Table, count: int, rng: random.Random) -> dict[str, Any]:
    """Play `count` of this seat's moves, each acknowledged; returns the last state received."""
    for _ in range(count):
        state = await table.my_turn()
        await table.act(pick(state["view"]["legal"], rng), version=state["version"])
        await table.state_at_least(state["version"] + 1)
    assert table.state is not None
    return table.state


def _table_part(state: dict[str, Any]) -> dict[str, Any]:
    """What must be identical after a restart: the view, the last hand, the result and the version."""
    return {k: state[k] for k in ("version", "view", "last_hand", "result")} | {
        "commitment": state["match"]["commitment"],
        "status": state["match"]["status"],
    }


def test_sigkill_mid_match_then_restart_continues_every_match(tmp_path: Path) -> None:
    port = _free_port()
    host = f"127.0.0.1:{port}"
    rng = random.Random(7)
    saved: dict[str, Any] = {}

    async def before_the_crash(process: subprocess.Popen[bytes]) -> None:
        solo = await new_guest(host)
        robot_match = await solo.robot_match("casual", rules={"preset": "classic", "target": 500})
        alice, bob = await new_guest(host), await new_guest(host)
        room = await alice.room(turn_seconds=0)
        await bob.join(room["code"])
        solo_table = await solo.connect(robot_match)
        a, b = await alice.connect(room["match_id"]), await bob.connect(room["match_id"])
        await play_moves(solo_table, 12, rng)
        for _ in range(6):
            await a.state_at_least(0)
            await b.state_at_least(0)
            mover = a if a.state and a.state["view"]["legal"] else b
            await play_moves(mover, 1, rng)
            await a.state_at_least(mover.state["version"] if mover.state else 0)
            await b.state_at_least(mover.state["version"] if mover.state else 0)
        # One more move each, and the kill right after sending: accepted or not, never half.
        state = await solo_table.my_turn()
        await solo_table.act(pick(state["view"]["legal"], rng), version=state["version"])
        mover = a if a.state and a.state["view"]["legal"] else b
        assert mover.state is not None
        await mover.act(pick(mover.state["view"]["legal"], rng), version=mover.state["version"])
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        assert solo_table.state and a.state and b.state
        saved.update(
            guests={"solo": solo.cookie, "alice": alice.cookie, "bob": bob.cookie},
            robot_match=robot_match,
            room=room["match_id"],
            solo=_table_part(solo_table.state),
            alice=_table_part(a.state),
            bob=_table_part(b.state),
            solo_sent=state["version"],
            room_sent=mover.state["version"],
        )

    async def after_the_restart() -> None:
        cookies = saved["guests"]
        solo = Guest(host, cookies["solo"])
        alice, bob = Guest(host, cookies["alice"]), Guest(host, cookies["bob"])
        for guest in (solo, alice, bob):
            assert (await guest.me())["id"] == guest.cookie.split(".")[0]  # cookies still valid
        solo_table = await solo.connect(saved["robot_match"])
        a, b = await alice.connect(saved["room"]), await bob.connect(saved["room"])
        for name, table in (("solo", solo_table), ("alice", a), ("bob", b)):
            now = _table_part(await table.recv())
            before = saved[name]
            # Nothing acknowledged is lost...
            assert now["version"] >= before["version"], name
            if now["version"] == before["version"]:
                assert now == before, name  # ...and the table is exactly as it was
            else:
                # The move sent just before the kill was stored (and, vs a robot, answered): the
                # earlier history is unchanged, only later moves were added.
                old_hist, new_hist = before["view"]["history"], now["view"]["history"]
                if now["view"]["hand_number"] == before["view"]["hand_number"]:
                    assert new_hist[: len(old_hist)] == old_hist, name
        # Play continues on both tables, robots included.
        saved["solo_after"] = (await play_moves(solo_table, 3, rng))["version"]
        mover = a if a.state and a.state["view"]["legal"] else b
        version = mover.state["version"] if mover.state else 0
        await play_moves(mover, 1, rng)
        other = b if mover is a else a
        assert (await other.state_at_least(version + 1))["version"] == version + 1
        for guest in (solo, alice, bob):
            await guest.close()

    with serve(tmp_path, port) as process:
        run(lambda: before_the_crash(process))
    with serve(tmp_path, port):
        run(after_the_restart)
    # And once more: killed while idle, the second restart still has everything.
    with serve(tmp_path, port):

        async def check() -> None:
            solo = Guest(host, saved["guests"]["solo"])
            status, data = await solo.request("GET", "/api/matches")
            assert status == 200 and [m["id"] for m in data["matches"]] == [saved["robot_match"]]
            table = await solo.connect(saved["robot_match"])
            assert (await table.recv())["version"] >= saved["solo_after"] > saved["solo"]["version"]
            await solo.close()

        run(check)


def _view_at(record: GameRecord, version: int, seat: int) -> dict[str, Any]:
    """`seat`'s VIEW after the first `version` actions of the recorded match."""
    match = Match(record.rules, seed=record.seed)
    actions = [(s, a) for hand in record.hands for s, a in hand.actions]
    for s, action in actions[:version]:
        match.apply(action, s)
    return match.view(seat).to_json()


@pytest.mark.slow
def test_sigkill_at_random_moments_loses_no_acknowledged_action(tmp_path: Path) -> None:
    """Kill the server again and again while robot matches are being played as fast as possible."""
    port = _free_port()
    host = f"127.0.0.1:{port}"
    rng = random.Random(99)
    cookies: dict[str, str] = {}
    seen: dict[str, dict[int, dict[str, Any]]] = {}  # match -> version -> the view received

    async def play_until_killed(process: subprocess.Popen[bytes], first: bool, kill_after: float) -> None:
        if first:
            for _ in range(3):
                guest = await new_guest(host)
                match_id = await guest.robot_match("casual", rules={"preset": "classic", "target": 150})
                assert guest.cookie is not None
                cookies[match_id] = guest.cookie
                seen[match_id] = {}

        async def player(match_id: str) -> None:
            table = await Guest(host, cookies[match_id]).connect(match_id)
            while True:
                try:
                    state = await table.until(lambda m: m["type"] == "state", timeout=30)
                except Exception:
                    return  # the server is gone
                previous = seen[match_id].get(state["version"])
                assert previous is None or previous == state["view"], "one version, one table"
                seen[match_id][state["version"]] = state["view"]
                if state["result"] is not None:
                    return
                if state["view"]["legal"]:
                    try:
                        await table.act(pick(state["view"]["legal"], rng), version=state["version"])
                    except Exception:
                        return

        tasks = [asyncio.create_task(player(m)) for m in cookies]
        await asyncio.sleep(kill_after)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        await asyncio.gather(*tasks, return_exceptions=True)

    for cycle in range(8):
        with serve(tmp_path, port) as process:
            first, delay = cycle == 0, rng.uniform(0.1, 1.2)
            run(lambda: play_until_killed(process, first, delay))  # noqa: B023 - run() calls it at once
    with serve(tmp_path, port):

        async def finish() -> dict[str, GameRecord]:
            # Everything acknowledged before any kill is still there; play the matches to the end.
            await asyncio.gather(*[play_moves_to_end(Guest(host, cookies[m]), m, seen[m]) for m in cookies])
            records = {}
            for match_id in cookies:
                status, replay = await Guest(host, cookies[match_id]).request(
                    "GET", f"/api/matches/{match_id}/replay"
                )
                assert status == 200
                records[match_id] = GameRecord.from_json(replay["record"])
            return records

        records = run(finish)
    for match_id, record in records.items():
        for version, view in sorted(seen[match_id].items())[:: max(1, len(seen[match_id]) // 40)]:
            if view["showdown"] is not None:  # the final hand: the server adds its seed to the showdown
                view = {
                    **view,
                    "showdown": {
                        k: v for k, v in view["showdown"].items() if k not in ("seed", "commitment")
                    },
                }
            assert _view_at(record, version, 0) == view, (match_id, version)


async def play_moves_to_end(guest: Guest, match_id: str, seen: dict[int, dict[str, Any]]) -> None:
    rng = random.Random(5)
    table = await guest.connect(match_id)
    first = True
    while True:
        state = await table.until(lambda m: m["type"] == "state", timeout=30)
        if first:
            assert state["version"] >= max(seen), "an acknowledged action was lost"
            first = False
        seen.setdefault(state["version"], state["view"])
        if state["result"] is not None:
            return
        if state["view"]["legal"]:
            await table.act(pick(state["view"]["legal"], rng), version=state["version"])


async def _turns(groups: list[list[Table]], count: int, rng: random.Random) -> None:
    """Play `count` moves at each game (a group: the tables of its people), whoever is to act;
    every seat of the game sees each move."""
    for group in groups:
        for _ in range(count):
            version = max_version(group)
            for table in group:
                await table.state_at_least(version)
            mover = next((t for t in group if t.state and t.state["view"]["legal"]), None)
            if mover is not None:
                await mover.act(pick(mover.state["view"]["legal"], rng), version=version)
            # The move (or, while robots are to act, theirs) reaches every seat.
            for table in group:
                await table.state_at_least(version + 1)


def max_version(group: list[Table]) -> int:
    return max(t.state["version"] if t.state else 0 for t in group)


def test_sigkill_mid_game_then_restart_resumes_every_table(tmp_path: Path) -> None:
    """Three-player Gin, team Gin and Rummy (people, robots, a robot match) come back where they were."""
    port = _free_port()
    host = f"127.0.0.1:{port}"
    rng = random.Random(8)
    saved: dict[str, Any] = {}

    async def before_the_crash(process: subprocess.Popen[bytes]) -> None:
        solo = await new_guest(host)
        rummy = await solo.robot_match("casual", rules={"preset": "rummy", "players": 4, "target": 500})
        people: dict[str, Guest] = {}
        games: dict[str, tuple[str, list[str]]] = {"rummy": (rummy, ["solo"])}
        people["solo"] = solo
        for game, rules, seats in (
            ("gin3", {"preset": "gin3", "target": 500}, ["friend", {"robot": "casual"}]),
            (
                "teams",
                {"preset": "gin4_teams", "target": 500},
                ["friend", {"robot": "novice"}, {"robot": "novice"}],
            ),
        ):
            first, second = await new_guest(host), await new_guest(host)
            status, room = await first.request(
                "POST", "/api/rooms", {"rules": rules, "turn_seconds": 0, "seats": seats}
            )
            assert status == 200, room
            status, joined = await second.join(room["code"])
            assert status == 200, joined
            people[f"{game}-0"], people[f"{game}-1"] = first, second
            games[game] = (room["match_id"], [f"{game}-0", f"{game}-1"])
        tables = {
            name: await people[name].connect(match) for match, names in games.values() for name in names
        }
        groups = [[tables[name] for name in names] for _match, names in games.values()]
        for table in tables.values():
            await table.until(lambda m: m["type"] == "state")
        await _turns(groups, 6, rng)
        # One more move at each game, and the kill right after sending: accepted or not, never half.
        for group in groups:
            mover = next((t for t in group if t.state and t.state["view"]["legal"]), None)
            if mover is not None and mover.state is not None:
                await mover.act(pick(mover.state["view"]["legal"], rng), version=mover.state["version"])
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
        saved.update(
            cookies={name: guest.cookie for name, guest in people.items()},
            games=games,
            parts={name: _tables_part(table.state) for name, table in tables.items()},
        )

    async def after_the_restart() -> None:
        people = {name: Guest(host, cookie) for name, cookie in saved["cookies"].items()}
        tables = {}
        for match, names in saved["games"].values():
            for name in names:
                tables[name] = await people[name].connect(match)
        for name, table in tables.items():
            now = _tables_part(await table.until(lambda m: m["type"] == "state"))
            before = saved["parts"][name]
            assert now["version"] >= before["version"], name  # nothing acknowledged is lost...
            if now["version"] == before["version"]:
                assert now == before, name  # ...and the table is exactly as it was
        # Play goes on at every table, robots included, and every seat sees it.
        groups = [[tables[name] for name in names] for _match, names in saved["games"].values()]
        await _turns(groups, 3, rng)

    with serve(tmp_path, port) as process:
        run(lambda: before_the_crash(process))
    with serve(tmp_path, port):
        run(after_the_restart)


def _tables_part(state: dict[str, Any] | None) -> dict[str, Any]:
    """What must be identical after a restart at the bigger tables."""
    assert state is not None
    return {k: state[k] for k in ("version", "view", "last_hand", "result")} | {
        "commitments": state["match"]["commitments"],
        "status": state["match"]["status"],
    }
