"""Arrays for classic Rummy: one seat's `RummyView` as a vector, and every Rummy action as an integer.

Rummy's actions (`RUMMY_ACTIONS`, 579 of them):

- ``0`` draw from the stock, ``1`` take the top of the discard pile;
- ``2 + i`` discard card ``i`` (card index ``suit * 13 + rank``, as in `ginrummy.rules.cards`);
- ``54 + j`` lay meld ``j`` of `RummyActionCodec.melds` (every set and run any ace rule allows);
- ``423 + 3 * i + k`` lay off card ``i``: ``k = 0`` on the set of its rank, ``1`` below a run
  (the card becomes its low end), ``2`` above a run (its high end). A card extends a given
  run only one way and a rank has one set on the table, so each number names one table meld
  whatever order the melds were laid in; a card that fits both ends of a run (an ace, ranking
  either way, on a run from the two to the king) is numbered below.

Going out is not an action of its own: it is the meld, layoff or discard that leaves no card in
hand, and the rules end the hand there.

>>> from ginrummy import new_game
>>> game = new_game("rummy", seed=3)
>>> seat = game.seats_to_act[0]
>>> encoder = RummyEncoder(game.rules)
>>> obs, mask = encoder.encode(game.view(seat))
>>> obs.shape, [str(RUMMY_ACTIONS.action(int(i), ())) for i in np.flatnonzero(mask)]
((911,), ['draw stock', 'draw discard'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from ..rules import (
    CardSet,
    Discard,
    Draw,
    GameAction,
    LayMeld,
    LayOff,
    Rules,
    RummyView,
    is_rummy_meld,
    rummy_layoff_cards,
    rummy_layoff_fits,
)
from ..rules.actions import DRAW_DISCARD, DRAW_STOCK
from ..rules.cards import CARDS
from ..rules.variants import RANGES, AceRank
from .encoding import (
    MAX_SCORE_RATIO,
    PLANE_DISCARDED,
    PLANE_HAND,
    PLANE_KNOWN,
    PLANE_ORDER,
    PLANE_PILE,
    PLANE_UPCARD,
    LayoutBuilder,
    ObservationLayout,
)

__all__ = ["RUMMY_ACTIONS", "RUMMY_PHASES", "RummyActionCodec", "RummyEncoder", "rummy_layout"]

#: The phases of a Rummy view, in the order of the observation's one-hot block.
RUMMY_PHASES: Final = ("draw", "play", "over")
_PHASE_INDEX: Final = {p: i for i, p in enumerate(RUMMY_PHASES)}
#: How a card is laid off, in the numbering of `RummyActionCodec`.
ON_SET, BELOW_RUN, ABOVE_RUN = 0, 1, 2
_WAYS: Final = ("on the set of its rank", "below a run", "above a run")


def _all_melds() -> tuple[int, ...]:
    """Every meld any ace rule allows, as card masks: sets of three (by rank, then the suit
    left out), sets of four (by rank), then runs (by suit, lowest card, length; an ace
    above the king counts as the highest rank)."""
    melds: list[int] = []
    for rank in range(13):
        four = sum(1 << (13 * suit + rank) for suit in range(4))
        melds += [four & ~(1 << (13 * suit + rank)) for suit in range(4)]
    melds += [sum(1 << (13 * suit + rank) for suit in range(4)) for rank in range(13)]
    for suit in range(4):
        for start in range(14):  # rank 13 is the ace above the king
            for length in range(3, min(13, 14 - start) + 1):
                mask = 0
                for rank in range(start, start + length):
                    mask |= 1 << (13 * suit + rank % 13)
                if mask not in melds:
                    melds.append(mask)
    assert all(is_rummy_meld(CardSet.from_mask(mask), "either") for mask in melds)
    return tuple(melds)


def layoff_way(card: int, meld: int) -> int:
    """How card index `card` goes on the table meld `meld` (a card mask): `ON_SET`, `BELOW_RUN`
    or `ABOVE_RUN`. Only the direction is read here; whether the card fits is the rules' call."""
    ranks = {i % 13 for i in range(52) if meld >> i & 1}
    if len(ranks) == 1:
        return ON_SET
    if 0 in ranks and 12 in ranks and len(ranks) < 13:
        ranks = {13 if r == 0 else r for r in ranks}  # a run up to the ace above the king
    return BELOW_RUN if card % 13 == min(ranks) - 1 else ABOVE_RUN


