"""The benchmark scripts run end to end (tiny budgets) and compare like with like; no speed is asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from ginrummy import Card

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_openspiel_card_mapping() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    bench = _load("bench_deadwood")
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    mapping = bench.openspiel_to_ours(utils)
    assert sorted(mapping) == list(range(52))
    assert mapping[0] == Card.parse("AS").index  # OpenSpiel's 'As'
    assert mapping[13] == Card.parse("AC").index  # OpenSpiel's 'Ac'
    assert mapping[51] == Card.parse("KH").index


def test_deadwood_benchmark_agrees_with_openspiel(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    bench = _load("bench_deadwood")
    assert bench.main(["--seconds", "0.01", "--rounds", "1", "--hands", "300"]) == 0
    out = capsys.readouterr().out
    assert "both give the same deadwood on all 300 hands" in out
    assert "median ratio ours/OpenSpiel" in out


def test_random_hands_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    bench = _load("bench_random_hands")
    assert bench.main(["--seconds", "0.01", "--rounds", "1"]) == 0
    assert "median ratio ours/OpenSpiel" in capsys.readouterr().out
