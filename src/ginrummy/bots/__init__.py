"""Computer players: each sees only its seat's view and returns an action.

`make_player(name, seed=..., time_budget=...)` builds any registered player: `random`,
`baseline` (the 2021 EAAI challenge's reference player), `camper` (after the published
strategy of that challenge's winner), and the levels `novice`,
`casual`, `skilled`, `advanced` and `expert`. `suggest(view)` gives a hint with a reason.
"""

from .base import Player, RandomPlayer, available_players, make_player, register_player
from .baseline import BaselinePlayer
from .camper import CamperPlayer
from .expert import ExpertPlayer
from .levels import AdvancedPlayer, CasualPlayer, NovicePlayer, SkilledPlayer
from .suggest import Suggestion, suggest

__all__ = [
    "AdvancedPlayer",
    "BaselinePlayer",
    "CamperPlayer",
    "CasualPlayer",
    "ExpertPlayer",
    "NovicePlayer",
    "Player",
    "RandomPlayer",
    "SkilledPlayer",
    "Suggestion",
    "available_players",
    "make_player",
    "register_player",
    "suggest",
]
