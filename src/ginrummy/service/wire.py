"""The wire: every message a seat or a spectator receives, built from the game's views and nothing else.

A state message is `{"type": "state", "version", "match", "view", "last_hand", "result"}`: `view`
is `game.view(seat).to_json()` (the VIEW of `rules`, whatever the game), `last_hand` the seat's
view of the last finished deal, `match` public metadata from the live match, `result` the game's.
No other path from the game's state to the wire exists, so a seat is sent exactly what the rules
let it see. What the platform adds is the deal's proof: before a deal each seat sees the SHA-256
commitment of its seed; the seed comes with the end of that deal (a void deal's only when the
match is over: a dead hand is thrown in unseen).

Two-player Gin keeps the shape it always had (the commitment in `match`, the seed in the
showdown), and its texts are built from caches (the history grows by one entry a move; the rules
and the metadata rarely change): a server holding hundreds of tables sends them cheaply. The other
games put the commitments of the deal being played in `match.commitments` and the seeds of a
finished deal in its view's `deal`.

A spectator gets only what every seat sees: the part all seats' views share (`spectate.common`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Hashable, Sequence
from functools import reduce
from typing import Any, Protocol, TypeVar

from ..rules import Game, GinTableView, Match, Rules, RummyView, seed_commitment
from .errors import encodable
from .spectate import common, spectator_view

__all__ = ["HistoryTexts", "Wire", "dumps", "error_message", "wire_for"]

T = TypeVar("T")

# One encoder for every message: json.dumps with options builds a new one on each call.
dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def error_message(code: str, message: str) -> str:
    """The {"type": "error"} message text (always encodable, whatever the message quotes)."""
    return dumps({"type": "error", "code": code, "message": encodable(message)})


class Wire(Protocol):
    """Encodes one live match's messages; `meta` is the public `match` object without the rules."""

    def waiting(self, meta: dict[str, Any], version: int) -> dict[str, Any]: ...

    def state(self, seat: int, meta: dict[str, Any], version: int, ending: Any) -> dict[str, Any]: ...

    def state_text(self, seat: int, meta: dict[str, Any], version: int, ending: Any) -> str: ...

    def spectator(self, meta: dict[str, Any], version: int, ending: Any) -> dict[str, Any]: ...


@functools.lru_cache(maxsize=64)
def rules_texts(rules: Rules) -> tuple[dict[str, Any], str]:
    """The rules as JSON and as JSON text: a tournament's matches share their rules, so each is
    encoded once (the dict is only ever read)."""
    data = rules.to_json()
    return data, dumps(data)


class HistoryTexts:
    """Histories as JSON text, each kept per key (a seat, a seat's table) and grown by the entries
    new since the last state: while a hand is played an entry never changes for a given seat, so
    each is encoded once. A new `epoch` (another deal; a hand now over, when a face-down knock
    shows its card) starts the text afresh."""

    def __init__(self) -> None:
        self._texts: dict[Hashable, tuple[Hashable, int, str]] = {}  # key -> (epoch, entries, text)

    def text(self, key: Hashable, epoch: Hashable, entries: Sequence[T], encode: Callable[[T], str]) -> str:
        """The JSON array of `entries` (each as `encode` gives it)."""
        cached, count, text = self._texts.get(key, (None, 0, ""))
        if cached != epoch or count > len(entries):
            count, text = 0, ""
        if count < len(entries):
            new = ",".join(encode(entry) for entry in entries[count:])
            text = f"{text},{new}" if text else new
            count = len(entries)
        self._texts[key] = (epoch, count, text)
        return f"[{text}]"


class _Entry(Protocol):
    """A history's entry (two-player Gin's `PublicStep`, Rummy's event)."""

    def to_json(self) -> Any: ...


def _entry_text(entry: _Entry) -> str:
    return dumps(entry.to_json())


def wire_for(game: Game) -> Wire:
    """The encoder of `game`'s messages."""
    return GinWire(game) if isinstance(game, Match) else TableWire(game)


