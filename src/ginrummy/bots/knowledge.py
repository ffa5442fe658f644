"""What a player can work out from its own view: the public history decoded, card tracking,
the opponent's likely cards, the danger of a discard and the value of a hand.

Everything here reads a `View` (or the masks derived from one) and nothing else, so any
player may use it without seeing hidden cards. Cards are 52-bit masks as in
`ginrummy.rules.masks`, where every rule lives; this module holds the players' estimates.
The levels, the hints and the expert all use it:

- `track(view) -> Knowledge`: the hand's public history decoded once: cards dead in the
  pile, what the opponent took, threw and refused, in order (`Knowledge.events`).
- Opponent models, each a list of 52 chances that the opponent holds a card:
  `opponent_probabilities` (per-card affinity to what it took, threw and refused: the
  levels' reading) and `card_probs` (pairs of partners of each move: the expert's).
- `discard_danger` / `meld_danger`: the chance a thrown card completes an opponent meld
  under each model's way of combining partner odds.
- `partial_melds`, `expected_deadwood`, `layoff_exposure`, `expected_opponent_deadwood`.
- `stock_weights` and `expected_after_draw`: the next stock card, and the hand's least
  deadwood (or its certainty equivalent under a falling utility) after that draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from ..rules import View
from ..rules.cards import CARD_POINTS
from ..rules.fast_core import (
    FULL_DECK,
    RANK_MASKS,
    RANK_OF,
    SUIT_BITS,
    bits,
    deadwood_cards,
    least_after_discard,
    least_deadwood,
    meld_partners,
)

__all__ = [
    "DISCARDED",
    "Knowledge",
    "OppEvent",
    "PASSED",
    "STOCK",
    "TOOK",
    "card_probs",
    "card_weights",
    "discard_danger",
    "expected_after_draw",
    "expected_deadwood",
    "expected_opponent_deadwood",
    "layoff_exposure",
    "meld_danger",
    "meld_draw_count",
    "opponent_probabilities",
    "partial_melds",
    "stock_weights",
    "track",
]

# Kinds of opponent moves in `Knowledge.events`.
PASSED: Final = 0  # declined an upcard (offer pass, or a stock draw while an upcard was there)
TOOK: Final = 1  # took the upcard
DISCARDED: Final = 2  # discarded a card face up
STOCK: Final = 3  # drew a card this seat did not see


@dataclass(frozen=True, slots=True)
class OppEvent:
    """One opponent move: its kind, the card the table saw (-1 if none) and when (ply)."""

    kind: int
    card: int
    ply: int


@dataclass(slots=True)
class Knowledge:
    """One seat's decoded knowledge of the current hand (card sets as masks).

    ``unseen`` is every card this seat has not seen and cannot place: the stock plus
    the opponent's cards it has not seen taken. ``dead`` is the discard pile under the
    upcard (out of play for good); ``upcard`` is -1 when the pile is empty.
    """

    seat: int
    phase: str
    hand: int
    upcard: int
    dead: int
    stock_count: int
    knock_limit: int
    opp_known: int  # cards the opponent took from the pile and still holds
    opp_taken: int = 0  # every card the opponent took from the pile this hand
    opp_discarded: int = 0
    opp_refused: int = 0  # upcards the opponent passed or drew the stock over
    taken: int = -1  # the card just taken from the pile (cannot be discarded now)
    opp_draws: int = 0
    my_draws: int = 0
    unseen: int = 0
    #: The opponent's moves in order (what the expert's inference replays).
    events: list[OppEvent] = field(default_factory=list)

    @property
    def opp_hidden(self) -> int:
        """How many of the opponent's ten cards this seat has not seen."""
        return 10 - self.opp_known.bit_count()

    @property
    def pile_mask(self) -> int:
        """Every card of the discard pile, the upcard included."""
        return self.dead | (1 << self.upcard if self.upcard >= 0 else 0)


