"""Match records: seeds, actions and results that dump to JSON, load back and replay."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from .actions import Action, ActionError, action_from_json
from .variants import Rules, RulesError

__all__ = ["HandRecord", "MatchRecord", "RecordError", "dumps", "loads"]

FORMAT = "ginrummy-match"
VERSION = 1


A = TypeVar("A")


class RecordError(ValueError):
    """Text that is not a match record."""


def recorded_actions(items: Any, seats: int, parse: Callable[[Any], A]) -> tuple[tuple[int, A], ...]:
    """A hand record's `[seat, action]` entries, each action read by `parse` (any record format)."""
    if not isinstance(items, list):
        raise RecordError(f"a hand's actions must be a list, got {items!r}")
    actions = []
    for item in items:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int and 0 <= item[0] < seats):
            raise RecordError(
                f"an action entry must be [seat, action] with a seat below {seats}, got {item!r}"
            )
        actions.append((item[0], parse(item[1])))
    return tuple(actions)


def canonical_text(data: Any) -> str:
    """JSON text with sorted keys and fixed spacing: equal records give equal text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def record_json(text: str | bytes) -> Any:
    """The JSON of a record's text; `RecordError` if it is not JSON."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise RecordError(f"record is not valid JSON: {exc}") from None


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One deal: its seed and dealer, the actions in order, and how it ended."""

    seed: int
    dealer: int
    actions: tuple[tuple[int, Action], ...]
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "dealer": self.dealer,
            "actions": [[seat, action.to_json()] for seat, action in self.actions],
            "result": self.result,
        }

    @classmethod
    def from_json(cls, data: Any) -> HandRecord:
        if not isinstance(data, dict):
            raise RecordError(f"a hand record must be an object, got {data!r}")
        try:
            actions = recorded_actions(data["actions"], 2, action_from_json)
            seed, dealer = data["seed"], data["dealer"]
            if type(seed) is not int or type(dealer) is not int or dealer not in (0, 1):
                raise RecordError(f"bad seed or dealer in hand record: {seed!r}, {dealer!r}")
            return cls(seed, dealer, actions, data.get("result"))
        except KeyError as exc:
            raise RecordError(f"hand record is missing {exc.args[0]!r}") from None
        except ActionError as exc:
            raise RecordError(f"bad action in record: {exc}") from None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A whole match as data. `loads(dumps(r)) == r`, and `Match.from_record(r)` replays it."""

    rules: Rules
    seed: int | str
    hands: tuple[HandRecord, ...]
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "hands": [h.to_json() for h in self.hands],
            "result": self.result,
        }

    def dumps(self) -> str:
        """Canonical JSON text (sorted keys, fixed spacing): equal records give equal text."""
        return dumps(self)

    @classmethod
    def from_json(cls, data: Any) -> MatchRecord:
        if not isinstance(data, dict):
            raise RecordError("a match record must be a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"not a match record: format is {data.get('format')!r}, expected {FORMAT!r}")
        if data.get("version") != VERSION:
            raise RecordError(f"unsupported record version {data.get('version')!r}")
        try:
            rules = Rules.from_json(data["rules"])
            hands = tuple(HandRecord.from_json(h) for h in data["hands"])
            seed = data["seed"]
        except KeyError as exc:
            raise RecordError(f"match record is missing {exc.args[0]!r}") from None
        except RulesError as exc:
            raise RecordError(f"bad rules in record: {exc}") from None
        if not isinstance(seed, (int, str)):
            raise RecordError(f"bad match seed {seed!r}")
        return cls(rules, seed, hands, data.get("result"))


def dumps(record: MatchRecord) -> str:
    """A record as canonical JSON text."""
    return canonical_text(record.to_json())


def loads(text: str | bytes) -> MatchRecord:
    """A record from JSON text; `dumps(loads(x)) == x` for text that `dumps` wrote."""
    return MatchRecord.from_json(record_json(text))
