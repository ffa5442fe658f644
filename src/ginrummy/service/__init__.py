"""The web platform's use cases, with no HTTP and no SQL: guests and accounts, rooms and pairing,
live matches and what each seat or spectator may see, replays, ratings and leaderboards, bots,
tournaments (`tournaments`) and many processes as one site (`cluster`); storage sits behind the
ports of `ports`."""

from .config import ServiceConfig
from .errors import (
    BadRequest,
    Forbidden,
    NotFinished,
    NotFound,
    RateLimited,
    RoomFull,
    ServiceError,
    TooLarge,
    Unavailable,
    encodable,
)
from .live import Connection, LiveMatch, SeatInfo, error_message
from .options import parse_rules
from .platform import GameService
from .ports import EventRow, GuestRow, MatchRow, SeatRow, Store, StoreBusy, StoreError
from .robots import LEVELS, resolve_level, robot_for

__all__ = [
    "BadRequest",
    "Connection",
    "EventRow",
    "Forbidden",
    "GameService",
    "GuestRow",
    "LEVELS",
    "LiveMatch",
    "MatchRow",
    "NotFinished",
    "NotFound",
    "RateLimited",
    "RoomFull",
    "SeatInfo",
    "SeatRow",
    "ServiceConfig",
    "ServiceError",
    "Store",
    "StoreBusy",
    "StoreError",
    "TooLarge",
    "Unavailable",
    "encodable",
    "error_message",
    "parse_rules",
    "resolve_level",
    "robot_for",
]
