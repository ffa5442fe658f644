"""The SQL store against SQLite and a real PostgreSQL: migrations, every port operation, the append-only log."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory

import ginrummy.storage as storage_package
from ginrummy.rules import Match, Rules
from ginrummy.service import GameService, ServiceConfig
from ginrummy.service.ports import (
    AccountRow,
    BotRow,
    EventRow,
    GuestRow,
    MatchRow,
    SeatRow,
    StoreBusy,
    StoreError,
)
from ginrummy.storage import SqlStore, downgrade, make_engine, migrate, normalize_url
from ginrummy.storage.sql import migration_heads

T = TypeVar("T")


@pytest.fixture(params=["sqlite", "sqlite-full", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """SQLite with synchronous=NORMAL and FULL, and PostgreSQL."""
    if request.param.startswith("sqlite"):
        suffix = "?full" if request.param == "sqlite-full" else ""
        yield f"sqlite:///{tmp_path / 'store.sqlite3'}{suffix}"
    else:
        yield request.getfixturevalue("postgres_url")


def _store(url: str) -> SqlStore:
    if url.endswith("?full"):
        return SqlStore(url.removesuffix("?full"), sqlite_synchronous="FULL")
    return SqlStore(url)


def run(url: str, body: Callable[[SqlStore], Awaitable[T]]) -> T:
    """Start a store on `url`, run `body`, close the store."""

    async def main() -> T:
        store = _store(url)
        await store.start()
        try:
            return await body(store)
        finally:
            await store.close()

    return asyncio.run(main())


def a_match(
    match_id: str = "m1",
    *,
    guest: str = "g1",
    status: str = "playing",
    created: float = 10.0,
    code: str | None = None,
    second: SeatRow | None = None,
) -> MatchRow:
    return MatchRow(
        id=match_id,
        kind="room" if code else "robot",
        status=status,  # type: ignore[arg-type]
        rules={"preset": "classic"},
        seed="s" * 64,
        seats=(SeatRow(0, guest), second or SeatRow(1, robot_level="casual")),
        created_at=created,
        room_code=code,
        turn_seconds=60 if code else None,
    )


async def _with_guests(store: SqlStore, *ids: str) -> None:
    for i, guest_id in enumerate(ids):
        await store.create_guest(GuestRow(guest_id, f"Name {guest_id}", float(i)))


def test_migrations_create_every_table_and_record_the_head(db_url: str) -> None:
    engine = make_engine(db_url.removesuffix("?full"))
    try:
        migrate(engine)
        migrate(engine)  # idempotent: a restart applies nothing twice
        tables = set(sa.inspect(engine).get_table_names())
        assert {"settings", "guests", "matches", "match_seats", "events", "alembic_version"} <= tables
        assert {"accounts", "ratings", "rating_history", "player_matches", "score_buckets", "bots"} <= tables
        heads = migration_heads()
        assert len(heads) == 1, f"the migrations must form one line, found heads {heads}"
        with engine.connect() as conn:
            head = ScriptDirectory(
                str(Path(storage_package.__file__).parent / "migrations")
            ).get_current_head()
            assert conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar() == head
        downgrade(engine, "base")  # the downgrade removes them again
        assert "events" not in set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_the_migrations_build_exactly_the_tables_the_code_describes(db_url: str) -> None:
    """Alembic's comparison of the migrated database with `storage.schema`: no table, column or
    index that one has and the other lacks (a migration forgotten, or a schema edit without one)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from ginrummy.storage.schema import metadata

    engine = make_engine(db_url.removesuffix("?full"))
    try:
        migrate(engine)
        with engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), metadata) == []
    finally:
        engine.dispose()


