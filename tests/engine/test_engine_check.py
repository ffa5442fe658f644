"""The conformance checker against our own engine and against engines broken on purpose (real subprocesses),
in both protocol versions."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ginrummy.cli import app, load_commands
from ginrummy.engine.check import CheckReport, check_engine, scenarios, table_scenarios

FAKE = Path(__file__).with_name("fake_engine.py")


def fake(mode: str) -> list[str]:
    return [sys.executable, str(FAKE), mode]


def statuses(report: CheckReport) -> dict[str, str]:
    return {check.name: check.status for check in report.checks}


def failed(report: CheckReport) -> list[str]:
    return [check.name for check in report.checks if check.status == "fail"]


def test_every_position_kind_is_reached() -> None:
    found, missing = scenarios()
    assert not missing
    phases = {s.view.phase for s in found}
    presets = {s.view.rules.preset_name for s in found}
    assert phases == {"offer", "draw", "discard"}
    assert presets == {"classic", "hoyle", "oklahoma", "big_gin"}
    assert all(s.view.legal for s in found)


OUR_ENGINE = [sys.executable, "-m", "ginrummy.cli", "engine", "--bot", "baseline"]


def _conforms(report: CheckReport) -> list[str]:
    assert report.ok and report.count("warn") == 0 and report.count("skip") == 0, [
        (c.name, c.detail) for c in report.checks if c.status != "pass"
    ]
    assert report.engine_name == "baseline" and report.protocols == [1, 2]
    return [c.name for c in report.checks]


def test_our_engine_conforms() -> None:
    names = _conforms(check_engine(OUR_ENGINE, matches=0))
    assert any(name.startswith("version 2: rummy for 6") for name in names)


@pytest.mark.slow
def test_our_engine_plays_whole_games_of_every_kind() -> None:
    names = _conforms(check_engine(OUR_ENGINE, matches=1))
    assert sum(name.startswith("a whole") for name in names) == 4
    games = [name for name in names if name.startswith("version 2: a whole")]
    assert len(games) == 6 and any("gin4_teams" in name for name in games)
    assert names[-2:] == ["quit: the engine exits with status 0", "end of input: the engine exits"]


def test_a_correct_small_engine_conforms() -> None:
    report = check_engine(fake("good"), matches=0)
    assert report.ok and report.count("warn") == 0, [(c.name, c.detail) for c in report.checks]


def test_a_silent_engine_fails_at_hello_with_the_exchange() -> None:
    report = check_engine(fake("silent"), hello_timeout=0.5, matches=0)
    assert failed(report) == ["start and hello"] and len(report.checks) == 1
    check = report.checks[0]
    assert "no hello within 0.5 s" in check.detail
    assert [e.direction for e in check.exchange][-1] == "host"
    assert '"type":"hello"' in check.exchange[-1].text


def test_an_engine_that_cannot_start_is_reported() -> None:
    report = check_engine(["/nonexistent/engine"], matches=0)
    assert failed(report) == ["start and hello"]
    assert "could not start" in report.checks[0].detail


def test_illegal_actions_fail_with_what_was_legal() -> None:
    report = check_engine(fake("illegal"), matches=1)
    results = statuses(report)
    assert results["act: offer: the first upcard, first to decide"] == "pass"  # pass is legal there
    assert results["act: discard after drawing from the stock"] == "fail"
    check = next(c for c in report.checks if c.name == "act: discard after drawing from the stock")
    assert "chose pass, which is not legal here; legal: discard" in check.detail
    assert any(e.direction == "engine" and '"pass"' in e.text for e in check.exchange)
    assert any(e.direction == "host" and '"act"' in e.text for e in check.exchange)
    assert results["a whole classic match against our baseline player (seed 0)"] == "fail"


def test_stray_output_fails() -> None:
    report = check_engine(fake("chatty"), matches=0)
    check = next(c for c in report.checks if c.name.startswith("act: offer"))
    assert check.status == "fail" and "not JSON" in check.detail
    assert any("thinking about offer" in e.text for e in check.exchange)


def test_replying_to_a_result_fails() -> None:
    report = check_engine(fake("answers_result"), matches=0)
    assert failed(report) == ["result: a finished hand gets no reply, and play goes on"]
    check = next(c for c in report.checks if c.status == "fail")
    assert "expects no reply" in check.detail


def test_an_engine_that_dies_on_junk_fails_with_its_exit_status() -> None:
    report = check_engine(fake("dies_on_junk"), matches=0)
    check = next(c for c in report.checks if c.name.startswith("junk: a line that is not JSON"))
    assert check.status == "fail" and "exited with status 3" in check.detail
    # The checker starts the engine again and carries on.
    assert statuses(report)["junk: an unknown message type gets an error reply"] == "pass"


def test_time_limits_are_enforced() -> None:
    report = check_engine(fake("slow"), time_limit=0.5, matches=0)
    results = statuses(report)
    assert results["act: offer: the first upcard, first to decide"] == "pass"
    check = next(c for c in report.checks if c.name == "act: draw: stock or upcard")
    assert check.status == "fail" and "within the time limit of 0.5 s" in check.detail


def test_a_wrong_id_fails() -> None:
    report = check_engine(fake("wrong_id"), matches=0)
    assert any("with the id" in c.detail for c in report.checks if c.status == "fail")


def test_ignoring_quit_fails() -> None:
    report = check_engine(fake("ignores_quit"), matches=0)
    assert failed(report) == ["quit: the engine exits with status 0"]


def test_refusing_unknown_fields_is_a_warning() -> None:
    report = check_engine(fake("strict_fields"), matches=0)
    assert report.ok
    warned = [c for c in report.checks if c.status == "warn"]
    assert [c.name for c in warned] == ["act: a message and a view with fields the engine does not know"]
    assert "unknown field table_talk" in warned[0].detail


def test_the_command_prints_an_actionable_report() -> None:
    load_commands()
    runner = CliRunner()
    command = f"{sys.executable} {FAKE} illegal"
    result = runner.invoke(app, ["engine-check", command, "--matches", "0"])
    assert result.exit_code == 1
    assert "FAIL" in result.output and "chose pass, which is not legal here" in result.output
    assert "host →" in result.output and "← engine" in result.output
    assert "does not conform" in result.output
    result = runner.invoke(app, ["engine-check", f"{sys.executable} {FAKE} good", "--matches", "0", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["ok"] and data["failed"] == 0 and data["engine"] == "fake-good"
    bad = runner.invoke(app, ["engine-check", "x", "--time-limit", "0"])
    assert bad.exit_code == 2 and "positive" in bad.output


def test_every_version_2_position_kind_is_reached() -> None:
    found, missing = table_scenarios()
    assert not missing
    games = {(s.view.rules.game, s.view.players) for s in found}
    assert games == {("gin3", 3), ("gin4_teams", 4), ("rummy", 2), ("rummy", 3), ("rummy", 4), ("rummy", 6)}
    assert all(s.view.legal for s in found)


def test_an_engine_of_version_1_only_is_told_what_it_can_play() -> None:
    report = check_engine(fake("good"), matches=0)
    assert report.ok and report.protocols == [1]
    check = next(c for c in report.checks if c.name == "version 2: hello")
    assert check.status == "skip" and "not at Rummy, which needs version 2" in check.detail
    assert not any(c.name.startswith("version 2: rummy") for c in report.checks)


def test_a_small_engine_of_both_versions_conforms() -> None:
    report = check_engine(fake("good2"), matches=0)
    assert report.ok and report.count("warn") == 0, [
        (c.name, c.detail) for c in report.checks if c.status != "pass"
    ]
    assert report.protocols == [1, 2]
    names = [c.name for c in report.checks]
    for kind in ("gin3: ", "gin4_teams: ", "rummy for 2: ", "rummy for 6: the stock is empty"):
        assert any(name.startswith(f"version 2: {kind}") for name in names), kind


def test_an_engine_that_reads_the_drawn_card_inside_the_action_is_shown_its_traceback() -> None:
    """Issue 12's engine: it looked for a draw's card inside the action, where it never is."""
    report = check_engine(fake("card_in_action"), matches=0)
    assert not report.ok
    check = next(c for c in report.checks if c.name == "act: draw: stock or upcard")
    assert check.status == "fail" and "exited with status 1" in check.detail
    assert "KeyError: 'card'" in check.detail
    assert any(e.direction == "stderr" and "Traceback" in e.text for e in check.exchange)
    assert statuses(report)["act: offer: the first upcard, first to decide"] == "pass"  # nothing drawn yet


def test_a_reply_the_schema_refuses_fails_with_the_reason() -> None:
    report = check_engine(fake("short_meld"), matches=0)
    check = next(c for c in report.checks if c.name == "version 2: rummy for 4: a meld to lay")
    assert check.status == "fail"
    assert "does not allow" in check.detail and "is too short" in check.detail
    assert any(e.direction == "engine" and '"meld"' in e.text for e in check.exchange)
    assert statuses(report)["version 2: rummy for 4: draw: stock or discard pile"] == "pass"


def test_an_unknown_field_in_replies_is_a_warning() -> None:
    report = check_engine(fake("extra_field"), matches=0)
    assert report.ok
    warned = [c for c in report.checks if c.status == "warn"]
    assert warned and all("'confidence' was unexpected" in c.detail for c in warned)
