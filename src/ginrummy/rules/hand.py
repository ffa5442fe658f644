"""One hand (deal) of Gin Rummy as a state machine (docs/rules.md §3)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple

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
from .cards import CARDS, CardSet
from .deal import deal_order, shuffled_deck
from .fast_core import bits, deadwood_after_discards, least_deadwood
from .showdown import Showdown, score_showdown
from .steps import DISCARD_STEPS, PILE_STEPS, STOCK_STEPS, UNSEEN_STOCK_STEPS, PublicStep, Step
from .variants import Rules

__all__ = [
    "DealtHand",
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


# A NamedTuple (`Step`, `LegalMasks`) made without the Python-level `__new__` it adds.
_new_tuple: Final = tuple.__new__


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


class DealtHand(ABC):
    """What every deal answers alike (two-player Gin's `Hand`, Rummy's `RummyHand`): its phase,
    its stock (top last) and each seat's cards as a mask; each game checks its own actions."""

    __slots__ = ()
    phase: str
    stock: list[int]
    hands: list[int]

    @property
    def is_over(self) -> bool:
        """True once the hand has been knocked, won or voided (Rummy: gone out or voided)."""
        return self.phase == "over"

    @property
    def stock_count(self) -> int:
        """Cards left in the stock."""
        return len(self.stock)

    def hand_of(self, seat: int) -> CardSet:
        """The cards `seat` holds now."""
        return CardSet.from_mask(self.hands[seat])

    @abstractmethod
    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why the action is not allowed now."""

    @abstractmethod
    def apply_checked(self, action: GameAction) -> None:
        """Apply an action `check` has let through, for the seat to act (a game that checks its
        own seats first, then plays the action on the hand)."""

    def is_legal(self, action: GameAction, seat: int | None = None) -> bool:
        """Whether `check` would accept the action."""
        try:
            self.check(action, seat)
        except IllegalActionError:
            return False
        return True


class Hand(DealtHand):
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
        if self.phase == "discard":
            return self._discard_phase_actions()
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
        return tuple(self._discard_phase_actions())

    def _discard_phase_actions(self) -> list[Action]:
        """The discard phase's actions: each discard, lowest card first, then each knock, then
        Big Gin when it is allowed."""
        hand = self.hands[self.to_act]
        taken = self.taken
        actions: list[Action] = [DISCARDS[c] for c in bits(hand if taken < 0 else hand & ~(1 << taken))]
        limit = self.knock_limit
        whole = least_deadwood(hand)
        # As in `legal_masks`: a discard lowers the least deadwood by at most 10, so far from a
        # knock the turn's table is not needed (a player that wants it still asks for it).
        if whole - 10 <= limit or self.after_table is not None:
            actions += [KNOCKS[c] for c, left in self.after_discards() if left <= limit and c != taken]
        if whole == 0 and self.rules.big_gin_bonus is not None:
            actions.append(BIG_GIN)
        return actions

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
        self.apply_checked(action)

    def apply_checked(self, action: GameAction) -> None:
        """Apply an action `check` has let through (it refuses Rummy's melds and layoffs)."""
        assert not isinstance(action, (LayMeld, LayOff))
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
            shown = DISCARD_STEPS[me][index]
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
                seen[me].append(STOCK_STEPS[me][index])
                seen[1 - me].append(UNSEEN_STOCK_STEPS[me])
            else:
                index = self.discard_pile.pop()
                self.taken = index
                self.known[me] |= 1 << index
                self.retaken = self.takes[index] >= self.rules.retake_limit
                self.takes[index] += 1
                shown = PILE_STEPS[me][index]
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
            shown = other = DISCARD_STEPS[seat][action.card.index]
        elif kind is Draw:
            assert isinstance(action, Draw)
            card = step.card
            if action.source == "discard":
                assert card is not None  # a card taken from the pile is seen by both seats
                shown = other = PILE_STEPS[seat][card.index]
            else:
                other = UNSEEN_STOCK_STEPS[seat]
                shown = other if card is None else STOCK_STEPS[seat][card.index]
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
