"""Which build of the card-mask rules the engine and the players run: compiled when built, else Python.

`masks` (standard-library Python, with `mask_deadwood` which it builds on) is the reference
and the fallback. `python scripts/build_fast_core.py` compiles the same sources with mypyc into
the extensions `ginrummy.rules._masks_compiled` and `_mask_deadwood_compiled` next to them
(3-6x faster per call). This module imports the
extension when it is there and current, and the Python source otherwise, and gives the names of
`masks.__all__` from the one chosen: the rest of the package imports its card-mask functions
from here. `GINRUMMY_PURE_PYTHON=1` forces the Python source.

Why a second module name, not an extension shadowing masks.py: `ginrummy.rules.masks` then
always is the Python source, for its doctests, for a reader, and for the test that compares it
with the build (`tests/rules/test_fast_core.py`, which needs both in one process); no import
hook is needed, and choosing is one plain import here. A build is current when the SHA-256
of masks.py and of the modules it imports, directly or not (`mask_deadwood`, `variants`,
`cards`), recorded in the build, match the files beside it. Digests rather than modification times: a checkout or a copy resets the
times, while the contents say exactly whether the compiled code is the code of the source. An
edited masks.py therefore never runs as its stale build; the engine logs a warning and runs
the Python source until the build is made again.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Mapping
from importlib import import_module
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Final

import ginrummy.rules.masks as python_build

__all__ = [
    "BUILD",
    "CARD_POINTS",
    "FULL_DECK",
    "RANK_MASKS",
    "RANK_OF",
    "SUIT_BITS",
    "SUIT_OF",
    "all_best_melds",
    "all_melds",
    "best_discards",
    "best_layoffs",
    "best_melds",
    "bits",
    "choose",
    "compiled_build",
    "deadwood_after_discards",
    "deadwood_cards",
    "forms_meld",
    "knock_options",
    "layoff_deadwood",
    "least_after_discard",
    "least_deadwood",
    "meld_partners",
    "points",
    "python_build",
    "showdown_points",
    "stale_reason",
]

COMPILED_NAME: Final = f"{__package__}._masks_compiled"
#: Where the sources a build is checked against live: beside this module.
SOURCES: Final = Path(__file__).parent
_log = logging.getLogger(__name__)


def stale_reason(built_from: object, directory: Path) -> str | None:
    """Why a build recording `built_from` ((file name, SHA-256) pairs) is not the code of the
    sources in `directory`, or None when every digest matches."""
    if not isinstance(built_from, tuple) or not built_from:
        return "it records no sources (rebuild it with scripts/build_fast_core.py)"
    for entry in built_from:
        if not (isinstance(entry, tuple) and len(entry) == 2):
            return "its record of sources is malformed (rebuild it with scripts/build_fast_core.py)"
        name, digest = entry
        path = directory / name
        try:
            current = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            return f"{name} is missing beside it"
        if current != digest:
            return f"{name} changed since it was compiled (rebuild it with scripts/build_fast_core.py)"
    return None


def compiled_build(directory: Path = SOURCES) -> tuple[ModuleType | None, str | None]:
    """(the compiled module, None) when it is built and current against the sources in
    `directory`; (None, None) when there is no build; (None, why it cannot be used) for a
    build that does not load or is stale."""
    try:
        module = import_module(COMPILED_NAME)
    except ModuleNotFoundError as error:
        if error.name != COMPILED_NAME:
            raise
        return None, None
    except ImportError as error:
        return None, f"the compiled build does not load: {error}"
    path = getattr(module, "__file__", None) or ""
    if not path.endswith(tuple(EXTENSION_SUFFIXES)):
        # The build's temporary copy of the source (while building, or left by a failed build).
        return None, f"{path} is not a compiled extension (python scripts/build_fast_core.py --clean)"
    reason = stale_reason(getattr(module, "_BUILT_FROM", None), directory)
    if reason is not None:
        return None, f"the compiled build is stale: {reason}"
    return module, None


def choose(environ: Mapping[str, str], directory: Path = SOURCES) -> ModuleType:
    """The module the engine runs under `environ`: the Python source when
    GINRUMMY_PURE_PYTHON is set (not 0), else the compiled build when it is current."""
    if environ.get("GINRUMMY_PURE_PYTHON", "") not in ("", "0"):
        return python_build
    module, problem = compiled_build(directory)
    if problem is not None:
        _log.warning("ginrummy.rules runs the Python card masks: %s", problem)
    return python_build if module is None else module


if TYPE_CHECKING:
    # Both builds are one source, so the Python module's types are the build's.
    core = python_build
else:
    core = choose(os.environ)

#: "compiled" or "python": the build the engine runs.
BUILD: Final = "python" if core is python_build else "compiled"

CARD_POINTS: Final = core.CARD_POINTS
FULL_DECK: Final = core.FULL_DECK
RANK_MASKS: Final = core.RANK_MASKS
RANK_OF: Final = core.RANK_OF
SUIT_BITS: Final = core.SUIT_BITS
SUIT_OF: Final = core.SUIT_OF
all_best_melds: Final = core.all_best_melds
all_melds: Final = core.all_melds
best_discards: Final = core.best_discards
best_layoffs: Final = core.best_layoffs
best_melds: Final = core.best_melds
bits: Final = core.bits
deadwood_after_discards: Final = core.deadwood_after_discards
deadwood_cards: Final = core.deadwood_cards
forms_meld: Final = core.forms_meld
knock_options: Final = core.knock_options
layoff_deadwood: Final = core.layoff_deadwood
least_after_discard: Final = core.least_after_discard
least_deadwood: Final = core.least_deadwood
meld_partners: Final = core.meld_partners
points: Final = core.points
showdown_points: Final = core.showdown_points
