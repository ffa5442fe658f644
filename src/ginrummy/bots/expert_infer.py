"""Inference of the opponent's hidden cards from what it took, passed and threw.

The model behind it: most programs (and many people) pick up an upcard when it makes a
meld, pass it when it does not, throw cards that sit in no meld, and knock as soon as
they can. Each public move therefore says something about the cards next to it. Card
weights give quick per-card probabilities; `sample_hands` draws whole hands consistent
with the moves (rejecting hands that contradict them) for Monte-Carlo search.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..rules.melds import _min_deadwood_mask
from .expert_knowledge import DISCARDED, PASSED, STOCK, TOOK, Knowledge, meld_partners
from .expert_sim import forms_meld_fast

__all__ = ["InferenceParams", "card_probs", "sample_hands", "bits"]


@dataclass(frozen=True, slots=True)
class InferenceParams:
    """How strongly each kind of move shifts the weight of the cards next to it."""

    took_partner: float = 3.0  # partner of a card it took: likely held
    passed_partner: float = 0.55  # partner of a card it passed: less likely
    passed_pair_other: float = 0.15  # other half of a pair with a held card, around a passed card
    discarded_partner: float = 0.6  # partner of a card it threw
    #: How sure we are that the opponent knocks at its first chance (hands below the knock
    #: limit are rejected with this probability).
    knock_asap: float = 1.0
    #: How sure we are it takes every upcard that makes a meld and only those.
    meld_taker: float = 0.8
    #: Rounds of "draw, throw the worst" a sampled hand goes through, per stock draw the
    #: opponent made (calibrated so sampled hands match real ones in deadwood).
    rounds_per_draw: float = 0.6


DEFAULT_INFERENCE = InferenceParams()


def bits(mask: int) -> list[int]:
    """The card indices of a mask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def card_weights(k: Knowledge, params: InferenceParams = DEFAULT_INFERENCE) -> list[float]:
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
                    w[a] *= params.took_partner ** 0.5
                    w[b] *= params.took_partner ** 0.5
            known_so_far |= 1 << c
        elif ev.kind == PASSED and c >= 0:
            for a, b in meld_partners(c):
                if known_so_far >> a & 1:
                    w[b] *= params.passed_pair_other
                elif known_so_far >> b & 1:
                    w[a] *= params.passed_pair_other
                else:
                    w[a] *= params.passed_partner ** 0.5
                    w[b] *= params.passed_partner ** 0.5
        elif ev.kind == DISCARDED and c >= 0:
            known_so_far &= ~(1 << c)
            for a, b in meld_partners(c):
                w[a] *= params.discarded_partner ** 0.5
                w[b] *= params.discarded_partner ** 0.5
    for c in range(52):
        if not unseen >> c & 1:
            w[c] = 0.0
    return w


def card_probs(k: Knowledge, params: InferenceParams = DEFAULT_INFERENCE) -> list[float]:
    """P(card is in the opponent's hand) for all 52 cards: 1 for cards seen it take and keep,
    0 for cards seen elsewhere, weighted shares of the hidden count for the rest."""
    w = card_weights(k, params)
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


def _consistent(k: Knowledge, hand: int, params: InferenceParams, rng: random.Random) -> bool:
    """Whether a full opponent hand fits its recorded moves (soft: each misfit may pass)."""
    # It had a chance to knock only once it has discarded in this hand.
    could_knock = any(ev.kind == DISCARDED for ev in k.events)
    if (could_knock and params.knock_asap > 0 and _min_deadwood_mask(hand) <= k.knock_limit
            and rng.random() < params.knock_asap):
        return False
    if params.meld_taker <= 0:
        return True
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
        elif ev.kind == PASSED and ev.card >= 0 and forms_meld_fast(held, ev.card) and rng.random() < params.meld_taker:
            return False
    return True


