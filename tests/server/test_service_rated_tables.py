"""Rated rooms of three-player Gin, team Gin and Rummy at the service: Weng-Lin ratings per game
moved by the finishing order, people only, one per network address, nothing for casual tables."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from live_table_helpers import Table, play_to_end
from test_service_clock import with_service

from ginrummy.service import BadRequest, GameService
from ginrummy.service.errors import SameAddress
from ginrummy.service.live import LiveMatch
from ginrummy.service.multi_ratings import finishing_ranks


async def rated_table(service: GameService, rules: Any, people: int, *, rated: bool = True) -> Table:
    """A room of `people` people, each from an address of their own, every seat taken."""
    host = await service.guests.rename(await service.guests.new_guest(), "Host")
    seats = ["friend"] * (people - 1)
    code, match_id = await service.rooms.create_room(
        host, rules, 0, seats=seats, rated=rated, address="10.0.0.1"
    )
    live = await service.get_live(match_id)
    assert live is not None and live.rated is rated
    guests = {0: host}
    for n in range(1, people):
        friend = await service.guests.rename(await service.guests.new_guest(), f"Friend {n}")
        await service.rooms.join_room(friend, code, f"10.0.0.{n + 1}")
        seat = live.seat_of(friend.id)
        assert seat is not None
        guests[seat] = friend
    return Table(service, live, guests, code, asyncio.Event())


async def stored_end(live: LiveMatch) -> None:
    """Wait until the move that ended the game has stored its result (and read the ratings)."""
    while live.lock.locked() or await live.host.store.get_match(live.id) is None:
        await asyncio.sleep(0.01)
    row = await live.host.store.get_match(live.id)
    while row is not None and row.status != "over":
        await asyncio.sleep(0.01)
        row = await live.host.store.get_match(live.id)
    async with live.lock:
        pass


RATED = [
    ({"preset": "gin3", "target": 20}, 3, "gin3"),
    ({"preset": "gin4_teams", "target": 20}, 4, "gin4_teams"),
    ({"preset": "rummy", "players": 4}, 4, "rummy"),
]


@pytest.mark.parametrize(("rules", "people", "game"), RATED)
def test_a_rated_room_moves_its_games_ratings_by_the_finishing_order(
    tmp_path: Path, rules: Any, people: int, game: str
) -> None:
    async def body(service: GameService) -> None:
        table = await rated_table(service, rules, people)
        live = table.live
        await play_to_end(table, random.Random(3), reconnects=False, watch=False)
        await stored_end(live)
        result = live.match.result
        assert result is not None
        ids = [table.guests[seat].id for seat in range(people)]
        stored = await service.store.get_ratings(ids, game)
        assert sorted(stored) == sorted(ids) and all(r.games == 1 for r in stored.values())
        assert await service.store.get_ratings(ids, "gin") == {}  # two-player Gin's ratings: untouched
        sides = live.match.sides
        side_of = {seat: n for n, side in enumerate(sides) for seat in side}
        winners = sorted({side_of[s] for s in result.winners})
        ranks = finishing_ranks(result.scores, winners)
        by_seat = [stored[ids[seat]].rating for seat in range(people)]
        for a in range(people):
            for b in range(people):
                if ranks[side_of[a]] < ranks[side_of[b]]:
                    assert by_seat[a] > by_seat[b], (ranks, by_seat)
        if game == "gin4_teams":  # partners start alike and move alike
            assert by_seat[0] == pytest.approx(by_seat[2]) and by_seat[1] == pytest.approx(by_seat[3])
        # The end screen and My matches show each seat's change, provisional at first.
        assert live.ratings is not None and len(live.ratings) == people
        for seat, change in enumerate(live.ratings):
            assert change["before"] == 1500 and change["rating"] == round(by_seat[seat])
            assert change["provisional"] is True
        mine = (await service.history.my_matches(table.guests[0]))[0]
        assert mine["ratings"] == live.ratings and mine["game"] == game
        # The profile shows the game's own rating; two-player Gin's is untouched.
        profile = await service.history.profile(ids[0])
        assert profile["table_ratings"] == [
            {
                "game": game,
                "rating": round(by_seat[0]),
                "deviation": round(stored[ids[0]].deviation),
                "provisional": True,
                "ranked": False,
                "games": 1,
            }
        ]
        assert profile["rating"]["games"] == 0 and profile["rating"]["rating"] == 1500
        # The rematch of a rated room is rated too (the same people, seated apart already).
        rematch = await service.get_live(await service.rooms.rematch(table.guests[0], live.id))
        assert rematch is not None and rematch.rated is True and rematch.status == "waiting"

    with_service(tmp_path, body)


def test_a_casual_table_and_a_table_with_a_stand_ins_only_moves_rate_nobody(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        table = await rated_table(service, {"preset": "gin3", "target": 15}, 3, rated=False)
        await play_to_end(table, random.Random(4), reconnects=False, watch=False)
        await stored_end(table.live)
        ids = [g.id for g in table.guests.values()]
        assert await service.store.get_ratings(ids, "gin3") == {}
        assert table.live.ratings is None
        # Had it been rated, the same finished game rates its people, unless a person left every
        # move to the stand-in (as a two-player match aborted before both moved, it counts for
        # nobody); a seat that made no move at all (three-player Gin's dealer of a one-hand game) was
        # not absent.
        match, seats = table.live.match, table.live.seat_rows()
        outcome = service.outcome_of(match, seats, True, 0.0, absent=[False] * 3)
        assert outcome is not None and outcome.rate is not None and outcome.game == "gin3"
        assert not outcome.counts  # on no points board
        assert service.outcome_of(match, seats, True, 0.0, absent=[False, True, False]) is None
        assert service.outcome_of(match, seats, False, 0.0, absent=[False] * 3) is None

    with_service(tmp_path, body)


def test_rated_rooms_are_checked(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        host = await service.guests.new_guest()
        with pytest.raises(BadRequest, match="a room of gin cannot be rated"):
            await service.rooms.create_room(host, "classic", 0, rated=True)
        with pytest.raises(BadRequest, match="seats people only"):
            await service.rooms.create_room(
                host, "gin3", 0, seats=["friend", {"robot": "casual"}], rated=True
            )
        with pytest.raises(BadRequest, match="Rummy is for three to six players"):
            await service.rooms.create_room(host, {"preset": "rummy", "players": 2}, 0, rated=True)
        with pytest.raises(BadRequest, match="rated must be true or false"):
            await service.rooms.create_room(host, "gin3", 0, rated="yes")
        code, match_id = await service.rooms.create_room(
            host,
            {"preset": "rummy", "players": 3},
            0,
            seats=["friend", "friend"],
            rated=True,
            address="10.1.1.1",
        )
        assert (await service.rooms.room_info(None, code))["rated"] is True
        # A second identity of the host, from the host's address, is refused a seat and changes nothing.
        twin = await service.guests.new_guest()
        with pytest.raises(SameAddress, match="another player of this rated room plays from your network"):
            await service.rooms.join_room(twin, code, "10.1.1.1")
        live = await service.get_live(match_id)
        assert live is not None and live.seat_of(twin.id) is None and len(live.free_seats()) == 2
        friend = await service.guests.new_guest()
        assert await service.rooms.join_room(friend, code, "10.1.1.2") == match_id

    with_service(tmp_path, body)


def test_shared_networks_may_meet_in_rated_rooms_when_the_site_allows(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        host = await service.guests.new_guest()
        code, match_id = await service.rooms.create_room(
            host, "gin3", 0, seats=["friend", "friend"], rated=True, address="10.2.2.2"
        )
        other = await service.guests.new_guest()
        assert await service.rooms.join_room(other, code, "10.2.2.2") == match_id

    with_service(tmp_path, body, rated_same_address=True)
