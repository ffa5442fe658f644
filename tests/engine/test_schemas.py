"""The JSON Schemas of docs/protocol.md (`ginrummy/engine/schemas/`): every line of real conversations
between our host and our engine validates, over whole games of every game and preset in both
versions; hand-made bad messages are rejected, each for the reason it was made bad."""

from __future__ import annotations

import copy
import json
import shlex
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from ginrummy import Rules, new_game
from ginrummy.arena.tables import play_table_game
from ginrummy.bots.table_players import make_game_player
from ginrummy.engine.host import EnginePlayer, EngineSeat
from ginrummy.engine.protocol import Act, Result
from ginrummy.engine.schema import MESSAGES, problems, schema, schema_id

RECORDER = Path(__file__).with_name("recording_engine.py")
ENGINE = [sys.executable, "-m", "ginrummy.cli", "engine", "--bot", "casual", "--seed", "2"]

TWO_PLAYER = ("classic", "hoyle", "oklahoma", "big_gin")
GIN_TABLES = ("gin3", "gin4_teams")


def _games(version: int, target: int) -> list[Rules]:
    """Every game and preset a host speaks `version` at, played to `target`."""
    games = [Rules.preset(name) for name in (*TWO_PLAYER, *GIN_TABLES)]
    if version >= 2:
        games += [Rules.for_game("rummy", players) for players in (2, 3, 4, 5, 6)]
    return [rules.replace(target=target) for rules in games]


def _unchecked_history(message: dict[str, Any], seen: set[str]) -> dict[str, Any]:
    """`message` with only the history entries not validated before.

    A history's schema is the same for each entry on its own (`items`), and every view repeats
    the entries of the views before it, so checking each distinct entry once checks them all
    (and keeps the test quick).
    """
    message = copy.deepcopy(message)
    view = message.get("view")
    if not isinstance(view, dict):
        return message
    for number, holder in enumerate([view, *view.get("tables", [])]):
        history = holder.get("history")
        if isinstance(history, list):
            kept = []
            for entry in history:
                key = f"{view.get('game')}/{number > 0}/{json.dumps(entry, sort_keys=True)}"
                if key not in seen:
                    seen.add(key)
                    kept.append(entry)
            holder["history"] = kept
    return message


def _recorded(tmp_path: Path, version: int, target: int, seeds: int) -> list[dict[str, Any]]:
    """Every line of one conversation through whole games of every kind `version` carries."""
    log = tmp_path / f"v{version}.jsonl"
    command = shlex.join([sys.executable, str(RECORDER), str(log), *ENGINE])
    # The long waits only keep a loaded machine from failing the test; nothing here is timed.
    with EnginePlayer(command, protocols=(version,), move_time=60, hello_timeout=60, grace=60) as engine:
        assert engine.protocol == version
        seat = EngineSeat(engine)
        for seed in range(seeds):
            for rules in _games(version, target):
                players = [seat, *["casual"] * (rules.players - 1)]
                stats = play_table_game(players, rules, seed=seed)
                assert stats.forfeit is None, stats.forfeit_reason
                assert stats.stalled is None
    assert engine.returncode == 0
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("version", [1, 2])
def test_every_line_of_whole_games_validates(tmp_path: Path, version: int) -> None:
    """Games to a target of 1 (one scoring hand, then the end-of-match bonuses)."""
    _check_lines(_recorded(tmp_path, version, target=1, seeds=1), version)


@pytest.mark.slow
@pytest.mark.parametrize("version", [1, 2])
def test_every_line_of_longer_games_validates(tmp_path: Path, version: int) -> None:
    _check_lines(_recorded(tmp_path, version, target=60, seeds=3), version)


def _check_lines(lines: list[dict[str, Any]], version: int) -> None:
    seen: set[str] = set()
    kinds: dict[str, set[str]] = {"host": set(), "engine": set()}
    games = set()
    for line in lines:
        message = json.loads(line["line"])
        side = line["from"]
        kinds[side].add(message["type"])
        if "view" in message:
            games.add(message["view"].get("game", "gin"))
        checked = _unchecked_history(message, seen) if side == "host" else message
        found = problems(checked, f"{side}-message", version)
        assert not found, (side, [p.text for p in found], line["line"][:600])
    assert kinds == {"host": {"hello", "act", "result", "quit"}, "engine": {"hello", "action"}}
    assert games == ({"gin"} if version == 1 else {"gin", "gin3", "gin4_teams", "rummy"})


def test_the_schemas_are_valid_and_shipped_with_the_package() -> None:
    folder = resources.files("ginrummy.engine").joinpath("schemas")
    for version in (1, 2):
        names = sorted(p.name for p in folder.joinpath(f"v{version}").iterdir() if p.name.endswith(".json"))
        assert names == sorted(f"{name}.json" for name in (*MESSAGES, "defs"))
        for name in (*MESSAGES, "defs"):
            document = schema(name, version)
            Draft202012Validator.check_schema(document)
            assert document["$id"] == schema_id(name, version)
            assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# -- hand-made messages ------------------------------------------------------------------


