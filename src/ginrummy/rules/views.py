"""What one seat may know, as the VIEW of docs/protocol.md, built from a hand and nothing more."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, cast

from .actions import Action, ActionError, action_from_json
from .cards import CARDS, Card, CardError, CardSet, parse_card, parse_cards
from .fast_core import deadwood_after_discards
from .hand import Hand, Phase
from .showdown import Layoff
from .steps import PublicStep
from .variants import Rules, RulesError

__all__ = ["HandEnd", "PublicStep", "SeatView", "View", "ViewError", "build_view"]

T = TypeVar("T")


class ViewError(ValueError):
    """JSON that is not a valid VIEW."""


def view_object(data: Any) -> dict[str, Any]:
    """A VIEW's JSON object, given as the object or as its JSON text; `ViewError` if it is neither."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as exc:
            raise ViewError(f"view is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ViewError(f"a view must be a JSON object, got {type(data).__name__}")
    return data


class SeatView:
    """What every seat's view of a hand answers alike (two-player Gin's `View`, `RummyView`)."""

    __slots__ = ()
    discard_pile: tuple[Card, ...]
    legal: tuple[Any, ...]

    @property
    def upcard(self) -> Card | None:
        """The top of the discard pile."""
        return self.discard_pile[-1] if self.discard_pile else None

    @property
    def my_turn(self) -> bool:
        """True when this seat has something to do."""
        return bool(self.legal)


@dataclass(frozen=True, slots=True)
class View(SeatView):
    """One seat's knowledge of the table (docs/protocol.md VIEW)."""

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
    history: tuple[PublicStep, ...]
    legal: tuple[Action, ...]
    showdown: HandEnd | None = field(default=None)
    #: `after_discards`, when the referee has already worked it out this turn.
    _after: tuple[tuple[int, int], ...] | None = field(default=None, repr=False, compare=False)

    @property
    def after_discards(self) -> tuple[tuple[int, int], ...]:
        """(card index, least deadwood left after discarding it) for each card of this seat's
        hand, lowest card first (`masks.deadwood_after_discards`): in the discard phase, the
        same table the referee's knock options come from (the card just taken is in it too)."""
        table = self._after
        if table is None:
            table = deadwood_after_discards(self.hand.mask)
            object.__setattr__(self, "_after", table)
        return table

    def to_json(self) -> dict[str, Any]:
        """The VIEW object of docs/protocol.md."""
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
            "history": [h.to_json() for h in self.history],
            "legal": [a.to_json() for a in self.legal],
            "showdown": None if self.showdown is None else self.showdown.to_json(),
        }

    def to_json_parts(self) -> tuple[dict[str, Any], tuple[PublicStep, ...]]:
        """`to_json()` without its `rules` and `history`, and the history's typed entries.

        For a host that sends views often: it encodes the rules once and the history as it
        grows (an entry never changes while a hand is played), then adds both under their keys.
        """
        return {
            "seat": self.seat,
            "dealer": self.dealer,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "knock_limit": self.knock_limit,
            "phase": self.phase,
            "hand": self.hand.to_json(),
            "discard_pile": [str(c) for c in self.discard_pile],
            "stock_count": self.stock_count,
            "opponent_known": self.opponent_known.to_json(),
            "legal": [a.to_json() for a in self.legal],
            "showdown": None if self.showdown is None else self.showdown.to_json(),
        }, self.history

    def dumps(self) -> str:
        """The VIEW as one line of JSON."""
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: Any) -> View:
        """Parse a VIEW object (or its JSON text); raise `ViewError` naming what is wrong."""
        data = view_object(data)
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
            showdown = data.get("showdown")
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
                history=tuple(PublicStep.from_json(h) for h in history),
                legal=tuple(action_from_json(a) for a in data["legal"]),
                showdown=None if showdown is None else HandEnd.from_json(showdown),
            )
        except KeyError as exc:
            raise ViewError(f"view is missing the field {exc.args[0]!r}") from None
        except (TypeError, ValueError, CardError, ActionError, RulesError) as exc:
            if isinstance(exc, ViewError):
                raise
            raise ViewError(f"bad view: {exc}") from None


