"""What one Rummy seat may know: its own hand, the table melds, the discard pile, and nothing hidden."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .actions import ActionError, Draw, GameAction, game_action_from_json
from .cards import CARDS, Card, CardError, CardSet, parse_card, parse_cards
from .rummy import RummyHand, RummyHandResult, RummyPhase, TableMeld
from .variants import Rules, RulesError
from .views import SeatView, ViewError, view_object

__all__ = ["RummyEvent", "RummyView", "build_rummy_view"]


@dataclass(frozen=True, slots=True)
class RummyEvent:
    """One action of the hand as a seat saw it: a draw names its card only when the seat saw
    it (every take from the discard pile; its own stock draws). Melds, layoffs and discards
    are face up, so their cards are in the action."""

    seat: int
    action: GameAction
    card: Card | None = None
    turnover: bool = False  # this stock draw first turned the discard pile over

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "action": self.action.to_json()}
        if self.card is not None:
            data["card"] = str(self.card)
        if self.turnover:
            data["turnover"] = True
        return data

    @classmethod
    def from_json(cls, data: Any, number: int = 0) -> RummyEvent:
        """Parse history entry number `number`; raise `ViewError` naming the entry and what is wrong."""
        if not isinstance(data, dict):
            raise ViewError(f"history entry {number} must be an object, got {data!r}")
        if "seat" not in data or "action" not in data:
            missing = "seat" if "seat" not in data else "action"
            raise ViewError(f"history entry {number} is missing the field {missing!r}")
        card = data.get("card")
        return cls(
            seat=int(data["seat"]),
            action=game_action_from_json(data["action"]),
            card=parse_card(card) if card is not None else None,
            turnover=bool(data.get("turnover", False)),
        )


@dataclass(frozen=True, slots=True)
class RummyView(SeatView):
    """One seat's knowledge of a Rummy hand (docs/protocol.md, version 2 VIEW for `rummy`).

    `hand_counts` gives how many cards each seat holds, `known` the cards each seat was
    seen taking from the discard pile and still holds, `table` the melds laid (public), and
    `result`, once the hand is over, how it ended with every seat's cards left and payment.
    """

    seat: int
    players: int
    dealer: int
    hand_number: int
    scores: tuple[int, ...]
    rules: Rules
    phase: RummyPhase
    to_act: int | None
    hand: CardSet
    hand_counts: tuple[int, ...]
    table: tuple[TableMeld, ...]
    discard_pile: tuple[Card, ...]
    stock_count: int
    turnovers: int
    known: tuple[CardSet, ...]
    history: tuple[RummyEvent, ...]
    legal: tuple[GameAction, ...]
    result: RummyHandResult | None = None

    game = "rummy"

    def to_json(self) -> dict[str, Any]:
        """The VIEW object of protocol version 2 for Rummy."""
        data, history = self.to_json_parts()
        legal, result = data.pop("legal"), data.pop("result")  # after the history, as always
        data["rules"] = self.rules.to_json()
        data["history"] = [event.to_json() for event in history]
        data["legal"], data["result"] = legal, result
        return data

    def to_json_parts(self) -> tuple[dict[str, Any], tuple[RummyEvent, ...]]:
        """`to_json()` without its `rules` and `history`, and the history's typed entries: a host
        that sends views often encodes the rules once and the history as it grows (an entry never
        changes), then adds both under their keys."""
        result = self.result
        return {
            "game": "rummy",
            "seat": self.seat,
            "players": self.players,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "phase": self.phase,
            "to_act": self.to_act,
            "hand": self.hand.to_json(),
            "hand_counts": list(self.hand_counts),
            "table": [meld.to_json() for meld in self.table],
            "discard_pile": [str(c) for c in self.discard_pile],
            "stock_count": self.stock_count,
            "turnovers": self.turnovers,
            "known": [cards.to_json() for cards in self.known],
            "legal": [a.to_json() for a in self.legal],
            "result": None
            if result is None
            else {
                **result.to_json(),
                "multiplier": result.multiplier,
                "left": [cards.to_json() for cards in result.left],
            },
        }, self.history

    def dumps(self) -> str:
        """The VIEW as one line of JSON."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> RummyView:
        """Parse a Rummy VIEW object (or its JSON text); raise `ViewError` naming what is wrong."""
        data = view_object(data)
        if data.get("game") != "rummy":
            raise ViewError(f"not a Rummy view: game is {data.get('game')!r}")
        try:
            phase = data["phase"]
            if phase not in ("draw", "play", "over"):
                raise ViewError(f"unknown phase {phase!r}")
            result_data = data["result"]
            result = None
            if result_data is not None:
                result = RummyHandResult(
                    outcome=str(result_data["outcome"]),
                    winner=None if result_data["winner"] is None else int(result_data["winner"]),
                    payments=tuple(int(p) for p in result_data["payments"]),
                    left=tuple(parse_cards(cards) for cards in result_data["left"]),
                    multiplier=int(result_data["multiplier"]),
                )
            to_act = data["to_act"]
            return cls(
                seat=int(data["seat"]),
                players=int(data["players"]),
                dealer=int(data["dealer"]),
                hand_number=int(data["hand_number"]),
                scores=tuple(int(s) for s in data["scores"]),
                rules=Rules.from_json(data["rules"]),
                phase=phase,
                to_act=None if to_act is None else int(to_act),
                hand=parse_cards(data["hand"]),
                hand_counts=tuple(int(n) for n in data["hand_counts"]),
                table=tuple(
                    TableMeld(
                        parse_cards(meld["cards"]),
                        int(meld["owner"]),
                        tuple((parse_card(a["card"]), int(a["seat"])) for a in meld["added"]),
                    )
                    for meld in data["table"]
                ),
                discard_pile=tuple(parse_card(c) for c in data["discard_pile"]),
                stock_count=int(data["stock_count"]),
                turnovers=int(data["turnovers"]),
                known=tuple(parse_cards(cards) for cards in data["known"]),
                history=tuple(RummyEvent.from_json(e, n) for n, e in enumerate(data["history"])),
                legal=tuple(game_action_from_json(a) for a in data["legal"]),
                result=result,
            )
        except KeyError as exc:
            raise ViewError(f"view is missing the field {exc.args[0]!r}") from None
        except (TypeError, ValueError, CardError, ActionError, RulesError) as exc:
            if isinstance(exc, ViewError):
                raise
            raise ViewError(f"bad Rummy view: {exc}") from None