def _seat_to_act(rules: Rules, seed: int, steps: int) -> tuple[Any, int]:
    """A game after `steps` first-legal moves (knocks and melds avoided), and the seat to act."""
    game = new_game(rules, seed=seed)
    for _ in range(steps):
        seat = game.seats_to_act[0]
        legal = game.legal_actions(seat)
        plain = [a for a in legal if type(a).__name__ in ("Draw", "Discard", "Pass")]
        game.apply(plain[-1] if plain else legal[0], seat)
    return game, game.seats_to_act[0]


def _act(version: int, game: str = "classic", steps: int = 8) -> dict[str, Any]:
    rules = Rules.preset(game)
    state, seat = _seat_to_act(rules, seed=5, steps=steps)
    return Act(7, state.view(seat), version).to_json()


def _gin_act_with_discard_draw() -> dict[str, Any]:
    """A version-1 act whose history has a draw from the discard pile (with its card beside it)."""
    for steps in range(2, 40):
        message = _act(1, steps=steps)
        if any(e["action"] == {"type": "draw", "source": "discard"} for e in message["view"]["history"]):
            return message
    raise AssertionError("no seeded game took a card from the discard pile")


def _texts(message: Any, name: str, version: int) -> list[str]:
    return [p.text for p in problems(message, name, version)]


def test_real_messages_of_every_kind_are_valid() -> None:
    assert _texts({"type": "hello", "protocol": 1}, "host-hello", 1) == []
    assert _texts({"type": "hello", "protocol": 2, "name": "x"}, "engine-hello", 2) == []
    assert _texts(_gin_act_with_discard_draw(), "act", 1) == []
    for game in ("classic", "gin3", "gin4_teams", "rummy"):
        act = _act(2, game)
        assert _texts(act, "act", 2) == []
        assert _texts({"type": "result", "view": act["view"]}, "result", 2) == []
    # The cards an engine writes may be in either case, and 10 for T.
    for card in ("7h", "10H", "TD"):
        reply = {"type": "action", "id": 1, "action": {"type": "discard", "card": card}}
        assert _texts(reply, "engine-message", 1) == []
    meld = {"type": "action", "id": 2, "action": {"type": "meld", "cards": ["7h", "8H", "9H"]}}
    assert _texts(meld, "action", 2) == []


def test_a_view_without_its_optional_fields_is_valid() -> None:
    message = _gin_act_with_discard_draw()
    view = message["view"]
    view.pop("showdown")
    view["rules"] = {"preset": "oklahoma"}
    for entry in view["history"]:
        if entry["action"] == {"type": "draw", "source": "stock"}:
            entry.pop("card", None)
    assert _texts(message, "act", 1) == []
    assert _texts({**message, "opponent": None}, "act", 1) == []
    del view["rules"]["preset"]  # classic
    assert _texts(message, "act", 1) == []


def _history_draw(message: dict[str, Any]) -> int:
    history = message["view"]["history"]
    return next(i for i, e in enumerate(history) if e["action"] == {"type": "draw", "source": "discard"})


def test_a_drawn_card_inside_the_action_is_refused() -> None:
    message = _gin_act_with_discard_draw()
    index = _history_draw(message)
    entry = message["view"]["history"][index]
    entry["action"]["card"] = entry.pop("card")  # the mistake of issue 12
    found = problems(message, "act", 1)
    assert found, "a draw naming its card inside the action must be refused"
    assert all(p.path.startswith(f"view.history[{index}]") for p in found), [p.text for p in found]
    assert any("'card' was unexpected" in p.text for p in found)
    # Beside the action, and inside it too, is no better; and a discard draw must name its card.
    entry["card"] = entry["action"]["card"]
    assert problems(message, "act", 1)
    del entry["action"]["card"], entry["card"]
    assert problems(message, "act", 1)


