"""Reviewing a played match: each decision of the chosen seats appraised by the expert, from that seat's view, and marked.

`positions(match, actions, seats)` replays a match from its start and gives, before each action
of a chosen seat that had a choice, the VIEW that seat had then (nothing else: the appraisal
never sees a card the player could not see). `review(position)` appraises it
(`expert.appraise`) and marks what the decision cost, Lichess-style (`mark`): an inaccuracy, a
mistake or a blunder. `summary(reviews)` counts them per seat.

Both measures of `appraise` are in points of the hand: a point of deadwood expected after the
next draw is a point at the showdown, and a knock is weighed by the points it is expected to
bring. So one scale of marks serves both (`THRESHOLDS`, in docs/bots.md with the reasons).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Final, Literal

from ..rules import Action, BigGin, Knock, Match, View
from .expert.appraise import Appraisal, Unit, appraise

__all__ = [
    "ENGINE",
    "MARKS",
    "THRESHOLDS",
    "Mark",
    "Position",
    "Review",
    "mark",
    "positions",
    "review",
    "summary",
]

#: Names what made an analysis; stored with it, so a changed analysis is made again on request.
ENGINE: Final = "expert-1"
Mark = Literal["inaccuracy", "mistake", "blunder"]
MARKS: Final[tuple[Mark, ...]] = ("inaccuracy", "mistake", "blunder")
#: The least cost, in points of the hand, of each mark (`mark`).
THRESHOLDS: Final[tuple[float, float, float]] = (2.0, 5.0, 10.0)


def mark(cost: float | None) -> Mark | None:
    """The mark a decision costing `cost` points of the hand earns (None: no mark).

    >>> mark(1.5), mark(2.0), mark(7.5), mark(12.0), mark(None)
    (None, 'inaccuracy', 'mistake', 'blunder', None)
    """
    if cost is None:
        return None
    earned: Mark | None = None
    for name, least in zip(MARKS, THRESHOLDS, strict=True):
        if cost >= least:
            earned = name
    return earned


@dataclass(frozen=True, slots=True)
class Position:
    """A decision as its seat met it: hand number (from 1), the step's index in that hand (from 0),
    the seat's VIEW before acting, and what it played."""

    hand: int
    step: int
    view: View
    action: Action

    @property
    def seat(self) -> int:
        return self.view.seat

    @property
    def measure(self) -> Unit:
        """The measure this decision is weighed by when it matches the expert's: points where a
        knock was allowed, deadwood otherwise."""
        return "points" if any(isinstance(a, (Knock, BigGin)) for a in self.view.legal) else "deadwood"


def positions(
    match: Match, actions: Iterable[tuple[int, Action]], seats: Collection[int]
) -> Iterator[Position]:
    """Play `actions` (seat, action) on `match`, which must stand at its start, yielding each
    decision of a seat in `seats` that had more than one legal move, with that seat's view.

    Raises `IllegalActionError` when the actions do not replay.
    """
    for seat, action in actions:
        if seat in seats:
            view = match.view(seat)
            if len(view.legal) > 1:
                yield Position(len(match.hands), len(match.hand.steps), view, action)
        match.apply(action, seat)


@dataclass(frozen=True, slots=True)
class Review:
    """One decision reviewed: where it was, the appraisal, and its mark."""

    position: Position
    appraisal: Appraisal
    mark: Mark | None

    @property
    def unit(self) -> Unit:
        return self.appraisal.unit or self.position.measure

    def to_json(self) -> dict[str, object]:
        """`{"hand", "step", "seat", "phase", "action", "choice", "why", "cost", "unit", "choice_value",
        "action_value", "mark"}` (the expert's reason as phrases, see `bots.reasons`)."""
        a = self.appraisal.to_json()
        return {
            "hand": self.position.hand,
            "step": self.position.step,
            "seat": self.position.seat,
            "phase": self.position.view.phase,
            "action": a["action"],
            "choice": a["choice"],
            "why": a["why"],
            "cost": a["cost"],
            "unit": self.unit,
            "choice_value": a["choice_value"],
            "action_value": a["action_value"],
            "mark": self.mark,
        }


def review(position: Position) -> Review:
    """The expert's appraisal of one decision and its mark (repeatable: the sampling is seeded by
    where the decision was)."""
    appraisal = appraise(position.view, position.action, seed=position.hand * 1000 + position.step)
    return Review(position, appraisal, mark(appraisal.cost))


def summary(reviews: Iterable[Review], seats: Iterable[int]) -> dict[str, dict[str, object]]:
    """Per seat (as a string key): decisions, how many matched the expert's choice, the count of
    each mark, and the average cost per decision of each measure (with how many it averages)."""
    out: dict[str, dict[str, object]] = {}
    by_seat: dict[int, list[Review]] = {seat: [] for seat in seats}
    for r in reviews:
        by_seat.setdefault(r.position.seat, []).append(r)
    for seat, mine in sorted(by_seat.items()):
        averages: dict[str, dict[str, float | int]] = {}
        for unit in ("deadwood", "points"):
            costs = [r.appraisal.cost or 0.0 for r in mine if r.unit == unit]
            averages[unit] = {
                "decisions": len(costs),
                "cost": round(sum(costs) / len(costs), 2) if costs else 0.0,
            }
        out[str(seat)] = {
            "decisions": len(mine),
            "agreed": sum(1 for r in mine if r.appraisal.action == r.appraisal.choice),
            **{name: sum(1 for r in mine if r.mark == name) for name in MARKS},
            "average": averages,
        }
    return out
