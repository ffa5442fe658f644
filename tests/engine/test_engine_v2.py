"""Protocol version 2 (docs/protocol.md): every game's VIEW and Rummy's actions, both sides of the
conversation, and the host's negotiation down to version 1 with engines that speak only that."""

from __future__ import annotations

import io
import json
import shlex
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ginrummy import (
    GinTableView,
    LayMeld,
    Rules,
    RummyView,
    View,
    game_action_from_json,
    new_game,
    new_match,
    parse_cards,
)
from ginrummy.arena.tables import play_table_game
from ginrummy.bots import RandomPlayer
from ginrummy.bots.table_players import make_game_player
from ginrummy.engine.engine_side import serve
from ginrummy.engine.host import EnginePlayer, EngineProtocolError, EngineSeat
from ginrummy.engine.protocol import (
    Act,
    ActionReply,
    ProtocolError,
    Result,
    encode,
    parse_engine_message,
    parse_host_message,
)

REAL_ENGINE = shlex.join([sys.executable, "-m", "ginrummy.cli", "engine", "--bot", "casual", "--seed", "5"])

# An engine that speaks version 1 only, as a third party might have written it: it refuses
# any other hello with an error and plays the first legal action of every two-player view.
V1_ONLY = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        if msg["protocol"] != 1:
            print(json.dumps({"type": "error", "message": "I speak version 1"}), flush=True)
        else:
            print(json.dumps({"type": "hello", "protocol": 1, "name": "old"}), flush=True)
    elif msg["type"] == "act":
        assert "game" not in msg["view"] and msg["view"]["seat"] in (0, 1)
        print(json.dumps({"type": "action", "id": msg["id"], "action": msg["view"]["legal"][0]}), flush=True)
    elif msg["type"] == "result":
        assert msg["view"]["phase"] == "over"
        print("result for hand", msg["view"]["hand_number"], file=sys.stderr, flush=True)
    elif msg["type"] == "quit":
        sys.exit(0)