def test_the_rating_change_migration_gives_each_stored_match_the_rating_it_started_from(db_url: str) -> None:
    engine = make_engine(db_url.removesuffix("?full"))
    try:
        migrate(engine, "0011")
        with engine.begin() as conn:
            conn.execute(
                sa.text("INSERT INTO guests (id, name, created_at) VALUES ('g1', 'Ann', 0), ('g2', 'Bob', 0)")
            )
            for n in (1, 2, 3):
                conn.execute(
                    sa.text(
                        "INSERT INTO matches (id, kind, status, rules, seed, created_at)"
                        " VALUES (:id, 'online', 'over', '{}', 's', 0)"
                    ),
                    {"id": f"m{n}"},
                )
            # Ann's three rated matches (stored out of order) and Bob's first.
            history = [("g1", "m2", 20.0, 1620.0), ("g1", "m1", 10.0, 1700.0), ("g1", "m3", 30.0, 1590.5)]
            history.append(("g2", "m1", 10.0, 1300.0))
            for guest, match, at, rating in history:
                conn.execute(
                    sa.text(
                        "INSERT INTO rating_history (guest_id, game, match_id, at, rating, deviation)"
                        " VALUES (:g, 'gin', :m, :at, :r, 200)"
                    ),
                    {"g": guest, "m": match, "at": at, "r": rating},
                )
        migrate(engine)
        found = run(db_url, lambda store: store.rating_changes(["m1", "m3", "m9"]))
        assert {(p.guest_id, p.match_id): (p.before, p.rating) for p in found} == {
            ("g1", "m1"): (1500.0, 1700.0),
            ("g2", "m1"): (1500.0, 1300.0),
            ("g1", "m3"): (1620.0, 1590.5),
        }
        downgrade(engine, "0011")
        assert "rating_before" not in {c["name"] for c in sa.inspect(engine).get_columns("rating_history")}
    finally:
        engine.dispose()


def test_a_bot_is_made_whole_or_not_at_all_and_its_token_hash_replaced(db_url: str) -> None:
    async def body(store: SqlStore) -> Any:
        await _with_guests(store, "owner")
        bot = BotRow("bot-1", "owner", 5.0, "a" * 64, 5.0)
        await store.create_bot(
            GuestRow("bot-1", "MyBot", 5.0), AccountRow("bot-1", "MyBot", "mybot", "!bot", 5.0, 5.0), bot
        )
        # The name is taken: nothing of the second bot is written (no guest, no account, no bot).
        with pytest.raises(StoreError):
            await store.create_bot(
                GuestRow("bot-2", "MYBOT", 6.0),
                AccountRow("bot-2", "MYBOT", "mybot", "!bot", 6.0, 6.0),
                BotRow("bot-2", "owner", 6.0, "b" * 64, 6.0),
            )
        assert await store.get_guest("bot-2") is None and await store.get_bots(["bot-2"]) == {}
        await store.set_bot_token("bot-1", None, 7.0)
        with pytest.raises(StoreError):
            await store.set_bot_token("nobody", None, 7.0)
        account = await store.get_account_by_name("mybot")
        return await store.get_bots(["bot-1", "owner"]), await store.bots_of("owner"), account

    found, owned, account = run(db_url, body)
    assert found == {"bot-1": BotRow("bot-1", "owner", 5.0, None, 7.0)}
    assert owned == [BotRow("bot-1", "owner", 5.0, None, 7.0)]
    assert account is not None and account.guest_id == "bot-1" and account.name == "MyBot"


def test_setting_is_created_once_and_then_kept(db_url: str) -> None:
    async def body(store: SqlStore) -> tuple[str, str]:
        return await store.get_or_create_setting("secret", "first"), await store.get_or_create_setting(
            "secret", "second"
        )

    assert run(db_url, body) == ("first", "first")
    assert run(db_url, lambda s: s.get_or_create_setting("secret", "third")) == "first"


def test_guests_are_created_found_and_renamed(db_url: str) -> None:
    async def body(store: SqlStore) -> Any:
        await _with_guests(store, "guest-a", "guest-b")
        await store.rename_guest("guest-a", "Anna")
        with pytest.raises(StoreError):
            await store.rename_guest("nobody", "X")
        with pytest.raises(StoreError):
            await store.create_guest(GuestRow("guest-a", "again", 0.0))
        return (
            await store.get_guest("guest-a"),
            await store.get_guest("nobody"),
            await store.get_guests(["guest-b", "x"]),
        )

    anna, nobody, some = run(db_url, body)
    assert anna == GuestRow("guest-a", "Anna", 0.0)
    assert nobody is None
    assert list(some) == ["guest-b"]


