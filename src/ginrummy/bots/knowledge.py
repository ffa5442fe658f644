"""What a player can work out from its own view: card tracking, meld potential, discard danger.

Everything here reads a `View` (or the masks derived from one) and nothing else, so
any player may use it without seeing hidden cards. Cards are handled as 52-bit masks
(bit ``suit * 13 + rank``), the representation of `ginrummy.rules.CardSet.mask`, because
the players call these functions thousands of times per match.

Stable API (the levels and the expert import it):

- `track(view) -> Knowledge`: the public history of the hand decoded into masks:
  cards dead in the discard pile, cards the opponent took, threw and refused.
- `forms_meld(card, hand)`, `meld_cards(hand)`, `deadwood_cards(hand)`,
  `min_deadwood(hand)`: meld tests on masks.
- `discard_outcomes(hand11, banned)`: least deadwood after each possible discard.
- `partial_melds(hand, live)`: pairs and suited two-card draws with their live outs.
- `opponent_probabilities(k)`: per-card chance the opponent holds it (inference).
- `discard_danger(card, probs)`: chance the opponent can meld a discarded card.
- `layoff_exposure(hand10, probs)`: expected deadwood points the opponent could lay
  off on our melds after a knock.
- `expected_deadwood(hand, k, probs, horizon)`: deadwood still expected once the live
  outs of the hand's two-card draws had `horizon` draws to arrive.
- `stock_weights(k, probs)`: each unseen card with its chance of being the next stock card.
- `expected_deadwood_after_draw(hand10, stock)`: least deadwood expected after one stock
  draw and the best discard (one-step lookahead).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from ..rules import View
from ..rules.cards import CARD_POINTS, CARDS, RANK_POINTS
from ..rules.melds import RUN_CHOICE, _min_deadwood_mask

__all__ = [
    "FULL",
    "Knowledge",
    "bit_indices",
    "card_index",
    "deadwood_cards",
    "discard_danger",
    "discard_outcomes",
    "expected_deadwood",
    "expected_deadwood_after_draw",
    "expected_opponent_deadwood",
    "forms_meld",
    "layoff_exposure",
    "meld_cards",
    "min_deadwood",
    "mask_points",
    "opponent_probabilities",
    "partial_melds",
    "stock_weights",
    "track",
]

FULL: Final = (1 << 52) - 1
SUIT_BITS: Final = 0x1FFF
_INDEX: Final = {str(c): c.index for c in CARDS}
RANK_OF: Final = tuple(i % 13 for i in range(52))
SUIT_OF: Final = tuple(i // 13 for i in range(52))
# Mask of the four cards of each rank.
RANK_MASK: Final = tuple(sum(1 << (13 * s + r) for s in range(4)) for r in range(13))

min_deadwood = _min_deadwood_mask


def card_index(text: str) -> int:
    """Index of a card in rule-book notation (as found in a view's history)."""
    return _INDEX[text]


def bit_indices(mask: int) -> list[int]:
    """The card indices of a mask, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_points(mask: int) -> int:
    """Sum of the point values of the cards of a mask."""
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_POINTS[low.bit_length() - 1]
        mask ^= low
    return total


# -- meld tests on masks ------------------------------------------------------


def forms_meld(card: int, hand: int) -> bool:
    """True when `card` is part of some meld made of it and cards of `hand`."""
    rank = RANK_OF[card]
    if (hand & RANK_MASK[rank] & ~(1 << card)).bit_count() >= 2:
        return True
    suit_base = card - rank
    pattern = (hand >> suit_base) & SUIT_BITS
    below1 = rank >= 1 and pattern >> (rank - 1) & 1
    below2 = rank >= 2 and pattern >> (rank - 2) & 1
    above1 = rank <= 11 and pattern >> (rank + 1) & 1
    above2 = rank <= 10 and pattern >> (rank + 2) & 1
    return bool((below1 and (below2 or above1)) or (above1 and above2))


def meld_cards(hand: int) -> int:
    """Mask of the cards that are melded in one least-deadwood arrangement of `hand`."""
    return hand & ~deadwood_cards(hand)


def deadwood_cards(hand: int) -> int:
    """Mask of the deadwood cards of one least-deadwood arrangement of `hand`."""
    c = [(hand >> (13 * s)) & SUIT_BITS for s in range(4)]
    sets = (c[0] & c[1] & (c[2] | c[3])) | ((c[0] | c[1]) & c[2] & c[3])
    if not sets:
        return _runs_deadwood(c)
    # Few ranks can form sets; try each way of using them and keep the best.
    ranks = bit_indices(sets)
    best_value = 1000
    best_dead = hand
    choices: list[list[int]] = []
    for r in ranks:
        held = [s for s in range(4) if c[s] >> r & 1]
        opts = [0, sum(1 << s for s in held)]
        if len(held) == 4:
            opts.extend(15 & ~(1 << s) for s in held)
        choices.append(opts)

    def walk(i: int, removed: list[int]) -> None:
        nonlocal best_value, best_dead
        if i == len(ranks):
            left = [c[s] & ~removed[s] for s in range(4)]
            dead = _runs_deadwood(left)
            value = mask_points(dead)
            if value < best_value:
                best_value, best_dead = value, dead
            return
        r = ranks[i]
        for pattern in choices[i]:
            walk(i + 1, [removed[s] | ((pattern >> s & 1) << r) for s in range(4)])

    walk(0, [0, 0, 0, 0])
    return best_dead


def _runs_deadwood(suits: list[int]) -> int:
    dead = 0
    for s in range(4):
        pattern = suits[s]
        for low, length in RUN_CHOICE[pattern]:
            pattern &= ~(((1 << length) - 1) << low)
        dead |= pattern << (13 * s)
    return dead


def discard_outcomes(hand: int, banned: int = -1) -> dict[int, int]:
    """For an 11-card hand: each card that may be discarded -> least deadwood left."""
    out = {}
    m = hand
    while m:
        low = m & -m
        m ^= low
        i = low.bit_length() - 1
        if i != banned:
            out[i] = _min_deadwood_mask(hand ^ low)
    return out


# -- the public history -------------------------------------------------------


@dataclass(slots=True)
class Knowledge:
    """One seat's decoded knowledge of the current hand (all card sets as masks).

    ``unseen`` is every card this seat has not seen and cannot place: the stock plus
    the opponent's cards it has not seen taken. ``dead`` is the discard pile under the
    upcard (out of play for good); ``upcard`` is -1 when the pile is empty.
    """

    seat: int
    phase: str
    hand: int
    upcard: int
    dead: int
    pile: list[int]
    stock_count: int
    knock_limit: int
    opp_known: int  # cards the opponent took from the pile and still holds
    opp_taken: int  # every card the opponent took from the pile this hand
    opp_discards: list[int] = field(default_factory=list)  # in order
    opp_discarded: int = 0
    opp_refused: int = 0  # upcards the opponent passed or drew the stock over
    my_discarded: int = 0
    my_taken: int = 0
    taken: int = -1  # the card just taken from the pile (cannot be discarded now)
    opp_draws: int = 0
    my_draws: int = 0
    unseen: int = 0
    opp_unknown: int = 10  # opponent cards not in opp_known

    @property
    def opp_hand_size(self) -> int:
        """Cards the opponent holds now."""
        return self.opp_unknown + self.opp_known.bit_count()

    @property
    def live(self) -> int:
        """Cards that may still reach this seat: unseen cards plus the upcard."""
        return self.unseen | (1 << self.upcard if self.upcard >= 0 else 0)

    @property
    def turn(self) -> int:
        """Draws made by both seats this hand."""
        return self.opp_draws + self.my_draws


def track(view: View) -> Knowledge:
    """Decode `view` into a `Knowledge` (reads only the view's public fields)."""
    seat = view.seat
    hand = view.hand.mask
    pile = [c.index for c in view.discard_pile]
    history = view.history
    # Replay the pile backwards to its first upcard, then forwards to see what the
    # opponent refused each time it passed or drew from the stock.
    start = list(pile)
    for entry in reversed(history):
        action = entry["action"]
        kind = action["type"]
        if kind == "discard":
            start.pop()
        elif kind == "draw" and action["source"] == "discard":
            start.append(_INDEX[entry["card"]])
    current = start
    opp_taken = opp_discarded = opp_refused = my_discarded = my_taken = 0
    opp_discards: list[int] = []
    opp_draws = my_draws = 0
    taken = -1
    for entry in history:
        action = entry["action"]
        kind = action["type"]
        mine = entry["seat"] == seat
        if kind == "draw":
            if action["source"] == "discard":
                card = current.pop()
                if mine:
                    my_taken |= 1 << card
                    taken = card
                else:
                    opp_taken |= 1 << card
            else:
                if not mine and current:
                    opp_refused |= 1 << current[-1]
                taken = -1
            if mine:
                my_draws += 1
            else:
                opp_draws += 1
        elif kind == "discard":
            card = _INDEX[action["card"]]
            current.append(card)
            if mine:
                my_discarded |= 1 << card
            else:
                opp_discarded |= 1 << card
                opp_discards.append(card)
            taken = -1
        elif kind == "pass" and not mine and current:
            opp_refused |= 1 << current[-1]
    top = pile[-1] if pile else -1
    dead = 0
    for card in pile[:-1]:
        dead |= 1 << card
    opp_known = view.opponent_known.mask
    pile_mask = dead | (1 << top if top >= 0 else 0)
    unseen = FULL & ~hand & ~pile_mask & ~opp_known
    # Whenever this seat has a decision to make, the opponent holds ten cards.
    opp_size = 10
    return Knowledge(
        seat=seat,
        phase=view.phase,
        hand=hand,
        upcard=top,
        dead=dead,
        pile=pile,
        stock_count=view.stock_count,
        knock_limit=view.knock_limit,
        opp_known=opp_known,
        opp_taken=opp_taken,
        opp_discards=opp_discards,
        opp_discarded=opp_discarded,
        opp_refused=opp_refused,
        my_discarded=my_discarded,
        my_taken=my_taken,
        taken=taken if view.phase == "discard" else -1,
        opp_draws=opp_draws,
        my_draws=my_draws,
        unseen=unseen,
        opp_unknown=opp_size - opp_known.bit_count(),
    )


# -- meld potential -------------------------------------------------------------


def partial_melds(hand: int, live: int) -> list[tuple[int, int]]:
    """Two-card meld draws among `hand`: (mask of the two cards, mask of live outs).

    A pair of one rank is completed by the other cards of that rank; two suited
    cards one or two ranks apart by the cards that make them a run of three.
    Only outs in `live` count (pass ``FULL`` to ignore card tracking).
    """
    out: list[tuple[int, int]] = []
    # Pairs (and more) of one rank.
    for r in range(13):
        held = hand & RANK_MASK[r]
        if held.bit_count() == 2:
            out.append((held, RANK_MASK[r] & ~held & live))
    for s in range(4):
        base = 13 * s
        pattern = (hand >> base) & SUIT_BITS
        m = pattern
        while m:
            low = m & -m
            m ^= low
            r = low.bit_length() - 1
            if r + 1 < 13 and pattern >> (r + 1) & 1:
                outs = 0
                if r >= 1:
                    outs |= 1 << (base + r - 1)
                if r + 2 < 13:
                    outs |= 1 << (base + r + 2)
                out.append(((3 << r) << base, outs & live))
            if r + 2 < 13 and pattern >> (r + 2) & 1 and not pattern >> (r + 1) & 1:
                out.append(((5 << r) << base, (1 << (base + r + 1)) & live))
    return out


# -- opponent inference and danger ----------------------------------------------


def opponent_probabilities(k: Knowledge, *, inference: bool = True) -> list[float]:
    """For each card index, the estimated chance that the opponent holds it now.

    Cards seen taken and kept are certain; cards in our hand or the pile are
    impossible. The rest share the opponent's unknown cards. With `inference`, an
    unseen card is likelier when it would meld with cards the opponent took, and
    less likely when it would have melded with cards the opponent threw away or refused
    (a player keeps what it can use and throws what it cannot).
    """
    probs = [0.0] * 52
    unseen = bit_indices(k.unseen)
    if not unseen:
        for i in bit_indices(k.opp_known):
            probs[i] = 1.0
        return probs
    weights = {}
    for i in unseen:
        w = 1.0
        if inference:
            w *= _affinity(i, k.opp_taken, 1.9, 1.45)
            w *= _affinity(i, k.opp_discarded | k.opp_refused, 0.55, 0.75)
        weights[i] = w
    total = sum(weights.values())
    scale = k.opp_unknown / total if total else 0.0
    for i, w in weights.items():
        probs[i] = min(0.97, w * scale)
    for i in bit_indices(k.opp_known):
        probs[i] = 1.0
    return probs


def _affinity(card: int, cards: int, same_rank: float, near_suit: float) -> float:
    """Weight factor for `card` given how it relates to the cards of a mask."""
    if not cards:
        return 1.0
    w = 1.0
    rank = RANK_OF[card]
    if cards & RANK_MASK[rank] & ~(1 << card):
        w *= same_rank
    base = card - rank
    pattern = (cards >> base) & SUIT_BITS
    near = 0
    if rank >= 1:
        near |= pattern >> (rank - 1) & 1
    if rank + 1 < 13:
        near |= pattern >> (rank + 1) & 1
    if near:
        w *= near_suit
    elif (rank >= 2 and pattern >> (rank - 2) & 1) or (rank + 2 < 13 and pattern >> (rank + 2) & 1):
        w *= (1.0 + near_suit) / 2
    return w


def discard_danger(card: int, probs: list[float]) -> float:
    """Chance the opponent can put `card` into a meld (or lay it on one) if we throw it.

    Combines the chances of the card pairs that would meld with it: two more of its
    rank, or suited neighbours below, around or above it.
    """
    rank = RANK_OF[card]
    base = card - rank
    others = [probs[base2 + rank] for base2 in (0, 13, 26, 39) if base2 != base]
    miss = 1.0
    # Sets: any two of the other three cards of the rank.
    a, b, c = others
    miss *= 1.0 - (a * b + a * c + b * c - 2 * a * b * c)
    # Runs: (r-2, r-1), (r-1, r+1), (r+1, r+2).
    p = [probs[base + r] if 0 <= r < 13 else 0.0 for r in (rank - 2, rank - 1, rank + 1, rank + 2)]
    miss *= 1.0 - p[0] * p[1]
    miss *= 1.0 - p[1] * p[2]
    miss *= 1.0 - p[2] * p[3]
    return 1.0 - miss


def layoff_exposure(hand: int, probs: list[float]) -> float:
    """Expected deadwood points the opponent could lay off on the melds of `hand`."""
    melded = meld_cards(hand)
    targets = 0
    for r in range(13):
        held = melded & RANK_MASK[r]
        if held.bit_count() == 3:
            targets |= RANK_MASK[r] & ~held
    for s in range(4):
        pattern = (melded >> (13 * s)) & SUIT_BITS
        ends = ((pattern << 1) | (pattern >> 1)) & ~pattern & SUIT_BITS
        # A card at a run end counts only if it touches a run (not a lone set card).
        for r in bit_indices(ends):
            lo = pattern >> (r + 1) & 7 == 7 if r + 3 <= 13 else False
            hi = r >= 3 and (pattern >> (r - 3)) & 7 == 7
            if lo or hi:
                targets |= 1 << (13 * s + r)
    return sum(probs[i] * CARD_POINTS[i] for i in bit_indices(targets & ~hand))


def rank_points(card: int) -> int:
    """Point value of a card index."""
    return RANK_POINTS[RANK_OF[card]]


# -- hand values ----------------------------------------------------------------


def expected_deadwood(
    hand: int, k: Knowledge, probs: list[float], horizon: float = 4.0, weight: float = 1.0
) -> float:
    """Deadwood of `hand` still expected after about `horizon` more draws.

    Each deadwood card that belongs to a two-card draw (a pair, or suited cards one or
    two apart) may still be melded: every live out of the draw arrives with a chance
    of ``horizon / stock`` and is not already in the opponent's hand with chance
    ``1 - probs[out]``. A card's points count times the chance none of its draws
    completes (`weight` scales how much that chance is trusted).
    """
    dead = deadwood_cards(hand)
    if not dead:
        return 0.0
    q = min(0.9, horizon / max(4, k.stock_count))
    miss: dict[int, float] = {}
    for pair, outs in partial_melds(dead, k.unseen):
        none = 1.0
        while outs:
            low = outs & -outs
            outs ^= low
            none *= 1.0 - q * (1.0 - probs[low.bit_length() - 1])
        m = pair
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            miss[c] = miss.get(c, 1.0) * none
    total = 0.0
    m = dead
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        total += CARD_POINTS[c] * (1.0 - weight * (1.0 - miss.get(c, 1.0)))
    return total


def expected_opponent_deadwood(k: Knowledge) -> float:
    """A rough figure for the opponent's deadwood now, from how long it has played.

    About 55 after the deal, some four points fewer per draw, six fewer per card it
    took from the discard pile (taken to build melds), never below 6.
    """
    est = 55.0 - 4.0 * k.opp_draws - 6.0 * k.opp_taken.bit_count()
    return max(6.0, est)


def stock_weights(k: Knowledge, probs: list[float]) -> list[tuple[int, float]]:
    """Each unseen card with the chance that it is the next card of the stock."""
    weights = [(c, 1.0 - probs[c]) for c in bit_indices(k.unseen)]
    total = sum(w for _, w in weights)
    if total <= 0:
        return []
    return [(c, w / total) for c, w in weights]


def expected_deadwood_after_draw(hand: int, stock: list[tuple[int, float]]) -> float:
    """The least deadwood expected after drawing one stock card and discarding the best card."""
    now = _min_deadwood_mask(hand)
    if not stock:
        return float(now)
    total = 0.0
    for card, weight in stock:
        with_card = hand | 1 << card
        best = now
        m = with_card
        while m:
            low = m & -m
            m ^= low
            d = _min_deadwood_mask(with_card ^ low)
            if d < best:
                best = d
        total += weight * best
    return total