def track(view: View) -> Knowledge:
    """Decode `view` into a `Knowledge` (reads only the view's public fields)."""
    seat = view.seat
    hand = view.hand.mask
    pile = [c.index for c in view.discard_pile]
    history = view.history
    # Replay the pile backwards to its first upcard, then forwards to see what the
    # opponent refused each time it passed or drew from the stock.
    current = list(pile)
    for entry in reversed(history):
        if entry.kind == "discard":
            current.pop()
        elif entry.kind == "draw" and entry.source == "discard":
            assert entry.card is not None  # a card taken from the pile is seen by both seats
            current.append(entry.card.index)
    k = Knowledge(
        seat=seat,
        phase=view.phase,
        hand=hand,
        upcard=pile[-1] if pile else -1,
        dead=0,
        stock_count=view.stock_count,
        knock_limit=view.knock_limit,
        opp_known=view.opponent_known.mask,
    )
    events = k.events
    passes = 0
    taken = -1
    for ply, entry in enumerate(history):
        kind = entry.kind
        mine = entry.seat == seat
        if kind == "draw":
            if entry.source == "discard":
                card = current.pop()
                if mine:
                    taken = card
                    k.my_draws += 1
                else:
                    k.opp_taken |= 1 << card
                    k.opp_draws += 1
                    events.append(OppEvent(TOOK, card, ply))
            else:
                taken = -1
                if mine:
                    k.my_draws += 1
                else:
                    k.opp_draws += 1
                    if current:
                        k.opp_refused |= 1 << current[-1]
                        # Both players passed the first upcard: this draw was forced.
                        if not (passes == 2 and ply == 2):
                            events.append(OppEvent(PASSED, current[-1], ply))
                    events.append(OppEvent(STOCK, -1, ply))
        elif kind == "discard":
            assert entry.card is not None
            card = entry.card.index
            current.append(card)
            if not mine:
                k.opp_discarded |= 1 << card
                events.append(OppEvent(DISCARDED, card, ply))
            taken = -1
        elif kind == "pass":
            passes += 1
            if not mine and current:
                k.opp_refused |= 1 << current[-1]
                events.append(OppEvent(PASSED, current[-1], ply))
    for card in pile[:-1]:
        k.dead |= 1 << card
    k.taken = taken if view.phase == "discard" else -1
    k.unseen = FULL_DECK & ~hand & ~k.pile_mask & ~k.opp_known
    return k


# -- meld potential -------------------------------------------------------------


def partial_melds(hand: int, live: int) -> list[tuple[int, int]]:
    """Two-card meld draws among `hand`: (mask of the two cards, mask of live outs).

    A pair of one rank is completed by the other cards of that rank; two suited
    cards one or two ranks apart by the cards that make them a run of three.
    Only outs in `live` count (pass ``FULL_DECK`` to ignore card tracking).
    """
    out: list[tuple[int, int]] = []
    # Pairs (and more) of one rank.
    for r in range(13):
        held = hand & RANK_MASKS[r]
        if held.bit_count() == 2:
            out.append((held, RANK_MASKS[r] & ~held & live))
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


def meld_draw_count(hand: int) -> int:
    """`len(partial_melds(hand, FULL_DECK))` counted by bit operations on the suits' rank patterns."""
    s0, s1, s2, s3 = (hand >> (13 * s) & SUIT_BITS for s in range(4))
    # Ranks held exactly twice: the suits added in pairs, one bit of "one" and one of "two" each.
    one_a, two_a = s0 ^ s1, s0 & s1
    one_b, two_b = s2 ^ s3, s2 & s3
    pairs = (one_a & one_b) | (two_a & ~(one_b | two_b)) | (two_b & ~(one_a | two_a))
    count = pairs.bit_count()
    for pattern in (s0, s1, s2, s3):
        # Suited cards one rank apart, and two apart with the middle rank missing.
        count += (pattern & (pattern >> 1)).bit_count()
        count += (pattern & (pattern >> 2) & ~(pattern >> 1)).bit_count()
    return count


# -- opponent models and danger ------------------------------------------------------


def opponent_probabilities(k: Knowledge, *, inference: bool = True) -> list[float]:
    """For each card index, the estimated chance that the opponent holds it now.

    Cards seen taken and kept are certain; cards in our hand or the pile are
    impossible. The rest share the opponent's unknown cards. With `inference`, an
    unseen card is likelier when it would meld with cards the opponent took, and
    less likely when it would have melded with cards the opponent threw away or refused
    (a player keeps what it can use and throws what it cannot).
    """
    probs = [0.0] * 52
    unseen = bits(k.unseen)
    if not unseen:
        for i in bits(k.opp_known):
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
    scale = k.opp_hidden / total if total else 0.0
    for i, w in weights.items():
        probs[i] = min(0.97, w * scale)
    for i in bits(k.opp_known):
        probs[i] = 1.0
    return probs


