"""The host side: a real engine plays a match; broken engines fail fast with the right EngineFailure."""

from __future__ import annotations

import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from ginrummy import new_match
from ginrummy.bots import Player
from ginrummy.engine.host import (
    EngineCrashed,
    EngineFailure,
    EngineIllegalAction,
    EnginePlayer,
    EngineProtocolError,
    EngineTimeout,
)

REAL_ENGINE = shlex.join([sys.executable, "-m", "ginrummy.cli", "engine", "--bot", "random", "--seed", "5"])

# A throwaway engine: answers hello properly, then does `on_act` for every act.
TEMPLATE = """
import json, sys, time
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        {on_hello}
    elif msg["type"] == "act":
        {on_act}
    elif msg["type"] == "quit":
        sys.exit(0)
"""
GOOD_HELLO = 'print(json.dumps({"type": "hello", "protocol": 1, "name": "fake"}), flush=True)'


def _engine(tmp_path: Path, on_act: str, on_hello: str = GOOD_HELLO) -> str:
    script = tmp_path / "engine.py"
    script.write_text(textwrap.dedent(TEMPLATE).format(on_act=on_act, on_hello=on_hello))
    return shlex.join([sys.executable, str(script)])


def _view():  # type: ignore[no-untyped-def]
    match = new_match(seed=21)
    return match.view(match.to_act)


def test_real_engine_plays_a_whole_match_and_quits() -> None:
    match = new_match(seed=3)
    with EnginePlayer(REAL_ENGINE, move_time=20, hello_timeout=60, grace=60) as engine:
        assert isinstance(engine, Player)
        assert engine.name == "random" and engine.engine_name == "random"
        while not match.is_over:
            seat = match.to_act
            assert seat is not None
            number = match.hand_number
            view = match.view(seat)
            action = engine.act(view)
            assert action in view.legal
            if match.apply(action) is not None:
                engine.observe(match.hand_view(seat, number))  # the result message
    assert engine.returncode == 0  # it obeyed quit rather than being killed
    assert match.result is not None and max(match.result.points) >= 100


def test_garbage_reply_is_a_protocol_error(tmp_path: Path) -> None:
    command = _engine(tmp_path, 'print("I like turtles", flush=True)')
    with EnginePlayer(command, move_time=5) as engine, pytest.raises(EngineProtocolError) as caught:
        engine.act(_view())
    assert "unreadable line" in str(caught.value) and "fake" in str(caught.value)


def test_illegal_action_is_named(tmp_path: Path) -> None:
    reply = (
        'print(json.dumps({"type": "action", "id": msg["id"], "action": {"type": "big_gin"}}), flush=True)'
    )
    with (
        EnginePlayer(_engine(tmp_path, reply), move_time=5) as engine,
        pytest.raises(EngineIllegalAction) as caught,
    ):
        engine.act(_view())
    assert "illegal action big gin" in str(caught.value)
    assert caught.value.action.to_json() == {"type": "big_gin"}


def test_silent_engine_times_out(tmp_path: Path) -> None:
    with EnginePlayer(_engine(tmp_path, "pass"), move_time=0.5) as engine:
        with pytest.raises(EngineTimeout, match=r"sent no action for act 1 within 0.5 s"):
            engine.act(_view())
        # A timed-out engine stays closable; a second request times out the same way.
        with pytest.raises(EngineTimeout):
            engine.act(_view())


def test_engine_silent_at_hello_times_out(tmp_path: Path) -> None:
    with pytest.raises(EngineTimeout, match="hello"):
        EnginePlayer(_engine(tmp_path, "pass", on_hello="pass"), hello_timeout=0.5)


def test_crashing_engine_reports_exit_status_and_stderr(tmp_path: Path) -> None:
    crash = 'sys.stderr.write("boom: out of ideas\\n"); sys.exit(3)'
    with EnginePlayer(_engine(tmp_path, crash), move_time=5) as engine:
        with pytest.raises(EngineCrashed) as caught:
            engine.act(_view())
        text = str(caught.value)
        assert "exit status 3" in text and "boom: out of ideas" in text
        # Once dead, every later call fails the same way instead of hanging.
        with pytest.raises(EngineCrashed):
            engine.act(_view())


def test_error_reply_is_a_protocol_error(tmp_path: Path) -> None:
    reply = 'print(json.dumps({"type": "error", "message": "confused"}), flush=True)'
    with (
        EnginePlayer(_engine(tmp_path, reply), move_time=5) as engine,
        pytest.raises(EngineProtocolError, match="confused"),
    ):
        engine.act(_view())


def test_reply_to_an_unknown_id_is_a_protocol_error(tmp_path: Path) -> None:
    reply = 'print(json.dumps({"type": "action", "id": 999, "action": {"type": "pass"}}), flush=True)'
    with (
        EnginePlayer(_engine(tmp_path, reply), move_time=5) as engine,
        pytest.raises(EngineProtocolError, match="act 999, which was never sent"),
    ):
        engine.act(_view())


def test_late_answer_to_a_timed_out_request_is_skipped(tmp_path: Path) -> None:
    # The first act is answered late; the second act is answered at once. The host must
    # drop the stale reply and take the one with the matching id.
    reply = (
        textwrap.dedent("""
        if msg["id"] == 1:
            time.sleep(1.0)
        print(json.dumps({"type": "action", "id": msg["id"], "action": msg["view"]["legal"][0]}), flush=True)
    """)
        .strip()
        .replace("\n", "\n        ")
    )
    view = _view()
    with EnginePlayer(_engine(tmp_path, reply), move_time=0.3) as engine:
        with pytest.raises(EngineTimeout):
            engine.act(view)
        engine.move_time = 10
        assert engine.act(view) == view.legal[0]


def test_wrong_protocol_version_in_hello(tmp_path: Path) -> None:
    hello = 'print(json.dumps({"type": "hello", "protocol": 7}), flush=True)'
    with pytest.raises(EngineProtocolError, match="speaks protocol 7"):
        EnginePlayer(_engine(tmp_path, "pass", on_hello=hello), hello_timeout=5)


def test_missing_program_is_a_crash() -> None:
    with pytest.raises(EngineCrashed, match="could not start"):
        EnginePlayer("/nonexistent/engine --flag")


def test_close_kills_an_engine_that_ignores_quit(tmp_path: Path) -> None:
    script = tmp_path / "stubborn.py"
    script.write_text(
        textwrap.dedent("""
        import json, sys
        sys.stdin.readline()
        print(json.dumps({"type": "hello", "protocol": 1}), flush=True)
        import time
        while True:
            time.sleep(1)
    """)
    )
    engine = EnginePlayer([sys.executable, str(script)], grace=0.2)
    engine.close()
    assert engine.returncode is not None and engine.returncode != 0  # killed, not exited
    with pytest.raises(EngineCrashed, match="closed"):
        engine.act(_view())
    engine.close()  # closing twice is harmless


def test_every_failure_is_an_engine_failure() -> None:
    for cls in (EngineTimeout, EngineCrashed, EngineIllegalAction, EngineProtocolError):
        assert issubclass(cls, EngineFailure)
