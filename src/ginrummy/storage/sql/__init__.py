"""The SQL store: SQLite by default, PostgreSQL by URL, with group commit off the event loop.

engine.py makes engines from URLs (and checkpoints the SQLite WAL), migrate.py applies the
packaged migrations, writer.py runs the jobs on their lanes in batches, event_writes.py holds
the statements that write a batch's events on each driver (and fence them by their leases), and one module per aggregate holds its queries and row converters: guests,
accounts, bots, matches, analyses, leases, ratings, boards (leaderboards), tournaments and
fair_play. store.py composes them into `SqlStore`.
"""

from .engine import make_engine, normalize_url
from .migrate import downgrade, migrate, migration_heads
from .store import SqlStore

__all__ = ["SqlStore", "downgrade", "make_engine", "migrate", "migration_heads", "normalize_url"]
