"""Quick pairing ("Play online"): strangers wait in a pool keyed by game, rules and rated, and
are paired by rating (service/pairing.py); in a cluster one process runs the pools and the
others forward to it."""

from __future__ import annotations

import secrets
from typing import Any

from ..rules import PRESETS
from .errors import BadRequest, NotFound
from .host import ServiceHost
from .options import parse_rules, robot_level_for
from .pairing import PairingPool, PoolKey, Seek
from .ports import GuestRow, SeatRow
from .ratings import GAME

__all__ = ["GIN_PRESETS", "Seeking"]

#: Strangers are paired for two-player Gin, with one of its presets.
GIN_PRESETS = tuple(name for name, rules in PRESETS.items() if rules.game == "gin")


class Seeking:
    """The pools of people waiting for a stranger, and the matches they are paired into."""

    def __init__(self, host: ServiceHost) -> None:
        self.host = host
        self.pool = PairingPool(
            self._start_match,
            host.clock,
            rated_apart=lambda a, b: host.fairplay.apart(a.address, b.address),
        )

    def pool_key(self, body: dict[str, Any]) -> PoolKey:
        preset = body.get("preset", "classic")
        if preset not in GIN_PRESETS:
            raise BadRequest(f"preset must be one of {', '.join(GIN_PRESETS)}, got {preset!r}")
        target = body.get("target", 100)
        if isinstance(target, bool) or not isinstance(target, int) or not 25 <= target <= 500:
            raise BadRequest(f"target must be a whole number of points from 25 to 500, got {target!r}")
        rated = body.get("rated", True)
        if not isinstance(rated, bool):
            raise BadRequest(f"rated must be true or false, got {rated!r}")
        return PoolKey(GAME, preset, target, rated)

    async def _pool_owner(self) -> str | None:
        """The process that runs the pools when it is not this one (a cluster only)."""
        return await self.host.ownership.pool_owner() if self.host.ownership is not None else None

    async def _forward_pool(self, owner: str, op: str, guest: GuestRow, **args: Any) -> Any:
        assert self.host.ownership is not None
        return await self.host.ownership.forward(owner, "pool", op, {"guest": guest.id, **args})

    async def seek(self, guest: GuestRow, body: dict[str, Any], address: str | None = None) -> dict[str, Any]:
        """Wait in a pool for a stranger, from the client `address`; the answer says how the wait goes."""
        key = self.pool_key(body)
        owner = await self._pool_owner()
        if owner is not None:  # cluster hook: one process runs the pools (and checks the rest)
            answer: dict[str, Any] = await self._forward_pool(
                owner, "seek", guest, body=body, address=address
            )
            return answer
        await self.host.bots.refuse_bot(guest.id, "quick pairing")
        if key.rated:
            await self.host.fairplay.entered(guest.id, address)
        rating = (await self.host.boards.rating_of(guest.id))["rating"]
        if guest.id not in self.pool.by_guest and self.pool.recently_began():
            made = await self._pairing_made_before(guest.id)
            if made is not None:
                return self.pool.status(self.pool.paired_before(guest.id, key, rating, made))
        seek = self.pool.join(guest.id, key, rating, address)
        return self.pool.status(seek)

    async def _pairing_made_before(self, guest_id: str) -> str | None:
        """The online match a pool that ran before this one (on a process since gone) paired
        `guest_id` into, if it is that recent and still being played; None otherwise. A match
        this pool made is never one: its players were told of it here."""
        latest = await self.host.store.matches_of(guest_id, limit=1)
        if not latest:
            return None
        row = latest[0]
        before = self.host.clock() - self.pool.config.notice_window <= row.created_at < self.pool.began
        return row.id if row.kind == "online" and row.status == "playing" and before else None

    async def wait_for_pairing(self, guest: GuestRow, timeout: float) -> dict[str, Any]:
        """The wait's news once paired, or after `timeout` seconds (at most 30).

        In a cluster a wait reaching another process is forwarded to the pool's process as one call
        that it answers when paired or after at most `wait_slice` seconds (within the call's
        timeout); the page asks again, as it does after any answer.
        """
        timeout = max(0.0, min(timeout, 30.0))
        owner = await self._pool_owner()
        if owner is not None:  # cluster hook
            assert self.host.ownership is not None
            wait = min(timeout, self.host.ownership.wait_slice)
            answer: dict[str, Any] = await self._forward_pool(owner, "wait_pool", guest, wait=wait)
            return answer
        seek = self.pool.by_guest.get(guest.id)
        if seek is None:
            raise NotFound("you are not waiting in a pool; press Play online again")
        return await self.pool.wait(seek, timeout)

    async def stop_seeking(self, guest: GuestRow) -> bool:
        owner = await self._pool_owner()
        if owner is not None:  # cluster hook
            return bool(await self._forward_pool(owner, "leave_pool", guest))
        return self.pool.leave(guest.id)

    async def robot_instead(self, guest: GuestRow) -> str:
        """Stop waiting and play a robot of about one's strength, with the pool's rules (casual)."""
        owner = await self._pool_owner()
        if owner is not None:  # cluster hook: the pool's process makes the match
            return str(await self._forward_pool(owner, "robot_instead", guest))
        seek = self.pool.by_guest.get(guest.id)
        if seek is None or seek.match_id is not None:
            raise NotFound("you are not waiting in a pool")
        self.pool.leave(guest.id)
        level = robot_level_for(seek.rating)
        return await self.host.create_robot_match(
            guest, level, {"preset": seek.key.preset, "target": seek.key.target}
        )

    async def _start_match(self, key: PoolKey, a: Seek, b: Seek) -> str:
        first, second = (a, b) if secrets.randbelow(2) else (b, a)
        rules = parse_rules({"preset": key.preset, "target": key.target})
        row = self.host.new_match_row(
            kind="online",
            status="playing",
            rules=rules.to_json(),
            turn_seconds=self.host.config.online_turn_seconds,
            seats=(SeatRow(0, first.guest_id), SeatRow(1, second.guest_id)),
            rated=key.rated,
        )
        if self.host.ownership is None:
            await self.host.store.create_match(row)
        else:  # stored only while this process still runs the pools (never by a stale one)
            await self.host.store.create_matches([row], fence=self.host.ownership.fence_of("pool"))
        await self.host.open_new([row], {})
        return row.id