def _last_finished(game: Game) -> int:
    """The number of the last finished deal (0: none yet)."""
    return game.hand_number if game.is_over else game.hand_number - 1


class GinWire:
    """Two-player Gin's messages, exactly as the table pages and engines have always read them."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self._rules_json, self._rules_text = rules_texts(match.rules)
        self._last_hand_cache: dict[tuple[int, int], str] = {}
        self._histories = HistoryTexts()
        self._meta_cache: list[tuple[tuple[Any, ...], str]] = [((), ""), ((), "")]  # per seat: (key, text)
        self._commitment: tuple[int, str] = (-1, "")  # (deal seed, its commitment): one sha256 per hand

    def _reveal_seed(self, showdown: dict[str, Any] | None, seed: int) -> dict[str, Any] | None:
        # Only for finished hands: the seed lets anyone check the deal against the commitment. A
        # void hand is thrown in unseen, as at a real table: its seed waits for the match's end.
        if showdown is None:
            return None
        if showdown["outcome"] == "void" and not self.match.is_over:
            return showdown
        return {**showdown, "seed": str(seed), "commitment": seed_commitment(seed)}

    def _last_hand(self, seat: int, number: int) -> str:
        # A finished hand never changes: encode its view once per seat (text only, few objects to keep).
        key = (seat, number)
        cached = self._last_hand_cache.get(key)
        if cached is None:
            data = self.match.hand_view(seat, number).to_json()
            data["showdown"] = self._reveal_seed(data["showdown"], self.match.hands[number - 1].seed)
            if len(self._last_hand_cache) > 8:
                self._last_hand_cache.clear()
            cached = self._last_hand_cache[key] = dumps(data)
        return cached

    def _commitment_of(self, seed: int) -> str:
        cached_seed, text = self._commitment
        if cached_seed != seed:
            text = seed_commitment(seed)
            self._commitment = (seed, text)
        return text

    def waiting(self, meta: dict[str, Any], version: int) -> dict[str, Any]:
        """A room before every seat is taken: nothing is dealt for anyone yet, so the state has no
        view at all (no card, no upcard, no dealer) and no commitment."""
        return {
            "type": "state",
            "version": version,
            "match": {**meta, "commitment": None, "rules": self._rules_json},
            "view": None,
            "last_hand": None,
            "result": None,
        }

    def _result(self, ending: Any) -> Any:
        result = self.match.result
        return result.to_json() if result is not None else ending

    def state(self, seat: int, meta: dict[str, Any], version: int, ending: Any) -> dict[str, Any]:
        """The state message for `seat`: its VIEW, the last finished hand's VIEW, public metadata."""
        match = self.match
        hand = match.hand
        view = match.view(seat).to_json()
        if hand.phase == "over":
            view["showdown"] = self._reveal_seed(view["showdown"], hand.seed)
        last = _last_finished(match)
        return {
            "type": "state",
            "version": version,
            "match": {**meta, "commitment": self._commitment_of(hand.seed), "rules": match.rules.to_json()},
            "view": view,
            "last_hand": json.loads(self._last_hand(seat, last)) if last >= 1 else None,
            "result": self._result(ending),
        }

    def _meta_text(self, seat: int, meta: dict[str, Any]) -> str:
        """The `match` object as text without its closing brace; re-encoded only when a field changed."""
        key = (
            *(value for name, value in meta.items() if name not in ("players", "rule_changes")),
            *(tuple(p.values()) for p in meta["players"]),
        )
        cached_key, text = self._meta_cache[seat]
        if cached_key != key:
            text = dumps(meta)[:-1]
            self._meta_cache[seat] = (key, text)
        return text

    def state_text(self, seat: int, meta: dict[str, Any], version: int, ending: Any) -> str:
        """`state(seat)` as JSON text, with the parts that rarely change encoded once."""
        match = self.match
        hand = match.hand
        view, history = match.view(seat).to_json_parts()
        over = hand.phase == "over"
        if over:
            view["showdown"] = self._reveal_seed(view["showdown"], hand.seed)
        last = _last_finished(match)
        meta["commitment"] = self._commitment_of(hand.seed)
        rules = self._rules_text
        return "".join(
            (
                '{"type":"state","version":',
                str(version),
                ',"match":',
                self._meta_text(seat, meta),
                ',"rules":',
                rules,
                '},"view":',
                dumps(view)[:-1],
                ',"rules":',
                rules,
                ',"history":',
                self._histories.text(seat, (view["hand_number"], over), history, _entry_text),
                '},"last_hand":',
                self._last_hand(seat, last) if last >= 1 else "null",
                ',"result":',
                dumps(self._result(ending)),
                "}",
            )
        )

    def spectator(self, meta: dict[str, Any], version: int, ending: Any) -> dict[str, Any]:
        """What a spectator sees: the common part of both seats' views, never the match state itself."""
        match = self.match
        view = spectator_view(match.view(0), match.view(1))
        finished = len(match.hands) if match.hand.phase == "over" else len(match.hands) - 1
        last = None
        if finished >= 1 and match.hand.phase != "over":
            last = spectator_view(match.hand_view(0, finished), match.hand_view(1, finished))["showdown"]
        return {
            "type": "spectate",
            "version": version,
            "match": {**meta, "target": match.rules.target},
            "view": view,
            "last_showdown": last,
            "result": self._result(ending),
        }


