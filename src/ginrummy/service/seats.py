"""Who sits where at a live table: a person, a robot of some level, or nobody yet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["SeatInfo"]


@dataclass(slots=True)
class SeatInfo:
    """Who sits in a seat, as the table shows it."""

    seat: int
    kind: Literal["human", "robot"] | None = None
    guest_id: str | None = None
    level: str | None = None
    name: str | None = None
    #: For an empty seat kept for someone (a rematch not accepted yet): that player's name.
    invited: str | None = None
    #: A bot account (a program, service/bots.py): seated and treated as a person, shown as a bot.
    bot: bool = False
    #: A person without an account: shown as a guest, so nobody passes for an account's owner.
    guest: bool = False
