"""The fast core (`scripts/build_fast_core.py`) against the Python source it is compiled from.

Every public function of `ginrummy.rules.masks` is called on the same random positions in
the Python module and in the compiled one, and must give equal answers (values and types).
Without a build these skip; `GINRUMMY_REQUIRE_FAST_CORE=1` (as in .ci/run) turns the skip
into a failure. The choice of build (`GINRUMMY_PURE_PYTHON`, stale builds) is tested with
or without a compiler.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_deadwood_oracle import hands
from test_layoff_oracle import deals

from ginrummy.rules import CardSet, Rules, fast_core, mask_deadwood, masks

SETTINGS = settings(max_examples=200, deadline=None)
REQUIRED = os.environ.get("GINRUMMY_REQUIRE_FAST_CORE", "") not in ("", "0")
RULES_DIR = Path(masks.__file__).parent
#: Showdown rules that take every branch of `showdown_points`: classic, Big Gin paid, no
#: undercut on a tie, other bonuses.
SHOWDOWN_RULES = [
    Rules(),
    Rules(big_gin_bonus=31, undercut_on_tie=False),
    Rules(gin_bonus=20, undercut_bonus=10, big_gin_bonus=50),
]


@pytest.fixture(scope="module")
def compiled() -> ModuleType:
    module, problem = fast_core.compiled_build()
    if module is None:
        reason = problem or "no compiled build (python scripts/build_fast_core.py makes one)"
        if REQUIRED:
            pytest.fail(f"GINRUMMY_REQUIRE_FAST_CORE=1 but {reason}")
        pytest.skip(reason)
    return module


def same(compiled: ModuleType, name: str, *args: Any) -> None:
    """`name` gives the same answer, of the same types, in both builds."""
    ours: Callable[..., Any] = getattr(masks, name)
    theirs: Callable[..., Any] = getattr(compiled, name)
    expected = ours(*args)
    got = theirs(*args)
    assert got == expected, f"{name}{args}: compiled {got!r}, Python {expected!r}"
    assert repr(got) == repr(expected), f"{name}{args}: compiled {got!r}, Python {expected!r}"


#: Every public function of masks, with the test below that compares it.
COMPARED = {
    "bits": "test_one_hand",
    "points": "test_one_hand",
    "least_deadwood": "test_one_hand",
    "best_melds": "test_one_hand",
    "deadwood_cards": "test_one_hand",
    "all_melds": "test_one_hand",
    "all_best_melds": "test_one_hand",
    "best_discards": "test_eleven_cards",
    "deadwood_after_discards": "test_eleven_cards",
    "least_after_discard": "test_eleven_cards",
    "knock_options": "test_eleven_cards",
    "meld_partners": "test_one_card",
    "forms_meld": "test_one_card",
    "best_layoffs": "test_showdowns",
    "layoff_deadwood": "test_showdowns",
    "showdown_points": "test_showdowns",
}


def test_every_public_function_is_compared_and_exported() -> None:
    public = {name for name in masks.__all__ if callable(getattr(masks, name))}
    assert public == set(COMPARED)
    # masks gives mask_deadwood's whole API too, so each of its functions is compared here.
    assert set(mask_deadwood.__all__) <= set(masks.__all__)
    assert {COMPARED[name] for name in public} <= set(globals())
    # fast_core gives every name of the card-mask API, from the build it chose.
    for name in masks.__all__:
        assert getattr(fast_core, name) is getattr(fast_core.core, name)


def test_constants_are_equal(compiled: ModuleType) -> None:
    for name in masks.__all__:
        if not callable(getattr(masks, name)):
            assert getattr(compiled, name) == getattr(masks, name), name


@SETTINGS
@given(hands(max_size=13))
def test_one_hand(compiled: ModuleType, cards: CardSet) -> None:
    for name in ("bits", "points", "least_deadwood", "best_melds", "deadwood_cards", "all_melds"):
        same(compiled, name, cards.mask)
    if len(cards) <= 11:
        same(compiled, "all_best_melds", cards.mask)


@SETTINGS
@given(hands(min_size=11, max_size=11), st.integers(-1, 51), st.integers(-1, 15))
def test_eleven_cards(compiled: ModuleType, cards: CardSet, forbid: int, knock_limit: int) -> None:
    mask = cards.mask
    same(compiled, "best_discards", mask)
    same(compiled, "best_discards", mask, forbid)
    same(compiled, "least_after_discard", mask)
    same(compiled, "least_after_discard", mask, forbid)
    same(compiled, "deadwood_after_discards", mask)
    same(compiled, "knock_options", mask, knock_limit)
    same(compiled, "knock_options", mask, knock_limit, forbid)


@SETTINGS
@given(st.integers(0, 51), hands(max_size=11))
def test_one_card(compiled: ModuleType, card: int, cards: CardSet) -> None:
    same(compiled, "meld_partners", card)
    same(compiled, "forms_meld", card, cards.mask & ~(1 << card))
    same(compiled, "forms_meld", card, cards.mask)


@SETTINGS
@given(deals(), st.sampled_from(SHOWDOWN_RULES), st.integers(0, 51))
def test_showdowns(compiled: ModuleType, deal: tuple[CardSet, CardSet], rules: Rules, extra: int) -> None:
    knocker, defender = deal[0].mask, deal[1].mask
    for melds in masks.all_best_melds(knocker):
        same(compiled, "best_layoffs", melds, defender)
        same(compiled, "best_layoffs", tuple(melds), defender)
        same(compiled, "layoff_deadwood", melds, defender)
    same(compiled, "showdown_points", knocker, defender, rules)
    if not (knocker | defender) >> extra & 1:  # an eleventh card: Big Gin's branch
        same(compiled, "showdown_points", knocker | 1 << extra, defender, rules)


def test_the_engine_runs_the_build_it_was_asked_for() -> None:
    forced = os.environ.get("GINRUMMY_PURE_PYTHON", "") not in ("", "0")
    if forced:
        assert fast_core.BUILD == "python" and fast_core.core is masks
    elif REQUIRED:
        assert fast_core.BUILD == "compiled", fast_core.compiled_build()[1]
    assert (fast_core.core is masks) == (fast_core.BUILD == "python")


def build_in(code: str, **environ: str) -> str:
    """What `code` prints in a fresh interpreter with `environ` added."""
    env = {**os.environ, **environ}
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return run.stdout.strip()


def test_pure_python_forces_the_python_source() -> None:
    code = (
        "from ginrummy.rules import fast_core as f; "
        "print(f.BUILD, f.least_deadwood.__module__, f.showdown_points.__module__)"
    )
    assert (
        build_in(code, GINRUMMY_PURE_PYTHON="1") == "python ginrummy.rules.mask_deadwood ginrummy.rules.masks"
    )


def test_the_build_is_chosen_when_present(compiled: ModuleType) -> None:
    code = "from ginrummy.rules import fast_core; print(fast_core.BUILD)"
    assert build_in(code, GINRUMMY_PURE_PYTHON="0") == "compiled"
    assert compiled.least_deadwood is not masks.least_deadwood


def sources_copy(tmp_path: Path) -> tuple[Path, tuple[tuple[str, str], ...]]:
    """The rules sources in `tmp_path`, and the record a build of them holds."""
    names = ("masks.py", "mask_deadwood.py", "cards.py", "variants.py")
    for name in names:
        shutil.copy(RULES_DIR / name, tmp_path / name)
    record = tuple((name, hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()) for name in names)
    return tmp_path, record


def test_a_build_of_other_sources_is_stale(tmp_path: Path) -> None:
    directory, record = sources_copy(tmp_path)
    assert fast_core.stale_reason(record, directory) is None
    with (directory / "variants.py").open("a") as file:
        file.write("\n# edited\n")
    reason = fast_core.stale_reason(record, directory)
    assert reason is not None and reason.startswith("variants.py changed since it was compiled")
    (directory / "cards.py").unlink()
    assert fast_core.stale_reason(record, directory) == "cards.py is missing beside it"
    assert fast_core.stale_reason(None, directory) is not None
    assert fast_core.stale_reason((("masks.py",),), directory) is not None


def test_a_stale_build_is_not_run_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    directory, record = sources_copy(tmp_path)
    (directory / "masks.py").write_text((RULES_DIR / "masks.py").read_text() + "\n# edited\n")
    built = str(directory / f"_masks_compiled{EXTENSION_SUFFIXES[0]}")
    stale = SimpleNamespace(_BUILT_FROM=record, __file__=built, least_deadwood=lambda mask: -1)
    monkeypatch.setattr(fast_core, "import_module", lambda name: stale)
    module, problem = fast_core.compiled_build(directory)
    assert module is None and problem is not None and "masks.py changed" in problem
    with caplog.at_level(logging.WARNING, logger="ginrummy.rules.fast_core"):
        assert fast_core.choose({}, directory) is masks
    assert "masks.py changed since it was compiled" in caplog.text
    # The same build over its own sources is current, and chosen unless Python is forced.
    current_record = tuple(
        (name, hashlib.sha256((directory / name).read_bytes()).hexdigest()) for name, _ in record
    )
    stale._BUILT_FROM = current_record
    stale.__file__ = str(directory / "_masks_compiled.py")  # a copy of the source, not a build
    module, problem = fast_core.compiled_build(directory)
    assert module is None and problem is not None and "is not a compiled extension" in problem
    stale.__file__ = built
    assert fast_core.compiled_build(directory) == (stale, None)
    assert fast_core.choose({}, directory) is stale
    assert fast_core.choose({"GINRUMMY_PURE_PYTHON": "1"}, directory) is masks