@dataclass(frozen=True, slots=True)
class HandEnd:
    """How a hand ended, as both seats see it once it is over (docs/protocol.md `showdown`).

    A void hand has only the first five fields. After a knock, Gin or Big Gin both hands are
    face up: pairs are indexed by seat (``hands[0]`` is seat 0's cards).
    """

    outcome: str  # "void", "knock", "gin", "big_gin", "undercut", "tie"
    scorer: int | None
    points: int
    knocker: int | None
    scores: tuple[int, int]
    knock_card: Card | None = None
    hands: tuple[CardSet, CardSet] | None = None
    melds: tuple[tuple[CardSet, ...], tuple[CardSet, ...]] | None = None
    deadwood_cards: tuple[CardSet, CardSet] | None = None
    deadwood: tuple[int, int] | None = None
    layoffs: tuple[Layoff, ...] = ()
    knock_limit: int | None = None
    multiplier: int = 1
    #: The bonus inside `points` before the multiplier: Gin, Big Gin or undercut.
    bonus: int = 0

    def to_json(self) -> dict[str, Any]:
        """The `showdown` object of docs/protocol.md."""
        data: dict[str, Any] = {
            "outcome": self.outcome,
            "scorer": self.scorer,
            "points": self.points,
            "knocker": self.knocker,
            "scores": list(self.scores),
        }
        if self.hands is None:
            return data
        assert self.melds is not None and self.deadwood_cards is not None and self.deadwood is not None
        data.update(
            {
                "knock_card": None if self.knock_card is None else str(self.knock_card),
                "hands": [self.hands[0].to_json(), self.hands[1].to_json()],
                "melds": [[m.to_json() for m in self.melds[0]], [m.to_json() for m in self.melds[1]]],
                "deadwood_cards": [self.deadwood_cards[0].to_json(), self.deadwood_cards[1].to_json()],
                "deadwood": list(self.deadwood),
                "layoffs": [layoff.to_json() for layoff in self.layoffs],
                "knock_limit": self.knock_limit,
                "multiplier": self.multiplier,
                "bonus": self.bonus,
            }
        )
        return data

    @classmethod
    def from_json(cls, data: Any) -> HandEnd:
        """Parse a `showdown` object; raise `ViewError` naming what is wrong."""
        if not isinstance(data, dict):
            raise ViewError(f"showdown must be an object, got {type(data).__name__}")
        try:
            scores = data["scores"]
            base: dict[str, Any] = {
                "outcome": str(data["outcome"]),
                "scorer": None if data["scorer"] is None else int(data["scorer"]),
                "points": int(data["points"]),
                "knocker": None if data["knocker"] is None else int(data["knocker"]),
                "scores": (int(scores[0]), int(scores[1])),
            }
            if "hands" not in data:
                return cls(**base)
            hands, melds, dead, deadwood = (
                data["hands"],
                data["melds"],
                data["deadwood_cards"],
                data["deadwood"],
            )
            return cls(
                **base,
                knock_card=None if data.get("knock_card") is None else parse_card(data["knock_card"]),
                hands=(parse_cards(hands[0]), parse_cards(hands[1])),
                melds=(
                    tuple(parse_cards(m) for m in melds[0]),
                    tuple(parse_cards(m) for m in melds[1]),
                ),
                deadwood_cards=(parse_cards(dead[0]), parse_cards(dead[1])),
                deadwood=(int(deadwood[0]), int(deadwood[1])),
                layoffs=tuple(Layoff(parse_card(x["card"]), int(x["meld"])) for x in data.get("layoffs", [])),
                knock_limit=None if data.get("knock_limit") is None else int(data["knock_limit"]),
                multiplier=int(data.get("multiplier", 1)),
                bonus=int(data.get("bonus", 0)),
            )
        except (KeyError, IndexError) as exc:
            raise ViewError(f"showdown is missing {exc.args[0]!r}") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, ViewError):
                raise
            raise ViewError(f"bad showdown: {exc}") from None


