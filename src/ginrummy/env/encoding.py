"""Arrays for learning programs: one seat's VIEW as a fixed-size vector, and actions as integers.

Everything here is computed from a `View` (what one seat may know) and nothing else, so an
agent trained on these arrays never sees a card it could not see at a real table.

The observation is one ``float32`` vector: card planes first (each 52 wide, card index
``suit * 13 + rank`` as in `ginrummy.rules.cards`), then scalars. Seats are *relative* to
the observing seat: relative seat 0 is the observer, 1 the next seat in turn order, and so
on, so a policy learns one game whatever its seat. `ObservationLayout` names every slice.

>>> from ginrummy import new_match
>>> match = new_match("classic", seed=3)
>>> encoder = ObservationEncoder(seats=2)
>>> obs, mask = encoder.encode(match.view(match.to_act))
>>> obs.shape, mask.shape, int(mask.sum())
((430,), (108,), 2)
>>> encoder.layout.card_planes(obs)["hand"].sum(), encoder.layout.scalar_values(obs)["stock_count"]
(np.float32(10.0), np.float32(0.59615386))
>>> [str(ACTIONS.action(i)) for i in np.flatnonzero(mask)]
['pass', 'draw discard']
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..rules import (
    Action,
    BigGin,
    Card,
    Discard,
    Draw,
    Knock,
    Pass,
    View,
)

__all__ = [
    "ACTIONS",
    "ActionCodec",
    "LayoutBuilder",
    "ObservationEncoder",
    "ObservationLayout",
    "PHASES",
]

#: Every phase a view can be in, in the order of the observation's one-hot block.
PHASES: Final = ("offer", "draw", "discard", "over")

_CARDS: Final = tuple(Card(i) for i in range(52))


class ActionCodec:
    """A fixed numbering of every action of a game, both ways (the environment's action space).

    Two-player Gin: ``0`` pass, ``1`` draw from the stock, ``2`` draw the upcard,
    ``3 + i`` discard card ``i``, ``55 + i`` knock discarding card ``i``, ``107`` Big Gin.

    >>> ACTIONS.index(Discard(Card.parse("7H"))), str(ACTIONS.action(55 + 45))
    (35, 'knock 7S')
    """

    __slots__ = ("actions", "_index", "_card_blocks")

    def __init__(self, actions: Sequence[Action]) -> None:
        self.actions: tuple[Action, ...] = tuple(actions)
        self._index: dict[Action, int] = {a: i for i, a in enumerate(self.actions)}
        if len(self._index) != len(self.actions):
            raise ValueError("an action codec lists each action once")
        # A block of 52 actions of one kind, one per card in index order, is numbered by
        # arithmetic: hashing a card action costs several Python calls, and a mask needs a dozen.
        self._card_blocks: dict[type, int] = {}
        for kind in (Discard, Knock):
            first = next((i for i, a in enumerate(self.actions) if isinstance(a, kind)), None)
            if first is not None and all(
                isinstance(a, kind) and a.card.index == n
                for n, a in enumerate(self.actions[first : first + 52])
            ):
                self._card_blocks[kind] = first

    def __len__(self) -> int:
        return len(self.actions)

    def index(self, action: Action) -> int:
        """The integer of `action`; `KeyError` for an action this game does not have."""
        offset = self._card_blocks.get(type(action))
        if offset is not None:
            return offset + action.card.index  # type: ignore[union-attr]
        return self._index[action]

    def action(self, index: int) -> Action:
        """The action numbered `index`; `ValueError` naming the range when there is none."""
        if not 0 <= index < len(self.actions):
            raise ValueError(f"action must be an integer from 0 to {len(self.actions) - 1}, got {index}")
        return self.actions[index]

    def mask(self, legal: Iterable[Action]) -> npt.NDArray[np.int8]:
        """An ``int8`` vector with a 1 for each legal action."""
        flags = bytearray(len(self.actions))
        blocks = self._card_blocks
        index = self._index
        for action in legal:
            offset = blocks.get(type(action))
            flags[index[action] if offset is None else offset + action.card.index] = 1  # type: ignore[union-attr]
        return np.frombuffer(flags, dtype=np.int8)


#: The actions of two-player Gin (docs/protocol.md ACTION), numbered as `ActionCodec` says.
ACTIONS: Final = ActionCodec(
    (
        Pass(),
        Draw("stock"),
        Draw("discard"),
        *(Discard(c) for c in _CARDS),
        *(Knock(c) for c in _CARDS),
        BigGin(),
    )
)


@dataclass(frozen=True, slots=True)
class ObservationLayout:
    """Where each part of the observation vector lies, with its meaning and its bounds.

    `planes` are 52-wide card planes in order, then `scalars` (name -> width), with the
    inclusive bounds `scalar_low` (0 when not given) and `scalar_high` of each scalar entry;
    every card-plane entry lies in [0, 1]. `meanings` says what each plane and each scalar
    block holds, in the same order (planes first).
    """

    seats: int
    planes: tuple[str, ...]
    scalars: tuple[tuple[str, int], ...]
    scalar_high: tuple[float, ...]
    scalar_low: tuple[float, ...] = ()
    meanings: tuple[str, ...] = ()

    @property
    def card_size(self) -> int:
        """Length of the card-plane block (planes × 52)."""
        return 52 * len(self.planes)

    @property
    def size(self) -> int:
        """Length of the whole vector."""
        return self.card_size + sum(width for _, width in self.scalars)

    def high(self) -> npt.NDArray[np.float32]:
        """The upper bound of every entry."""
        return np.concatenate(
            [np.ones(self.card_size, dtype=np.float32), np.asarray(self.scalar_high, dtype=np.float32)]
        )

    def low(self) -> npt.NDArray[np.float32]:
        """The lower bound of every entry (0 but for scores that may fall below zero)."""
        scalars = self.scalar_low or (0.0,) * len(self.scalar_high)
        return np.concatenate(
            [np.zeros(self.card_size, dtype=np.float32), np.asarray(scalars, dtype=np.float32)]
        )

    def card_planes(self, obs: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """The card planes of an observation by name, each 52 wide (views, not copies)."""
        block = obs[: self.card_size].reshape(len(self.planes), 52)
        return {name: block[i] for i, name in enumerate(self.planes)}

    def scalars_slices(self) -> dict[str, slice]:
        """Name -> slice of the observation vector, for every scalar block."""
        out: dict[str, slice] = {}
        offset = self.card_size
        for name, width in self.scalars:
            out[name] = slice(offset, offset + width)
            offset += width
        return out

    def scalar_values(self, obs: npt.NDArray[np.float32]) -> dict[str, Any]:
        """The scalar blocks of an observation by name (one number, or a vector per seat/phase)."""
        out: dict[str, Any] = {}
        for (name, width), part in zip(self.scalars, self.scalars_slices().values(), strict=True):
            out[name] = obs[part][0] if width == 1 else obs[part]
        return out

    def describe(self) -> list[tuple[str, int, int, str]]:
        """``(name, start, stop, meaning)`` for every part of the vector, in order."""
        rows = [(name, 52 * i, 52 * (i + 1), self.meanings[i]) for i, name in enumerate(self.planes)]
        for i, (name, part) in enumerate(self.scalars_slices().items()):
            rows.append((name, part.start, part.stop, self.meanings[len(self.planes) + i]))
        return rows


class LayoutBuilder:
    """Builds an `ObservationLayout` block by block: planes first, then scalars, each with its meaning.

    A name ending in ``_N`` in a meaning's "relative seat N" is filled in with the seat.
    """

    __slots__ = ("seats", "_planes", "_scalars", "_low", "_high", "_plane_meanings", "_scalar_meanings")

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self._planes: list[str] = []
        self._scalars: list[tuple[str, int]] = []
        self._low: list[float] = []
        self._high: list[float] = []
        self._plane_meanings: list[str] = []
        self._scalar_meanings: list[str] = []

    def plane(self, name: str, meaning: str) -> LayoutBuilder:
        """One card plane."""
        self._planes.append(name)
        self._plane_meanings.append(meaning)
        return self

    def seat_planes(self, prefix: str, seats: Iterable[int], meaning: str) -> LayoutBuilder:
        """One plane per relative seat, named ``prefix + seat``; "seat N" in `meaning` names it."""
        for seat in seats:
            self.plane(f"{prefix}{seat}", meaning.replace("seat N", f"seat {seat}"))
        return self

    def scalar(
        self, name: str, width: int, meaning: str, *, high: float = 1.0, low: float = 0.0
    ) -> LayoutBuilder:
        """A block of `width` numbers, each within [low, high]."""
        self._scalars.append((name, width))
        self._low += [low] * width
        self._high += [high] * width
        self._scalar_meanings.append(meaning)
        return self

    def build(self) -> ObservationLayout:
        """The layout as built so far."""
        return ObservationLayout(
            seats=self.seats,
            planes=tuple(self._planes),
            scalars=tuple(self._scalars),
            scalar_high=tuple(self._high),
            scalar_low=tuple(self._low),
            meanings=(*self._plane_meanings, *self._scalar_meanings),
        )


#: Most a running total counts in an observation, in match targets (a total past four targets
#: is rare and tells a learner nothing more).
MAX_SCORE_RATIO: Final = 4.0
_PHASE_INDEX: Final = {p: i for i, p in enumerate(PHASES)}
PLANE_HAND: Final = "1 for each card this seat holds"
PLANE_PILE: Final = "1 for each card in the discard pile"
PLANE_UPCARD: Final = "1 for the top card of the discard pile"
PLANE_ORDER: Final = "(position from the bottom + 1) / 52 for each card in the discard pile"
PLANE_KNOWN: Final = "cards relative seat N was seen taking from the discard pile and still holds"
PLANE_DISCARDED: Final = "cards relative seat N discarded this hand (wherever they are now)"
PLANE_DECLINED: Final = (
    "upcards relative seat N could have taken and did not (passed, or drew from the stock)"
)


def gin_layout(seats: int = 2) -> ObservationLayout:
    """The layout of two-player Gin observations (`seats` is 2; the seats are relative)."""
    others = range(1, seats)
    return (
        LayoutBuilder(seats)
        .plane("hand", PLANE_HAND)
        .plane("discard_pile", PLANE_PILE)
        .plane("upcard", PLANE_UPCARD)
        .plane("pile_order", PLANE_ORDER)
        .seat_planes("known_", others, PLANE_KNOWN)
        .seat_planes("discarded_by_", range(seats), PLANE_DISCARDED)
        .seat_planes("declined_by_", others, PLANE_DECLINED)
        .scalar("phase", len(PHASES), f"one-hot phase: {', '.join(PHASES)}")
        .scalar("stock_count", 1, "cards left in the stock / 52")
        .scalar("pile_count", 1, "cards in the discard pile / 52")
        .scalar("hand_sizes", seats, "cards each relative seat holds / 13", high=52 / 13)
        .scalar(
            "scores",
            seats,
            "each relative seat's running total / the match target (capped at 4)",
            high=MAX_SCORE_RATIO,
        )
        .scalar("dealer", seats, "one-hot: the relative seat that dealt this hand")
        .scalar(
            "knock_limit",
            1,
            "this hand's knock limit / 10 (Oklahoma sets it from the first upcard)",
            high=10.0,
        )
        .scalar("to_act", 1, "1 when this seat has an action to take")
        .build()
    )


class _SeatState:
    """What one observing seat has read so far, and the vector last written for it.

    The history of a VIEW is public; reading only its new entries keeps an observation
    cheap however long the hand. The discard pile is replayed from the history to know
    which upcard a stock draw declined, and checked against the view's own pile.
    The seat's vector is kept between observations and only the entries that changed
    are rewritten: a step moves one or two cards.
    """

    __slots__ = (
        "hand_number",
        "read",
        "pile",
        "pile_mask",
        "discarded",
        "declined",
        "held",
        "forced",
        "buffer",
        "written",
        "written_pile",
        "phase_written",
    )

    def __init__(self, view: View, size: int, planes: int) -> None:
        self.buffer = array("f", bytes(4 * size))
        self.written = [0] * planes  # the card mask of each plane as the buffer holds it
        self.written_pile: list[int] = []  # the pile as the pile-order plane holds it
        self.phase_written = -1  # the phase the one-hot block holds (-1: none yet)
        self.start_hand(view)

    def start_hand(self, view: View) -> None:
        seats = len(view.scores)
        self.hand_number = view.hand_number
        self.read = 0
        self.discarded = [0] * seats
        self.declined = [0] * seats
        self.held = [0] * seats  # cards gained minus cards given up, per seat
        self.forced = False
        self.pile = _initial_pile(view)
        self.pile_mask = 0
        for card in self.pile:
            self.pile_mask |= 1 << card

    def update(self, view: View) -> None:
        history = [entry.to_json() for entry in view.history]
        if view.hand_number != self.hand_number or self.read > len(history):
            self.start_hand(view)
        seats = len(self.discarded)
        pile = self.pile
        for entry in history[self.read :]:
            seat = entry["seat"]
            action = entry["action"]
            kind = action["type"]
            if kind == "discard":
                card = _card_index(action["card"])
                self.discarded[seat] |= 1 << card
                pile.append(card)
                self.pile_mask |= 1 << card
                self.held[seat] -= 1
                self.forced = False
            elif kind == "knock":
                self.held[seat] -= 1
            elif kind == "draw":
                self.held[seat] += 1
                if action["source"] == "discard":
                    if pile:
                        self.pile_mask &= ~(1 << pile.pop())
                elif not self.forced and pile:
                    self.declined[seat] |= 1 << pile[-1]
                self.forced = False
            elif kind == "pass":
                if pile:
                    self.declined[seat] |= 1 << pile[-1]
                # Once every seat has passed the first upcard, the next draw must be from the stock.
                self.forced = len(history) >= seats and all(
                    h["action"]["type"] == "pass" for h in history[:seats]
                )
        self.read = len(history)
        shown = view.discard_pile
        if len(pile) != len(shown) or (pile and pile[-1] != shown[-1].index):
            # A history this reader cannot follow (never from the rules engine): trust the view.
            self.pile = [c.index for c in shown]
            self.pile_mask = 0
            for card in self.pile:
                self.pile_mask |= 1 << card


_INDEX_OF_TEXT: Final = {str(card): card.index for card in _CARDS}


def _card_index(text: str) -> int:
    index = _INDEX_OF_TEXT.get(text)
    return index if index is not None else Card.parse(text).index


def _initial_pile(view: View) -> list[int]:
    """The discard pile before the first entry of the view's history (undoing the history)."""
    pile = [c.index for c in view.discard_pile]
    for entry in reversed([step.to_json() for step in view.history]):
        action = entry["action"]
        if action["type"] == "discard" and pile and pile[-1] == _card_index(action["card"]):
            pile.pop()
        elif action["type"] == "draw" and action["source"] == "discard" and "card" in entry:
            pile.append(_card_index(entry["card"]))
    return pile


class ObservationEncoder:
    """Turns views into observation vectors and action masks, one table at a time.

    The encoder remembers, per observing seat, how much of the current hand's history it
    has read and the vector it last produced, so encoding a view costs the same late in
    a hand as early. Each call returns new arrays the caller may keep.
    """

    def __init__(self, seats: int = 2, codec: ActionCodec = ACTIONS) -> None:
        if seats < 2:
            raise ValueError(f"a table has at least two seats, got {seats}")
        self.seats = seats
        self.codec = codec
        self.layout = gin_layout(seats)
        self._states: dict[int, _SeatState] = {}
        self._pile_order_offset = 52 * self.layout.planes.index("pile_order")
        self._scalar_offset = self.layout.card_size
        # Seat numbers in relative order, for each observing seat: itself first.
        self._relative = [[(me + r) % seats for r in range(seats)] for me in range(seats)]

    def reset(self) -> None:
        """Forget every seat's state (a new match)."""
        self._states.clear()

    def encode(self, view: View) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The observation vector and the action mask of `view`."""
        n = self.seats
        scores = view.scores
        if len(scores) != n:
            raise ValueError(f"this encoder is for {n} seats; the view has {len(scores)}")
        me = view.seat
        state = self._states.get(me)
        if state is None:
            state = _SeatState(view, self.layout.size, len(self.layout.planes))
            self._states[me] = state
        state.update(view)
        pile = state.pile
        rel = self._relative[me]
        known = view.opponent_known.mask
        discarded = state.discarded
        declined = state.declined
        masks = [view.hand.mask, state.pile_mask, 1 << pile[-1] if pile else 0, 0]
        masks += [known] * (n - 1)
        masks += [discarded[s] for s in rel]
        masks += [declined[s] for s in rel[1:]]
        buffer = state.buffer
        written = state.written
        base = 0
        for plane, mask in enumerate(masks):
            changed = written[plane] ^ mask
            if changed:
                written[plane] = mask
                while changed:
                    low = changed & -changed
                    buffer[base + low.bit_length() - 1] = 1.0 if mask & low else 0.0
                    changed ^= low
            base += 52
        if pile != state.written_pile:
            self._write_pile_order(state)
        # Scalars, in the order of `gin_layout`.
        at = self._scalar_offset
        phase = state.phase_written
        now = _PHASE_INDEX[view.phase]
        if now != phase:
            if phase >= 0:
                buffer[at + phase] = 0.0
            buffer[at + now] = 1.0
            state.phase_written = now
        at += len(PHASES)
        buffer[at] = view.stock_count / 52
        buffer[at + 1] = len(pile) / 52
        at += 2
        held = state.held
        dealt = len(view.hand) - held[me]
        target = view.rules.target
        dealer = view.dealer
        for s in rel:
            buffer[at] = (dealt + held[s]) / 13
            score = scores[s] / target
            buffer[at + n] = score if score < MAX_SCORE_RATIO else MAX_SCORE_RATIO
            buffer[at + 2 * n] = 1.0 if s == dealer else 0.0
            at += 1
        at += 2 * n
        limit = view.knock_limit
        buffer[at] = (limit if limit < 100 else 100) / 10
        legal = view.legal
        buffer[at + 1] = 1.0 if legal else 0.0
        return np.array(buffer), self.codec.mask(legal)

    def _write_pile_order(self, state: _SeatState) -> None:
        pile, old = state.pile, state.written_pile
        base = self._pile_order_offset
        buffer = state.buffer
        # The pile is a stack: usually one card was put on it or taken from it.
        if len(old) <= len(pile) and pile[: len(old)] == old:
            keep = len(old)
        elif old[: len(pile)] == pile:
            keep = len(pile)
        else:
            keep = 0
            limit = min(len(pile), len(old))
            while keep < limit and pile[keep] == old[keep]:
                keep += 1
        for card in old[keep:]:
            buffer[base + card] = 0.0
        for position in range(keep, len(pile)):
            buffer[base + pile[position]] = (position + 1) / 52
        state.written_pile = list(pile)
