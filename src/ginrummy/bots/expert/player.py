"""The `expert` player: card tracking, opponent inference, lookahead and Monte-Carlo search.

Its card play (below) is the same in its two games; they differ in when it knocks. It opens
with the steady game's knock judgement (`steady.SteadyPlayer.knocks`, found by self-play): it
knocks freely early in a hand, cashes in a hand too high to undercut a knock a little later,
and plays for Gin late, which holds up against any opponent. From every finished hand it
learns how the opponent knocks: an opponent seen knocking late in a hand with deadwood to
spare knocks at its first chance, and against such an opponent the expert switches to the
undercut game, which plays every hand short of Gin on to undercut those knocks. An opponent
seen passing up knocks switches it back.

How it plays (the tuned figures are the class's named constants):
- Every card seen is tracked: the discard pile is dead, cards the opponent took are in its
  hand, and its takes, passes and throws shift the odds of the cards next to them
  (`knowledge.card_probs`); the next stock card is weighted by the odds it is not in that hand.
- A ten-card hand is worth the deadwood it is expected to hold after the next draw from
  the stock (one-step lookahead over the live cards), so pairs and open runs with live
  cards are kept and dead ends thrown. The deadwood of each draw counts through a falling
  utility (`risk_tau`): a hand that may reach Gin or a count low enough to undercut beats
  one sure to sit at a middling count. Of two discards worth the same, the one less likely
  to complete a meld in the opponent's hand goes.
- The upcard is taken when the hand it leaves is worth more than a stock draw.
- Gin always ends the hand. In the undercut game it otherwise plays on: measured against an
  opponent that knocks at its first chance, a low hand that waits undercuts that knock or
  goes Gin, and is worth more than a small knock at every stage of the hand.
- Near the end of a match points give way to the chance of winning the match: when a knock
  could reach the target, or the opponent is close to it, knocking is weighed against
  playing on over sampled opponent hands and stock orders (Monte-Carlo rollouts), each
  outcome valued by the chance to win the match from the score it leaves (`match_odds`).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Final

from ...rules import Action, BigGin, Discard, Draw, Knock, Pass, View
from ...rules.cards import CARD_POINTS, CARDS
from ...rules.fast_core import bits, knock_options, least_deadwood, showdown_points
from ..knowledge import Knowledge, card_probs, card_weights, expected_after_draw, meld_danger, track
from ..reasons import Reason
from .infer import evolved_hands
from .match_odds import match_win
from .rollout import rollout
from .steady import SteadyPlayer

__all__ = ["ExpertDecision", "ExpertPlayer", "Scored", "Turn"]

#: A discard as `ExpertPlayer.score_discards` values it: (value, card, deadwood after the next draw).
Scored = tuple[float, int, float]


@dataclass(frozen=True, slots=True)
class SearchWidth:
    """How wide the expert searches: discards given the full lookahead, stock cards sampled
    to value a stock draw and discards tried after each, sampled deals for an end-of-match
    knock and the least of them played past a time budget's deadline."""

    width: int
    stock_samples: int
    stock_width: int
    rollouts: int
    min_rollouts: int


#: Without a time budget (or with a roomy one) the searches have these fixed sizes, so a
#: seeded expert repeats its play on any machine.
FULL_SEARCH: Final = SearchWidth(width=6, stock_samples=12, stock_width=2, rollouts=64, min_rollouts=8)
#: Below `FAST_BUDGET` seconds a decision narrows to these.
FAST_SEARCH: Final = SearchWidth(width=3, stock_samples=4, stock_width=1, rollouts=24, min_rollouts=2)
FAST_BUDGET: Final = 0.03


@dataclass(frozen=True, slots=True)
class ExpertDecision:
    """An action and a short reason a person can follow (used for hints at the table)."""

    action: Action
    why: Reason

    @property
    def reason(self) -> str:
        """Why, in English."""
        return self.why.text()


class Turn:
    """Per-decision data: what is known, card odds, the weights of the next stock card, and
    the least deadwood of the hands met while valuing this decision (`ExpertPlayer.read`)."""

    __slots__ = ("k", "probs", "stock_w", "stock_total", "weights", "cache")

    def __init__(self, k: Knowledge) -> None:
        self.k = k
        self.weights = card_weights(k)
        self.probs = card_probs(k, self.weights)
        # The next stock card is any unseen card not in the opponent's hand.
        self.stock_w = [(c, 1.0 - self.probs[c]) for c in bits(k.unseen) if self.probs[c] < 1.0]
        self.stock_total = sum(w for _, w in self.stock_w) or 1.0
        self.cache: dict[int, int] = {}


