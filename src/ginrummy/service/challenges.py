"""Challenges to bot accounts: a person asks, the bot accepts or declines, and an accepted challenge
becomes a match between them (the model is Lichess's challenge API).

A challenge lives in memory for `CHALLENGE_SECONDS` while the bot decides; the bot hears of it on
its event stream (every open one). The match it becomes is an ordinary live match: the bot plays
its seat through the same LiveMatch as a person, under the same turn clock, and when it goes away
the person's table waits `grace_seconds` and then a stand-in robot plays for it, as for a friend
who left a private room. A bot match always has a turn clock, so a bot that hangs cannot stall it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..rules import PRESETS, Rules
from .errors import BadRequest, Conflict, Forbidden, NotFound
from .host import ServiceHost
from .ports import GuestRow, SeatRow
from .ratings import BOT_POOL, public_rating

if TYPE_CHECKING:
    from .live import LiveMatch

__all__ = ["CHALLENGE_SECONDS", "DECLINE_REASONS", "Challenge", "Challenges", "EventSink"]

log = logging.getLogger("ginrummy.service")

CHALLENGE_SECONDS = 60.0  # a bot that has not answered by then has let the challenge expire
KEEP_DECIDED = 300.0  # a decided challenge is remembered this long, for the challenger's page
PENDING_PER_BOT = 20
TARGET_MIN, TARGET_MAX = 1, 500
#: Why a bot may decline (the challenger's page says it in its own language).
DECLINE_REASONS = ("generic", "later", "rules", "target", "clock", "rated", "casual")

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


class EventSink(Protocol):
    """One open event stream of a bot; `send_text` queues a message and never blocks."""

    def send_text(self, text: str) -> None: ...


@dataclass(slots=True)
class Challenge:
    """One person's challenge to one bot, and what became of it."""

    id: str
    challenger_id: str
    challenger_name: str
    bot_id: str
    bot_name: str
    preset: str
    rules: Rules
    turn_seconds: float
    rated: bool
    created_at: float
    status: str = "pending"  # pending, accepted, declined, canceled, expired
    reason: str | None = None  # a declined challenge's reason (DECLINE_REASONS)
    match_id: str | None = None
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            # Being accepted is still pending to the outside, until its match exists.
            "status": "pending" if self.status == "accepting" else self.status,
            "challenger": {"id": self.challenger_id, "name": self.challenger_name, "bot": False},
            "bot": {"id": self.bot_id, "name": self.bot_name, "bot": True},
            "rules": self.rules.to_json(),
            "preset": self.preset,  # as chosen: the target is a separate field
            "target": self.rules.target,
            "turn_seconds": self.turn_seconds,
            "rated": self.rated,
            "pool": BOT_POOL if self.rated else None,
            "created_at": self.created_at,
            "expires_at": self.created_at + CHALLENGE_SECONDS,
            "decline_reason": self.reason,
            "match_id": self.match_id,
            "url": f"/m/{self.match_id}" if self.match_id else None,
        }


