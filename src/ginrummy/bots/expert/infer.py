"""Whole opponent hands for the expert's Monte-Carlo search, drawn from what it took,
passed and threw.

The model behind it: most programs (and many people) pick up an upcard when it makes a
meld, pass it when it does not, throw cards that sit in no meld, and knock as soon as
they can. The per-card odds this gives are `knowledge.card_weights`; `evolved_hands` grows
whole hands the way such a player grows them, so that their deadwood matches real hands
(plain random hands have far too much: 41 against 30 on average mid-hand).
"""

from __future__ import annotations

import random
import time
from typing import Final

from ...rules.fast_core import bits, forms_meld, least_deadwood
from ..knowledge import DISCARDED, PASSED, STOCK, TOOK, Knowledge

__all__ = ["evolved_hands"]


#: Rounds of "draw, throw the worst" a sampled hand goes through per stock draw the
#: opponent made (calibrated so sampled hands match real ones in deadwood).
ROUNDS_PER_DRAW: Final = 0.6
#: How sure the expert is that the opponent takes every upcard that makes a meld and only
#: those (a hand contradicting a pass is rejected with this probability).
MELD_TAKER: Final = 0.8


def _weighted_sample(pool: list[int], weights: list[float], n: int, rng: random.Random) -> int:
    """A mask of `n` distinct cards from `pool`, drawn one by one in proportion to weight."""
    items = list(pool)
    ws = [weights[c] for c in items]
    total = sum(ws)
    mask = 0
    for _ in range(n):
        r = rng.random() * total
        acc = 0.0
        j = len(items) - 1
        for i, x in enumerate(ws):
            acc += x
            if acc >= r:
                j = i
                break
        mask |= 1 << items[j]
        total -= ws[j]
        items[j] = items[-1]
        ws[j] = ws[-1]
        items.pop()
        ws.pop()
        if total <= 1e-12 and items:
            total = float(len(items))
            ws = [1.0] * len(items)
    return mask


def _consistent(k: Knowledge, hand: int, knock_asap: float, rng: random.Random) -> bool:
    """Whether a full opponent hand fits its recorded moves (soft: each misfit may pass)."""
    # It had a chance to knock only once it has discarded in this hand.
    could_knock = any(ev.kind == DISCARDED for ev in k.events)
    if could_knock and knock_asap > 0 and least_deadwood(hand) <= k.knock_limit and rng.random() < knock_asap:
        return False
    # Walk back through the opponent's moves: before a discard it also held that card,
    # before a take it did not hold the card taken. Cards drawn from the stock are
    # unknown, so an earlier hand is only approximated; misfits are penalised, not fatal.
    held = hand
    for ev in reversed(k.events):
        if ev.kind == DISCARDED:
            held |= 1 << ev.card
        elif ev.kind == TOOK:
            held &= ~(1 << ev.card)
        elif ev.kind == STOCK:
            continue
        elif ev.kind == PASSED and ev.card >= 0 and forms_meld(ev.card, held) and rng.random() < MELD_TAKER:
            return False
    return True


def evolved_hands(
    k: Knowledge,
    count: int,
    rng: random.Random,
    weights: list[float],
    *,
    knock_asap: float = 1.0,
    tries: int = 8,
    deadline: float | None = None,
    minimum: int = 4,
    rounds_per_draw: float = ROUNDS_PER_DRAW,
) -> list[int]:
    """`count` opponent hands built the way a least-deadwood player builds them.

    A random start (cards weighted by the inference) goes through as many rounds of
    "draw an unseen card, throw the card that leaves the least deadwood" as the opponent
    has drawn from the stock, so the sampled hands carry the melds and low deadwood a
    real hand gathers over the turns (`rounds_per_draw` rounds per stock draw). `weights` are
    `card_weights(k)`. Hands contradicting
    its moves (a knock it would have made, with chance `knock_asap` that it knocks at its
    first chance; an upcard it passed that melded) are drawn again, up to `tries` times.
    """
    pool = [c for c in range(52) if weights[c] > 0]
    n = k.opp_hidden
    known = k.opp_known
    if n <= 0 or len(pool) < n:
        return [known] * count
    draws = sum(1 for ev in k.events if ev.kind == STOCK)
    rounds = int(rounds_per_draw * draws + 0.5)
    pool_mask = 0
    for c in pool:
        pool_mask |= 1 << c
    limit = k.knock_limit
    out: list[int] = []
    for _ in range(count):
        if deadline is not None and len(out) >= minimum and time.perf_counter() > deadline:
            break
        hand = known
        for _attempt in range(tries):
            hand = known | _weighted_sample(pool, weights, n, rng)
            knocked = False
            for _r in range(rounds):
                free = pool_mask & ~hand
                if not free:
                    break
                c = _weighted_pick(free, weights, rng)
                hand |= 1 << c
                # Throw the card leaving the least deadwood, never one seen taken.
                best = 1000
                throw = 0
                m = hand & ~known
                while m:
                    low = m & -m
                    m ^= low
                    d = least_deadwood(hand ^ low)
                    if d < best:
                        best, throw = d, low
                hand ^= throw
                if best <= limit and rng.random() < knock_asap:
                    # It would have knocked here; a hand that never could is wanted.
                    knocked = True
                    break
            if not knocked and _consistent(k, hand, knock_asap, rng):
                break
        out.append(hand)
    return out


def _weighted_pick(mask: int, weights: list[float], rng: random.Random) -> int:
    """One card of `mask`, in proportion to `weights`."""
    cards = bits(mask)
    total = sum(weights[c] for c in cards)
    r = rng.random() * total
    for c in cards:
        r -= weights[c]
        if r <= 0:
            return c
    return cards[-1]
