"""Research environments on the exact rules: PettingZoo AEC and a Gymnasium single-agent wrapper.

Needs the ``env`` extra (``pip install 'ginrummy[env]'``: pettingzoo, gymnasium, numpy).

>>> from ginrummy import env as ginrummy_env
>>> game = ginrummy_env.env("classic", episode="hand")
>>> game.reset(seed=7)
>>> obs, reward, terminated, truncated, info = game.last()
>>> game.agent_selection, obs["observation"].shape, int(obs["action_mask"].sum())
('player_0', (430,), 2)
"""

try:
    import gymnasium as _gymnasium
    import numpy as _numpy  # noqa: F401
    import pettingzoo as _pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on what is installed
    raise ImportError(
        f"ginrummy.env needs pettingzoo, gymnasium and numpy ({exc}); install them with "
        "pip install 'ginrummy[env]'"
    ) from exc

from .aec import GinRummyEnv, env, raw_env
from .encoding import ACTIONS, PHASES, ActionCodec, LayoutBuilder, ObservationEncoder, ObservationLayout
from .rummy import RUMMY_ACTIONS, RUMMY_PHASES, RummyActionCodec, RummyEncoder
from .single import GinRummyGymEnv
from .tables import GinTableEncoder
from .text import render_rummy_view, render_table_view, render_view

#: The Gymnasium id: ``gymnasium.make("ginrummy/GinRummy-v0", opponent="expert")``.
GYM_ID = "ginrummy/GinRummy-v0"
if GYM_ID not in _gymnasium.registry:
    _gymnasium.register(id=GYM_ID, entry_point="ginrummy.env.single:GinRummyGymEnv")

__all__ = [
    "GYM_ID",
    "ACTIONS",
    "PHASES",
    "RUMMY_ACTIONS",
    "RUMMY_PHASES",
    "ActionCodec",
    "GinRummyEnv",
    "GinRummyGymEnv",
    "GinTableEncoder",
    "LayoutBuilder",
    "ObservationEncoder",
    "ObservationLayout",
    "RummyActionCodec",
    "RummyEncoder",
    "env",
    "raw_env",
    "render_rummy_view",
    "render_table_view",
    "render_view",
]