def test_many_guests_are_found_over_several_statements(db_url: str) -> None:
    ids = [f"guest-{n:04d}" for n in range(1203)]

    async def body(store: SqlStore) -> Any:
        await _with_guests(store, *ids)
        return await store.get_guests([*reversed(ids), "nobody", ids[0]])

    found = run(db_url, body)
    assert list(found) == ids  # in key order, each once, across the 500-key statements
    assert found[ids[1202]] == GuestRow(ids[1202], f"Name {ids[1202]}", 1202.0)


def test_match_round_trips_with_its_seats(db_url: str) -> None:
    row = a_match("m1", code="ABC234", second=SeatRow(1))

    async def body(store: SqlStore) -> Any:
        await _with_guests(store, "g1")
        await store.create_match(row)
        return (
            await store.get_match("m1"),
            await store.get_match_by_code("ABC234"),
            await store.get_match("zz"),
        )

    by_id, by_code, missing = run(db_url, body)
    assert by_id == row == by_code
    assert missing is None


def test_room_code_is_unique(db_url: str) -> None:
    async def body(store: SqlStore) -> None:
        await _with_guests(store, "g1")
        await store.create_match(a_match("m1", code="SAME22"))
        with pytest.raises(StoreError):
            await store.create_match(a_match("m2", code="SAME22"))
        assert await store.get_match("m2") is None  # the failed insert left nothing behind

    run(db_url, body)


def test_a_free_seat_is_taken_once(db_url: str) -> None:
    async def body(store: SqlStore) -> Any:
        await _with_guests(store, "g1", "g2", "g3")
        await store.create_match(a_match("m1", status="waiting", code="ROOM22", second=SeatRow(1)))
        first = await store.take_seat("m1", 1, "g2")
        second = await store.take_seat("m1", 1, "g3")
        return first, second, await store.get_match("m1")

    first, second, row = run(db_url, body)
    assert (first, second) == (True, False)
    assert row.seats[1] == SeatRow(1, "g2") and row.status == "playing"


def test_events_append_in_order_and_a_sequence_number_is_never_reused(db_url: str) -> None:
    async def body(store: SqlStore) -> list[EventRow]:
        await _with_guests(store, "g1")
        await store.create_match(a_match())
        for seq in (1, 2, 3):
            await store.append_event("m1", EventRow(seq, seq % 2, {"type": "pass", "n": seq}))
        with pytest.raises(StoreError):
            await store.append_event("m1", EventRow(2, 0, {"type": "draw", "source": "stock"}))
        return await store.events("m1")

    stored = run(db_url, body)
    assert [(e.seq, e.seat, e.action["n"]) for e in stored] == [(1, 1, 1), (2, 0, 2), (3, 1, 3)]


def test_the_database_refuses_to_edit_or_delete_events(db_url: str) -> None:
    async def body(store: SqlStore) -> None:
        await _with_guests(store, "g1")
        await store.create_match(a_match())
        await store.append_event("m1", EventRow(1, 0, {"type": "pass"}))

    run(db_url, body)
    engine = make_engine(db_url.removesuffix("?full"))
    try:
        for statement in ("UPDATE events SET seat = 1", "DELETE FROM events"):
            with pytest.raises(sa.exc.DatabaseError, match="append-only"), engine.begin() as conn:
                conn.execute(sa.text(statement))
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT seat FROM events")).scalars().all() == [0]
    finally:
        engine.dispose()


def test_live_matches_since_a_time_are_those_created_or_played_since(db_url: str) -> None:
    now = time.time()

    async def body(store: SqlStore) -> tuple[set[str], set[str]]:
        await _with_guests(store, "g1")
        await store.create_match(a_match("fresh", created=now))
        await store.create_match(a_match("stale", created=1.0))
        await store.create_match(a_match("played", created=1.0))
        await store.append_event("played", EventRow(1, 0, {"type": "pass"}))  # stored with the time now
        await store.create_match(a_match("done", created=now, status="over"))
        recent = {r.id for r in await store.live_matches(active_since=now - 60)}
        return recent, {r.id for r in await store.live_matches()}

    recent, every = run(db_url, body)
    assert recent == {"fresh", "played"}
    assert every == {"fresh", "stale", "played"}


