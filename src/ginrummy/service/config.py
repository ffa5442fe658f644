"""The platform's tunable behaviour, filled by the server from its settings."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ServiceConfig"]


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    """Tunable behaviour of the platform (the server fills it from the environment)."""

    robot_delay: float = 0.6
    grace_seconds: float = 30.0
    default_turn_seconds: float | None = 60
    robot_time_budget: float | None = None
    min_turn_seconds: float = 10.0  # a room's clock can be no shorter (tests shorten it)
    idle_seconds: float = 600.0  # a match nobody watches and nothing is due in is unloaded after this
    #: At start, matches played within this many seconds are rebuilt at once (their players are
    #: about to reconnect); older unfinished ones are rebuilt when someone opens them.
    restore_seconds: float = 3600.0
    pairing_interval: float = 1.0  # seconds between quick-pairing waves
    tournament_interval: float = 1.0  # seconds between a tournament's pairing waves
    daily_arena_hours: tuple[int, ...] = (0, 6, 12, 18)  # UTC hours the daily arenas start at
    daily_minutes: float = 60.0
    daily_target: int = 100
    daily_swiss_hours: tuple[int, ...] = (3, 15)  # UTC hours the daily Swiss tournaments start at
    daily_swiss_rounds: int = 5
    swiss_round_gap: float = 10.0  # seconds between the end of a Swiss round and the next pairing
    online_turn_seconds: float | None = 60  # the turn clock of matches between strangers
    #: Pair players of one client address in rated play (a shared network); off: they are kept apart.
    rated_same_address: bool = False
    #: Tournaments one person may have made that have not finished yet (0: no limit).
    open_tournaments: int = 3
