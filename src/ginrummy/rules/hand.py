"""One hand (deal) of Gin Rummy as a state machine (docs/rules.md §3)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Final, Literal, NamedTuple

from .actions import (
    BIG_GIN,
    DISCARDS,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCKS,
    PASS,
    Action,
    BigGin,
    Discard,
    Draw,
    GameAction,
    Knock,
    LayMeld,
    LayOff,
    Pass,
)
from .cards import CARDS, Card, CardSet, parse_card
from .fast_core import deadwood_after_discards, least_deadwood
from .showdown import Showdown, score_showdown
from .variants import Rules

__all__ = [
    "Hand",
    "HandResult",
    "LegalMasks",
    "Step",
    "PublicStep",
    "IllegalActionError",
    "NotYourTurnError",
    "Phase",
    "shuffled_deck",
]

Phase = Literal["offer", "draw", "discard", "over"]

_OFFER_LEGAL: Final = (DRAW_DISCARD, PASS)
_DRAW_LEGAL: Final = (DRAW_STOCK, DRAW_DISCARD)
_FORCED_LEGAL: Final = (DRAW_STOCK,)


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the message says why and what is allowed."""


class NotYourTurnError(IllegalActionError):
    """An action from the seat that is not to act."""


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
_DISCARD_STEPS: Final = tuple(tuple(_STEPS[(seat, "discard", None, c)] for c in CARDS) for seat in (0, 1))
_PILE_STEPS: Final = tuple(tuple(_STEPS[(seat, "draw", "discard", c)] for c in CARDS) for seat in (0, 1))
_STOCK_STEPS: Final = tuple(tuple(_STEPS[(seat, "draw", "stock", c)] for c in CARDS) for seat in (0, 1))
_UNSEEN_STOCK_STEPS: Final = tuple(_STEPS[(seat, "draw", "stock", None)] for seat in (0, 1))
# A NamedTuple (`Step`, `LegalMasks`) made without the Python-level `__new__` it adds.
_new_tuple: Final = tuple.__new__


def _card_or_none(text: Any) -> Card | None:
    return None if text is None else parse_card(text)


class LegalMasks(NamedTuple):
    """Every legal action of the seat to act, as flags and card masks (no action objects).

    The same choices as `Hand.legal_actions`, for programs that step millions of times:
    `discards` and `knocks` are card masks (bit ``suit * 13 + rank``).
    """

    take_upcard: bool  # draw discard (the offered upcard, or the top of the pile)
    pass_upcard: bool  # pass (offer phase)
    draw_stock: bool
    discards: int  # cards that may be discarded face up
    knocks: int  # cards that may be discarded face down to knock
    big_gin: bool