def sample_hands(
    k: Knowledge,
    count: int,
    rng: random.Random,
    params: InferenceParams = DEFAULT_INFERENCE,
    weights: list[float] | None = None,
    tries: int = 8,
) -> list[int]:
    """`count` opponent hands (masks of ten cards) consistent with the moves seen."""
    if weights is None:
        weights = card_weights(k, params)
    pool = [c for c in range(52) if weights[c] > 0]
    n = k.opp_hidden
    known = k.opp_known
    out: list[int] = []
    if n <= 0 or len(pool) < n:
        return [known] * count
    for _ in range(count):
        hand = known
        for _attempt in range(tries):
            hand = known | _weighted_sample(pool, weights, n, rng)
            if _consistent(k, hand, params, rng):
                break
        out.append(hand)
    return out


@dataclass(frozen=True, slots=True)
class ReplayParams:
    """Likelihood of each kind of move that a knock-at-once, least-deadwood player would
    not have made (1 = ignore such moves, 0 = impossible)."""

    pass_meld: float = 0.15  # passed an upcard that made a meld
    take_no_meld: float = 0.3  # took an upcard that made no meld
    odd_discard: float = 0.25  # threw a card that did not leave the least deadwood
    no_knock: float = 0.1  # could knock but did not


DEFAULT_REPLAY = ReplayParams()


def _argmin_discards(hand: int, forbid: int) -> tuple[int, int]:
    """(least deadwood after a discard, mask of the discards reaching it)."""
    best = 1000
    arg = 0
    m = hand
    while m:
        low = m & -m
        m ^= low
        if low.bit_length() - 1 == forbid:
            continue
        d = _min_deadwood_mask(hand ^ low)
        if d < best:
            best, arg = d, low
        elif d == best:
            arg |= low
    return best, arg


def replay_likelihood(
    k: Knowledge, hand: int, rng: random.Random, rp: ReplayParams = DEFAULT_REPLAY
) -> float:
    """How well the opponent's recorded moves fit a policy of least deadwood played from
    the current hand `hand`: its earlier hands are rebuilt backwards (each unseen stock
    draw is a random one of its cards not seen taken), then its moves are replayed."""
    events = k.events
    took = 0
    for ev in events:
        if ev.kind == TOOK:
            took |= 1 << ev.card
    # Backwards: undo discards and takes, pick which card each stock draw brought.
    h = hand
    draws: list[int] = []
    for ev in reversed(events):
        kind = ev.kind
        if kind == DISCARDED:
            h |= 1 << ev.card
        elif kind == TOOK:
            h &= ~(1 << ev.card)
        elif kind == STOCK:
            pool = h & ~took
            n = pool.bit_count()
            if n == 0:
                draws.append(-1)
                continue
            j = rng.randrange(n)
            while j:
                pool &= pool - 1
                j -= 1
            low = pool & -pool
            draws.append(low.bit_length() - 1)
            h ^= low
    draws.reverse()
    # Forwards: score each move against the policy.
    like = 1.0
    limit = k.knock_limit
    taken = -1
    di = 0
    for ev in events:
        kind = ev.kind
        if kind == PASSED:
            if ev.card >= 0 and forms_meld_fast(h, ev.card):
                like *= rp.pass_meld
        elif kind == TOOK:
            if not forms_meld_fast(h, ev.card):
                like *= rp.take_no_meld
            h |= 1 << ev.card
            taken = ev.card
        elif kind == STOCK:
            c = draws[di]
            di += 1
            if c >= 0:
                h |= 1 << c
            taken = -1
        else:  # DISCARDED
            best, arg = _argmin_discards(h, taken)
            if not arg >> ev.card & 1:
                like *= rp.odd_discard
            if best <= limit:
                like *= rp.no_knock
            h &= ~(1 << ev.card)
            taken = -1
    return like


def posterior_hands(
    k: Knowledge,
    count: int,
    rng: random.Random,
    proposals: int = 120,
    rp: ReplayParams = DEFAULT_REPLAY,
) -> list[int]:
    """`count` opponent hands drawn (with replacement) from `proposals` uniform guesses,
    each weighted by how well it explains the opponent's moves."""
    n = k.opp_hidden
    known = k.opp_known
    pool = bits(k.unseen)
    if n <= 0 or len(pool) < n:
        return [known] * count
    cands: list[int] = []
    weights: list[float] = []
    for _ in range(proposals):
        hand = known
        for c in rng.sample(pool, n):
            hand |= 1 << c
        cands.append(hand)
        weights.append(replay_likelihood(k, hand, rng, rp))
    total = sum(weights)
    if total <= 0:
        return [rng.choice(cands) for _ in range(count)]
    return rng.choices(cands, weights=weights, k=count)


