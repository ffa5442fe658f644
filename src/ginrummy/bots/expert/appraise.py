"""What the expert thinks of a decision: its own choice, and the estimated cost of another.

Stable API for replay analysis and hints: `appraise(view, action)` returns an `Appraisal`
holding the action the expert plays in `view` and how much worse `action` is by the expert's
own measures, in one of two units:

- `"deadwood"` for the draw and the discard: the certainty equivalent of the hand's deadwood
  after the next stock draw plus the danger of feeding the opponent (the values the undercut
  game ranks its discards and draws by); lower values are better.
- `"points"` whenever a knock (Gin, Big Gin) is one of the two moves: the points the hand is
  expected to bring this seat (negative when the opponent is expected to score), over opponent
  hands sampled as the expert's end-of-match search samples them (`infer.evolved_hands`) and
  stock orders. Knocking is scored exactly against each sampled hand; playing on is that
  discard played out fast (`rollout.rollout`) with both sides knocking as the steady game does
  (`SteadyPlayer.knocks`: freely early in the hand, later only with enough deadwood that an
  undercut is unlikely, then for Gin), the judgement the expert chooses its own knocks by. Both
  moves meet the same samples, so their difference is steadier than either value. Higher
  values are better.

`cost` is how much worse `action` is than the expert's choice in that unit (0 when it is the
choice, or when the measure finds it no worse; None when the measure has nothing to weigh).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final, Literal

from ...rules import Action, BigGin, Discard, Draw, Knock, Pass, View
from ...rules.cards import CARDS
from ...rules.fast_core import bits, least_deadwood, showdown_points
from ..reasons import Reason
from .infer import evolved_hands
from .player import FULL_SEARCH, ExpertPlayer, Turn
from .rollout import rollout
from .steady import SteadyPlayer

__all__ = ["Appraisal", "KNOCK_SAMPLES", "Unit", "appraise", "expected_points"]

Unit = Literal["deadwood", "points"]
#: Opponent hands (each with its own stock order) a knock is weighed over: the standard error
#: of the difference between knocking and playing on is then about a point.
KNOCK_SAMPLES: Final = 160
#: How sure the sampling is that the opponent would have knocked already with a hand that
#: allowed it (a patient opponent plays some of those on).
OPPONENT_KNOCKED: Final = 0.75
#: Rounds of "draw, throw the worst" a sampled opponent hand goes through per stock draw. The
#: expert's search uses fewer (`infer.ROUNDS_PER_DRAW`, fitted to hands of least-deadwood players);
#: at the knock chances of forked real matches this many made the estimated difference between
#: knocking and playing on agree best with the truth (docs/bots.md, "Replay analysis").
ROUNDS_PER_DRAW: Final = 2.0


@dataclass(frozen=True, slots=True)
class Appraisal:
    """The expert's choice in a position, and what another action costs against it.

    `choice_value` and `action_value` are the two moves' values in `unit` (see the module's
    docstring; None when `action` is the choice), `cost` the difference against `action`.
    """

    choice: Action
    why: Reason
    action: Action
    cost: float | None
    unit: Unit | None = None
    choice_value: float | None = None
    action_value: float | None = None

    @property
    def reason(self) -> str:
        """The expert's reason for its choice, in English."""
        return self.why.text()

    def to_json(self) -> dict[str, object]:
        """`{"choice": ACTION, "reason": "...", "why": [PHRASE], "action": ACTION, "cost": 1.25 or null,
        "unit": "deadwood" | "points" | null, "choice_value": ..., "action_value": ...}`."""

        def rounded(x: float | None) -> float | None:
            return None if x is None else round(x, 3)

        return {
            "choice": self.choice.to_json(),
            "reason": self.reason,
            "why": self.why.to_json(),
            "action": self.action.to_json(),
            "cost": rounded(self.cost),
            "unit": self.unit,
            "choice_value": rounded(self.choice_value),
            "action_value": rounded(self.action_value),
        }


