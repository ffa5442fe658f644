"""The result of a match with a stranger ended before the rules end it: aborted, resigned or abandoned.

Resigning or leaving before both players have made a move themselves aborts the match (Lichess's
rule): nobody wins and, rated or not, no rating moves ("aborted, unrated"). Otherwise the one who
resigned or left loses, whatever the score.
"""

from __future__ import annotations

from typing import Any

from ..rules import Match

__all__ = ["early_ending"]


def early_ending(
    match: Match, seat: int, reason: str, *, both_moved: bool, rated: bool, moves: list[int]
) -> dict[str, Any]:
    """The stored result of two-player `match` ended by `seat` for `reason` ("aborted",
    "resigned" or "abandoned"); `moves` are the moves each player made themselves."""
    if reason != "aborted" and not both_moved:
        reason = "aborted"
    winner = None if reason == "aborted" else 1 - seat
    scores = list(match.scores)
    hands_won = [0, 0]
    for hand in match.hands:
        if hand.result is not None and hand.result.scorer is not None and hand.result.points:
            hands_won[hand.result.scorer] += 1
    return {
        "winner": winner,
        "scores": scores,
        "points": scores,
        "hands_won": hands_won,
        "game_bonus": [0, 0],
        "box_bonus": [0, 0],
        "shutout_bonus": [0, 0],
        "hands_played": len(match.hands),
        "ended": reason,
        "by": seat,
        # Whether this result moves ratings (an aborted match never does), and the moves each
        # player made themselves (the fair-play records read them).
        "rated": rated and winner is not None,
        "moves": moves,
    }