def _event(hand: RummyHand, index: int, seat: int) -> RummyEvent:
    step = hand.steps[index]
    action = step.action
    card = None
    if isinstance(action, Draw) and (action.source == "discard" or step.seat == seat):
        card = step.card
    return RummyEvent(step.seat, action, card, step.turnover)


def _history(hand: RummyHand, seat: int) -> tuple[RummyEvent, ...]:
    """The seat's history, reusing the entries built for its earlier views (none ever changes)."""
    cache = hand.public_history[seat]
    while len(cache) < len(hand.steps):
        cache.append(_event(hand, len(cache), seat))
    return tuple(cache)


def build_rummy_view(hand: RummyHand, seat: int, *, hand_number: int, scores: tuple[int, ...]) -> RummyView:
    """The view of `hand` for `seat`: its own cards, the public table, and nothing hidden."""
    n = hand.players
    if not (type(seat) is int and 0 <= seat < n):
        raise ValueError(f"seat must be 0 to {n - 1}, got {seat!r}")
    over = hand.phase == "over"
    return RummyView(
        seat=seat,
        players=n,
        dealer=hand.dealer,
        hand_number=hand_number,
        scores=scores,
        rules=hand.rules,
        phase=hand.phase,
        to_act=None if over else hand.to_act,
        hand=CardSet.from_mask(hand.hands[seat]),
        hand_counts=tuple(h.bit_count() for h in hand.hands),
        table=hand.table_melds(),
        discard_pile=tuple(CARDS[i] for i in hand.discard_pile),
        stock_count=len(hand.stock),
        turnovers=hand.turnovers,
        known=tuple(CardSet.from_mask(k) for k in hand.known),
        history=_history(hand, seat),
        legal=tuple(hand.legal_actions()) if not over and hand.to_act == seat else (),
        result=hand.result if over else None,
    )
