"""Observations straight from the table's state: the two-player environment's fast path.

`TableObserver` writes the same vector and action mask as `ObservationEncoder` does from a
seat's VIEW (`tests/env/test_env_observer.py` checks it at every step of random matches
under every preset), but reads them from the hand itself: the seat's own card mask, the
discard pile, the cards the other seat was seen taking, counts, and the public steps of the
hand. Nothing else of the hand is read: the other seat's cards and the stock stay unseen,
as at a real table. Legality comes from `Hand.legal_masks` (the rules engine), never
from here.

Where the time goes, and what is done about it (`benchmarks/bench_env.py` measures it):
building the VIEW's objects and parsing them back is skipped altogether. Each seat's vector
is kept between observations and written as the hand's public steps are read, a step at a
time: a step moves one or two cards, so it costs a few entries of each vector (what the step
shows that seat), and an observation costs its counts and a copy. A seat's first
observation of a hand writes its vector whole, from the hand's masks.
"""

from __future__ import annotations

import struct
from array import array
from typing import Final

import numpy as np
import numpy.typing as npt

from ..rules import BigGin, Discard, Draw, Hand, Knock, Pass
from .encoding import ACTIONS, MAX_SCORE_RATIO, PHASES, ActionCodec, gin_layout

__all__ = ["TableObserver"]

_FLOAT32: Final = np.float32
_INT8: Final = np.int8
# Where each plane starts, in the order of `gin_layout(2)` (checked in `TableObserver`).
_HAND, _PILE, _UPCARD, _ORDER, _KNOWN, _MINE, _THEIRS, _DECLINED = (52 * i for i in range(8))
# The three planes every seat sees alike (discard pile, upcard, pile order) lie together.
_PUBLIC: Final = slice(_PILE, _KNOWN)
_PLANES: Final = (
    "hand",
    "discard_pile",
    "upcard",
    "pile_order",
    "known_1",
    "discarded_by_0",
    "discarded_by_1",
    "declined_by_1",
)
_SCALARS: Final = 8 * 52
# The 14 scalars after the planes, written at once (float32, the order of `gin_layout(2)`).
_SCALAR_COUNT: Final = 14
_write_scalars: Final = struct.Struct(f"={_SCALAR_COUNT}f").pack_into
_ONE_HOT: Final = {p: tuple(1.0 if q == p else 0.0 for q in PHASES) for p in PHASES}
# The masks of the phases whose legal actions hold no card (in the numbering of ACTIONS).
_OFFER: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (0, 2))
_DRAW_EITHER: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (1, 2))
_DRAW_STOCK: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (1,))
_NOTHING: Final = np.zeros(len(ACTIONS), _INT8)
_NO_ACTION: Final = bytes(len(ACTIONS))


class _Seat:
    """One observing seat's vector as last written, and the hand it was written for."""

    __slots__ = ("buffer", "vector", "discards", "discard_mask", "hand", "public", "totals", "terms")

    def __init__(self, size: int) -> None:
        self.buffer = array("f", bytes(4 * size))
        self.vector = np.frombuffer(self.buffer, _FLOAT32)
        # The action mask of a discard from this seat's hand as the vector holds it (flags of
        # ACTIONS: the 52 discards follow pass, draw stock and draw discard).
        self.discards = bytearray(len(ACTIONS))
        self.discard_mask = np.frombuffer(self.discards, _INT8)
        self.hand: Hand | None = None  # the hand whose steps the vector shows (None: none yet)
        self.public = -1  # how many steps of the hand the pile planes copied hold
        self.totals: tuple[int, int] = (-1, -1)  # the running totals the vector holds
        # What the vector holds for them, the dealer and the knock limit (five scalars).
        self.terms: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)


