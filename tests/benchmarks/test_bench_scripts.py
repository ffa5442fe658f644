"""The benchmark scripts run end to end (tiny budgets) and compare like with like; no speed is asserted."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from ginrummy import Card
from ginrummy.rules import fast_core

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
    assert (
        bench.main(["--seconds", "0.01", "--rounds", "1", "--hands", "300", "--build", fast_core.BUILD]) == 0
    )
    out = capsys.readouterr().out
    assert "both give the same deadwood on all 300 hands" in out
    assert "median ratio ours/OpenSpiel" in out


def test_random_hands_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")
    bench = _load("bench_random_hands")
    assert bench.main(["--seconds", "0.01", "--rounds", "1", "--build", fast_core.BUILD]) == 0
    assert "median ratio ours/OpenSpiel" in capsys.readouterr().out


def test_a_benchmark_runs_each_build_in_its_own_process(capfd: pytest.CaptureFixture[str]) -> None:
    bench = _load("bench_bots")
    assert bench.main(["--seconds", "0.05", "--levels"]) == 0
    out = capfd.readouterr().out
    assert out.index("=== python build ===") < out.index("=== compiled build ===")
    summary = out[out.index("=== both builds") :]
    assert "python build: " in summary
    built = fast_core.compiled_build()[0] is not None
    assert ("compiled build: " in summary) == built
    if not built:
        assert "skipped the compiled build: no compiled build" in out


def test_a_child_measures_only_the_build_it_was_asked_for(capsys: pytest.CaptureFixture[str]) -> None:
    builds = _load("builds")
    assert builds.child_argv(["--seconds", "1", "--build", "both", "--levels", "--build=python"]) == [
        "--seconds",
        "1",
        "--levels",
    ]
    other = "python" if fast_core.BUILD == "compiled" else "compiled"
    assert builds.wrong_build(fast_core.BUILD) is None
    assert builds.wrong_build(other) is not None
    assert _load("bench_bots").main(["--seconds", "0.01", "--levels", "--build", other]) == 0
    assert f"skipped the {other} build" in capsys.readouterr().out


def test_mask_benchmark_times_every_function(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load("bench_masks")
    assert bench.main(["--seconds", "0.001", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    # Both builds side by side when the fast core is built, the Python source alone when not.
    assert ("speed-up" in out) == (fast_core.compiled_build()[0] is not None)
    for name in (
        "least_deadwood",
        "best_discards",
        "knock_options",
        "deadwood_after_discards",
        "showdown_points",
    ):
        assert f"{name} (" in out or f"{name} " in out
    # Every knock it times is a legal one: the knocker holds 10 deadwood or less.
    import random

    assert all(bench.masks.least_deadwood(k) <= 10 for k, _ in bench.knocks(20, random.Random(1)))


def test_expert_bench_reads_params_and_rejects_bad_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    from ginrummy.bots import base

    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))  # the variant stays in this test
    bench = _load("bench_expert")
    assert bench.parse_params(["ADAPTIVE_OPENING=false", "DANGER=2", "RISK_TAU=8"]) == {
        "ADAPTIVE_OPENING": False,
        "DANGER": 2,
        "RISK_TAU": 8,
    }
    for bad, says in (
        ("DANGR=1", "no constant 'DANGR'"),
        ("ADAPTIVE_OPENING=1", "ADAPTIVE_OPENING takes a bool"),
        ("DANGER=x", "not a JSON value"),
        ("DANGER", "expected NAME=VALUE"),
        ("CLINCH_REACH=1.5", "CLINCH_REACH takes a int"),
    ):
        with pytest.raises(ValueError, match=says):
            bench.parse_params([bad])
    assert bench.main(["--param", "ADAPTIVE_OPENING=yes"]) == 2
    assert bench.main(["--mirrored", "--matches", "3"]) == 2


def test_expert_bench_variant_plays_the_arena_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A variant with every constant at its value plays exactly the arena's `expert`
    (same seeds, seats and moves), and a changed constant reaches the player."""
    from ginrummy.arena import run_arena
    from ginrummy.bots import base
    from ginrummy.bots.expert import ExpertPlayer

    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setenv("GINRUMMY_BENCH_EXPERT_PARAMS", "{}")
    bench = _load("bench_expert")
    same = bench.run(2, 300, "baseline", {"DANGER": ExpertPlayer.DANGER}, mirrored=True)
    arena = run_arena("expert", "baseline", matches=2, seed=300, mirrored=True).to_json()
    assert same["a"] == bench.VARIANT and same["params"] == {"DANGER": ExpertPlayer.DANGER}
    for key in ("a_wins", "hands", "mirrored"):
        assert same[key] == arena[key]
    assert same["stats_a"]["points"] == arena["stats_a"]["points"]
    bench.run(1, 300, "baseline", {"ADAPTIVE_OPENING": False, "CLINCH_REACH": 3})
    player = base.make_player(bench.VARIANT, seed=1)
    assert player.ADAPTIVE_OPENING is False and player.CLINCH_REACH == 3  # type: ignore[attr-defined]
    assert ExpertPlayer.ADAPTIVE_OPENING is True  # the product is untouched
    # A variant of the searching expert takes its own constants too.
    from ginrummy.bots.expert import SearchingExpert

    with pytest.raises(ValueError, match="no constant 'SEARCH_STOCK'"):
        bench.parse_params(["SEARCH_STOCK=5"])
    assert bench.parse_params(["SEARCH_STOCK=5"], SearchingExpert) == {"SEARCH_STOCK": 5}
    bench.run(1, 300, "baseline", {"SEARCH_STOCK": 5}, player="searcher")
    player = base.make_player(bench.VARIANT, seed=1)
    assert isinstance(player, SearchingExpert) and player.SEARCH_STOCK == 5


