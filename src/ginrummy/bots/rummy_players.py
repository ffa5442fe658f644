"""Computer players for classic Rummy (docs/rules.md §8): `rummy-random` and four levels people choose
from, each seeing only its seat's `RummyView`.

What every level knows: a hand is worth what it would still hold after laying every meld it
can and laying off on the table (`rummy_least_left`), since that is what it pays when someone
else goes out; it goes out whenever it can. Each level adds what a stronger player knows:

- `novice` takes the upcard only to make a new meld with its own cards, lays its melds as soon
  as it has them and adds to them, but never looks at the other players' melds, and throws its
  highest card that is in no meld (keeping nothing for later).
- `casual` also lays off on every meld on the table, takes the upcard whenever it would lay it
  down at once, and keeps two-card starts (a pair, suited neighbours) when it throws.
- `skilled` counts cards: a two-card start is worth its live outs (not seen in the pile, on the
  table or in another player's hand), a card's chance to be laid off later counts too, and it
  will not throw the next player a card that goes on the table or with what that player took.
- `advanced` plays for rummy: it keeps its melds in hand, to lay everything down in one turn
  and be paid double, until another player is down to three cards; then it lays down all it
  can, as the others do.

Every decision comes with a short reason, which `suggest` shows.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..rules import (
    Card,
    CardSet,
    Discard,
    Draw,
    GameAction,
    LayMeld,
    LayOff,
    RummyView,
    rummy_layoff_fits,
    rummy_least_left,
    rummy_melds,
)

__all__ = [
    "RUMMY_LEVELS",
    "RummyAdvanced",
    "RummyCasual",
    "RummyDecision",
    "RummyNovice",
    "RummyPlayer",
    "RummyRandom",
    "RummySeat",
    "RummySkilled",
    "make_rummy_player",
    "rummy_player_names",
]

#: The levels, weakest first.
RUMMY_LEVELS = ("novice", "casual", "skilled", "advanced")

STOCK = Draw("stock")
UPCARD = Draw("discard")
FULL = (1 << 52) - 1


@dataclass(frozen=True, slots=True)
class RummyDecision:
    """An action and why it was chosen."""

    action: GameAction
    reason: str


def _cards(mask: int) -> CardSet:
    return CardSet.from_mask(mask)


def _pretty(mask: int) -> str:
    return "".join(card.pretty for card in _cards(mask).sorted_by_rank())


def _bit(card: Card) -> int:
    return 1 << card.index


class _Position:
    """What a decision needs from a view, computed once: hand, table melds, the ace rule."""

    def __init__(self, view: RummyView) -> None:
        self.view = view
        self.hand = view.hand.mask
        self.table = tuple(meld.cards for meld in view.table)
        self.ace = view.rules.ace
        self._memo: dict[tuple[int, int], int] = {}

    def left(self, hand: int, extra: CardSet | None = None) -> int:
        """Points `hand` keeps after laying down all it can (on the table plus `extra`)."""
        key = (hand, extra.mask if extra is not None else 0)
        value = self._memo.get(key)
        if value is None:
            table = self.table if extra is None else (*self.table, extra)
            value = rummy_least_left(_cards(hand), table, self.ace)
            self._memo[key] = value
        return value

    def melds_with(self, card: Card, hand: int) -> list[CardSet]:
        """The melds `card` makes with cards of `hand`."""
        return [m for m in rummy_melds(_cards(hand | _bit(card)), self.ace) if card in m]

    def fits_table(self, card: Card) -> CardSet | None:
        """A table meld `card` can be laid off on, if any."""
        for meld in self.table:
            if rummy_layoff_fits(card, meld, self.ace):
                return meld
        return None

    def seen(self) -> int:
        """Cards whose place this seat knows: its hand, the table, the pile, what others took."""
        view = self.view
        mask = self.hand
        for meld in view.table:
            mask |= meld.cards.mask
        for card in view.discard_pile:
            mask |= _bit(card)
        for known in view.known:
            mask |= known.mask
        return mask


class RummySeat(ABC):
    """A computer player of Rummy: its random choices (seeded) and time budget; `decide` gives
    the action for a view and why."""

    name = "rummy-level"

    def __init__(self, *, seed: int | None = None, time_budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.time_budget = time_budget

    def act(self, view: RummyView) -> GameAction:
        return self.decide(view).action

    def observe(self, view: RummyView) -> None:
        return None

    @abstractmethod
    def decide(self, view: RummyView) -> RummyDecision:
        """The action for `view` and why."""


class RummyPlayer(RummySeat):
    """Shared plumbing of the levels: the phase dispatch, going out, laying down; each level
    chooses whether to take the upcard and what to discard."""

    #: Whether this level lays off on the melds already on the table.
    uses_table = True

    def decide(self, view: RummyView) -> RummyDecision:
        """The action for `view` and why."""
        if not view.legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        position = _Position(view)
        if view.phase == "draw":
            return self.draw(position)
        return self.play(position)

    # -- drawing ------------------------------------------------------------------------

    def draw(self, position: _Position) -> RummyDecision:
        view = position.view
        up = view.upcard
        if up is None or UPCARD not in view.legal:
            return RummyDecision(STOCK, "draw from the stock")
        if STOCK not in view.legal:
            return RummyDecision(UPCARD, f"take {up.pretty}: the stock is spent")
        reason = self.wants_upcard(position, up)
        if reason:
            return RummyDecision(UPCARD, f"take {up.pretty}: {reason}")
        turnover = view.stock_count == 0
        return RummyDecision(
            STOCK, "turn the discard pile over and draw" if turnover else "draw from the stock"
        )

    @abstractmethod
    def wants_upcard(self, position: _Position, up: Card) -> str:
        """Why to take the upcard, or "" to draw from the stock."""

    def laid_at_once(self, position: _Position, up: Card) -> str:
        """Why `up` would be laid down this turn (a meld with the hand, or a layoff), or ""."""
        hand = position.hand
        melds = position.melds_with(up, hand)
        if melds:
            return f"it makes {_pretty(melds[0].mask)}"
        if self.uses_table:
            meld = position.fits_table(up)
            if meld is not None:
                return f"it goes on {_pretty(meld.mask)}"
        return ""

    # -- laying down and discarding ----------------------------------------------------------

    def table_for(self, position: _Position) -> tuple[CardSet, ...]:
        """The melds this level lays off on: all of the table's, or only its own (the others'
        count as empty, so meld numbers stay those of the table)."""
        if self.uses_table:
            return position.table
        seat = position.view.seat
        return tuple(m.cards if m.owner == seat else CardSet() for m in position.view.table)

    def left_after(self, position: _Position, hand: int, table: tuple[CardSet, ...]) -> int:
        """Points `hand` keeps after laying down all it can, with `table` on the table."""
        if table is position.table:
            return position.left(hand)
        return rummy_least_left(_cards(hand), table, position.ace)

    def play(self, position: _Position) -> RummyDecision:
        view = position.view
        lays = [a for a in view.legal if isinstance(a, (LayMeld, LayOff))]
        if not self.uses_table:
            lays = [a for a in lays if isinstance(a, LayMeld) or view.table[a.meld].owner == view.seat]
        discards = [a for a in view.legal if isinstance(a, Discard)]
        out = self.going_out(position, lays, discards)
        if out is not None:
            return out
        lay = self.lay(position, lays) if lays else None
        if lay is not None:
            return lay
        return self.discard(position, discards)

    def _table_after(self, position: _Position, lay: LayMeld | LayOff) -> tuple[CardSet, ...]:
        table = self.table_for(position)
        if isinstance(lay, LayMeld):
            return (*table, lay.cards)
        return tuple(m | lay.card if i == lay.meld else m for i, m in enumerate(table))

    def going_out(
        self, position: _Position, lays: Sequence[LayMeld | LayOff], discards: Sequence[Discard]
    ) -> RummyDecision | None:
        """The next step of going out this turn, when the hand can be emptied now: lay down
        everything (the last meld needs no discard), or everything but one card to discard."""
        hand = position.hand
        table = self.table_for(position)
        last = None
        if self.left_after(position, hand, table) != 0:
            finishing = [d for d in discards if self.left_after(position, hand & ~_bit(d.card), table) == 0]
            if not finishing:
                return None
            last = finishing[0].card
            if hand == _bit(last):
                return RummyDecision(finishing[0], f"discard {last.pretty} and go out")
        keep = _bit(last) if last is not None else 0
        for lay in lays:
            after = hand & ~self._lay_mask(lay)
            if after & keep != keep:
                continue
            if self.left_after(position, after & ~keep, self._table_after(position, lay)) == 0:
                tail = " and go out" if after == 0 else ": going out this turn"
                return RummyDecision(lay, f"{_lay_text(lay)}{tail}")
        return None  # pragma: no cover - a hand that can be emptied has a first step

    @staticmethod
    def _lay_mask(lay: LayMeld | LayOff) -> int:
        return lay.cards.mask if isinstance(lay, LayMeld) else _bit(lay.card)

    def lay(self, position: _Position, lays: Sequence[LayMeld | LayOff]) -> RummyDecision | None:
        """A meld or layoff that keeps the least points left (so everything useful goes down)."""
        hand = position.hand
        now = self.left_after(position, hand, self.table_for(position))
        best: tuple[int, str, LayMeld | LayOff] | None = None
        for lay in lays:
            after = hand & ~self._lay_mask(lay)
            if self.left_after(position, after, self._table_after(position, lay)) == now:
                # Among equal plans, the longest meld first (fewest actions, fewest choices left).
                key = (-self._lay_mask(lay).bit_count(), str(lay))
                if best is None or key < best[:2]:
                    best = (key[0], key[1], lay)
        if best is None:
            return None
        return RummyDecision(best[2], _lay_text(best[2]))

    @abstractmethod
    def discard(self, position: _Position, discards: Sequence[Discard]) -> RummyDecision:
        """The discard to make among `discards`, and why."""


def _lay_text(lay: LayMeld | LayOff) -> str:
    if isinstance(lay, LayMeld):
        return f"lay {_pretty(lay.cards.mask)}"
    return f"lay off {lay.card.pretty} on meld {lay.meld}"


def _starts(card: Card, hand: int) -> int:
    """Cards of `hand` that make a two-card start with `card` (same rank, or suited within two)."""
    mask = 0
    for other in _cards(hand & ~_bit(card)):
        if other.rank == card.rank or (other.suit == card.suit and abs(other.rank - card.rank) <= 2):
            mask |= _bit(other)
    return mask


def _outs(card: Card, partner: Card, ace: str) -> list[int]:
    """Card indices that would make a meld with the two-card start `card` + `partner`."""
    if card.rank == partner.rank:
        return [s * 13 + card.rank for s in range(4) if s not in (card.suit, partner.suit)]
    low, high = sorted((card.rank, partner.rank))
    suit = card.suit
    ranks = [low - 1, high + 1] if high - low == 1 else [low + 1]
    found = []
    for rank in ranks:
        if 0 <= rank <= 12:
            found.append(suit * 13 + rank)
        elif rank == 13 and ace != "low":
            found.append(suit * 13)  # the ace above the king
    return found


class RummyRandom(RummySeat):
    """Picks a uniformly random legal action (a reference for the tests and the arena)."""

    name = "rummy-random"

    def decide(self, view: RummyView) -> RummyDecision:
        if not view.legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        return RummyDecision(self.rng.choice(view.legal), "a random legal move")


class RummyNovice(RummyPlayer):
    """Melds its own cards, lays off only on its own melds, throws its highest loose card."""

    name = "novice"
    uses_table = False

    def wants_upcard(self, position: _Position, up: Card) -> str:
        melds = position.melds_with(up, position.hand)
        return f"it makes {_pretty(melds[0].mask)}" if melds else ""

    def discard(self, position: _Position, discards: Sequence[Discard]) -> RummyDecision:
        hand = position.hand
        table = self.table_for(position)
        ranked = sorted(
            discards,
            key=lambda d: (
                self.left_after(position, hand & ~_bit(d.card), table),
                -d.card.points,
                d.card.index,
            ),
        )
        card = ranked[0].card
        return RummyDecision(ranked[0], f"discard {card.pretty}: the highest card in no meld")


class RummyCasual(RummyPlayer):
    """Lays off on the table too, takes an upcard it can lay down, keeps two-card starts."""

    name = "casual"

    def wants_upcard(self, position: _Position, up: Card) -> str:
        return self.laid_at_once(position, up)

    def discard_key(self, position: _Position, card: Card) -> float:
        """Lower is a better discard: the points kept, less a little for a start it breaks."""
        hand = position.hand
        left = position.left(hand & ~_bit(card))
        keeps_start = 1 if _starts(card, hand) else 0
        return left + 3 * keeps_start

    def discard(self, position: _Position, discards: Sequence[Discard]) -> RummyDecision:
        ranked = sorted(
            discards, key=lambda d: (self.discard_key(position, d.card), -d.card.points, d.card.index)
        )
        card = ranked[0].card
        left = position.left(position.hand & ~_bit(card))
        return RummyDecision(ranked[0], f"discard {card.pretty}: keeps {left} points in hand")


class RummySkilled(RummyCasual):
    """Counts live outs for its starts and later layoffs, and does not feed the next player."""

    name = "skilled"
    #: Points a live out is worth when valuing what a card could become.
    out_value = 2.5
    #: Points of penalty for throwing the next player a card it can lay down.
    feed_penalty = 6.0

    def live(self, position: _Position) -> int:
        return FULL & ~position.seen()

    def potential(self, position: _Position, card: Card, hand: int, live: int) -> float:
        """How much `card` may still become: live outs of its starts, and table melds it may join."""
        value = 0.0
        for partner in _cards(_starts(card, hand)):
            outs = sum(1 for i in _outs(card, partner, position.ace) if live >> i & 1)
            value = max(value, outs)
        return value

    def feeds(self, position: _Position, card: Card) -> bool:
        """Whether the next player could use `card` at once: it fits the table, or melds with
        what that player was seen taking."""
        view = position.view
        if position.fits_table(card) is not None:
            return True
        following = (view.seat + 1) % view.players
        taken = view.known[following].mask
        return bool(_starts(card, taken))

    def discard_key(self, position: _Position, card: Card) -> float:
        hand = position.hand
        live = self.live(position)
        left = position.left(hand & ~_bit(card))
        rest = hand & ~_bit(card)
        # The points still held, plus what this card could have become.
        value = left + self.out_value * self.potential(position, card, hand, live)
        if self.feeds(position, card):
            value += self.feed_penalty
        # A card already in no start and worth few points is cheap to keep either way.
        return value + 0.01 * rest.bit_count()

    def wants_upcard(self, position: _Position, up: Card) -> str:
        reason = self.laid_at_once(position, up)
        if reason:
            return reason
        live = self.live(position)
        best = self.potential(position, up, self.loose(position), live)
        if best >= 2 and up.points <= 6:
            return "a low card with two live ways to make a meld"
        return ""

    def loose(self, position: _Position) -> int:
        """The cards of the hand that lie in no meld and on no table meld (they count in full)."""
        hand = position.hand
        now = position.left(hand)
        loose = 0
        for card in _cards(hand):
            if position.left(hand & ~_bit(card)) == now - card.points:
                loose |= _bit(card)
        return loose


class RummyAdvanced(RummySkilled):
    """Plays for rummy: keeps its melds in hand, to lay everything at once for double pay, until
    an opponent gets close to going out."""

    name = "advanced"
    #: Lay down as soon as another player holds this many cards or fewer.
    close = 3

    def danger(self, position: _Position) -> int:
        """The fewest cards any other player holds."""
        view = position.view
        return min(n for s, n in enumerate(view.hand_counts) if s != view.seat)

    def has_laid(self, position: _Position) -> bool:
        """Whether this seat has laid a meld or laid off this hand (then rummy is out of reach)."""
        seat = position.view.seat
        return any(m.owner == seat or any(s == seat for _, s in m.added) for m in position.view.table)

    def lay(self, position: _Position, lays: Sequence[LayMeld | LayOff]) -> RummyDecision | None:
        if not self.has_laid(position) and self.danger(position) > self.close:
            return None  # hold everything: going out at once is paid double
        return super().lay(position, lays)


_FACTORIES: dict[str, Callable[..., RummySeat]] = {
    "rummy-random": RummyRandom,
    "random": RummyRandom,
    "novice": RummyNovice,
    "casual": RummyCasual,
    "skilled": RummySkilled,
    "advanced": RummyAdvanced,
}


def rummy_player_names() -> list[str]:
    """The names `make_rummy_player` accepts."""
    return sorted(_FACTORIES)


def make_rummy_player(name: str, *, seed: int | None = None, time_budget: float | None = None) -> RummySeat:
    """A Rummy player of level `name` (`novice` … `advanced`, or `random`), seeded for repeatable play."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(
            f"unknown Rummy player {name!r}; choose one of {', '.join(rummy_player_names())}"
        ) from None
    return factory(seed=seed, time_budget=time_budget)