#: The keys of a Rummy view that differ from seat to seat; every other one is the same for all.
_OWN_KEYS = ("seat", "hand", "legal")


class TableWire:
    """The messages of three-player Gin, team Gin and Rummy: the views' JSON and the deals' proofs.

    A finished deal's view is encoded once per seat; the deal being played is encoded with each
    hand's history as it grows (a hand can run to hundreds of steps, and each entry never changes),
    the rules once, and in Rummy the part every seat's view shares (the table, the pile, the
    counts) once a version, whichever seat is sent it first (`benchmarks/bench_wire.py`).
    """

    def __init__(self, game: Game) -> None:
        self.game = game
        self._rules_json, self._rules_text = rules_texts(game.rules)
        self._finished_cache: dict[tuple[int, int, bool], str] = {}
        # each seat's history of the deal (Rummy), or of each of its tables' hands (Gin)
        self._histories = HistoryTexts()
        self._commitments: tuple[tuple[int, ...], list[str]] = ((), [])
        self._shared: tuple[int, str] = (-1, "")  # (version, the shared keys of a Rummy view as text)

    def _commitments_of(self, number: int) -> list[str]:
        seeds = self.game.deal_summary(number)[0]
        cached, texts = self._commitments
        if cached != seeds:
            texts = [seed_commitment(seed) for seed in seeds]
            self._commitments = (seeds, texts)
        return texts

    def _deal(self, number: int) -> dict[str, Any]:
        """The proof of finished deal `number`: its seeds (a void hand's withheld until the match
        is over) and their commitments, one per hand dealt."""
        seeds, _dealer, result = self.game.deal_summary(number)
        assert result is not None
        hands = result.get("hands") or [result]  # team Gin: a result per hand of the round
        over = self.game.is_over
        return {
            "seeds": [
                str(seed) if hand["outcome"] != "void" or over else None
                for seed, hand in zip(seeds, hands, strict=True)
            ],
            "commitments": [seed_commitment(seed) for seed in seeds],
        }

    def _finished_text(self, seat: int, number: int) -> str:
        """`seat`'s view of finished deal `number` with its proof, as text (it never changes, but
        for the void seeds shown once the match is over)."""
        game = self.game
        key = (seat, number, game.is_over)
        cached = self._finished_cache.get(key)
        if cached is None:
            data = game.hand_view(seat, number).to_json()
            data["deal"] = self._deal(number)
            if len(self._finished_cache) > 16:
                self._finished_cache.clear()
            cached = self._finished_cache[key] = dumps(data)
        return cached

    def _playing_text(self, seat: int, version: int) -> str:
        """`seat`'s view of the deal being played at `version` of the match, as text."""
        view = self.game.view(seat)
        if isinstance(view, GinTableView):
            return self._gin_table_text(view)
        if not isinstance(view, RummyView):
            return dumps(view.to_json())
        data, entries = view.to_json_parts()
        history = self._histories.text(seat, view.hand_number, entries, _entry_text)
        own = {key: data.pop(key) for key in _OWN_KEYS}
        cached_version, shared = self._shared
        if cached_version != version:
            shared = dumps(data)[1:-1]
            self._shared = (version, shared)
        rules = rules_texts(view.rules)[1]
        return f'{dumps(own)[:-1]},{shared},"rules":{rules},"history":{history}}}'

    def _gin_table_text(self, view: GinTableView) -> str:
        """A three-player or team Gin view of the deal being played, as text: each hand's history
        encoded as it grows (an entry never changes until the hand is over, when a face-down
        knock shows its card and the text is made afresh), the rules once."""
        tables = []
        for index, table in enumerate(view.tables):
            epoch = (view.hand_number, table.phase == "over")
            history = self._histories.text((view.seat, index), epoch, table.history, dumps)
            hand = table.hand.to_json() if table.hand is not None else None
            tables.append(
                f'{dumps(table.to_json_parts())[:-1]},"history":{history},'
                f'"hand":{dumps(hand)},"showdown":{dumps(table.showdown)}}}'
            )
        head = {
            "game": view.game,
            "seat": view.seat,
            "players": view.players,
            "dealer": view.dealer,
            "hand_number": view.hand_number,
            "scores": list(view.scores),
        }
        legal = [action.to_json() for action in view.legal]
        result = view.round.to_json() if view.round is not None else None
        return (
            f'{dumps(head)[:-1]},"rules":{rules_texts(view.rules)[1]},"tables":[{",".join(tables)}],'
            f'"legal":{dumps(legal)},"round":{dumps(result)}}}'
        )

    def _view_text(self, seat: int, number: int, version: int) -> str:
        game = self.game
        if number == game.hand_number and not game.is_over:
            return self._playing_text(seat, version)
        return self._finished_text(seat, number)

    def _result(self, ending: Any) -> Any:
        result = self.game.result
        return result.to_json() if result is not None else ending

    def waiting(self, meta: dict[str, Any], version: int) -> dict[str, Any]:
        """A room before every seat is taken: nothing dealt, nothing to see."""
        return {
            "type": "state",
            "version": version,
            "match": {**meta, "commitments": [], "rules": self._rules_json},
            "view": None,
            "last_hand": None,
            "result": None,
        }

    def state(self, seat: int, meta: dict[str, Any], version: int, ending: Any) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(self.state_text(seat, meta, version, ending))
        return parsed

    def state_text(self, seat: int, meta: dict[str, Any], version: int, ending: Any) -> str:
        game = self.game
        number = game.hand_number
        last = _last_finished(game)
        meta["commitments"] = self._commitments_of(number) if not game.is_over else []
        return "".join(
            (
                '{"type":"state","version":',
                str(version),
                ',"match":',
                dumps(meta)[:-1],
                ',"rules":',
                self._rules_text,
                '},"view":',
                self._view_text(seat, number, version),
                ',"last_hand":',
                self._finished_text(seat, last) if last >= 1 else "null",
                ',"result":',
                dumps(self._result(ending)),
                "}",
            )
        )

    def spectator(self, meta: dict[str, Any], version: int, ending: Any) -> dict[str, Any]:
        """The part of the table every seat sees alike: no hand, no card only one seat saw."""
        game = self.game
        seats = range(game.seat_count)
        number = game.hand_number
        last = _last_finished(game)
        view = reduce(common, [json.loads(self._view_text(s, number, version)) for s in seats])
        last_hand = (
            reduce(common, [json.loads(self._finished_text(s, last)) for s in seats]) if last >= 1 else None
        )
        return {
            "type": "spectate",
            "version": version,
            "match": {**meta, "target": game.rules.target},
            "view": view,
            "last_hand": last_hand,
            "result": self._result(ending),
        }
