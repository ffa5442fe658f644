"""A fast hand simulator on card masks, for the expert's Monte-Carlo rollouts.

One side ("me") plays a quick version of the expert's own policy, the other a model of
the opponent (by default one that knocks at the first chance, like most programs). Cards
are indices ``suit * 13 + rank``; hands are int masks; the stock is a list whose last item
is its top. Nothing here reads a View: the caller builds the determinized state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules.cards import CARD_POINTS
from ..rules.melds import RUN_CHOICE, RUN_DEADWOOD, _min_deadwood_mask
from ..rules.showdown import _best_defence
from .expert_knowledge import meld_partners

__all__ = [
    "SimRules",
    "RolloutPolicy",
    "best_discard",
    "showdown_points",
    "knocker_melds",
    "rollout",
    "forms_meld_fast",
]

_SUIT = 0x1FFF
MD = _min_deadwood_mask


@dataclass(frozen=True, slots=True)
class SimRules:
    """The scoring figures a rollout needs."""

    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    undercut_on_tie: bool = True
    big_gin_bonus: int | None = None


@dataclass(frozen=True, slots=True)
class RolloutPolicy:
    """The expert's quick policy inside rollouts.

    `knock_at[s]` is the most deadwood it knocks with when `s` cards are left in the stock
    (the last entry covers larger stocks); `take_gain` is how much deadwood taking an upcard
    that makes no meld must save.
    """

    knock_at: tuple[int, ...] = (10,) * 32
    take_gain: int = 6
    #: Deadwood points one live out of a discarded card is worth (keeps connected cards).
    outs_weight: float = 0.5


def _build_set_partner() -> list[tuple[int, ...]]:
    return [tuple(s * 13 + c % 13 for s in range(4) if s != c // 13) for c in range(52)]


_SAME_RANK = _build_set_partner()


def forms_meld_fast(hand: int, card: int) -> bool:
    """True when `card` makes a set or a run with at least two cards of `hand`."""
    a, b, c = _SAME_RANK[card]
    if (hand >> a & 1) + (hand >> b & 1) + (hand >> c & 1) >= 2:
        return True
    rank = card % 13
    pattern = hand >> (card - rank) & _SUIT
    # Run: two below, one each side, or two above.
    if rank >= 2 and (pattern >> (rank - 2)) & 3 == 3:
        return True
    if rank >= 1 and rank <= 11 and (pattern >> (rank - 1)) & 5 == 5:
        return True
    return rank <= 10 and (pattern >> (rank + 1)) & 3 == 3


def best_discard(hand: int, forbid: int, rng: random.Random | None = None) -> tuple[int, int]:
    """(least deadwood after a discard, the card to discard): lowest deadwood, ties to the
    card of highest points, then at random when `rng` is given."""
    best = 1000
    best_card = -1
    best_pts = -1
    ties = 0
    m = hand
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if c == forbid:
            continue
        d = MD(hand ^ low)
        if d < best:
            best, best_card, best_pts, ties = d, c, CARD_POINTS[c], 1
        elif d == best:
            p = CARD_POINTS[c]
            if p > best_pts:
                best_card, best_pts, ties = c, p, 1
            elif p == best_pts and rng is not None:
                ties += 1
                if rng.random() * ties < 1:
                    best_card = c
    return best, best_card


# Pairs of cards that make a meld with each card (sets, then runs), for quick lookups.
MELD_PAIRS = [tuple(meld_partners(card)) for card in range(52)]


def policy_discard(hand: int, forbid: int, live: int, outs_weight: float) -> tuple[int, int]:
    """(deadwood after, card): least deadwood, less `outs_weight` per live card that would
    have made a meld with the thrown card and one kept card (so connected cards stay)."""
    best_v = 1e9
    best_d = 1000
    best_card = -1
    m = hand
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if c == forbid:
            continue
        rest = hand ^ low
        d = MD(rest)
        outs = 0
        for a, b in MELD_PAIRS[c]:
            if (rest >> a & 1 and live >> b & 1) or (rest >> b & 1 and live >> a & 1):
                outs += 1
        v = d + outs_weight * outs - 0.01 * CARD_POINTS[c]
        if v < best_v:
            best_v, best_d, best_card = v, d, c
    return best_d, best_card


def _baseline_discard(hand: int, forbid: int, rng: random.Random) -> tuple[int, int]:
    """Least deadwood, uniformly at random among ties (the baseline's rule)."""
    best = 1000
    best_card = -1
    ties = 0
    m = hand
    while m:
        low = m & -m
        m ^= low
        c = low.bit_length() - 1
        if c == forbid:
            continue
        d = MD(hand ^ low)
        if d < best:
            best, best_card, ties = d, c, 1
        elif d == best:
            ties += 1
            if rng.random() * ties < 1:
                best_card = c
    return best, best_card


def knocker_melds(mask: int) -> list[int]:
    """The melds of one least-deadwood arrangement of `mask`, as masks."""
    c = [mask >> (13 * s) & _SUIT for s in range(4)]
    sets = (c[0] & c[1] & (c[2] | c[3])) | ((c[0] | c[1]) & c[2] & c[3])
    options: list[list[tuple[int, int]]] = []
    while sets:
        low = sets & -sets
        r = low.bit_length() - 1
        pattern = sum((c[s] >> r & 1) << s for s in range(4))
        opts = (
            [(r, 0), (r, pattern)]
            if pattern.bit_count() == 3
            else [(r, 0), (r, 15), (r, 14), (r, 13), (r, 11), (r, 7)]
        )
        options.append(opts)
        sets ^= low
    best_value = 1000
    best_combo: tuple[tuple[int, int], ...] = ()
    combos: list[tuple[tuple[int, int], ...]] = [()]
    for opts in options:
        combos = [combo + (o,) for combo in combos for o in opts]

    for combo in combos:
        removed = [0, 0, 0, 0]
        for r, p in combo:
            for s in range(4):
                if p >> s & 1:
                    removed[s] |= 1 << r
        value = (
            RUN_DEADWOOD[c[0] & ~removed[0]]
            + RUN_DEADWOOD[c[1] & ~removed[1]]
            + RUN_DEADWOOD[c[2] & ~removed[2]]
            + RUN_DEADWOOD[c[3] & ~removed[3]]
        )
        if value < best_value:
            best_value, best_combo = value, combo
    melds: list[int] = []
    removed = [0, 0, 0, 0]
    for r, p in best_combo:
        if p:
            meld = 0
            for s in range(4):
                if p >> s & 1:
                    meld |= 1 << (13 * s + r)
                    removed[s] |= 1 << r
            melds.append(meld)
    for s in range(4):
        for low, length in RUN_CHOICE[c[s] & ~removed[s]]:
            melds.append(((1 << length) - 1) << (low + 13 * s))
    return melds


def showdown_points(knocker: int, defender: int, rules: SimRules) -> int:
    """Points of a knock by `knocker` (10 cards) against `defender`: positive when the
    knocker scores, negative when the defender does (undercut), 0 for a tie."""
    kd = MD(knocker)
    dd = MD(defender)
    if kd == 0:
        return rules.gin_bonus + dd
    melds = knocker_melds(knocker)
    after = _best_defence(melds, defender)[0]
    if after < kd or (after == kd and rules.undercut_on_tie):
        return -(kd - after + rules.undercut_bonus)
    return after - kd


def _knock_limit_for(policy: RolloutPolicy, stock: int) -> int:
    table = policy.knock_at
    return table[stock] if stock < len(table) else table[-1]


def rollout(
    me: int,
    opp: int,
    stock: list[int],
    up: int,
    dead: int,
    rules: SimRules,
    policy: RolloutPolicy,
    rng: random.Random,
    *,
    opp_to_draw: bool = True,
) -> int:
    """Play the hand out from a draw phase; points from my side (+ I score, - opponent).

    `up` is the upcard (-1 if none), `dead` the other cards of the discard pile. The
    stock list is consumed. With `opp_to_draw` the opponent draws first, else I do.
    """
    limit = rules.knock_limit
    turn_opp = opp_to_draw
    opp_seen = 0  # cards seen going into the opponent's hand (not live for us)
    while True:
        if turn_opp:
            if up >= 0 and forms_meld_fast(opp, up):
                opp |= 1 << up
                opp_seen |= 1 << up
                taken = up
            else:
                if up >= 0:
                    dead |= 1 << up
                card = stock.pop()
                opp |= 1 << card
                taken = -1
            d, c = _baseline_discard(opp, taken, rng)
            opp ^= 1 << c
            dead |= 1 << c
            if d <= limit:
                return -showdown_points(opp, me, rules)
            up = c
            if len(stock) <= 2:
                return 0
        else:
            cur = MD(me)
            take = False
            if up >= 0:
                after_take = best_discard(me | 1 << up, up)[0]
                if after_take < cur and (forms_meld_fast(me, up) or cur - after_take >= policy.take_gain):
                    take = True
            if take:
                me |= 1 << up
                taken = up
            else:
                if up >= 0:
                    dead |= 1 << up
                card = stock.pop()
                me |= 1 << card
                taken = -1
            if policy.outs_weight:
                d, c = policy_discard(me, taken, ~(me | dead | opp_seen), policy.outs_weight)
            else:
                d, c = best_discard(me, taken)
            me ^= 1 << c
            if d == 0 or (d <= limit and d <= _knock_limit_for(policy, len(stock))):
                return showdown_points(me, opp, rules)
            up = c
            if len(stock) <= 2:
                return 0
        turn_opp = not turn_opp


def deal(rng: random.Random) -> tuple[int, int, list[int], int]:
    """A random deal: (my hand, opponent hand, stock with top last, upcard)."""
    deck = list(range(52))
    rng.shuffle(deck)
    me = opp = 0
    for c in deck[:10]:
        me |= 1 << c
    for c in deck[10:20]:
        opp |= 1 << c
    return me, opp, deck[21:], deck[20]