def _by_seat(knocker: int, of_knocker: T, of_defender: T) -> tuple[T, T]:
    return (of_knocker, of_defender) if knocker == 0 else (of_defender, of_knocker)


def hand_end(hand: Hand, scores_after: tuple[int, int]) -> HandEnd | None:
    """How a finished hand ended (both hands face up; none while it is being played)."""
    result = hand.result
    if result is None:
        return None
    base = HandEnd(result.outcome, result.scorer, result.points, result.knocker, scores_after)
    if result.showdown is None or result.knocker is None:
        return base
    sd = result.showdown
    knocker = result.knocker
    return HandEnd(
        result.outcome,
        result.scorer,
        result.points,
        knocker,
        scores_after,
        knock_card=CARDS[hand.knock_card] if hand.knock_card is not None else None,
        hands=(CardSet.from_mask(hand.hands[0]), CardSet.from_mask(hand.hands[1])),
        melds=_by_seat(knocker, sd.knocker_melds, sd.defender_melds),
        deadwood_cards=_by_seat(knocker, sd.knocker_deadwood_cards, sd.defender_deadwood_cards),
        deadwood=_by_seat(knocker, sd.knocker_deadwood, sd.defender_deadwood),
        layoffs=sd.layoffs,
        knock_limit=sd.knock_limit,
        multiplier=sd.multiplier,
        bonus=sd.bonus,
    )


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
    phase = hand.phase
    if phase == "over":
        legal: tuple[Action, ...] = ()
        showdown = hand_end(hand, scores)
        after = None
    elif hand.to_act == seat:
        legal = hand.legal_tuple()
        showdown = None
        after = hand.after_table
    else:
        legal = ()
        showdown = None
        after = None
    view = _ViewSlots(
        seat,
        hand.dealer,
        hand_number,
        scores,
        hand.rules,
        hand.knock_limit,
        phase,
        CardSet.from_mask(hand.hands[seat]),
        tuple([CARDS[c] for c in hand.discard_pile]),  # a comprehension: faster than map here
        len(hand.stock),
        CardSet.from_mask(hand.known[1 - seat]),
        tuple(hand.seen[seat]),
        legal,
        showdown,
        after,
    )
    _set_class(view, View)
    return cast(View, view)


class _ViewSlots(SeatView):
    """A View's slots, in its order, with a plain constructor: what `build_view` fills.

    Views are built for every move of every match. The frozen dataclass's own __init__ sets
    each field through `object.__setattr__`, and even its slots' own setters cost twice as
    much as this class's plain assignments; the object is then made a View by assigning its
    class, which Python allows between classes of the same slots (and refuses otherwise).
    The View it becomes holds the same values its __init__ would set, and is frozen.
    """

    __slots__ = View.__slots__

    def __init__(
        self,
        seat: int,
        dealer: int,
        hand_number: int,
        scores: tuple[int, int],
        rules: Rules,
        knock_limit: int,
        phase: Phase,
        hand: CardSet,
        discard_pile: tuple[Card, ...],
        stock_count: int,
        opponent_known: CardSet,
        history: tuple[PublicStep, ...],
        legal: tuple[Action, ...],
        showdown: HandEnd | None,
        after: tuple[tuple[int, int], ...] | None,
    ) -> None:
        self.seat = seat
        self.dealer = dealer
        self.hand_number = hand_number
        self.scores = scores
        self.rules = rules
        self.knock_limit = knock_limit
        self.phase = phase
        self.hand = hand
        self.discard_pile = discard_pile
        self.stock_count = stock_count
        self.opponent_known = opponent_known
        self.history = history
        self.legal = legal
        self.showdown = showdown
        self._after = after


_set_class: Final = object.__dict__["__class__"].__set__