def test_finish_rematch_and_listings(db_url: str) -> None:
    async def body(store: SqlStore) -> Any:
        await _with_guests(store, "g1", "g2")
        await store.create_match(a_match("old", created=1.0))
        await store.create_match(a_match("new", created=2.0))
        await store.create_match(a_match("theirs", guest="g2", created=3.0))
        await store.finish_match("old", {"winner": 0, "scores": [120, 30]}, 5.0)
        live = {r.id for r in await store.live_matches()}
        mine = [r.id for r in await store.matches_of("g1")]
        rematch = a_match("again", created=6.0)
        first = await store.set_rematch("old", rematch)
        second = await store.set_rematch("old", a_match("other", created=7.0))
        with pytest.raises(StoreError):
            await store.set_rematch("nope", a_match("x"))
        return live, mine, first, second, await store.get_match("old"), await store.get_match("other")

    live, mine, first, second, old, other = run(db_url, body)
    assert live == {"new", "theirs"}
    assert mine == ["new", "old"]  # newest first, only the guest's own
    assert first == second == "again" and other is None  # one rematch, whoever asks first
    assert old.status == "over" and old.result == {"winner": 0, "scores": [120, 30]}
    assert old.finished_at == 5.0 and old.rematch_id == "again"


def test_an_analysis_is_queued_once_stored_once_and_queued_again_only_when_it_failed(db_url: str) -> None:
    result = {"engine": "expert-1", "hands": [{"number": 1, "decisions": []}], "cost": 2.5}

    async def body(store: SqlStore) -> Any:
        await _with_guests(store, "g1")
        await store.create_match(a_match("m1", status="over"))
        await store.create_match(a_match("m2", status="over", created=11.0))
        assert await store.get_analysis("m1") is None
        first = await store.request_analysis("m1", "expert-1", 100.0)
        again = await store.request_analysis("m1", "expert-1", 101.0)  # asked twice: one analysis
        await store.request_analysis("m2", "expert-1", 102.0)
        queued = await store.unfinished_analyses()
        await store.set_analysis("m1", "running", 103.0)
        await store.set_analysis("m1", "done", 104.0, result=result)
        done = await store.request_analysis("m1", "expert-1", 105.0)  # the stored one comes back
        await store.set_analysis("m2", "failed", 106.0, error="it broke")
        failed = await store.get_analysis("m2")
        retried = await store.request_analysis("m2", "expert-1", 107.0)
        newer = await store.request_analysis("m1", "expert-2", 108.0)  # a new engine makes it again
        with pytest.raises(StoreError):
            await store.set_analysis("nothing", "running", 109.0)
        return first, again, queued, done, failed, retried, newer, await store.unfinished_analyses()

    first, again, queued, done, failed, retried, newer, left = run(db_url, body)
    assert first == again and (first.status, first.requested_at, first.result) == ("queued", 100.0, None)
    assert queued == ["m1", "m2"]
    assert (done.status, done.finished_at, done.result) == ("done", 104.0, result)
    assert (failed.status, failed.error) == ("failed", "it broke")
    assert (retried.status, retried.requested_at, retried.error) == ("queued", 107.0, None)
    assert (newer.status, newer.engine, newer.result) == ("queued", "expert-2", None)
    assert left == ["m2", "m1"]


def test_concurrent_writes_share_commits_and_all_survive_a_reopen(db_url: str) -> None:
    async def body(store: SqlStore) -> tuple[int, int]:
        await _with_guests(store, "g1")
        for i in range(20):
            await store.create_match(a_match(f"m{i}"))
        commits_before = store.commits
        await asyncio.gather(
            *[
                store.append_event(f"m{i}", EventRow(seq, 0, {"type": "pass"}))
                for seq in (1, 2, 3)
                for i in range(20)
            ]
        )
        return store.commits - commits_before, store.jobs

    commits, _jobs = run(db_url, body)
    assert commits < 60  # 60 writes, fewer transactions: group commit

    async def count(store: SqlStore) -> int:
        return sum([len(await store.events(f"m{i}")) for i in range(20)])

    assert run(db_url, count) == 60


