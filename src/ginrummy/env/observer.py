"""Observations straight from the table's state: the environment's fast path.

`TableObserver` writes the same vector and action mask as `ObservationEncoder` does from a
seat's VIEW (`tests/env/test_env_observer.py` checks it at every step of random matches
under every preset), but reads them from the hand itself: the seat's own card mask, the
discard pile, the cards the other seat was seen taking, counts, and the public steps of the
hand. Nothing else of the hand is read: the other seat's cards and the stock stay unseen,
as at a real table. Legality comes from `Hand.legal_masks` (the rules engine), never
from here.

It skips what an agent does not need on every step: building the VIEW's objects (card
sets, history dictionaries, action lists) and parsing them back.
"""

from __future__ import annotations

from array import array
from typing import Final

import numpy as np
import numpy.typing as npt

from ..rules import Discard, Draw, Hand, Pass
from .encoding import ACTIONS, PHASES, ActionCodec, gin_layout

__all__ = ["TableObserver"]

_MAX_SCORE_RATIO: Final = 4.0
_PHASE_INDEX: Final = {p: i for i, p in enumerate(PHASES)}
_FLOAT32: Final = np.float32
_INT8: Final = np.int8
# The masks of the phases whose legal actions hold no card (in the numbering of ACTIONS).
_OFFER: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (0, 2))
_DRAW_EITHER: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (1, 2))
_DRAW_STOCK: Final = ACTIONS.mask(ACTIONS.actions[i] for i in (1,))


class _Seat:
    """One observing seat's vector and action mask as last written, with what they hold."""

    __slots__ = ("buffer", "vector", "written", "written_pile", "phase_written", "totals_written")

    def __init__(self, size: int, planes: int) -> None:
        self.buffer = array("f", bytes(4 * size))
        self.vector = np.frombuffer(self.buffer, _FLOAT32)
        self.written = [0] * planes  # the card mask each plane holds (pile planes excepted)
        self.written_pile: list[int] = []  # the discard pile the three pile planes hold
        self.phase_written = -1  # the phase the one-hot block holds (-1: none yet)
        self.totals_written: tuple[int, int, int, int] | None = None  # scores, dealer, knock limit


