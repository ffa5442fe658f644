"""The `expert` player: card tracking, opponent inference, lookahead and Monte-Carlo search.

It first plays its steady game (`levels.SteadyPlayer`: the `advanced` level's card play with
a patient knock judgement found by self-play), which holds up against any opponent (it
knocks freely early in a hand and plays for Gin late). From every finished hand it learns how the
opponent knocks: an opponent seen knocking late in a hand with deadwood to spare knocks at
its first chance, and against such an opponent the expert switches to the game below, built
to undercut those knocks. An opponent seen passing up knocks switches it back.

How it plays against an opponent that knocks at once (the tuned figures are in `ExpertParams`):
- Every card seen is tracked: the discard pile is dead, cards the opponent took are in its
  hand, and its takes, passes and throws shift the odds of the cards next to them
  (`expert_infer`); the next stock card is weighted by the odds it is not in that hand.
- A ten-card hand is worth the deadwood it is expected to hold after the next draw from
  the stock (one-step lookahead over the live cards), so pairs and open runs with live
  cards are kept and dead ends thrown. The deadwood of each draw counts through a falling
  utility (`risk_tau`): a hand that may reach Gin or a count low enough to undercut beats
  one sure to sit at a middling count. Of two discards worth the same, the one less likely
  to complete a meld in the opponent's hand goes.
- The upcard is taken when the hand it leaves is worth more than a stock draw.
- Gin always ends the hand. Otherwise it plays on: measured against an opponent that
  knocks at its first chance, a low hand that waits undercuts that knock or goes Gin, and
  is worth more than a small knock at every stage of the hand.
- Near the end of a match points give way to the chance of winning the match: when a knock
  could reach the target, or the opponent is close to it, knocking is weighed against
  playing on over sampled opponent hands and stock orders (Monte-Carlo rollouts), each
  outcome valued by the chance to win the match from the score it leaves (`expert_match`).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace

from ..rules import BigGin, Discard, Draw, Knock, Pass, View, parse_cards
from ..rules.actions import Action
from ..rules.cards import CARD_POINTS, CARDS
from ..rules.melds import _knock_options_mask, _min_deadwood_mask
from .base import register_player
from .expert_infer import DEFAULT_INFERENCE, InferenceParams, bits, card_probs, card_weights, evolved_hands
from .expert_knowledge import Knowledge, meld_partners, read_view
from .expert_match import match_win
from .expert_sim import RolloutPolicy, SimRules, rollout, showdown_points
from .levels import SteadyPlayer

__all__ = ["ExpertDecision", "ExpertParams", "ExpertPlayer", "expected_after_draw"]

MD = _min_deadwood_mask


@dataclass(frozen=True, slots=True)
class ExpertParams:
    """The expert's figures, tuned by self-play against the baseline (see bench_expert.py)."""

    #: Weight, in expected deadwood, of the chance that a discard completes a meld for the
    #: opponent. Kept moderate: feeding a knock-at-once opponent is often no harm to a low
    #: hand that undercuts it (0.5 to 2 measured alike against the baseline, 0 worse).
    danger: float = 1.5
    #: Take the upcard when it beats a stock draw by more than this (expected deadwood).
    take_margin: float = 0.0
    #: Hands are valued by the deadwood expected after the next draw, taken through the
    #: utility exp(-deadwood / risk_tau) (its certainty equivalent), so a hand with a
    #: chance of Gin or of a low count beats one sure to sit at a middling count; against a
    #: knock-at-once opponent only a low count undercuts (0: the plain expected deadwood).
    risk_tau: float = 12.0
    #: Discards (best by deadwood) that get the full lookahead.
    lookahead_width: int = 6
    #: Stock cards sampled to value a draw from the stock, and discards tried after each.
    stock_samples: int = 12
    stock_width: int = 2
    #: End of match: weigh knocking by the chance to win the match when my score is within
    #: `clinch_reach` of the target or the opponent's within `threat_reach`.
    match_knock: bool = True
    clinch_reach: int = 45
    threat_reach: int = 35
    #: Sampled deals for that decision (all of them without a time budget, at most with
    #: one), and the least played past the budget's deadline.
    match_rollouts: int = 64
    mc_min: int = 8
    #: Knock only when it wins the match this much more often than playing on.
    match_margin: float = 0.01
    #: How the expert plays itself inside rollouts (quick: least deadwood keeping live
    #: connections, takes upcards that meld, plays for Gin).
    rollout_policy: RolloutPolicy = RolloutPolicy(knock_at=(0,) * 32)
    #: Play the steady game (`SteadyPlayer`) until the opponent is seen knocking at its first chance
    #: (False: always play for Gin and the undercut).
    adapt: bool = True
    #: An opponent knocking (not Gin) after this many of its own draws in a hand, or after
    #: `small_knock_draws` with less than `small_knock` deadwood, is taken to knock at its
    #: first chance (a patient player would have played on for Gin or the undercut).
    late_knock_draws: int = 6
    small_knock_draws: int = 4
    small_knock: int = 4