NO_LEGAL_ACTION: Final = LegalMasks(False, False, False, 0, 0, False)
_OFFER: Final = LegalMasks(True, True, False, 0, 0, False)
_DRAW_EITHER: Final = LegalMasks(True, False, True, 0, 0, False)
_DRAW_STOCK_ONLY: Final = LegalMasks(False, False, True, 0, 0, False)


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: `void`, or a showdown with its outcome, scorer seat and points."""

    outcome: str  # "void", "knock", "gin", "big_gin", "undercut", "tie"
    scorer: int | None
    points: int
    knocker: int | None = None
    showdown: Showdown | None = None

    def to_json(self) -> dict[str, object]:
        """A compact summary (records store this)."""
        return {
            "outcome": self.outcome,
            "scorer": self.scorer,
            "points": self.points,
            "knocker": self.knocker,
        }


def deal_order(seed: int) -> list[int]:
    """The shuffled deck for a deal seed: card indices, first dealt first.

    The deck starts in index order (clubs A-K, diamonds, hearts, spades) and is
    shuffled with Python's `random.Random(seed).shuffle`, so anyone can check a
    deal from its published seed.
    """
    return shuffled_deck(random.Random(seed))


# For each position i of the shuffle (51 down to 1): the count i + 1 of cards it draws from, and
# how many random bits `Random._randbelow` asks for to draw below it.
_SHUFFLE_DRAWS: Final = tuple((i, i + 1, (i + 1).bit_length()) for i in range(51, 0, -1))


def shuffled_deck(rng: random.Random) -> list[int]:
    """The 52 card indices as ``rng.shuffle(list(range(52)))`` leaves them.

    The same draws as `random.Random.shuffle` (a Fisher-Yates shuffle from the end, each index
    drawn below ``i + 1`` by rejecting ``getrandbits`` results), without its call per card: a
    hand is dealt at every reset of an environment. `tests/rules/test_hand.py` checks it against
    `random.Random.shuffle` itself.
    """
    deck = list(range(52))
    getrandbits = rng.getrandbits
    for i, n, k in _SHUFFLE_DRAWS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class Hand:
    """A deal from the shuffle to the showdown or a void hand.

    `legal_actions()` lists what the player `to_act` may do; `apply(action)`
    checks the action first and changes nothing when it is illegal.
    """

    __slots__ = (
        "rules",
        "seed",
        "dealer",
        "to_act",
        "phase",
        "hands",
        "stock",
        "discard_pile",
        "steps",
        "known",
        "knock_limit",
        "multiplier",
        "result",
        "forced_stock",
        "taken",
        "passes",
        "initial_hands",
        "upcard",
        "knock_card",
        "takes",
        "retaken",
        "after_table",
        "seen",
    )

    def __init__(self, rules: Rules, seed: int, dealer: int) -> None:
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be seat 0 or 1, got {dealer!r}")
        self.rules = rules
        self.seed = seed
        self.dealer = dealer
        deck = deal_order(seed)
        non_dealer = 1 - dealer
        hands = [0, 0]
        for i in range(20):
            hands[non_dealer if i % 2 == 0 else dealer] |= 1 << deck[i]
        self.hands = hands
        self.initial_hands = (hands[0], hands[1])
        self.upcard = deck[20]
        self.discard_pile = [deck[20]]
        self.stock = deck[:20:-1]  # top of the stock last
        self.to_act = non_dealer
        self.phase: Phase = "offer"
        self.steps: list[Step] = []
        self.known = [0, 0]  # cards each seat was seen taking and still holds
        self.result: HandResult | None = None
        self.forced_stock = False
        self.taken = -1  # the card taken from the discard pile this turn
        self.passes = 0
        self.knock_card: int | None = None
        # In the discard phase, the deadwood each discard leaves (`after_discards`), worked
        # out once a turn for the knock options and for the player's view.
        self.after_table: tuple[tuple[int, int], ...] | None = None
        # The hand's steps as each seat saw them (its views' history), written with each step.
        self.seen: tuple[list[PublicStep], list[PublicStep]] = ([], [])
        self.knock_limit, self.multiplier = rules.hand_terms(self.upcard)
        self.takes = [0] * 52  # how often each card was taken from the discard pile
        self.retaken = False  # a card taken this turn had reached the rules' retake limit

    # -- queries ---------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the hand has been knocked, won or voided."""
        return self.phase == "over"

    @property
    def stock_count(self) -> int:
        """Cards left in the stock."""
        return len(self.stock)

    def hand_of(self, seat: int) -> CardSet:
        """The cards `seat` holds now."""
        return CardSet.from_mask(self.hands[seat])

    def after_discards(self) -> tuple[tuple[int, int], ...]:
        """In the discard phase: (card, least deadwood left) for each card of the hand to act,
        lowest card first (`masks.deadwood_after_discards`); the same table for the whole turn."""
        table = self.after_table
        if table is None:
            table = self.after_table = deadwood_after_discards(self.hands[self.to_act])
        return table

    def knock_options(self) -> dict[int, int]:
        """In the discard phase: card index -> deadwood after knocking with it."""
        limit = self.knock_limit
        taken = self.taken
        return {c: d for c, d in self.after_discards() if d <= limit and c != taken}

    def legal_masks(self) -> LegalMasks:
        """Every action the player to act may take now, as flags and card masks."""
        phase = self.phase
        if phase == "draw":
            return _DRAW_STOCK_ONLY if self.forced_stock else _DRAW_EITHER
        if phase == "discard":
            hand = self.hands[self.to_act]
            taken = self.taken
            discards = hand if taken < 0 else hand & ~(1 << taken)
            knocks = 0
            limit = self.knock_limit
            whole = least_deadwood(hand)
            # A discard lowers the least deadwood by at most its own points (10 at most): far
            # from a knock, as most turns are, the turn's table is not needed for the mask.
            if whole - 10 <= limit or self.after_table is not None:
                for card, left in self.after_discards():
                    if left <= limit and card != taken:
                        knocks |= 1 << card
            big_gin = self.rules.big_gin_bonus is not None and whole == 0
            return _new_tuple(LegalMasks, (False, False, False, discards, knocks, big_gin))
        if phase == "offer":
            return _OFFER
        return NO_LEGAL_ACTION

    def legal_actions(self) -> list[Action]:
        """Every action the player to act may take now, in a fixed order."""
        return list(self.legal_tuple())

    def legal_tuple(self) -> tuple[Action, ...]:
        """`legal_actions` as a tuple (what a view carries)."""
        phase = self.phase
        if phase == "offer":
            return _OFFER_LEGAL
        if phase == "draw":
            return _FORCED_LEGAL if self.forced_stock else _DRAW_LEGAL
        if phase == "over":
            return ()
        taken = self.taken
        limit = self.knock_limit
        table = self.after_discards()
        actions: list[Action] = [DISCARDS[c] for c, _ in table if c != taken]
        actions += [KNOCKS[c] for c, left in table if left <= limit and c != taken]
        if self.rules.big_gin_bonus is not None and least_deadwood(self.hands[self.to_act]) == 0:
            actions.append(BIG_GIN)
        return tuple(actions)

    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why `action` is not allowed now; else return.

        Any game's action may be given: Rummy's melds and layoffs are refused like any
        other action Gin does not allow now.
        """
        if self.phase == "over":
            raise IllegalActionError("the hand is over; no action is allowed")
        if seat is not None and seat != self.to_act:
            raise NotYourTurnError(f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        phase = self.phase
        if phase == "offer":
            if isinstance(action, Pass) or action == DRAW_DISCARD:
                return
            raise IllegalActionError(
                f"{action} is not allowed now: the first upcard "
                f"{CARDS[self.discard_pile[-1]]} is offered; take it (draw discard) or pass"
            )
        if phase == "draw":
            if isinstance(action, Draw):
                if action.source == "discard" and self.forced_stock:
                    raise IllegalActionError(
                        "both players passed the first upcard: the non-dealer must draw from the stock"
                    )
                return
            raise IllegalActionError(f"{action} is not allowed now: draw from the stock or the discard pile")
        # discard phase
        if isinstance(action, (Discard, Knock)):
            card = action.card
            if not self.hands[self.to_act] >> card.index & 1:
                raise IllegalActionError(f"{card} is not in your hand")
            if card.index == self.taken:
                raise IllegalActionError(
                    f"{card} was just taken from the discard pile and cannot be discarded this turn"
                )
            if isinstance(action, Knock):
                options = self.knock_options()
                if card.index not in options:
                    left = least_deadwood(self.hands[self.to_act] & ~(1 << card.index))
                    raise IllegalActionError(
                        f"cannot knock by discarding {card}: {left} deadwood would remain "
                        f"and the knock limit is {self.knock_limit}"
                    )
            return
        if isinstance(action, BigGin):
            if self.rules.big_gin_bonus is None:
                raise IllegalActionError("Big Gin is not played under these rules")
            left = least_deadwood(self.hands[self.to_act])
            if left:
                raise IllegalActionError(f"Big Gin needs all eleven cards melded; {left} deadwood remains")
            return
        raise IllegalActionError(f"{action} is not allowed now: discard a card or knock")

    def is_legal(self, action: GameAction, seat: int | None = None) -> bool:
        """Whether `check` would accept the action."""
        try:
            self.check(action, seat)
        except IllegalActionError:
            return False
        return True

    # -- transitions -----------------------------------------------------------

    def apply(self, action: GameAction, seat: int | None = None) -> None:
        """Apply a legal action; an illegal one raises and leaves the hand untouched."""
        # Nearly every step is a draw or a plain discard by the seat to act: those legal ones
        # are let through here; everything else, and every refusal's message, is `check`'s.
        kind = type(action)
        if seat is None or seat == self.to_act:
            phase = self.phase
            if kind is Discard:
                if phase == "discard":
                    index = action.card.index  # type: ignore[union-attr]
                    if self.hands[self.to_act] >> index & 1 and index != self.taken:
                        self._apply_unchecked(action)  # type: ignore[arg-type]
                        return
            elif kind is Draw and phase == "draw" and (action.source == "stock" or not self.forced_stock):  # type: ignore[union-attr]
                self._apply_unchecked(action)  # type: ignore[arg-type]
                return
        self.check(action, seat)
        assert not isinstance(action, (LayMeld, LayOff))  # check refuses them
        self._apply_unchecked(action)

    def _apply_unchecked(self, action: Action) -> None:
        # The hot path of every host: exact types first (actions are final dataclasses), each
        # step written with what each seat saw of it (the card of a stock draw only its drawer).
        me = self.to_act
        kind = type(action)
        seen = self.seen
        if kind is Discard:
            card = action.card  # type: ignore[union-attr]
            index = card.index
            bit = 1 << index
            self.hands[me] &= ~bit
            self.known[me] &= ~bit
            self.discard_pile.append(index)
            self.steps.append(_new_tuple(Step, (me, action, card)))
            shown = _DISCARD_STEPS[me][index]
            seen[0].append(shown)
            seen[1].append(shown)
            self.taken = -1
            self.after_table = None
            if len(self.stock) <= 2 or self.retaken:
                self.phase = "over"
                self.result = HandResult("void", None, 0)
                return
            self.to_act = 1 - me
            self.phase = "draw"
            return
        if kind is Draw:
            if action.source == "stock":  # type: ignore[union-attr]
                index = self.stock.pop()
                self.taken = -1
                self.retaken = False
                seen[me].append(_STOCK_STEPS[me][index])
                seen[1 - me].append(_UNSEEN_STOCK_STEPS[me])
            else:
                index = self.discard_pile.pop()
                self.taken = index
                self.known[me] |= 1 << index
                self.retaken = self.takes[index] >= self.rules.retake_limit
                self.takes[index] += 1
                shown = _PILE_STEPS[me][index]
                seen[0].append(shown)
                seen[1].append(shown)
            self.hands[me] |= 1 << index
            self.forced_stock = False
            self.phase = "discard"
            self.after_table = None
            self.steps.append(_new_tuple(Step, (me, action, CARDS[index])))
            return
        if kind is Pass and self.phase == "offer":
            self._record(Step(me, action, None))
            self.passes += 1
            self.to_act = 1 - me
            if self.passes == 2:
                self.phase = "draw"
                self.forced_stock = True
            return
        if kind is Knock:
            card = action.card  # type: ignore[union-attr]
            index = card.index
            self.hands[me] &= ~(1 << index)
            self.known[me] &= ~(1 << index)
            self.knock_card = index
            self._record(Step(me, action, card))
            self._finish(me)
            return
        if kind is BigGin:
            self._record(Step(me, action, None))
            self._finish(me)
            return
        raise IllegalActionError(f"unknown action {action!r}")  # pragma: no cover

    def _record(self, step: Step) -> None:
        """Append any step with what each seat saw of it (the card of a stock draw only its
        drawer; a knock shows its card). Draws and discards take the hot path of
        `_apply_unchecked` instead; positions built step by step come through here."""
        self.steps.append(step)
        action = step.action
        seat = step.seat
        kind = type(action)
        if kind is Discard:
            assert isinstance(action, Discard)
            shown = other = _DISCARD_STEPS[seat][action.card.index]
        elif kind is Draw:
            assert isinstance(action, Draw)
            card = step.card
            if action.source == "discard":
                assert card is not None  # a card taken from the pile is seen by both seats
                shown = other = _PILE_STEPS[seat][card.index]
            else:
                other = _UNSEEN_STOCK_STEPS[seat]
                shown = other if card is None else _STOCK_STEPS[seat][card.index]
        elif kind is Pass:
            shown = other = PublicStep(seat, "pass")
        elif kind is BigGin:
            shown = other = PublicStep(seat, "big_gin")
        else:  # a knock: the hand ends at once, so its card is shown
            assert isinstance(action, Knock)
            shown = other = PublicStep(seat, "knock", None, action.card)
        self.seen[seat].append(shown)
        self.seen[1 - seat].append(other)

    def _finish(self, knocker: int) -> None:
        showdown = score_showdown(
            CardSet.from_mask(self.hands[knocker]),
            CardSet.from_mask(self.hands[1 - knocker]),
            self.rules,
            knock_limit=self.knock_limit,
            multiplier=self.multiplier,
        )
        if showdown.scorer is None:
            scorer = None
        else:
            scorer = knocker if showdown.scorer == "knocker" else 1 - knocker
        self.result = HandResult(showdown.outcome, scorer, showdown.points, knocker, showdown)
        self.phase = "over"
        self.after_table = None

    def copy(self) -> Hand:
        """An independent copy (for search)."""
        new = Hand.__new__(Hand)
        for name in Hand.__slots__:
            setattr(new, name, getattr(self, name))
        new.hands = list(self.hands)
        new.stock = list(self.stock)
        new.discard_pile = list(self.discard_pile)
        new.steps = list(self.steps)
        new.known = list(self.known)
        new.takes = list(self.takes)
        new.seen = (list(self.seen[0]), list(self.seen[1]))
        return new

    def cards_in_play(self) -> int:
        """Count of cards in hands, stock and discard pile (always 52, plus a knock card)."""
        total = self.hands[0].bit_count() + self.hands[1].bit_count()
        total += len(self.stock) + len(self.discard_pile)
        return total + (1 if self.knock_card is not None else 0)

    def __repr__(self) -> str:
        return (
            f"<Hand seed={self.seed} dealer={self.dealer} phase={self.phase} "
            f"to_act={self.to_act} stock={len(self.stock)}>"
        )
