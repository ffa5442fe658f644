"""The engine side: scripted conversations, in process and with a real `ginrummy engine` subprocess."""

from __future__ import annotations

import copy
import io
import json
import logging
import random
import subprocess
import sys
from typing import Any

import pytest

from ginrummy import View, action_from_json, new_match
from ginrummy.bots import RandomPlayer, make_player
from ginrummy.engine.engine_side import serve
from ginrummy.rules import Action

ENGINE = [sys.executable, "-m", "ginrummy.cli", "engine", "--bot", "random", "--seed", "3"]


def _act_line(message_id: int, view: View) -> str:
    return json.dumps({"type": "act", "id": message_id, "view": view.to_json()})


def _converse(lines: list[str], player: Any = None) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    player = player or RandomPlayer(seed=1)
    code = serve(lambda: player, io.StringIO("".join(line + "\n" for line in lines)), out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def test_hello_act_result_quit_in_process() -> None:
    match = new_match(seed=4)
    seat = match.to_act
    view = match.view(seat)
    code, replies = _converse(
        [
            '{"type": "hello", "protocol": 1}',
            _act_line(17, view),
            json.dumps({"type": "result", "view": view.to_json()}),
            '{"type": "quit"}',
            '{"type": "hello", "protocol": 1}',  # after quit: never read
        ]
    )
    assert code == 0
    assert replies[0] == {"type": "hello", "protocol": 1, "name": "random"}
    assert replies[1]["type"] == "action" and replies[1]["id"] == 17
    assert action_from_json(replies[1]["action"]) in view.legal
    assert len(replies) == 2  # a result gets no reply


def test_garbage_gets_an_error_and_the_engine_keeps_running() -> None:
    match = new_match(seed=4)
    view = match.view(match.to_act)
    code, replies = _converse(["garbage", "", '{"type": "nope"}', _act_line(2, view)])
    assert code == 0  # end of input ends the engine cleanly
    assert [r["type"] for r in replies] == ["error", "error", "action"]
    assert "not valid JSON" in replies[0]["message"]
    assert "unknown message type 'nope'" in replies[1]["message"]


def test_wrong_protocol_version_is_refused() -> None:
    _, replies = _converse(['{"type": "hello", "protocol": 2}'])
    assert replies == [{"type": "error", "message": replies[0]["message"]}]
    assert "unsupported protocol version 2" in replies[0]["message"]


def test_act_without_legal_actions_is_an_error() -> None:
    match = new_match(seed=4)
    waiting = match.view(1 - match.to_act)  # the seat not to act has nothing legal
    _, replies = _converse([_act_line(9, waiting)])
    assert replies[0]["type"] == "error" and "no legal action" in replies[0]["message"]


def test_a_failing_player_gets_an_error_reply_not_a_dead_engine() -> None:
    class Broken:
        name = "broken"

        def act(self, view: View) -> Action:
            raise RuntimeError("cannot think")

        def observe(self, view: View) -> None:
            raise RuntimeError("cannot watch")

    match = new_match(seed=4)
    view = match.view(match.to_act)
    result = json.dumps({"type": "result", "view": view.to_json()})
    _, replies = _converse([_act_line(5, view), result, '{"type": "hello", "protocol": 1}'], Broken())
    assert replies[0]["type"] == "error" and "cannot think" in replies[0]["message"]
    assert replies[1] == {"type": "hello", "protocol": 1, "name": "broken"}


def _run_engine(stdin: str) -> subprocess.CompletedProcess[str]:
    # The timeout only stops a broken test from hanging the suite; it is not a speed check.
    return subprocess.run(ENGINE, input=stdin, capture_output=True, text=True, timeout=60, check=False)


class Counting:
    """A player that remembers how many views it saw, numbered as it was made."""

    made = 0

    def __init__(self) -> None:
        Counting.made += 1
        self.number = Counting.made
        self.name = "counting"
        self.seen = 0

    def act(self, view: View) -> Action:
        self.seen += 1
        return view.legal[0]

    def observe(self, view: View) -> None:
        self.seen += 1


def _finished_match(seed: int) -> tuple[View, View]:
    """The first view of a match played to its end by two baseline players, and its last result."""
    match = new_match(seed=seed)
    first = match.view(match.to_act)
    baseline = make_player("baseline", seed=seed)
    while not match.is_over:
        match.apply(baseline.act(match.view(match.to_act)))
    return first, match.hand_view(0, len(match.hands))


def _message(kind: str, view: View, opponent: str | None) -> str:
    data: dict[str, Any] = {"type": kind, "view": view.to_json()}
    if kind == "act":
        data["id"] = 1
    if opponent is not None:
        data["opponent"] = opponent
    return json.dumps(data)


@pytest.mark.parametrize(
    ("first", "second", "fresh"),
    [
        (None, None, True),
        ("alice", "bob", True),
        ("alice", None, True),
        (None, "alice", True),
        ("alice", "alice", False),
    ],
)
def test_a_player_forgets_its_opponent_after_a_match_unless_the_host_names_the_same(
    first: str | None, second: str | None, fresh: bool
) -> None:
    start, end = _finished_match(seed=5)
    players: list[Counting] = []

    def new_player() -> Counting:
        players.append(Counting())
        return players[-1]

    lines = [
        _message("act", start, first),
        _message("result", end, first),
        _message("act", start, second),  # hand 1 of the next match
        _message("act", start, second),
    ]
    out = io.StringIO()
    assert serve(new_player, io.StringIO("".join(line + "\n" for line in lines)), out) == 0
    assert [json.loads(line)["type"] for line in out.getvalue().splitlines()] == ["action"] * 3
    if fresh:
        assert [p.seen for p in players] == [2, 2]
    else:
        assert [p.seen for p in players] == [4]


def test_a_hand_number_going_back_starts_a_new_match() -> None:
    """A host that sends no results still starts each match with a fresh player."""
    match = new_match(seed=6)
    first = match.view(match.to_act)
    baseline = make_player("baseline", seed=6)
    while len(match.hands) < 2:
        match.apply(baseline.act(match.view(match.to_act)))
    second_hand = match.view(match.to_act)
    players: list[Counting] = []

    def new_player() -> Counting:
        players.append(Counting())
        return players[-1]

    lines = [_message("act", first, "x"), _message("act", second_hand, "x"), _message("act", first, None)]
    serve(new_player, io.StringIO("".join(line + "\n" for line in lines)), io.StringIO())
    assert [p.seen for p in players] == [2, 1]


@pytest.mark.parametrize("bad", [5, "", "x" * 201, ["alice"]])
def test_a_bad_opponent_field_is_refused(bad: object) -> None:
    match = new_match(seed=4)
    view = match.view(match.to_act)
    _, replies = _converse([json.dumps({"type": "act", "id": 3, "view": view.to_json(), "opponent": bad})])
    assert replies[0]["type"] == "error"
    assert "'opponent' must be text of 1 to 200 characters" in replies[0]["message"]


def test_real_engine_subprocess_full_conversation() -> None:
    match = new_match(seed=8)
    seat = match.to_act
    view = match.view(seat)
    script = (
        "\n".join(
            [
                '{"type":"hello","protocol":1}',
                _act_line(1, view),
                "this is not json",
                json.dumps({"type": "result", "view": view.to_json()}),
                _act_line(2, view),
                '{"type":"quit"}',
            ]
        )
        + "\n"
    )
    done = _run_engine(script)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["type"] for r in replies] == ["hello", "action", "error", "action"]
    assert replies[0]["name"] == "random"
    assert [r["id"] for r in replies if r["type"] == "action"] == [1, 2]
    assert all(action_from_json(r["action"]) in view.legal for r in replies if r["type"] == "action")
    assert "not valid JSON" in done.stderr  # logs go to stderr, never to stdout


