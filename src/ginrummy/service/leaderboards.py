"""Leaderboards: today's (UTC day), the last 30 days, and the top ratings, computed from finished matches.

The points boards rank people by matches won, then by points scored (their final match scores),
over rated matches between people. Each board is a window of whole UTC days ending today: 1 day
or 30. A finished match adds its players' wins and points to every window that will contain it
(`bucket_keys`: its day's own, and the 30-day windows ending on that day and the 29 after), so a
board is one bucket read in index order, whoever asks and however many matches there are, and no
board is ever reset: at 00:00:00 UTC the boards simply read the buckets of the new day.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .errors import BadRequest
from .multi_ratings import RATED_GAMES
from .ports import AccountStore, BoardLine, BoardPart, GuestStore, RatingStore
from .ratings import GAME, public_rating

__all__ = [
    "BOARD_SIZE",
    "Leaderboards",
    "ROLLING_DAYS",
    "SPANS",
    "board_game",
    "bucket_keys",
    "utc_day",
    "window",
]

DAY = 86400
ROLLING_DAYS = 30
SPANS = (1, ROLLING_DAYS)  # the points boards' windows, in days
BOARD_SIZE = 100


def utc_day(at: float) -> int:
    """The UTC day number of a unix time (day 0 is 1970-01-01)."""
    return int(at // DAY)


def window(span: int, today: int) -> BoardPart:
    """The board of `span` days ending with the day `today`."""
    return (span, today)


def bucket_keys(day: int) -> tuple[BoardPart, ...]:
    """Every board window a match finished on `day` counts in.

    >>> bucket_keys(20000)[:3], len(bucket_keys(20000))
    (((1, 20000), (30, 20000), (30, 20001)), 31)
    """
    return tuple((span, day + later) for span in SPANS for later in range(span))


def board_game(kind: str, game: str | None) -> str:
    """The game of a board a page asks for: two-player Gin's three boards, or the rating board of
    a table game (three-player Gin, team Gin, Rummy: their own ratings, and no points boards)."""
    if game is None or game == GAME:
        return GAME
    if game not in RATED_GAMES:
        raise BadRequest(f"no boards of {game!r}; the games are {', '.join((GAME, *RATED_GAMES))}")
    if kind != "rating":
        raise BadRequest(f"{game} has a rating board only: the points boards count two-player Gin")
    return game


class BoardPorts(RatingStore, AccountStore, GuestStore, Protocol):
    """The storage the boards read: the boards themselves and the names on them."""


class Leaderboards:
    """The boards as pages show them: lines with names, and the asker's own line even outside the top."""

    def __init__(self, store: BoardPorts, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    async def _named(self, lines: list[BoardLine], mine: BoardLine | None) -> dict[str, Any]:
        ids = [line.guest_id for line in lines] + ([mine.guest_id] if mine else [])
        guests = await self.store.get_guests(ids) if ids else {}
        accounts = await self.store.get_accounts(ids) if ids else {}

        def entry(line: BoardLine) -> dict[str, Any]:
            guest = guests.get(line.guest_id)
            data: dict[str, Any] = {
                "rank": line.rank,
                "id": line.guest_id,
                "name": guest.name if guest else "Guest",
                "account": line.guest_id in accounts,
                "guest": line.guest_id not in accounts,
                "wins": line.wins,
                "points": line.points,
                "matches": line.matches,
            }
            if line.rating is not None:
                data["rating"] = round(line.rating)
                data["deviation"] = round(line.deviation or 0)
            return data

        return {"lines": [entry(line) for line in lines], "me": entry(mine) if mine else None}

    async def board(self, kind: str, guest_id: str | None, game: str = GAME) -> dict[str, Any]:
        """`kind` is "today", "rolling" (the last 30 days, today included) or "rating"."""
        now = self.clock()
        today = utc_day(now)
        period: dict[str, int | None] = {"from": None, "until": None}
        if kind in ("today", "rolling"):
            span = 1 if kind == "today" else ROLLING_DAYS
            lines, mine = await self.store.points_board(game, window(span, today), BOARD_SIZE, guest_id)
            period = {"from": (today - span + 1) * DAY, "until": (today + 1) * DAY}
        elif kind == "rating":
            lines, mine = await self.store.rating_board(game, now, BOARD_SIZE, guest_id)
        else:
            raise ValueError(f"no leaderboard {kind!r}")
        named = await self._named(lines, mine)
        return {"board": kind, "game": game, "now": now, **period, **named}

    async def rating_of(self, guest_id: str, game: str = GAME) -> dict[str, Any]:
        rows = await self.store.get_ratings([guest_id], game)
        return public_rating(rows.get(guest_id), self.clock())
