"""Records of every game (two-player Gin, three-player Gin, team Gin, Rummy): dump to JSON, load, replay.

A record is the game's rules and seed plus, for every deal, its seeds (one per hand dealt: two
in team Gin), its dealer (in team Gin the dealing team) and every action in the order played as
`[seat, action]`, with the results to check the replay against. Every game writes the one
format, `ginrummy-game` version 2:

    {"format": "ginrummy-game", "version": 2, "game": "gin", "rules": {...}, "seed": 7,
     "hands": [{"seeds": [...], "dealer": 0, "actions": [[1, {"type": "pass"}], ...],
                "result": {...} or null}, ...],
     "result": {...} or null}

`game` is the rules' game (`gin`, `gin3`, `gin4_teams` or `rummy`), `rules` is `Rules.to_json()`,
and the results are those of the game's `to_json()`. `dumps` writes it as canonical JSON (sorted
keys, fixed spacing), so equal records give equal text.

`loads` also reads the formats written before it, into the same `GameRecord`; dumped again
they are version 2:

- `ginrummy-game` version 1, the table games' records before two-player Gin joined them:
  the same fields;
- `ginrummy-match` version 1, two-player Gin's records until then (`ginrummy play --save`):
  no `game` (it is `gin`), and each hand's one seed as `seed` rather than `seeds`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .actions import ActionError, GameAction, game_action_from_json
from .deal import deal_seed
from .hand import IllegalActionError
from .variants import Rules, RulesError

__all__ = [
    "GameHandRecord",
    "GameRecord",
    "RecordError",
    "dumps",
    "loads",
    "record_of",
    "replay_hands",
    "replayed",
]

FORMAT = "ginrummy-game"
VERSION = 2
#: Two-player Gin's format before every game wrote `FORMAT` (read, converted, never written).
MATCH_FORMAT = "ginrummy-match"


class RecordError(ValueError):
    """Text that is not a record of a game."""


@dataclass(frozen=True, slots=True)
class GameHandRecord:
    """One deal: its seed(s) (two in team Gin, one per table), its dealer (in team Gin the
    dealing team), the actions in the order played, and how it ended."""

    seeds: tuple[int, ...]
    dealer: int
    actions: tuple[tuple[int, GameAction], ...]
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "seeds": list(self.seeds),
            "dealer": self.dealer,
            "actions": [[seat, action.to_json()] for seat, action in self.actions],
            "result": self.result,
        }

    @classmethod
    def from_json(cls, data: Any, seats: int) -> GameHandRecord:
        if not isinstance(data, dict):
            raise RecordError(f"a hand record must be an object, got {data!r}")
        try:
            actions = _actions(data["actions"], seats)
            seeds, dealer = data["seeds"], data["dealer"]
            if not (isinstance(seeds, list) and seeds and all(type(s) is int for s in seeds)):
                raise RecordError(f"a hand record's seeds must be a list of whole numbers, got {seeds!r}")
            if type(dealer) is not int or not 0 <= dealer < seats:
                raise RecordError(f"bad dealer in hand record: {dealer!r}")
            result = data.get("result")
            if result is not None and not isinstance(result, dict):
                raise RecordError(f"a hand's result must be an object or null, got {result!r}")
            return cls(tuple(seeds), dealer, actions, result)
        except KeyError as exc:
            raise RecordError(f"hand record is missing {exc.args[0]!r}") from None
        except ActionError as exc:
            raise RecordError(f"bad action in record: {exc}") from None


def _actions(items: Any, seats: int) -> tuple[tuple[int, GameAction], ...]:
    """A hand record's `[seat, action]` entries."""
    if not isinstance(items, list):
        raise RecordError(f"a hand's actions must be a list, got {items!r}")
    actions = []
    for item in items:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int and 0 <= item[0] < seats):
            raise RecordError(
                f"an action entry must be [seat, action] with a seat below {seats}, got {item!r}"
            )
        actions.append((item[0], game_action_from_json(item[1])))
    return tuple(actions)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole game as data. `loads(dumps(r)) == r`; `game_from_record(r)` (or the game's class's
    `from_record`) replays it."""

    rules: Rules
    seed: int | str
    hands: tuple[GameHandRecord, ...]
    result: dict[str, Any] | None

    @property
    def game(self) -> str:
        """The game's name (`gin`, `gin3`, `gin4_teams` or `rummy`)."""
        return self.rules.game

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.rules.game,
            "rules": self.rules.to_json(),
            "seed": self.seed,
            "hands": [h.to_json() for h in self.hands],
            "result": self.result,
        }

    def dumps(self) -> str:
        """Canonical JSON text (sorted keys, fixed spacing): equal records give equal text."""
        return dumps(self)

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        """A record from its JSON: this format, or one written before it (see the module docstring)."""
        if not isinstance(data, dict):
            raise RecordError("a game record must be a JSON object")
        if data.get("format") == MATCH_FORMAT and data.get("version") == 1:
            data = _from_match_format(data)
        elif data.get("format") != FORMAT:
            raise RecordError(
                f"not a game record: format is {data.get('format')!r}, expected {FORMAT!r} "
                f"(or {MATCH_FORMAT!r} version 1, two-player Gin's before it)"
            )
        elif data.get("version") not in (1, VERSION):
            raise RecordError(f"unsupported game record version {data.get('version')!r}")
        elif data.get("version") == 1 and data.get("game") == "gin":
            raise RecordError(
                f"{FORMAT!r} version 1 recorded the table games only; two-player Gin's records of "
                f"then are {MATCH_FORMAT!r} version 1"
            )
        try:
            rules = Rules.from_json(data["rules"])
            if data["game"] != rules.game:
                raise RecordError(
                    f"the record says game {data['game']!r} but its rules are for {rules.game!r}"
                )
            seats = rules.players if rules.game != "gin4_teams" else 2
            hands = tuple(GameHandRecord.from_json(h, rules.players) for h in data["hands"])
            for number, hand in enumerate(hands, start=1):
                if hand.dealer >= seats:
                    raise RecordError(f"hand {number}: bad dealer {hand.dealer}")
            seed = data["seed"]
        except KeyError as exc:
            raise RecordError(f"game record is missing {exc.args[0]!r}") from None
        except RulesError as exc:
            raise RecordError(f"bad rules in record: {exc}") from None
        except TypeError as exc:
            raise RecordError(f"bad game record: {exc}") from None
        if not isinstance(seed, (int, str)) or isinstance(seed, bool):
            raise RecordError(f"bad game seed {seed!r}")
        result = data.get("result")
        if result is not None and not isinstance(result, dict):
            raise RecordError(f"a game's result must be an object or null, got {result!r}")
        return cls(rules, seed, hands, result)