class OppModel:
    """A particle filter over the opponent's hand, updated move by move within one hand.

    Each particle is a whole ten-card hand. Replaying the opponent's moves, a particle
    draws unseen stock cards at random (or the very card thrown next, when it did not
    hold it yet), and loses weight for every move a least-deadwood, knock-at-once player
    would not have made from it. Particles are resampled when their weights spread, and
    cards this seat later sees elsewhere are swapped for unseen ones.
    """

    def __init__(self, size: int, rng: random.Random, rp: ReplayParams = DEFAULT_REPLAY) -> None:
        self.size = size
        self.rng = rng
        self.rp = rp
        self.key: tuple[int, int] | None = None
        self.hands: list[int] = []
        self.weights: list[float] = []
        self.taken: list[int] = []
        self.done = 0

    def _start(self, k: Knowledge) -> None:
        universe = k.unseen | k.opp_known
        for ev in k.events:
            if ev.kind == DISCARDED:
                universe |= 1 << ev.card
        took = 0
        for ev in k.events:
            if ev.kind == TOOK:
                took |= 1 << ev.card
        universe &= ~took
        pool = bits(universe)
        rng = self.rng
        self.hands = []
        for _ in range(self.size):
            h = 0
            for c in rng.sample(pool, min(10, len(pool))):
                h |= 1 << c
            self.hands.append(h)
        self.weights = [1.0] * self.size
        self.taken = [-1] * self.size
        self.done = 0

    def update(self, k: Knowledge, hand_key: tuple[int, int]) -> None:
        """Bring the particles up to date with the opponent's moves in `k`."""
        if self.key != hand_key or self.done > len(k.events):
            self.key = hand_key
            self._start(k)
        events = k.events
        if self.done == len(events):
            self._repair(k)
            return
        rp = self.rp
        rng = self.rng
        limit = k.knock_limit
        unseen = k.unseen
        for j in range(self.done, len(events)):
            ev = events[j]
            kind = ev.kind
            nxt = events[j + 1] if j + 1 < len(events) else None
            for i in range(self.size):
                w = self.weights[i]
                if w == 0.0:
                    continue
                h = self.hands[i]
                if kind == PASSED:
                    if ev.card >= 0 and forms_meld_fast(h, ev.card):
                        w *= rp.pass_meld
                elif kind == TOOK:
                    if not forms_meld_fast(h, ev.card):
                        w *= rp.take_no_meld
                    h |= 1 << ev.card
                    self.taken[i] = ev.card
                elif kind == STOCK:
                    self.taken[i] = -1
                    if nxt is not None and nxt.kind == DISCARDED and not h >> nxt.card & 1:
                        # It threw a card it did not hold: that is the card it drew.
                        free = (unseen & ~h).bit_count() + 1
                        w /= free
                        h |= 1 << nxt.card
                    else:
                        h |= 1 << _random_bit(unseen & ~h, rng)
                else:  # DISCARDED
                    d = ev.card
                    if not h >> d & 1:
                        # It held the card all along (it took the upcard this turn): swap it in.
                        h = _swap_in(h, d, k.opp_known | (1 << self.taken[i] if self.taken[i] >= 0 else 0), rng)
                    best, arg = _argmin_discards(h, self.taken[i])
                    if not arg >> d & 1:
                        w *= rp.odd_discard
                    if best <= limit:
                        w *= rp.no_knock
                    h &= ~(1 << d)
                    self.taken[i] = -1
                self.hands[i] = h
                self.weights[i] = w
            if kind == DISCARDED:
                self._maybe_resample()
        self.done = len(events)
        self._repair(k)

    def _maybe_resample(self) -> None:
        ws = self.weights
        total = sum(ws)
        if total <= 0:
            self.weights = [1.0] * self.size
            return
        ess = total * total / sum(w * w for w in ws)
        if ess >= self.size / 2:
            return
        # Systematic resampling.
        step = total / self.size
        u = self.rng.random() * step
        acc = 0.0
        new_h: list[int] = []
        new_t: list[int] = []
        i = 0
        for _ in range(self.size):
            while acc + ws[i] < u and i < self.size - 1:
                acc += ws[i]
                i += 1
            new_h.append(self.hands[i])
            new_t.append(self.taken[i])
            u += step
        self.hands = new_h
        self.taken = new_t
        self.weights = [1.0] * self.size

    def _repair(self, k: Knowledge) -> None:
        """Swap out cards this seat has since seen elsewhere; make sure known cards are held."""
        allowed = k.unseen | k.opp_known
        known = k.opp_known
        rng = self.rng
        for i, h in enumerate(self.hands):
            bad = h & ~allowed
            missing = known & ~h
            if not bad and not missing:
                continue
            h &= allowed
            h |= missing
            while h.bit_count() > 10:
                h &= ~(1 << _random_bit(h & ~known, rng))
            while h.bit_count() < 10 and (k.unseen & ~h):
                h |= 1 << _random_bit(k.unseen & ~h, rng)
            self.hands[i] = h

    def sample(self, count: int) -> list[int]:
        """`count` hands drawn in proportion to the particles' weights."""
        if not self.hands:
            return []
        if sum(self.weights) <= 0:
            return [self.rng.choice(self.hands) for _ in range(count)]
        return self.rng.choices(self.hands, weights=self.weights, k=count)

    def probs(self) -> list[float]:
        """P(card is in the opponent's hand) for each card, from the weighted particles."""
        total = sum(self.weights)
        out = [0.0] * 52
        if total <= 0:
            return out
        for h, w in zip(self.hands, self.weights, strict=True):
            if w == 0.0:
                continue
            while h:
                low = h & -h
                h ^= low
                out[low.bit_length() - 1] += w
        return [x / total for x in out]


