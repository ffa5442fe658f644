"""Glicko-2: Glickman's worked example ("Example of the Glicko-2 system", 2013) and properties of one game."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ginrummy.service.glicko2 import LICHESS, Glicko, decay, rate_game, update


def test_glickmans_worked_example() -> None:
    # 1500/200/0.06 beats 1400/30, loses to 1550/100 and to 1700/300 in one period, tau 0.5.
    # The paper rounds its intermediate quantities to four places, hence its last digit.
    player = Glicko(1500, 200, 0.06)
    results = [(Glicko(1400, 30, 0.06), 1.0), (Glicko(1550, 100, 0.06), 0.0), (Glicko(1700, 300, 0.06), 0.0)]
    after = update(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_lichess_constants() -> None:
    assert LICHESS.initial == Glicko(1500, 500, 0.09)
    assert (LICHESS.tau, LICHESS.min_deviation, LICHESS.max_delta) == (0.75, 45, 700)
    assert (LICHESS.provisional_deviation, LICHESS.ranked_deviation, LICHESS.periods_per_day) == (
        110,
        75,
        0.21436,
    )


def test_two_newcomers_move_apart_symmetrically() -> None:
    a, b = rate_game(LICHESS.initial, LICHESS.initial, 1.0)
    assert a.rating > 1500 > b.rating
    assert a.rating - 1500 == pytest.approx(1500 - b.rating)
    assert a.deviation == pytest.approx(b.deviation) and a.deviation < 500


def test_the_deviation_grows_with_idle_days_up_to_the_maximum() -> None:
    settled = Glicko(1800, 50, 0.06)
    # One rating period per 1/0.21436 days adds sigma^2 to phi^2.
    month = decay(settled, 30)
    assert 50 < month.deviation < 60
    assert decay(settled, 100_000).deviation == 500
    # An idle player's next game moves the rating more than the same game without the pause.
    fresh, _ = rate_game(settled, Glicko(1800, 50, 0.06), 1.0)
    rested, _ = rate_game(settled, Glicko(1800, 50, 0.06), 1.0, idle_days=(365, 0))
    assert rested.rating - 1800 > fresh.rating - 1800 > 0


def test_a_score_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match="score must be from 0 to 1"):
        rate_game(LICHESS.initial, LICHESS.initial, 2)


ratings = st.builds(
    Glicko,
    st.floats(400, 4000),
    st.floats(45, 500),
    st.floats(0.03, 0.1),
)
scores = st.sampled_from([0.0, 0.5, 1.0])
idle = st.floats(0, 3650)


@given(ratings, ratings, scores, idle, idle)
def test_one_game_stays_within_lichess_bounds(
    a: Glicko, b: Glicko, score: float, da: float, db: float
) -> None:
    new_a, new_b = rate_game(a, b, score, idle_days=(da, db))
    for before, after in ((a, new_a), (b, new_b)):
        assert abs(after.rating - before.rating) <= 700 + 1e-9
        assert 400 <= after.rating <= 4000
        assert 45 <= after.deviation <= 500
        assert 0 < after.volatility <= 0.1


@given(ratings, ratings, idle, idle)
def test_the_winner_never_loses_points_and_the_loser_never_gains(
    a: Glicko, b: Glicko, da: float, db: float
) -> None:
    won_a, lost_b = rate_game(a, b, 1.0, idle_days=(da, db))
    assert won_a.rating >= a.rating - 1e-9 and lost_b.rating <= b.rating + 1e-9
    lost_a, won_b = rate_game(a, b, 0.0, idle_days=(da, db))
    assert lost_a.rating <= a.rating + 1e-9 and won_b.rating >= b.rating - 1e-9
    # And winning is always worth more than drawing, which is worth more than losing.
    drawn_a, _ = rate_game(a, b, 0.5, idle_days=(da, db))
    assert lost_a.rating <= drawn_a.rating + 1e-9 <= won_a.rating + 2e-9


@given(ratings, ratings, scores)
def test_the_order_of_the_players_does_not_matter(a: Glicko, b: Glicko, score: float) -> None:
    first = rate_game(a, b, score)
    second = rate_game(b, a, 1.0 - score)
    assert first[0] == second[1] and first[1] == second[0]


@given(ratings, ratings)
def test_beating_a_stronger_player_is_worth_more(a: Glicko, b: Glicko) -> None:
    weaker, stronger = sorted([a, b], key=lambda g: g.rating)
    me = Glicko(1500, 100, 0.06)
    gain_weak = rate_game(me, Glicko(weaker.rating, 100, 0.06), 1.0)[0].rating
    gain_strong = rate_game(me, Glicko(stronger.rating, 100, 0.06), 1.0)[0].rating
    assert gain_strong >= gain_weak - 1e-9