def _mutated(message: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy with the field at dotted `path` set to `value` (or removed when `value` is DROP)."""
    message = copy.deepcopy(message)
    *parents, last = path.split(".")
    node: Any = message
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    key: Any = int(last) if last.isdigit() else last
    if value is DROP:
        del node[key]
    else:
        node[key] = value
    return message


DROP = object()


@pytest.mark.parametrize(
    ("version", "game", "path", "value", "expected"),
    [
        (1, "classic", "view.hand", DROP, "'hand' is a required property"),
        (1, "classic", "view.legal", DROP, "'legal' is a required property"),
        (1, "classic", "id", DROP, "'id' is a required property"),
        (1, "classic", "id", "7", "'7' is not of type 'integer'"),
        (1, "classic", "view.stock_count", "25", "is not of type 'integer'"),
        (1, "classic", "view.seat", 2, "2 is greater than the maximum of 1"),
        (1, "classic", "view.phase", "play", "'play' is not one of"),
        (1, "classic", "view.hand.0", "10H", "does not match"),
        (1, "classic", "view.hand.0", "th", "does not match"),
        (1, "classic", "opponent", "", "should be non-empty"),
        (1, "classic", "opponent", 5, "5 is not of type 'string', 'null'"),
        (
            1,
            "classic",
            "view.rules",
            {"preset": "custom", "knock_limit": 9},
            "'gin_bonus' is a required property",
        ),
        (1, "classic", "view.rules.knock_limit", 11, "11 is greater than the maximum of 10"),
        (1, "classic", "view.rules.ace", "high", "'low' was expected"),
        (1, "classic", "view.legal.0", {"type": "meld", "cards": ["7H", "8H", "9H"]}, "view.legal[0]"),
        (1, "classic", "view.game", "gin", "'game' was unexpected"),
        (2, "classic", "view.game", DROP, "'game' is a required property"),
        (2, "classic", "view.game", "poker", "'poker' is not one of"),
        (2, "gin3", "view.tables.0.hand", DROP, "'hand' is a required property"),
        (2, "gin3", "view.scores", [0, 0], "[0, 0] is too short"),
        (
            2,
            "gin4_teams",
            "view.round",
            {"team_points": [3, 1], "scorer": 2, "points": 2},
            "view.round.scorer",
        ),
        (2, "rummy", "view.result", DROP, "'result' is a required property"),
        (2, "rummy", "view.legal.0", {"type": "pass"}, "view.legal[0]"),
        (2, "rummy", "view.table", [{"cards": ["3C", "3D"], "owner": 0, "added": []}], "is too short"),
        (2, "rummy", "view.rules.oklahoma", True, "False was expected"),
    ],
)
def test_bad_host_messages_are_refused(version: int, game: str, path: str, value: Any, expected: str) -> None:
    message = _mutated(_act(version, game), path, value)
    texts = _texts(message, "act", version)
    assert any(expected in text for text in texts), texts


@pytest.mark.parametrize(
    ("version", "name", "message", "expected"),
    [
        (1, "host-hello", {"type": "hello", "protocol": 2}, "1 was expected"),
        (1, "engine-hello", {"type": "hello", "protocol": "1"}, "1 was expected"),
        (1, "engine-hello", {"type": "hello", "protocol": 1, "name": 7}, "7 is not of type 'string'"),
        (1, "engine-message", {"type": "action", "action": {"type": "pass"}}, "'id' is a required property"),
        (1, "engine-message", {"type": "action", "id": 1}, "'action' is a required property"),
        (
            1,
            "engine-message",
            {"type": "action", "id": 1, "action": {"type": "fold"}},
            "'fold' is not one of",
        ),
        (
            1,
            "engine-message",
            {"type": "action", "id": 1, "action": {"type": "discard"}},
            "'card' is a required",
        ),
        (
            1,
            "engine-message",
            {"type": "action", "id": 1, "action": {"type": "discard", "card": "1Z"}},
            "match",
        ),
        (
            1,
            "engine-message",
            {"type": "action", "id": 1, "action": {"type": "meld", "cards": []}},
            "not one of",
        ),
        (
            2,
            "engine-message",
            {"type": "action", "id": 1, "action": {"type": "layoff", "card": "9H"}},
            "'meld'",
        ),
        (
            2,
            "engine-message",
            {"type": "action", "id": 1, "action": {"type": "layoff", "card": "9H", "meld": -1}},
            "minimum",
        ),
        (
            2,
            "engine-message",
            {"type": "action", "id": 1, "action": {"type": "meld", "cards": ["7H", "8H"]}},
            "too short",
        ),
        (1, "engine-message", {"type": "error"}, "'message' is a required property"),
        (1, "engine-message", {"type": "ponder"}, "'ponder' is not one of"),
        (1, "host-message", {"type": "quit", "now": True}, "'now' was unexpected"),
        (1, "host-message", {"type": "result"}, "'view' is a required property"),
    ],
)
def test_bad_messages_are_refused(version: int, name: str, message: Any, expected: str) -> None:
    texts = _texts(message, name, version)
    assert any(expected in text for text in texts), texts


def test_an_unknown_field_in_a_reply_is_told_apart() -> None:
    """Hosts ignore fields they do not know; engine-check warns about them rather than failing."""
    reply = {"type": "action", "id": 1, "action": {"type": "draw", "source": "stock", "card": "5D"}}
    found = problems(reply, "engine-message", 1)
    assert found and all(p.unknown_field for p in found), [p.text for p in found]
    wrong = problems({"type": "action", "id": "1", "action": {"type": "pass"}}, "engine-message", 1)
    assert wrong and not any(p.unknown_field for p in wrong)


def test_every_result_view_validates() -> None:
    """The last view of a finished game of each kind, as its `result` carries it."""
    for name in ("classic", "gin3", "gin4_teams", "rummy"):
        rules = Rules.preset(name).replace(target=10)
        game = new_game(rules, seed=2)
        players = [
            make_game_player("novice" if name == "rummy" else "baseline", rules, seed=s) for s in range(4)
        ]
        while not game.is_over:
            seat = game.seats_to_act[0]
            game.apply(players[seat].act(game.view(seat)), seat)
        for seat in range(game.rules.players):
            view = game.hand_view(seat, game.hand_number)
            assert _texts(Result(view, 2).to_json(), "result", 2) == []