def test_real_engine_exits_cleanly_at_end_of_input() -> None:
    done = _run_engine('{"type":"hello","protocol":1}\n')
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"type": "hello", "protocol": 1, "name": "random"}


def test_unknown_bot_is_a_clear_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "ginrummy.cli", "engine", "--bot", "no-such-bot"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "unknown player 'no-such-bot'" in done.stderr
    assert done.stdout == ""


def _views_of_every_game() -> list[tuple[int, Any]]:
    """A view deep into a hand of each game, with the version that carries it."""
    from ginrummy import new_game

    found = []
    for name in ("classic", "gin3", "gin4_teams", "rummy"):
        game = new_game(name, seed=4)
        rng = random.Random(2)
        for _ in range(25):
            seat = game.seats_to_act[0]
            game.apply(rng.choice(game.legal_actions(seat)), seat)
        view = game.view(game.seats_to_act[0])
        found += [(1, view), (2, view)] if name == "classic" else [(2, view)]
    return found


def _field_paths(view: dict[str, Any]) -> list[tuple[Any, ...]]:
    paths: list[tuple[Any, ...]] = [(key,) for key in view]
    paths += [("rules", key) for key in view["rules"]]
    for holder, prefix in [(view, ()), *[(t, ("tables", n)) for n, t in enumerate(view.get("tables", []))]]:
        if holder.get("history"):
            paths += [(*prefix, "history", 0, key) for key in holder["history"][0]]
        paths += [(*prefix, key) for key in holder if prefix]
    return paths


def test_a_view_missing_any_field_gets_an_action_or_an_error_naming_it_never_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 12: an engine must answer a view that lacks a field with a clear error (or play on
    when the field is optional), never crash; ours names what is missing."""
    from ginrummy import game_action_from_json
    from ginrummy.bots.table_players import make_game_player
    from ginrummy.engine.protocol import Act

    caplog.set_level(logging.INFO, logger="ginrummy.engine")
    for version, view in _views_of_every_game():
        base = Act(1, view, version).to_json()
        for path in _field_paths(base["view"]):
            message = copy.deepcopy(base)
            node = message["view"]
            for part in path[:-1]:
                node = node[part]
            del node[path[-1]]
            out = io.StringIO()
            lines = [json.dumps({"type": "hello", "protocol": version}), json.dumps(message)]
            serve(
                lambda: make_player("baseline", seed=1),
                io.StringIO("".join(line + "\n" for line in lines)),
                out,
                seat_for=lambda rules: make_game_player("casual", rules, seed=1),
            )
            reply = json.loads(out.getvalue().splitlines()[1])
            where = f"{base['view'].get('game', 'gin')} v{version} without {'/'.join(map(str, path))}"
            if reply["type"] == "action":
                assert game_action_from_json(reply["action"]) in view.legal, where
            else:
                assert reply["type"] == "error" and str(path[-1]) in reply["message"], (where, reply)
                assert "failed" not in reply["message"], (where, reply)  # the view, not the player
    assert not any("Traceback" in record.getMessage() or record.exc_info for record in caplog.records)