def test_a_failing_write_does_not_spoil_the_writes_batched_with_it(db_url: str) -> None:
    async def body(store: SqlStore) -> list[Any]:
        await _with_guests(store, "g1")
        await store.create_match(a_match())
        await store.append_event("m1", EventRow(1, 0, {"type": "pass"}))
        return await asyncio.gather(
            store.append_event("m1", EventRow(2, 0, {"type": "pass"})),
            store.append_event("m1", EventRow(1, 1, {"type": "pass"})),  # duplicate: refused
            store.append_event("m1", EventRow(3, 1, {"type": "pass"})),
            return_exceptions=True,
        )

    outcomes = run(db_url, body)
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], StoreError)
    assert [e.seq for e in run(db_url, lambda s: s.events("m1"))] == [1, 2, 3]


def test_a_burst_of_writes_larger_than_one_statement_is_committed_whole(db_url: str) -> None:
    async def body(store: SqlStore) -> int:
        await _with_guests(store, "g1")
        for i in range(60):
            await store.create_match(a_match(f"m{i}"))
        # 180 events asked for in one turn of the loop: more than one INSERT of SQLite takes.
        await asyncio.gather(
            *[
                store.append_event(f"m{i}", EventRow(seq, 0, {"type": "pass"}))
                for seq in (1, 2, 3)
                for i in range(60)
            ]
        )
        return sum([len(await store.events(f"m{i}")) for i in range(60)])

    assert run(db_url, body) == 180


def test_writes_asked_for_while_the_writer_is_busy_are_all_done(db_url: str) -> None:
    """The writer takes what was handed to it during a batch when that batch is done."""

    async def body(store: SqlStore) -> list[int]:
        await _with_guests(store, "g1")
        await store.create_match(a_match())
        started, release = threading.Event(), threading.Event()

        def hold(conn: Any) -> None:
            started.set()
            release.wait(30)

        holding = store._run(hold)
        assert await asyncio.to_thread(started.wait, 30)
        appends = []
        for seq in (1, 2, 3):  # three turns of the loop, three hand-overs to a busy writer
            appends.append(
                asyncio.ensure_future(store.append_event("m1", EventRow(seq, 0, {"type": "pass"})))
            )
            for _ in range(3):
                await asyncio.sleep(0)
        release.set()
        await holding
        await asyncio.gather(*appends)
        return [e.seq for e in await store.events("m1")]

    assert run(db_url, body) == [1, 2, 3]


def test_the_checkpoint_thread_copies_the_wal_into_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"

    async def body() -> tuple[int, int, int]:
        # Checkpoints only when asked, so nothing but the request below copies the WAL.
        store = SqlStore(f"sqlite:///{path}", checkpoint_interval=3600)
        await store.start()
        try:
            # Commits never checkpoint themselves: the rows wait in the WAL until the thread copies them.
            await _with_guests(store, *[f"guest-{i}" for i in range(300)])
            before = path.stat().st_size
            await asyncio.to_thread(store.checkpoint)  # returns once the thread has done one
            return before, path.stat().st_size, path.with_name("c.sqlite3-wal").stat().st_size
        finally:
            await store.close()

    before, after, wal = asyncio.run(body())
    assert after > before and wal > 0
    # Closing truncates the WAL: everything is in the database file.
    assert not path.with_name("c.sqlite3-wal").exists() or path.with_name("c.sqlite3-wal").stat().st_size == 0
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM guests").fetchone() == (300,)


def test_no_database_work_runs_on_the_event_loop(tmp_path: Path) -> None:
    """Jobs run on the store's own threads, writes and reads apart, so the loop never waits on a lock."""
    path = tmp_path / "t.sqlite3"

    async def body(store: SqlStore) -> set[str]:
        names: set[str] = set()

        def where(conn: Any) -> None:
            names.add(threading.current_thread().name)

        await store._run(where)
        await store._run(where, read=True)
        assert threading.current_thread().name not in names
        return names

    assert run(f"sqlite:///{path}", body) == {"ginrummy-db-write", "ginrummy-db-read"}


def _event_threads(store: SqlStore) -> list[str]:
    """Record the thread of every events INSERT the store runs on SQLite."""
    threads: list[str] = []
    insert = store._insert_events_sqlite

    def recording(dbapi_conn: Any, rows: list[dict[str, Any]]) -> None:
        threads.append(threading.current_thread().name)
        insert(dbapi_conn, rows)

    store._insert_events_sqlite = recording  # type: ignore[method-assign]
    return threads


