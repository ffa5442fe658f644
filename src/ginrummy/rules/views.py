"""What one seat may know, as the VIEW of PROTOCOL.md, built from a hand and nothing more."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .actions import Action, ActionError, Draw, Knock, action_from_json
from .cards import CARDS, Card, CardError, CardSet, parse_card, parse_cards
from .hand import Hand, Phase
from .variants import Rules, RulesError

__all__ = ["View", "ViewError", "build_view"]


class ViewError(ValueError):
    """JSON that is not a valid VIEW."""


@dataclass(frozen=True, slots=True)
class View:
    """One seat's knowledge of the table (PROTOCOL.md VIEW)."""

    seat: int
    dealer: int
    hand_number: int
    scores: tuple[int, int]
    rules: Rules
    knock_limit: int
    phase: Phase
    hand: CardSet
    discard_pile: tuple[Card, ...]
    stock_count: int
    opponent_known: CardSet
    history: tuple[dict[str, Any], ...]
    legal: tuple[Action, ...]
    showdown: dict[str, Any] | None = field(default=None)

    @property
    def upcard(self) -> Card | None:
        """The top of the discard pile."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def my_turn(self) -> bool:
        """True when this seat has something to do."""
        return bool(self.legal)

    def to_json(self) -> dict[str, Any]:
        """The VIEW object of PROTOCOL.md."""
        rules = self.rules.to_json()
        return {
            "seat": self.seat,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "rules": rules,
            "knock_limit": self.knock_limit,
            "phase": self.phase,
            "hand": self.hand.to_json(),
            "discard_pile": [str(c) for c in self.discard_pile],
            "stock_count": self.stock_count,
            "opponent_known": self.opponent_known.to_json(),
            "history": [dict(h) for h in self.history],
            "legal": [a.to_json() for a in self.legal],
            "showdown": self.showdown,
        }

    def dumps(self) -> str:
        """The VIEW as one line of JSON."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> View:
        """Parse a VIEW object (or its JSON text); raise `ViewError` naming what is wrong."""
        if isinstance(data, (str, bytes)):
            try:
                data = json.loads(data)
            except ValueError as exc:
                raise ViewError(f"view is not valid JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ViewError(f"a view must be a JSON object, got {type(data).__name__}")
        try:
            scores = data["scores"]
            if not (isinstance(scores, list) and len(scores) == 2):
                raise ViewError("scores must be a list of two numbers")
            phase = data["phase"]
            if phase not in ("offer", "draw", "discard", "over"):
                raise ViewError(f"unknown phase {phase!r}")
            history = data["history"]
            if not isinstance(history, list) or not all(isinstance(h, dict) for h in history):
                raise ViewError("history must be a list of objects")
            return cls(
                seat=int(data["seat"]),
                dealer=int(data["dealer"]),
                hand_number=int(data["hand_number"]),
                scores=(int(scores[0]), int(scores[1])),
                rules=Rules.from_json(data["rules"]),
                knock_limit=int(data["knock_limit"]),
                phase=phase,
                hand=parse_cards(data["hand"]),
                discard_pile=tuple(parse_card(c) for c in data["discard_pile"]),
                stock_count=int(data["stock_count"]),
                opponent_known=parse_cards(data["opponent_known"]),
                history=tuple(dict(h) for h in history),
                legal=tuple(action_from_json(a) for a in data["legal"]),
                showdown=data.get("showdown"),
            )
        except KeyError as exc:
            raise ViewError(f"view is missing the field {exc.args[0]!r}") from None
        except (TypeError, CardError, ActionError, RulesError) as exc:
            raise ViewError(f"bad view: {exc}") from None


def public_step(hand: Hand, index: int, seat: int) -> dict[str, Any]:
    """History entry `index` of `hand` as `seat` may see it."""
    step = hand.steps[index]
    action = step.action
    entry: dict[str, Any] = {"seat": step.seat}
    if isinstance(action, Knock) and step.seat != seat and hand.phase != "over":
        entry["action"] = {"type": "knock"}  # discarded face down
    else:
        entry["action"] = action.to_json()
    if (
        isinstance(action, Draw)
        and step.card is not None
        and (action.source == "discard" or step.seat == seat)
    ):
        entry["card"] = str(step.card)
    return entry


def _history(hand: Hand, seat: int) -> tuple[dict[str, Any], ...]:
    """The seat's history entries, reusing those already built for earlier views.

    Only a knock can change how an entry looks later (its card is shown once the
    hand is over), and a knock is always the last step, so it is never cached.
    """
    cache = hand.public_history[seat]
    steps = hand.steps
    n = len(steps)
    if n and isinstance(steps[-1].action, Knock):
        n -= 1
    while len(cache) < n:
        cache.append(public_step(hand, len(cache), seat))
    if n < len(steps):
        return (*cache, public_step(hand, n, seat))
    return tuple(cache)


def showdown_json(hand: Hand, scores_after: tuple[int, int]) -> dict[str, Any] | None:
    """The showdown block of a finished hand (both hands face up; none for a void hand)."""
    result = hand.result
    if result is None:
        return None
    data: dict[str, Any] = {
        "outcome": result.outcome,
        "scorer": result.scorer,
        "points": result.points,
        "knocker": result.knocker,
        "scores": list(scores_after),
    }
    if result.showdown is None or result.knocker is None:
        return data
    sd = result.showdown
    knocker = result.knocker
    defender = 1 - knocker
    melds: list[list[list[str]]] = [[], []]
    deadwood_cards: list[list[str]] = [[], []]
    deadwood = [0, 0]
    melds[knocker] = [m.to_json() for m in sd.knocker_melds]
    melds[defender] = [m.to_json() for m in sd.defender_melds]
    deadwood_cards[knocker] = sd.knocker_deadwood_cards.to_json()
    deadwood_cards[defender] = sd.defender_deadwood_cards.to_json()
    deadwood[knocker] = sd.knocker_deadwood
    deadwood[defender] = sd.defender_deadwood
    data.update(
        {
            "knock_card": str(CARDS[hand.knock_card]) if hand.knock_card is not None else None,
            "hands": [CardSet.from_mask(hand.hands[0]).to_json(), CardSet.from_mask(hand.hands[1]).to_json()],
            "melds": melds,
            "deadwood_cards": deadwood_cards,
            "deadwood": deadwood,
            "layoffs": [layoff.to_json() for layoff in sd.layoffs],
            "knock_limit": sd.knock_limit,
            "multiplier": sd.multiplier,
            "bonus": sd.bonus,
        }
    )
    return data


def build_view(
    hand: Hand,
    seat: int,
    *,
    hand_number: int,
    scores: tuple[int, int],
) -> View:
    """The VIEW of `hand` for `seat`: its own cards, public cards, and nothing hidden."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, got {seat!r}")
    over = hand.phase == "over"
    return View(
        seat=seat,
        dealer=hand.dealer,
        hand_number=hand_number,
        scores=scores,
        rules=hand.rules,
        knock_limit=hand.knock_limit,
        phase=hand.phase,
        hand=CardSet.from_mask(hand.hands[seat]),
        discard_pile=tuple(CARDS[i] for i in hand.discard_pile),
        stock_count=len(hand.stock),
        opponent_known=CardSet.from_mask(hand.known[1 - seat]),
        history=_history(hand, seat),
        legal=tuple(hand.legal_actions()) if not over and hand.to_act == seat else (),
        showdown=showdown_json(hand, scores) if over else None,
    )
