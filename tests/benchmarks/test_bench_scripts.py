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


def test_expert_bench_reads_params_and_rejects_bad_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from ginrummy.bots import base

    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))  # the variant stays in this test
    bench = _load("bench_expert")
    assert bench.parse_params(["adapt=false", "danger=2", "take_margin=0.5"]) == {
        "adapt": False, "danger": 2, "take_margin": 0.5}
    for bad, says in (("dange=1", "no field 'dange'"), ("adapt=1", "adapt takes a bool"),
                      ("danger=x", "not a JSON value"), ("danger", "expected NAME=VALUE"),
                      ("mc_min=1.5", "mc_min takes a int")):
        with pytest.raises(ValueError, match=says):
            bench.parse_params([bad])
    assert bench.main(["--param", "adapt=yes"]) == 2


def test_expert_bench_variant_plays_the_arena_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant with every figure at its default plays exactly the arena's `expert`
    (same seeds, seats and moves), and a changed figure reaches the player."""
    from ginrummy.bots import base
    from ginrummy.bots.arena import run_arena

    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setenv("GINRUMMY_BENCH_EXPERT_PARAMS", "{}")
    bench = _load("bench_expert")
    from ginrummy.bots.expert import DEFAULT_PARAMS

    same = bench.run(3, 300, "baseline", {"danger": DEFAULT_PARAMS.danger})
    arena = run_arena("expert", "baseline", matches=3, seed=300).to_json()
    assert same["a"] == bench.VARIANT and same["params"] == {"danger": DEFAULT_PARAMS.danger}
    for key in ("a_wins", "hands"):
        assert same[key] == arena[key]
    assert same["stats_a"]["points"] == arena["stats_a"]["points"]
    bench.run(1, 300, "baseline", {"adapt": False, "mc_min": 3})
    player = base.make_player(bench.VARIANT, seed=1)
    assert player.params.adapt is False and player.params.mc_min == 3  # type: ignore[attr-defined]
