"""ginrummy: exact Gin Rummy rules, computer players, and a web platform to play them.

The public API lives in `ginrummy.rules` and is re-exported here.
"""

from .rules import *  # noqa: F403
from .rules import __all__ as _rules_all

__all__ = list(_rules_all)
__version__ = "0.1.0"