DEFAULT_PARAMS = ExpertParams()

# Below this budget (seconds) the lookahead is narrowed so a decision stays within it.
_FAST_BUDGET = 0.03


@dataclass(frozen=True, slots=True)
class ExpertDecision:
    """An action and a short reason a person can follow (used for hints at the table)."""

    action: Action
    reason: str


class _Turn:
    """Per-decision data: what is known, card odds, and the weights of the next stock card."""

    __slots__ = ("k", "probs", "stock_w", "stock_total", "weights", "inference")

    def __init__(self, k: Knowledge, inference: InferenceParams) -> None:
        self.k = k
        self.inference = inference
        self.weights = card_weights(k, inference)
        self.probs = card_probs(k, inference)
        # The next stock card is any unseen card not in the opponent's hand.
        self.stock_w = [(c, 1.0 - self.probs[c]) for c in bits(k.unseen) if self.probs[c] < 1.0]
        self.stock_total = sum(w for _, w in self.stock_w) or 1.0


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

# Least deadwood of hands met while valuing one decision (cleared per decision).
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


def _best_after_draw(hand10: int, card: int, order: list[tuple[int, int]]) -> int:
    """Least deadwood after adding `card` to `hand10` and discarding the best card.

    Discarding a card worth p lowers the eleven-card deadwood by at most p, so trying
    cards from the highest value down stops as soon as no card can beat the best found.
    `order` is `_by_points(hand10)`.
    """
    h = hand10 | 1 << card
    whole = MD(h)
    if whole == 0:
        return 0
    cache = _MD_CACHE
    best = 1000
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


def expected_after_draw(
    hand10: int, stock: list[tuple[int, float]], total: float, risk_tau: float = 0.0
) -> float:
    """Expected least deadwood of `hand10` after one more draw and discard, the next card
    being each card of `stock` ((card, weight) pairs, weights summing to `total`).

    With `risk_tau` > 0, the certainty equivalent under the utility exp(-deadwood / tau)
    instead: a hand with a chance of Gin or of a low count is worth more than its
    expected deadwood says.
    """
    utility = _utility(risk_tau) if risk_tau > 0 else None
    acc = 0.0
    base = MD(hand10)
    nine = -1
    order = _by_points(hand10)
    for c, w in stock:
        if w <= 0:
            continue
        if hand10 & NEIGHBOURS[c]:
            d = _best_after_draw(hand10, c, order)
        else:
            # A card that melds with nothing in hand is thrown back or kept as deadwood.
            if nine < 0:
                nine = _nine_card_best(hand10)
            d = min(base, nine + CARD_POINTS[c])
        acc += w * (d if utility is None else utility[d])
    if utility is None:
        return acc / total
    return -risk_tau * math.log(acc / total)


_UTILITIES: dict[float, list[float]] = {}


def _utility(tau: float) -> list[float]:
    """exp(-deadwood / tau) for every deadwood a hand can hold (0 to 120)."""
    table = _UTILITIES.get(tau)
    if table is None:
        table = _UTILITIES[tau] = [math.exp(-d / tau) for d in range(121)]
    return table


