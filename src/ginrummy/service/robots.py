"""Robot players for the web tables: the level people choose, or the nearest one available for the game."""

from __future__ import annotations

import logging
import secrets

from ..bots.table_players import TablePlayer, game_player_names, make_game_player
from ..rules import Rules

__all__ = ["LEVELS", "QUICK_LEVELS", "robot_for", "resolve_level"]

log = logging.getLogger("ginrummy.service")

LEVELS = ("novice", "casual", "skilled", "advanced", "expert")
# Players that decide in about a millisecond or less: they play on the event loop itself, which
# costs less than handing each decision to a thread and back (the GIL runs one of them anyway).
QUICK_LEVELS = frozenset({"random", "novice", "casual"})
_warned: set[tuple[str, str]] = set()


def resolve_level(level: str, game: str = "gin") -> str:
    """The player that stands in for `level` in `game`: itself, else the nearest level, else a fallback."""
    available = set(game_player_names(game))
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
            if (level, game) not in _warned:
                _warned.add((level, game))
                log.warning("robot level %r is not available in %s; %r plays instead", level, game, name)
            return name
    raise ValueError(f"no computer player is registered for {game} (asked for {level!r})")


def robot_for(level: str, rules: Rules, *, time_budget: float | None = None) -> TablePlayer:
    """A new robot of `level` (or the nearest available) for the game of `rules`, randomly seeded."""
    return make_game_player(
        resolve_level(level, rules.game), rules, seed=secrets.randbits(32), time_budget=time_budget
    )
