"""Player actions and their JSON form (PROTOCOL.md ACTION)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from .cards import Card, CardError, parse_card

__all__ = [
    "Action",
    "ActionError",
    "Pass",
    "Draw",
    "Discard",
    "Knock",
    "BigGin",
    "action_from_json",
    "parse_action",
]


class ActionError(ValueError):
    """A message that does not describe an action (unknown type, missing or bad field)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """Refuse the first upcard (offer phase)."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "pass"}

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw the top card of the stock or of the discard pile."""

    source: Literal["stock", "discard"]

    def __post_init__(self) -> None:
        if self.source not in ("stock", "discard"):
            raise ActionError(f"draw source must be 'stock' or 'discard', got {self.source!r}")

    def to_json(self) -> dict[str, Any]:
        return {"type": "draw", "source": self.source}

    def __str__(self) -> str:
        return f"draw {self.source}"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard a card face up, ending the turn."""

    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"type": "discard", "card": str(self.card)}

    def __str__(self) -> str:
        return f"discard {self.card}"


@dataclass(frozen=True, slots=True)
class Knock:
    """Discard a card face down and end the hand (Gin when no deadwood remains)."""

    card: Card

    def to_json(self) -> dict[str, Any]:
        return {"type": "knock", "card": str(self.card)}

    def __str__(self) -> str:
        return f"knock {self.card}"


@dataclass(frozen=True, slots=True)
class BigGin:
    """Big Gin variant: end the hand with all eleven cards melded."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "big_gin"}

    def __str__(self) -> str:
        return "big gin"


Action = Pass | Draw | Discard | Knock | BigGin

PASS = Pass()
DRAW_STOCK = Draw("stock")
DRAW_DISCARD = Draw("discard")
BIG_GIN = BigGin()


def _card_field(data: dict[str, Any]) -> Card:
    if "card" not in data:
        raise ActionError(f"a {data.get('type')} action needs a 'card', e.g. \"7H\"")
    try:
        return parse_card(data["card"])
    except CardError as exc:
        raise ActionError(str(exc)) from None


def action_from_json(data: Any) -> Action:
    """The action a PROTOCOL.md ACTION object (or its JSON text) describes.

    >>> action_from_json({"type": "discard", "card": "7h"})
    Discard(card=Card.parse('7H'))
    """
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise ActionError(f"action is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ActionError(f"an action must be a JSON object, got {data!r}")
    kind = data.get("type")
    if kind == "pass":
        return PASS
    if kind == "draw":
        source = data.get("source")
        if source == "stock":
            return DRAW_STOCK
        if source == "discard":
            return DRAW_DISCARD
        raise ActionError(f"draw source must be 'stock' or 'discard', got {source!r}")
    if kind == "discard":
        return Discard(_card_field(data))
    if kind == "knock":
        return Knock(_card_field(data))
    if kind == "big_gin":
        return BIG_GIN
    raise ActionError(f"unknown action type {kind!r}; expected pass, draw, discard, knock or big_gin")


def parse_action(text: str) -> Action:
    """Parse a short text form: `pass`, `draw stock`, `stock`, `discard 7H`, `knock 7H`, `big gin`."""
    words = text.strip().split()
    if not words:
        raise ActionError("empty action")
    head, rest = words[0].lower(), [w.lower() if w.isalpha() and len(w) > 3 else w for w in words[1:]]
    try:
        if head == "pass" and not rest:
            return PASS
        if head in ("stock", "s") and not rest:
            return DRAW_STOCK
        if head in ("upcard", "take", "pile", "u") and not rest:
            return DRAW_DISCARD
        if head == "draw" and len(rest) == 1 and rest[0] in ("stock", "discard"):
            return DRAW_STOCK if rest[0] == "stock" else DRAW_DISCARD
        if head in ("discard", "d") and len(rest) == 1:
            return Discard(parse_card(rest[0]))
        if head in ("knock", "k", "gin") and len(rest) == 1:
            return Knock(parse_card(rest[0]))
        if (head == "big" and rest == ["gin"]) or head == "big_gin":
            return BIG_GIN
        if not rest and len(head) in (2, 3):
            return Discard(parse_card(head))
    except CardError as exc:
        raise ActionError(str(exc)) from None
    raise ActionError(f"cannot read {text!r}: try 'stock', 'upcard', 'pass', 'discard 7H', 'knock 7H'")