class TableObserver:
    """Observation vectors and action masks of one two-seat table, read from its `Hand`.

    `observe(hand, seat, scores, target)` returns what `ObservationEncoder.encode` returns
    for the seat's VIEW of that hand with those running totals. The observer follows one
    hand at a time (a new hand object starts it afresh) and keeps, per seat, the vector it
    wrote, so a step costs the few entries it changed. Each call returns new arrays the
    caller may keep.
    """

    def __init__(self, codec: ActionCodec = ACTIONS) -> None:
        if codec.actions != ACTIONS.actions:
            raise ValueError("the observer writes masks in the numbering of ginrummy.env.ACTIONS")
        self.seats = 2
        self.codec = codec
        self.layout = gin_layout(self.seats)
        assert self.layout.planes == _PLANES and self.layout.card_size == _SCALARS
        assert self.layout.size == _SCALARS + _SCALAR_COUNT
        self._size = self.layout.size
        self._zeros = array("f", bytes(4 * self._size))
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match)."""
        self._hand: Hand | None = None
        self._read = 0
        self._pile: list[int] = []  # the discard pile as the steps read so far left it
        # The planes every seat sees alike (discard pile, upcard, pile order), written once.
        self._public = array("f", bytes(4 * 3 * 52))
        self._seats: list[_Seat | None] = [None, None]
        # Each seat's vector buffer and discard flags while it follows the hand step by step.
        self._buffers: list[array[float] | None] = [None, None]
        self._flags: list[bytearray | None] = [None, None]

    def _start(self, hand: Hand) -> None:
        """Follow a new hand from its deal."""
        self._hand = hand
        self._read = 0
        self._pile = [hand.upcard]
        public = self._public
        public[:] = self._zeros[: 3 * 52]
        # As dealt: the first upcard alone (offsets within the three planes).
        public[hand.upcard] = public[52 + hand.upcard] = 1.0
        public[104 + hand.upcard] = 1 / 52
        self._buffers = [None, None]
        self._flags = [None, None]

    def _follow(self, hand: Hand) -> None:
        """Read the public steps of `hand` not read yet: into the shared pile planes, and into
        each following seat's own planes what the step showed it."""
        steps = hand.steps
        pile = self._pile
        public = self._public
        buffers = self._buffers
        flags = self._flags
        for i in range(self._read, len(steps)):
            actor, action, moved = steps[i]
            mine, theirs = buffers[actor], buffers[1 - actor]
            kind = type(action)
            if kind is Discard:
                card = moved.index  # type: ignore[union-attr]
                if pile:
                    public[52 + pile[-1]] = 0.0  # the upcard plane
                pile.append(card)
                public[card] = public[52 + card] = 1.0
                public[104 + card] = len(pile) / 52
                if mine is not None:
                    mine[_HAND + card] = 0.0
                    mine[_MINE + card] = 1.0
                    flags[actor][3 + card] = 0  # type: ignore[index]
                if theirs is not None:
                    theirs[_THEIRS + card] = 1.0
                    theirs[_KNOWN + card] = 0.0
            elif kind is Draw:
                card = moved.index  # type: ignore[union-attr]
                if mine is not None:
                    mine[_HAND + card] = 1.0
                    flags[actor][3 + card] = 1  # type: ignore[index]
                if action.source == "discard":  # type: ignore[union-attr]
                    pile.pop()
                    public[card] = public[52 + card] = public[104 + card] = 0.0
                    if pile:
                        public[52 + pile[-1]] = 1.0
                    if theirs is not None:
                        theirs[_KNOWN + card] = 1.0
                # A stock draw right after a discard leaves that card; after two passes it is
                # forced, and declines nothing more.
                elif theirs is not None and type(steps[i - 1].action) is Discard:
                    theirs[_DECLINED + pile[-1]] = 1.0
            elif kind is Pass:
                if theirs is not None:
                    theirs[_DECLINED + hand.upcard] = 1.0  # the offered card, alone in the pile
            elif kind is Knock:
                card = moved.index  # type: ignore[union-attr]
                if mine is not None:
                    mine[_HAND + card] = 0.0
                    flags[actor][3 + card] = 0  # type: ignore[index]
                if theirs is not None:
                    theirs[_KNOWN + card] = 0.0
            else:
                assert kind is BigGin  # no card moves
        self._read = len(steps)

    def _write_whole(self, hand: Hand, seat: int) -> _Seat:
        """Write a seat's own card planes from the hand as the steps read so far left it."""
        state = self._seats[seat]
        if state is None:
            state = self._seats[seat] = _Seat(self._size)
        buffer = state.buffer
        buffer[:] = self._zeros
        discards = state.discards
        discards[:] = _NO_ACTION
        mask = hand.hands[seat]
        while mask:
            low = mask & -mask
            discards[2 + low.bit_length()] = 1
            mask ^= low
        other = 1 - seat
        discarded, declined = _discards_and_declines(hand)
        for base, mask in (
            (_HAND, hand.hands[seat]),
            (_KNOWN, hand.known[other]),
            (_MINE, discarded[seat]),
            (_THEIRS, discarded[other]),
            (_DECLINED, declined[other]),
        ):
            while mask:
                low = mask & -mask
                buffer[base + low.bit_length() - 1] = 1.0
                mask ^= low
        state.hand = hand
        state.public = -1
        state.totals = (-1, -1)  # not the totals of any match: observe writes them
        self._buffers[seat] = buffer
        self._flags[seat] = discards
        return state

    def observe(
        self, hand: Hand, seat: int, scores: tuple[int, int] | list[int], target: int
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The observation vector and action mask of `seat` at `hand`, with these totals.

        `scores` are the running totals the seat's VIEW shows (after the hand once it is
        over) and `target` the rules' match target.
        """
        if hand is not self._hand:
            self._start(hand)
        read = len(hand.steps)
        if self._read != read:
            self._follow(hand)
        state = self._seats[seat]
        if state is None or state.hand is not hand:
            state = self._write_whole(hand, seat)
        buffer = state.buffer
        if state.public != read:
            buffer[_PUBLIC] = self._public
            state.public = read
        phase = hand.phase
        acting = hand.to_act == seat and phase != "over"
        totals = state.totals
        if totals[0] != scores[seat] or totals[1] != scores[1 - seat]:
            state.totals = (scores[seat], scores[1 - seat])
            state.terms = _terms(state.totals, target, hand, seat)
        held = hand.hands
        p0, p1, p2, p3 = _ONE_HOT[phase]
        t0, t1, t2, t3, t4 = state.terms
        # The 14 scalars in one write: phase, counts, totals, dealer, knock limit, to act.
        _write_scalars(
            buffer,
            4 * _SCALARS,
            p0,
            p1,
            p2,
            p3,
            len(hand.stock) / 52,
            len(self._pile) / 52,
            held[seat].bit_count() / 13,
            held[1 - seat].bit_count() / 13,
            t0,
            t1,
            t2,
            t3,
            t4,
            1.0 if acting else 0.0,
        )
        if not acting:
            return state.vector.copy(), _NOTHING.copy()
        legal = hand.legal_masks()
        if phase == "draw":
            return state.vector.copy(), (_DRAW_EITHER if legal.take_upcard else _DRAW_STOCK).copy()
        if phase == "offer":
            return state.vector.copy(), _OFFER.copy()
        # The discard phase: every card held but one just taken from the pile, and the knocks.
        mask = state.discard_mask.copy()
        kept = held[seat] & ~legal.discards
        while kept:
            low = kept & -kept
            mask[2 + low.bit_length()] = 0
            kept ^= low
        knocks = legal.knocks
        while knocks:
            low = knocks & -knocks
            mask[54 + low.bit_length()] = 1
            knocks ^= low
        if legal.big_gin:
            mask[107] = 1
        return state.vector.copy(), mask


def _discards_and_declines(hand: Hand) -> tuple[list[int], list[int]]:
    """The cards each seat discarded face up, and the upcards each seat declined, as masks.

    A pass declines the first upcard; a stock draw right after a discard declines that card
    (a stock draw forced by two passes declines nothing more).
    """
    discarded = [0, 0]
    declined = [0, 0]
    last_discard = -1  # the card of the step before, if it was a discard
    for seat, action, moved in hand.steps:
        kind = type(action)
        if kind is Discard:
            discarded[seat] |= 1 << moved.index  # type: ignore[union-attr]
            last_discard = moved.index  # type: ignore[union-attr]
            continue
        if kind is Pass:
            declined[seat] |= 1 << hand.upcard
        elif kind is Draw and action.source == "stock" and last_discard >= 0:  # type: ignore[union-attr]
            declined[seat] |= 1 << last_discard
        last_discard = -1
    return discarded, declined


def _terms(
    totals: tuple[int, int], target: int, hand: Hand, seat: int
) -> tuple[float, float, float, float, float]:
    """The scalars of the running totals (the seat's, the other's), the dealer and the knock limit."""
    mine, theirs = totals[0] / target, totals[1] / target
    limit = hand.knock_limit
    return (
        mine if mine < MAX_SCORE_RATIO else MAX_SCORE_RATIO,
        theirs if theirs < MAX_SCORE_RATIO else MAX_SCORE_RATIO,
        1.0 if hand.dealer == seat else 0.0,
        1.0 if hand.dealer != seat else 0.0,
        (limit if limit < 100 else 100) / 10,
    )
