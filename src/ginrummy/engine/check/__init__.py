"""The conformance checker for engine authors: drive an engine through every phase, variant and edge case.

`check_engine(command)` starts the program and speaks docs/protocol.md to it the way a host does
and then some. In version 1: a real position of every phase and two-player preset, a view
without its optional fields, a view with a field it does not know, junk, an unknown message, a
line too long, blank lines, a `result`, a whole match per preset against our baseline player.
Then it offers version 2 and, if the engine takes it, does the same for every game: two-player
Gin as version 2 writes it, three-player Gin, team Gin and Rummy at several table sizes (every
phase: the upcard offer, draws, discards, knocks, melds, layoffs, going out, a stock turned
over), the version's edge cases, and a whole game of each. Last, `quit` and the end of input.
Every reply is checked against the message schemas (`schema.py`). Each check passes, fails,
warns or is skipped, and a failure keeps the exchange that shows it, so the author can see what
was sent, what came back, and what the protocol expected.

What each module owns: `checker` the checks and `check_engine`; `scenarios` the positions they
send; `conversation` the recorded talk with the engine over its pipe (`engine.pipe`, which the
host uses too); `report` what a run found.
"""

from .checker import check_engine
from .report import Check, CheckReport, Exchange
from .scenarios import Scenario, TableScenario, scenarios, table_scenarios

__all__ = [
    "Check",
    "CheckReport",
    "Exchange",
    "Scenario",
    "TableScenario",
    "check_engine",
    "scenarios",
    "table_scenarios",
]
