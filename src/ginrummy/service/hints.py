"""The coach of a casual two-player match: the expert's move for a seat's own turn, with its reason.

A hint is built from the seat's own view alone, like everything a seat is sent, so it can tell
nothing the seat could not see. Hints are given in casual two-player Gin only, never in rated or
tournament matches; each seat may ask at a rate, and asking again about the same move costs
nothing (the hint is kept until the table changes).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ..bots import suggest
from ..rules import Game, Match
from .connections import Allowance
from .errors import Refusal
from .wire import dumps

__all__ = ["HINT_BURST", "HINT_LEVEL", "HINT_RATE", "Hints"]

#: Hints a seat may ask for: one every 4 s on average, three at once.
HINT_RATE = 0.25
HINT_BURST = 3
HINT_LEVEL = "expert"


class Hints:
    """The hints of one match: whether it gives them, each seat's allowance, the last hint of each."""

    def __init__(self, seats: int, now: float, *, given: bool, clock: Callable[[], float]) -> None:
        #: Casual two-player matches give hints; rated and tournament matches never do.
        self.given = given
        self._clock = clock
        self._allowance = Allowance(seats, HINT_RATE, HINT_BURST, now)
        self._cache: dict[int, tuple[int, str]] = {}  # seat -> (version, hint message text)

    async def hint(
        self, game: Game, seat: int, version: Any, *, playing: bool, now_version: int
    ) -> str | Refusal:
        """The `hint` message for `seat` asking at `version` of the match (at `now_version`),
        or (code, message) when refused."""
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            return Refusal("bad_message", f"version must be a whole number, got {version!r}")
        if not self.given:
            if not isinstance(game, Match):
                return Refusal("hints_off", "hints are given at two-player Gin only")
            return Refusal(
                "hints_off", "hints are given in casual matches only, never in rated or tournament matches"
            )
        if not playing:
            return Refusal(
                "illegal_action", "there is no move to give a hint for: the match is not being played"
            )
        if version is not None and version != now_version:
            return Refusal(
                "stale",
                f"your table is out of date (version {version}, now {now_version}); it is refreshed",
            )
        assert isinstance(game, Match)  # given at two-player Gin only
        view = game.view(seat)
        if not view.legal:
            return Refusal("not_your_turn", "a hint is for your own turn, and it is not your turn")
        asked_at = now_version
        cached = self._cache.get(seat)
        if cached is not None and cached[0] == asked_at:
            return cached[1]
        if not self._allowance.take(seat, self._clock()):
            return Refusal("rate_limited", "too many hints: wait a few seconds")
        hint = await asyncio.to_thread(suggest, view, HINT_LEVEL, seed=asked_at)
        text = dumps({"type": "hint", "version": asked_at, **hint.to_json()})
        self._cache[seat] = (asked_at, text)
        return text
