"""The SQL store: SQLite by default, PostgreSQL by URL, with group commit.

Database work is queued as jobs. All the jobs waiting are run in one transaction that commits
once, then the coroutines that asked are woken: under load many actions share one commit, and
each caller still resumes only after its own write is committed. A job that fails is retried
alone so it cannot spoil its neighbours' commit.

PostgreSQL jobs run on one worker thread (network round trips must not block the event loop).
SQLite jobs (synchronous=NORMAL) run on the event loop itself, flushed once per loop iteration:
a WAL commit without fsync takes microseconds, less than handing the work to a thread and back
under the GIL; the WAL checkpoints (the only fsyncs then) run on a background thread. With
synchronous=FULL, where each commit waits for the disk, SQLite uses the worker thread too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.pool import StaticPool

from ..service.ports import EventRow, GuestRow, MatchRow, SeatRow, StoreError
from .schema import events, guests, match_seats, matches, settings

__all__ = ["SqlStore", "downgrade", "make_engine", "migrate", "normalize_url"]

log = logging.getLogger("ginrummy.storage")

T = TypeVar("T")
_compact = json.JSONEncoder(separators=(",", ":")).encode  # one encoder, not a new one per action
_HERE = Path(__file__).resolve().parent


def normalize_url(url: str) -> sa.URL:
    """The URL with the psycopg 3 driver chosen for plain `postgresql://` (and `postgres://`) URLs."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    parsed = sa.make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def make_engine(
    url: str, *, sqlite_synchronous: str = "NORMAL", checkpoint_thread: bool = False
) -> sa.Engine:
    """An engine for `url`; SQLite files get WAL mode, foreign keys and the given `synchronous`.

    `checkpoint_thread`: commits never checkpoint the WAL themselves (a `_Checkpointer` does).
    """
    parsed = normalize_url(url)
    if parsed.get_backend_name() != "sqlite":
        # hide_parameters: a failed insert must not write an action (a face-down card) into a log.
        return sa.create_engine(parsed, pool_pre_ping=True, pool_size=4, hide_parameters=True)
    if sqlite_synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise ValueError(f"sqlite synchronous must be OFF, NORMAL, FULL or EXTRA, not {sqlite_synchronous!r}")
    memory = parsed.database in (None, "", ":memory:")
    engine = sa.create_engine(
        parsed,
        connect_args={"check_same_thread": False, "timeout": 30},
        hide_parameters=True,
        # An in-memory database exists once per connection: share one.
        poolclass=StaticPool if memory else None,
    )
    sync = sqlite_synchronous.upper()

    @sa.event.listens_for(engine, "connect")
    def _pragmas(dbapi_conn: Any, _record: Any) -> None:
        cursor = dbapi_conn.cursor()
        # WAL: readers never block the writer; with synchronous=NORMAL a committed
        # transaction survives the process being killed (only power loss can drop the last ones).
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={sync}")
        cursor.execute("PRAGMA foreign_keys=ON")
        if checkpoint_thread:
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    return engine


class _Checkpointer:
    """Copies the SQLite WAL back into the database file every second, off the event loop.

    A PASSIVE checkpoint never blocks writers; the sqlite3 module releases the GIL while it
    works, so its fsyncs cost the event loop nothing.
    """

    def __init__(self, path: str, interval: float = 1.0) -> None:
        self.path = path
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._work, name="ginrummy-checkpoint", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        try:
            while not self._stop.wait(self.interval):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    log.exception("WAL checkpoint failed")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            conn.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _alembic_config() -> Config:
    config = Config(str(_HERE / "alembic.ini"))
    config.set_main_option("script_location", str(_HERE / "migrations"))
    return config


def migrate(engine: sa.Engine, revision: str = "head") -> None:
    """Apply the packaged Alembic migrations up to `revision`."""
    config = _alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, revision)


def downgrade(engine: sa.Engine, revision: str) -> None:
    """Undo migrations down to `revision` ("base" removes every table)."""
    config = _alembic_config()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.downgrade(config, revision)


