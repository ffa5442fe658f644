"""What the expert thinks of a decision: its own choice, and the estimated cost of another.

Stable API for replay analysis and hints: `appraise(view, action)` returns an `Appraisal`
holding the action the expert plays in `view` and how much worse `action` is by the
expert's measure of a hand, in points of deadwood: the certainty equivalent of the hand's
deadwood after the next stock draw plus the danger of feeding the opponent (the values the
undercut game ranks its discards and draws by). 0 means `action` is as good as the expert's
choice, or is its choice.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...rules import Action, Discard, Draw, Pass, View
from ...rules.cards import CARDS
from ...rules.masks import least_deadwood
from .player import FULL_SEARCH, ExpertPlayer

__all__ = ["Appraisal", "appraise"]


@dataclass(frozen=True, slots=True)
class Appraisal:
    """The expert's choice in a position, and what another action costs against it.

    `cost` is in points of deadwood (see the module's docstring); None when the expert's
    measure cannot compare the two (a knock against a discard, whose worth depends on the
    opponent's unseen hand).
    """

    choice: Action
    reason: str
    action: Action
    cost: float | None

    def to_json(self) -> dict[str, object]:
        """`{"choice": ACTION, "reason": "...", "action": ACTION, "cost": 1.25 or null}`."""
        return {
            "choice": self.choice.to_json(),
            "reason": self.reason,
            "action": self.action.to_json(),
            "cost": None if self.cost is None else round(self.cost, 3),
        }


def appraise(view: View, action: Action, *, seed: int = 0) -> Appraisal:
    """The expert's choice in `view` and the estimated cost of playing `action` instead.

    Raises ValueError when `view` has nothing to do or `action` is not legal in it.
    """
    if not view.legal:
        raise ValueError("nothing to appraise: it is not this seat's turn")
    if action not in view.legal:
        raise ValueError(f"{action} is not legal here; legal: {', '.join(str(a) for a in view.legal)}")
    expert = ExpertPlayer(seed=seed)
    decision = expert.decide(view)
    choice = decision.action
    if action == choice:
        return Appraisal(choice, decision.reason, action, 0.0)
    values = _values(expert, view)
    mine, theirs = values.get(_key(choice)), values.get(_key(action))
    cost = None if mine is None or theirs is None else max(0.0, theirs - mine)
    return Appraisal(choice, decision.reason, action, cost)


def _key(action: Action) -> str:
    if isinstance(action, Discard):
        return f"throw {action.card}"
    if isinstance(action, Pass) or (isinstance(action, Draw) and action.source == "stock"):
        return "refuse"
    return str(action)


def _values(expert: ExpertPlayer, view: View) -> dict[str, float]:
    """The expert's value (lower is better) of each move it can compare in `view`."""
    turn = expert.read(view)
    k = turn.k
    hand = k.hand
    if view.phase in ("offer", "draw"):
        out = {"refuse": expert._stock_value(hand, turn, FULL_SEARCH)}
        if k.upcard >= 0 and Draw("discard") in view.legal:
            take = expert._score_discards(hand | 1 << k.upcard, k.upcard, turn, 11)[0][0]
            out[str(Draw("discard"))] = take
        return out
    if least_deadwood(hand) == 0:
        return {}  # Big Gin: nothing to weigh
    return {
        f"throw {CARDS[card]}": value for value, card, _ in expert._score_discards(hand, k.taken, turn, 11)
    }
