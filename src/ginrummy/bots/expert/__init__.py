"""The `expert` player: its steady opening game, the undercut game, opponent reading and search.

`player` holds the decisions, `steady` the knock judgement it opens with, `infer` the opponent hands it
samples, `rollout` the fast hand simulator and `match_odds` the chance of winning a match
from a score; `appraise(view, action)` gives the expert's choice and the estimated cost of
another action (for replay analysis).
"""

from ..base import register_player
from .appraise import Appraisal, appraise
from .player import ExpertDecision, ExpertPlayer, Turn
from .search import SearchingExpert
from .steady import SteadyPlayer

__all__ = [
    "Appraisal",
    "ExpertDecision",
    "ExpertPlayer",
    "SearchingExpert",
    "SteadyPlayer",
    "Turn",
    "appraise",
]

register_player("expert", ExpertPlayer)
register_player("searcher", SearchingExpert)