def _random_bit(mask: int, rng: random.Random) -> int:
    """A uniformly random card index from `mask` (which must not be empty)."""
    n = mask.bit_count()
    j = rng.randrange(n)
    while j:
        mask &= mask - 1
        j -= 1
    return (mask & -mask).bit_length() - 1


def _swap_in(hand: int, card: int, keep: int, rng: random.Random) -> int:
    """`hand` with `card` put in place of a random card not in `keep`."""
    out = hand & ~keep
    if out:
        hand &= ~(1 << _random_bit(out, rng))
    return hand | 1 << card


def evolved_hands(
    k: Knowledge,
    count: int,
    rng: random.Random,
    params: InferenceParams = DEFAULT_INFERENCE,
    weights: list[float] | None = None,
    rounds: int | None = None,
    tries: int = 8,
) -> list[int]:
    """`count` opponent hands built the way a least-deadwood player builds them.

    A random start (cards weighted by the inference) goes through as many rounds of
    "draw an unseen card, throw the card that leaves the least deadwood" as the opponent
    has drawn from the stock, so the sampled hands carry the melds and low deadwood a
    real hand gathers over the turns. Hands contradicting its moves are rejected as in
    `sample_hands`.
    """
    if weights is None:
        weights = card_weights(k, params)
    pool = [c for c in range(52) if weights[c] > 0]
    n = k.opp_hidden
    known = k.opp_known
    if n <= 0 or len(pool) < n:
        return [known] * count
    if rounds is None:
        draws = sum(1 for ev in k.events if ev.kind == STOCK)
        rounds = int(params.rounds_per_draw * draws + 0.5)
    pool_mask = 0
    for c in pool:
        pool_mask |= 1 << c
    limit = k.knock_limit
    out: list[int] = []
    for _ in range(count):
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
                    d = _min_deadwood_mask(hand ^ low)
                    if d < best:
                        best, throw = d, low
                hand ^= throw
                if best <= limit and rng.random() < params.knock_asap:
                    # It would have knocked here; a hand that never could is wanted.
                    knocked = True
                    break
            if not knocked and _consistent(k, hand, params, rng):
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
