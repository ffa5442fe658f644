"""The `expert` player: its steady opening game, the undercut game, opponent reading and search.

`player` holds the decisions, `steady` the game it opens with, `infer` the opponent hands it
samples, `rollout` the fast hand simulator and `match_odds` the chance of winning a match
from a score.
"""

from ..base import register_player
from .player import ExpertDecision, ExpertPlayer, Turn
from .steady import SteadyPlayer

__all__ = ["ExpertDecision", "ExpertPlayer", "SteadyPlayer", "Turn"]

register_player("expert", ExpertPlayer)
