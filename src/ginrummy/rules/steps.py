"""The steps of a hand: each action as it was applied (`Step`), and as each seat saw it (`PublicStep`).

A seat's view carries its history as public steps; the card of a stock draw is in the drawer's
step only, so no step shows a seat a card it could not see at a real table.
"""

from __future__ import annotations

from typing import Any, Final, Literal, NamedTuple

from .actions import Action
from .cards import CARDS, Card, parse_card

__all__ = [
    "DISCARD_STEPS",
    "PILE_STEPS",
    "PublicStep",
    "STOCK_STEPS",
    "Step",
    "StepKind",
    "StepSource",
    "UNSEEN_STOCK_STEPS",
]


class Step(NamedTuple):
    """One applied action: who acted, what they did, and the card it moved (if any)."""

    seat: int
    action: Action
    card: Card | None


StepKind = Literal["pass", "draw", "discard", "knock", "big_gin"]
StepSource = Literal["stock", "discard"]


class PublicStep:
    """One step of a hand as one seat saw it: who acted, the kind of move, where a draw came
    from, and the card the seat saw (none for the opponent's stock draws).

    Steps are interned like cards (there are a few hundred), so building a view, writing
    its history as JSON and reading it back cost no more than copying a list:
    ``PublicStep(0, "discard", None, Card.parse("KH")) is PublicStep.from_json(...)``.

    >>> from ginrummy.rules import Card
    >>> step = PublicStep(1, "draw", "discard", Card.parse("7S"))
    >>> step.to_json()
    {'seat': 1, 'action': {'type': 'draw', 'source': 'discard'}, 'card': '7S'}
    >>> PublicStep.from_json(step.to_json()) is step
    True
    """

    __slots__ = ("seat", "kind", "source", "card", "_json")

    seat: int
    kind: StepKind
    source: StepSource | None
    card: Card | None
    _json: dict[str, Any]

    def __new__(
        cls, seat: int, kind: StepKind, source: StepSource | None = None, card: Card | None = None
    ) -> PublicStep:
        step = _STEPS.get((seat, kind, source, card))
        if step is None:
            raise ValueError(
                f"no such history step: seat {seat!r}, {kind!r}, source {source!r}, card {card!r}"
            )
        return step

    @classmethod
    def _make(cls, seat: int, kind: StepKind, source: StepSource | None, card: Card | None) -> PublicStep:
        self = object.__new__(cls)
        for name, value in (("seat", seat), ("kind", kind), ("source", source), ("card", card)):
            object.__setattr__(self, name, value)
        if kind == "draw":
            entry: dict[str, Any] = {"seat": seat, "action": {"type": "draw", "source": source}}
            if card is not None:
                entry["card"] = str(card)
        else:
            action: dict[str, Any] = {"type": kind}
            if card is not None:
                action["card"] = str(card)
            entry = {"seat": seat, "action": action}
        object.__setattr__(self, "_json", entry)
        return self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("PublicStep is immutable")

    def __reduce__(self) -> tuple[type[PublicStep], tuple[int, str, str | None, Card | None]]:
        return (PublicStep, (self.seat, self.kind, self.source, self.card))

    def __repr__(self) -> str:
        return f"PublicStep({self.seat!r}, {self.kind!r}, {self.source!r}, {self.card!r})"

    def to_json(self) -> dict[str, Any]:
        """The history entry of docs/protocol.md: ``{"seat", "action", "card"?}`` (a new object;
        its `action` object is shared by every copy of this step: read it, do not change it)."""
        return self._json.copy()

    @classmethod
    def from_json(cls, data: Any) -> PublicStep:
        """Parse a history entry; raise ValueError naming what is wrong."""
        try:
            action = data["action"]
            key = (data["seat"], action["type"], action.get("source"), action.get("card"), data.get("card"))
            step = _BY_JSON.get(key)
        except (TypeError, KeyError, AttributeError):
            step = None
        if step is not None and type(key[0]) is int:
            return step
        return cls._parse(data)

    @classmethod
    def _parse(cls, data: Any) -> PublicStep:
        """`from_json` for entries not written by the rules engine: says what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("action"), dict):
            raise ValueError(f"a history entry must be an object with an action, got {data!r}")
        seat = data.get("seat")
        if type(seat) is not int or seat not in (0, 1):
            raise ValueError(f"a history entry's seat must be 0 or 1, got {seat!r}")
        action = data["action"]
        kind = action.get("type")
        if kind == "draw":
            source = action.get("source")
            if source not in ("stock", "discard"):
                raise ValueError(f"draw source must be 'stock' or 'discard', got {source!r}")
            card = _card_or_none(data.get("card"))
            if card is None and source == "discard":
                raise ValueError("a draw from the discard pile in the history needs its card")
            return cls(seat, "draw", source, card)
        if kind == "discard" or kind == "knock":
            card = _card_or_none(action.get("card"))
            if card is None and kind == "discard":
                raise ValueError("a discard in the history needs its card")
            return cls(seat, kind, None, card)
        if kind == "pass" or kind == "big_gin":
            return cls(seat, kind)
        raise ValueError(f"unknown history action {kind!r}")


def _intern_steps() -> dict[tuple[int, str, str | None, Card | None], PublicStep]:
    steps: dict[tuple[int, str, str | None, Card | None], PublicStep] = {}
    for seat in (0, 1):
        shapes: list[tuple[StepKind, StepSource | None, Card | None]] = [
            ("pass", None, None),
            ("big_gin", None, None),
            ("draw", "stock", None),
            ("knock", None, None),
        ]
        for face in CARDS:
            shapes += [
                ("draw", "stock", face),
                ("draw", "discard", face),
                ("discard", None, face),
                ("knock", None, face),
            ]
        for kind, source, card in shapes:
            steps[(seat, kind, source, card)] = PublicStep._make(seat, kind, source, card)
    return steps


_STEPS: Final = _intern_steps()
# Each step by the fields of its JSON: (seat, type, source, the action's card, the entry's card).
_BY_JSON: Final = {
    (step.seat, step.kind, step.source, step._json["action"].get("card"), step._json.get("card")): step
    for step in _STEPS.values()
}


# The steps as seen, by seat and card index, for the hot path of `Hand._apply_unchecked`.
DISCARD_STEPS: Final = tuple(tuple(_STEPS[(seat, "discard", None, c)] for c in CARDS) for seat in (0, 1))
PILE_STEPS: Final = tuple(tuple(_STEPS[(seat, "draw", "discard", c)] for c in CARDS) for seat in (0, 1))
STOCK_STEPS: Final = tuple(tuple(_STEPS[(seat, "draw", "stock", c)] for c in CARDS) for seat in (0, 1))
UNSEEN_STOCK_STEPS: Final = tuple(_STEPS[(seat, "draw", "stock", None)] for seat in (0, 1))


def _card_or_none(text: Any) -> Card | None:
    return None if text is None else parse_card(text)