"""

# An engine that answers any hello with a hello of version 1 (it never reads the version).
ECHO_V1 = V1_ONLY.replace('if msg["protocol"] != 1:', "if False:")


def _script(tmp_path: Path, text: str) -> str:
    path = tmp_path / "engine.py"
    path.write_text(textwrap.dedent(text))
    return shlex.join([sys.executable, str(path)])


def _seat_for(rules: Rules) -> Any:
    return make_game_player("casual", rules, seed=1)


def _converse(lines: list[str]) -> list[dict[str, Any]]:
    out = io.StringIO()
    serve(
        lambda: RandomPlayer(seed=1),
        io.StringIO("".join(line + "\n" for line in lines)),
        out,
        seat_for=_seat_for,
    )
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_every_game_view_round_trips_through_version_2_messages() -> None:
    views = [new_match(seed=1).view(1)]
    for preset in ("gin3", "gin4_teams", "rummy"):
        game = new_game(preset, seed=2)
        views.append(game.view(game.seats_to_act[0]))
    for view in views:
        for message in (Act(9, view, 2), Result(view, 2)):
            line = encode(message)
            data = json.loads(line)
            assert data["view"]["game"] in ("gin", "gin3", "gin4_teams", "rummy")
            assert parse_host_message(line, 2) == message
    # Version 1 is exactly PROTOCOL.md: no `game` field, and Rummy's actions are unknown there.
    assert "game" not in json.loads(encode(Act(1, views[0])))["view"]
    meld = encode(ActionReply(3, LayMeld(parse_cards("7H 8H 9H"))))
    assert parse_engine_message(meld, 2) == ActionReply(3, LayMeld(parse_cards("7H 8H 9H")))
    with pytest.raises(ProtocolError, match="unknown action type 'meld'"):
        parse_engine_message(meld, 1)
    with pytest.raises(ProtocolError, match="a meld action needs"):
        parse_engine_message('{"type": "action", "id": 1, "action": {"type": "meld"}}', 2)


def test_engine_side_answers_in_the_version_it_is_offered() -> None:
    rummy = new_game("rummy", seed=4)
    seat = rummy.seats_to_act[0]
    rummy_view = rummy.view(seat)
    gin3 = new_game("gin3", seed=4)
    gin3_view = gin3.view(gin3.seats_to_act[0])
    replies = _converse(
        [
            '{"type": "hello", "protocol": 3}',
            '{"type": "hello", "protocol": 2}',
            encode(Act(5, rummy_view, 2)).strip(),
            encode(Act(6, gin3_view, 2)).strip(),
            encode(Result(rummy.hand_view(seat, 1), 2)).strip(),
            '{"type": "quit"}',
        ]
    )
    assert replies[0]["type"] == "error" and "speaks 1 and 2" in replies[0]["message"]
    assert replies[1] == {"type": "hello", "protocol": 2, "name": "random"}
    assert game_action_from_json(replies[2]["action"]) in rummy_view.legal
    assert game_action_from_json(replies[3]["action"]) in gin3_view.legal
    assert len(replies) == 4
    # Offered version 1, the same engine is the version-1 engine it always was.
    match = new_match(seed=4)
    view = match.view(match.to_act)
    replies = _converse(['{"type": "hello", "protocol": 1}', encode(Act(2, view)).strip()])
    assert replies[0] == {"type": "hello", "protocol": 1, "name": "random"}
    assert game_action_from_json(replies[1]["action"]) in view.legal


def test_a_version_2_view_sent_as_version_1_is_refused_clearly() -> None:
    rummy = new_game("rummy", seed=4)
    line = encode(Act(5, rummy.view(rummy.seats_to_act[0]), 2)).strip()
    replies = _converse(['{"type": "hello", "protocol": 1}', line])
    assert replies[1]["type"] == "error" and "agree on version 2 in the hello" in replies[1]["message"]


def test_real_engine_plays_a_whole_rummy_game_in_version_2() -> None:
    rules = Rules.preset("rummy").replace(target=40)
    with EnginePlayer(REAL_ENGINE, protocols=(2, 1), move_time=30, hello_timeout=60, grace=60) as engine:
        assert engine.protocol == 2
        stats = play_table_game([EngineSeat(engine), "novice", "casual", "novice"], rules, seed=3)
    assert stats.forfeit is None and stats.winners and stats.hands >= 1
    assert engine.returncode == 0


def test_host_negotiates_down_to_version_1_for_gin_tables(tmp_path: Path) -> None:
    for script in (V1_ONLY, ECHO_V1):
        command = _script(tmp_path, script)
        with EnginePlayer(command, protocols=(2, 1), hello_timeout=30) as engine:
            assert engine.protocol == 1 and engine.engine_name == "old"
            rules = Rules.preset("gin3").replace(target=30)
            stats = play_table_game([EngineSeat(engine), "casual", "casual"], rules, seed=5)
            assert stats.forfeit is None, stats.forfeit_reason
            rummy = new_game("rummy", seed=1)
            view = rummy.view(rummy.seats_to_act[0])
            assert isinstance(view, RummyView)
            with pytest.raises(EngineProtocolError, match="Rummy needs version 2"):
                engine.act_in(view)
        assert any("result for hand" in line for line in engine.stderr_tail)


def test_host_offering_only_version_2_names_what_the_engine_said(tmp_path: Path) -> None:
    with pytest.raises(EngineProtocolError, match="refused the hello: I speak version 1"):
        EnginePlayer(_script(tmp_path, V1_ONLY), protocols=(2,), hello_timeout=30)
    with pytest.raises(EngineProtocolError, match="speaks protocol 1; this host speaks 2"):
        EnginePlayer(_script(tmp_path, ECHO_V1), protocols=(2,), hello_timeout=30)
    with pytest.raises(ValueError, match="versions 1 and/or 2"):
        EnginePlayer("true", protocols=(3,))


def test_two_player_gin_still_offers_version_1_only(tmp_path: Path) -> None:
    """A host seating an engine at two-player Gin says exactly what PROTOCOL.md says."""
    with EnginePlayer(_script(tmp_path, V1_ONLY), hello_timeout=30) as engine:
        assert engine.protocols == (1,) and engine.protocol == 1
        match = new_match(seed=8)
        view = match.view(match.to_act)
        assert isinstance(view, View) and engine.act(view) in view.legal


def test_a_gin_table_seat_sees_its_own_two_player_hand_in_version_1() -> None:
    game = new_game("gin4_teams", seed=6)
    seat = game.seats_to_act[0]
    view = game.view(seat)
    assert isinstance(view, GinTableView)
    line = encode(Act(1, view.two_player()))
    assert parse_host_message(line).view == view.two_player()  # type: ignore[union-attr]
