"""Robot players for the web tables: the level people choose, or the nearest one available."""

from __future__ import annotations

import logging
import secrets

from ..bots import Player, available_players, make_player

__all__ = ["LEVELS", "QUICK_LEVELS", "robot_player", "resolve_level"]

log = logging.getLogger("ginrummy.service")

LEVELS = ("novice", "casual", "skilled", "advanced", "expert")
# Players that decide in well under a millisecond: they play on the event loop itself, which
# costs less than handing each decision to a thread and back (the GIL runs one of them anyway).
QUICK_LEVELS = frozenset({"random", "novice", "casual"})
_warned: set[str] = set()


def resolve_level(level: str) -> str:
    """The registered player that stands in for `level`: itself, else the nearest level, else a fallback."""
    available = set(available_players())
    if level in available:
        return level
    if level in LEVELS:
        i = LEVELS.index(level)
        # Nearest weaker level first (a robot should not surprise people by being stronger), then stronger.
        order = list(reversed(LEVELS[:i])) + list(LEVELS[i + 1 :])
    else:
        order = list(LEVELS)
    for name in [*order, "baseline", "random"]:
        if name in available:
            if level not in _warned:
                _warned.add(level)
                log.warning("robot level %r is not available yet; %r plays instead", level, name)
            return name
    raise ValueError(f"no computer player is registered (asked for {level!r})")


def robot_player(level: str, *, time_budget: float | None = None) -> Player:
    """A new robot of `level` (or the nearest available), randomly seeded."""
    return make_player(resolve_level(level), seed=secrets.randbits(32), time_budget=time_budget)