def _danger(card: int, probs: list[float]) -> float:
    """Chance the opponent holds two cards that make a meld with `card`."""
    miss = 1.0
    for a, b in meld_partners(card):
        miss *= 1.0 - probs[a] * probs[b]
    return 1.0 - miss


def _sim_rules(view: View) -> SimRules:
    rules = view.rules
    return SimRules(
        view.knock_limit, rules.gin_bonus, rules.undercut_bonus, rules.undercut_on_tie, rules.big_gin_bonus
    )


def _plain_reason(view: View, action: Action, why: str) -> str:
    """A short reason for an action of the steady game (its own words, or the plain facts)."""
    if isinstance(action, Knock):
        left = _knock_options_mask(view.hand.mask, view.knock_limit).get(action.card.index, -1)
        head = "Gin: every card melded" if left == 0 else f"knock with {left} deadwood"
    elif isinstance(action, Draw):
        if action.source == "discard" and view.discard_pile:
            head = f"take {view.discard_pile[-1].pretty}"
        else:
            head = "draw from the stock"
    elif isinstance(action, Pass):
        head = "pass the upcard"
    elif isinstance(action, Discard):
        head = f"discard {action.card.pretty}"
    else:
        head = "Big Gin" if isinstance(action, BigGin) else str(action)
    return f"{head}: {why}" if why else head


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
        if time_budget is not None and not time_budget > 0:
            raise ValueError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
        self.rng = random.Random(seed)
        self.time_budget = time_budget
        self.params = params if params is not None else DEFAULT_PARAMS
        self.inference = inference if inference is not None else DEFAULT_INFERENCE
        self._asap_seen = 0
        self._asap_missed = 0
        self._late_knocks = 0
        self._steady = SteadyPlayer(seed=self.rng.getrandbits(32), time_budget=time_budget)
        p = self.params
        self._fast = replace(
            p,
            lookahead_width=min(p.lookahead_width, 3),
            stock_samples=min(p.stock_samples, 4),
            stock_width=1,
            match_rollouts=min(p.match_rollouts, 24),
            mc_min=2,
        )

    # -- protocol --------------------------------------------------------------

    def act(self, view: View) -> Action:
        """The expert's move for `view` (a view of its own turn)."""
        return self.decide(view).action

    def observe(self, view: View) -> None:
        """Learn from a finished hand whether the opponent knocks at its first chance.

        When this seat knocked and the opponent's hand already had deadwood within the
        knock limit, the opponent passed up a knock; the expert then trusts less that
        its unseen hand must be above the limit.
        """
        sd = view.showdown
        if not sd or sd.get("knocker") is None or "hands" not in sd:
            return
        opp = 1 - view.seat
        if sd["knocker"] == opp:
            self._asap_seen += 1
            draws = sum(1 for e in view.history if e["seat"] == opp and e["action"]["type"] == "draw")
            deadwood = sd.get("deadwood") or [0, 0]
            p = self.params
            if deadwood[opp] > 0 and (
                draws > p.late_knock_draws or (draws > p.small_knock_draws and deadwood[opp] < p.small_knock)
            ):
                self._late_knocks += 1
            return
        try:
            held = parse_cards(sd["hands"][opp]).mask
        except (ValueError, IndexError, TypeError):
            return
        if MD(held) <= view.knock_limit:
            self._asap_missed += 1
        else:
            self._asap_seen += 1

    @property
    def exploiting(self) -> bool:
        """True once the opponent has been seen knocking at its first chance more often than
        passing up a knock: the expert then plays for Gin and the undercut."""
        return not self.params.adapt or self._late_knocks > self._asap_missed

    def decide(self, view: View) -> ExpertDecision:
        """The move for `view` with a short reason."""
        legal = view.legal
        if not legal:
            raise ValueError("act() needs a view with legal actions (it is not this seat's turn)")
        if len(legal) == 1:
            return ExpertDecision(legal[0], "the only legal move")
        if not self.exploiting:
            steady = self._steady.decide(view)
            return ExpertDecision(steady.action, _plain_reason(view, steady.action, steady.reason))
        # Without a time budget the search has fixed sizes, so a seed repeats the play on
        # any machine; with one it also stops at a deadline.
        budget = self.time_budget
        params = self._fast if budget is not None and budget < _FAST_BUDGET else self.params
        deadline = None if budget is None else time.perf_counter() + budget * 0.7
        _MD_CACHE.clear()
        k = read_view(view)
        inference = self.inference
        if self._asap_missed:
            seen = self._asap_seen + 4  # a prior of four hands played like the baseline
            inference = replace(
                inference, knock_asap=inference.knock_asap * seen / (seen + self._asap_missed)
            )
        turn = _Turn(k, inference)
        if view.phase in ("offer", "draw"):
            decision = self._choose_draw(view, turn, params)
        else:
            decision = self._choose_discard(view, turn, params, deadline)
        if decision.action not in legal:  # a safety net: never send an illegal action
            return ExpertDecision(legal[0], "fallback")  # pragma: no cover
        return decision

    # -- valuing hands -----------------------------------------------------------

    def _score_discards(
        self, hand11: int, forbid: int, turn: _Turn, width: int, params: ExpertParams
    ) -> list[tuple[float, int, float]]:
        """(value, card, deadwood after the next draw) for the `width` discards leaving least
        deadwood, best (lowest value) first. The deadwood is the certainty equivalent
        under `risk_tau` (the plain expectation when it is 0); the value adds the danger of
        feeding the opponent."""
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
        for _, _, c in cands[:width]:
            e = expected_after_draw(hand11 ^ (1 << c), turn.stock_w, turn.stock_total, params.risk_tau)
            out.append((e + params.danger * _danger(c, turn.probs), c, e))
        out.sort()
        return out

    def _stock_value(self, hand: int, turn: _Turn, params: ExpertParams) -> float:
        """Expected value (as in `_score_discards`) of the hand after a draw from the stock."""
        draws = turn.stock_w
        n = params.stock_samples
        if n and len(draws) > n:
            # A spread of cards in proportion to their weights (systematic sampling).
            step = turn.stock_total / n
            target = self.rng.random() * step
            chosen: list[tuple[int, float]] = []
            acc = 0.0
            for c, w in draws:
                acc += w
                while acc > target and len(chosen) < n:
                    chosen.append((c, 1.0))
                    target += step
            draws = chosen
        total = 0.0
        weight = 0.0
        for c, w in draws:
            total += w * self._score_discards(hand | 1 << c, -1, turn, params.stock_width, params)[0][0]
            weight += w
        return total / weight if weight else 0.0

    # -- drawing -----------------------------------------------------------------

    def _choose_draw(self, view: View, turn: _Turn, params: ExpertParams) -> ExpertDecision:
        k = turn.k
        up = k.upcard
        can_take = any(isinstance(a, Draw) and a.source == "discard" for a in view.legal)
        refuse: Action = Pass() if view.phase == "offer" else Draw("stock")
        if not can_take or up < 0:
            return ExpertDecision(Draw("stock"), "draw from the stock")
        hand = k.hand
        take = self._score_discards(hand | 1 << up, up, turn, params.lookahead_width, params)[0]
        stock_value = self._stock_value(hand, turn, params)
        card = CARDS[up].pretty
        if take[0] < stock_value - params.take_margin:
            plain = expected_after_draw((hand | 1 << up) ^ (1 << take[1]), turn.stock_w, turn.stock_total)
            return ExpertDecision(
                Draw("discard"),
                (
                    f"take {card} and throw {CARDS[take[1]].pretty}: {plain:.1f} deadwood expected "
                    f"after the next draw, a better hand than a stock draw is likely to give"
                ),
            )
        return ExpertDecision(refuse, f"{card} is worth less than a stock draw")

    # -- discarding and knocking -------------------------------------------------

    def _choose_discard(
        self, view: View, turn: _Turn, params: ExpertParams, deadline: float | None
    ) -> ExpertDecision:
        k = turn.k
        hand = k.hand
        if view.rules.big_gin_bonus is not None and MD(hand) == 0 and BigGin() in view.legal:
            return ExpertDecision(BigGin(), "Big Gin: all eleven cards melded")
        options = _knock_options_mask(hand, k.knock_limit)
        options.pop(k.taken, None)
        gin = [c for c, d in options.items() if d == 0]
        if gin:
            card = max(gin, key=lambda c: CARD_POINTS[c])
            return ExpertDecision(Knock(CARDS[card]), "Gin: every card melded")
        scored = self._score_discards(hand, k.taken, turn, params.lookahead_width, params)
        value, card, expected = scored[0]
        if options:
            least = min(options.values())
            knock_card = max((c for c, d in options.items() if d == least), key=lambda c: CARD_POINTS[c])
            if params.match_knock and k.opp_hidden > 0:
                verdict = self._match_knock(view, turn, params, knock_card, card, deadline)
                if verdict is not None:
                    return ExpertDecision(Knock(CARDS[knock_card]), f"knock with {least} deadwood: {verdict}")
            return ExpertDecision(
                Discard(CARDS[card]),
                (f"play on rather than knock with {least}: a low hand undercuts a knock and Gin scores more"),
            )
        plain = (
            expected
            if not params.risk_tau
            else expected_after_draw(hand ^ 1 << card, turn.stock_w, turn.stock_total)
        )
        reason = f"discard {CARDS[card].pretty}: leaves {plain:.1f} deadwood expected after the next draw"
        if (
            len(scored) > 1
            and value < scored[1][0]
            and _danger(card, turn.probs) < 0.05 < _danger(scored[1][1], turn.probs)
        ):
            reason += ", and it is unlikely to help the opponent"
        return ExpertDecision(Discard(CARDS[card]), reason)

    def _match_knock(
        self,
        view: View,
        turn: _Turn,
        params: ExpertParams,
        knock_card: int,
        discard_card: int,
        deadline: float | None,
    ) -> str | None:
        """Near the end of a match: a reason to knock when it gives a better chance to win
        the match than playing on (estimated over sampled deals), else None."""
        k = turn.k
        target = view.rules.target
        mine = view.scores[k.seat]
        theirs = view.scores[1 - k.seat]
        if mine < target - params.clinch_reach and theirs < target - params.threat_reach:
            return None
        sim_rules = _sim_rules(view)
        policy = params.rollout_policy
        rng = self.rng
        hand = k.hand
        knocked = hand ^ (1 << knock_card)
        after = hand ^ (1 << discard_card)
        dead = k.pile_mask
        unseen = k.unseen
        # Leave half the remaining time for the rollouts.
        opps = evolved_hands(
            k,
            params.match_rollouts,
            rng,
            turn.inference,
            turn.weights,
            deadline=None if deadline is None else deadline - (deadline - time.perf_counter()) / 2,
            minimum=params.mc_min,
        )

        def worth(points: int) -> float:
            if points >= 0:
                return match_win(mine + points, theirs, target)
            return match_win(mine, theirs - points, target)

        w_knock = 0.0
        w_play = 0.0
        n = 0
        for opp in opps:
            if deadline is not None and n >= params.mc_min and time.perf_counter() > deadline:
                break
            rest = bits(unseen & ~opp)
            rng.shuffle(rest)
            w_knock += worth(showdown_points(knocked, opp, sim_rules))
            w_play += worth(
                rollout(
                    after,
                    opp,
                    rest,
                    discard_card,
                    dead,
                    sim_rules,
                    policy,
                    random.Random(rng.getrandbits(32)),
                )
            )
            n += 1
        if n == 0 or w_knock <= w_play + params.match_margin * n:
            return None
        if mine >= target - params.clinch_reach:
            return f"a win now likely takes the match ({w_knock / n:.0%} against {w_play / n:.0%} playing on)"
        return (
            f"the opponent is {target - theirs} points from the match; knocking wins it "
            f"{w_knock / n:.0%} of the time against {w_play / n:.0%} playing on"
        )


register_player("expert", ExpertPlayer)
