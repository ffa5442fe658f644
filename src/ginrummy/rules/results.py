"""How a game ends: a Gin match at any table, its totals with the end-of-match bonuses
(docs/rules.md §6) per seat (two or three players) or per team (team Gin), and a game of
Rummy, its balances; and who won."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .variants import Rules

__all__ = ["TEAMS", "MatchResult", "RummyGameResult", "final_result", "rummy_result"]

#: Team Gin's teams: partners sit opposite.
TEAMS: Final = ((0, 2), (1, 3))


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The final result: totals with bonuses, the winner, and how they were reached.

    `winner` is a seat (two or three players) or a team (team Gin), None when the top totals tie.
    """

    winner: int | None
    scores: tuple[int, ...]
    points: tuple[int, ...]  # hand (or round) points only, before end-of-match bonuses
    hands_won: tuple[int, ...]  # hands won (rounds won in team Gin)
    game_bonus: tuple[int, ...]
    box_bonus: tuple[int, ...]
    shutout_bonus: tuple[int, ...]
    hands_played: int
    teams: bool = False

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seats: one player, both partners of the winning team, or none on a tie."""
        if self.winner is None:
            return ()
        return TEAMS[self.winner] if self.teams else (self.winner,)

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON object (records store it)."""
        return {
            "winner": self.winner,
            "scores": list(self.scores),
            "points": list(self.points),
            "hands_won": list(self.hands_won),
            "game_bonus": list(self.game_bonus),
            "box_bonus": list(self.box_bonus),
            "shutout_bonus": list(self.shutout_bonus),
            "hands_played": self.hands_played,
        }


def final_result(
    points: list[int], hands_won: list[int], rules: Rules, hands_played: int, *, teams: bool = False
) -> MatchResult:
    """End-of-match bonuses (docs/rules.md §6) for two or more totals: the game bonus goes to the
    top total (the lower seat among equals), the box bonus to everyone per hand won, and the
    shutout bonus to the top total once for every other side that won no hand."""
    n = len(points)
    leader = max(range(n), key=lambda s: (points[s], -s))
    game = [rules.game_bonus if s == leader else 0 for s in range(n)]
    box = [rules.box_bonus * hands_won[s] for s in range(n)]
    shutouts = sum(1 for s in range(n) if s != leader and hands_won[s] == 0)
    shutout = [rules.shutout_bonus * shutouts if s == leader else 0 for s in range(n)]
    final = [points[s] + game[s] + box[s] + shutout[s] for s in range(n)]
    top = max(final)
    leaders = [s for s in range(n) if final[s] == top]
    return MatchResult(
        winner=leaders[0] if len(leaders) == 1 else None,
        scores=tuple(final),
        points=tuple(points),
        hands_won=tuple(hands_won),
        game_bonus=tuple(game),
        box_bonus=tuple(box),
        shutout_bonus=tuple(shutout),
        hands_played=hands_played,
        teams=teams,
    )


@dataclass(frozen=True, slots=True)
class RummyGameResult:
    """The end of a game: each seat's balance (received minus paid), the winner, hands won."""

    winner: int | None
    scores: tuple[int, ...]
    hands_won: tuple[int, ...]
    hands_played: int

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seats (one, or none)."""
        return () if self.winner is None else (self.winner,)

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON object (records store it)."""
        return {
            "winner": self.winner,
            "scores": list(self.scores),
            "hands_won": list(self.hands_won),
            "hands_played": self.hands_played,
        }


def rummy_result(balances: list[int], hands_won: list[int], hands_played: int) -> RummyGameResult:
    """The end of a game of Rummy: the top balance wins (none when two share it)."""
    top = max(balances)
    leaders = [s for s, v in enumerate(balances) if v == top]
    return RummyGameResult(
        winner=leaders[0] if len(leaders) == 1 else None,
        scores=tuple(balances),
        hands_won=tuple(hands_won),
        hands_played=hands_played,
    )
