"""The Weng-Lin ratings of the tables of three and more, checked against OpenSkill's own README example."""

from __future__ import annotations

import pytest

from ginrummy.service.multi_ratings import (
    WENG_LIN,
    WengLinConfig,
    current,
    finishing_ranks,
    public_rating,
    ranked_until,
    rating_update,
)
from ginrummy.service.ports import RatingRow

NOW = 1_800_000_000.0
DAY = 86400.0
#: OpenSkill's defaults, the scale of its documented example.
OPENSKILL = WengLinConfig(mu=25.0, sigma=25.0 / 3.0, beta=25.0 / 6.0, kappa=0.0001)


def row(guest_id: str, mu: float, sigma: float, game: str = "gin4_teams", games: int = 3) -> RatingRow:
    return RatingRow(guest_id, game, mu, sigma, 0.0, games, NOW)


def test_openskill_readme_example_two_teams() -> None:
    """openskill.py's README (pypi.org/project/openskill/3.3.0): a1 and a2 beat b1 and b2."""
    update = rating_update("gin4_teams", [["a1", "a2"], ["b1", "b2"]], [0, 1], NOW, OPENSKILL)
    stored = {
        "a1": None,
        "a2": row("a2", 32.444, 5.123),
        "b1": row("b1", 43.381, 2.421),
        "b2": row("b2", 25.188, 6.211),
    }
    got = {r.guest_id: (before, r.rating, r.deviation, r.games) for before, r in update(stored)}
    expected = {
        "a1": (25.0, 28.669648436582808, 8.071520788025197, 1),
        "a2": (32.444, 33.83086971107981, 5.062772998705765, 4),
        "b1": (43.381, 43.071274808241974, 2.4166900452721256, 4),
        "b2": (25.188, 23.149503312339064, 6.1378606973362135, 4),
    }
    assert got.keys() == expected.keys()
    for guest_id, values in expected.items():
        assert got[guest_id] == pytest.approx(values, rel=1e-12), guest_id


def test_the_scaled_model_moves_by_sixty_times_openskills_steps() -> None:
    """μ 1500, σ 500, β 250 is OpenSkill's model in other units: the same match moves each
    rating by 60 times what it moves OpenSkill's (so its documented behaviour carries over)."""
    small = rating_update("rummy", [["x"], ["y"], ["z"]], [1, 0, 2], NOW, OPENSKILL)({})
    large = rating_update("rummy", [["x"], ["y"], ["z"]], [1, 0, 2], NOW)({})
    for (_, s), (before, big) in zip(small, large, strict=True):
        assert before == 1500.0
        assert big.rating == pytest.approx(s.rating * 60, rel=1e-9)
        assert big.deviation == pytest.approx(s.deviation * 60, rel=1e-6)
    by = {r.guest_id: r.rating for _, r in large}
    assert by["y"] > by["x"] > 1500.0 > by["z"]


def test_a_tie_in_the_order_moves_the_tied_alike() -> None:
    update = rating_update("gin3", [["x"], ["y"], ["z"]], [0, 1, 1], NOW)
    by = {r.guest_id: r for _, r in update({})}
    assert by["y"].rating == pytest.approx(by["z"].rating)
    assert by["x"].rating > 1500.0 > by["y"].rating


def test_finishing_ranks_put_the_winner_first_then_the_totals() -> None:
    assert finishing_ranks([10, 55, -20], [1]) == (1, 0, 2)
    # Rummy: the winner reached the target; the others by how little they paid, equal shares.
    assert finishing_ranks([-5, 30, -5, -20], [1]) == (1, 0, 1, 2)
    # The rules' winner goes first even on equal totals; no winner: the totals alone.
    assert finishing_ranks([40, 40, 0], [1]) == (1, 0, 2)
    assert finishing_ranks([40, 40, 0], []) == (0, 0, 1)


def test_sigma_grows_with_idle_days_and_the_board_bound_follows() -> None:
    settled = row("x", 1600.0, 300.0, "rummy")
    assert current(settled, NOW) == (1600.0, 300.0)
    mu, sigma = current(settled, NOW + 30 * DAY)
    assert mu == 1600.0 and sigma == pytest.approx((300.0**2 + 30 * WENG_LIN.growth_per_day) ** 0.5)
    assert current(settled, NOW + 100_000 * DAY)[1] == WENG_LIN.sigma
    until = ranked_until(300.0, NOW)
    assert current(settled, until)[1] == pytest.approx(WENG_LIN.ranked_sigma)
    assert ranked_until(WENG_LIN.ranked_sigma + 1, NOW) == 0.0
    assert public_rating(None, NOW) == {
        "rating": 1500,
        "deviation": 500,
        "provisional": True,
        "ranked": False,
        "games": 0,
    }
    assert public_rating(settled, NOW)["provisional"] is False


def test_an_idle_players_sigma_is_grown_before_the_update() -> None:
    stale = row("x", 1600.0, 300.0, "gin3")
    fresh = row("x", 1600.0, 300.0, "gin3")
    later = NOW + 200 * DAY
    moved_stale = rating_update("gin3", [["x"], ["y"], ["z"]], [0, 1, 2], later)({"x": stale})
    moved_fresh = rating_update("gin3", [["x"], ["y"], ["z"]], [0, 1, 2], NOW)({"x": fresh})
    # More uncertainty, a bigger step for the same win.
    assert moved_stale[0][1].rating - 1600.0 > moved_fresh[0][1].rating - 1600.0 > 0
    assert moved_stale[0][1].last_at == later


@pytest.mark.parametrize(
    ("game", "teams", "ranks", "message"),
    [
        ("gin", [["x"], ["y"]], [0, 1], "not rated by Weng-Lin"),
        ("gin3", [["x"], ["y"], ["z"]], [0, 1], "each with a place"),
        ("gin3", [["x"]], [0], "two or more sides"),
        ("gin3", [["x"], ["x"], ["z"]], [0, 1, 2], "its own people"),
        ("gin4_teams", [["x", "y"], []], [0, 1], "its own people"),
    ],
)
def test_bad_matches_are_refused(game: str, teams: list[list[str]], ranks: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rating_update(game, teams, ranks, NOW)
