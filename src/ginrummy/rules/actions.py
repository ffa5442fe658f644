"""Player actions and their JSON form (docs/protocol.md ACTION, Rummy's melds and layoffs included)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from .cards import CARDS, Card, CardError, CardSet, parse_card, parse_cards

__all__ = [
    "Action",
    "ActionError",
    "Pass",
    "Draw",
    "Discard",
    "Knock",
    "BigGin",
    "LayMeld",
    "LayOff",
    "GameAction",
    "action_from_json",
    "game_action_from_json",
    "parse_action",
    "parse_game_action",
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


@dataclass(frozen=True, slots=True)
class LayMeld:
    """Rummy: lay a meld from the hand face up on the table."""

    cards: CardSet

    def to_json(self) -> dict[str, Any]:
        return {"type": "meld", "cards": self.cards.to_json()}

    def __str__(self) -> str:
        return f"meld {self.cards}"


@dataclass(frozen=True, slots=True)
class LayOff:
    """Rummy: add a card from the hand to meld number `meld` on the table (any player's)."""

    card: Card
    meld: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "layoff", "card": str(self.card), "meld": self.meld}

    def __str__(self) -> str:
        return f"layoff {self.card} {self.meld}"


#: The actions of two-player Gin (docs/protocol.md version 1).
Action = Pass | Draw | Discard | Knock | BigGin
#: Every action of every game: Gin's plus Rummy's melds and layoffs.
GameAction = Pass | Draw | Discard | Knock | BigGin | LayMeld | LayOff

PASS = Pass()
DRAW_STOCK = Draw("stock")
DRAW_DISCARD = Draw("discard")
BIG_GIN = BigGin()
#: The discard and the knock of each card, by card index (actions are values: hosts and
#: players share these instead of building one per move).
DISCARDS: tuple[Discard, ...] = tuple(Discard(c) for c in CARDS)
KNOCKS: tuple[Knock, ...] = tuple(Knock(c) for c in CARDS)


def _card_field(data: dict[str, Any]) -> Card:
    if "card" not in data:
        raise ActionError(f"a {data.get('type')} action needs a 'card', e.g. \"7H\"")
    try:
        return parse_card(data["card"])
    except CardError as exc:
        raise ActionError(str(exc)) from None


def _action_json(data: Any) -> Any:
    """An ACTION's JSON, given as it is or as its JSON text; `ActionError` if the text is not JSON."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise ActionError(f"action is not valid JSON: {exc}") from None
    return data


def action_from_json(data: Any) -> Action:
    """The action a docs/protocol.md ACTION object (or its JSON text) describes.

    >>> action_from_json({"type": "discard", "card": "7h"})
    Discard(card=Card.parse('7H'))
    """
    data = _action_json(data)
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


def game_action_from_json(data: Any) -> GameAction:
    """Any game's action from its JSON (Gin's actions, and Rummy's `meld` and `layoff`).

    >>> game_action_from_json({"type": "layoff", "card": "9h", "meld": 2})
    LayOff(card=Card.parse('9H'), meld=2)
    """
    data = _action_json(data)
    if isinstance(data, dict) and data.get("type") == "meld":
        cards = data.get("cards")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise ActionError('a meld action needs "cards", a list like ["7H", "8H", "9H"]')
        try:
            return LayMeld(parse_cards(cards))
        except CardError as exc:
            raise ActionError(str(exc)) from None
    if isinstance(data, dict) and data.get("type") == "layoff":
        meld = data.get("meld")
        if not isinstance(meld, int) or isinstance(meld, bool) or meld < 0:
            raise ActionError(f'a layoff needs "meld", the number of a table meld (0, 1, ...), got {meld!r}')
        return LayOff(_card_field(data), meld)
    try:
        return action_from_json(data)
    except ActionError as exc:
        if str(exc).startswith("unknown action type"):
            kind = data.get("type") if isinstance(data, dict) else None
            raise ActionError(
                f"unknown action type {kind!r}; expected pass, draw, discard, knock, big_gin, meld or layoff"
            ) from None
        raise


def parse_game_action(text: str) -> GameAction:
    """Parse a short text form of any game's action: those of `parse_action`, plus Rummy's
    `meld 7H 8H 9H` and `layoff 9H 2` (card, then the table meld's number)."""
    words = text.strip().split()
    if words and words[0].lower() in ("meld", "m"):
        if len(words) < 4:
            raise ActionError("a meld needs three or more cards, e.g. 'meld 7H 8H 9H'")
        try:
            return LayMeld(parse_cards(words[1:]))
        except CardError as exc:
            raise ActionError(str(exc)) from None
    if words and words[0].lower() in ("layoff", "lay") and len(words) == 3:
        if not words[2].isdigit():
            raise ActionError(
                f"cannot read {text!r}: a layoff names a card and a table meld number, e.g. 'layoff 9H 2'"
            )
        try:
            return LayOff(parse_card(words[1]), int(words[2]))
        except CardError as exc:
            raise ActionError(str(exc)) from None
    return parse_action(text)


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
