"""Database URLs and engines: psycopg 3 for PostgreSQL, WAL and pragmas for SQLite, and the
thread that checkpoints the SQLite WAL."""

from __future__ import annotations

import logging
import sqlite3
import threading
from typing import Any

import sqlalchemy as sa
from sqlalchemy.pool import StaticPool

log = logging.getLogger("ginrummy.storage")

#: Seconds a job may wait for its turn and its lock before it fails with `StoreBusy`.
BUSY_TIMEOUT = 5.0


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

    `checkpoint_thread`: commits never checkpoint the WAL themselves (a `Checkpointer` does).
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


class Checkpointer:
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