class Challenges:
    """Every pending challenge, the bots' open event streams, and the matches challenges became."""

    def __init__(self, service: ServiceHost) -> None:
        self.service = service
        self.by_id: dict[str, Challenge] = {}
        self.streams: dict[str, set[EventSink]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}

    # -- the bots' event streams -----------------------------------------------

    def online(self, bot_id: str) -> bool:
        """True while the bot has an event stream open (it can hear of challenges)."""
        return bool(self.streams.get(bot_id))

    async def attach(self, bot_id: str, name: str, sink: EventSink) -> None:
        """A bot's event stream opened: it hears who it is, its pending challenges, its games."""
        self.streams.setdefault(bot_id, set()).add(sink)
        sink.send_text(_dumps({"type": "hello", "bot": {"id": bot_id, "name": name}}))
        for challenge in self.by_id.values():
            if challenge.bot_id == bot_id and challenge.status == "pending":
                sink.send_text(_dumps({"type": "challenge", "challenge": challenge.to_json()}))
        for game in await self.ongoing(bot_id):
            sink.send_text(_dumps({"type": "game_start", "game": game}))

    def detach(self, bot_id: str, sink: EventSink) -> None:
        sinks = self.streams.get(bot_id)
        if sinks is not None:
            sinks.discard(sink)
            if not sinks:
                del self.streams[bot_id]

    async def online_bots(self, limit: int = 100) -> list[dict[str, Any]]:
        """The bots that can be challenged now, best rated (in the bots' pool) first."""
        store = self.service.store
        ids = sorted(self.streams)
        guests = await store.get_guests(ids)
        ratings = await store.get_ratings(ids, BOT_POOL)
        now = self.service.clock()
        shown = [
            (public_rating(ratings.get(bot_id), now), guests[bot_id].name, bot_id)
            for bot_id in ids
            if bot_id in guests
        ]
        shown.sort(key=lambda item: (-item[0]["rating"], item[1]))
        return [
            {"id": bot_id, "name": name, "bot": True, "rating": rating, "profile": f"/players/{bot_id}"}
            for rating, name, bot_id in shown[:limit]
        ]

    def _tell(self, bot_id: str, message: dict[str, Any]) -> None:
        text = _dumps(message)
        for sink in list(self.streams.get(bot_id, ())):
            sink.send_text(text)

    async def ongoing(self, bot_id: str) -> list[dict[str, Any]]:
        """The bot's matches not over yet, as `game_start` describes them."""
        games = []
        for row in await self.service.store.matches_of(bot_id, 100):
            if row.status == "over":
                continue
            live = self.service.live.get(row.id)
            if live is not None and live.status == "over":
                continue
            games.append(self._game(row.id, row.seats, row.rules, row.turn_seconds, row.rated, bot_id))
        return games

    def _game(
        self,
        match_id: str,
        seats: tuple[SeatRow, ...],
        rules: dict[str, Any],
        turn_seconds: float | None,
        rated: bool,
        bot_id: str,
    ) -> dict[str, Any]:
        seat = next(s.seat for s in seats if s.guest_id == bot_id)
        other = seats[1 - seat].guest_id
        return {
            "id": match_id,
            "seat": seat,
            "opponent_id": other,
            "rules": rules,
            "turn_seconds": turn_seconds,
            "rated": rated,
            "socket": f"/api/bot/game/{match_id}",
            "url": f"/m/{match_id}",
        }

    def match_over(self, live: LiveMatch) -> None:
        """A match ended: a bot seated in it hears so on its event stream."""
        for info in live.seats:
            if info.guest_id is not None and info.guest_id in self.streams:
                result = live.match.result.to_json() if live.match.result is not None else live.ending
                self._tell(info.guest_id, {"type": "game_finish", "game": {"id": live.id, "result": result}})

    # -- the challenger's side -------------------------------------------------

    def _options(self, body: dict[str, Any]) -> tuple[str, Rules, float, bool]:
        service = self.service
        preset = body.get("preset", "classic")
        if preset not in PRESETS:
            raise BadRequest(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
        target = body.get("target", 100)
        if isinstance(target, bool) or not isinstance(target, int) or not TARGET_MIN <= target <= TARGET_MAX:
            raise BadRequest(
                f"target must be a whole number of points from {TARGET_MIN} to {TARGET_MAX}, got {target!r}"
            )
        rules = Rules.preset(preset).replace(target=target)
        seconds = body.get("turn_seconds", service.config.default_turn_seconds or 60)
        low = service.config.min_turn_seconds
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not low <= seconds <= 3600:
            raise BadRequest(
                f"turn_seconds must be a number of seconds from {low:g} to 3600 (a bot match always has "
                f"a turn clock), got {seconds!r}"
            )
        rated = body.get("rated", True)
        if not isinstance(rated, bool):
            raise BadRequest(f"rated must be true or false, got {rated!r}")
        return preset, rules, float(seconds), rated

    async def create(self, challenger: GuestRow, bot_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Challenge the bot `bot_id`: it must be connected to hear of it."""
        service = self.service
        preset, rules, seconds, rated = self._options(body)
        await service.bots.refuse_bot(challenger.id, "challenges of their own here; their program does")
        bot = (await service.bots.of([bot_id])).get(bot_id)
        guest = await service.store.get_guest(bot_id) if bot is not None else None
        if bot is None or guest is None:
            raise NotFound(f"no bot {bot_id!r}")
        if rated and bot.owner_id == challenger.id:
            raise BadRequest("a match against your own bot cannot be rated: send a casual challenge")
        if bot.token_hash is None or not self.online(bot_id):
            raise Conflict(f"{guest.name} is not connected now; try again when it is online")
        pending = [c for c in self.by_id.values() if c.bot_id == bot_id and c.status == "pending"]
        if len(pending) >= PENDING_PER_BOT:
            raise Conflict(f"{guest.name} has {len(pending)} challenges waiting already; try again soon")
        for old in pending:
            if old.challenger_id == challenger.id:
                self._settle(old, "canceled")  # a new challenge replaces one's own older one
        now = service.clock()
        challenge = Challenge(
            id=secrets.token_urlsafe(9),
            challenger_id=challenger.id,
            challenger_name=challenger.name,
            bot_id=bot_id,
            bot_name=guest.name,
            preset=preset,
            rules=rules,
            turn_seconds=seconds,
            rated=rated,
            created_at=now,
        )
        self.by_id[challenge.id] = challenge
        loop = asyncio.get_running_loop()
        self._timers[challenge.id] = loop.call_later(CHALLENGE_SECONDS, self._settle, challenge, "expired")
        self._tell(bot_id, {"type": "challenge", "challenge": challenge.to_json()})
        return challenge.to_json()

    def _get(self, challenge_id: str) -> Challenge:
        challenge = self.by_id.get(challenge_id)
        if challenge is None:
            raise NotFound(f"no challenge {challenge_id!r} (it may have expired)")
        return challenge

    async def wait(self, challenge_id: str, guest_id: str, timeout: float) -> dict[str, Any]:
        """The challenge as it stands: at once when decided, else when it is or after `timeout` s."""
        challenge = self._get(challenge_id)
        if guest_id not in (challenge.challenger_id, challenge.bot_id):
            raise Forbidden("only the challenger and the bot can see a challenge")
        if challenge.status in ("pending", "accepting") and timeout > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(challenge.changed.wait(), timeout)
        return challenge.to_json()

    def cancel(self, challenge_id: str, guest_id: str) -> dict[str, Any]:
        challenge = self._get(challenge_id)
        if guest_id != challenge.challenger_id:
            raise Forbidden("only the challenger can cancel a challenge")
        if challenge.status == "pending":
            self._settle(challenge, "canceled")
        return challenge.to_json()

    def _settle(self, challenge: Challenge, status: str, reason: str | None = None) -> None:
        if challenge.status != "pending":
            return
        challenge.status = status
        challenge.reason = reason
        challenge.changed.set()
        timer = self._timers.pop(challenge.id, None)
        if timer is not None:
            timer.cancel()
        if status in ("canceled", "expired"):
            self._tell(challenge.bot_id, {"type": "challenge_canceled", "challenge": challenge.to_json()})
        loop = asyncio.get_running_loop()
        loop.call_later(KEEP_DECIDED, self.by_id.pop, challenge.id, None)

    # -- the bot's side --------------------------------------------------------

    def _for_bot(self, bot_id: str, challenge_id: Any) -> Challenge:
        if not isinstance(challenge_id, str):
            raise BadRequest(f"challenge must be a challenge id, got {challenge_id!r}")
        challenge = self.by_id.get(challenge_id)
        if challenge is None or challenge.bot_id != bot_id:
            raise NotFound(f"no challenge {challenge_id!r} for this bot (it may have expired)")
        if challenge.status != "pending":
            raise Conflict(f"challenge {challenge_id!r} is {challenge.status} already")
        return challenge

    async def accept(self, bot_id: str, challenge_id: Any) -> dict[str, Any]:
        """Accept: the match starts at once (the seats drawn by lot); returns the game."""
        challenge = self._for_bot(bot_id, challenge_id)
        service = self.service
        pair = [challenge.challenger_id, bot_id]
        if secrets.randbelow(2):
            pair.reverse()
        seats = (SeatRow(0, pair[0]), SeatRow(1, pair[1]))
        row = service.new_match_row(
            kind="room",
            status="playing",
            rules=challenge.rules.to_json(),
            turn_seconds=challenge.turn_seconds,
            seats=seats,
            rated=challenge.rated,
        )
        challenge.status = "accepting"  # nobody may accept, cancel or expire it meanwhile
        try:
            await service.store.create_match(row)
            await service.get_live(row.id)
        except BaseException:
            challenge.status = "pending"
            raise
        challenge.status = "pending"
        challenge.match_id = row.id
        self._settle(challenge, "accepted")
        game = self._game(row.id, seats, row.rules, row.turn_seconds, row.rated, bot_id)
        self._tell(bot_id, {"type": "game_start", "game": game})
        return game

    def decline(self, bot_id: str, challenge_id: Any, reason: Any = "generic") -> dict[str, Any]:
        if reason is None:
            reason = "generic"
        if reason not in DECLINE_REASONS:
            raise BadRequest(f"reason must be one of {', '.join(DECLINE_REASONS)}, got {reason!r}")
        challenge = self._for_bot(bot_id, challenge_id)
        self._settle(challenge, "declined", reason)
        return challenge.to_json()

    def close(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
