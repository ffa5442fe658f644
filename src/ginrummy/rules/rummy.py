"""Classic Rummy for two to six players (docs/rules.md §8, document 002): one hand as a state machine.

Seats are numbered clockwise; "left" of a seat is the next number. The dealer deals one
card at a time starting on their left (ten each for two players, seven for three or four,
six for five or six), turns the next card up to start the discard pile, and the player on
their left plays first. A turn: draw (the stock's top or the discard pile's top; with the
stock empty, turning the discard pile over as the new stock, at most
`rules.stock_turnovers` times), then lay melds and lay off on any table meld as wished,
then discard — unless the last cards were laid, which goes out without a discard. Going
out ends the hand and every other player pays the winner the points left in hand,
`rules.rummy_multiplier` times over when the winner went out "rummy" (everything in one
turn, nothing laid before). When the stock runs out with no turnover left, the hand is
void: nobody pays and the same dealer deals again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from .actions import DISCARDS, DRAW_DISCARD, DRAW_STOCK, Discard, Draw, GameAction, LayMeld, LayOff
from .cards import CARDS, Card, CardSet
from .deal import deal_order
from .hand import DealtHand, IllegalActionError, NotYourTurnError
from .rummy_melds import attachable_mask, deadwood_of_mask, is_meld_mask, melds_of_mask, rummy_hand_points
from .variants import Rules, RulesError

__all__ = [
    "DEAL_SIZES",
    "RummyHand",
    "RummyHandResult",
    "RummyStep",
    "TableMeld",
]

RummyPhase = Literal["draw", "play", "over"]

#: Cards dealt to each player by the number of players (document 002).
DEAL_SIZES: dict[int, int] = {2: 10, 3: 7, 4: 7, 5: 6, 6: 6}


class RummyStep(NamedTuple):
    """One applied action: who acted, what they did, the card drawn (draws only), and
    whether this stock draw first turned the discard pile over as the new stock."""

    seat: int
    action: GameAction
    card: Card | None
    turnover: bool = False


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table: its cards now, who laid it, and the cards added to it since."""

    cards: CardSet
    owner: int
    added: tuple[tuple[Card, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """`{"cards": [...], "owner": seat, "added": [{"card": "8H", "seat": 2}]}`."""
        return {
            "cards": self.cards.to_json(),
            "owner": self.owner,
            "added": [{"card": str(card), "seat": seat} for card, seat in self.added],
        }


@dataclass(frozen=True, slots=True)
class RummyHandResult:
    """How a hand ended: `out` or `rummy` (with the winner), or `void`; the payments per seat
    sum to zero (the winner's gain, every other player's loss as a negative number)."""

    outcome: str  # "out", "rummy", "void"
    winner: int | None
    payments: tuple[int, ...]
    left: tuple[CardSet, ...]  # the cards each player still held at the end
    multiplier: int = 1

    @property
    def scorer(self) -> int | None:
        """The seat paid (the winner), or None for a void hand."""
        return self.winner

    @property
    def points(self) -> int:
        """What the winner was paid in all."""
        return self.payments[self.winner] if self.winner is not None else 0

    def to_json(self) -> dict[str, Any]:
        """A compact summary (records store this)."""
        return {"outcome": self.outcome, "winner": self.winner, "payments": list(self.payments)}


class RummyHand(DealtHand):
    """One deal of classic Rummy, from the shuffle to going out or a void hand.

    `legal_actions()` lists what the player `to_act` may do; `apply(action, seat)` checks
    the action first and changes nothing when it is illegal.
    """

    def __init__(self, rules: Rules, seed: int, dealer: int) -> None:
        n = rules.players
        if rules.game != "rummy":
            raise RulesError(f"these rules are for {rules.game!r}, not Rummy")
        if not 0 <= dealer < n:
            raise ValueError(f"dealer must be a seat from 0 to {n - 1}, got {dealer!r}")
        self.rules = rules
        self.seed = seed
        self.dealer = dealer
        self.players = n
        deck = deal_order(seed)
        dealt = n * DEAL_SIZES[n]
        hands = [0] * n
        for i in range(dealt):
            hands[(dealer + 1 + i) % n] |= 1 << deck[i]
        self.hands = hands
        self.initial_hands = tuple(hands)
        self.upcard = deck[dealt]
        self.discard_pile = [deck[dealt]]
        self.stock = deck[:dealt:-1]  # top of the stock last
        self.to_act = (dealer + 1) % n
        self.phase: RummyPhase = "draw"
        self.table: list[int] = []  # meld masks, in the order laid
        self.owners: list[int] = []
        self.added: list[list[tuple[int, int]]] = []  # per meld: (card, seat) laid off on it
        self.spots: list[int] = []  # per meld: the cards that may be laid off on it now
        self.taken = -1  # the card taken from the discard pile this turn
        self.takes = [0] * 52  # how often each card was taken from the discard pile this hand
        self.retaken = False  # the card taken this turn had reached the rules' retake limit
        self.turnovers = 0
        self.laid_before = [False] * n  # laid a meld or laid off in an earlier turn
        self.laid_now = False
        self.steps: list[RummyStep] = []
        self.known = [0] * n  # cards each seat was seen taking from the discard pile and still holds
        self.result: RummyHandResult | None = None
        # Each seat's history as its views show it, extended lazily by the views.
        self.public_history: list[list[Any]] = [[] for _ in range(n)]

    # -- queries ---------------------------------------------------------------

    def table_melds(self) -> tuple[TableMeld, ...]:
        """The melds on the table, in the order they were laid."""
        return tuple(
            TableMeld(
                CardSet.from_mask(mask),
                owner,
                tuple((CARDS[card], seat) for card, seat in added),
            )
            for mask, owner, added in zip(self.table, self.owners, self.added, strict=True)
        )

    def can_turn_over(self) -> bool:
        """With the stock empty: whether the discard pile may still be turned over."""
        return self.turnovers < self.rules.stock_turnovers and bool(self.discard_pile)

    def _may_leave(self, rest: int) -> bool:
        # Laying down must not leave only the card just taken from the discard pile:
        # it could not be discarded, and the turn could not end.
        return self.taken < 0 or rest != 1 << self.taken

    def legal_actions(self, seat: int | None = None) -> list[GameAction]:
        """Every action the player to act may take now, in a fixed order (empty for others)."""
        if seat is not None and seat != self.to_act:
            return []
        phase = self.phase
        if phase == "draw":
            actions: list[GameAction] = []
            if self.stock or self.can_turn_over():
                actions.append(DRAW_STOCK)
            if self.discard_pile:
                actions.append(DRAW_DISCARD)
            return actions
        if phase != "play":
            return []
        ace = self.rules.ace
        hand = self.hands[self.to_act]
        actions = []
        for meld in melds_of_mask(hand, ace):
            if self._may_leave(hand & ~meld):
                actions.append(LayMeld(CardSet.from_mask(meld)))
        spots = self.spots
        reach = 0
        for spot in spots:
            reach |= spot
        mask = hand & reach
        while mask:
            low = mask & -mask
            mask ^= low
            if not self._may_leave(hand & ~low):
                continue
            card = CARDS[low.bit_length() - 1]
            for number, spot in enumerate(spots):
                if spot & low:
                    actions.append(LayOff(card, number))
        mask = hand & ~(1 << self.taken) if self.taken >= 0 else hand
        while mask:
            low = mask & -mask
            actions.append(DISCARDS[low.bit_length() - 1])
            mask ^= low
        return actions

    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why `action` is not allowed now; else return."""
        if self.phase == "over":
            raise IllegalActionError("the hand is over; no action is allowed")
        if seat is not None and seat != self.to_act:
            raise NotYourTurnError(f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        if self.phase == "draw":
            if isinstance(action, Draw):
                if action.source == "stock" and not self.stock and not self.can_turn_over():
                    raise IllegalActionError(
                        "the stock is empty and the discard pile may not be turned over again"
                    )
                if action.source == "discard" and not self.discard_pile:
                    raise IllegalActionError("the discard pile is empty: draw from the stock")
                return
            raise IllegalActionError(
                f"{action} is not allowed now: draw from the stock or take the top of the discard pile"
            )
        hand = self.hands[self.to_act]
        ace = self.rules.ace
        if isinstance(action, Discard):
            card = action.card
            if not hand >> card.index & 1:
                raise IllegalActionError(f"{card} is not in your hand")
            if card.index == self.taken:
                raise IllegalActionError(
                    f"{card} was just taken from the discard pile and cannot be discarded this turn"
                )
            return
        if isinstance(action, LayMeld):
            cards = action.cards
            if cards.mask & ~hand:
                raise IllegalActionError(f"{cards - CardSet.from_mask(hand)} not in your hand")
            if not is_meld_mask(cards.mask, ace):
                raise IllegalActionError(
                    f"{cards} is not a meld: lay three or four cards of a rank, or three or more "
                    f"in sequence in one suit (ace {_ACE_WORDS[ace]})"
                )
            if not self._may_leave(hand & ~cards.mask):
                raise IllegalActionError(self._stuck_message())
            return
        if isinstance(action, LayOff):
            card = action.card
            if not hand >> card.index & 1:
                raise IllegalActionError(f"{card} is not in your hand")
            if not 0 <= action.meld < len(self.table):
                raise IllegalActionError(
                    f"there is no table meld {action.meld}: the table holds {len(self.table)} meld(s)"
                    + (f", numbered 0 to {len(self.table) - 1}" if self.table else "")
                )
            meld = self.table[action.meld]
            if not is_meld_mask(meld | 1 << card.index, ace):
                raise IllegalActionError(
                    f"{card} does not fit table meld {action.meld} ({CardSet.from_mask(meld)})"
                )
            if not self._may_leave(hand & ~(1 << card.index)):
                raise IllegalActionError(self._stuck_message())
            return
        if isinstance(action, Draw):
            raise IllegalActionError("you have drawn this turn: lay melds, lay off, or discard")
        raise IllegalActionError(f"{action} is not a Rummy action: lay a meld, lay off, or discard")

    def _stuck_message(self) -> str:
        return (
            f"that would leave only {CARDS[self.taken]}, just taken from the discard pile, "
            "which cannot be discarded this turn"
        )

    # -- transitions -----------------------------------------------------------

    def apply(self, action: GameAction, seat: int | None = None) -> None:
        """Apply a legal action; an illegal one raises and leaves the hand untouched."""
        self.check(action, seat)
        self.apply_checked(action)

    def apply_checked(self, action: GameAction) -> None:
        """Apply an action `check` has let through."""
        me = self.to_act
        if isinstance(action, Draw):
            turnover = False
            if action.source == "stock":
                if not self.stock:
                    # Turned over unshuffled: the first card discarded is the new top.
                    self.stock = self.discard_pile[::-1]
                    self.discard_pile = []
                    self.turnovers += 1
                    turnover = True
                card = self.stock.pop()
                self.taken = -1
                self.retaken = False
            else:
                card = self.discard_pile.pop()
                self.taken = card
                self.known[me] |= 1 << card
                self.retaken = self.takes[card] >= self.rules.retake_limit
                self.takes[card] += 1
            self.hands[me] |= 1 << card
            self.phase = "play"
            self.steps.append(RummyStep(me, action, CARDS[card], turnover))
            return
        if isinstance(action, LayMeld):
            mask = action.cards.mask
            self.hands[me] &= ~mask
            self.known[me] &= ~mask
            self.table.append(mask)
            self.owners.append(me)
            self.added.append([])
            self.spots.append(attachable_mask(mask, self.rules.ace))
            self.laid_now = True
            self.steps.append(RummyStep(me, action, None))
            if not self.hands[me]:
                self._finish(me)
            return
        if isinstance(action, LayOff):
            bit = 1 << action.card.index
            self.hands[me] &= ~bit
            self.known[me] &= ~bit
            self.table[action.meld] |= bit
            self.added[action.meld].append((action.card.index, me))
            self.spots[action.meld] = attachable_mask(self.table[action.meld], self.rules.ace)
            self.laid_now = True
            self.steps.append(RummyStep(me, action, None))
            if not self.hands[me]:
                self._finish(me)
            return
        if isinstance(action, Discard):
            card = action.card.index
            self.hands[me] &= ~(1 << card)
            self.known[me] &= ~(1 << card)
            self.discard_pile.append(card)
            self.steps.append(RummyStep(me, action, None))
            self.taken = -1
            if not self.hands[me]:
                self._finish(me)
                return
            if self.laid_now:
                self.laid_before[me] = True
                self.laid_now = False
            if self.retaken or (not self.stock and self.turnovers >= self.rules.stock_turnovers):
                self._void()
                return
            self.to_act = (me + 1) % self.players
            self.phase = "draw"
            return
        raise IllegalActionError(f"unknown action {action!r}")  # pragma: no cover

    def _finish(self, winner: int) -> None:
        rummy = not self.laid_before[winner]
        multiplier = self.rules.rummy_multiplier if rummy else 1
        payments = [-rummy_hand_points(CardSet.from_mask(h)) * multiplier for h in self.hands]
        payments[winner] = -sum(payments)
        self.result = RummyHandResult(
            "rummy" if rummy else "out",
            winner,
            tuple(payments),
            tuple(CardSet.from_mask(h) for h in self.hands),
            multiplier,
        )
        self.phase = "over"

    def _void(self) -> None:
        self.result = RummyHandResult(
            "void", None, (0,) * self.players, tuple(CardSet.from_mask(h) for h in self.hands)
        )
        self.phase = "over"

    def deadwood_of(self, seat: int) -> int:
        """The least points `seat` would keep after laying every meld it holds."""
        return deadwood_of_mask(self.hands[seat], self.rules.ace)

    def cards_in_play(self) -> int:
        """Count of cards in hands, on the table, in the stock and the discard pile (always 52)."""
        total = sum(h.bit_count() for h in self.hands) + sum(m.bit_count() for m in self.table)
        return total + len(self.stock) + len(self.discard_pile)

    def __repr__(self) -> str:
        return (
            f"<RummyHand seed={self.seed} dealer={self.dealer} phase={self.phase} "
            f"to_act={self.to_act} stock={len(self.stock)}>"
        )


_ACE_WORDS = {"low": "low: A-2-3", "high": "high: Q-K-A", "either": "high or low, never K-A-2"}
