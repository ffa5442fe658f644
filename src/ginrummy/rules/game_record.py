"""Records of the table games (three-player Gin, team Gin, Rummy): dump to JSON, load, replay.

A record is the game's rules and seed plus, for every deal, its seed(s), its dealer and
every action in the order played as `[seat, action]`, with the results to check the
replay against. Two-player Gin keeps its own format (`record.MatchRecord`); `load_record`
reads either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from .actions import ActionError, GameAction, game_action_from_json
from .deal import deal_seed
from .hand import IllegalActionError
from .record import RecordError, canonical_text, record_json, recorded_actions
from .variants import Rules, RulesError

__all__ = ["GameHandRecord", "GameRecord", "dumps_game", "loads_game", "replay_hands", "replayed"]

FORMAT = "ginrummy-game"
VERSION = 1


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
            actions = recorded_actions(data["actions"], seats, game_action_from_json)
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


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A whole table game as data. `loads_game(dumps_game(r)) == r`; `game_from_record(r)` replays it."""

    rules: Rules
    seed: int | str
    hands: tuple[GameHandRecord, ...]
    result: dict[str, Any] | None

    @property
    def game(self) -> str:
        """The game's name (`gin3`, `gin4_teams` or `rummy`)."""
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
        return dumps_game(self)

    @classmethod
    def from_json(cls, data: Any) -> GameRecord:
        if not isinstance(data, dict):
            raise RecordError("a game record must be a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"not a game record: format is {data.get('format')!r}, expected {FORMAT!r}")
        if data.get("version") != VERSION:
            raise RecordError(f"unsupported game record version {data.get('version')!r}")
        try:
            rules = Rules.from_json(data["rules"])
            if data["game"] != rules.game:
                raise RecordError(
                    f"the record says game {data['game']!r} but its rules are for {rules.game!r}"
                )
            if rules.game == "gin":
                raise RecordError("two-player Gin is recorded as a match record (format 'ginrummy-match')")
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


def dumps_game(record: GameRecord) -> str:
    """A game record as canonical JSON text."""
    return canonical_text(record.to_json())


def loads_game(text: str | bytes) -> GameRecord:
    """A game record from JSON text; `dumps_game(loads_game(x)) == x` for text `dumps_game` wrote."""
    return GameRecord.from_json(record_json(text))


class _Replayable(Protocol):
    @property
    def hand_number(self) -> int: ...

    @property
    def result(self) -> Any: ...

    def apply(self, action: GameAction, seat: int) -> Any: ...

    def deal_summary(self, hand_number: int) -> tuple[tuple[int, ...], int, dict[str, Any] | None]: ...


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
    """A game made by `make` (a table game's class) dealt from `seeds`, the record's deals in
    order, then from the record's own seed, with the record's first dealer, and every recorded
    action replayed and checked (`replay_hands`)."""

    def source(index: int) -> int:
        return seeds[index] if index < len(seeds) else deal_seed(record.seed, index)

    first = record.hands[0].dealer if record.hands else None
    game = make(record.rules, seed=record.seed, seed_source=source, first_dealer=first)
    replay_hands(game, record)
    return game
