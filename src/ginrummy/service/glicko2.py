"""Glicko-2 ratings, pure math with no I/O: Glickman's algorithm with Lichess's published constants.

Glickman, "Example of the Glicko-2 system" (2013): a rating period's results update the rating
(mu), the deviation (phi) and the volatility (sigma); the new volatility is the root of f(x)
found by the Illinois variant of regula falsi (step 5.1 of the paper). Lichess rates every game
as its own rating period and, before it, widens each player's deviation for the time since the
last rated game (0.21436 rating periods a day), then keeps the values within its bounds. We do
the same with a match as the game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Glicko", "GlickoConfig", "LICHESS", "decay", "rate_game", "update"]

SCALE = 173.7178  # Glicko-2 scale factor: 400 / ln(10)
CONVERGENCE = 1e-6


@dataclass(frozen=True, slots=True)
class Glicko:
    """A rating on the Glicko scale: rating, rating deviation (RD) and volatility."""

    rating: float
    deviation: float
    volatility: float

    def __repr__(self) -> str:
        return f"Glicko({self.rating:.2f}, {self.deviation:.2f}, {self.volatility:.6f})"


@dataclass(frozen=True, slots=True, kw_only=True)
class GlickoConfig:
    """The constants of a rating system; `LICHESS` holds Lichess's published ones."""

    rating: float = 1500.0
    deviation: float = 500.0
    volatility: float = 0.09
    tau: float = 0.75
    min_deviation: float = 45.0
    max_deviation: float = 500.0
    max_volatility: float = 0.1
    min_rating: float = 400.0
    max_rating: float = 4000.0
    max_delta: float = 700.0  # most a rating may move in one game
    periods_per_day: float = 0.21436
    provisional_deviation: float = 110.0  # a rating is provisional ("?") while RD >= this
    ranked_deviation: float = 75.0  # on the rating leaderboard only while RD <= this

    @property
    def initial(self) -> Glicko:
        return Glicko(self.rating, self.deviation, self.volatility)


LICHESS = GlickoConfig()


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of Glickman's paper: the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)
    d2, p2 = delta * delta, phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (d2 - p2 - v - ex) / (2.0 * (p2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if d2 > p2 + v:
        big_b = math.log(d2 - p2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(1000):
        if abs(big_b - big_a) <= CONVERGENCE:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Glicko, results: Sequence[tuple[Glicko, float]], *, tau: float) -> Glicko:
    """One rating period of Glicko-2 (no bounds applied): `results` are (opponent, score 1/0.5/0).

    With no results only the deviation grows (step 6 of the paper).
    """
    mu = (player.rating - 1500.0) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        return Glicko(player.rating, math.sqrt(phi * phi + sigma * sigma) * SCALE, sigma)
    inv_v = 0.0
    gain = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - 1500.0) / SCALE
        phi_j = opponent.deviation / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        inv_v += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / inv_v
    delta = v * gain
    new_sigma = _new_volatility(sigma, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gain
    return Glicko(new_mu * SCALE + 1500.0, new_phi * SCALE, new_sigma)


def decay(player: Glicko, days: float, config: GlickoConfig = LICHESS) -> Glicko:
    """The rating after `days` without a rated game: its deviation grows (never past the maximum)."""
    if days <= 0:
        return player
    phi = player.deviation / SCALE
    periods = days * config.periods_per_day
    grown = math.sqrt(phi * phi + periods * player.volatility * player.volatility) * SCALE
    return Glicko(player.rating, min(config.max_deviation, grown), player.volatility)


def _bounded(before: Glicko, after: Glicko, config: GlickoConfig) -> Glicko:
    delta = max(-config.max_delta, min(config.max_delta, after.rating - before.rating))
    return Glicko(
        max(config.min_rating, min(config.max_rating, before.rating + delta)),
        max(config.min_deviation, min(config.max_deviation, after.deviation)),
        min(config.max_volatility, after.volatility),
    )


def rate_game(
    first: Glicko,
    second: Glicko,
    score: float,
    *,
    idle_days: tuple[float, float] = (0.0, 0.0),
    config: GlickoConfig = LICHESS,
) -> tuple[Glicko, Glicko]:
    """Both players' ratings after one game that `first` scored `score` in (1 win, 0.5 draw, 0 loss).

    `idle_days` are the days since each one's last rated game: their deviations grow first.
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be from 0 to 1, got {score!r}")
    a = decay(first, idle_days[0], config)
    b = decay(second, idle_days[1], config)
    new_a = update(a, [(b, score)], tau=config.tau)
    new_b = update(b, [(a, 1.0 - score)], tau=config.tau)
    return _bounded(a, new_a, config), _bounded(b, new_b, config)
