"""Messages of the engine protocol (docs/protocol.md): their types, JSON lines and validation.

Version 1 (docs/protocol.md) is two-player Gin. Version 2 carries every game: its VIEW names the
game (`gin`, `gin3`, `gin4_teams`, `rummy`) and its actions include Rummy's `meld` and
`layoff`. A message knows which version it belongs to; the hello is the same in both.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..rules import (
    ActionError,
    GameAction,
    GinTableView,
    RummyView,
    View,
    ViewError,
    action_from_json,
    game_action_from_json,
    game_view_from_json,
)

__all__ = [
    "PROTOCOL_VERSION",
    "PROTOCOL_VERSIONS",
    "AnyView",
    "ProtocolError",
    "Hello",
    "Act",
    "Result",
    "Quit",
    "ActionReply",
    "ErrorMessage",
    "HostMessage",
    "EngineMessage",
    "Message",
    "encode",
    "parse_host_message",
    "parse_engine_message",
]

PROTOCOL_VERSION = 1
#: Every version this side speaks, newest first.
PROTOCOL_VERSIONS = (2, 1)

AnyView = View | GinTableView | RummyView

# A line longer than this is not a protocol message; reading stops there so a
# runaway engine cannot fill the host's memory.
MAX_LINE = 1 << 20


class ProtocolError(ValueError):
    """A line that is not a valid message for the side reading it; the text says what is wrong."""


@dataclass(frozen=True, slots=True)
class Hello:
    """Handshake: from the host without a name, from the engine with its name."""

    protocol: int = PROTOCOL_VERSION
    name: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "hello", "protocol": self.protocol}
        if self.name is not None:
            data["name"] = self.name
        return data


def view_json(view: AnyView, version: int) -> dict[str, Any]:
    """A VIEW as `version` of the protocol writes it (version 2 names two-player Gin `gin`)."""
    data = view.to_json()
    if version >= 2 and isinstance(view, View):
        return {"game": "gin", "players": 2, **data}
    return data


@dataclass(frozen=True, slots=True)
class Act:
    """The host asks the engine to move; the reply must carry the same `id`."""

    id: int
    view: AnyView
    version: int = 1
    #: Who the opponent is, when the host knows (docs/protocol.md): the same text in two
    #: matches running lets the engine keep what it learnt of that opponent.
    opponent: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "act", "id": self.id, "view": view_json(self.view, self.version)}
        if self.opponent is not None:
            data["opponent"] = self.opponent
        return data


@dataclass(frozen=True, slots=True)
class Result:
    """A hand is over; `view` is the seat's view of it, with its showdown. No reply."""

    view: AnyView
    version: int = 1
    opponent: str | None = None  # as in `Act`

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": "result", "view": view_json(self.view, self.version)}
        if self.opponent is not None:
            data["opponent"] = self.opponent
        return data


@dataclass(frozen=True, slots=True)
class Quit:
    """The engine must exit with status 0."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "quit"}


@dataclass(frozen=True, slots=True)
class ActionReply:
    """The engine's move in answer to the `act` with the same `id`."""

    id: int
    action: GameAction

    def to_json(self) -> dict[str, Any]:
        return {"type": "action", "id": self.id, "action": self.action.to_json()}


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    """The engine could not read a message (it keeps running)."""

    message: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "error", "message": self.message}


HostMessage = Hello | Act | Result | Quit
EngineMessage = Hello | ActionReply | ErrorMessage
Message = Hello | Act | Result | Quit | ActionReply | ErrorMessage


def encode(message: Message) -> str:
    """One message as a line of JSON text, newline included (ASCII only)."""
    return json.dumps(message.to_json(), separators=(",", ":")) + "\n"


def _object(line: str | bytes) -> dict[str, Any]:
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"line is not UTF-8: {exc}") from None
    text = line.strip()
    if not text:
        raise ProtocolError("empty line")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ProtocolError(f"not valid JSON ({exc}): {_excerpt(text)}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"a message must be a JSON object, got {_excerpt(text)}")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(f"a message needs a string field 'type': {_excerpt(text)}")
    return data


def _excerpt(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _message_id(data: dict[str, Any]) -> int:
    value = data.get("id")
    # bool is an int in Python, but `true` is not an id.
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"a {data['type']!r} message needs an integer 'id', got {value!r}")
    return value


def _protocol(data: dict[str, Any]) -> int:
    value = data.get("protocol")
    if not isinstance(value, int) or isinstance(value, bool):
        raise ProtocolError(f"'hello' needs an integer 'protocol', got {value!r}")
    return value


def _view(data: dict[str, Any], version: int) -> AnyView:
    if "view" not in data:
        raise ProtocolError(f"a {data['type']!r} message needs a 'view'")
    raw = data["view"]
    if version < 2 and isinstance(raw, dict) and raw.get("game", "gin") != "gin":
        raise ProtocolError(
            f"a version 1 view is two-player Gin, this one is {raw['game']!r}: agree on version 2 in the hello"
        )
    if version >= 2 and isinstance(raw, dict) and "game" not in raw:
        raise ProtocolError("a version 2 view needs its 'game': gin, gin3, gin4_teams or rummy")
    try:
        if version >= 2:
            return game_view_from_json(raw)
        return View.from_json(raw)
    except ViewError as exc:
        raise ProtocolError(str(exc)) from None


#: The longest `opponent` text a host may send.
OPPONENT_MAX = 200


def _opponent(data: dict[str, Any]) -> str | None:
    value = data.get("opponent")
    if value is None:
        return None
    if not isinstance(value, str) or not 1 <= len(value) <= OPPONENT_MAX:
        shown = f"{len(value)} characters" if isinstance(value, str) else repr(value)[:40]
        raise ProtocolError(
            f"a {data['type']!r} message's 'opponent' must be text of 1 to {OPPONENT_MAX} characters, got {shown}"
        )
    return value


def parse_host_message(line: str | bytes, version: int = 1) -> HostMessage:
    """A line the host sent (what an engine reads) in protocol `version`; raise `ProtocolError`
    saying what is wrong."""
    data = _object(line)
    kind = data["type"]
    if kind == "hello":
        return Hello(_protocol(data))
    if kind == "act":
        return Act(_message_id(data), _view(data, version), version, _opponent(data))
    if kind == "result":
        return Result(_view(data, version), version, _opponent(data))
    if kind == "quit":
        return Quit()
    raise ProtocolError(f"unknown message type {kind!r}; expected hello, act, result or quit")


def parse_engine_message(line: str | bytes, version: int = 1) -> EngineMessage:
    """A line an engine sent (what the host reads) in protocol `version`; raise `ProtocolError`
    saying what is wrong."""
    data = _object(line)
    kind = data["type"]
    if kind == "hello":
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise ProtocolError(f"'hello' field 'name' must be text, got {name!r}")
        return Hello(_protocol(data), name)
    if kind == "action":
        message_id = _message_id(data)
        if not isinstance(data.get("action"), dict):
            raise ProtocolError(
                f"an 'action' message needs an 'action' object like {{\"type\": \"pass\"}}, got {data.get('action')!r}"
            )
        try:
            action = (
                game_action_from_json(data["action"]) if version >= 2 else action_from_json(data["action"])
            )
        except ActionError as exc:
            raise ProtocolError(f"bad action: {exc}") from None
        return ActionReply(message_id, action)
    if kind == "error":
        message = data.get("message")
        return ErrorMessage(message if isinstance(message, str) else repr(message))
    raise ProtocolError(f"unknown message type {kind!r}; expected hello, action or error")
