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

from array import array
from typing import Final

import numpy as np
import numpy.typing as npt

from ..rules import BigGin, Discard, Draw, Hand, Knock, Pass
from .encoding import ACTIONS, MAX_SCORE_RATIO, PHASES, ActionCodec, gin_layout

__all__ = ["TableObserver"]

_FLOAT32: Final = np.float32
_INT8: Final = np.int8
_PHASE_INDEX: Final = {p: i for i, p in enumerate(PHASES)}
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
_TO_ACT: Final = _SCALARS + 13
# The masks of the phases whose legal actions hold no card (in the numbering of ACTIONS).
_OFFER: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (0, 2))
_DRAW_EITHER: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (1, 2))
_DRAW_STOCK: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (1,))
_NOTHING: Final = np.zeros(len(ACTIONS), _INT8)
_NO_ACTION: Final = bytes(len(ACTIONS))


class _Seat:
    """One observing seat's vector as last written, and the hand it was written for."""

    __slots__ = ("buffer", "vector", "discards", "discard_mask", "hand", "public", "phase", "totals")

    def __init__(self, size: int) -> None:
        self.buffer = array("f", bytes(4 * size))
        self.vector = np.frombuffer(self.buffer, _FLOAT32)
        # The action mask of a discard from this seat's hand as the vector holds it (flags of
        # ACTIONS: the 52 discards follow pass, draw stock and draw discard).
        self.discards = bytearray(len(ACTIONS))
        self.discard_mask = np.frombuffer(self.discards, _INT8)
        self.hand: Hand | None = None  # the hand whose steps the vector shows (None: none yet)
        self.public = -1  # how many steps of the hand the pile planes copied hold
        self.phase = -1  # the phase the one-hot block holds
        self.totals: tuple[int, int] = (-1, -1)  # the running totals the vector holds


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
        self._size = self.layout.size
        self._zeros = array("f", bytes(4 * self._size))
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match)."""
        self._hand: Hand | None = None
        self._read = 0
        self._pile: list[int] = []  # the discard pile as the steps read so far left it
        self._discarded = [0, 0]
        self._declined = [0, 0]
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
        self._discarded = [0, 0]
        self._declined = [0, 0]
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
            step = steps[i]
            action = step.action
            actor = step.seat
            mine, theirs = buffers[actor], buffers[1 - actor]
            kind = type(action)
            if kind is Discard:
                card = action.card.index  # type: ignore[union-attr]
                if pile:
                    public[52 + pile[-1]] = 0.0  # the upcard plane
                pile.append(card)
                public[card] = 1.0
                public[52 + card] = 1.0
                public[104 + card] = len(pile) / 52
                self._discarded[actor] |= 1 << card
                if mine is not None:
                    mine[_HAND + card] = 0.0
                    mine[_MINE + card] = 1.0
                    flags[actor][3 + card] = 0  # type: ignore[index]
                if theirs is not None:
                    theirs[_THEIRS + card] = 1.0
                    theirs[_KNOWN + card] = 0.0
            elif kind is Draw:
                card = step.card.index  # type: ignore[union-attr]
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
                    continue
                # A stock draw right after a discard leaves that card; after two passes it is
                # forced, and declines nothing more.
                before = steps[i - 1].action if i else None
                if isinstance(before, Discard):
                    declined = before.card.index
                    self._declined[actor] |= 1 << declined
                    if theirs is not None:
                        theirs[_DECLINED + declined] = 1.0
            elif kind is Pass:
                upcard = hand.upcard  # the offered card is the only one in the pile
                self._declined[actor] |= 1 << upcard
                if theirs is not None:
                    theirs[_DECLINED + upcard] = 1.0
            elif kind is Knock:
                card = action.card.index  # type: ignore[union-attr]
                if mine is not None:
                    mine[_HAND + card] = 0.0
                    flags[actor][3 + card] = 0  # type: ignore[index]
                if theirs is not None:
                    theirs[_KNOWN + card] = 0.0
            else:
                assert kind is BigGin  # no card moves
        self._read = len(steps)

    def _write_whole(self, state: _Seat, hand: Hand, seat: int) -> None:
        """Write a seat's own card planes from the hand as the steps read so far left it."""
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
        for base, mask in (
            (_HAND, hand.hands[seat]),
            (_KNOWN, hand.known[other]),
            (_MINE, self._discarded[seat]),
            (_THEIRS, self._discarded[other]),
            (_DECLINED, self._declined[other]),
        ):
            while mask:
                low = mask & -mask
                buffer[base + low.bit_length() - 1] = 1.0
                mask ^= low
        state.hand = hand
        state.public = state.phase = -1
        state.totals = (-1, -1)
        self._buffers[seat] = buffer
        self._flags[seat] = discards

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
        if state is None:
            state = self._seats[seat] = _Seat(self._size)
        if state.hand is not hand:
            self._write_whole(state, hand, seat)
        buffer = state.buffer
        if state.public != read:
            buffer[_PUBLIC] = self._public
            state.public = read
        phase = hand.phase
        now = _PHASE_INDEX[phase]
        if now != state.phase:
            if state.phase >= 0:
                buffer[_SCALARS + state.phase] = 0.0
            buffer[_SCALARS + now] = 1.0
            state.phase = now
        held = hand.hands
        other = 1 - seat
        buffer[_SCALARS + 4] = len(hand.stock) / 52
        buffer[_SCALARS + 5] = len(self._pile) / 52
        buffer[_SCALARS + 6] = held[seat].bit_count() / 13
        buffer[_SCALARS + 7] = held[other].bit_count() / 13
        totals = (scores[seat], scores[other])
        if totals != state.totals:
            state.totals = totals
            ratio = totals[0] / target
            buffer[_SCALARS + 8] = ratio if ratio < MAX_SCORE_RATIO else MAX_SCORE_RATIO
            ratio = totals[1] / target
            buffer[_SCALARS + 9] = ratio if ratio < MAX_SCORE_RATIO else MAX_SCORE_RATIO
            buffer[_SCALARS + 10] = 1.0 if hand.dealer == seat else 0.0
            buffer[_SCALARS + 11] = 1.0 if hand.dealer == other else 0.0
            limit = hand.knock_limit
            buffer[_SCALARS + 12] = (limit if limit < 100 else 100) / 10
        if phase == "over" or hand.to_act != seat:
            buffer[_TO_ACT] = 0.0
            return state.vector.copy(), _NOTHING.copy()
        buffer[_TO_ACT] = 1.0
        legal = hand.legal_masks()
        if phase == "offer":
            return state.vector.copy(), _OFFER.copy()
        if phase == "draw":
            return state.vector.copy(), (_DRAW_EITHER if legal.take_upcard else _DRAW_STOCK).copy()
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
