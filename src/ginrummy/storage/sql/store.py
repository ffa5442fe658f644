"""`SqlStore`: the `Store` port on SQLAlchemy Core, composed of one set of queries per aggregate.

Each set is a mixin on `StoreBase` (the engine, the lanes and `_run`, in writer.py), so every
query is a method of the one store, with the signature the port gives it.
"""

from __future__ import annotations

from .accounts import AccountQueries
from .analyses import AnalysisQueries
from .boards import BoardQueries
from .bots import BotQueries
from .fair_play import FairPlayQueries
from .guests import GuestQueries
from .leases import LeaseQueries
from .matches import MatchQueries
from .ratings import RatingQueries
from .tournaments import TournamentQueries
from .writer import StoreBase


class SqlStore(
    GuestQueries,
    MatchQueries,
    AnalysisQueries,
    LeaseQueries,
    AccountQueries,
    BotQueries,
    RatingQueries,
    BoardQueries,
    TournamentQueries,
    FairPlayQueries,
    StoreBase,
):
    """The `Store` port on SQLAlchemy Core: group commit on a writer thread, reads on another."""
