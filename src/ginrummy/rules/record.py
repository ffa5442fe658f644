"""Match records: seeds, actions and results that dump to JSON, load back and replay."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .actions import Action, ActionError, action_from_json
from .variants import Rules, RulesError

__all__ = ["HandRecord", "MatchRecord", "RecordError", "dumps", "loads"]

FORMAT = "ginrummy-match"
VERSION = 1


class RecordError(ValueError):
    """Text that is not a match record."""


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
            actions = []
            for item in data["actions"]:
                if not (
                    isinstance(item, list) and len(item) == 2 and type(item[0]) is int and item[0] in (0, 1)
                ):
                    raise RecordError(f"an action entry must be [seat, action], got {item!r}")
                actions.append((int(item[0]), action_from_json(item[1])))
            seed, dealer = data["seed"], data["dealer"]
            if type(seed) is not int or type(dealer) is not int or dealer not in (0, 1):
                raise RecordError(f"bad seed or dealer in hand record: {seed!r}, {dealer!r}")
            return cls(seed, dealer, tuple(actions), data.get("result"))
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
    return json.dumps(record.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> MatchRecord:
    """A record from JSON text; `dumps(loads(x)) == x` for text that `dumps` wrote."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"record is not valid JSON: {exc}") from None
    return MatchRecord.from_json(data)
