"""Ratings of people: one Glicko-2 update per finished rated match, provisional and ranked states.

Only matches between two people are rated. Robots are no pool of their own: a match against a
robot is always casual (no rating moves, no leaderboard points), so a rating says how someone
plays against people and cannot be farmed against a robot of a known strength. Bot accounts
(programs that people challenge, service/bots.py) are rated in their own pool, `BOT_POOL`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .glicko2 import LICHESS, SCALE, Glicko, GlickoConfig, rate_game
from .multi_ratings import RATED_GAMES as TABLE_GAMES
from .multi_ratings import public_change as table_change
from .multi_ratings import shown_change, shown_rating
from .ports import PlayerLine, RatingPoint, RatingRow, RatingUpdate

__all__ = [
    "BOT_POOL",
    "GAME",
    "current",
    "public_change",
    "public_rating",
    "ranked_until",
    "rating_update",
    "seat_changes",
]

#: The one game rated so far: two-player Gin Rummy (any preset and target). Other games get their
#: own key (and so their own rating and boards).
GAME = "gin"
#: The bots' own pool (Lichess's rule): a rated match between a person and a bot account moves
#: both players' ratings here, never in GAME, so no bot ranks among people and a person's rating
#: against people cannot be farmed against a program.
BOT_POOL = "gin_bot"
DAY = 86400.0


def current(row: RatingRow | None, now: float, config: GlickoConfig = LICHESS) -> Glicko:
    """The rating as it stands at `now`: its deviation grown for the days since the last rated match."""
    if row is None:
        return config.initial
    days = max(0.0, now - row.last_at) / DAY
    phi = row.deviation / SCALE
    grown = math.sqrt(phi * phi + days * config.periods_per_day * row.volatility**2) * SCALE
    return Glicko(row.rating, min(config.max_deviation, grown), row.volatility)


def ranked_until(rating: Glicko, at: float, config: GlickoConfig = LICHESS) -> float:
    """When the deviation of a rating set at `at` grows past the leaderboard bound (0: not ranked now).

    Stored with the rating, so the rating board is one indexed query ("ranked_until > now").
    """
    limit = config.ranked_deviation
    if rating.deviation > limit:
        return 0.0
    per_day = SCALE * SCALE * config.periods_per_day * rating.volatility**2
    if per_day <= 0:
        return math.inf
    return at + (limit * limit - rating.deviation**2) / per_day * DAY


def public_rating(row: RatingRow | None, now: float, config: GlickoConfig = LICHESS) -> dict[str, Any]:
    """The rating as pages show it (`multi_ratings.shown_rating`), with its deviation now."""
    glicko = current(row, now, config)
    games = row.games if row is not None else 0
    return shown_rating(
        glicko.rating,
        glicko.deviation,
        games,
        provisional=config.provisional_deviation,
        ranked=config.ranked_deviation,
    )


def public_change(point: RatingPoint, config: GlickoConfig = LICHESS) -> dict[str, Any]:
    """What a rated match did to one player's rating (`multi_ratings.shown_change`)."""
    return shown_change(point, provisional=config.provisional_deviation)


def seat_changes(
    points: Sequence[RatingPoint], guest_ids: Sequence[str | None], game: str = GAME
) -> list[Any] | None:
    """Per seat (by who sits there), the change `points` made to its rating in `game`'s model:
    None for a seat no rating moved for, and None for all when the match moved none (casual,
    aborted, against a robot)."""
    by_guest = {point.guest_id: point for point in points}
    if not by_guest:
        return None
    change = table_change if game in TABLE_GAMES else public_change
    return [change(by_guest[g]) if g is not None and g in by_guest else None for g in guest_ids]


def rating_update(
    game: str, lines: tuple[PlayerLine, ...], now: float, config: GlickoConfig = LICHESS
) -> RatingUpdate:
    """The update a rated match between the two people of `lines` makes (run by the store, atomically)."""
    if len(lines) != 2:
        raise ValueError(f"a rated match has two people, got {len(lines)}")
    first, second = lines

    def apply(stored: dict[str, RatingRow | None]) -> list[tuple[float, RatingRow]]:
        rows = [stored.get(first.guest_id), stored.get(second.guest_id)]
        before = [Glicko(r.rating, r.deviation, r.volatility) if r else config.initial for r in rows]
        idle = tuple(max(0.0, now - r.last_at) / DAY if r else 0.0 for r in rows)
        after = rate_game(before[0], before[1], first.score, idle_days=(idle[0], idle[1]), config=config)
        return [
            (
                old.rating,
                RatingRow(
                    guest_id=line.guest_id,
                    game=game,
                    rating=new.rating,
                    deviation=new.deviation,
                    volatility=new.volatility,
                    games=(row.games if row else 0) + 1,
                    last_at=now,
                    ranked_until=ranked_until(new, now, config),
                ),
            )
            for line, row, old, new in zip(lines, rows, before, after, strict=True)
        ]

    return apply
