"""Tournaments: arenas (Lichess-style) and Swiss tournaments (rounds paired by the FIDE Dutch system).

What each module owns: `live` the life cycle every tournament shares (`TournamentLive`: players,
matches, start and end, the page), with `feed` the deltas its pages are pushed; `arena` the arena's
scoring, pairing and `ArenaLive`; `swiss` `SwissLive`, the rounds of a Swiss tournament (scored and
paired by `service.swiss`); `form` the options of a player-made tournament; `registry` every
tournament of the server (`Tournaments`: creating, the daily schedule, rebuilding at start, and
in a cluster the process that runs each one).
"""

from .arena import ArenaLive, ArenaTable, Standing, arena_pairs, arena_standings
from .feed import PageFeed
from .live import TournamentLive
from .registry import Tournaments
from .swiss import SwissLive

__all__ = [
    "ArenaLive",
    "ArenaTable",
    "PageFeed",
    "Standing",
    "SwissLive",
    "TournamentLive",
    "Tournaments",
    "arena_pairs",
    "arena_standings",
]
