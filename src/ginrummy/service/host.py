"""What the game service's parts (analyses, challenges, seeking, tournaments) use of the service.

`GameService` (platform.py) builds those parts and hands itself to each; they see it only
through `ServiceHost`, so their modules never import platform.py and imports flow one way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .bots import BotAccounts
from .cluster.ports import Ownership
from .config import ServiceConfig
from .fairplay import FairPlay
from .leaderboards import Leaderboards
from .live import LiveMatch
from .ports import GuestRow, MatchRow, Store

__all__ = ["ServiceHost"]


class ServiceHost(Protocol):
    """The game service as its parts see it."""

    @property
    def store(self) -> Store: ...

    @property
    def config(self) -> ServiceConfig: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def bots(self) -> BotAccounts: ...

    @property
    def fairplay(self) -> FairPlay: ...

    @property
    def boards(self) -> Leaderboards: ...

    @property
    def live(self) -> dict[str, LiveMatch]: ...

    @property
    def ownership(self) -> Ownership | None:
        """Set when many processes share the site (service/cluster); None alone."""

    async def get_live(self, match_id: str) -> LiveMatch | None:
        """The live match (loaded from the log if needed), or None if there is no such match."""

    def new_match_row(self, **fields: Any) -> MatchRow:
        """A new match's row, with its seed, not yet stored."""

    async def create_robot_match(self, guest: GuestRow, level: Any, rules: Any, *, levels: Any = None) -> str:
        """A new match of the guest against robots; its id."""

    async def open_new(self, rows: list[MatchRow], names: dict[str, str]) -> None:
        """Open matches just stored, under the players' `names`."""
