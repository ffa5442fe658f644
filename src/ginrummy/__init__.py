"""ginrummy: exact Gin Rummy rules, computer players, and a web platform to play them.

The public API lives in `ginrummy.rules` and is re-exported here.
"""

from . import rules
from .rules import *  # noqa: F403

__all__ = list(rules.__all__)
__version__ = "0.1.0"