class RummyActionCodec:
    """Classic Rummy's actions numbered, both ways (see the module docstring).

    Layoff numbers name a way to lay a card off rather than a meld's position on the table, so
    `index` and `action` need the table's melds (their card masks, in the order laid).

    >>> from ginrummy import Card, parse_cards
    >>> table = (parse_cards("6H 7H 8H").mask, parse_cards("9C 9D 9S").mask)
    >>> number = RUMMY_ACTIONS.index(LayOff(Card.parse("9H"), 1), table)
    >>> number, RUMMY_ACTIONS.action(number, table), RUMMY_ACTIONS.action(number + 2, table)
    (525, LayOff(card=Card.parse('9H'), meld=1), LayOff(card=Card.parse('9H'), meld=0))
    """

    __slots__ = ("melds", "_meld_index", "_first_meld", "_first_layoff", "_size")

    def __init__(self) -> None:
        self.melds: tuple[int, ...] = _all_melds()
        self._meld_index = {mask: i for i, mask in enumerate(self.melds)}
        self._first_meld = 54
        self._first_layoff = 54 + len(self.melds)
        self._size = self._first_layoff + 3 * 52

    def __len__(self) -> int:
        return self._size

    def index(self, action: GameAction, table: Sequence[int]) -> int:
        """The integer of `action` with these table melds; `KeyError` for an action Rummy does not have."""
        if isinstance(action, Draw):
            return 0 if action.source == "stock" else 1
        if isinstance(action, Discard):
            return 2 + action.card.index
        if isinstance(action, LayMeld):
            return self._first_meld + self._meld_index[action.cards.mask]
        if isinstance(action, LayOff):
            if not 0 <= action.meld < len(table):
                raise KeyError(f"there is no table meld {action.meld}")
            card = action.card.index
            return self._first_layoff + 3 * card + layoff_way(card, table[action.meld])
        raise KeyError(f"{action} is not a Rummy action")

    def action(self, index: int, table: Sequence[int], ace: AceRank = "either") -> GameAction:
        """The action numbered `index` with these table melds.

        `ValueError` names the range for a number out of it, and says so when no table meld
        takes the card that way (`ace` is the rules' ace rank, which says what fits).
        """
        if not 0 <= index < self._size:
            raise ValueError(f"action must be an integer from 0 to {self._size - 1}, got {index}")
        if index < 2:
            return DRAW_STOCK if index == 0 else DRAW_DISCARD
        if index < self._first_meld:
            return Discard(CARDS[index - 2])
        if index < self._first_layoff:
            return LayMeld(CardSet.from_mask(self.melds[index - self._first_meld]))
        card, way = divmod(index - self._first_layoff, 3)
        for number, meld in enumerate(table):
            if layoff_way(card, meld) == way and rummy_layoff_fits(CARDS[card], CardSet.from_mask(meld), ace):
                return LayOff(CARDS[card], number)
        raise ValueError(f"no table meld takes {CARDS[card]} {_WAYS[way]} (action {index})")

    def mask(self, legal: Iterable[GameAction], table: Sequence[int]) -> npt.NDArray[np.int8]:
        """An ``int8`` vector with a 1 for each legal action."""
        flags = bytearray(self._size)
        for action in legal:
            flags[self.index(action, table)] = 1
        return np.frombuffer(flags, dtype=np.int8)


#: The actions of classic Rummy, numbered as `RummyActionCodec` says.
RUMMY_ACTIONS: Final = RummyActionCodec()


def rummy_layout(players: int) -> ObservationLayout:
    """The observation layout of classic Rummy for `players` seats (relative to the observer)."""
    seats = range(players)
    return (
        LayoutBuilder(players)
        .plane("hand", PLANE_HAND)
        .plane("discard_pile", PLANE_PILE)
        .plane("upcard", PLANE_UPCARD)
        .plane("pile_order", PLANE_ORDER)
        .plane("table", "1 for each card in a meld on the table")
        .plane("layoff_spots", "1 for each card that could be laid off on a table meld now")
        .seat_planes(
            "laid_by_", seats, "cards relative seat N laid on the table this hand (melds and layoffs)"
        )
        .seat_planes("known_", range(1, players), PLANE_KNOWN)
        .seat_planes("discarded_by_", seats, PLANE_DISCARDED)
        .scalar("phase", len(RUMMY_PHASES), f"one-hot phase: {', '.join(RUMMY_PHASES)}")
        .scalar("stock_count", 1, "cards left in the stock / 52")
        .scalar("pile_count", 1, "cards in the discard pile / 52")
        .scalar("hand_sizes", players, "cards each relative seat holds / 13")
        .scalar(
            "scores",
            players,
            "each relative seat's balance (paid minus paid out) / the target, between -4 and 4",
            high=MAX_SCORE_RATIO,
            low=-MAX_SCORE_RATIO,
        )
        .scalar("dealer", players, "one-hot: the relative seat that dealt this hand")
        .scalar("turn", players, "one-hot: the relative seat whose turn it is")
        .scalar(
            "laid_before",
            players,
            "1 for each relative seat that laid a meld or laid off in an earlier turn (it can no longer go rummy)",
        )
        .scalar(
            "turnovers_left",
            1,
            "times the discard pile may still be turned over as a new stock",
            high=float(RANGES["stock_turnovers"][1]),
        )
        .scalar("to_act", 1, "1 when this seat has an action to take")
        .build()
    )


