"""The arena: match statistics, seats and seeds, the JSON keys scripts rely on, engine forfeits."""

from __future__ import annotations

import json
import shlex
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ginrummy.arena import (
    ArenaSummary,
    MatchStats,
    PlayerSpec,
    elo_difference,
    paired_interval,
    play_match,
    run_arena,
    wilson_interval,
)
from ginrummy.cli import app, load_commands
from ginrummy.rules import Action, Discard, Draw, Knock, View

load_commands()
runner = CliRunner()

JSON_KEYS = {
    "a",
    "b",
    "matches",
    "a_wins",
    "win_rate",
    "ci95",
    "elo_diff",
    "hands",
    "avg_hand_turns",
    "forfeits",
    "forfeit_reasons",
    "stats_a",
    "stats_b",
    "rules",
    "seed",
}
SIDE_KEYS = {
    "hands_won",
    "points",
    "points_per_hand",
    "knocks",
    "gins",
    "gin_pct",
    "undercuts",
    "undercut_pct",
    "forfeits",
    "decision_ms_p50",
    "decision_ms_p95",
    "decision_ms_max",
}


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_elo_difference_from_win_rate() -> None:
    assert elo_difference(0.5) == 0
    assert elo_difference(0.76) == pytest.approx(200.2, abs=0.1)
    assert elo_difference(0.24) == pytest.approx(-200.2, abs=0.1)
    assert elo_difference(1.0, 100) == pytest.approx(400 * __import__("math").log10(199), abs=1e-6)


def test_play_match_statistics_are_consistent() -> None:
    stats = play_match("baseline", "casual", "classic", seed=12, a_seat=1)
    assert stats.a_seat == 1 and stats.seed == 12
    assert stats.winner in ("a", "b")
    winner = 0 if stats.winner == "a" else 1
    assert stats.scores[winner] >= 100 > stats.scores[1 - winner]
    assert stats.points == stats.scores  # classic: no end-of-match bonus
    assert sum(stats.hands_won) + stats.void_hands <= stats.hands
    assert sum(stats.knocks) + stats.void_hands == stats.hands
    assert stats.gins[0] <= stats.knocks[0] and stats.gins[1] <= stats.knocks[1]
    assert stats.turns > 2 * stats.hands
    assert len(stats.times[0]) > 0 and len(stats.times[1]) > 0


def test_play_match_is_reproducible_and_seats_matter() -> None:
    one = play_match("baseline", "baseline", "classic", seed=3, a_seat=0).to_json()
    two = play_match("baseline", "baseline", "classic", seed=3, a_seat=0).to_json()
    swapped = play_match("baseline", "baseline", "classic", seed=3, a_seat=1).to_json()
    assert one == two
    # Same deals, sides swapped: the seat that won still wins, so the side flips.
    assert swapped["winner"] != one["winner"] or swapped["scores"] != one["scores"]


def test_play_match_rejects_a_bad_seat() -> None:
    with pytest.raises(ValueError, match="a_seat must be 0 or 1"):
        play_match("random", "random", seed=1, a_seat=2)


def test_run_arena_alternates_seats_and_uses_consecutive_seeds() -> None:
    seen: list[MatchStats] = []

    def record(stats: MatchStats, summary: ArenaSummary) -> None:
        seen.append(stats)
        assert summary.matches == len(seen)

    summary = run_arena("baseline", "novice", matches=6, seed=100, on_match=record)
    assert [s.seed for s in seen] == list(range(100, 106))
    assert [s.a_seat for s in seen] == [0, 1, 0, 1, 0, 1]
    data = summary.to_json()
    assert set(data) >= JSON_KEYS and set(data["stats_a"]) >= SIDE_KEYS
    assert data["matches"] == 6
    assert data["a_wins"] == sum(1 for s in seen if s.winner == "a")
    assert data["win_rate"] == pytest.approx(data["a_wins"] / 6)
    lo, hi = data["ci95"]
    assert lo <= data["win_rate"] <= hi