def _from_match_format(data: dict[str, Any]) -> dict[str, Any]:
    """A `ginrummy-match` version-1 record's JSON in this format's fields: game `gin`, and each
    hand's `seed` as `seeds` of one (a hand without one is left to be refused as it is)."""
    hands = data.get("hands")
    if isinstance(hands, list):
        hands = [{**h, "seeds": [h["seed"]]} if isinstance(h, dict) and "seed" in h else h for h in hands]
    return {**data, "game": "gin", "hands": hands}


def dumps(record: GameRecord) -> str:
    """A record as canonical JSON text: equal records give equal text."""
    return json.dumps(record.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> GameRecord:
    """A record of any game from JSON text; `dumps(loads(x)) == x` for text that `dumps` wrote."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"record is not valid JSON: {exc}") from None
    return GameRecord.from_json(data)


class _Replayable(Protocol):
    @property
    def hand_number(self) -> int: ...

    @property
    def result(self) -> Any: ...

    def apply(self, action: GameAction, seat: int) -> Any: ...

    def deal_summary(self, hand_number: int) -> tuple[tuple[int, ...], int, dict[str, Any] | None]: ...


class _Recorded(_Replayable, Protocol):
    @property
    def rules(self) -> Rules: ...

    @property
    def seed(self) -> int | str: ...


def record_of(game: _Recorded, actions: Callable[[int], Iterable[tuple[int, GameAction]]]) -> GameRecord:
    """The record of `game` so far: every deal's seeds, dealer and result as its `deal_summary` gives
    them, with the deal's actions as `actions(hand_number)` gives them (`[seat, action]` in the
    game's seats, in the order played), and the game's result."""
    hands = []
    for number in range(1, game.hand_number + 1):
        seeds, dealer, result = game.deal_summary(number)
        hands.append(GameHandRecord(seeds, dealer, tuple(actions(number)), result))
    ended = game.result
    return GameRecord(game.rules, game.seed, tuple(hands), ended.to_json() if ended is not None else None)


def replay_hands(game: _Replayable, record: GameRecord) -> None:
    """Apply every recorded action to a game dealt from the record's seeds, checking each deal's
    seeds, dealer and result, and the game's result; raise `ValueError` at the first difference."""
    for number, hand_record in enumerate(record.hands, start=1):
        if game.hand_number != number:
            raise ValueError(f"the record holds hand {number}, but the game is at hand {game.hand_number}")
        seeds, dealer, _ = game.deal_summary(number)
        if seeds != hand_record.seeds:
            raise ValueError(
                f"hand {number} was dealt from seeds {list(seeds)}, the record says {list(hand_record.seeds)}"
            )
        if dealer != hand_record.dealer:
            raise ValueError(f"record says {hand_record.dealer} dealt hand {number}, the rules say {dealer}")
        for step_number, (seat, action) in enumerate(hand_record.actions, start=1):
            try:
                game.apply(action, seat)
            except IllegalActionError as exc:
                raise ValueError(f"hand {number}, action {step_number} ({action}): {exc}") from None
        _, _, result = game.deal_summary(number)
        if hand_record.result is not None and result != hand_record.result:
            raise ValueError(f"hand {number} does not end as recorded")
    result = game.result
    if record.result is not None and (result is None or result.to_json() != record.result):
        raise ValueError("the game does not end as recorded")


G = TypeVar("G", bound=_Replayable)


def replayed(record: GameRecord, make: Callable[..., G], seeds: Sequence[int]) -> G:
    """A game made by `make` (a game's class) dealt from `seeds`, the record's deals in order,
    then from the record's own seed, with the record's first dealer, and every recorded action
    replayed and checked (`replay_hands`)."""

    def source(index: int) -> int:
        return seeds[index] if index < len(seeds) else deal_seed(record.seed, index)

    first = record.hands[0].dealer if record.hands else None
    game = make(record.rules, seed=record.seed, seed_source=source, first_dealer=first)
    replay_hands(game, record)
    return game
