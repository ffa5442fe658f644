"""The `expert` player: card tracking, opponent inference, lookahead and Monte-Carlo search.

How it plays (see `ExpertParams` for the tuned figures):
- Every card seen is tracked: the discard pile is dead, cards the opponent took are in its
  hand, and its takes, passes and throws shift the odds of the cards next to them
  (`expert_infer`).
- A ten-card hand is valued by the deadwood it is expected to hold after the next draw
  from the stock, over the cards that may still come (one-step lookahead on live cards).
- A discard also pays for the chance that it completes a meld in the opponent's hand.
- The upcard is taken when the hand it leaves is worth more than a draw from the stock.
- Gin always ends the hand. Otherwise, knocking is weighed against playing on by
  Monte-Carlo rollouts over opponent hands and stock orders consistent with what was
  seen: an opponent who knocks as soon as it can is undercut by a low hand, so playing on
  is often worth more than a small knock.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..rules import BigGin, Discard, Draw, Knock, Pass, View
from ..rules.actions import Action
from ..rules.cards import CARD_POINTS, CARDS
from ..rules.melds import _knock_options_mask, _min_deadwood_mask
from .base import register_player
from .expert_infer import DEFAULT_INFERENCE, InferenceParams, bits, card_probs, card_weights, evolved_hands
from .expert_knowledge import Knowledge, meld_partners, read_view
from .expert_sim import RolloutPolicy, SimRules, best_discard, forms_meld_fast, rollout, showdown_points

__all__ = ["ExpertParams", "ExpertPlayer"]

MD = _min_deadwood_mask


@dataclass(frozen=True, slots=True)
class ExpertParams:
    """The expert's tuned figures (tuned by self-play against the baseline)."""

    #: Weight of the chance that a discard makes a meld for the opponent, in deadwood points.
    danger: float = 0.0
    #: Weight of the deadwood held now, next to the deadwood expected after the next draw.
    dw_weight: float = 0.0
    #: Take the upcard when it beats a stock draw by more than this (expected deadwood).
    take_margin: float = 0.0
    #: Knock with any legal deadwood while the stock still holds at least this many cards.
    early_knock_stock: int = 29
    #: Below this many stock cards, knock with at most `late_knock` deadwood.
    late_stock: int = 0
    late_knock: int = 0
    #: How many discards (best by deadwood) get the full lookahead.
    lookahead_width: int = 6
    #: Cards sampled to value a stock draw (0 = every unseen card).
    stock_samples: int = 12
    #: Use Monte-Carlo rollouts for the knock decision and for the discard choice.
    mc_knock: bool = False
    mc_discard: bool = False
    #: Discards (best by static value) compared by rollouts.
    mc_width: int = 3
    #: Sampled deals per decision (most), and the least played even past the deadline.
    mc_rollouts: int = 60
    mc_min: int = 8
    #: Points of rollout value one point of static value is worth (tie-breaking prior).
    mc_prior: float = 0.0
    #: Knock only when it beats the best discard by this many points.
    knock_margin: float = 0.0
    rollout_policy: RolloutPolicy = RolloutPolicy(knock_at=(0,) * 32)
    #: One-ply search over the opponent's reply: for sampled opponent hands and stock
    #: cards, does it take our discard and knock? A hand that goes on is valued by
    #: `cont`, a fit of the hand's final points on its expected deadwood (E) and the stock
    #: (S): c0 + c1*E + c2*S + c3*S*E + c4*E^2, measured in play against the baseline.
    one_ply: bool = False
    one_ply_samples: int = 40
    one_ply_width: int = 5
    cont: tuple[float, float, float, float, float] = (24.2358, -1.6227, 0.281, 0.0113, 0.013)
    #: Seconds per decision when no time budget is given.
    default_budget: float = 0.08


DEFAULT_PARAMS = ExpertParams()


class _Turn:
    """Per-decision caches: card probabilities and the weights of the next stock card."""

    __slots__ = ("k", "probs", "stock_w", "stock_total", "unseen", "dead", "weights")

    def __init__(self, k: Knowledge, inference: InferenceParams) -> None:
        self.k = k
        self.weights = card_weights(k, inference)
        self.probs = card_probs(k, inference)
        self.unseen = bits(k.unseen)
        # The next stock card is any unseen card not in the opponent's hand.
        self.stock_w = [(c, 1.0 - self.probs[c]) for c in self.unseen if self.probs[c] < 1.0]
        self.stock_total = sum(w for _, w in self.stock_w) or 1.0
        self.dead = k.pile_mask


