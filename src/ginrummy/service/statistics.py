"""Per-player lines of a finished match: result, points and the counts behind the profile statistics."""

from __future__ import annotations

from ..rules import Match
from .ports import PlayerLine, SeatRow

__all__ = ["player_lines"]


def player_lines(
    match: Match, seats: tuple[SeatRow, ...], *, forfeit_winner: int | None = None
) -> tuple[PlayerLine, ...]:
    """One line per person seated in a finished `match` (robots have none).

    `forfeit_winner`: the match ended early (resigned, abandoned) and this seat won it; the
    points are the scores reached so far.
    """
    result = match.result
    if result is None and forfeit_winner is None:
        raise ValueError("the match is not over")
    winner = forfeit_winner if forfeit_winner is not None else result.winner if result else None
    scores = match.scores if forfeit_winner is not None or result is None else result.scores
    lines = []
    for seat_row in seats:
        if seat_row.guest_id is None:
            continue
        seat = seat_row.seat
        other = seats[1 - seat]
        gins = undercuts = knocks = knock_deadwood = 0
        for hand in match.hands:
            outcome = hand.result
            if outcome is None:
                continue
            if outcome.scorer == seat and outcome.outcome in ("gin", "big_gin"):
                gins += 1
            if outcome.scorer == seat and outcome.outcome == "undercut":
                undercuts += 1
            if outcome.knocker == seat and outcome.showdown is not None:
                knocks += 1
                knock_deadwood += outcome.showdown.knocker_deadwood
        score = 0.5 if winner is None else (1.0 if winner == seat else 0.0)
        lines.append(
            PlayerLine(
                guest_id=seat_row.guest_id,
                seat=seat,
                score=score,
                points=scores[seat],
                hands=len(match.hands),
                gins=gins,
                undercuts=undercuts,
                knocks=knocks,
                knock_deadwood=knock_deadwood,
                opponent_id=other.guest_id,
                opponent_robot=other.robot_level,
            )
        )
    return tuple(lines)
