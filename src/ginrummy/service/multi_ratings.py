"""Ratings of the tables of three and more: one Weng-Lin (OpenSkill Plackett-Luce) update per rated match.

Glicko-2 rates one person against one person; three-player Gin, team Gin and Rummy for two to six
are rated by Weng and Lin's Bayesian approximation ("A Bayesian Approximation Method for Online
Ranking", JMLR 12, 2011) as the `openskill` library implements it: one update takes the whole
finishing order of a match, ties and teams included (docs/compete.md). Each game has its own
ratings (the store keys them by game). A rating is stored in the same row as a Glicko rating:
`rating` holds the skill μ and `deviation` its uncertainty σ; the volatility is unused (0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from .ports import RatingPoint, RatingRow, RatingUpdate

__all__ = [
    "RATED_GAMES",
    "WENG_LIN",
    "WengLinConfig",
    "current",
    "finishing_ranks",
    "public_change",
    "public_rating",
    "ranked_until",
    "rating_update",
    "shown_change",
    "shown_rating",
]

#: The games rated here, each in a pool of its own (Rummy for three and for six are one game).
RATED_GAMES = ("gin3", "gin4_teams", "rummy")
DAY = 86400.0


@dataclass(frozen=True, slots=True)
class WengLinConfig:
    """The constants of the model: OpenSkill's defaults (μ 25, σ 25/3, β 25/6, κ 0.0001) scaled
    by 60, so a rating starts at 1500 and reads like a Glicko rating of two-player Gin."""

    mu: float = 1500.0
    sigma: float = 500.0
    beta: float = 250.0
    kappa: float = 0.36  # the smallest variance an update may leave (OpenSkill's κ, scaled)
    #: σ² grows by this much per day without a rated match (in place of OpenSkill's τ, which adds
    #: a fixed amount per match whether it came a minute or a year after the last): from the
    #: leaderboard bound back to provisional in about 125 days, as a Glicko deviation does.
    growth_per_day: float = 300.0
    #: Measured with three players: σ falls below 400 after about 10 matches and below 350 after
    #: about 15 (Weng-Lin's σ falls slower than a Glicko deviation, so the bounds are its own).
    provisional_sigma: float = 400.0
    ranked_sigma: float = 350.0

    def model(self) -> PlackettLuce:
        """The OpenSkill model: τ 0, since σ grows with idle days here (`current`)."""
        return PlackettLuce(mu=self.mu, sigma=self.sigma, beta=self.beta, kappa=self.kappa, tau=0.0)


WENG_LIN = WengLinConfig()


def current(row: RatingRow | None, now: float, config: WengLinConfig = WENG_LIN) -> tuple[float, float]:
    """(μ, σ) as they stand at `now`: σ grown for the days since the last rated match."""
    if row is None:
        return config.mu, config.sigma
    days = max(0.0, now - row.last_at) / DAY
    return row.rating, min(config.sigma, math.sqrt(row.deviation**2 + days * config.growth_per_day))


def ranked_until(sigma: float, at: float, config: WengLinConfig = WENG_LIN) -> float:
    """When a σ set at `at` grows past the leaderboard bound (0: not ranked now)."""
    if sigma > config.ranked_sigma:
        return 0.0
    return at + (config.ranked_sigma**2 - sigma**2) / config.growth_per_day * DAY


def shown_rating(
    rating: float, deviation: float, games: int, *, provisional: float, ranked: float
) -> dict[str, Any]:
    """A rating as pages show it, in every game: rounded, with its deviation now, whether it is
    provisional (a deviation of `provisional` or more) or ranked (`ranked` or less), and the
    rated matches it counts."""
    return {
        "rating": round(rating),
        "deviation": round(deviation),
        "provisional": deviation >= provisional,
        "ranked": deviation <= ranked,
        "games": games,
    }


def shown_change(point: RatingPoint, *, provisional: float) -> dict[str, Any]:
    """What a rated match did to one player's rating, as the end screen and My matches show it
    (Lichess's "1742? +12"), in every game: the rounded ratings before and after, their
    difference (so the three figures always add up), and whether the new rating is provisional
    (a deviation of `provisional` or more)."""
    before, after = round(point.before), round(point.rating)
    return {
        "before": before,
        "rating": after,
        "change": after - before,
        "provisional": point.deviation >= provisional,
    }


def public_rating(row: RatingRow | None, now: float, config: WengLinConfig = WENG_LIN) -> dict[str, Any]:
    """The rating as pages show it (`shown_rating`): μ rounded, σ now."""
    mu, sigma = current(row, now, config)
    games = row.games if row is not None else 0
    return shown_rating(mu, sigma, games, provisional=config.provisional_sigma, ranked=config.ranked_sigma)


def public_change(point: RatingPoint, config: WengLinConfig = WENG_LIN) -> dict[str, Any]:
    """What a rated match did to one player's rating (`shown_change`)."""
    return shown_change(point, provisional=config.provisional_sigma)


def finishing_ranks(scores: Sequence[int], winners: Sequence[int]) -> tuple[int, ...]:
    """Each side's place in the finishing order (0 first; equal totals share a place).

    `scores` are the sides' final totals (Rummy's balances, Gin's scores with bonuses), higher
    better; `winners` the indexes of the sides the rules declared winners, placed first even if
    a total ties theirs (the rules decide who won; the totals order the rest).
    """
    keys = [(side not in winners, -score) for side, score in enumerate(scores)]
    distinct = sorted(set(keys))
    return tuple(distinct.index(key) for key in keys)


def rating_update(
    game: str,
    teams: Sequence[Sequence[str]],
    ranks: Sequence[int],
    now: float,
    config: WengLinConfig = WENG_LIN,
) -> RatingUpdate:
    """The update a rated match makes (run by the store, atomically): `teams` the people of each
    side (one each, or team Gin's partners), `ranks` each side's place (`finishing_ranks`)."""
    if game not in RATED_GAMES:
        raise ValueError(f"{game!r} is not rated by Weng-Lin; the games are {', '.join(RATED_GAMES)}")
    if len(teams) != len(ranks) or len(teams) < 2:
        raise ValueError(
            f"a rated match has two or more sides, each with a place; got {len(teams)} and {len(ranks)}"
        )
    people = [guest_id for team in teams for guest_id in team]
    if not all(teams) or len(set(people)) != len(people):
        raise ValueError("every side of a rated match has its own people")
    model = config.model()

    def apply(stored: dict[str, RatingRow | None]) -> list[tuple[float, RatingRow]]:
        before = {g: current(stored.get(g), now, config) for g in people}
        rated = model.rate(
            [[model.rating(*before[g], name=g) for g in team] for team in teams],
            ranks=[float(r) for r in ranks],
        )
        updated = []
        for team, rated_team in zip(teams, rated, strict=True):
            for guest_id, new in zip(team, rated_team, strict=True):
                row = stored.get(guest_id)
                updated.append(
                    (
                        before[guest_id][0],
                        RatingRow(
                            guest_id=guest_id,
                            game=game,
                            rating=new.mu,
                            deviation=new.sigma,
                            volatility=0.0,
                            games=(row.games if row else 0) + 1,
                            last_at=now,
                            ranked_until=ranked_until(new.sigma, now, config),
                        ),
                    )
                )
        return updated

    return apply
