"""Fair play in rated play: players of one address are kept apart, and arranged-looking results are recorded.

Rating farming is one person playing rated matches against a second identity of their own and
losing on purpose. Three defences, after Lichess:

- **Apart**: the quick-pairing pool never pairs two seekers of one client address in a rated pool,
  and a rated tournament refuses a second player from an address one of its players joined from
  (`SameAddress`). The device is the guest's own cookie (one guest never meets itself); the
  address is the one the server sees, proxies believed as its settings say. Shared networks (a
  school, a café) may turn this off (`ServiceConfig.rated_same_address`): the records below stay.
- **Real moves**: a match given up before both players made a move themselves is aborted,
  unrated (`LiveMatch._end_early`).
- **Records** for the site's operator (`ginrummy fair-play`): a rated match given up after few
  moves between linked players (seen on one address), and the same player winning every one of
  several rated matches between a pair in a short time. Nothing is decided automatically: a
  record is evidence for a person to look at.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Coroutine
from dataclasses import dataclass
from typing import Any

from .errors import SameAddress
from .ports import FairPlayStore, FlagRow, StoreError
from .ratings import GAME

__all__ = [
    "FairPlay",
    "ONE_SIDED",
    "QUICK_LOSS",
    "QUICK_MOVES",
    "SERIES",
    "SERIES_SECONDS",
    "SuspiciousPair",
]

log = logging.getLogger("ginrummy.service")

#: A match given up (resigned, left) when both players together had made fewer moves than this is
#: given up "quickly": about two turns each of the first deal.
QUICK_MOVES = 10
#: So many rated matches in a row between two players within SERIES_SECONDS, all won by the same one.
SERIES = 3
SERIES_SECONDS = 30 * 86400.0

QUICK_LOSS = "quick_loss"  # given up after few moves, between linked players
ONE_SIDED = "one_sided"  # the same winner of every rated match of a pair lately


@dataclass(frozen=True, slots=True)
class SuspiciousPair:
    """Two players with recorded suspicious results: who, and the records (newest first)."""

    first: str
    second: str
    flags: tuple[FlagRow, ...]


def known(address: str | None) -> str | None:
    """The address, or None when the server could not tell it."""
    return address if address and address != "unknown" else None


class FairPlay:
    """The fair-play rules of rated play for one service."""

    def __init__(
        self, store: FairPlayStore, clock: Callable[[], float], *, rated_same_address: bool = False
    ) -> None:
        self.store = store
        self.clock = clock
        self.rated_same_address = rated_same_address
        self._tasks: set[asyncio.Task[None]] = set()

    # -- keeping players of one address apart -------------------------------------------

    def apart(self, first: str | None, second: str | None) -> bool:
        """True when two players of these addresses must not meet in rated play."""
        return not self.rated_same_address and known(first) is not None and known(first) == known(second)

    async def entered(self, guest_id: str, address: str | None) -> None:
        """`guest_id` enters rated play from `address`: remembered, so links show later."""
        address = known(address)
        if address is not None:
            await self.store.note_address(guest_id, address, self.clock())

    async def refuse_same_address(
        self,
        guest_id: str,
        address: str | None,
        players: Collection[str],
        since: float,
        *,
        event: str = "tournament",
    ) -> None:
        """`SameAddress` when another of `players` entered this rated `event` from `address` since `since`."""
        address = known(address)
        if address is None or self.rated_same_address:
            return
        others = set(await self.store.guests_seen_at(address, since)) & set(players)
        others.discard(guest_id)
        if others:
            raise SameAddress(
                f"another player of this rated {event} plays from your network address: rated "
                "play pairs one player per address (ask the site to allow shared networks)"
            )

    # -- records for the operator -------------------------------------------------------

    def match_over(
        self, match_id: str, players: tuple[str, str], result: dict[str, Any], finished_at: float
    ) -> None:
        """A rated match between two people is over (its result stored): look at it in the background."""
        winner = result.get("winner")
        if winner not in (0, 1):
            return  # drawn or aborted: nobody gained
        self._spawn(self._examine(match_id, players[winner], players[1 - winner], result, finished_at))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def settled(self) -> None:
        """Wait until every match handed over so far has been looked at."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.settled()

    async def _examine(
        self, match_id: str, winner: str, loser: str, result: dict[str, Any], finished_at: float
    ) -> None:
        try:
            await self._quick_loss(match_id, winner, loser, result, finished_at)
            await self._one_sided(match_id, winner, loser, finished_at)
        except StoreError:
            log.exception("match %s: its fair-play records could not be made", match_id)

    async def _quick_loss(
        self, match_id: str, winner: str, loser: str, result: dict[str, Any], finished_at: float
    ) -> None:
        ended = result.get("ended")
        moves = result.get("moves")
        if ended not in ("resigned", "abandoned") or not isinstance(moves, list) or sum(moves) >= QUICK_MOVES:
            return
        shared = await self.store.shared_addresses(winner, loser)
        if not shared:
            return
        evidence = {"ended": ended, "moves": moves, "addresses": shared}
        await self.store.add_flag(FlagRow(match_id, QUICK_LOSS, winner, loser, finished_at, evidence))

    async def _one_sided(self, match_id: str, winner: str, loser: str, finished_at: float) -> None:
        since = finished_at - SERIES_SECONDS
        met = await self.store.head_to_head(winner, loser, GAME, since)
        if len(met) < SERIES or any(score != 1.0 for _, score in met):
            return
        evidence = {
            "won": len(met),
            "of": len(met),
            "days": SERIES_SECONDS / 86400,
            "matches": [m for m, _ in met],
        }
        await self.store.add_flag(FlagRow(match_id, ONE_SIDED, winner, loser, finished_at, evidence))

    async def suspicious_pairs(self, limit: int = 1000) -> list[SuspiciousPair]:
        """The pairs of players with records among the `limit` newest, the most recorded first."""
        pairs: dict[tuple[str, str], list[FlagRow]] = {}
        for flag in await self.store.flags(limit):
            a, b = sorted((flag.winner_id, flag.loser_id))
            pairs.setdefault((a, b), []).append(flag)
        ranked = sorted(pairs.items(), key=lambda item: (-len(item[1]), -item[1][0].at, item[0]))
        return [SuspiciousPair(a, b, tuple(flags)) for (a, b), flags in ranked]