class TableObserver:
    """Observation vectors and action masks of one two-seat table, read from its `Hand`.

    `observe(hand, seat, scores, target)` returns what `ObservationEncoder.encode` returns
    for the seat's VIEW of that hand with those running totals. The observer follows one
    hand at a time (a new hand object starts it afresh) and remembers, per seat, the vector
    and mask it last wrote, so a step costs the few entries that changed. Each call returns
    new arrays the caller may keep.
    """

    def __init__(self, codec: ActionCodec = ACTIONS) -> None:
        if codec.actions != ACTIONS.actions:
            raise ValueError("the observer writes masks in the numbering of ginrummy.env.ACTIONS")
        self.seats = 2
        self.codec = codec
        self.layout = gin_layout(self.seats)
        planes = self.layout.planes
        self._size = self.layout.size
        self._planes = len(planes)
        self._actions = len(codec)
        self._pile = 52 * planes.index("discard_pile")
        self._upcard = 52 * planes.index("upcard")
        self._pile_order = 52 * planes.index("pile_order")
        # The planes diffed as card masks, in the order `observe` lists them.
        self._mask_planes = tuple(
            52 * planes.index(name)
            for name in ("hand", "known_1", "discarded_by_0", "discarded_by_1", "declined_by_1")
        )
        self._scalars = self.layout.card_size
        at = 52 * planes.index("hand")
        self._hand_plane = slice(at, at + 52)
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match)."""
        self._hand: Hand | None = None
        self._read = 0
        self._discarded = [0, 0]
        self._declined = [0, 0]
        self._seat_state: list[_Seat | None] = [None, None]

    def _follow(self, hand: Hand) -> None:
        """Read the public steps of `hand` not read yet: who discarded and who declined what."""
        steps = hand.steps
        discarded = self._discarded
        declined = self._declined
        for i in range(self._read, len(steps)):
            step = steps[i]
            kind = type(step.action)
            if kind is Discard:
                discarded[step.seat] |= 1 << step.action.card.index  # type: ignore[union-attr]
            elif kind is Pass:
                declined[step.seat] |= 1 << hand.upcard  # the offered card is the only one in the pile
            elif kind is Draw and i and step.action.source == "stock":  # type: ignore[union-attr]
                # A stock draw right after a discard leaves that card; after two passes it is
                # forced, and a knock or Big Gin ends the hand.
                before = steps[i - 1].action
                if type(before) is Discard:
                    declined[step.seat] |= 1 << before.card.index
        self._read = len(steps)

    def observe(
        self, hand: Hand, seat: int, scores: tuple[int, int] | list[int], target: int
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The observation vector and action mask of `seat` at `hand`, with these totals.

        `scores` are the running totals the seat's VIEW shows (after the hand once it is
        over) and `target` the rules' match target.
        """
        if hand is not self._hand:
            self._hand = hand
            self._read = 0
            self._discarded = [0, 0]
            self._declined = [0, 0]
        if self._read != len(hand.steps):
            self._follow(hand)
        state = self._seat_state[seat]
        if state is None:
            state = self._seat_state[seat] = _Seat(self._size, self._planes)
        other = 1 - seat
        held = hand.hands
        discarded = self._discarded
        buffer = state.buffer
        written = state.written
        b0, b1, b2, b3, b4 = self._mask_planes
        for plane, base, mask in (
            (0, b0, held[seat]),
            (1, b1, hand.known[other]),
            (2, b2, discarded[seat]),
            (3, b3, discarded[other]),
            (4, b4, self._declined[other]),
        ):
            changed = written[plane] ^ mask
            if changed:
                written[plane] = mask
                while changed:
                    low = changed & -changed
                    buffer[base + low.bit_length() - 1] = 1.0 if mask & low else 0.0
                    changed ^= low
        pile = hand.discard_pile
        if pile != state.written_pile:
            self._write_pile(state, pile)
        # Scalars, in the order of `gin_layout`.
        at = self._scalars
        phase = hand.phase
        now = _PHASE_INDEX[phase]
        if now != state.phase_written:
            if state.phase_written >= 0:
                buffer[at + state.phase_written] = 0.0
            buffer[at + now] = 1.0
            state.phase_written = now
        buffer[at + 4] = len(hand.stock) / 52
        buffer[at + 5] = len(pile) / 52
        buffer[at + 6] = held[seat].bit_count() / 13
        buffer[at + 7] = held[other].bit_count() / 13
        totals = (scores[seat], scores[other], hand.dealer, hand.knock_limit)
        if totals != state.totals_written:
            state.totals_written = totals
            mine, theirs = scores[seat] / target, scores[other] / target
            buffer[at + 8] = mine if mine < _MAX_SCORE_RATIO else _MAX_SCORE_RATIO
            buffer[at + 9] = theirs if theirs < _MAX_SCORE_RATIO else _MAX_SCORE_RATIO
            buffer[at + 10] = 1.0 if hand.dealer == seat else 0.0
            buffer[at + 11] = 1.0 if hand.dealer == other else 0.0
            limit = hand.knock_limit
            buffer[at + 12] = (limit if limit < 100 else 100) / 10
        to_act = phase != "over" and hand.to_act == seat
        buffer[at + 13] = 1.0 if to_act else 0.0
        obs = state.vector.copy()
        if not to_act:
            return obs, np.zeros(self._actions, _INT8)
        return obs, self._action_mask(hand, phase, obs)

    def _action_mask(self, hand: Hand, phase: str, obs: npt.NDArray[np.float32]) -> npt.NDArray[np.int8]:
        """The action mask of the seat to act, whose observation `obs` holds its hand."""
        legal = hand.legal_masks()
        if phase == "offer":
            return _OFFER.copy()
        if phase == "draw":
            return (_DRAW_EITHER if legal.take_upcard else _DRAW_STOCK).copy()
        # ACTIONS: pass, draw stock, draw discard, 52 discards, 52 knocks, big gin.
        mask = np.zeros(self._actions, _INT8)
        mask[3:55] = obs[self._hand_plane]  # every card held ...
        kept = hand.hands[hand.to_act] & ~legal.discards
        while kept:  # ... but the one just taken from the pile
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
        return mask

    def _write_pile(self, state: _Seat, pile: list[int]) -> None:
        """Rewrite the discard-pile, upcard and pile-order planes for the pile as it is now."""
        old = state.written_pile
        buffer = state.buffer
        at_pile, at_order = self._pile, self._pile_order
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
            buffer[at_pile + card] = 0.0
            buffer[at_order + card] = 0.0
        for position in range(keep, len(pile)):
            card = pile[position]
            buffer[at_pile + card] = 1.0
            buffer[at_order + card] = (position + 1) / 52
        if old:
            buffer[self._upcard + old[-1]] = 0.0
        if pile:
            buffer[self._upcard + pile[-1]] = 1.0
        state.written_pile = list(pile)