@dataclass(slots=True)
class _Job:
    fn: Callable[[sa.Connection], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    event: dict[str, Any] | None = None  # an events row: batched with its neighbours in one executemany


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _store_error(exc: BaseException) -> BaseException:
    if isinstance(exc, sa.exc.IntegrityError):
        return StoreError(f"conflict: {exc.orig}")
    if isinstance(exc, sa.exc.SQLAlchemyError):
        return StoreError(f"database error: {exc}")
    return exc


class SqlStore:
    """The `Store` port on SQLAlchemy Core, with group commit on one worker thread."""

    def __init__(
        self,
        url: str,
        *,
        sqlite_synchronous: str = "NORMAL",
        batch_limit: int = 512,
        inline: bool | None = None,
    ) -> None:
        self.url = url
        if inline is None:
            # With synchronous=FULL every commit waits for the disk: keep that off the event loop.
            inline = (
                normalize_url(url).get_backend_name() == "sqlite" and sqlite_synchronous.upper() != "FULL"
            )
        self.inline = inline
        self.engine = make_engine(url, sqlite_synchronous=sqlite_synchronous, checkpoint_thread=inline)
        self.batch_limit = batch_limit
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pending: list[_Job] = []
        self._started = False
        self._checkpointer: _Checkpointer | None = None
        # Inline mode keeps its one connection: checking one out of the pool and resetting it
        # on return cost more than a WAL commit, for every batch.
        self._conn: sa.Connection | None = None
        self._events_insert: tuple[str, tuple[str, ...] | None] | None = None
        self.commits = 0  # transactions committed (a batch counts once)
        self.jobs = 0

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        """Apply migrations, then start the worker thread (or the SQLite checkpointer)."""
        await asyncio.to_thread(migrate, self.engine)
        self._started = True
        if self.inline:
            database = self.engine.url.database
            if self.engine.dialect.name == "sqlite" and database not in (None, "", ":memory:"):
                self._checkpointer = _Checkpointer(str(database))
            self._conn = self.engine.connect()
        elif self._thread is None:
            self._thread = threading.Thread(target=self._work, name="ginrummy-db", daemon=True)
            self._thread.start()

    async def close(self) -> None:
        """Finish queued jobs, stop the worker and close the connections."""
        if self._pending:
            self._flush()
        self._started = False
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._thread is not None:
            self._queue.put(None)
            await asyncio.to_thread(self._thread.join)
            self._thread = None
        if self._checkpointer is not None:
            await asyncio.to_thread(self._checkpointer.stop)
            self._checkpointer = None
        self.engine.dispose()

    def _run(
        self, fn: Callable[[sa.Connection], T], event: dict[str, Any] | None = None
    ) -> asyncio.Future[T]:
        if not self._started:
            raise StoreError("the store is not started")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        job = _Job(fn, loop, future, event)
        if self.inline:
            self._pending.append(job)
            if len(self._pending) == 1:
                loop.call_soon(self._flush)  # after everything ready now: one commit for all of it
        else:
            self._queue.put(job)
        return future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        for start in range(0, len(batch), self.batch_limit):
            self._run_batch(batch[start : start + self.batch_limit])

    def _work(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            batch = [job]
            stopping = False
            while len(batch) < self.batch_limit:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stopping = True
                    break
                batch.append(more)
            self._run_batch(batch)
            if stopping:
                return

    def _run_batch(self, batch: list[_Job]) -> None:
        outcomes: list[tuple[Any, BaseException | None]]
        try:
            with self._transaction() as conn:
                outcomes = []
                rows: list[dict[str, Any]] = []
                for job in batch:
                    if job.event is not None:
                        rows.append(job.event)
                        outcomes.append((None, None))
                        continue
                    if rows:
                        self._insert_events(conn, rows)
                        rows = []
                    outcomes.append((job.fn(conn), None))
                if rows:
                    self._insert_events(conn, rows)
            self.commits += 1
        except Exception as exc:
            if len(batch) == 1:
                outcomes = [(None, _store_error(exc))]
            else:
                outcomes = [self._run_alone(job) for job in batch]
        self.jobs += len(batch)
        for job, (result, error) in zip(batch, outcomes, strict=True):
            if self.inline:
                _settle(job.future, result, error)
                continue
            # RuntimeError: the loop is closed, nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                job.loop.call_soon_threadsafe(_settle, job.future, result, error)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sa.Connection]:
        """A connection in a transaction that commits on leaving (rolls back on an error)."""
        conn = self._conn
        if conn is None:
            with self.engine.begin() as conn:
                yield conn
            return
        if conn.invalidated or conn.closed:
            conn = self._conn = self.engine.connect()
        with conn.begin():
            yield conn

    def _insert_events(self, conn: sa.Connection, rows: list[dict[str, Any]]) -> None:
        """Insert events rows with one executemany on the driver's cursor, in `conn`'s transaction.

        The INSERT is compiled once: SQLAlchemy's per-statement work (cache key, execution
        context, result) cost more than SQLite's own insert, once for every batch.
        """
        if self._events_insert is None:
            compiled = events.insert().compile(dialect=self.engine.dialect, column_keys=list(rows[0]))
            order = tuple(compiled.positiontup) if compiled.positional and compiled.positiontup else None
            self._events_insert = (str(compiled), order)
        sql, order = self._events_insert
        params: list[Any] = [tuple(row[k] for k in order) for row in rows] if order is not None else rows
        dbapi = self.engine.dialect.loaded_dbapi
        cursor = conn.connection.cursor()
        try:
            cursor.executemany(sql, params)
        except dbapi.IntegrityError as exc:
            raise sa.exc.IntegrityError(sql, None, exc) from exc
        except dbapi.Error as exc:
            raise sa.exc.DBAPIError(sql, None, exc) from exc
        finally:
            cursor.close()

    def _run_alone(self, job: _Job) -> tuple[Any, BaseException | None]:
        try:
            with self._transaction() as conn:
                result = job.fn(conn)
            self.commits += 1
            return result, None
        except Exception as exc:
            return None, _store_error(exc)

    # -- settings and guests ---------------------------------------------------

    async def get_or_create_setting(self, key: str, value: str) -> str:
        def job(conn: sa.Connection) -> str:
            row = conn.execute(sa.select(settings.c.value).where(settings.c.key == key)).first()
            if row is not None:
                return cast(str, row[0])
            conn.execute(settings.insert().values(key=key, value=value))
            return value

        return await self._run(job)

    async def create_guest(self, guest: GuestRow) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(guests.insert().values(id=guest.id, name=guest.name, created_at=guest.created_at))

        await self._run(job)

    async def get_guest(self, guest_id: str) -> GuestRow | None:
        def job(conn: sa.Connection) -> GuestRow | None:
            row = conn.execute(sa.select(guests).where(guests.c.id == guest_id)).first()
            return GuestRow(row.id, row.name, row.created_at) if row is not None else None

        return await self._run(job)

    async def get_guests(self, guest_ids: list[str]) -> dict[str, GuestRow]:
        wanted = sorted(set(guest_ids))

        def job(conn: sa.Connection) -> dict[str, GuestRow]:
            found: dict[str, GuestRow] = {}
            for chunk in _chunks(wanted, 500):
                for row in conn.execute(sa.select(guests).where(guests.c.id.in_(chunk))):
                    found[row.id] = GuestRow(row.id, row.name, row.created_at)
            return found

        return await self._run(job) if wanted else {}

    async def rename_guest(self, guest_id: str, name: str) -> None:
        def job(conn: sa.Connection) -> None:
            done = conn.execute(guests.update().where(guests.c.id == guest_id).values(name=name))
            if done.rowcount != 1:
                raise StoreError(f"no guest {guest_id!r}")

        await self._run(job)

    # -- matches ---------------------------------------------------------------

    async def create_match(self, match: MatchRow) -> None:
        await self._run(lambda conn: _insert_match(conn, match))

    async def get_match(self, match_id: str) -> MatchRow | None:
        def job(conn: sa.Connection) -> MatchRow | None:
            found = _load_matches(conn, matches.c.id == match_id)
            return found[0] if found else None

        return await self._run(job)

    async def get_match_by_code(self, code: str) -> MatchRow | None:
        def job(conn: sa.Connection) -> MatchRow | None:
            found = _load_matches(conn, matches.c.room_code == code)
            return found[0] if found else None

        return await self._run(job)

    async def take_seat(self, match_id: str, seat: int, guest_id: str) -> bool:
        def job(conn: sa.Connection) -> bool:
            done = conn.execute(
                match_seats.update()
                .where(
                    match_seats.c.match_id == match_id,
                    match_seats.c.seat == seat,
                    match_seats.c.guest_id.is_(None),
                    match_seats.c.robot_level.is_(None),
                )
                .values(guest_id=guest_id)
            )
            if done.rowcount != 1:
                return False
            conn.execute(
                matches.update()
                .where(matches.c.id == match_id, matches.c.status == "waiting")
                .values(status="playing")
            )
            return True

        return await self._run(job)

    async def append_event(self, match_id: str, event: EventRow) -> None:
        row = {
            "match_id": match_id,
            "seq": event.seq,
            "seat": event.seat,
            "action": _compact(event.action),
            "created_at": time.time(),
        }

        def job(conn: sa.Connection) -> None:
            conn.execute(events.insert(), [row])

        await self._run(job, row)

    async def events(self, match_id: str) -> list[EventRow]:
        def job(conn: sa.Connection) -> list[EventRow]:
            rows = conn.execute(
                sa.select(events.c.seq, events.c.seat, events.c.action)
                .where(events.c.match_id == match_id)
                .order_by(events.c.seq)
            )
            return [EventRow(r.seq, r.seat, json.loads(r.action)) for r in rows]

        return await self._run(job)

    async def finish_match(self, match_id: str, result: dict[str, Any], finished_at: float) -> None:
        text = json.dumps(result, separators=(",", ":"))

        def job(conn: sa.Connection) -> None:
            conn.execute(
                matches.update()
                .where(matches.c.id == match_id)
                .values(status="over", result=text, finished_at=finished_at)
            )

        await self._run(job)

    async def set_rematch(self, match_id: str, rematch: MatchRow) -> str:
        def job(conn: sa.Connection) -> str:
            row = conn.execute(sa.select(matches.c.rematch_id).where(matches.c.id == match_id)).first()
            if row is None:
                raise StoreError(f"no match {match_id!r}")
            if row[0] is not None:
                return cast(str, row[0])
            _insert_match(conn, rematch)
            conn.execute(matches.update().where(matches.c.id == match_id).values(rematch_id=rematch.id))
            return rematch.id

        return await self._run(job)

    async def live_matches(self, active_since: float | None = None) -> list[MatchRow]:
        where = matches.c.status != "over"
        if active_since is not None:
            played = sa.exists().where(events.c.match_id == matches.c.id, events.c.created_at >= active_since)
            where = sa.and_(where, sa.or_(matches.c.created_at >= active_since, played))
        return await self._run(lambda conn: _load_matches(conn, where))

    async def matches_of(self, guest_id: str, limit: int = 100) -> list[MatchRow]:
        def job(conn: sa.Connection) -> list[MatchRow]:
            ids = (
                sa.select(match_seats.c.match_id).where(match_seats.c.guest_id == guest_id).scalar_subquery()
            )
            return _load_matches(conn, matches.c.id.in_(ids), limit=limit)

        return await self._run(job)


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _insert_match(conn: sa.Connection, match: MatchRow) -> None:
    conn.execute(
        matches.insert().values(
            id=match.id,
            kind=match.kind,
            status=match.status,
            rules=json.dumps(match.rules, sort_keys=True, separators=(",", ":")),
            seed=match.seed,
            room_code=match.room_code,
            turn_seconds=match.turn_seconds,
            created_at=match.created_at,
            finished_at=match.finished_at,
            result=json.dumps(match.result, separators=(",", ":")) if match.result is not None else None,
            rematch_of=match.rematch_of,
            rematch_id=match.rematch_id,
        )
    )
    conn.execute(
        match_seats.insert(),
        [
            {"match_id": match.id, "seat": s.seat, "guest_id": s.guest_id, "robot_level": s.robot_level}
            for s in match.seats
        ],
    )


def _load_matches(conn: sa.Connection, where: Any, *, limit: int | None = None) -> list[MatchRow]:
    query = sa.select(matches).where(where).order_by(matches.c.created_at.desc(), matches.c.id)
    if limit is not None:
        query = query.limit(limit)
    rows = list(conn.execute(query))
    if not rows:
        return []
    seats: dict[str, dict[int, SeatRow]] = {}
    for chunk in _chunks([r.id for r in rows], 500):
        for s in conn.execute(sa.select(match_seats).where(match_seats.c.match_id.in_(chunk))):
            seats.setdefault(s.match_id, {})[s.seat] = SeatRow(s.seat, s.guest_id, s.robot_level)
    found = []
    for r in rows:
        by_seat = seats.get(r.id, {})
        found.append(
            MatchRow(
                id=r.id,
                kind=r.kind,
                status=r.status,
                rules=json.loads(r.rules),
                seed=r.seed,
                seats=(by_seat.get(0, SeatRow(0)), by_seat.get(1, SeatRow(1))),
                created_at=r.created_at,
                room_code=r.room_code,
                turn_seconds=r.turn_seconds,
                finished_at=r.finished_at,
                result=json.loads(r.result) if r.result is not None else None,
                rematch_of=r.rematch_of,
                rematch_id=r.rematch_id,
            )
        )
    return found
