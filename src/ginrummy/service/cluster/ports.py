"""What the cluster layer needs from a message bus (Redis in `storage/redis_bus.py`), and its errors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import Refusal, Unavailable
from ..ports import Lease, MatchStatus

if TYPE_CHECKING:
    from ..live import Connection, LiveMatch

__all__ = [
    "Bus",
    "BusDown",
    "Droppable",
    "OwnedElsewhere",
    "Ownership",
    "Page",
    "Table",
    "TournamentElsewhere",
]


class BusDown(RuntimeError):
    """The bus cannot be reached now: nothing was sent."""


class OwnedElsewhere(Unavailable):
    """Another server process owns the live match (holds its lease); only it may change it."""

    def __init__(self, match_id: str, owner: str) -> None:
        super().__init__(f"match {match_id!r} is played on another server; try again in a moment", 1.0)
        self.match_id = match_id
        self.owner = owner


class TournamentElsewhere(Unavailable):
    """Another server process runs the tournament (holds its lease); only it may change it."""

    def __init__(self, tournament_id: str, owner: str) -> None:
        super().__init__(f"tournament {tournament_id!r} runs on another server; try again in a moment", 1.0)
        self.tournament_id = tournament_id
        self.owner = owner


@runtime_checkable
class Droppable(Protocol):
    """A socket the cluster layer may close so that its page reconnects (and finds the new owner)."""

    def drop(self, reason: str) -> None: ...


class Bus(Protocol):
    """Channels that carry text between server processes; at most once, in order per sender.

    The bus holds nothing that matters: a message lost while it is down is made good by the pages
    reconnecting (`on_reconnect`), and everything that must survive is in the database.
    """

    async def start(self) -> None:
        """Connect; the bus reconnects by itself after this whenever the connection is lost."""
        ...

    async def close(self) -> None: ...

    async def subscribe(self, channel: str, handler: Callable[[str], None]) -> None:
        """Deliver every message of `channel` to `handler` (one handler per channel)."""
        ...

    async def unsubscribe(self, channel: str) -> None: ...

    def publish_soon(self, channel: str, text: str) -> None:
        """Queue a message; messages queued by one process leave in the order they were queued."""
        ...

    async def publish(self, channel: str, text: str) -> int:
        """Send now (after anything queued); returns how many processes listen to `channel`.

        Raises `BusDown` when the bus cannot be reached.
        """
        ...

    async def listeners(self, channels: Iterable[str]) -> dict[str, int]:
        """How many processes listen to each channel (0: the process behind it is gone)."""
        ...

    def on_reconnect(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Call `callback` each time the bus is back after losing its connection."""
        ...


class Table(Protocol):
    """What a match's sockets talk to: the live match itself, or a relay to the process owning it."""

    id: str
    status: MatchStatus
    room_code: str | None

    def seat_of(self, guest_id: str) -> int | None: ...

    def connect(self, seat: int, conn: Connection) -> None: ...

    def disconnect(self, seat: int, conn: Connection) -> None: ...

    def watch(self, conn: Connection) -> None: ...

    def unwatch(self, conn: Connection) -> None: ...

    async def act(self, seat: int, data: Any, version: Any) -> Refusal | None: ...

    async def abort(self, seat: int) -> Refusal | None: ...

    async def resign(self, seat: int) -> Refusal | None: ...

    def react(self, seat: int, emote: Any) -> Refusal | None: ...

    async def hint(self, seat: int, version: Any) -> str | Refusal:
        """The coach's hint message for `seat`'s turn, or a refusal as (code, message)."""
        ...

    def back(self, seat: int) -> None: ...


class Page(Protocol):
    """What a tournament page's socket talks to: the tournament itself, or a relay to its owner."""

    def connect(self, conn: Connection, guest_id: str | None) -> None: ...

    def disconnect(self, conn: Connection) -> None: ...


class Ownership(Protocol):
    """The hooks through which `GameService` lets a cluster decide which process runs a match."""

    async def claim(self, match_id: str) -> None:
        """Before a match is rebuilt: take its lease, or raise `OwnedElsewhere`."""
        ...

    def fence(self, match_id: str) -> Lease:
        """The lease an event of this match is written under (`LeaseLost` if none is held)."""
        ...

    def lost(self, match_id: str) -> None:
        """A fenced write was refused: the match is no longer this process's."""
        ...

    def unloaded(self, match_id: str) -> None:
        """The match was unloaded from memory (its lease may go)."""
        ...

    async def forward(self, owner: str, match_id: str, op: str, args: dict[str, Any]) -> Any:
        """Have `owner` run the service call `op` about the match; its answer, or its `ServiceError`."""
        ...

    #: The longest wait for a pairing forwarded in one call (shorter than the call's timeout).
    wait_slice: float

    async def pool_owner(self) -> str | None:
        """The process running quick pairing: None when it is this one (which takes the pool's
        lease when nobody holds it), else its name."""
        ...

    def fence_of(self, name: str) -> Lease:
        """The lease `name` ("pool", "tournament:ID") while this process holds it and renewed it
        in time; `LeaseLost` otherwise. Writes made for the thing it guards are fenced by it."""
        ...

    async def claim_tournament(self, tournament_id: str) -> None:
        """Before a running tournament is rebuilt: take its lease, or raise `TournamentElsewhere`."""
        ...

    def tournament_gone(self, tournament_id: str) -> None:
        """The tournament was unloaded (finished, nobody watching): its lease may go."""
        ...

    async def tournament_page(self, tournament_id: str, owner: str) -> Page:
        """A relay for page sockets of a tournament `owner` runs."""
        ...

    def tell_tournament(self, tournament_id: str, op: str, **args: Any) -> None:
        """Let the owner of the tournament (if any) know something; no answer is awaited."""
        ...

    def renamed(self, guest_id: str, name: str) -> None:
        """A guest was renamed here: the other processes show the name at their tables too."""
        ...

    def tell(self, match_id: str, op: str, **args: Any) -> None:
        """Let the owner of the match (if any) know something; no answer is awaited."""
        ...

    async def open_table(self, match_id: str) -> LiveMatch | Table | None:
        """The table a socket of the match talks to (None: no such match)."""
        ...

    async def live_elsewhere(self) -> list[dict[str, Any]]:
        """The live games list's entries of the public matches the other processes run."""
        ...

    async def close(self) -> None: ...
