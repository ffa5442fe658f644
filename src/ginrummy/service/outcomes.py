"""What a finished game adds to statistics, leaderboards and ratings: its `MatchOutcome`.

Rated two-player Gin between two people moves both Glicko-2 ratings and counts on the points
boards; with a bot account it is rated in the bots' pool and counts on no board; a rated table
of three and more moves its game's Weng-Lin ratings; casual games add nothing (docs/compete.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules import Game, Match
from .leaderboards import bucket_keys, utc_day
from .multi_ratings import RATED_GAMES, finishing_ranks
from .multi_ratings import rating_update as table_rating_update
from .ports import MatchOutcome, PlayerLine, SeatRow
from .ratings import BOT_POOL, GAME, rating_update
from .statistics import player_lines

__all__ = ["outcome_of"]


def outcome_of(
    game: Game,
    seats: tuple[SeatRow, ...],
    rated: bool,
    finished_at: float,
    *,
    bot_seated: bool,
    forfeit_winner: int | None = None,
    absent: Sequence[bool] = (),
) -> MatchOutcome | None:
    """Rated two-player Gin is between two people: it moves both ratings and counts on the points
    boards. A match with a bot account is rated in the bots' own pool and counts on no board. A
    rated table of three and more moves its game's Weng-Lin ratings (`_table_outcome`); casual
    ones add nothing (docs/compete.md). `absent`: per seat, whether the server made every one of
    its moves (`ActionLog.absent`); `bot_seated`: a bot account sits at the table."""
    if not isinstance(game, Match):
        return _table_outcome(game, seats, finished_at, absent, bot_seated) if rated else None
    lines = player_lines(game, seats, forfeit_winner=forfeit_winner)
    rated = rated and len(lines) == 2
    pool = BOT_POOL if bot_seated else GAME
    counts = rated and pool == GAME
    day = utc_day(finished_at)
    return MatchOutcome(
        game=pool,
        lines=lines,
        day=day,
        counts=counts,
        buckets=bucket_keys(day) if counts else (),
        rate=rating_update(pool, lines, finished_at) if rated else None,
    )


def _table_outcome(
    game: Game, seats: tuple[SeatRow, ...], finished_at: float, absent: Sequence[bool], bot_seated: bool
) -> MatchOutcome | None:
    """A rated table of three and more, finished by its rules: every seat a person (no robot,
    no bot account), none of whom left every move to the stand-in (else it counts for nobody,
    as a two-player match aborted before both moved), ranked by the finishing order, partners
    as one side."""
    result = game.result
    people = [s.guest_id for s in seats]
    if (
        result is None
        or game.rules.game not in RATED_GAMES
        or any(g is None for g in people)
        or bot_seated
        or len(absent) != len(seats)
        or any(absent)
    ):
        return None
    sides = game.sides
    side_of = {seat: n for n, side in enumerate(sides) for seat in side}
    winners = sorted({side_of[seat] for seat in result.winners})
    ranks = finishing_ranks(result.scores, winners)
    lines = tuple(
        PlayerLine(
            guest_id=str(s.guest_id),
            seat=s.seat,
            score=1.0 if side_of[s.seat] in winners else 0.5 if not winners else 0.0,
            points=result.scores[side_of[s.seat]],
            hands=game.hand_number,
            gins=0,
            undercuts=0,
            knocks=0,
            knock_deadwood=0,
        )
        for s in seats
    )
    teams = [[str(seats[seat].guest_id) for seat in side] for side in sides]
    return MatchOutcome(
        game=game.rules.game,
        lines=lines,
        day=utc_day(finished_at),
        counts=False,
        rate=table_rating_update(game.rules.game, teams, ranks, finished_at),
    )