class RummyEncoder:
    """Turns Rummy views into observation vectors and action masks (`RUMMY_ACTIONS` numbering).

    Each call returns new arrays the caller may keep.
    """

    def __init__(self, rules: Rules) -> None:
        if rules.game != "rummy":
            raise ValueError(f"a Rummy encoder needs Rummy rules, not {rules.game!r}")
        self.rules = rules
        self.seats = rules.players
        self.codec = RUMMY_ACTIONS
        self.layout = rummy_layout(self.seats)
        self._plane = {name: 52 * i for i, name in enumerate(self.layout.planes)}
        self._scalar = {name: part.start for name, part in self.layout.scalars_slices().items()}

    def encode(self, view: RummyView) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The observation vector and the action mask of `view`."""
        n = self.seats
        if view.players != n:
            raise ValueError(f"this encoder is for {n} seats; the view has {view.players}")
        obs = np.zeros(self.layout.size, dtype=np.float32)
        at, sc = self._plane, self._scalar
        me = view.seat
        rel = [(me + r) % n for r in range(n)]
        _plane(obs, at["hand"], view.hand.mask)
        pile = [card.index for card in view.discard_pile]
        for place, index in enumerate(pile):
            obs[at["discard_pile"] + index] = 1.0
            obs[at["pile_order"] + index] = (place + 1) / 52
        if pile:
            obs[at["upcard"] + pile[-1]] = 1.0
        laid = [0] * n
        spots = 0
        ace = view.rules.ace
        for meld in view.table:
            _plane(obs, at["table"], meld.cards.mask)
            added = 0
            for card, seat in meld.added:
                laid[seat] |= 1 << card.index
                added |= 1 << card.index
            laid[meld.owner] |= meld.cards.mask & ~added
            spots |= rummy_layoff_cards(meld.cards, ace).mask
        _plane(obs, at["layoff_spots"], spots)
        discarded = [0] * n
        lays: list[list[int]] = [[] for _ in range(n)]  # history positions of each seat's lays
        last_draw = [-1] * n
        for position, event in enumerate(view.history):
            action = event.action
            if isinstance(action, Discard):
                discarded[event.seat] |= 1 << action.card.index
            elif isinstance(action, Draw):
                last_draw[event.seat] = position
            else:
                lays[event.seat].append(position)
        for r, seat in enumerate(rel):
            _plane(obs, at[f"laid_by_{r}"], laid[seat])
            _plane(obs, at[f"discarded_by_{r}"], discarded[seat])
            if r:
                _plane(obs, at[f"known_{r}"], view.known[seat].mask)
            obs[sc["hand_sizes"] + r] = view.hand_counts[seat] / 13
            score = view.scores[seat] / view.rules.target
            obs[sc["scores"] + r] = min(MAX_SCORE_RATIO, max(-MAX_SCORE_RATIO, score))
            if seat == view.dealer:
                obs[sc["dealer"] + r] = 1.0
            if seat == view.to_act:
                obs[sc["turn"] + r] = 1.0
            # Lays after the seat's last draw belong to the turn it is playing now.
            playing = seat == view.to_act and view.phase == "play"
            cutoff = last_draw[seat] if playing else len(view.history)
            if any(position < cutoff for position in lays[seat]):
                obs[sc["laid_before"] + r] = 1.0
        obs[sc["phase"] + _PHASE_INDEX[view.phase]] = 1.0
        obs[sc["stock_count"]] = view.stock_count / 52
        obs[sc["pile_count"]] = len(pile) / 52
        obs[sc["turnovers_left"]] = view.rules.stock_turnovers - view.turnovers
        if view.legal:
            obs[sc["to_act"]] = 1.0
        table = [meld.cards.mask for meld in view.table]
        return obs, self.codec.mask(view.legal, table)


def _plane(obs: npt.NDArray[np.float32], offset: int, cards: int) -> None:
    while cards:
        low = cards & -cards
        obs[offset + low.bit_length() - 1] = 1.0
        cards ^= low