def _affinity(card: int, cards: int, same_rank: float, near_suit: float) -> float:
    """Weight factor for `card` given how it relates to the cards of a mask."""
    if not cards:
        return 1.0
    w = 1.0
    rank = RANK_OF[card]
    if cards & RANK_MASKS[rank] & ~(1 << card):
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
    melded = hand & ~deadwood_cards(hand)
    targets = 0
    for r in range(13):
        held = melded & RANK_MASKS[r]
        if held.bit_count() == 3:
            targets |= RANK_MASKS[r] & ~held
    for s in range(4):
        pattern = (melded >> (13 * s)) & SUIT_BITS
        ends = ((pattern << 1) | (pattern >> 1)) & ~pattern & SUIT_BITS
        # A card at a run end counts only if it touches a run (not a lone set card).
        for r in bits(ends):
            lo = pattern >> (r + 1) & 7 == 7 if r + 3 <= 13 else False
            hi = r >= 3 and (pattern >> (r - 3)) & 7 == 7
            if lo or hi:
                targets |= 1 << (13 * s + r)
    return sum(probs[i] * CARD_POINTS[i] for i in bits(targets & ~hand))


# How strongly each kind of opponent move shifts the odds of the cards next to it
# (`card_weights`; measured log-loss 0.547 against 0.587 for uniform odds, and well calibrated).
TOOK_PARTNER: Final = 2.25  # a partner of a card it took: likely held
PASSED_PARTNER: Final = 0.73  # a partner of a card it passed: less likely
PASSED_PAIR_OTHER: Final = 0.15  # the other half of a pair with a held card, around a passed card
DISCARDED_PARTNER: Final = 0.6  # a partner of a card it threw
# Each half of a pair carries the square root of the pair's factor.
_TOOK: Final = TOOK_PARTNER**0.5
_PASSED: Final = PASSED_PARTNER**0.5
_DISCARDED: Final = DISCARDED_PARTNER**0.5


def card_weights(k: Knowledge) -> list[float]:
    """A relative weight per card for being among the opponent's hidden cards (0 if seen)."""
    unseen = k.unseen
    w = [1.0 if unseen >> c & 1 else 0.0 for c in range(52)]
    known_so_far = 0
    for ev in k.events:
        c = ev.card
        if ev.kind == TOOK:
            for a, b in meld_partners(c):
                # The pair that made the meld: both halves likely held (unless seen elsewhere).
                if (unseen | k.opp_known) >> a & 1 and (unseen | k.opp_known) >> b & 1:
                    w[a] *= _TOOK
                    w[b] *= _TOOK
            known_so_far |= 1 << c
        elif ev.kind == PASSED and c >= 0:
            for a, b in meld_partners(c):
                if known_so_far >> a & 1:
                    w[b] *= PASSED_PAIR_OTHER
                elif known_so_far >> b & 1:
                    w[a] *= PASSED_PAIR_OTHER
                else:
                    w[a] *= _PASSED
                    w[b] *= _PASSED
        elif ev.kind == DISCARDED and c >= 0:
            known_so_far &= ~(1 << c)
            for a, b in meld_partners(c):
                w[a] *= _DISCARDED
                w[b] *= _DISCARDED
    for c in range(52):
        if not unseen >> c & 1:
            w[c] = 0.0
    return w


def card_probs(k: Knowledge, weights: list[float] | None = None) -> list[float]:
    """P(card is in the opponent's hand) for all 52 cards: 1 for cards seen it take and keep,
    0 for cards seen elsewhere, weighted shares of the hidden count for the rest."""
    w = card_weights(k) if weights is None else weights
    n = k.opp_hidden
    probs = [0.0] * 52
    free = [c for c in range(52) if w[c] > 0]
    fixed: dict[int, float] = {}
    # Scale weights to sum to the hidden count, capping each probability at 1.
    for _ in range(6):
        rest = [c for c in free if c not in fixed]
        total = sum(w[c] for c in rest)
        need = n - len(fixed)
        if total <= 0 or need <= 0:
            break
        scale = need / total
        over = [c for c in rest if w[c] * scale >= 1.0]
        if not over:
            for c in rest:
                probs[c] = w[c] * scale
            break
        for c in over:
            fixed[c] = 1.0
    for c in fixed:
        probs[c] = 1.0
    known = k.opp_known
    for c in range(52):
        if known >> c & 1:
            probs[c] = 1.0
    return probs


