"""`ginrummy fair-play` as the operator runs it, a real process on the site's SQLite file: the pairs of
players with recorded suspicious results and their evidence, a clear word when there is none, and
a clear error when there is no database where the settings point."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from ginrummy.service import GuestRow, MatchRow, SeatRow, parse_rules
from ginrummy.service.fairplay import QUICK_LOSS
from ginrummy.service.ports import FlagRow
from ginrummy.storage import SqlStore

AT = 1_764_000_000.0  # 2025-11-24 16:00 UTC


def fair_play(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["GINRUMMY_DATA_DIR"] = str(data_dir)
    return subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "fair-play", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def record(database: Path, flag: bool) -> None:
    """A site database with two guests who played a rated match (recorded as suspicious if `flag`)."""
    store = SqlStore(f"sqlite:///{database}")
    await store.start()
    try:
        for guest in (GuestRow("g-ann", "Ann", AT), GuestRow("g-bob", "Bob", AT)):
            await store.create_guest(guest)
        await store.create_match(
            MatchRow(
                id="m-quick",
                kind="online",
                status="playing",
                rules=parse_rules({"preset": "classic", "target": 25}).to_json(),
                seed="0" * 64,
                seats=(SeatRow(0, "g-ann"), SeatRow(1, "g-bob")),
                created_at=AT,
                rated=True,
            )
        )
        if flag:
            evidence = {"ended": "resigned", "moves": [2, 1], "addresses": ["203.0.113.7"]}
            await store.add_flag(FlagRow("m-quick", QUICK_LOSS, "g-ann", "g-bob", AT, evidence))
            await store.add_flag(FlagRow("m-quick", QUICK_LOSS, "g-ann", "g-bob", AT + 1, evidence))  # once
    finally:
        await store.close()


def test_the_command_prints_each_recorded_pair_with_its_evidence(tmp_path: Path) -> None:
    asyncio.run(record(tmp_path / "ginrummy.sqlite3", flag=True))
    done = fair_play(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "1 pair(s) of players with suspicious rated results:",
        "",
        "Ann (guest g-ann) and Bob (guest g-bob): 1 record(s)",
        "  2025-11-24 16:00 UTC  quick_loss  match m-quick  Bob resigned to Ann after 3 moves (2 and 1); "
        "both entered rated play from 203.0.113.7",
    ]
    listed = json.loads(fair_play(tmp_path, "--json").stdout)
    assert [[p["name"] for p in pair["players"]] for pair in listed] == [["Ann", "Bob"]]
    assert listed[0]["records"][0]["details"]["moves"] == [2, 1]


def test_no_record_and_no_database_are_said_plainly(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    done = fair_play(empty)
    assert done.returncode == 2 and "No database at" in done.stderr and "GINRUMMY_DATA_DIR" in done.stderr
    assert not (empty / "ginrummy.sqlite3").exists()  # looking made no database
    asyncio.run(record(tmp_path / "ginrummy.sqlite3", flag=False))
    done = fair_play(tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "No suspicious rated result is recorded."