def test_mirrored_deals_swap_the_seats_and_pair_the_interval() -> None:
    seen: list[MatchStats] = []
    summary = run_arena(
        "baseline", "novice", matches=8, seed=40, mirrored=True, on_match=lambda m, s: seen.append(m)
    )
    assert [(s.seed, s.a_seat) for s in seen] == [(40 + i // 2, i % 2) for i in range(8)]
    data = summary.to_json()
    assert data["mirrored"] is True and data["matches"] == 8
    pairs = [sum(r) / 2 for r in summary.results.values()]
    assert len(pairs) == 4 and tuple(data["ci95"]) == pytest.approx(paired_interval(pairs), abs=1e-6)
    with pytest.raises(ValueError, match="even number of matches"):
        run_arena("baseline", "novice", matches=3, mirrored=True)


def test_paired_interval_known_values() -> None:
    assert paired_interval([1.0]) == (0.0, 1.0)
    assert paired_interval([0.5, 0.5, 0.5]) == (0.5, 0.5)
    lo, hi = paired_interval([1.0, 0.5, 1.0, 0.5])
    assert lo == pytest.approx(0.75 - 1.959964 * (1 / 12) ** 0.5 / 2) and hi == 1.0


def test_run_arena_in_two_workers_gives_the_same_totals() -> None:
    one = run_arena("baseline", "casual", matches=6, seed=7, workers=1).to_json()
    two = run_arena("baseline", "casual", matches=6, seed=7, workers=2).to_json()
    for key in ("a_wins", "hands", "void_hands", "avg_hand_turns"):
        assert one[key] == two[key]
    assert one["stats_a"]["points"] == two["stats_a"]["points"]


class _Grabber:
    """Always takes the upcard and throws its lowest card, knocking when it may: two of them
    never touch the stock, so a hand in which neither can knock would never end."""

    name = "grabber"

    def act(self, view: View) -> Action:
        for action in view.legal:
            if action == Draw("discard") or isinstance(action, Knock):
                return action
        discards = [a for a in view.legal if isinstance(a, Discard)]
        return discards[0] if discards else view.legal[0]

    def observe(self, view: View) -> None:
        return None


def test_players_who_keep_taking_each_others_discards_still_finish() -> None:
    """The rules end such a hand (Rules.retake_limit), so the arena needs no guard of its own."""
    stats = play_match(_Grabber(), _Grabber(), "classic", seed=4)
    assert stats.winner is not None and stats.void_hands >= 1


def test_levels_do_not_trade_the_same_cards_forever() -> None:
    # Seed 356 once sent casual and skilled into an endless exchange of fives.
    stats = play_match("casual", "skilled", "classic", seed=356, a_seat=0)
    assert stats.winner is not None


def test_run_arena_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown player 'nobody'"):
        run_arena("nobody", "random", matches=1)
    with pytest.raises(ValueError, match="matches must be at least 1"):
        run_arena("random", "random", matches=0)


def test_cli_json_prints_exactly_one_object() -> None:
    result = runner.invoke(app, ["arena", "baseline", "random", "--matches", "4", "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert set(data) >= JSON_KEYS
    assert data["a"] == "baseline" and data["b"] == "random" and data["matches"] == 4
    assert data["win_rate"] == data["a_wins"] / 4
    assert data["seed"] == 5


def test_cli_table_and_round_robin() -> None:
    result = runner.invoke(app, ["arena", "casual", "random", "-n", "2"])
    assert result.exit_code == 0, result.output
    assert "match wins (95% CI)" in result.stdout and "Elo difference" in result.stdout
    result = runner.invoke(app, ["arena", "--round-robin", "novice", "casual", "random", "-n", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["round_robin"] == ["novice", "casual", "random"]
    table = data["table"]
    assert table["novice"]["casual"] == pytest.approx(1 - table["casual"]["novice"])
    assert table["casual"]["casual"] is None
    assert len(data["pairs"]) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "baseline", "grandmaster"], "unknown player 'grandmaster'"),
        (["arena", "baseline"], "give exactly two players"),
        (["arena", "baseline", "random", "--matches", "0"], "--matches must be at least 1"),
        (["arena", "baseline", "random", "--rules", "vegas"], "unknown rules preset 'vegas'"),
        (["arena", "--round-robin", "baseline"], "at least two players"),
        (["arena", "baseline", "random", "--mirrored", "--matches", "5"], "give an even --matches"),
    ],
)
def test_cli_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())


# -- outside engines ------------------------------------------------------------------

ENGINE_SCRIPT = """
import json, sys, time
mode = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "broken-" + mode}), flush=True)
    elif msg["type"] == "act":
        if mode == "silent":
            time.sleep(60)
        elif mode == "crash":
            sys.exit(3)
        elif mode == "illegal":
            print(json.dumps({"type": "action", "id": msg["id"], "action": {"type": "big_gin"}}), flush=True)
        elif mode == "fine":
            print(json.dumps({"type": "action", "id": msg["id"], "action": msg["view"]["legal"][0]}), flush=True)
    elif msg["type"] == "quit":
        break
"""


@pytest.fixture
def engine_script(tmp_path: Path) -> Path:
    path = tmp_path / "engine.py"
    path.write_text(textwrap.dedent(ENGINE_SCRIPT))
    return path


def _engine(script: Path, mode: str, time_limit: float = 0.5) -> PlayerSpec:
    command = " ".join(shlex.quote(p) for p in (sys.executable, str(script), mode))
    return PlayerSpec("engine:" + command, time_limit=time_limit)


@pytest.mark.parametrize(
    ("mode", "words"),
    [("silent", "within 0.5 s"), ("crash", "exit status 3"), ("illegal", "illegal action big gin")],
)
def test_a_failing_engine_forfeits_each_match_with_the_reason(
    engine_script: Path, mode: str, words: str
) -> None:
    summary = run_arena(_engine(engine_script, mode), "baseline", matches=2, seed=1)
    data = summary.to_json()
    assert data["forfeits"] == 2 and data["stats_a"]["forfeits"] == 2
    assert data["a_wins"] == 0 and data["b_wins"] == 2
    assert all(words in reason for reason in data["forfeit_reasons"]), data["forfeit_reasons"]


def test_a_well_behaved_engine_plays_whole_matches(engine_script: Path) -> None:
    summary = run_arena("baseline", _engine(engine_script, "fine", 5.0), matches=2, seed=1)
    data = summary.to_json()
    assert data["forfeits"] == 0 and data["matches"] == 2
    assert data["stats_b"]["decisions"] > 0


def test_an_engine_that_cannot_start_forfeits(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-engine"
    summary = run_arena("random", PlayerSpec(f"engine:{missing}"), matches=1, seed=1)
    data = summary.to_json()
    assert data["forfeits"] == 1 and data["a_wins"] == 1
    assert "could not start" in data["forfeit_reasons"][0]


def test_cli_engine_option_reports_forfeits(engine_script: Path) -> None:
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(engine_script))} crash"
    result = runner.invoke(app, ["arena", "baseline", "--engine", command, "-n", "1", "--time-limit", "1"])
    assert result.exit_code == 0, result.output
    assert "forfeits:" in result.stdout and "exit status 3" in " ".join(result.stdout.split())
