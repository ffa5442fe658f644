"""The storage port: the records the web service keeps and the store interface it needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

__all__ = [
    "EventRow",
    "GuestRow",
    "MatchKind",
    "MatchRow",
    "MatchStatus",
    "SeatRow",
    "Store",
    "StoreBusy",
    "StoreError",
]

MatchKind = Literal["robot", "room"]
MatchStatus = Literal["waiting", "playing", "over"]


class StoreError(RuntimeError):
    """The store refused or failed an operation (a conflict, a lost connection)."""


class StoreBusy(StoreError):
    """The database could not take the work in time (another process holds a lock); nothing was
    changed, and trying again after `retry_after` seconds is worth it."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class GuestRow:
    """A guest identity: the id its cookie signs and its display name."""

    id: str
    name: str
    created_at: float


@dataclass(frozen=True, slots=True)
class SeatRow:
    """Who sits in a seat: a guest, a robot of some level, or nobody yet."""

    seat: int
    guest_id: str | None = None
    robot_level: str | None = None

    @property
    def empty(self) -> bool:
        return self.guest_id is None and self.robot_level is None


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A match as stored: its secret seed, rules, seats and status (the actions are events)."""

    id: str
    kind: MatchKind
    status: MatchStatus
    rules: dict[str, Any]
    seed: str
    seats: tuple[SeatRow, SeatRow]
    created_at: float
    room_code: str | None = None
    turn_seconds: float | None = None
    finished_at: float | None = None
    result: dict[str, Any] | None = None
    rematch_of: str | None = None
    rematch_id: str | None = None
    #: Bits of each deal's seed (`deal_seed`): 256 for every match made now; 64 for those stored
    #: before, which keep dealing as they began.
    deal_bits: int = 256


@dataclass(frozen=True, slots=True)
class EventRow:
    """One accepted action: its 1-based sequence number in the match, the seat and the ACTION JSON."""

    seq: int
    seat: int
    action: dict[str, Any]


class Store(Protocol):
    """What the service needs from storage. Every write is committed when the awaitable returns."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def get_or_create_setting(self, key: str, value: str) -> str:
        """The stored value of `key`, storing `value` first if there is none."""
        ...

    async def create_guest(self, guest: GuestRow) -> None: ...

    async def get_guest(self, guest_id: str) -> GuestRow | None: ...

    async def get_guests(self, guest_ids: list[str]) -> dict[str, GuestRow]: ...

    async def rename_guest(self, guest_id: str, name: str) -> None: ...

    async def create_match(self, match: MatchRow) -> None: ...

    async def get_match(self, match_id: str) -> MatchRow | None: ...

    async def get_match_by_code(self, code: str) -> MatchRow | None: ...

    async def take_seat(self, match_id: str, seat: int, guest_id: str) -> bool:
        """Seat a guest in an empty seat and mark the match playing; False if the seat was taken."""
        ...

    async def append_event(self, match_id: str, event: EventRow) -> None:
        """Append one action; raises `StoreError` if that sequence number exists already."""
        ...

    async def events(self, match_id: str) -> list[EventRow]: ...

    async def finish_match(self, match_id: str, result: dict[str, Any], finished_at: float) -> None: ...

    async def set_rematch(self, match_id: str, rematch: MatchRow) -> str:
        """Create `rematch` and link it, unless a rematch exists already; returns the rematch's id."""
        ...

    async def live_matches(self, active_since: float | None = None) -> list[MatchRow]:
        """Every match not over yet; with `active_since`, only those created or played since then."""
        ...

    async def matches_of(self, guest_id: str, limit: int = 100) -> list[MatchRow]:
        """The guest's matches, newest first."""
        ...
