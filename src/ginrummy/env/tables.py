"""Arrays for three-player and team Gin: one seat's `GinTableView` as a vector, actions as in two-player Gin.

Everything here is computed from the seat's view (what it may know at a real table) and
nothing else. Seats are relative to the observer, in turn order: relative seat 0 is the
observer, 1 the next seat, and so on; sides too (three players: each seat is a side; team
Gin: relative side 0 is the observer's team). Actions are numbered as `ACTIONS`: these games
play ordinary two-player hands.

>>> from ginrummy import new_game
>>> game = new_game("gin4_teams", seed=2)
>>> encoder = GinTableEncoder(game.rules)
>>> obs, mask = encoder.encode(game.view(0))
>>> obs.shape, int(mask.sum()), encoder.layout.scalar_values(obs)["opponent"].tolist()
((915,), 2, [0.0, 1.0, 0.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from ..rules import GinTableView, Rules, TableHandView, parse_card
from .encoding import (
    ACTIONS,
    MAX_SCORE_RATIO,
    PHASES,
    PLANE_DECLINED,
    PLANE_DISCARDED,
    PLANE_HAND,
    PLANE_KNOWN,
    PLANE_ORDER,
    PLANE_PILE,
    PLANE_UPCARD,
    LayoutBuilder,
    ObservationLayout,
)

__all__ = ["GinTableEncoder", "gin_table_layout"]

_PHASE_INDEX: Final = {p: i for i, p in enumerate(PHASES)}
_PHASES_TEXT: Final = ", ".join(PHASES)


def gin_table_layout(rules: Rules) -> ObservationLayout:
    """The observation layout of three-player Gin (`gin3`) or team Gin (`gin4_teams`)."""
    if rules.game not in ("gin3", "gin4_teams"):
        raise ValueError(f"a Gin table layout is for gin3 or gin4_teams, not {rules.game!r}")
    seats = rules.players
    teams = rules.game == "gin4_teams"
    sides = 2 if teams else seats
    others = range(1, seats)
    mine = "the hand this seat plays" if teams else "the hand being played"
    build = (
        LayoutBuilder(seats)
        .plane("hand", PLANE_HAND + " (none while it sits a hand out)")
        .plane("discard_pile", f"{PLANE_PILE} of {mine}")
        .plane("upcard", f"{PLANE_UPCARD} of {mine}")
        .plane("pile_order", f"{PLANE_ORDER} of {mine}")
    )
    if teams:
        build = (
            build.plane("other_discard_pile", f"{PLANE_PILE} of the other hand")
            .plane("other_upcard", f"{PLANE_UPCARD} of the other hand")
            .plane("other_pile_order", f"{PLANE_ORDER} of the other hand")
        )
    build = (
        build.seat_planes("known_", others, PLANE_KNOWN)
        .seat_planes("discarded_by_", range(seats), PLANE_DISCARDED)
        .seat_planes("declined_by_", others, PLANE_DECLINED)
        .scalar("phase", len(PHASES), f"one-hot phase of {mine}: {_PHASES_TEXT}")
    )
    if teams:
        build = build.scalar("other_phase", len(PHASES), f"one-hot phase of the other hand: {_PHASES_TEXT}")
    build = build.scalar("stock_count", 1, f"cards left in the stock of {mine} / 52").scalar(
        "pile_count", 1, f"cards in the discard pile of {mine} / 52"
    )
    if teams:
        build = build.scalar("other_stock_count", 1, "cards left in the other hand's stock / 52").scalar(
            "other_pile_count", 1, "cards in the other hand's discard pile / 52"
        )
    side_words = "relative team (0: this seat's)" if teams else "relative seat"
    build = (
        build.scalar(
            "hand_sizes", seats, "cards each relative seat holds / 13 (0 while it sits out)", high=52 / 13
        )
        .scalar(
            "scores",
            sides,
            f"each {side_words}'s running total / the match target (capped at 4)",
            high=MAX_SCORE_RATIO,
        )
        .scalar(
            "dealer",
            sides,
            "one-hot: the relative team that dealt this round"
            if teams
            else "one-hot: the relative seat that dealt this hand and sits it out",
        )
        .scalar("knock_limit", 1, f"the knock limit of {mine} / 10", high=10.0)
    )
    if teams:
        build = build.scalar("other_knock_limit", 1, "the other hand's knock limit / 10", high=10.0).scalar(
            "opponent", seats, "one-hot: the relative seat this seat plays against this round"
        )
    return (
        build.scalar("turn", seats, "one-hot: each relative seat with a move to make now")
        .scalar("to_act", 1, "1 when this seat has an action to take")
        .build()
    )


class _TableFacts:
    """What the public history of one table says: who discarded and who declined what."""

    __slots__ = ("discarded", "declined", "held")

    def __init__(self, seats: int, table: TableHandView) -> None:
        self.discarded = [0] * seats
        self.declined = [0] * seats
        self.held = [0] * seats  # cards gained minus cards given up, per game seat
        upcard = _first_upcard(table)
        previous_discard = -1
        for entry in table.history:
            seat = int(entry["seat"])
            action = entry["action"]
            kind = action["type"]
            if kind == "discard":
                card = parse_card(action["card"]).index
                self.discarded[seat] |= 1 << card
                self.held[seat] -= 1
                previous_discard = card
                continue
            if kind == "pass":
                self.declined[seat] |= 1 << upcard
            elif kind == "draw":
                self.held[seat] += 1
                # A stock draw right after a discard leaves that card (after two passes the
                # stock draw is forced and declines nothing more).
                if action["source"] == "stock" and previous_discard >= 0:
                    self.declined[seat] |= 1 << previous_discard
            elif kind == "knock":
                self.held[seat] -= 1
            previous_discard = -1


def _first_upcard(table: TableHandView) -> int:
    """The hand's first upcard: the card taken in the first draw from the pile before any
    discard, else the bottom of the pile (which then still holds it)."""
    for entry in table.history:
        action = entry["action"]
        if action["type"] == "discard":
            break
        if action["type"] == "draw" and action["source"] == "discard":
            return parse_card(entry["card"]).index
    return table.discard_pile[0].index if table.discard_pile else 0


class GinTableEncoder:
    """Turns three-player or team Gin views into observation vectors and action masks.

    Each call returns new arrays the caller may keep.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.layout = gin_table_layout(rules)
        self.seats = rules.players
        self.teams = rules.game == "gin4_teams"
        self.codec = ACTIONS
        names = self.layout.planes
        self._plane = {name: 52 * i for i, name in enumerate(names)}
        self._scalar = {name: part.start for name, part in self.layout.scalars_slices().items()}

    def encode(self, view: GinTableView) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The observation vector and the action mask of `view`."""
        if view.game != self.rules.game or view.players != self.seats:
            raise ValueError(
                f"this encoder is for {self.rules.game} with {self.seats} seats; "
                f"the view is of {view.game} with {view.players}"
            )
        obs = np.zeros(self.layout.size, dtype=np.float32)
        n = self.seats
        me = view.seat
        rel = [(me + r) % n for r in range(n)]  # game seat of each relative seat
        at = self._plane
        sc = self._scalar
        mine = view.table if view.table is not None else 0
        order = [mine] + [t for t in range(len(view.tables)) if t != mine]
        discarded = [0] * n
        declined = [0] * n
        known = [0] * n
        sizes = [0] * n
        for position, number in enumerate(order):
            table = view.tables[number]
            facts = _TableFacts(n, table)
            prefix = "" if position == 0 else "other_"
            pile = [card.index for card in table.discard_pile]
            _plane(obs, at[f"{prefix}discard_pile"], pile)
            if pile:
                obs[at[f"{prefix}upcard"] + pile[-1]] = 1.0
            for place, card in enumerate(pile):
                obs[at[f"{prefix}pile_order"] + card] = (place + 1) / 52
            obs[sc[f"{prefix}phase"] + _PHASE_INDEX[table.phase]] = 1.0
            obs[sc[f"{prefix}stock_count"]] = table.stock_count / 52
            obs[sc[f"{prefix}pile_count"]] = len(pile) / 52
            limit = table.knock_limit
            obs[sc[f"{prefix}knock_limit"]] = (limit if limit < 100 else 100) / 10
            if table.to_act is not None:
                obs[sc["turn"] + (table.to_act - me) % n] = 1.0
            for inner, seat in enumerate(table.players):
                discarded[seat] |= facts.discarded[seat]
                declined[seat] |= facts.declined[seat]
                known[seat] |= table.known[inner].mask
                sizes[seat] = 10 + facts.held[seat]
            if position == 0 and table.hand is not None:
                _plane(obs, at["hand"], table.hand.mask)
                opponent = table.players[1 - table.players.index(me)]
                if self.teams:
                    obs[sc["opponent"] + (opponent - me) % n] = 1.0
        for r, seat in enumerate(rel):
            _plane(obs, at[f"discarded_by_{r}"], discarded[seat])
            if r:
                _plane(obs, at[f"known_{r}"], known[seat])
                _plane(obs, at[f"declined_by_{r}"], declined[seat])
            obs[sc["hand_sizes"] + r] = sizes[seat] / 13
        sides = 2 if self.teams else n
        my_side = me % 2 if self.teams else me
        target = view.rules.target
        for r in range(sides):
            side = (my_side + r) % sides
            score = view.scores[side] / target
            obs[sc["scores"] + r] = score if score < MAX_SCORE_RATIO else MAX_SCORE_RATIO
            if view.dealer == side:
                obs[sc["dealer"] + r] = 1.0
        if view.legal:
            obs[sc["to_act"]] = 1.0
        return obs, self.codec.mask(view.legal)


def _plane(obs: npt.NDArray[np.float32], offset: int, cards: int | Sequence[int]) -> None:
    """Set the entries of `cards` (a card mask or card indices) in the plane at `offset`."""
    if isinstance(cards, int):
        while cards:
            low = cards & -cards
            obs[offset + low.bit_length() - 1] = 1.0
            cards ^= low
        return
    for card in cards:
        obs[offset + card] = 1.0