def appraise(view: View, action: Action, *, seed: int = 0, samples: int = KNOCK_SAMPLES) -> Appraisal:
    """The expert's choice in `view` and the estimated cost of playing `action` instead.

    `seed` fixes the expert's own sampling, so an appraisal repeats exactly. Raises ValueError
    when `view` has nothing to do or `action` is not legal in it.
    """
    if not view.legal:
        raise ValueError("nothing to appraise: it is not this seat's turn")
    if action not in view.legal:
        raise ValueError(f"{action} is not legal here; legal: {', '.join(str(a) for a in view.legal)}")
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples!r}")
    expert = ExpertPlayer(seed=seed)
    decision = expert.decide(view)
    choice = decision.action
    if action == choice:
        return Appraisal(choice, decision.why, action, 0.0)
    turn = expert.read(view)
    if any(isinstance(a, (Knock, BigGin)) for a in (action, choice)):
        points = _points(view, turn, (choice, action), random.Random(seed), samples)
        mine, theirs = points[choice], points[action]
        return Appraisal(choice, decision.why, action, max(0.0, mine - theirs), "points", mine, theirs)
    values = _values(expert, view, turn)
    mine_d, theirs_d = values.get(_key(choice)), values.get(_key(action))
    if mine_d is None or theirs_d is None:
        return Appraisal(choice, decision.why, action, None)  # pragma: no cover - a hand all melded
    return Appraisal(choice, decision.why, action, max(0.0, theirs_d - mine_d), "deadwood", mine_d, theirs_d)


def _key(action: Action) -> str:
    if isinstance(action, Discard):
        return f"throw {action.card}"
    if isinstance(action, Pass) or (isinstance(action, Draw) and action.source == "stock"):
        return "refuse"
    return str(action)


def _values(expert: ExpertPlayer, view: View, turn: Turn) -> dict[str, float]:
    """The expert's value (lower is better) of each move it can compare in `view`."""
    k = turn.k
    hand = k.hand
    if view.phase in ("offer", "draw"):
        out = {"refuse": expert.stock_value(hand, turn, FULL_SEARCH)}
        if k.upcard >= 0 and Draw("discard") in view.legal:
            take = expert.score_discards(hand | 1 << k.upcard, k.upcard, turn, 11)[0][0]
            out[str(Draw("discard"))] = take
        return out
    if least_deadwood(hand) == 0:
        return {}  # pragma: no cover - Big Gin: nothing to weigh
    return {
        f"throw {CARDS[card]}": value for value, card, _ in expert.score_discards(hand, k.taken, turn, 11)
    }


def expected_points(
    view: View, actions: tuple[Action, ...], *, seed: int = 0, samples: int = KNOCK_SAMPLES
) -> dict[Action, float]:
    """The points each of `actions` (knocks, Big Gin, discards of a discard phase) is expected to
    bring the seat of `view`, as `appraise` weighs a knock (see the module's docstring)."""
    legal = set(view.legal)
    if view.phase != "discard" or any(a not in legal for a in actions):
        raise ValueError("expected_points weighs legal moves of a discard phase")
    return _points(view, ExpertPlayer(seed=seed).read(view), actions, random.Random(seed), samples)


def _points(
    view: View, turn: Turn, actions: tuple[Action, ...], rng: random.Random, samples: int
) -> dict[Action, float]:
    """The points each of `actions` (knocks, Big Gin, discards of this discard phase) is expected to
    bring this seat, over the same sampled opponent hands and stock orders."""
    k = turn.k
    hand = k.hand
    rules = view.rules
    opponents = evolved_hands(
        k,
        samples,
        rng,
        turn.weights,
        knock_asap=OPPONENT_KNOCKED,
        minimum=samples,
        rounds_per_draw=ROUNDS_PER_DRAW,
    )
    totals = dict.fromkeys(actions, 0.0)
    for opp in opponents:
        rest = bits(k.unseen & ~opp)
        rng.shuffle(rest)
        play_seed = rng.getrandbits(32)
        for action in actions:
            if isinstance(action, BigGin):
                totals[action] += showdown_points(hand, opp, rules)
            elif isinstance(action, Knock):
                totals[action] += showdown_points(hand & ~(1 << action.card.index), opp, rules)
            elif isinstance(action, Discard):
                card = action.card.index
                totals[action] += rollout(
                    hand & ~(1 << card),
                    opp,
                    list(rest),
                    card,
                    k.pile_mask,
                    rules,
                    view.knock_limit,
                    random.Random(play_seed),
                    me_knocks=SteadyPlayer.knocks,
                    opp_knocks=SteadyPlayer.knocks,
                    my_draws=k.my_draws,
                    opp_draws=k.opp_draws,
                )
            else:  # pragma: no cover - a knock is weighed only against moves of the discard phase
                raise ValueError(f"{action} is not a move of the discard phase")
    return {action: total / len(opponents) for action, total in totals.items()}
