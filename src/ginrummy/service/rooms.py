"""Private rooms and rematches: a room by link whose seats friends (or robots) take, dealt once
every seat is taken; a rematch of a finished match with the same players and rules. In a
cluster the process that owns a room's match seats its joiners."""

from __future__ import annotations

import secrets
from typing import Any

from ..rules import GAMES
from .cluster.ports import OwnedElsewhere
from .errors import BadRequest, Forbidden, NotFinished, NotFound, RoomFull
from .host import ServiceHost
from .live import LiveMatch
from .multi_ratings import RATED_GAMES
from .options import parse_room_seats, parse_rules, parse_turn_seconds
from .ports import GuestRow, MatchRow, SeatRow, StoreError
from .robots import LEVELS

__all__ = ["ROOM_ALPHABET", "Rooms"]

# No 0/O, 1/I/L: a code read aloud or copied by hand still works.
ROOM_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
ROOM_CODE_LENGTH = 6


class Rooms:
    """Rooms by link and rematches, on the service's matches (`ServiceHost`)."""

    def __init__(self, host: ServiceHost) -> None:
        self.host = host

    async def _elsewhere(self, exc: OwnedElsewhere, op: str, **args: Any) -> Any:
        """Have the process that owns the match do `op` (a cluster only)."""
        if self.host.ownership is None:
            raise exc
        return await self.host.ownership.forward(exc.owner, exc.match_id, op, args)

    async def create_room(
        self,
        guest: GuestRow,
        rules: Any,
        turn_seconds: Any = ...,
        *,
        seats: Any = None,
        rated: Any = False,
        address: str | None = None,
    ) -> tuple[str, str]:
        """A private room: the creator takes seat 0, friends who open its link take the seats kept
        for friends (`seats`: "friend" or {"robot": LEVEL} for each other seat); returns (code, match id).

        The game is dealt once every seat is taken. A `rated` room (three-player Gin, team Gin,
        Rummy: two-player Gin is rated in the pool and tournaments) seats people only, as rated
        play does, one per network address (`address`: the creator's).
        """
        parsed = parse_rules(rules, games=GAMES)
        others = parse_room_seats(seats, parsed.players, LEVELS)
        if not isinstance(rated, bool):
            raise BadRequest(f"rated must be true or false, got {rated!r}")
        if rated:
            if parsed.game not in RATED_GAMES:
                raise BadRequest(
                    f"a room of {parsed.game} cannot be rated: rated rooms are for "
                    f"{', '.join(RATED_GAMES)} (two-player Gin is rated in Play online)"
                )
            if parsed.players < 3:
                raise BadRequest("a rated room of Rummy is for three to six players: two play casual Rummy")
            if any(level is not None for level in others):
                raise BadRequest("a rated room seats people only: keep every other seat for a friend")
            await self.host.bots.refuse_bot(guest.id, "rated rooms")
        seconds = parse_turn_seconds(
            turn_seconds, self.host.config.default_turn_seconds, self.host.config.min_turn_seconds
        )
        rows = (SeatRow(0, guest.id), *(SeatRow(n, robot_level=lv) for n, lv in enumerate(others, start=1)))
        for _attempt in range(8):
            code = "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_LENGTH))
            row = self.host.new_match_row(
                kind="room",
                status="waiting",
                rules=parsed.to_json(),
                room_code=code,
                turn_seconds=seconds,
                seats=rows,
                rated=rated,
            )
            try:
                await self.host.store.create_match(row)
            except StoreError:
                continue  # the code was taken: draw another
            if rated:  # noted from the room's creation on: joiners are checked against it
                await self.host.fairplay.entered(guest.id, address)
            await self.host.open_new([row], {guest.id: guest.name})
            return code, row.id
        raise StoreError("could not find a free room code")

    async def join_room(self, guest: GuestRow, code: str, address: str | None = None) -> str:
        """Take a free seat of room `code` (or return to one's own seat); `RoomFull` otherwise.

        A rated room refuses bot accounts and a second player from a network address (`address`:
        the joiner's) another of its players entered it from (`SameAddress`)."""
        code, row = await self._room(code)
        try:
            live = await self.host.get_live(row.id)
        except OwnedElsewhere as exc:  # cluster hook: the owner seats the guest
            return str(await self._elsewhere(exc, "join_room", guest=guest.id, code=code, address=address))
        if live is None:
            raise NotFound(f"no room {code!r}")
        full = RoomFull(
            "this room is full: two players are seated already"
            if len(live.seats) == 2
            else "this room is full: every seat is taken"
        )
        async with live.lock:
            if live.seat_of(guest.id) is not None:
                return live.id
            free = live.free_seats()
            if not free or live.status != "waiting":
                raise full
            if live.rated:
                await self.host.bots.refuse_bot(guest.id, "rated rooms")
                seated = [s.guest_id for s in live.seats if s.guest_id is not None]
                await self.host.fairplay.refuse_same_address(
                    guest.id, address, seated, row.created_at, event="room"
                )
                await self.host.fairplay.entered(guest.id, address)
            if not await self._sit(live, free[0], guest):
                raise full
        return live.id

    async def _room(self, code: str) -> tuple[str, MatchRow]:
        """The room link's code as it is stored (case and spaces aside) and its match; `NotFound` if none."""
        code = code.strip().upper()
        row = await self.host.store.get_match_by_code(code) if code else None
        if row is None:
            raise NotFound(f"no room {code!r}")
        return code, row

    async def _sit(self, live: LiveMatch, seat: int, guest: GuestRow) -> bool:
        """Seat `guest` in the free `seat` of a waiting match, which then starts. Call with `live.lock` held."""
        if not await self.host.store.take_seat(live.id, seat, guest.id):
            return False
        live.seated(seat, guest.id, guest.name, guest=await self.host.store.get_account(guest.id) is None)
        return True

    async def room_info(self, guest: GuestRow | None, code: str) -> dict[str, Any]:
        """What the room link shows before joining: who invites, the rules, whether a seat is free."""
        code, row = await self._room(code)
        try:
            live = await self.host.get_live(row.id)
        except OwnedElsewhere as exc:  # cluster hook: the owner answers
            info: dict[str, Any] = await self._elsewhere(
                exc, "room_info", guest=guest.id if guest is not None else None, code=code
            )
            return info
        if live is None:
            raise NotFound(f"no room {code!r}")
        host = live.seats[0]
        seated = guest is not None and live.seat_of(guest.id) is not None
        free = live.free_seats() if live.status == "waiting" else []
        return {
            "code": code,
            "host": host.name,
            "rules": live.match.rules.to_json(),
            "turn_seconds": live.turn_seconds,
            "rated": live.rated,
            "status": live.status,
            "full": not free and not seated,
            "seated": seated,
            "match_id": live.id if seated else None,
            # Who sits where so far (robots by level); the free seats are taken in order.
            "seats": [
                {
                    "seat": s.seat,
                    "kind": s.kind,
                    "name": s.name,
                    "level": s.level,
                    "invited": s.invited is not None,
                    "guest": s.guest,
                }
                for s in live.seats
            ],
            "free": len(free),
        }

    async def rematch(self, guest: GuestRow, match_id: str) -> str:
        """A new match with the same players and rules (one per finished match, whoever asks first)."""
        row = await self.host.store.get_match(match_id)
        if row is None:
            raise NotFound(f"no match {match_id!r}")
        if all(s.guest_id != guest.id for s in row.seats):
            raise Forbidden("only the players of a match can ask for a rematch")
        if row.status != "over":
            raise NotFinished("the match is not over yet")
        if row.tournament_id is not None:
            raise BadRequest("a tournament match has no rematch: the tournament pairs the next match")
        if await self.host.bots.of(
            [s.guest_id for s in row.seats if s.guest_id is not None and s.guest_id != guest.id]
        ):
            raise BadRequest("a bot accepts each match itself: challenge it again from its profile")
        rematch_id = row.rematch_id
        if rematch_id is None:
            # Between people (friends or strangers paired online) the rematch waits until everyone
            # has accepted: the one who asks sits down, the others' seats are kept for them. A robot
            # always accepts.
            ask = row.kind in ("room", "online")
            fresh = self.host.new_match_row(
                kind=row.kind,
                status="waiting" if ask else "playing",
                rules=row.rules,
                turn_seconds=row.turn_seconds,
                seats=tuple(
                    SeatRow(s.seat) if ask and s.guest_id not in (None, guest.id) else s for s in row.seats
                ),
                rematch_of=row.id,
                # A rated match's rematch between people is rated too: the same people, already
                # seated apart (rated pools and rooms never seat two of one address).
                rated=row.rated and ask,
            )
            rematch_id = await self.host.store.set_rematch(row.id, fresh)
            if rematch_id == fresh.id:
                await self.host.open_new([fresh], {})
            old = self.host.live.get(row.id)
            if old is not None:
                old.rematch_id = rematch_id
                old.broadcast()
            elif self.host.ownership is not None:  # cluster hook: the old table's owner tells its players
                self.host.ownership.tell(row.id, "rematch_id", rematch=rematch_id)
        try:
            live = await self.host.get_live(rematch_id)
        except OwnedElsewhere as exc:  # cluster hook: the rematch's owner seats the guest
            return str(await self._elsewhere(exc, "rematch", guest=guest.id, match=match_id))
        if live is not None and live.status == "waiting" and live.seat_of(guest.id) is None:
            seat = next(s.seat for s in row.seats if s.guest_id == guest.id)
            async with live.lock:
                if live.seat_of(guest.id) is None:
                    await self._sit(live, seat, guest)
        return rematch_id
