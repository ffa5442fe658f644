"""The SQL store: SQLite by default, PostgreSQL by URL, with group commit off the event loop.

Database work is queued as jobs on two worker threads, one for writes and one for reads. The
writer runs all the jobs waiting in one transaction that commits once, then wakes the coroutines
that asked (one hop back to the event loop per batch): under load many actions share one commit,
and each caller still resumes only after its own write is committed. A job that fails is retried
alone so it cannot spoil its neighbours' commit. Reads have their own thread and connection, so
a write waiting for a lock never holds them up (SQLite in WAL mode reads while another writes).

One write skips the thread: on SQLite (with synchronous=NORMAL or OFF, so a commit does no
fsync) an action's event asked for while the writer waits with nothing queued is inserted at once
on the event loop, on a connection of its own that never waits for a lock (busy timeout 0). Two
thread hand-overs cost more than the insert; if any other connection holds the write lock the
insert fails at once, having changed nothing, and the job goes to the writer as any other. Only
the first such event of a turn of the loop: those asked for after it in the same turn go to the
writer together, so a burst still shares its commits (and the writer's core).

Nothing waits for a lock on the event loop, and no job waits long: a job not started
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
database's clock. A batch of events alone goes straight to the driver: one INSERT that commits
itself (on PostgreSQL of column arrays, whatever the batch's size, unless it mixes fenced and plain
events, which go in one pipeline with the commit; on SQLite up to `_ONE_STATEMENT` events). A
thread busy with a batch takes what was handed to it meanwhile when it is done: it is woken only
when it waits for work.

With SQLite the WAL is copied back into the database file by a checkpoint thread (commits never
checkpoint themselves), so a commit with synchronous=NORMAL does no fsync at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import sqlalchemy as sa

from ...service.ports import Lease, StoreBusy, StoreError
from .common import rows_in
from .engine import BUSY_TIMEOUT, Checkpointer, make_engine, normalize_url
from .event_writes import EventWrites, event_key, lease_lost
from .migrate import migrate

T = TypeVar("T")

#: What a caller refused with `StoreBusy` is told to wait before trying again.
RETRY_AFTER = 2.0


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


def _end_turn(lane: _Lane) -> None:
    lane.inserted_now = False


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
    #: The jobs handed to the thread, a list per hand-over (None: stop), in order. The thread
    #: takes them itself after every batch it runs: it is woken only when it waits for work.
    handed: deque[list[_Job] | None] = field(default_factory=deque)
    #: The thread waits on it (one token per wake-up) when there is nothing handed to it.
    wake: queue.SimpleQueue[None] = field(default_factory=queue.SimpleQueue)
    #: True while the thread waits on `wake` or is about to: the next hand-over wakes it.
    idle: bool = False
    #: Jobs asked for in this turn of the event loop, handed to the thread together at its end:
    #: one hand-over (and, when it waits, one wake-up) for all of them.
    pending: list[_Job] = field(default_factory=list)
    thread: threading.Thread | None = None
    conn: sa.Connection | None = None
    busy_ms: int = -1  # SQLite: the busy timeout last set on `conn` (-1: not yet)
    #: True from an event inserted on the loop (`StoreBase._insert_now`) to the end of that turn.
    inserted_now: bool = False
    alone: bool = False  # each job in a transaction of its own (no batches)


class StoreBase(EventWrites):
    """What every part of `SqlStore` shares: the engine, the lanes and their threads, and `_run`,
    which queues a job on a lane and returns the future of its result."""

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
        self._checkpointer: Checkpointer | None = None
        self._events_insert: tuple[str, tuple[str, ...] | None] | None = None
        #: SQLite files whose commits do no fsync: events may be inserted on the loop (`_insert_now`).
        self._loop_inserts = (
            sqlite and not self._shared_connection and sqlite_synchronous.upper() in ("OFF", "NORMAL")
        )
        self._loop_conn: Any = None  # the loop's own connection (a pool's), opened by `start`
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
            self._checkpointer = Checkpointer(str(database), self.checkpoint_interval)
        for lane in (self._writer, self._reader):
            if lane.thread is None:
                lane.thread = threading.Thread(target=self._work, args=(lane,), name=lane.name, daemon=True)
                lane.thread.start()
        if self._loop_inserts and self._loop_conn is None:
            self._loop_conn = self.engine.raw_connection()
            self._loop_conn.dbapi_connection.execute("PRAGMA busy_timeout=0")
        self._started = True

    async def close(self) -> None:
        """Finish the queued jobs, stop the workers and close the connections."""
        self._started = False
        for lane in (self._writer, self._reader, self._leaser, self._beater):
            self._hand_over(lane)  # what was asked for before the close is done first
            if lane.thread is not None:
                lane.handed.append(None)
                lane.idle = False
                lane.wake.put(None)
                await asyncio.to_thread(lane.thread.join)
                lane.thread = None
        if self._loop_conn is not None:
            self._loop_conn.close()
            self._loop_conn = None
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
            if event is not None and fence is None and self._insert_now(lane, job):
                return future
        lane.pending.append(job)
        if len(lane.pending) == 1:
            loop.call_soon(self._hand_over, lane)
        return future

    def _insert_now(self, lane: _Lane, job: _Job) -> bool:
        """Insert `job`'s event on the event loop and settle its future, when the writer waits with
        nothing queued (so nothing asked for before it is still to be written); False, having done
        nothing, when it must go to the writer (another connection holds the lock, say)."""
        if self._loop_conn is None or not lane.idle or lane.pending or lane.handed or lane.inserted_now:
            return False
        lane.inserted_now = True
        job.loop.call_soon(_end_turn, lane)
        try:
            self._insert_events_sqlite(self._loop_conn.dbapi_connection, [cast(dict[str, Any], job.event)])
        except sqlite3.IntegrityError as exc:
            job.future.set_exception(_store_error(sa.exc.IntegrityError("INSERT INTO events", None, exc)))
        except sqlite3.Error as exc:
            if _busy(exc):
                return False
            job.future.set_exception(_store_error(sa.exc.DBAPIError("INSERT INTO events", None, exc)))
        else:
            job.future.set_result(None)
            self.commits += 1
        self.jobs += 1
        return True

    async def _read_by_key(
        self, key: sa.Column[Any], ids: list[str], row: Callable[[Any], T]
    ) -> dict[str, T]:
        """`row` of each stored row whose `key` is one of `ids`, by that key (no ids: nothing is read)."""
        wanted = sorted(set(ids))

        def job(conn: sa.Connection) -> dict[str, T]:
            return {getattr(r, key.name): row(r) for r in rows_in(conn, key, wanted)}

        return await self._run(job, read=True) if wanted else {}

    @staticmethod
    def _hand_over(lane: _Lane) -> None:
        """Give the thread the jobs asked for since the last hand-over, waking it only if it
        waits: a thread busy with a batch takes them when it is done, with no wake-up at all."""
        if lane.pending:
            jobs, lane.pending = lane.pending, []
            lane.handed.append(jobs)
            # Read after the append: a thread that found nothing handed set `idle` before it
            # looked, so either it sees these jobs or this sees it idle and wakes it.
            if lane.idle:
                lane.idle = False
                lane.wake.put(None)

    def _work(self, lane: _Lane) -> None:
        limit = 1 if lane.alone else self.batch_limit
        handed = lane.handed
        carry: list[_Job] = []  # jobs handed over that did not fit in the last batch
        try:
            while True:
                batch, carry = carry[:limit], carry[limit:]
                stopping = False
                while len(batch) < limit and not carry:
                    try:
                        more = handed.popleft()
                    except IndexError:
                        break
                    if more is None:
                        stopping = True
                        break
                    room = limit - len(batch)
                    batch.extend(more[:room])
                    carry = more[room:]
                if batch:
                    self._run_batch(lane, batch)
                if stopping:
                    return
                if batch or carry:
                    continue
                lane.idle = True
                if handed:
                    # Handed over while it looked: take it now (the hand-over may have sent a
                    # token too; the thread then wakes once for nothing and waits again).
                    lane.idle = False
                    continue
                lane.wake.get()
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
            (None, lease_lost(job.fence))
            if job.fence is not None and event_key(cast(dict[str, Any], job.event)) not in written
            else (None, None)
            for job in batch
        ]

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
                    outcomes[i] = (None, lease_lost(fence))
                else:
                    rows.append(cast(dict[str, Any], batch[i].event))
        else:
            rows = [cast(dict[str, Any], batch[i].event) for i in indexes]
        if rows:
            self._insert_events(conn, rows)

    def _run_alone(self, lane: _Lane, job: _Job) -> tuple[Any, BaseException | None]:
        try:
            with self._transaction(lane, job.deadline - time.monotonic()) as conn:
                result = job.fn(conn)
            self.commits += 1
            return result, None
        except Exception as exc:
            return None, _store_error(exc)
