"""The leaderboards' use case (`service/leaderboards.py`) against its ports in memory: which window
each board reads, the period it says it covers, the names and account marks on its lines, the
asker's own line, and which boards each game has.

`test_leaderboards.py` runs the boards through the real service and SQL store (the windows'
buckets, the ranking queries and the day boundaries)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ginrummy.service.errors import BadRequest
from ginrummy.service.leaderboards import BOARD_SIZE, DAY, ROLLING_DAYS, Leaderboards, board_game
from ginrummy.service.ports import AccountRow, BoardLine, BoardPart, GuestRow, RatingRow
from ginrummy.service.ratings import GAME

TODAY = 20_000
NOW = TODAY * DAY + 3600.0  # 01:00 UTC


class MemoryBoards:
    """The rating, account and guest ports in memory (what the boards read), with the calls made."""

    def __init__(self) -> None:
        self.guests = {g: GuestRow(g, name, 0.0) for g, name in (("g1", "Ann"), ("g2", "Bob"), ("g3", "Cy"))}
        self.accounts = {"g2": AccountRow("g2", "Bob", "bob", "hash", 0.0, 0.0)}
        self.ratings: dict[str, RatingRow] = {}
        self.lines = [
            BoardLine(1, "g1", 5, 400, 6),
            BoardLine(2, "g2", 5, 350, 7),
            BoardLine(3, "gone", 1, 99, 1),
        ]
        self.asked: list[tuple[Any, ...]] = []

    async def get_guests(self, guest_ids: list[str]) -> dict[str, GuestRow]:
        return {g: self.guests[g] for g in guest_ids if g in self.guests}

    async def get_accounts(self, guest_ids: list[str]) -> dict[str, AccountRow]:
        return {g: self.accounts[g] for g in guest_ids if g in self.accounts}

    async def get_ratings(self, guest_ids: list[str], game: str) -> dict[str, RatingRow]:
        return {g: self.ratings[g] for g in guest_ids if g in self.ratings and self.ratings[g].game == game}

    async def points_board(
        self, game: str, window: BoardPart, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        self.asked.append(("points", game, window, limit, guest_id))
        mine = BoardLine(250, guest_id, 0, 3, 1) if guest_id == "g3" else None
        return self.lines, mine

    async def rating_board(
        self, game: str, now: float, limit: int, guest_id: str | None
    ) -> tuple[list[BoardLine], BoardLine | None]:
        self.asked.append(("rating", game, now, limit, guest_id))
        return [BoardLine(1, "g2", 0, 0, 40, rating=1712.6, deviation=61.4)], None


def board(store: MemoryBoards, kind: str, guest_id: str | None, game: str = GAME) -> dict[str, Any]:
    return asyncio.run(Leaderboards(store, lambda: NOW).board(kind, guest_id, game))  # type: ignore[arg-type]


def test_today_reads_the_one_day_window_and_says_the_utc_day_it_covers() -> None:
    store = MemoryBoards()
    page = board(store, "today", None)
    assert store.asked == [("points", GAME, (1, TODAY), BOARD_SIZE, None)]
    assert (page["board"], page["game"], page["now"]) == ("today", GAME, NOW)
    assert (page["from"], page["until"]) == (TODAY * DAY, (TODAY + 1) * DAY)
    first, second, gone = page["lines"]
    assert first == {
        "rank": 1,
        "id": "g1",
        "name": "Ann",
        "account": False,
        "guest": True,
        "wins": 5,
        "points": 400,
        "matches": 6,
    }
    assert (second["name"], second["account"], second["guest"]) == ("Bob", True, False)
    assert gone["name"] == "Guest"  # a line whose guest is not found still shows, unnamed
    assert page["me"] is None


def test_the_rolling_board_covers_thirty_whole_days_today_included_and_shows_the_asker_outside_the_top() -> (
    None
):
    store = MemoryBoards()
    page = board(store, "rolling", "g3")
    assert store.asked == [("points", GAME, (ROLLING_DAYS, TODAY), BOARD_SIZE, "g3")]
    assert (page["from"], page["until"]) == ((TODAY - ROLLING_DAYS + 1) * DAY, (TODAY + 1) * DAY)
    assert page["me"]["rank"] == 250 and page["me"]["name"] == "Cy"


def test_the_rating_board_has_no_period_and_rounds_ratings() -> None:
    store = MemoryBoards()
    page = board(store, "rating", "g1", "rummy")
    assert store.asked == [("rating", "rummy", NOW, BOARD_SIZE, "g1")]
    assert page["from"] is None and page["until"] is None
    assert page["lines"][0]["rating"] == 1713 and page["lines"][0]["deviation"] == 61
    with pytest.raises(ValueError, match="no leaderboard 'weekly'"):
        board(store, "weekly", None)


def test_table_games_have_a_rating_board_only() -> None:
    assert board_game("today", None) == GAME and board_game("rating", GAME) == GAME
    assert board_game("rating", "rummy") == "rummy"
    with pytest.raises(BadRequest, match="rummy has a rating board only"):
        board_game("today", "rummy")
    with pytest.raises(BadRequest, match="no boards of 'chess'"):
        board_game("rating", "chess")