def _build_neighbourhoods() -> list[int]:
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
    return out


NEIGHBOURS = _build_neighbourhoods()


# Least deadwood of ten-card hands met while valuing one decision (cleared per decision).
_MD_CACHE: dict[int, int] = {}


def _by_points(mask: int) -> list[tuple[int, int]]:
    """(points, bit) for each card of `mask`, highest points first."""
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append((CARD_POINTS[low.bit_length() - 1], low))
    out.sort(reverse=True)
    return out


def _best_after_draw(hand10: int, card: int, order: list[tuple[int, int]] | None = None) -> int:
    """Least deadwood after adding `card` to `hand10` and discarding the best card.

    Discarding a card worth p lowers the eleven-card deadwood by at most p, so trying
    cards from the highest value down stops as soon as no card can beat the best found.
    `order` is `_by_points(hand10)` when the caller has it.
    """
    h = hand10 | 1 << card
    whole = MD(h)
    cache = _MD_CACHE
    if order is None:
        order = _by_points(hand10)
    best = whole + 0 if whole == 0 else 1000
    if whole == 0:
        return 0
    pc = CARD_POINTS[card]
    low_c = 1 << card
    inserted = False
    for pts, low in order:
        if not inserted and pc >= pts:
            inserted = True
            if whole - pc >= best:
                return best
            d = MD(h ^ low_c)
            if d < best:
                best = d
        if whole - pts >= best:
            return best
        key = h ^ low
        d = cache.get(key, -1)
        if d < 0:
            d = cache[key] = MD(key)
        if d < best:
            best = d
    if not inserted and whole - pc < best:
        d = MD(h ^ low_c)
        if d < best:
            best = d
    return best


def _nine_card_best(hand10: int) -> int:
    """Least deadwood of `hand10` less its best discard."""
    best = 1000
    m = hand10
    while m:
        low = m & -m
        m ^= low
        d = MD(hand10 ^ low)
        if d < best:
            best = d
    return best


def expected_after_draw(hand10: int, turn: _Turn) -> float:
    """Expected least deadwood of `hand10` after one more stock draw and discard."""
    total = 0.0
    base = MD(hand10)
    nine = -1
    order = _by_points(hand10)
    for c, w in turn.stock_w:
        if w <= 0:
            continue
        if hand10 & NEIGHBOURS[c]:
            total += w * _best_after_draw(hand10, c, order)
        else:
            # A card that melds with nothing in hand is thrown back or kept as deadwood.
            if nine < 0:
                nine = _nine_card_best(hand10)
            total += w * min(base, nine + CARD_POINTS[c])
    return total / turn.stock_total


def danger(card: int, turn: _Turn) -> float:
    """Chance the opponent holds two cards that make a meld with `card`."""
    p = turn.probs
    miss = 1.0
    for a, b in meld_partners(card):
        miss *= 1.0 - p[a] * p[b]
    return 1.0 - miss


