"""The Weng-Lin ratings of the tables of three and more, checked against OpenSkill's own README example."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ginrummy.rules import Rules
from ginrummy.service import BadRequest, GameService
from ginrummy.service.leaderboards import board_game
from ginrummy.service.multi_ratings import (
    WENG_LIN,
    WengLinConfig,
    current,
    finishing_ranks,
    public_rating,
    ranked_until,
    rating_update,
)
from ginrummy.service.ports import GuestRow, MatchOutcome, MatchRow, PlayerLine, RatingRow, SeatRow
from ginrummy.storage import SqlStore

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


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'boards.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def test_a_table_games_rating_board_ranks_settled_ratings_of_that_game_only(db_url: str) -> None:
    """Rated three-player Gin matches stored through the real store: once σ falls under the bound
    the players are on gin3's rating board (best first), never on two-player Gin's; a points board
    of a table game is refused with the reason."""
    clock = [NOW]

    async def body(service: GameService) -> None:
        ids = [f"id-{name}-000000" for name in ("ann", "bob", "cy")]
        for n, guest_id in enumerate(ids):
            await service.store.create_guest(GuestRow(guest_id, ("Ann", "Bob", "Cy")[n], clock[0]))
        rules = Rules.preset("gin3").to_json()
        for number in range(40):
            clock[0] += 60
            row = MatchRow(
                id=f"match-{number}",
                kind="room",
                status="playing",
                rules=rules,
                seed="1",
                seats=tuple(SeatRow(n, g) for n, g in enumerate(ids)),
                created_at=clock[0] - 30,
                rated=True,
            )
            await service.store.create_match(row)
            # Ann wins most, Cy comes last most: a clear order on the board.
            ranks = [0, 1, 2] if number % 4 else [1, 0, 2]
            lines = tuple(PlayerLine(g, n, float(ranks[n] == 0), 0, 1, 0, 0, 0, 0) for n, g in enumerate(ids))
            outcome = MatchOutcome(
                game="gin3",
                lines=lines,
                day=int(clock[0] // DAY),
                counts=False,
                rate=rating_update("gin3", [[g] for g in ids], ranks, clock[0]),
            )
            await service.store.finish_match(row.id, {"winner": ranks.index(0)}, clock[0], outcome)
        board = await service.boards.board("rating", ids[2], board_game("rating", "gin3"))
        assert [line["name"] for line in board["lines"]] == ["Ann", "Bob", "Cy"]
        assert all(line["deviation"] <= WENG_LIN.ranked_sigma for line in board["lines"])
        assert board["me"]["name"] == "Cy" and board["game"] == "gin3"
        assert (await service.boards.board("rating", None))["lines"] == []  # two-player Gin's board
        with pytest.raises(BadRequest, match="gin3 has a rating board only"):
            board_game("today", "gin3")
        with pytest.raises(BadRequest, match="no boards of 'chess'"):
            board_game("rating", "chess")
        clock[0] += 3 * 365 * DAY  # years without a rated match: σ grew past the bound
        assert (await service.boards.board("rating", None, "gin3"))["lines"] == []

    async def main() -> None:
        service = GameService(SqlStore(db_url), clock=lambda: clock[0], secret="s" * 32)
        await service.start()
        try:
            await body(service)
        finally:
            await service.close()

    asyncio.run(main())
