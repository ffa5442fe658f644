"""The arena: whole matches between computer players or outside engines, and their statistics.

It sits above `bots` and `engine` (it seats both kinds of player), so neither imports it.
"""

from .cluster import RayCluster, RayUnavailable
from .matches import (
    ArenaSummary,
    MatchStats,
    PlayerSpec,
    close_engines,
    elo_difference,
    make_spec_player,
    paired_interval,
    percentile,
    play_match,
    run_arena,
    run_round_robin,
    wilson_interval,
)

__all__ = [
    "ArenaSummary",
    "MatchStats",
    "PlayerSpec",
    "RayCluster",
    "RayUnavailable",
    "close_engines",
    "elo_difference",
    "make_spec_player",
    "paired_interval",
    "percentile",
    "play_match",
    "run_arena",
    "run_round_robin",
    "wilson_interval",
]