class ExpertPlayer:
    """The strongest player here; sees only its seat's view."""

    name = "expert"

    def __init__(
        self,
        *,
        seed: int | None = None,
        time_budget: float | None = None,
        params: ExpertParams | None = None,
        inference: InferenceParams | None = None,
    ) -> None:
        if time_budget is not None and time_budget <= 0:
            raise ValueError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
        self.rng = random.Random(seed)
        self.time_budget = time_budget
        self.params = params if params is not None else DEFAULT_PARAMS
        self.inference = inference if inference is not None else DEFAULT_INFERENCE

    # -- protocol --------------------------------------------------------------

    def act(self, view: View) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError("act() needs a view with legal actions (it is not this seat's turn)")
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        budget = self.time_budget if self.time_budget is not None else self.params.default_budget
        deadline = start + budget * 0.8
        k = read_view(view)
        turn = _Turn(k, self.inference)
        _MD_CACHE.clear()
        if view.phase in ("offer", "draw"):
            action = self._choose_draw(view, turn)
        else:
            action = self._choose_discard(view, turn, deadline)
        if action not in legal:  # a safety net: never send an illegal action
            return legal[0]
        return action

    def observe(self, view: View) -> None:
        return None

    # -- drawing ---------------------------------------------------------------

    def _score_discards(self, hand11: int, forbid: int, turn: _Turn) -> list[tuple[float, int, int]]:
        """(value, card, deadwood) per discard, best first; value is expected deadwood plus danger."""
        p = self.params
        cands = []
        m = hand11
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            if c == forbid:
                continue
            cands.append((MD(hand11 ^ low), -CARD_POINTS[c], c))
        cands.sort()
        out = []
        for d, _, c in cands[: p.lookahead_width]:
            v = expected_after_draw(hand11 ^ (1 << c), turn) + p.danger * danger(c, turn) + p.dw_weight * d
            out.append((v, c, d))
        out.sort()
        return out

    def _choose_draw(self, view: View, turn: _Turn) -> Action:
        k = turn.k
        p = self.params
        up = k.upcard
        can_take = any(isinstance(a, Draw) and a.source == "discard" for a in view.legal)
        hand = k.hand
        if not can_take or up < 0:
            return Draw("stock")
        take_value = self._score_discards(hand | 1 << up, up, turn)[0][0]
        stock_value = self._stock_value(hand, turn)
        if take_value < stock_value - p.take_margin:
            return Draw("discard")
        return Pass() if view.phase == "offer" else Draw("stock")

    def _stock_value(self, hand: int, turn: _Turn) -> float:
        """Expected value (as in `_score_discards`) of the hand after a draw from the stock."""
        p = self.params
        draws = turn.stock_w
        if p.stock_samples and len(draws) > p.stock_samples:
            # A fixed spread of cards in proportion to their weights (systematic sampling).
            step = turn.stock_total / p.stock_samples
            offset = self.rng.random() * step
            chosen = []
            acc = 0.0
            target = offset
            for c, w in draws:
                acc += w
                while acc > target and len(chosen) < p.stock_samples:
                    chosen.append(c)
                    target += step
            draws = [(c, 1.0) for c in chosen]
        total = 0.0
        weight = 0.0
        saved = p.lookahead_width
        for c, w in draws:
            vals = self._score_discards_narrow(hand | 1 << c, turn, 2)
            total += w * vals
            weight += w
        del saved
        return total / weight if weight else 0.0

    def _score_discards_narrow(self, hand11: int, turn: _Turn, width: int) -> float:
        cands = []
        m = hand11
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            cands.append((MD(hand11 ^ low), -CARD_POINTS[c], c))
        cands.sort()
        best = 1e9
        for d, _, c in cands[:width]:
            v = (expected_after_draw(hand11 ^ (1 << c), turn) + self.params.danger * danger(c, turn)
                 + self.params.dw_weight * d)
            if v < best:
                best = v
        return best

    # -- discarding and knocking -------------------------------------------------

    def _choose_discard(self, view: View, turn: _Turn, deadline: float) -> Action:
        k = turn.k
        p = self.params
        hand = k.hand
        if view.rules.big_gin_bonus is not None and MD(hand) == 0:
            return BigGin()
        options = _knock_options_mask(hand, k.knock_limit)
        options.pop(k.taken, None)
        if options:
            gin = [c for c, d in options.items() if d == 0]
            if gin:
                return Knock(CARDS[max(gin, key=lambda c: CARD_POINTS[c])])
        scored = self._score_discards(hand, k.taken, turn)
        knock_card = self._best_knock_card(options, turn) if options else -1
        if knock_card >= 0 and self._rule_knock(turn, options[knock_card]):
            return Knock(CARDS[knock_card])
        if p.one_ply and k.opp_hidden > 0 and len(scored) > 1:
            choice = self._one_ply(view, turn, scored)
            return Discard(CARDS[choice])
        use_mc = p.mc_discard or (p.mc_knock and knock_card >= 0)
        if use_mc and k.opp_hidden > 0:
            cands = [c for _, c, _ in scored[: p.mc_width]] if p.mc_discard else [scored[0][1]]
            choice = self._mc_choose(view, turn, cands, knock_card, deadline, scored)
            if choice < 0:
                return Knock(CARDS[knock_card])
            return Discard(CARDS[choice])
        return Discard(CARDS[scored[0][1]])

    def _one_ply(self, view: View, turn: _Turn, scored: list[tuple[float, int, int]]) -> int:
        """The discard with the best value over the opponent's sampled replies."""
        k = turn.k
        p = self.params
        rules = view.rules
        sim_rules = SimRules(k.knock_limit, rules.gin_bonus, rules.undercut_bonus,
                             rules.undercut_on_tie, rules.big_gin_bonus)
        rng = self.rng
        hand = k.hand
        limit = k.knock_limit
        c0, c1, c2, c3, c4 = p.cont
        stock = k.stock_count - 1
        cands = scored[: p.one_ply_width]
        opps = evolved_hands(k, p.one_ply_samples, rng, self.inference, turn.weights)
        unseen = k.unseen
        tops = []
        for opp in opps:
            free = bits(unseen & ~opp)
            tops.append(rng.choice(free) if free else -1)
        best_c = cands[0][1]
        best_v = -1e9
        for e1, c, _ in cands:
            mine = hand ^ (1 << c)
            cont = c0 + c1 * e1 + c2 * stock + c3 * stock * e1 + c4 * e1 * e1
            total = 0.0
            for opp, top in zip(opps, tops, strict=True):
                if forms_meld_fast(opp, c):
                    h = opp | 1 << c
                    taken = c
                elif top >= 0:
                    h = opp | 1 << top
                    taken = -1
                else:
                    total += cont
                    continue
                d, throw = best_discard(h, taken)
                if d <= limit:
                    total -= showdown_points(h ^ (1 << throw), mine, sim_rules)
                else:
                    total += cont
            v = total / len(opps)
            if v > best_v:
                best_v, best_c = v, c
        return best_c

    def _best_knock_card(self, options: dict[int, int], turn: _Turn) -> int:
        least = min(options.values())
        cands = [c for c, d in options.items() if d == least]
        return max(cands, key=lambda c: CARD_POINTS[c])

    def _rule_knock(self, turn: _Turn, deadwood: int) -> bool:
        k = turn.k
        p = self.params
        if k.stock_count >= p.early_knock_stock:
            return True
        return k.stock_count <= p.late_stock and deadwood <= p.late_knock

    def _mc_choose(
        self,
        view: View,
        turn: _Turn,
        cands: list[int],
        knock_card: int,
        deadline: float,
        scored: list[tuple[float, int, int]],
    ) -> int:
        """Monte-Carlo over sampled deals: the discard (or -1 = knock) with the most points.

        Each sampled opponent hand and stock order is played out once per candidate with
        the same random choices, so the candidates are compared on equal deals.
        """
        k = turn.k
        p = self.params
        rules = view.rules
        sim_rules = SimRules(k.knock_limit, rules.gin_bonus, rules.undercut_bonus,
                             rules.undercut_on_tie, rules.big_gin_bonus)
        policy = p.rollout_policy
        hand = k.hand
        dead = k.pile_mask
        unseen = k.unseen
        totals = [0.0] * len(cands)
        knock_total = 0.0
        knocked = hand ^ (1 << knock_card) if knock_card >= 0 else 0
        n = 0
        rng = self.rng
        hands = evolved_hands(k, p.mc_rollouts, rng, self.inference, turn.weights)
        for opp in hands:
            if n >= p.mc_min and time.perf_counter() > deadline:
                break
            rest = bits(unseen & ~opp)
            rng.shuffle(rest)
            seed = rng.getrandbits(32)
            for i, c in enumerate(cands):
                totals[i] += rollout(hand ^ (1 << c), opp, list(rest), c, dead, sim_rules, policy,
                                     random.Random(seed))
            if knock_card >= 0:
                knock_total += showdown_points(knocked, opp, sim_rules)
            n += 1
        if n == 0:
            return cands[0]
        # The static value breaks near-ties (it knows the lookahead the rollouts lack).
        static = {c: v for v, c, _ in scored}
        best_c = cands[0]
        best_v = -1e9
        for i, c in enumerate(cands):
            v = totals[i] / n - p.mc_prior * (static.get(c, 0.0) - scored[0][0])
            if v > best_v:
                best_v, best_c = v, c
        if knock_card >= 0 and knock_total / n > best_v + p.knock_margin:
            return -1
        return best_c


register_player("expert", ExpertPlayer)