def meld_danger(card: int, probs: list[float]) -> float:
    """Chance the opponent holds two cards that make a meld with `card` (the expert's danger)."""
    miss = 1.0
    for a, b in meld_partners(card):
        miss *= 1.0 - probs[a] * probs[b]
    return 1.0 - miss


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
    weights = [(c, 1.0 - probs[c]) for c in bits(k.unseen)]
    total = sum(w for _, w in weights)
    if total <= 0:
        return []
    return [(c, w / total) for c, w in weights]


def _build_neighbourhoods() -> tuple[int, ...]:
    """For each card, the mask of cards that could share a meld with it (same rank, or
    same suit within two ranks)."""
    out = []
    for c in range(52):
        rank, suit = c % 13, c // 13
        m = 0
        for s in range(4):
            if s != suit:
                m |= 1 << (s * 13 + rank)
        for r in range(max(0, rank - 2), min(12, rank + 2) + 1):
            if r != rank:
                m |= 1 << (suit * 13 + r)
        out.append(m)
    return tuple(out)


_NEIGHBOURS: Final = _build_neighbourhoods()


def _by_points(mask: int) -> list[tuple[int, int]]:
    """(points, bit) for each card of `mask`, highest points first."""
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append((CARD_POINTS[low.bit_length() - 1], low))
    out.sort(reverse=True)
    return out


def _best_after_draw(hand10: int, card: int, order: list[tuple[int, int]], cache: dict[int, int]) -> int:
    """Least deadwood after adding `card` to `hand10` and discarding the best card.

    Discarding a card worth p lowers the eleven-card deadwood by at most p, so trying
    cards from the highest value down stops as soon as no card can beat the best found.
    `order` is `_by_points(hand10)`; `cache` keeps the least deadwood of hands already met.
    """
    h = hand10 | 1 << card
    whole = least_deadwood(h)
    if whole == 0:
        return 0
    best = 1000
    pc = CARD_POINTS[card]
    low_c = 1 << card
    inserted = False
    for pts, low in order:
        if not inserted and pc >= pts:
            inserted = True
            if whole - pc >= best:
                return best
            d = least_deadwood(h ^ low_c)
            if d < best:
                best = d
        if whole - pts >= best:
            return best
        key = h ^ low
        d = cache.get(key, -1)
        if d < 0:
            d = cache[key] = least_deadwood(key)
        if d < best:
            best = d
    if not inserted and whole - pc < best:
        d = least_deadwood(h ^ low_c)
        if d < best:
            best = d
    return best


def expected_after_draw(
    hand10: int,
    stock: list[tuple[int, float]],
    total: float = 1.0,
    risk_tau: float = 0.0,
    cache: dict[int, int] | None = None,
) -> float:
    """Expected least deadwood of `hand10` after one more draw and discard, the next card
    being each card of `stock` ((card, weight) pairs, weights summing to `total`).

    With `risk_tau` > 0, the certainty equivalent under the utility exp(-deadwood / tau)
    instead: a hand with a chance of Gin or of a low count is worth more than its
    expected deadwood says. `cache` (least deadwood by hand) may be shared by the calls of
    one decision, which meet the same eleven-card hands many times.
    """
    if not stock:
        return float(least_deadwood(hand10))
    if cache is None:
        cache = {}
    utility = _utility(risk_tau) if risk_tau > 0 else None
    acc = 0.0
    base = least_deadwood(hand10)
    nine = -1
    order = _by_points(hand10)
    for c, w in stock:
        if w <= 0:
            continue
        if hand10 & _NEIGHBOURS[c]:
            d = _best_after_draw(hand10, c, order, cache)
        else:
            # A card that melds with nothing in hand is thrown back or kept as deadwood.
            if nine < 0:
                nine = least_after_discard(hand10)
            d = min(base, nine + CARD_POINTS[c])
        acc += w * (d if utility is None else utility[d])
    if utility is None:
        return acc / total
    return -risk_tau * math.log(acc / total)


@lru_cache(maxsize=8)
def _utility(tau: float) -> tuple[float, ...]:
    """exp(-deadwood / tau) for every deadwood a hand can hold (0 to 120)."""
    return tuple(math.exp(-d / tau) for d in range(121))
