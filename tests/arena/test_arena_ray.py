"""Arenas on Ray: a local Ray with two CPUs gives the same matches as the local process pool."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from ginrummy.arena import MatchStats, RayCluster, RayUnavailable, run_arena
from ginrummy.cli.arena import optional_option_values


def _without_times(stats: MatchStats) -> dict[str, object]:
    return stats.to_json()


def _summary_without_timing(data: dict[str, object]) -> dict[str, object]:
    drop = {"seconds", "matches_per_second", "stats_a", "stats_b"}
    out = {k: v for k, v in data.items() if k not in drop}
    for side in ("stats_a", "stats_b"):
        stats = dict(data[side])  # type: ignore[call-overload]
        out[side] = {k: v for k, v in stats.items() if not k.startswith("decision")}
    return out


def test_the_ray_option_may_come_without_an_address() -> None:
    assert optional_option_values(["arena", "a", "b", "--ray"])[-1] == "local"
    assert optional_option_values(["arena", "a", "b", "--ray", "--json"])[4] == "local"
    assert optional_option_values(["arena", "a", "b", "--ray", "h:6379"])[-1] == "h:6379"


def test_a_cluster_checks_its_numbers() -> None:
    with pytest.raises(ValueError, match="num_cpus"):
        RayCluster(num_cpus=0)
    with pytest.raises(ValueError, match="batch"):
        RayCluster(batch=0)


@pytest.fixture(scope="module")
def local_ray(ray_module: Any) -> Iterator[None]:
    """One private local Ray with two CPUs for the tests of this module (it takes long to start)."""
    ray_module.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="WARNING",
        _node_ip_address="127.0.0.1",  # everything on the loopback interface
    )
    try:
        yield
    finally:
        ray_module.shutdown()


# Ray's own daemons may still be exiting when their process handles are collected.
_RAY_PROCESSES_EXITING = pytest.mark.filterwarnings("ignore:subprocess .* is still running:ResourceWarning")


@pytest.mark.slow
@_RAY_PROCESSES_EXITING
@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("mirrored", [False, True])
def test_ray_plays_the_same_matches_as_the_local_pool(mirrored: bool) -> None:
    seen: list[MatchStats] = []
    kwargs = {"matches": 12, "seed": 40, "rules": "classic", "mirrored": mirrored}
    local = run_arena("casual", "novice", workers=2, **kwargs)  # type: ignore[arg-type]
    on_ray = run_arena(
        "casual",
        "novice",
        cluster=RayCluster(batch=2),
        on_match=lambda stats, summary: seen.append(stats),
        **kwargs,  # type: ignore[arg-type]
    )
    assert _summary_without_timing(on_ray.to_json()) == _summary_without_timing(local.to_json())
    assert sorted(s.seed for s in seen) == sorted(40 + (i // 2 if mirrored else i) for i in range(12))
    assert [s.a_seat for s in sorted(seen, key=lambda s: (s.seed, s.a_seat))] == (
        [0, 1] * 6 if mirrored else [i % 2 for i in range(12)]
    )
    replay = {(s.seed, s.a_seat): _without_times(s) for s in seen}
    for key, stats in replay.items():
        from ginrummy.arena import play_match

        again = play_match("casual", "novice", "classic", key[0], key[1])
        assert again.to_json() == stats


@pytest.mark.slow
@_RAY_PROCESSES_EXITING
@pytest.mark.usefixtures("local_ray")
def test_ray_plays_the_same_table_games_as_the_local_pool() -> None:
    from ginrummy.arena.tables import run_table_arena
    from ginrummy.rules import Rules

    # Three-player Gin: every seating of a deal shares its seed (the table's mirrored deals).
    kwargs = {"rules": Rules.preset("gin3").replace(target=25), "games": 12, "seed": 5, "timing": False}
    local = run_table_arena("casual", "novice", workers=2, **kwargs)  # type: ignore[arg-type]
    seen: list[dict[str, object]] = []
    on_ray = run_table_arena(
        "casual",
        "novice",
        cluster=RayCluster(batch=3),
        on_game=lambda stats, summary: seen.append(stats.to_json()),
        **kwargs,  # type: ignore[arg-type]
    )
    timed = {"seconds", "games_per_second"}
    assert {k: v for k, v in on_ray.to_json().items() if k not in timed} == {
        k: v for k, v in local.to_json().items() if k not in timed
    }
    assert len(seen) == 12 and sorted(g["seed"] for g in seen) == [5] * 6 + [6] * 6  # type: ignore[type-var]
    assert {tuple(g["seats"]) for g in seen if g["seed"] == 5} == {  # type: ignore[arg-type]
        ("casual", "casual", "novice"),
        ("casual", "novice", "casual"),
        ("novice", "casual", "casual"),
        ("casual", "novice", "novice"),
        ("novice", "casual", "novice"),
        ("novice", "novice", "casual"),
    }


def test_without_ray_installed_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_ray(name: str, *args: object, **kwargs: object) -> object:
        if name == "ray":
            raise ImportError("no ray here")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(RayUnavailable, match=r"pip install 'ginrummy\[ray\]'"):
        run_arena("random", "random", matches=2, cluster=RayCluster())


@pytest.mark.slow
def test_the_command_streams_matches_from_a_private_ray(ray_module: Any) -> None:
    command = [sys.executable, "-m", "ginrummy.cli", "arena", "casual", "novice", "-n", "6", "-w", "2"]
    result = subprocess.run([*command, "--stream", "--ray"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == 7 and "summary" in lines[-1]
    assert sorted(line["seed"] for line in lines[:-1]) == list(range(6))
    local = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=600)
    summary = json.loads(local.stdout)
    assert _summary_without_timing(lines[-1]["summary"]) == _summary_without_timing(summary)


def test_stream_prints_each_match_as_it_finishes_then_the_summary() -> None:
    from typer.testing import CliRunner

    from ginrummy.cli import app, load_commands

    load_commands()
    result = CliRunner().invoke(app, ["arena", "casual", "novice", "-n", "4", "--seed", "9", "--stream"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["seed"] for line in lines[:-1]] == [9, 10, 11, 12]
    assert all(line["a"] == "casual" and line["b"] == "novice" for line in lines[:-1])
    summary = lines[-1]["summary"]
    assert summary["matches"] == 4 and summary["a_wins"] + summary["b_wins"] + summary["draws"] == 4
    assert summary["a_wins"] == sum(line["winner"] == "a" for line in lines[:-1])