class ExpertPlayer:
    """The strongest player here; sees only its seat's view.

    Its tuned values are the named constants below; an experiment measures a variant by
    subclassing and overriding them (see benchmarks/bench_expert.py), never through
    arguments of the product.
    """

    name = "expert"

    #: Weight, in expected deadwood, of the chance that a discard completes a meld for the
    #: opponent. Kept moderate: feeding a knock-at-once opponent is often no harm to a low
    #: hand that undercuts it (0.5 to 2 measured alike against the baseline, 0 worse).
    DANGER = 1.5
    #: Hands are valued by the deadwood expected after the next draw through the utility
    #: exp(-deadwood / RISK_TAU) (its certainty equivalent), so a hand with a chance of Gin or
    #: of a low count beats one sure to sit at a middling count (12 sits on a flat plateau).
    RISK_TAU = 12.0
    #: End of match: weigh knocking by the chance to win the match when its score is within
    #: CLINCH_REACH of the target or the opponent's within THREAT_REACH ...
    CLINCH_REACH = 45
    THREAT_REACH = 35
    #: ... and knock only when that wins the match this much more often than playing on.
    MATCH_MARGIN = 0.01
    #: Open with the steady game and switch to the undercut game once the opponent is seen
    #: knocking at its first chance (False: the undercut game from the start).
    ADAPTIVE_OPENING = True
    #: An opponent knocking (not Gin) after this many of its own draws in a hand, or after
    #: SMALL_KNOCK_DRAWS with less than SMALL_KNOCK deadwood, knocks at its first chance (a
    #: patient player would have played on for Gin or the undercut).
    LATE_KNOCK_DRAWS = 6
    SMALL_KNOCK_DRAWS = 4
    SMALL_KNOCK = 4
    #: Hands of prior belief that the opponent knocks at its first chance, against which
    #: each knock it was seen passing up weighs.
    KNOCK_PRIOR_HANDS = 4

    def __init__(self, *, seed: int | None = None, time_budget: float | None = None) -> None:
        if time_budget is not None and not time_budget > 0:
            raise ValueError(f"time_budget must be a positive number of seconds, got {time_budget!r}")
        self.rng = random.Random(seed)
        self.time_budget = time_budget
        self._asap_seen = 0
        self._asap_missed = 0
        self._late_knocks = 0

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
        if sd is None or sd.knocker is None or sd.hands is None or sd.deadwood is None:
            return
        opp = 1 - view.seat
        if sd.knocker == opp:
            self._asap_seen += 1
            draws = sum(1 for e in view.history if e.seat == opp and e.kind == "draw")
            deadwood = sd.deadwood[opp]
            if deadwood > 0 and (
                draws > self.LATE_KNOCK_DRAWS
                or (draws > self.SMALL_KNOCK_DRAWS and deadwood < self.SMALL_KNOCK)
            ):
                self._late_knocks += 1
            return
        if least_deadwood(sd.hands[opp].mask) <= view.knock_limit:
            self._asap_missed += 1
        else:
            self._asap_seen += 1

    def _knock_asap(self) -> float:
        """The chance that the opponent knocks at its first chance, from the knocks it was
        seen passing up (hands that would have knocked are sampled less in proportion)."""
        if not self._asap_missed:
            return 1.0
        seen = self._asap_seen + self.KNOCK_PRIOR_HANDS
        return seen / (seen + self._asap_missed)

    @property
    def exploiting(self) -> bool:
        """True once the opponent has been seen knocking at its first chance more often than
        passing up a knock: the expert then plays for Gin and the undercut."""
        return not self.ADAPTIVE_OPENING or self._late_knocks > self._asap_missed

    def decide(self, view: View) -> ExpertDecision:
        """The move for `view` with a short reason."""
        legal = view.legal
        if not legal:
            raise ValueError("act() needs a view with legal actions (it is not this seat's turn)")
        if len(legal) == 1:
            return ExpertDecision(legal[0], Reason.of("only_move"))
        # Without a time budget the search has fixed sizes, so a seed repeats the play on
        # any machine; with one it also stops at a deadline.
        budget = self.time_budget
        search = FAST_SEARCH if budget is not None and budget < FAST_BUDGET else FULL_SEARCH
        deadline = None if budget is None else time.perf_counter() + budget * 0.7
        turn = self.read(view)
        if view.phase in ("offer", "draw"):
            decision = self._choose_draw(view, turn, search, deadline)
        else:
            decision = self._choose_discard(view, turn, search, deadline)
        if decision.action not in legal:  # a safety net: never send an illegal action
            return ExpertDecision(legal[0], Reason.of("only_move"))  # pragma: no cover
        return decision

    # -- valuing hands -----------------------------------------------------------

    def read(self, view: View) -> Turn:
        """What this decision knows: the view decoded and the opponent's likely cards."""
        return Turn(track(view))

    def danger(self, card: int, turn: Turn) -> float:
        """The chance that throwing `card` completes a meld in the opponent's hand."""
        return meld_danger(card, turn.probs)

    def score_discards(self, hand11: int, forbid: int, turn: Turn, width: int) -> list[Scored]:
        """(value, card, deadwood after the next draw) for the `width` discards leaving least
        deadwood, best (lowest value) first. The deadwood is the certainty equivalent
        under RISK_TAU (the plain expectation when it is 0); the value adds the danger of
        feeding the opponent."""
        cands = []
        m = hand11
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            if c == forbid:
                continue
            cands.append((least_deadwood(hand11 ^ low), -CARD_POINTS[c], c))
        cands.sort()
        out = []
        for _, _, c in cands[:width]:
            e = expected_after_draw(
                hand11 ^ (1 << c), turn.stock_w, turn.stock_total, self.RISK_TAU, turn.cache
            )
            out.append((e + self.DANGER * self.danger(c, turn), c, e))
        out.sort()
        return out

    def stock_value(self, hand: int, turn: Turn, search: SearchWidth) -> float:
        """Expected value (as in `score_discards`) of the hand after a draw from the stock."""
        draws = turn.stock_w
        n = search.stock_samples
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
            total += w * self.score_discards(hand | 1 << c, -1, turn, search.stock_width)[0][0]
            weight += w
        return total / weight if weight else 0.0

    def pick_discard(self, view: View, turn: Turn, scored: list[Scored], deadline: float | None) -> Scored:
        """The discard to make of `scored` (`score_discards`, best first): the best valued."""
        return scored[0]

    # -- drawing -----------------------------------------------------------------

    def _choose_draw(
        self, view: View, turn: Turn, search: SearchWidth, deadline: float | None
    ) -> ExpertDecision:
        k = turn.k
        up = k.upcard
        can_take = any(isinstance(a, Draw) and a.source == "discard" for a in view.legal)
        refuse: Action = Pass() if view.phase == "offer" else Draw("stock")
        if not can_take or up < 0:
            return ExpertDecision(Draw("stock"), Reason.of("stock"))
        hand = k.hand
        take = self.score_discards(hand | 1 << up, up, turn, search.width)[0]
        stock_value = self.stock_value(hand, turn, search)
        card = CARDS[up]
        if self.prefer_take(view, turn, take, stock_value, deadline):
            plain = expected_after_draw(
                (hand | 1 << up) ^ (1 << take[1]), turn.stock_w, turn.stock_total, cache=turn.cache
            )
            return ExpertDecision(
                Draw("discard"), Reason.of("take_and_throw", card=card, throw=CARDS[take[1]], expected=plain)
            )
        return ExpertDecision(refuse, Reason.of("worth_less_than_stock", card=card))

    def prefer_take(
        self, view: View, turn: Turn, take: Scored, stock_value: float, deadline: float | None
    ) -> bool:
        """Whether to take the upcard, given the best discard after taking it (`take`, as in
        `score_discards`) and the value of a stock draw: when it is worth more."""
        return take[0] < stock_value

    # -- discarding and knocking -------------------------------------------------

    def _choose_discard(
        self, view: View, turn: Turn, search: SearchWidth, deadline: float | None
    ) -> ExpertDecision:
        k = turn.k
        hand = k.hand
        if view.rules.big_gin_bonus is not None and least_deadwood(hand) == 0 and BigGin() in view.legal:
            return ExpertDecision(BigGin(), Reason.of("big_gin_head"))
        options = knock_options(hand, k.knock_limit, k.taken)
        gin = [c for c, d in options.items() if d == 0]
        if gin:
            card = max(gin, key=lambda c: CARD_POINTS[c])
            return ExpertDecision(Knock(CARDS[card]), Reason.of("gin_head"))
        if options and not self.exploiting:
            steady = SteadyPlayer.knock_card(hand, options, turn.probs)
            why = SteadyPlayer.knock_reason(options[steady], k.my_draws)
            if why is not None:
                head = Reason.of("knock_head", deadwood=options[steady])
                return ExpertDecision(Knock(CARDS[steady]), head.join(why, lead=": "))
        scored = self.score_discards(hand, k.taken, turn, search.width)
        value, card, expected = self.pick_discard(view, turn, scored, deadline)
        if options:
            least = min(options.values())
            knock_card = max((c for c, d in options.items() if d == least), key=lambda c: CARD_POINTS[c])
            if k.opp_hidden > 0:
                verdict = self._match_knock(view, turn, search, knock_card, card, deadline)
                if verdict is not None:
                    head = Reason.of("knock_head", deadwood=least)
                    return ExpertDecision(Knock(CARDS[knock_card]), head.join(verdict, lead=": "))
            play_on = "play_on_undercut" if self.exploiting else "plays_on_for_gin"
            return ExpertDecision(Discard(CARDS[card]), Reason.of(play_on, deadwood=least))
        plain = (
            expected
            if not self.RISK_TAU
            else expected_after_draw(hand ^ 1 << card, turn.stock_w, turn.stock_total, cache=turn.cache)
        )
        reason = Reason.of("discard_head", card=CARDS[card]).then(
            "leaves_expected", lead=": ", expected=plain
        )
        if (
            len(scored) > 1
            and value < scored[1][0]
            and self.danger(card, turn) < 0.05 < self.danger(scored[1][1], turn)
        ):
            reason = reason.then("unlikely_to_help", lead=", ")
        return ExpertDecision(Discard(CARDS[card]), reason)

    def _match_knock(
        self,
        view: View,
        turn: Turn,
        search: SearchWidth,
        knock_card: int,
        discard_card: int,
        deadline: float | None,
    ) -> Reason | None:
        """Near the end of a match: a reason to knock when it gives a better chance to win
        the match than playing on (estimated over sampled deals), else None."""
        k = turn.k
        target = view.rules.target
        mine = view.scores[k.seat]
        theirs = view.scores[1 - k.seat]
        if mine < target - self.CLINCH_REACH and theirs < target - self.THREAT_REACH:
            return None
        rng = self.rng
        hand = k.hand
        knocked = hand ^ (1 << knock_card)
        after = hand ^ (1 << discard_card)
        dead = k.pile_mask
        unseen = k.unseen
        # Leave half the remaining time for the rollouts.
        opps = evolved_hands(
            k,
            search.rollouts,
            rng,
            turn.weights,
            knock_asap=self._knock_asap(),
            deadline=None if deadline is None else deadline - (deadline - time.perf_counter()) / 2,
            minimum=search.min_rollouts,
        )

        def worth(points: int) -> float:
            if points >= 0:
                return match_win(mine + points, theirs, target)
            return match_win(mine, theirs - points, target)

        w_knock = 0.0
        w_play = 0.0
        n = 0
        for opp in opps:
            if deadline is not None and n >= search.min_rollouts and time.perf_counter() > deadline:
                break
            rest = bits(unseen & ~opp)
            rng.shuffle(rest)
            w_knock += worth(showdown_points(knocked, opp, view.rules))
            w_play += worth(
                rollout(
                    after,
                    opp,
                    rest,
                    discard_card,
                    dead,
                    view.rules,
                    view.knock_limit,
                    random.Random(rng.getrandbits(32)),
                )
            )
            n += 1
        if n == 0 or w_knock <= w_play + self.MATCH_MARGIN * n:
            return None
        knock, play = round(100 * w_knock / n), round(100 * w_play / n)
        if mine >= target - self.CLINCH_REACH:
            return Reason.of("match_clinch", knock=knock, play=play)
        return Reason.of("match_threat", points=target - theirs, knock=knock, play=play)
