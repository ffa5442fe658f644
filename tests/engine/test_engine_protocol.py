"""PROTOCOL.md messages: each encodes to the documented JSON and bad lines are rejected with a reason."""

from __future__ import annotations

import json

import pytest

from ginrummy import Discard, Draw, Pass, new_match, parse_card
from ginrummy.engine.protocol import (
    Act,
    ActionReply,
    ErrorMessage,
    Hello,
    ProtocolError,
    Quit,
    Result,
    encode,
    parse_engine_message,
    parse_host_message,
)


def _view():  # type: ignore[no-untyped-def]
    match = new_match(seed=11)
    return match.view(match.to_act)


def test_messages_encode_as_protocol_md_shows() -> None:
    view = _view()
    assert json.loads(encode(Hello())) == {"type": "hello", "protocol": 1}
    assert json.loads(encode(Hello(1, "random"))) == {"type": "hello", "protocol": 1, "name": "random"}
    assert json.loads(encode(Act(17, view))) == {"type": "act", "id": 17, "view": view.to_json()}
    assert json.loads(encode(Result(view))) == {"type": "result", "view": view.to_json()}
    assert json.loads(encode(Quit())) == {"type": "quit"}
    assert json.loads(encode(ActionReply(17, Discard(parse_card("7H"))))) == {
        "type": "action",
        "id": 17,
        "action": {"type": "discard", "card": "7H"},
    }
    assert json.loads(encode(ErrorMessage("bad"))) == {"type": "error", "message": "bad"}


def test_every_message_is_one_line() -> None:
    line = encode(Act(1, _view()))
    assert line.endswith("\n") and line.count("\n") == 1


def test_host_messages_round_trip() -> None:
    view = _view()
    for message in (Hello(), Act(3, view), Result(view), Quit()):
        assert parse_host_message(encode(message)) == message


def test_engine_messages_round_trip() -> None:
    for message in (Hello(1, "x"), ActionReply(4, Draw("stock")), ActionReply(5, Pass()), ErrorMessage("e")):
        assert parse_engine_message(encode(message)) == message


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("", "empty line"),
        ("not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ('{"protocol": 1}', "'type'"),
        ('{"type": "dance"}', "unknown message type 'dance'"),
        ('{"type": "act", "view": {}}', "integer 'id'"),
        ('{"type": "act", "id": true, "view": {}}', "integer 'id'"),
        ('{"type": "act", "id": 1}', "needs a 'view'"),
        ('{"type": "act", "id": 1, "view": {"seat": 0}}', "missing the field"),
        ('{"type": "hello"}', "integer 'protocol'"),
        ('{"type": "result", "view": 3}', "must be a JSON object"),
    ],
)
def test_bad_host_lines_say_what_is_wrong(line: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_host_message(line)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"type": "action", "id": 1}', "needs an 'action' object"),
        ('{"type": "action", "id": 1, "action": "pass"}', "needs an 'action' object"),
        ('{"type": "action", "id": 1, "action": {"type": "fold"}}', "unknown action type 'fold'"),
        ('{"type": "action", "id": 1, "action": {"type": "discard", "card": "1Z"}}', "not a card"),
        ('{"type": "action", "action": {"type": "pass"}}', "integer 'id'"),
        ('{"type": "hello", "protocol": 1, "name": 5}', "'name' must be text"),
        ('{"type": "act", "id": 1, "view": {}}', "expected hello, action or error"),
    ],
)
def test_bad_engine_lines_say_what_is_wrong(line: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_engine_message(line)