@pytest.mark.parametrize("sync", ["NORMAL", "FULL"])
def test_an_event_asked_for_while_the_writer_waits_is_committed_before_the_append_returns(
    tmp_path: Path, sync: str
) -> None:
    """With synchronous=NORMAL (no fsync per commit) an event asked for while the writer waits
    with nothing queued is inserted on the loop at once; with FULL it goes to the writer. Either
    way another connection reads it as soon as the append returns."""
    path = tmp_path / "e.sqlite3"

    async def body() -> tuple[list[str], list[int]]:
        store = SqlStore(f"sqlite:///{path}", sqlite_synchronous=sync)
        await store.start()
        try:
            await _with_guests(store, "g1")
            await store.create_match(a_match())
            await asyncio.sleep(0.05)  # the writer has answered and waits again
            threads = _event_threads(store)
            seen = []
            for seq in (1, 2):
                await store.append_event("m1", EventRow(seq, 0, {"type": "pass"}))
                with sqlite3.connect(path) as outside:
                    seen.append(outside.execute("SELECT count(*) FROM events").fetchone()[0])
                await asyncio.sleep(0.05)
            with pytest.raises(StoreError, match="conflict"):
                await store.append_event("m1", EventRow(2, 0, {"type": "draw", "source": "stock"}))
            return threads, seen
        finally:
            await store.close()

    threads, seen = asyncio.run(body())
    assert seen == [1, 2]
    loop_thread = threading.current_thread().name
    if sync == "NORMAL":
        assert threads == [loop_thread] * 3
    else:
        assert loop_thread not in threads and len(threads) == 3


def test_an_event_never_waits_on_the_loop_for_a_lock_another_connection_holds(tmp_path: Path) -> None:
    """The loop's insert never waits for a lock: while another process holds SQLite's write lock
    the event goes to the writer, the loop goes on, and the event is written once the lock is free."""
    path = tmp_path / "l.sqlite3"

    async def body() -> tuple[list[str], list[int]]:
        store = SqlStore(f"sqlite:///{path}", busy_timeout=10.0)
        await store.start()
        try:
            await _with_guests(store, "g1")
            await store.create_match(a_match())
            await asyncio.sleep(0.05)
            threads = _event_threads(store)
            outside = sqlite3.connect(path, isolation_level=None)
            outside.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            append = asyncio.ensure_future(store.append_event("m1", EventRow(1, 0, {"type": "pass"})))
            # Had the loop waited for the lock, it would be stuck in the insert until the busy
            # timeout, and the lock, released only below, would fail the append.
            await asyncio.sleep(0.3)
            assert not append.done()
            outside.execute("ROLLBACK")
            outside.close()
            await append
            return threads, [e.seq for e in await store.events("m1")]
        finally:
            await store.close()

    threads, stored = asyncio.run(body())
    assert stored == [1]
    assert threads[0] == threading.current_thread().name  # tried on the loop, found the lock held
    assert threads[1:] == ["ginrummy-db-write"]


def test_a_job_that_cannot_get_the_lock_in_time_fails_busy_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite3"

    async def body() -> tuple[list[Any], GuestRow | None]:
        store = SqlStore(f"sqlite:///{path}", busy_timeout=0.3)
        await store.start()
        try:
            await _with_guests(store, "g1")
            outside = sqlite3.connect(path, isolation_level=None)
            outside.execute("BEGIN IMMEDIATE")  # another process holds the write lock
            try:
                outcomes = await asyncio.gather(
                    store.create_guest(GuestRow("g2", "Two", 1.0)),
                    store.rename_guest("g1", "Renamed"),
                    return_exceptions=True,
                )
                found = await store.get_guest("g1")  # reads go on meanwhile
            finally:
                outside.execute("ROLLBACK")
                outside.close()
            assert await store.get_guest("g2") is None
            await store.create_guest(GuestRow("g2", "Two", 1.0))  # the lock is gone: it works
            return outcomes, found
        finally:
            await store.close()

    outcomes, found = asyncio.run(body())
    assert all(isinstance(o, StoreBusy) and o.retry_after > 0 for o in outcomes), outcomes
    assert found is not None and found.name != "Renamed"


