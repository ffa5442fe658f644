"""The SQL store: SQLite by default, PostgreSQL by URL, with group commit off the event loop.

Database work is queued as jobs on two worker threads, one for writes and one for reads. The
writer runs all the jobs waiting in one transaction that commits once, then wakes the coroutines
that asked (one hop back to the event loop per batch): under load many actions share one commit,
and each caller still resumes only after its own write is committed. A job that fails is retried
alone so it cannot spoil its neighbours' commit. Reads have their own thread and connection, so
a write waiting for a lock never holds them up (SQLite in WAL mode reads while another writes).

Nothing waits for the database on the event loop, and no job waits long: a job not started
within `busy_timeout` seconds of being asked for, or whose transaction cannot get its lock
within what is left of that time (another process holding the SQLite file, a PostgreSQL row
lock), fails with `StoreBusy` and has changed nothing; the caller says "try again shortly".

Leases (many server processes on one PostgreSQL, see docs/deploy.md) run on a third thread of
their own, so a heartbeat never waits behind a queue of writes, and the heartbeat's renewal on a
fourth, so it never waits behind claims either. Each lease job is a transaction of its own (a
batch of claims and a renewal would hold rows of several processes at once, and two processes
doing that deadlock), and every statement that locks many leases locks them in name order. An
event written under a lease is fenced: its insert selects the row only while the lease it is
written under still has the writer's owner and epoch and has not run out (`FOR SHARE` on
PostgreSQL, so a process taking the lease over waits for the commit and then rebuilds from a log
that holds it); the others fail with `LeaseLost`, having written nothing. Lease times are the
database's clock. A batch of events alone goes straight to the driver: on PostgreSQL its inserts
and the commit are one round trip.

With SQLite the WAL is copied back into the database file by a checkpoint thread (commits never
checkpoint themselves), so a commit with synchronous=NORMAL does no fsync at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.pool import StaticPool

from ..service.ports import (
    AccountRow,
    AnalysisRow,
    AnalysisStatus,
    BoardLine,
    BoardPart,
    BotRow,
    EventRow,
    FlagRow,
    GuestRow,
    Lease,
    LeaseLost,
    MatchOutcome,
    MatchRow,
    PlayerStats,
    RatingPoint,
    RatingRow,
    SeatRow,
    StoreBusy,
    StoreError,
    TournamentPlayer,
    TournamentRow,
)
from .schema import (
    accounts,
    analyses,
    bots,
    events,
    fair_play_flags,
    guest_addresses,
    guests,
    leases,
    match_seats,
    matches,
    player_matches,
    rating_history,
    ratings,
    score_buckets,
    sessions,
    settings,
    sign_in_failures,
    tournament_byes,
    tournament_players,
    tournaments,
)

__all__ = ["SqlStore", "downgrade", "make_engine", "migrate", "migration_heads", "normalize_url"]

log = logging.getLogger("ginrummy.storage")

T = TypeVar("T")
_compact = json.JSONEncoder(separators=(",", ":")).encode  # one encoder, not a new one per action
_HERE = Path(__file__).resolve().parent

#: Seconds a job may wait for its turn and its lock before it fails with `StoreBusy`.
BUSY_TIMEOUT = 5.0
#: What a caller refused with `StoreBusy` is told to wait before trying again.
RETRY_AFTER = 2.0


def normalize_url(url: str) -> sa.URL:
    """The URL with the psycopg 3 driver chosen for plain `postgresql://` (and `postgres://`) URLs."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    parsed = sa.make_url(url)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def make_engine(
    url: str,
    *,
    sqlite_synchronous: str = "NORMAL",
    checkpoint_thread: bool = False,
    busy_timeout: float = BUSY_TIMEOUT,
) -> sa.Engine:
    """An engine for `url`; SQLite files get WAL mode, foreign keys and the given `synchronous`.

    `checkpoint_thread`: commits never checkpoint the WAL themselves (a `_Checkpointer` does).
    `busy_timeout`: how long a statement waits for a lock another connection holds.
    """
    parsed = normalize_url(url)
    if parsed.get_backend_name() != "sqlite":
        # hide_parameters: a failed insert must not write an action (a face-down card) into a log.
        return sa.create_engine(
            parsed,
            pool_pre_ping=True,
            pool_size=4,
            hide_parameters=True,
            connect_args={"options": f"-c lock_timeout={max(1, round(busy_timeout * 1000))}"},
        )
    if sqlite_synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise ValueError(f"sqlite synchronous must be OFF, NORMAL, FULL or EXTRA, not {sqlite_synchronous!r}")
    memory = parsed.database in (None, "", ":memory:")
    engine = sa.create_engine(
        parsed,
        connect_args={"check_same_thread": False, "timeout": busy_timeout},
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
    """Copies the SQLite WAL back into the database file every second, on its own thread.

    A PASSIVE checkpoint never blocks writers; the sqlite3 module releases the GIL while it
    works, so its fsyncs cost the writer and the event loop nothing. `checkpoint()` asks for
    one at once and returns when it is done (tests, and a store closing).
    """

    def __init__(self, path: str, interval: float = 1.0) -> None:
        self.path = path
        self.interval = interval
        self.done = 0  # checkpoints completed
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._finished = threading.Condition()
        self._thread = threading.Thread(target=self._work, name="ginrummy-checkpoint", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        conn = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        try:
            while not self._stop.is_set():
                self._wake.wait(self.interval)
                self._wake.clear()
                if self._stop.is_set():
                    break
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error:
                    log.exception("WAL checkpoint failed")
                with self._finished:
                    self.done += 1
                    self._finished.notify_all()
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        finally:
            conn.close()

    def checkpoint(self, timeout: float = 30.0) -> None:
        """Have the thread copy the WAL into the database file now; return once it has."""
        with self._finished:
            wanted = self.done + 1
            self._wake.set()
            if not self._finished.wait_for(lambda: self.done >= wanted, timeout):
                raise TimeoutError("the WAL checkpoint thread did not answer")

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join()


def _alembic_config() -> Config:
    config = Config(str(_HERE / "alembic.ini"))
    config.set_main_option("script_location", str(_HERE / "migrations"))
    return config


def migration_heads() -> list[str]:
    """The head revisions of the packaged migrations (one, unless two lines of migrations diverged)."""
    return list(ScriptDirectory.from_config(_alembic_config()).get_heads())


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
    deadline: float  # time.monotonic() after which the job is refused unstarted
    event: dict[str, Any] | None = None  # an events row: batched with its neighbours in one executemany
    fence: Lease | None = None  # the lease the event is written under


def _settle(outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    """On the event loop: hand every job of a batch its result (one wake-up for the batch)."""
    for future, result, error in outcomes:
        if future.done():
            continue
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)


def _busy(exc: BaseException) -> bool:
    """Whether a database error says a lock could not be had in time (nothing was done)."""
    orig = getattr(exc, "orig", exc)
    if isinstance(orig, sqlite3.OperationalError):
        text = str(orig).lower()
        return "locked" in text or "busy" in text
    return getattr(orig, "sqlstate", None) in ("55P03", "57014")  # lock_not_available, query_canceled


def _store_error(exc: BaseException) -> BaseException:
    if _busy(exc):
        return StoreBusy("the database is busy; nothing was changed", RETRY_AFTER)
    if isinstance(exc, sa.exc.IntegrityError):
        return StoreError(f"conflict: {exc.orig}")
    if isinstance(exc, sa.exc.SQLAlchemyError):
        return StoreError(f"database error: {exc}")
    return exc


@dataclass
class _Lane:
    """One worker thread with its own connection, running its queue's jobs in batches."""

    name: str
    queue: queue.SimpleQueue[list[_Job] | None] = field(default_factory=queue.SimpleQueue)
    #: Jobs asked for in this turn of the event loop, handed to the thread together at its end:
    #: one wake-up of the thread for all of them.
    pending: list[_Job] = field(default_factory=list)
    thread: threading.Thread | None = None
    conn: sa.Connection | None = None
    busy_ms: int = -1  # SQLite: the busy timeout last set on `conn` (-1: not yet)
    alone: bool = False  # each job in a transaction of its own (no batches)


class SqlStore:
    """The `Store` port on SQLAlchemy Core: group commit on a writer thread, reads on another."""

    def __init__(
        self,
        url: str,
        *,
        sqlite_synchronous: str = "NORMAL",
        batch_limit: int = 512,
        busy_timeout: float = BUSY_TIMEOUT,
        checkpoint_interval: float = 1.0,
    ) -> None:
        self.url = url
        self.checkpoint_interval = checkpoint_interval
        self.busy_timeout = busy_timeout
        sqlite = normalize_url(url).get_backend_name() == "sqlite"
        self.engine = make_engine(
            url, sqlite_synchronous=sqlite_synchronous, checkpoint_thread=sqlite, busy_timeout=busy_timeout
        )
        self.batch_limit = batch_limit
        # An in-memory SQLite database is one connection shared by both lanes: one thread then.
        self._shared_connection = sqlite and normalize_url(url).database in (None, "", ":memory:")
        self._writer = _Lane("ginrummy-db-write")
        self._reader = _Lane("ginrummy-db-read")
        self._leaser = _Lane("ginrummy-db-lease", alone=True)  # started on the first lease operation
        self._beater = _Lane("ginrummy-db-heartbeat", alone=True)  # the renewals, started on the first
        self._started = False
        self._checkpointer: _Checkpointer | None = None
        self._events_insert: tuple[str, tuple[str, ...] | None] | None = None
        self.commits = 0  # transactions committed (a batch counts once)
        self.jobs = 0

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        """Apply migrations, then start the worker threads (and the SQLite checkpointer)."""
        await asyncio.to_thread(migrate, self.engine)
        database = self.engine.url.database
        if self.engine.dialect.name == "sqlite" and database not in (None, "", ":memory:"):
            self._checkpointer = _Checkpointer(str(database), self.checkpoint_interval)
        for lane in (self._writer, self._reader):
            if lane.thread is None:
                lane.thread = threading.Thread(target=self._work, args=(lane,), name=lane.name, daemon=True)
                lane.thread.start()
        self._started = True

    async def close(self) -> None:
        """Finish the queued jobs, stop the workers and close the connections."""
        self._started = False
        for lane in (self._writer, self._reader, self._leaser, self._beater):
            self._hand_over(lane)  # what was asked for before the close is done first
            if lane.thread is not None:
                lane.queue.put(None)
                await asyncio.to_thread(lane.thread.join)
                lane.thread = None
        if self._checkpointer is not None:
            await asyncio.to_thread(self._checkpointer.stop)
            self._checkpointer = None
        self.engine.dispose()

    def checkpoint(self) -> None:
        """SQLite: copy the WAL into the database file now, on the checkpoint thread (blocking)."""
        if self._checkpointer is not None:
            self._checkpointer.checkpoint()

    def _run(
        self,
        fn: Callable[[sa.Connection], T],
        event: dict[str, Any] | None = None,
        fence: Lease | None = None,
        *,
        read: bool = False,
        lease: bool = False,
        heartbeat: bool = False,
    ) -> asyncio.Future[T]:
        if not self._started:
            raise StoreError("the store is not started")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        job = _Job(fn, loop, future, time.monotonic() + self.busy_timeout, event, fence)
        if self._shared_connection:
            lane = self._writer
        elif read:
            lane = self._reader
        elif lease or heartbeat:
            lane = self._beater if heartbeat else self._leaser
            if lane.thread is None:
                lane.thread = threading.Thread(target=self._work, args=(lane,), name=lane.name, daemon=True)
                lane.thread.start()
        else:
            lane = self._writer
        lane.pending.append(job)
        if len(lane.pending) == 1:
            loop.call_soon(self._hand_over, lane)
        return future

    @staticmethod
    def _hand_over(lane: _Lane) -> None:
        """Give the thread the jobs asked for since the last hand-over (one wake-up for all)."""
        if lane.pending:
            jobs, lane.pending = lane.pending, []
            lane.queue.put(jobs)

    def _work(self, lane: _Lane) -> None:
        limit = 1 if lane.alone else self.batch_limit
        carry: list[_Job] = []  # jobs handed over that did not fit in the last batch
        try:
            while True:
                if not carry:
                    jobs = lane.queue.get()
                    if jobs is None:
                        return
                    carry = jobs
                batch, carry = carry[:limit], carry[limit:]
                stopping = False
                while len(batch) < limit and not carry:
                    try:
                        more = lane.queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stopping = True
                        break
                    room = limit - len(batch)
                    batch.extend(more[:room])
                    carry = more[room:]
                self._run_batch(lane, batch)
                if stopping:
                    return
        finally:
            if lane.conn is not None:
                lane.conn.close()
                lane.conn = None

    def _run_batch(self, lane: _Lane, batch: list[_Job]) -> None:
        now = time.monotonic()
        late = [job for job in batch if job.deadline <= now]
        if late:
            # Waited their whole time for their turn: refused unstarted, nothing changed.
            self._answer(
                [
                    (job, None, StoreBusy("the database is busy; nothing was changed", RETRY_AFTER))
                    for job in late
                ]
            )
            batch = [job for job in batch if job.deadline > now]
            if not batch:
                return
        outcomes: list[tuple[Any, BaseException | None]]
        try:
            if all(job.event is not None for job in batch):
                # The common batch, actions only: written on the driver's connection, no
                # SQLAlchemy transaction around it (its bookkeeping cost more than the commit).
                outcomes = self._commit_events(lane, batch, min(job.deadline for job in batch) - now)
                self.jobs += len(batch)
                self.commits += 1
                self._answer([(job, r, e) for job, (r, e) in zip(batch, outcomes, strict=True)])
                return
            with self._transaction(lane, min(job.deadline for job in batch) - now) as conn:
                outcomes = []
                waiting: list[int] = []  # event jobs of the batch, inserted together
                for index, job in enumerate(batch):
                    if job.event is not None:
                        waiting.append(index)
                        outcomes.append((None, None))
                        continue
                    if waiting:
                        self._insert_batched_events(conn, batch, waiting, outcomes)
                        waiting = []
                    outcomes.append((job.fn(conn), None))
                if waiting:
                    self._insert_batched_events(conn, batch, waiting, outcomes)
            self.commits += 1
        except Exception as exc:
            if len(batch) == 1 or _busy(exc):
                # A lock that could not be had spoils no job: each is refused, none is retried.
                outcomes = [(None, _store_error(exc))] * len(batch)
            else:
                outcomes = [self._run_alone(lane, job) for job in batch]
        self.jobs += len(batch)
        self._answer([(job, result, error) for job, (result, error) in zip(batch, outcomes, strict=True)])

    @staticmethod
    def _answer(answers: list[tuple[_Job, Any, BaseException | None]]) -> None:
        by_loop: dict[
            asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any, BaseException | None]]
        ] = {}
        for job, result, error in answers:
            by_loop.setdefault(job.loop, []).append((job.future, result, error))
        for loop, outcomes in by_loop.items():
            # RuntimeError: the loop is closed, nobody is waiting any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_settle, outcomes)

    @contextlib.contextmanager
    def _transaction(self, lane: _Lane, wait: float) -> Iterator[sa.Connection]:
        """The lane's connection in a transaction that commits on leaving (rolls back on an error).

        `wait`: seconds the transaction may wait for a lock (SQLite's busy timeout for it).
        """
        conn = self._connection(lane, wait)
        with conn.begin():
            yield conn

    def _connection(self, lane: _Lane, wait: float) -> sa.Connection:
        """The lane's connection (opened again if it was lost), out of any transaction.

        `wait`: seconds the next transaction may wait for a lock. SQLite is told it (its busy
        timeout) when it would otherwise wait longer than that, or shorter by more than a tenth
        of `busy_timeout`; it is then told a twentieth less, so that the batches after it, whose
        oldest jobs have about as much time left, find it set and the PRAGMA is seldom run.
        """
        conn = lane.conn
        if conn is None or conn.invalidated or conn.closed:
            conn = lane.conn = self.engine.connect()
            lane.busy_ms = -1
        if self.engine.dialect.name == "sqlite":
            wanted = max(1, int(wait * 1000))
            slack = int(self.busy_timeout * 100)  # a tenth of the whole wait, in milliseconds
            if not wanted - slack <= lane.busy_ms <= wanted:
                lane.busy_ms = max(1, wanted - slack // 2)
                conn.connection.dbapi_connection.execute(  # type: ignore[union-attr]
                    f"PRAGMA busy_timeout={lane.busy_ms}"
                )
        return conn

    def _commit_events(
        self, lane: _Lane, batch: list[_Job], wait: float
    ) -> list[tuple[Any, BaseException | None]]:
        """Insert the events of a batch of event jobs in one transaction of the driver's own
        connection and commit it; a fenced one whose lease is no longer held gets `LeaseLost`.

        The fence is folded into the insert: a fenced event's row is selected only while its lease
        is held (on PostgreSQL locking the lease FOR SHARE until the commit, so a process taking
        it over waits for the commit and then reads the event). On PostgreSQL the inserts and the
        commit go in one pipeline: one round trip for the batch.
        """
        conn = self._connection(lane, wait)
        dbapi_conn: Any = conn.connection.dbapi_connection
        plain = [cast(dict[str, Any], job.event) for job in batch if job.fence is None]
        fenced = [(cast(dict[str, Any], job.event), job.fence) for job in batch if job.fence is not None]
        dbapi = self.engine.dialect.loaded_dbapi
        try:
            if self.engine.dialect.name == "postgresql":
                written = self._write_events_postgres(dbapi_conn, plain, fenced)
            else:
                written = self._write_events_sqlite(dbapi_conn, plain, fenced)
        except BaseException as exc:
            with contextlib.suppress(Exception):
                dbapi_conn.rollback()
            if isinstance(exc, dbapi.IntegrityError):
                raise sa.exc.IntegrityError("INSERT INTO events", None, exc) from exc
            if isinstance(exc, dbapi.Error):
                raise sa.exc.DBAPIError("INSERT INTO events", None, exc) from exc
            raise
        return [
            (None, _lease_lost(job.fence))
            if job.fence is not None and _event_key(cast(dict[str, Any], job.event)) not in written
            else (None, None)
            for job in batch
        ]

    def _write_events_sqlite(
        self, dbapi_conn: Any, plain: list[dict[str, Any]], fenced: list[tuple[dict[str, Any], Lease]]
    ) -> set[tuple[str, int]]:
        """Insert and commit (the sqlite3 module begins the transaction before the first insert);
        returns the (match, seq) of the fenced events written."""
        written: set[tuple[str, int]] = set()
        cursor = dbapi_conn.cursor()
        try:
            if plain:
                cursor.executemany(self._events_sql(plain[0])[0], self._events_params(plain))
            for row, fence in fenced:
                cursor.execute(
                    _SQLITE_FENCED_INSERT,
                    (*(row[k] for k in _EVENT_COLUMNS), fence.name, fence.owner, fence.epoch),
                )
                if cursor.rowcount == 1:
                    written.add(_event_key(row))
        finally:
            cursor.close()
        dbapi_conn.commit()
        return written

    def _write_events_postgres(
        self, dbapi_conn: Any, plain: list[dict[str, Any]], fenced: list[tuple[dict[str, Any], Lease]]
    ) -> set[tuple[str, int]]:
        """Insert and commit in one pipeline; returns the (match, seq) of the fenced events
        written (the fenced insert returns the rows it wrote)."""
        written: set[tuple[str, int]] = set()
        with dbapi_conn.pipeline():
            cursor = dbapi_conn.cursor()
            if plain:
                cursor.executemany(self._events_sql(plain[0])[0], self._events_params(plain))
            returning = None
            if fenced:
                returning = dbapi_conn.cursor()
                # The leases are locked in the order of their names, as every batch locks them.
                fenced = sorted(fenced, key=lambda pair: pair[1].name)
                columns = [[row[k] for row, _fence in fenced] for k in _EVENT_COLUMNS]
                columns[_EVENT_COLUMNS.index("epoch")] = [fence.epoch for _row, fence in fenced]
                returning.execute(
                    _PG_FENCED_INSERT,
                    (
                        *columns,
                        [fence.name for _row, fence in fenced],
                        [fence.owner for _row, fence in fenced],
                    ),
                )
            dbapi_conn.commit()
        if returning is not None:
            written.update((match_id, seq) for match_id, seq in returning.fetchall())
        return written

    def _insert_batched_events(
        self,
        conn: sa.Connection,
        batch: list[_Job],
        indexes: list[int],
        outcomes: list[tuple[Any, BaseException | None]],
    ) -> None:
        """Insert the events of `batch[i]` for i in `indexes`; a fenced one whose lease is no longer
        held gets `LeaseLost` in `outcomes` and is left out."""
        fences = [fence for i in indexes if (fence := batch[i].fence) is not None]
        rows: list[dict[str, Any]] = []
        if fences:
            lost = self._lost_fences(conn, fences)
            for i in indexes:
                fence = batch[i].fence
                if fence is not None and fence in lost:
                    outcomes[i] = (None, _lease_lost(fence))
                else:
                    rows.append(cast(dict[str, Any], batch[i].event))
        else:
            rows = [cast(dict[str, Any], batch[i].event) for i in indexes]
        if rows:
            self._insert_events(conn, rows)

    def _lost_fences(self, conn: sa.Connection, fences: list[Lease]) -> set[Lease]:
        """Those of `fences` not held any more, read in `conn`'s transaction.

        On PostgreSQL the leases still held are locked FOR SHARE until the commit: a process
        taking one over waits for the events written under it, and then reads them.
        """
        names = sorted({fence.name for fence in fences})
        if self.engine.dialect.name == "postgresql":
            # Written once and sent straight to the driver (prepared by the server after a few
            # uses): every batch of events runs it, and SQLAlchemy's work on a select built per
            # call cost more than the query.
            cursor = conn.connection.cursor()
            try:
                cursor.execute(_PG_HELD_LEASES, (names,))
                held = {(name, owner, epoch) for name, owner, epoch in cursor.fetchall()}
            finally:
                cursor.close()
        else:
            query = sa.select(leases.c.name, leases.c.owner, leases.c.epoch).where(
                leases.c.name.in_(names), leases.c.expires_at > _db_now(self.engine.dialect.name)
            )
            held = {(row.name, row.owner, row.epoch) for row in conn.execute(query)}
        return {fence for fence in fences if (fence.name, fence.owner, fence.epoch) not in held}

    def _check_fence(self, conn: sa.Connection, fence: Lease | None) -> None:
        """Raise `LeaseLost` (the transaction writes nothing) unless `fence` is None or still held."""
        if fence is not None and self._lost_fences(conn, [fence]):
            raise _lease_lost(fence)

    def _insert_events(self, conn: sa.Connection, rows: list[dict[str, Any]]) -> None:
        """Insert events rows with one executemany on the driver's cursor, in `conn`'s transaction."""
        sql = self._events_sql(rows[0])[0]
        dbapi = self.engine.dialect.loaded_dbapi
        cursor = conn.connection.cursor()
        try:
            cursor.executemany(sql, self._events_params(rows))
        except dbapi.IntegrityError as exc:
            raise sa.exc.IntegrityError(sql, None, exc) from exc
        except dbapi.Error as exc:
            raise sa.exc.DBAPIError(sql, None, exc) from exc
        finally:
            cursor.close()

    def _events_sql(self, row: dict[str, Any]) -> tuple[str, tuple[str, ...] | None]:
        """The events INSERT for the driver, compiled once, and its parameters' order (positional
        drivers). SQLAlchemy's per-statement work (cache key, execution context, result) cost more
        than SQLite's own insert, once for every batch."""
        if self._events_insert is None:
            compiled = events.insert().compile(dialect=self.engine.dialect, column_keys=list(row))
            order = tuple(compiled.positiontup) if compiled.positional and compiled.positiontup else None
            self._events_insert = (str(compiled), order)
        return self._events_insert

    def _events_params(self, rows: list[dict[str, Any]]) -> list[Any]:
        order = self._events_sql(rows[0])[1]
        return [tuple(row[k] for k in order) for row in rows] if order is not None else rows

    def _run_alone(self, lane: _Lane, job: _Job) -> tuple[Any, BaseException | None]:
        try:
            with self._transaction(lane, job.deadline - time.monotonic()) as conn:
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
            return GuestRow(row.id, row.name, row.created_at, row.session_epoch) if row is not None else None

        return await self._run(job, read=True)

    async def get_guests(self, guest_ids: list[str]) -> dict[str, GuestRow]:
        wanted = sorted(set(guest_ids))

        def job(conn: sa.Connection) -> dict[str, GuestRow]:
            found: dict[str, GuestRow] = {}
            for chunk in _chunks(wanted, 500):
                for row in conn.execute(sa.select(guests).where(guests.c.id.in_(chunk))):
                    found[row.id] = GuestRow(row.id, row.name, row.created_at, row.session_epoch)
            return found

        return await self._run(job, read=True) if wanted else {}

    async def cookie_guest(self, guest_id: str, session_hash: str | None) -> GuestRow | None:
        def job(conn: sa.Connection) -> GuestRow | None:
            query = sa.select(guests).where(guests.c.id == guest_id)
            if session_hash is not None:
                query = query.join(sessions, sessions.c.guest_id == guests.c.id).where(
                    sessions.c.token_hash == session_hash
                )
            else:
                query = query.outerjoin(accounts, accounts.c.guest_id == guests.c.id).where(
                    accounts.c.guest_id.is_(None)
                )
            row = conn.execute(query).first()
            return GuestRow(row.id, row.name, row.created_at, row.session_epoch) if row is not None else None

        return await self._run(job, read=True)

    async def create_session(self, session_hash: str, guest_id: str, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(sessions.insert().values(token_hash=session_hash, guest_id=guest_id, created_at=at))

        await self._run(job)

    async def end_session(self, session_hash: str) -> bool:
        def job(conn: sa.Connection) -> bool:
            return bool(conn.execute(sessions.delete().where(sessions.c.token_hash == session_hash)).rowcount)

        return await self._run(job)

    async def revoke_sessions(self, guest_id: str) -> int:
        def job(conn: sa.Connection) -> int:
            conn.execute(sessions.delete().where(sessions.c.guest_id == guest_id))
            epoch = conn.execute(
                guests.update()
                .where(guests.c.id == guest_id)
                .values(session_epoch=guests.c.session_epoch + 1)
                .returning(guests.c.session_epoch)
            ).scalar()
            if epoch is None:
                raise StoreError(f"no guest {guest_id!r}")
            return int(epoch)

        return await self._run(job)

    async def rename_guest(self, guest_id: str, name: str) -> None:
        def job(conn: sa.Connection) -> None:
            done = conn.execute(guests.update().where(guests.c.id == guest_id).values(name=name))
            if done.rowcount != 1:
                raise StoreError(f"no guest {guest_id!r}")

        await self._run(job)

    # -- matches ---------------------------------------------------------------

    async def create_match(self, match: MatchRow) -> None:
        await self._run(lambda conn: _insert_match(conn, match))

    async def create_matches(self, matches: list[MatchRow], fence: Lease | None = None) -> None:
        def job(conn: sa.Connection) -> None:
            self._check_fence(conn, fence)
            _insert_matches(conn, matches)

        if matches:
            await self._run(job)

    async def get_match(self, match_id: str) -> MatchRow | None:
        def job(conn: sa.Connection) -> MatchRow | None:
            found = _load_matches(conn, matches.c.id == match_id)
            return found[0] if found else None

        return await self._run(job, read=True)

    async def get_match_by_code(self, code: str) -> MatchRow | None:
        def job(conn: sa.Connection) -> MatchRow | None:
            found = _load_matches(conn, matches.c.room_code == code)
            return found[0] if found else None

        return await self._run(job, read=True)

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
            empty = conn.execute(
                sa.select(sa.func.count())
                .select_from(match_seats)
                .where(
                    match_seats.c.match_id == match_id,
                    match_seats.c.guest_id.is_(None),
                    match_seats.c.robot_level.is_(None),
                )
            ).scalar_one()
            if empty == 0:  # the last seat: the match is dealt
                conn.execute(
                    matches.update()
                    .where(matches.c.id == match_id, matches.c.status == "waiting")
                    .values(status="playing")
                )
            return True

        return await self._run(job)

    async def append_event(self, match_id: str, event: EventRow, fence: Lease | None = None) -> None:
        row = {
            "match_id": match_id,
            "seq": event.seq,
            "seat": event.seat,
            "action": _compact(event.action),
            "created_at": time.time(),
            "epoch": fence.epoch if fence is not None else None,
            "auto": event.auto,
        }

        def job(conn: sa.Connection) -> None:
            # Run alone (its batch failed): the same fence, then the same insert.
            self._check_fence(conn, fence)
            conn.execute(events.insert(), [row])

        await self._run(job, row, fence)

    async def events(self, match_id: str) -> list[EventRow]:
        def job(conn: sa.Connection) -> list[EventRow]:
            rows = conn.execute(
                sa.select(events.c.seq, events.c.seat, events.c.action, events.c.auto)
                .where(events.c.match_id == match_id)
                .order_by(events.c.seq)
            )
            return [EventRow(r.seq, r.seat, json.loads(r.action), bool(r.auto)) for r in rows]

        return await self._run(job, read=True)

    async def finish_match(
        self,
        match_id: str,
        result: dict[str, Any],
        finished_at: float,
        outcome: MatchOutcome | None = None,
    ) -> None:
        text = json.dumps(result, separators=(",", ":"))

        def job(conn: sa.Connection) -> None:
            done = conn.execute(
                matches.update()
                .where(matches.c.id == match_id, matches.c.status != "over")
                .values(status="over", result=text, finished_at=finished_at)
            )
            # Only the first finish adds the outcome: a second call (a restart finishing a match
            # whose final action was stored) must not count the match twice.
            if done.rowcount == 1 and outcome is not None:
                _write_outcome(conn, match_id, finished_at, outcome)

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

    # -- replay analyses ---------------------------------------------------------

    async def request_analysis(self, match_id: str, engine: str, at: float) -> AnalysisRow:
        def job(conn: sa.Connection) -> AnalysisRow:
            conn.execute(
                _insert_ignore(self.engine.dialect.name, analyses).values(
                    match_id=match_id, status="queued", engine=engine, requested_at=at
                )
            )
            row = _analysis(conn, match_id)
            assert row is not None
            if row.status == "failed" or row.engine != engine:
                conn.execute(
                    analyses.update()
                    .where(analyses.c.match_id == match_id)
                    .values(
                        status="queued",
                        engine=engine,
                        requested_at=at,
                        finished_at=None,
                        result=None,
                        error=None,
                    )
                )
                row = AnalysisRow(match_id, "queued", engine, at)
            return row

        return await self._run(job)

    async def get_analysis(self, match_id: str) -> AnalysisRow | None:
        return await self._run(lambda conn: _analysis(conn, match_id), read=True)

    async def set_analysis(
        self,
        match_id: str,
        status: AnalysisStatus,
        at: float,
        *,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        values: dict[str, Any] = {"status": status, "error": error}
        if status in ("done", "failed"):
            values["finished_at"] = at
            values["result"] = _compact(result) if result is not None else None

        def job(conn: sa.Connection) -> None:
            done = conn.execute(analyses.update().where(analyses.c.match_id == match_id).values(**values))
            if done.rowcount != 1:
                raise StoreError(f"no analysis of match {match_id!r}")

        await self._run(job)

    async def unfinished_analyses(self) -> list[str]:
        def job(conn: sa.Connection) -> list[str]:
            rows = conn.execute(
                sa.select(analyses.c.match_id)
                .where(analyses.c.status.in_(("queued", "running")))
                .order_by(analyses.c.requested_at, analyses.c.match_id)
            )
            return [row.match_id for row in rows]

        return await self._run(job, read=True)

    # -- leases (many server processes) ----------------------------------------

    async def claim_lease(self, name: str, owner: str, ttl: float) -> Lease:
        def job(conn: sa.Connection) -> Lease:
            now = _db_now(self.engine.dialect.name)
            conn.execute(
                _insert_ignore(self.engine.dialect.name, leases).values(
                    name=name, owner=None, epoch=0, expires_at=0.0
                )
            )
            taken = conn.execute(
                leases.update()
                .where(
                    leases.c.name == name,
                    sa.or_(leases.c.owner.is_(None), leases.c.owner == owner, leases.c.expires_at <= now),
                )
                # SET reads the row as it was: the epoch grows unless the lease was already ours.
                .values(
                    epoch=sa.case((leases.c.owner == owner, leases.c.epoch), else_=leases.c.epoch + 1),
                    owner=owner,
                    expires_at=now + ttl,
                )
                .returning(*_LEASE_COLUMNS)
            ).first()
            if taken is None:
                taken = conn.execute(sa.select(*_LEASE_COLUMNS).where(leases.c.name == name)).first()
            assert taken is not None
            return _lease(taken)

        return await self._run(job, lease=True)

    async def renew_leases(self, owner: str, ttl: float) -> list[Lease]:
        """Renew every lease of `owner`: in one statement those no transaction holds locked, then
        the others (a batch of events is being written under them: its fence holds them `FOR
        SHARE`) in a job of the writer, so inside the writer's own transaction.

        Waiting for those locks on the lease thread's connection would hold the rows renewed so
        far while the writer's batch, in a later statement, may want one of them: the two would
        deadlock (or queue behind one batch after another), the renewal would fail or come late,
        and the leases of a busy process would run out under it.
        """

        def renew_free(conn: sa.Connection) -> tuple[list[Lease], list[str]]:
            now = _db_now(self.engine.dialect.name)
            free = (
                sa.select(leases.c.name)
                .where(leases.c.owner == owner)
                .order_by(leases.c.name)
                .with_for_update(skip_locked=True)
            )
            rows = conn.execute(
                leases.update()
                .where(leases.c.name.in_(free.scalar_subquery()), leases.c.owner == owner)
                .values(expires_at=now + ttl)
                .returning(*_LEASE_COLUMNS)
            )
            renewed = [_lease(row) for row in rows]
            done = {lease.name for lease in renewed}
            ours = conn.execute(sa.select(leases.c.name).where(leases.c.owner == owner)).scalars()
            return renewed, sorted(name for name in ours if name not in done)

        def renew_busy(conn: sa.Connection, names: list[str]) -> list[Lease]:
            now = _db_now(self.engine.dialect.name)
            rows = conn.execute(
                leases.update()
                .where(leases.c.name.in_(names), leases.c.owner == owner)
                .values(expires_at=now + ttl)
                .returning(*_LEASE_COLUMNS)
            )
            return [_lease(row) for row in rows]

        renewed, busy = await self._run(renew_free, heartbeat=True)
        if busy:
            renewed += await self._run(functools.partial(renew_busy, names=busy))
        return renewed

    async def release_lease(self, lease: Lease) -> bool:
        def job(conn: sa.Connection) -> bool:
            done = conn.execute(
                leases.update()
                .where(
                    leases.c.name == lease.name, leases.c.owner == lease.owner, leases.c.epoch == lease.epoch
                )
                .values(owner=None, expires_at=0.0)
            )
            return done.rowcount == 1

        return await self._run(job, lease=True)

    async def claim_expired(
        self, owner: str, ttl: float, prefix: str, limit: int, lapsed_for: float = 0.0
    ) -> list[Lease]:
        def job(conn: sa.Connection) -> list[Lease]:
            now = _db_now(self.engine.dialect.name)
            lapsed = sa.and_(leases.c.owner.is_not(None), leases.c.expires_at <= now - lapsed_for)
            # SKIP LOCKED: processes scanning at once take different leases instead of queueing.
            some = (
                sa.select(leases.c.name)
                .where(lapsed, leases.c.owner != owner, leases.c.name.startswith(prefix, autoescape=True))
                .order_by(leases.c.expires_at)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            rows = conn.execute(
                leases.update()
                .where(leases.c.name.in_(some.scalar_subquery()), lapsed)
                .values(owner=owner, epoch=leases.c.epoch + 1, expires_at=now + ttl)
                .returning(*_LEASE_COLUMNS)
            )
            return [_lease(row) for row in rows]

        return await self._run(job, lease=True)

    async def get_lease(self, name: str) -> Lease | None:
        def job(conn: sa.Connection) -> Lease | None:
            row = conn.execute(sa.select(*_LEASE_COLUMNS).where(leases.c.name == name)).first()
            return _lease(row) if row is not None and row.owner is not None else None

        return await self._run(job, read=True)

    async def live_matches(self, active_since: float | None = None) -> list[MatchRow]:
        where = matches.c.status != "over"
        if active_since is not None:
            played = sa.exists().where(events.c.match_id == matches.c.id, events.c.created_at >= active_since)
            where = sa.and_(where, sa.or_(matches.c.created_at >= active_since, played))
        return await self._run(lambda conn: _load_matches(conn, where), read=True)

    async def matches_of(self, guest_id: str, limit: int = 100) -> list[MatchRow]:
        def job(conn: sa.Connection) -> list[MatchRow]:
            ids = (
                sa.select(match_seats.c.match_id).where(match_seats.c.guest_id == guest_id).scalar_subquery()
            )
            return _load_matches(conn, matches.c.id.in_(ids), limit=limit)

        return await self._run(job, read=True)

    # -- accounts ----------------------------------------------------------------

    async def create_account(self, account: AccountRow) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(
                accounts.insert().values(
                    guest_id=account.guest_id,
                    name=account.name,
                    name_key=account.name_key,
                    password_hash=account.password_hash,
                    created_at=account.created_at,
                    name_changed_at=account.name_changed_at,
                )
            )
            conn.execute(guests.update().where(guests.c.id == account.guest_id).values(name=account.name))

        await self._run(job)

    async def get_account(self, guest_id: str) -> AccountRow | None:
        return await self._run(lambda conn: _one_account(conn, accounts.c.guest_id == guest_id), read=True)

    async def get_account_by_name(self, name_key: str) -> AccountRow | None:
        return await self._run(lambda conn: _one_account(conn, accounts.c.name_key == name_key), read=True)

    async def get_accounts(self, guest_ids: list[str]) -> dict[str, AccountRow]:
        wanted = sorted(set(guest_ids))

        def job(conn: sa.Connection) -> dict[str, AccountRow]:
            found: dict[str, AccountRow] = {}
            for chunk in _chunks(wanted, 500):
                for row in conn.execute(sa.select(accounts).where(accounts.c.guest_id.in_(chunk))):
                    found[row.guest_id] = _account(row)
            return found

        return await self._run(job, read=True) if wanted else {}

    async def rename_account(self, guest_id: str, name: str, name_key: str, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            done = conn.execute(
                accounts.update()
                .where(accounts.c.guest_id == guest_id)
                .values(name=name, name_key=name_key, name_changed_at=at)
            )
            if done.rowcount != 1:
                raise StoreError(f"no account {guest_id!r}")
            conn.execute(guests.update().where(guests.c.id == guest_id).values(name=name))

        await self._run(job)

    # -- bot accounts ----------------------------------------------------------------

    async def create_bot(self, guest: GuestRow, account: AccountRow, bot: BotRow) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(guests.insert().values(id=guest.id, name=account.name, created_at=guest.created_at))
            conn.execute(
                accounts.insert().values(
                    guest_id=account.guest_id,
                    name=account.name,
                    name_key=account.name_key,
                    password_hash=account.password_hash,
                    created_at=account.created_at,
                    name_changed_at=account.name_changed_at,
                )
            )
            conn.execute(
                bots.insert().values(
                    guest_id=bot.guest_id,
                    owner_id=bot.owner_id,
                    created_at=bot.created_at,
                    token_hash=bot.token_hash,
                    token_at=bot.token_at,
                )
            )

        await self._run(job)

    async def get_bots(self, guest_ids: list[str]) -> dict[str, BotRow]:
        wanted = sorted(set(guest_ids))

        def job(conn: sa.Connection) -> dict[str, BotRow]:
            found: dict[str, BotRow] = {}
            for chunk in _chunks(wanted, 500):
                for row in conn.execute(sa.select(bots).where(bots.c.guest_id.in_(chunk))):
                    found[row.guest_id] = _bot(row)
            return found

        return await self._run(job, read=True) if wanted else {}

    async def bots_of(self, owner_id: str) -> list[BotRow]:
        def job(conn: sa.Connection) -> list[BotRow]:
            query = sa.select(bots).where(bots.c.owner_id == owner_id).order_by(bots.c.created_at)
            return [_bot(row) for row in conn.execute(query)]

        return await self._run(job, read=True)

    async def set_bot_token(self, guest_id: str, token_hash: str | None, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            done = conn.execute(
                bots.update().where(bots.c.guest_id == guest_id).values(token_hash=token_hash, token_at=at)
            )
            if done.rowcount != 1:
                raise StoreError(f"no bot {guest_id!r}")

        await self._run(job)

    # -- ratings, statistics, leaderboards -----------------------------------------

    async def get_ratings(self, guest_ids: list[str], game: str) -> dict[str, RatingRow]:
        wanted = sorted(set(guest_ids))
        return await self._run(lambda conn: _ratings(conn, wanted, game), read=True) if wanted else {}

    async def rating_history(self, guest_id: str, game: str, limit: int = 500) -> list[RatingPoint]:
        def job(conn: sa.Connection) -> list[RatingPoint]:
            rows = conn.execute(
                sa.select(rating_history)
                .where(rating_history.c.guest_id == guest_id, rating_history.c.game == game)
                .order_by(rating_history.c.at.desc())
                .limit(limit)
            )
            points = [_rating_point(r) for r in rows]
            points.reverse()
            return points

        return await self._run(job, read=True)

    async def rating_changes(self, match_ids: list[str]) -> list[RatingPoint]:
        def job(conn: sa.Connection) -> list[RatingPoint]:
            found: list[RatingPoint] = []
            for chunk in _chunks(sorted(set(match_ids)), 500):
                query = sa.select(rating_history).where(rating_history.c.match_id.in_(chunk))
                found.extend(_rating_point(r) for r in conn.execute(query))
            return found

        return await self._run(job, read=True) if match_ids else []

    async def player_stats(self, guest_id: str, game: str) -> PlayerStats:
        pm = player_matches.c

        def job(conn: sa.Connection) -> PlayerStats:
            row = conn.execute(
                sa.select(
                    sa.func.count(),
                    sa.func.sum(sa.case((pm.score == 1.0, 1), else_=0)),
                    sa.func.sum(sa.case((pm.score == 0.5, 1), else_=0)),
                    sa.func.sum(pm.hands),
                    sa.func.sum(pm.gins),
                    sa.func.sum(pm.undercuts),
                    sa.func.sum(pm.knocks),
                    sa.func.sum(pm.knock_deadwood),
                ).where(pm.guest_id == guest_id, pm.game == game)
            ).one()
            return PlayerStats(*(int(value or 0) for value in row))

        return await self._run(job, read=True)

    async def points_board(
        self, game: str, window: BoardPart, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        return await self._run(lambda conn: _points_board(conn, game, window, limit, guest_id), read=True)

    async def rating_board(
        self, game: str, now: float, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        return await self._run(lambda conn: _rating_board(conn, game, now, limit, guest_id), read=True)

    # -- tournaments ---------------------------------------------------------------

    async def create_tournament(self, tournament: TournamentRow) -> None:
        values = {
            "id": tournament.id,
            "name": tournament.name,
            "format": tournament.format,
            "status": tournament.status,
            "starts_at": tournament.starts_at,
            "ends_at": tournament.ends_at,
            "rules": json.dumps(tournament.rules, sort_keys=True, separators=(",", ":")),
            "turn_seconds": tournament.turn_seconds,
            "rated": tournament.rated,
            "robots": tournament.robots,
            "listed": tournament.listed,
            "created_by": tournament.created_by,
            "created_at": tournament.created_at,
            "rounds": tournament.rounds,
            "round": tournament.round,
        }
        await self._run(lambda conn: conn.execute(tournaments.insert().values(**values)))

    async def get_tournament(self, tournament_id: str) -> TournamentRow | None:
        def job(conn: sa.Connection) -> TournamentRow | None:
            row = conn.execute(sa.select(tournaments).where(tournaments.c.id == tournament_id)).first()
            return _tournament(row) if row is not None else None

        return await self._run(job, read=True)

    async def tournaments(
        self, statuses: tuple[str, ...], *, listed_only: bool, created_by: str | None = None
    ) -> list[TournamentRow]:
        def job(conn: sa.Connection) -> list[TournamentRow]:
            query = sa.select(tournaments).where(tournaments.c.status.in_(statuses))
            if listed_only:
                query = query.where(tournaments.c.listed.is_(True))
            if created_by is not None:
                query = query.where(tournaments.c.created_by == created_by)
            return [_tournament(r) for r in conn.execute(query.order_by(tournaments.c.starts_at))]

        return await self._run(job, read=True)

    async def set_tournament_status(
        self, tournament_id: str, status: str, *, ends_at: float | None = None, fence: Lease | None = None
    ) -> None:
        values: dict[str, Any] = {"status": status}
        if ends_at is not None:
            values["ends_at"] = ends_at

        def job(conn: sa.Connection) -> None:
            self._check_fence(conn, fence)
            conn.execute(tournaments.update().where(tournaments.c.id == tournament_id).values(**values))

        await self._run(job)

    async def start_round(
        self,
        tournament_id: str,
        round_number: int,
        matches: list[MatchRow],
        byes: list[str],
        fence: Lease | None = None,
    ) -> bool:
        def job(conn: sa.Connection) -> bool:
            self._check_fence(conn, fence)
            done = conn.execute(
                tournaments.update()
                .where(tournaments.c.id == tournament_id, tournaments.c.round == round_number - 1)
                .values(round=round_number)
            )
            if done.rowcount != 1:
                return False
            if matches:
                _insert_matches(conn, matches)
            if byes:
                conn.execute(
                    tournament_byes.insert(),
                    [{"tournament_id": tournament_id, "round": round_number, "guest_id": g} for g in byes],
                )
            return True

        return await self._run(job)

    async def tournament_byes(self, tournament_id: str) -> list[tuple[int, str]]:
        tb = tournament_byes.c

        def job(conn: sa.Connection) -> list[tuple[int, str]]:
            rows = conn.execute(
                sa.select(tb.round, tb.guest_id).where(tb.tournament_id == tournament_id).order_by(tb.round)
            )
            return [(r.round, r.guest_id) for r in rows]

        return await self._run(job, read=True)

    async def set_tournament_player(
        self, tournament_id: str, player: TournamentPlayer, fence: Lease | None = None
    ) -> None:
        tp = tournament_players.c

        def job(conn: sa.Connection) -> None:
            self._check_fence(conn, fence)
            done = conn.execute(
                tournament_players.update()
                .where(tp.tournament_id == tournament_id, tp.guest_id == player.guest_id)
                .values(withdrawn=player.withdrawn, paused=player.paused)
            )
            if done.rowcount == 0:
                conn.execute(
                    tournament_players.insert().values(
                        tournament_id=tournament_id,
                        guest_id=player.guest_id,
                        joined_at=player.joined_at,
                        withdrawn=player.withdrawn,
                        paused=player.paused,
                    )
                )

        await self._run(job)

    async def tournament_players(self, tournament_id: str) -> list[TournamentPlayer]:
        tp = tournament_players.c

        def job(conn: sa.Connection) -> list[TournamentPlayer]:
            rows = conn.execute(
                sa.select(tournament_players).where(tp.tournament_id == tournament_id).order_by(tp.joined_at)
            )
            return [
                TournamentPlayer(r.guest_id, r.joined_at, bool(r.withdrawn), bool(r.paused)) for r in rows
            ]

        return await self._run(job, read=True)

    async def tournament_matches(self, tournament_id: str) -> list[MatchRow]:
        return await self._run(
            lambda conn: _load_matches(conn, matches.c.tournament_id == tournament_id), read=True
        )

    # -- fair play -------------------------------------------------------------------

    async def note_address(self, guest_id: str, address: str, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            insert = _insert_for(conn, guest_addresses)
            conn.execute(
                insert.values(
                    guest_id=guest_id, address=address, first_at=at, last_at=at
                ).on_conflict_do_update(
                    index_elements=["guest_id", "address"], set_={"last_at": insert.excluded.last_at}
                )
            )

        await self._run(job)

    async def guests_seen_at(self, address: str, since: float) -> list[str]:
        ga = guest_addresses.c

        def job(conn: sa.Connection) -> list[str]:
            rows = conn.execute(sa.select(ga.guest_id).where(ga.address == address, ga.last_at >= since))
            return sorted(r.guest_id for r in rows)

        return await self._run(job, read=True)

    async def shared_addresses(self, first: str, second: str) -> list[str]:
        one, two = guest_addresses.alias("one"), guest_addresses.alias("two")

        def job(conn: sa.Connection) -> list[str]:
            rows = conn.execute(
                sa.select(one.c.address)
                .join(two, two.c.address == one.c.address)
                .where(one.c.guest_id == first, two.c.guest_id == second)
                .order_by(one.c.address)
            )
            return [r.address for r in rows]

        return await self._run(job, read=True)

    async def head_to_head(self, first: str, second: str, game: str, since: float) -> list[tuple[str, float]]:
        pm = player_matches.c

        def job(conn: sa.Connection) -> list[tuple[str, float]]:
            rows = conn.execute(
                sa.select(pm.match_id, pm.score)
                .join(matches, matches.c.id == pm.match_id)
                .where(
                    pm.guest_id == first,
                    pm.opponent_id == second,
                    pm.game == game,
                    pm.finished_at >= since,
                    matches.c.rated.is_(True),
                )
                .order_by(pm.finished_at, pm.match_id)
            )
            return [(r.match_id, float(r.score)) for r in rows]

        return await self._run(job, read=True)

    async def add_flag(self, flag: FlagRow) -> None:
        def job(conn: sa.Connection) -> None:
            insert = _insert_for(conn, fair_play_flags)
            conn.execute(
                insert.values(
                    match_id=flag.match_id,
                    kind=flag.kind,
                    winner_id=flag.winner_id,
                    loser_id=flag.loser_id,
                    at=flag.at,
                    evidence=json.dumps(flag.evidence, separators=(",", ":"), sort_keys=True),
                ).on_conflict_do_nothing(index_elements=["match_id", "kind"])
            )

        await self._run(job)

    async def flags(self, limit: int) -> list[FlagRow]:
        f = fair_play_flags.c

        def job(conn: sa.Connection) -> list[FlagRow]:
            rows = conn.execute(sa.select(fair_play_flags).order_by(f.at.desc(), f.match_id).limit(limit))
            return [
                FlagRow(r.match_id, r.kind, r.winner_id, r.loser_id, r.at, json.loads(r.evidence))
                for r in rows
            ]

        return await self._run(job, read=True)

    # -- failed sign-ins --------------------------------------------------------------

    async def sign_in_failures(self, keys: list[str], since: float) -> dict[str, list[float]]:
        c = sign_in_failures.c

        def job(conn: sa.Connection) -> dict[str, list[float]]:
            found: dict[str, list[float]] = {key: [] for key in keys}
            rows = conn.execute(
                sa.select(c.key, c.at).where(c.key.in_(keys), c.at > since).order_by(c.at, c.id)
            )
            for r in rows:
                found[r.key].append(float(r.at))
            return found

        return await self._run(job, read=True)

    async def add_sign_in_failure(self, keys: list[str], at: float, forget_before: float) -> None:
        c = sign_in_failures.c

        def job(conn: sa.Connection) -> None:
            conn.execute(sa.delete(sign_in_failures).where(c.at <= forget_before))
            conn.execute(sa.insert(sign_in_failures), [{"key": key, "at": at} for key in keys])

        await self._run(job)

    async def clear_sign_in_failures(self, key: str) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(sa.delete(sign_in_failures).where(sign_in_failures.c.key == key))

        await self._run(job)


_LEASE_COLUMNS = (leases.c.name, leases.c.owner, leases.c.epoch, leases.c.expires_at)


def _lease(row: Any) -> Lease:
    return Lease(row.name, row.owner, row.epoch, row.expires_at)


def _analysis(conn: sa.Connection, match_id: str) -> AnalysisRow | None:
    row = conn.execute(sa.select(analyses).where(analyses.c.match_id == match_id)).first()
    if row is None:
        return None
    return AnalysisRow(
        row.match_id,
        row.status,
        row.engine,
        row.requested_at,
        row.finished_at,
        json.loads(row.result) if row.result is not None else None,
        row.error,
    )


def _event_key(row: dict[str, Any]) -> tuple[str, int]:
    return (row["match_id"], row["seq"])


def _lease_lost(fence: Lease) -> LeaseLost:
    return LeaseLost(
        f"{fence.name}: this process no longer holds the lease (epoch {fence.epoch}); nothing written"
    )


#: The columns of an events row, in the order the fenced inserts take them.
_EVENT_COLUMNS = ("match_id", "seq", "seat", "action", "created_at", "epoch", "auto")

#: A fenced event on SQLite: the row is inserted only while the lease is held (rowcount 0: lost).
_SQLITE_FENCED_INSERT = (
    "INSERT INTO events (match_id, seq, seat, action, created_at, epoch, auto)"
    " SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM leases WHERE name = ? AND owner = ?"
    " AND epoch = ? AND expires_at > (julianday('now') - 2440587.5) * 86400.0)"
)

#: The fenced events of a batch on PostgreSQL, one column array each: a row is inserted only
#: while its lease is held, which is locked FOR SHARE until the commit; returns what it wrote.
_PG_FENCED_INSERT = (
    "INSERT INTO events (match_id, seq, seat, action, created_at, epoch, auto)"
    " SELECT v.match_id, v.seq, v.seat, v.action, v.created_at, v.epoch, v.auto FROM unnest("
    "%s::varchar[], %s::int[], %s::int[], %s::text[], %s::float8[], %s::bigint[], %s::bool[],"
    " %s::varchar[], %s::varchar[]) AS v(match_id, seq, seat, action, created_at, epoch, auto, lease, owner)"
    " WHERE EXISTS (SELECT 1 FROM leases l WHERE l.name = v.lease AND l.owner = v.owner"
    " AND l.epoch = v.epoch"
    " AND l.expires_at > CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) FOR SHARE)"
    " RETURNING match_id, seq"
)

#: `_lost_fences` on PostgreSQL: the leases of the names given still held, locked until the commit.
_PG_HELD_LEASES = (
    "SELECT name, owner, epoch FROM leases WHERE name = ANY(%s)"
    " AND expires_at > CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) ORDER BY name FOR SHARE"
)


def _db_now(dialect: str) -> Any:
    """The database's clock in unix seconds, as an SQL expression (leases are timed by it)."""
    if dialect == "postgresql":
        return sa.cast(sa.func.extract("epoch", sa.func.clock_timestamp()), sa.Float(precision=53))
    return (sa.func.julianday("now") - 2440587.5) * 86400.0


def _insert_ignore(dialect: str, table: sa.Table) -> Any:
    """INSERT ... ON CONFLICT DO NOTHING for the dialect."""
    if dialect == "postgresql":
        return pg_dialect.insert(table).on_conflict_do_nothing()
    return sqlite_dialect.insert(table).on_conflict_do_nothing()


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _insert_match(conn: sa.Connection, match: MatchRow) -> None:
    _insert_matches(conn, [match])


def _insert_matches(conn: sa.Connection, rows: list[MatchRow]) -> None:
    """Insert matches and their seats with one statement each (an executemany for many)."""
    conn.execute(
        matches.insert(),
        [
            {
                "id": match.id,
                "kind": match.kind,
                "status": match.status,
                "rules": json.dumps(match.rules, sort_keys=True, separators=(",", ":")),
                "seed": match.seed,
                "room_code": match.room_code,
                "turn_seconds": match.turn_seconds,
                "created_at": match.created_at,
                "finished_at": match.finished_at,
                "result": json.dumps(match.result, separators=(",", ":"))
                if match.result is not None
                else None,
                "rematch_of": match.rematch_of,
                "rematch_id": match.rematch_id,
                "deal_bits": match.deal_bits,
                "rated": match.rated,
                "tournament_id": match.tournament_id,
                "round": match.round,
            }
            for match in rows
        ],
    )
    conn.execute(
        match_seats.insert(),
        [
            {
                "match_id": match.id,
                "seat": s.seat,
                "guest_id": s.guest_id,
                "robot_level": s.robot_level,
                "rating": s.rating,
            }
            for match in rows
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
            seats.setdefault(s.match_id, {})[s.seat] = SeatRow(s.seat, s.guest_id, s.robot_level, s.rating)
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
                seats=tuple(by_seat.get(n, SeatRow(n)) for n in range(max(2, len(by_seat)))),
                created_at=r.created_at,
                room_code=r.room_code,
                turn_seconds=r.turn_seconds,
                finished_at=r.finished_at,
                result=json.loads(r.result) if r.result is not None else None,
                rematch_of=r.rematch_of,
                rematch_id=r.rematch_id,
                deal_bits=r.deal_bits,
                rated=bool(r.rated),
                tournament_id=r.tournament_id,
                round=r.round,
            )
        )
    return found


def _tournament(r: Any) -> TournamentRow:
    return TournamentRow(
        id=r.id,
        name=r.name,
        format=r.format,
        status=r.status,
        starts_at=r.starts_at,
        ends_at=r.ends_at,
        rules=json.loads(r.rules),
        turn_seconds=r.turn_seconds,
        rated=bool(r.rated),
        robots=bool(r.robots),
        listed=bool(r.listed),
        created_by=r.created_by,
        created_at=r.created_at,
        rounds=r.rounds,
        round=r.round,
    )


def _account(row: Any) -> AccountRow:
    return AccountRow(
        row.guest_id, row.name, row.name_key, row.password_hash, row.created_at, row.name_changed_at
    )


def _bot(row: Any) -> BotRow:
    return BotRow(row.guest_id, row.owner_id, row.created_at, row.token_hash, row.token_at)


def _one_account(conn: sa.Connection, where: Any) -> AccountRow | None:
    row = conn.execute(sa.select(accounts).where(where)).first()
    return _account(row) if row is not None else None


def _ratings(conn: sa.Connection, guest_ids: list[str], game: str) -> dict[str, RatingRow]:
    found: dict[str, RatingRow] = {}
    for chunk in _chunks(guest_ids, 500):
        query = sa.select(ratings).where(ratings.c.game == game, ratings.c.guest_id.in_(chunk))
        for r in conn.execute(query):
            found[r.guest_id] = RatingRow(
                r.guest_id, r.game, r.rating, r.deviation, r.volatility, r.games, r.last_at, r.ranked_until
            )
    return found


def _rating_point(r: Any) -> RatingPoint:
    return RatingPoint(r.guest_id, r.match_id, r.at, r.rating_before, r.rating, r.deviation)


def _insert_for(conn: sa.Connection, table: sa.Table) -> Any:
    """An INSERT of this dialect that knows ON CONFLICT (SQLite and PostgreSQL both do)."""
    if conn.dialect.name == "postgresql":
        return pg_dialect.insert(table)
    return sqlite_dialect.insert(table)


def _write_outcome(conn: sa.Connection, match_id: str, finished_at: float, outcome: MatchOutcome) -> None:
    """Statistics lines, leaderboard buckets and ratings of a match just finished (one transaction)."""
    if outcome.lines:
        conn.execute(
            player_matches.insert(),
            [
                {
                    "match_id": match_id,
                    "guest_id": line.guest_id,
                    "game": outcome.game,
                    "finished_at": finished_at,
                    "seat": line.seat,
                    "score": line.score,
                    "points": line.points,
                    "hands": line.hands,
                    "gins": line.gins,
                    "undercuts": line.undercuts,
                    "knocks": line.knocks,
                    "knock_deadwood": line.knock_deadwood,
                    "opponent_id": line.opponent_id,
                    "opponent_robot": line.opponent_robot,
                }
                for line in outcome.lines
            ],
        )
    if outcome.counts and outcome.buckets:
        rows = [
            {
                "game": outcome.game,
                "span": span,
                "last_day": last_day,
                "guest_id": line.guest_id,
                "wins": 1 if line.score == 1.0 else 0,
                "points": line.points,
                "matches": 1,
            }
            for line in outcome.lines
            for span, last_day in outcome.buckets
        ]
        insert = _insert_for(conn, score_buckets)
        conn.execute(
            insert.on_conflict_do_update(
                index_elements=["game", "span", "last_day", "guest_id"],
                set_={
                    "wins": score_buckets.c.wins + insert.excluded.wins,
                    "points": score_buckets.c.points + insert.excluded.points,
                    "matches": score_buckets.c.matches + insert.excluded.matches,
                },
            ),
            rows,
        )
    if outcome.rate is not None:
        ids = [line.guest_id for line in outcome.lines]
        stored = _ratings(conn, ids, outcome.game)
        updated = outcome.rate({guest_id: stored.get(guest_id) for guest_id in ids})
        values = [
            {
                "guest_id": r.guest_id,
                "game": r.game,
                "rating": r.rating,
                "deviation": r.deviation,
                "volatility": r.volatility,
                "games": r.games,
                "last_at": r.last_at,
                "ranked_until": r.ranked_until,
            }
            for _, r in updated
        ]
        insert = _insert_for(conn, ratings)
        conn.execute(
            insert.on_conflict_do_update(
                index_elements=["guest_id", "game"],
                set_={
                    name: getattr(insert.excluded, name)
                    for name in ("rating", "deviation", "volatility", "games", "last_at", "ranked_until")
                },
            ),
            values,
        )
        conn.execute(
            rating_history.insert(),
            [
                {
                    "guest_id": r.guest_id,
                    "game": r.game,
                    "match_id": match_id,
                    "at": r.last_at,
                    "rating_before": before,
                    "rating": r.rating,
                    "deviation": r.deviation,
                }
                for before, r in updated
            ],
        )


def _ranked(rows: list[Any], key: Callable[[Any], tuple[Any, ...]]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of rows sorted best first."""
    ranks: list[int] = []
    for i, row in enumerate(rows):
        ranks.append(ranks[-1] if i and key(rows[i - 1]) == key(row) else i + 1)
    return ranks


def _points_board(
    conn: sa.Connection, game: str, window: BoardPart, limit: int, guest_id: str | None
) -> tuple[list[BoardLine], BoardLine | None]:
    sb = score_buckets.c
    span, last_day = window
    in_window = sa.and_(sb.game == game, sb.span == span, sb.last_day == last_day)
    # Read backwards along ix_score_buckets_board: the first `limit` rows are the top.
    top = list(
        conn.execute(
            sa.select(sb.guest_id, sb.wins, sb.points, sb.matches)
            .where(in_window)
            .order_by(sb.wins.desc(), sb.points.desc(), sb.guest_id.desc())
            .limit(limit)
        )
    )
    ranks = _ranked(top, lambda r: (r.wins, r.points))
    lines = [
        BoardLine(rank, r.guest_id, int(r.wins), int(r.points), int(r.matches))
        for rank, r in zip(ranks, top, strict=True)
    ]
    mine = None
    if guest_id is not None:
        mine = next((line for line in lines if line.guest_id == guest_id), None)
        row = None
        if mine is None:
            row = conn.execute(
                sa.select(sb.wins, sb.points, sb.matches).where(in_window, sb.guest_id == guest_id)
            ).first()
        if row is not None:
            # Everyone ahead: a range of the same index.
            better = conn.execute(
                sa.select(sa.func.count()).where(
                    in_window,
                    sa.or_(sb.wins > row.wins, sa.and_(sb.wins == row.wins, sb.points > row.points)),
                )
            ).scalar_one()
            mine = BoardLine(int(better) + 1, guest_id, int(row.wins), int(row.points), int(row.matches))
    return lines, mine


def _rating_board(
    conn: sa.Connection, game: str, now: float, limit: int, guest_id: str | None
) -> tuple[list[BoardLine], BoardLine | None]:
    r = ratings.c
    ranked = sa.and_(r.game == game, r.ranked_until > now)
    top = list(
        conn.execute(
            sa.select(r.guest_id, r.rating, r.deviation, r.games)
            .where(ranked)
            .order_by(r.rating.desc(), r.guest_id.desc())
            .limit(limit)
        )
    )
    ranks = _ranked(top, lambda row: (round(row.rating),))

    def line(rank: int, row: Any) -> BoardLine:
        return BoardLine(rank, row.guest_id, 0, 0, int(row.games), rating=row.rating, deviation=row.deviation)

    lines = [line(rank, row) for rank, row in zip(ranks, top, strict=True)]
    mine = None
    if guest_id is not None:
        mine = next((x for x in lines if x.guest_id == guest_id), None)
        if mine is None:
            row = conn.execute(
                sa.select(r.guest_id, r.rating, r.deviation, r.games).where(ranked, r.guest_id == guest_id)
            ).first()
            if row is not None:
                better = conn.execute(
                    sa.select(sa.func.count()).where(ranked, r.rating > row.rating)
                ).scalar_one()
                mine = line(int(better) + 1, row)
    return lines, mine
