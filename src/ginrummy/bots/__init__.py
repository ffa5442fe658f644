"""Computer players: each sees only its seat's view and returns an action.

`make_player(name, seed=..., time_budget=...)` builds any registered player: `random`,
`baseline` (the 2021 EAAI challenge's reference player), and the levels `novice`,
`casual`, `skilled`, `advanced` and `expert`. `suggest(view)` gives a hint with a reason.
"""

from .base import Player, RandomPlayer, available_players, make_player, register_player
from .baseline import BaselinePlayer
from .levels import AdvancedPlayer, CasualPlayer, NovicePlayer, SkilledPlayer
from .suggest import Suggestion, suggest

try:  # The expert lives in its own module and registers itself when imported.
    from . import expert as _expert  # noqa: F401
except ModuleNotFoundError as exc:  # pragma: no cover - only while the expert is not installed
    if exc.name != f"{__name__}.expert":
        raise

__all__ = [
    "AdvancedPlayer", "BaselinePlayer", "CasualPlayer", "NovicePlayer", "Player", "RandomPlayer",
    "SkilledPlayer", "Suggestion", "available_players", "make_player", "register_player", "suggest",
]