def test_oracle_bench_cheats_only_inside_its_own_run(capsys: pytest.CaptureFixture[str]) -> None:
    """The diagnostic gives its own subclass of the expert the opponent's real cards; the
    expert itself is untouched, so no other player is ever handed hidden cards."""
    from ginrummy.bots.expert import ExpertPlayer, Turn
    from ginrummy.rules.cards import parse_cards

    bench = _load("bench_expert_oracle")
    honest_danger, honest_read = ExpertPlayer.danger, ExpertPlayer.read
    oracle = bench.OracleExpert(seed=1, know="danger")
    oracle.opponent = parse_cards("7S 7D 2C 3C JH QH KH 9S 5D AD").mask
    turn = Turn.__new__(Turn)
    turn.probs = [0.0] * 52
    assert oracle.danger(Card.parse("7C").index, turn) == 1.0  # a third seven
    assert oracle.danger(Card.parse("4C").index, turn) == 1.0  # 2-3-4 of clubs
    assert oracle.danger(Card.parse("8S").index, turn) == 1.0  # 7-8-9 of spades
    assert oracle.danger(Card.parse("8C").index, turn) == 0.0
    oracle.blend = 0.5
    assert oracle.danger(Card.parse("7C").index, turn) == 0.5  # the estimate is 0 here
    assert bench.main(["--matches", "2", "--know", "nothing", "danger", "both", "--blend", "0.5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[3] for line in lines] == ["nothing", "danger", "both"]
    assert "seeds 0-1: " in lines[0] and "x0.5" in lines[1]
    assert ExpertPlayer.danger is honest_danger and ExpertPlayer.read is honest_read
    assert bench.main(["--matches", "0"]) == 2


def test_env_benchmark_compares_every_installed_library(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pettingzoo")
    bench = _load("bench_env")
    assert bench.main(["--seconds", "0.05", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "ours (raw_env)" in out and "ours (env, order-checked)" in out
    for library, line in (("pyspiel", "ours/OpenSpiel pyspiel state"), ("rlcard", "ours/RLCard gin-rummy")):
        try:
            __import__(library)
        except ImportError:
            assert "not measured" in out
        else:
            assert line in out


def test_leaderboard_benchmark_fills_a_database_and_times_every_board(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench = _load("bench_leaderboards")
    assert bench.main(["--matches", "400", "--players", "30", "--days", "3", "--repeat", "3"]) == 0
    out = capsys.readouterr().out
    assert "sqlite: 400 finished matches, 30 players, 3 days" in out
    for board in ("today", "30 days", "top ratings"):
        assert f"{board}: median" in out


def test_review_bench_analyses_and_forks_a_short_match(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load("bench_review")
    assert bench.main(["--matches", "1", "--fork", "1", "--target", "15", "--player", "casual"]) == 0
    out = capsys.readouterr().out
    assert "decisions analysed per match in" in out and "marks per match:" in out
    assert "knock chances of casual against expert (1 matches):" in out