def test_store_refuses_work_before_start(tmp_path: Path) -> None:
    async def body() -> None:
        store = SqlStore(f"sqlite:///{tmp_path / 'x.sqlite3'}")
        with pytest.raises(StoreError, match="not started"):
            await store.get_guest("g")
        store.engine.dispose()

    asyncio.run(body())


def test_urls_choose_psycopg_for_postgresql() -> None:
    assert normalize_url("postgresql://u:p@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("postgres://u:p@h/db").drivername == "postgresql+psycopg"
    assert normalize_url("sqlite:///x.db").drivername == "sqlite"


def test_sqlite_runs_in_wal_mode(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'wal.sqlite3'}")
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
    finally:
        engine.dispose()
    with pytest.raises(ValueError, match="synchronous"):
        make_engine("sqlite://", sqlite_synchronous="sometimes")


def test_a_refused_write_does_not_repeat_the_action_in_its_error(db_url: str) -> None:
    """Errors end up in logs: a face-down knock card must not travel with them."""

    async def body(store: SqlStore) -> str:
        await _with_guests(store, "g1")
        await store.create_match(a_match())
        await store.append_event("m1", EventRow(1, 0, {"type": "knock", "card": "7H"}))
        try:
            await store.append_event("m1", EventRow(1, 0, {"type": "knock", "card": "7H"}))
        except StoreError as exc:
            return str(exc)
        raise AssertionError("the duplicate was stored")

    message = run(db_url, body)
    assert "conflict" in message and "7H" not in message and "knock" not in message


def test_matches_stored_before_256_bit_deals_keep_their_deals(tmp_path: Path) -> None:
    """A database from before deal_bits: its matches are marked 64-bit and still replay their log."""
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = make_engine(url)
    legacy = Match(Rules(), seed="an-old-match", deal_bits=64)
    legacy.apply(legacy.legal_actions()[0])
    try:
        migrate(engine, "0001")
        with engine.begin() as conn:
            conn.execute(sa.text("INSERT INTO guests VALUES ('g1', 'Ann', 1.0)"))
            conn.execute(
                sa.text(
                    "INSERT INTO matches (id, kind, status, rules, seed, created_at) "
                    "VALUES ('old', 'robot', 'playing', :rules, 'an-old-match', 2.0)"
                ),
                {"rules": '{"preset":"classic"}'},
            )
            conn.execute(
                sa.text("INSERT INTO match_seats VALUES ('old', 0, 'g1', NULL), ('old', 1, NULL, 'novice')")
            )
            conn.execute(
                sa.text("INSERT INTO events VALUES ('old', 1, :seat, :action, 3.0)"),
                {
                    "seat": legacy.hands[0].steps[0].seat,
                    "action": json.dumps(legacy.hands[0].steps[0].action.to_json()),
                },
            )
    finally:
        engine.dispose()

    async def body() -> tuple[int, int, int]:
        service = GameService(SqlStore(url), ServiceConfig(robot_delay=3600, restore_seconds=0))
        await service.start()  # migrates to the head
        try:
            row = await service.store.get_match("old")
            assert row is not None
            live = await service.get_live("old")
            assert live is not None
            new = await service.create_robot_match(await service.guests.new_guest(), "novice", None)
            fresh = await service.get_live(new)
            assert fresh is not None
            return row.deal_bits, live.match.hands[0].seed, fresh.match.hands[0].seed
        finally:
            await service.close()

    bits, old_seed, new_seed = asyncio.run(body())
    assert bits == 64 and old_seed == legacy.hands[0].seed < 2**64
    assert new_seed.bit_length() > 64  # 256-bit deal seeds for matches made now


def test_an_in_memory_database_works_on_one_thread() -> None:
    async def body() -> tuple[GuestRow | None, set[str]]:
        store = SqlStore("sqlite://")
        await store.start()
        names: set[str] = set()
        try:
            await _with_guests(store, "g1")
            await store._run(lambda conn: names.add(threading.current_thread().name), read=True)
            return await store.get_guest("g1"), names
        finally:
            await store.close()

    guest, names = asyncio.run(body())
    assert guest is not None and guest.name == "Name g1" and names == {"ginrummy-db-write"}
