"""What the expert knows about a hand: its cards, every card seen, and the opponent's moves.

Everything here is rebuilt from one seat's View (hand, discard pile, opponent_known and the
public history), so the expert never needs more than PROTOCOL.md gives it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules import View
from ..rules.cards import CARD_POINTS, parse_card

__all__ = ["Knowledge", "OppEvent", "read_view", "ALL_CARDS", "meld_partners", "forms_meld"]

ALL_CARDS = (1 << 52) - 1
_SUIT = 0x1FFF

# Event kinds in the opponent's part of the history.
PASSED = 0  # declined an upcard (offer pass, or a stock draw while an upcard was there)
TOOK = 1  # took the upcard
DISCARDED = 2  # discarded a card face up
STOCK = 3  # drew a card we did not see


@dataclass(frozen=True, slots=True)
class OppEvent:
    """One opponent move: its kind, the card the table saw (-1 if none) and when (ply)."""

    kind: int
    card: int
    ply: int


@dataclass(slots=True)
class Knowledge:
    """The expert's picture of the current hand, as card-index masks and lists."""

    seat: int
    phase: str
    hand: int
    pile: list[int]
    opp_known: int
    stock_count: int
    knock_limit: int
    #: The card this seat just took from the discard pile (may not be discarded now), else -1.
    taken: int
    events: list[OppEvent] = field(default_factory=list)
    #: Cards this seat discarded, in order.
    my_discards: list[int] = field(default_factory=list)
    my_draws: int = 0
    opp_draws: int = 0
    #: True when the opponent drew first in this hand (it is the non-dealer).
    plies: int = 0

    @property
    def pile_mask(self) -> int:
        """The cards in the discard pile (dead for any meld)."""
        m = 0
        for c in self.pile:
            m |= 1 << c
        return m

    @property
    def unseen(self) -> int:
        """Cards this seat has never seen: in the stock or the opponent's hidden cards."""
        return ALL_CARDS & ~(self.hand | self.pile_mask | self.opp_known)

    @property
    def opp_hidden(self) -> int:
        """How many of the opponent's ten cards this seat has not seen."""
        return 10 - self.opp_known.bit_count()

    @property
    def upcard(self) -> int:
        """The top of the discard pile, or -1."""
        return self.pile[-1] if self.pile else -1


def read_view(view: View) -> Knowledge:
    """Rebuild the expert's knowledge from a view of its own turn."""
    me = view.seat
    pile = [c.index for c in view.discard_pile]
    k = Knowledge(
        seat=me,
        phase=view.phase,
        hand=view.hand.mask,
        pile=pile,
        opp_known=view.opponent_known.mask,
        stock_count=view.stock_count,
        knock_limit=view.knock_limit,
        taken=-1,
    )
    # The upcard offered first is the bottom of the pile unless someone took it then.
    first_up = pile[0] if pile else -1
    history = view.history
    for entry in history:
        a = entry["action"]
        if a["type"] == "discard":
            break
        if a["type"] == "draw" and a.get("source") == "discard" and "card" in entry:
            first_up = parse_card(entry["card"]).index
            break
    up = first_up
    passes = 0
    last_was_my_take = -1
    for ply, entry in enumerate(history):
        seat = entry["seat"]
        a = entry["action"]
        kind = a["type"]
        mine = seat == me
        last_was_my_take = -1
        if kind == "pass":
            passes += 1
            if not mine:
                k.events.append(OppEvent(PASSED, up, ply))
        elif kind == "draw":
            if a.get("source") == "discard":
                card = parse_card(entry["card"]).index if "card" in entry else up
                if mine:
                    k.my_draws += 1
                    last_was_my_take = card
                else:
                    k.opp_draws += 1
                    k.events.append(OppEvent(TOOK, card, ply))
                up = -1
            else:
                forced = passes == 2 and up == first_up
                if mine:
                    k.my_draws += 1
                else:
                    k.opp_draws += 1
                    if up >= 0 and not forced:
                        k.events.append(OppEvent(PASSED, up, ply))
                    k.events.append(OppEvent(STOCK, -1, ply))
                up = -1
        elif kind in ("discard", "knock"):
            card = parse_card(a["card"]).index if "card" in a else -1
            if mine:
                if card >= 0:
                    k.my_discards.append(card)
            elif card >= 0:
                k.events.append(OppEvent(DISCARDED, card, ply))
            up = card
    k.plies = len(history)
    if view.phase == "discard" and last_was_my_take >= 0:
        k.taken = last_was_my_take
    return k


def meld_partners(card: int) -> list[tuple[int, int]]:
    """Pairs of other cards that make a meld with `card` (two of its rank, or run neighbours)."""
    rank, suit = card % 13, card // 13
    pairs: list[tuple[int, int]] = []
    others = [s * 13 + rank for s in range(4) if s != suit]
    pairs.extend([(others[0], others[1]), (others[0], others[2]), (others[1], others[2])])
    base = suit * 13
    for lo in (rank - 2, rank - 1, rank):
        hi = lo + 2
        if lo < 0 or hi > 12:
            continue
        run = [base + r for r in range(lo, hi + 1) if r != rank]
        pairs.append((run[0], run[1]))
    return pairs


def forms_meld(hand: int, card: int) -> bool:
    """True when `card` makes a set or a run with at least two cards of `hand`."""
    rank, suit = card % 13, card // 13
    n = 0
    for s in range(4):
        if s != suit and hand >> (s * 13 + rank) & 1:
            n += 1
    if n >= 2:
        return True
    pattern = (hand >> (13 * suit) & _SUIT) | (1 << rank)
    lo = rank
    while lo > 0 and pattern >> (lo - 1) & 1:
        lo -= 1
    hi = rank
    while hi < 12 and pattern >> (hi + 1) & 1:
        hi += 1
    return hi - lo >= 2


POINTS = CARD_POINTS
