"""Rooms and robot matches for three to six seats at the service: seats filled by the link or by
robots, nothing dealt before the last seat is taken, a clock and a stand-in for every seat, two
seats acting at once in team Gin, My matches and replays of every game, and restarts."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from live_table_helpers import play_to_end, seat_table
from test_service_clock import FakeSocket, with_service

from ginrummy.rules import GameRecord, load_game
from ginrummy.service import BadRequest, GameService, RoomFull


def test_a_room_for_four_is_dealt_only_when_every_seat_is_taken(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        host = await service.guests.rename(await service.guests.new_guest(), "Ann")
        rules = {"preset": "rummy", "players": 4, "ace": "high"}
        seats = ["friend", "friend", {"robot": "skilled"}]
        code, match_id = await service.rooms.create_room(host, rules, 0, seats=seats)
        live = await service.get_live(match_id)
        assert live is not None and live.status == "waiting"
        sock = FakeSocket()
        live.connect(0, sock)
        waiting = sock.state
        assert waiting["view"] is None and waiting["match"]["commitments"] == []
        assert [p["kind"] for p in waiting["match"]["players"]] == ["human", None, None, "robot"]
        assert waiting["match"]["players"][3]["name"] == "Robot (skilled)"
        assert waiting["match"]["rules"]["ace"] == "high" and waiting["match"]["game"] == "rummy"
        info = await service.rooms.room_info(None, code)
        assert (
            info["free"] == 2
            and not info["full"]
            and [s["kind"] for s in info["seats"]]
            == [
                "human",
                None,
                None,
                "robot",
            ]
        )
        bea, cai, dan = [await service.guests.new_guest() for _ in range(3)]
        assert await service.rooms.join_room(bea, code) == match_id
        assert live.status == "waiting" and live.seat_of(bea.id) == 1 and sock.state["view"] is None
        assert await service.rooms.join_room(bea, code) == match_id  # joining again keeps the seat
        await service.rooms.join_room(cai, code)
        assert live.status == "playing" and live.seat_of(cai.id) == 2
        dealt = sock.state
        assert len(dealt["view"]["hand"]) == 7 and dealt["view"]["hand_counts"] == [7, 7, 7, 7]
        assert len(dealt["match"]["commitments"]) == 1
        assert (await service.rooms.room_info(dan, code))["full"] is True
        with pytest.raises(RoomFull, match="every seat is taken"):
            await service.rooms.join_room(dan, code)

    with_service(tmp_path, body)


BAD_SEATS = [
    ([{"robot": "casual"}] * 2, "at least one friend"),
    (["friend"], "a list of 2 seat"),
    ("friend", "a list of 2 seat"),
    (["friend", {"robot": "grandmaster"}], "the robot of seat 2 must be one of"),
    (["friend", "robot"], 'seat 2 must be "friend"'),
]


def test_room_seats_are_checked_and_pairing_stays_two_player_gin(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        host = await service.guests.new_guest()
        for seats, message in BAD_SEATS:
            with pytest.raises(BadRequest, match=message):
                await service.rooms.create_room(host, "gin3", 0, seats=seats)
        with pytest.raises(BadRequest, match="players"):
            await service.rooms.create_room(host, {"preset": "rummy", "players": 7}, 0)
        # Strangers are paired, and tournaments played, in two-player Gin only.
        with pytest.raises(BadRequest, match="preset must be one of"):
            service.seeking.pool_key({"preset": "rummy"})
        with pytest.raises(BadRequest, match="two-player Gin only"):
            await service.tournaments.create(host.id, {"rules": "gin3"})

    with_service(tmp_path, body)


@pytest.mark.parametrize("rules", ["gin3", "gin4_teams", {"preset": "rummy", "players": 5}])
def test_a_person_plays_robots_at_every_table(tmp_path: Path, rules: Any) -> None:
    async def body(service: GameService) -> None:
        guest = await service.guests.new_guest()
        match_id = await service.create_robot_match(guest, "novice", rules)
        live = await service.get_live(match_id)
        assert live is not None and live.status == "playing" and live.kind == "robot"
        assert [s.kind for s in live.seats] == ["human"] + ["robot"] * (len(live.seats) - 1)
        sock = FakeSocket()
        live.connect(0, sock)
        # The robots play up to this seat's turn, then wait for it (nobody ever times out here).
        mine = 0
        start = live.version
        while live.version - start - mine < 2 and live.status == "playing":
            state = await sock.wait_for(
                lambda m: (
                    m["version"] == live.version and (bool(m["view"]["legal"]) or m["result"] is not None)
                ),
                timeout=10,
            )
            if state["result"] is None:
                assert await live.act(0, state["view"]["legal"][0], state["version"]) is None
                mine += 1
        assert live.version - start - mine >= 2 or live.status == "over"  # the robots played on

    with_service(tmp_path, body)


def test_robot_levels_can_differ_by_seat_and_are_checked(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        guest = await service.guests.new_guest()
        rules = {"preset": "rummy", "players": 3}
        match_id = await service.create_robot_match(guest, None, rules, levels=["advanced", "novice"])
        live = await service.get_live(match_id)
        assert live is not None and [s.level for s in live.seats] == [None, "advanced", "novice"]
        with pytest.raises(BadRequest, match="levels must be a list of 2"):
            await service.create_robot_match(guest, None, rules, levels=["novice"])
        with pytest.raises(BadRequest, match=r"levels\[1\] must be one of"):
            await service.create_robot_match(guest, None, rules, levels=["novice", "master"])

    with_service(tmp_path, body)


def test_team_gin_takes_both_moves_made_at_once(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        table = await seat_table(service, "gin4_teams", 4, [])
        live = table.live
        socks = {seat: table.connect(seat) for seat in range(4)}
        acting = live.match.seats_to_act
        assert len(acting) == 2
        version = live.version
        states = {seat: json.loads(socks[seat].latest or "") for seat in acting}
        for seat, state in states.items():
            assert state["version"] == version and state["view"]["legal"]
            # Both answer the same state: the other hand's move does not make the second one stale.
            assert await live.act(seat, state["view"]["legal"][0], version) is None
        assert live.version == version + 2
        # A move chosen before this seat's own last move is stale.
        seat = acting[0]
        mine = json.loads(socks[seat].latest or "")
        if mine["view"]["legal"]:
            refused = await live.act(seat, mine["view"]["legal"][0], version)
            assert refused is not None and refused[0] == "stale"

    with_service(tmp_path, body)


def test_each_seat_has_its_own_clock_and_counts_its_own_timeouts(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        table = await seat_table(service, "gin4_teams", 4, [], turn_seconds=0.3)
        live = table.live
        socks = [FakeSocket() for _ in range(4)]
        for seat in range(4):
            live.connect(seat, socks[seat])
        acting = live.match.seats_to_act
        first = socks[0].state["match"]
        assert [d is not None for d in first["turn_deadlines"]] == [s in acting for s in range(4)]
        # Nobody moves: both clocks run out, each for its own seat.
        moved = await socks[0].wait_for(lambda m: m["version"] >= 2, timeout=10)
        counts = [p["timeouts"] for p in moved["match"]["players"]]
        assert [counts[s] for s in acting] == [1, 1] and sum(counts) == 2

    with_service(tmp_path, body, min_turn_seconds=0.05)


def test_a_friend_who_leaves_gets_a_stand_in_at_any_table(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        table = await seat_table(service, {"preset": "rummy", "players": 3}, 3, [])
        live = table.live
        socks = [FakeSocket() for _ in range(3)]
        for seat in range(3):
            live.connect(seat, socks[seat])
        absent = live.match.seats_to_act[0]
        live.disconnect(absent, socks[absent])
        watcher = socks[(absent + 1) % 3]
        seen = await watcher.wait_for(lambda m: not m["match"]["players"][absent]["connected"])
        assert seen["match"]["players"][absent]["autoplay_at"] is not None
        # The grace runs out: a robot plays the absent friend's turn (draw, melds, discard).
        moved = await watcher.wait_for(lambda m: m["match"]["players"][absent]["autoplay"], timeout=5)
        assert moved["match"]["players"][absent]["kind"] == "human"
        await watcher.wait_for(lambda m: m["view"]["to_act"] != absent, timeout=5)
        back = FakeSocket()
        live.connect(absent, back)
        assert not back.state["match"]["players"][absent]["autoplay"]

    with_service(tmp_path, body, grace_seconds=0.2)


TABLES = [
    ({"preset": "gin3", "target": 20}, 1),
    ({"preset": "gin4_teams", "target": 20}, 2),
    ({"preset": "rummy", "players": 4, "target": 20}, 2),
]


@pytest.mark.parametrize(("rules", "robots"), TABLES)
def test_my_matches_and_the_replay_show_every_game(tmp_path: Path, rules: Any, robots: int) -> None:
    async def body(service: GameService) -> None:
        table = await seat_table(service, rules, 2, ["novice"] * robots)
        live = table.live
        await play_to_end(table, random.Random(1), reconnects=False, watch=False)
        listed = await service.history.my_matches(table.guests[1])
        item = next(m for m in listed if m["id"] == live.id)
        assert item["game"] == live.match.rules.game and item["status"] == "over"
        assert [p["kind"] for p in item["players"]] == [s.kind for s in live.seats]
        assert len(item["scores"]) == len(live.match.sides)
        assert live.match.result is not None
        assert item["side"] == 1 and item["winner_side"] == live.match.result.to_json()["winner"]
        replay = await service.history.replay(live.id)
        record = GameRecord.from_json(replay["record"])
        assert load_game(record.dumps()).record().dumps() == record.dumps()
        assert [d["number"] for d in replay["hands"]] == list(range(1, live.match.hand_number + 1))
        for deal, hand_record in zip(replay["hands"], record.hands, strict=True):
            assert len(deal["seeds"]) == len(deal["tables"]) == len(deal["ends"])
            assert [(s["seat"], s["action"]) for s in deal["steps"]] == [
                (seat, action.to_json()) for seat, action in hand_record.actions
            ]
            for table_data in deal["tables"]:
                assert sum(len(cards) for cards in table_data["initial_hands"]) in (20, 28)

    with_service(tmp_path, body)


@pytest.mark.parametrize(
    ("rules", "robots"), [("gin3", 1), ("gin4_teams", 2), ({"preset": "rummy", "players": 5}, 3)]
)
def test_a_restart_rebuilds_every_table_where_it_was(tmp_path: Path, rules: Any, robots: int) -> None:
    saved: dict[str, Any] = {}

    async def first(service: GameService) -> None:
        table = await seat_table(service, rules, 2, ["casual"] * robots)
        live = table.live
        seats = sorted(table.guests)
        socks = {seat: table.connect(seat) for seat in seats}
        rng = random.Random(4)
        deadline = time.monotonic() + 60
        while live.version < 12:
            # Bounded: a table that stops moving fails here with what it waits for, not a hung run.
            assert time.monotonic() < deadline, (
                f"the table stopped at version {live.version}: to act {live.match.seats_to_act}, the"
                f" seats' last states {[json.loads(socks[s].latest or 'null')['version'] for s in seats]},"
                f" seats {[s.kind for s in live.seats]}"
            )
            for seat in seats:
                state = json.loads(socks[seat].latest or "")
                if state["view"]["legal"] and state["version"] == live.version:
                    await live.act(seat, rng.choice(state["view"]["legal"]), state["version"])
            await asyncio.sleep(0.01)
        async with live.lock:
            saved.update(id=live.id, version=live.version, states={s: live.state(s) for s in seats})
            await live.close()  # the crash: nothing more is played

    async def second(service: GameService) -> None:
        live = await service.get_live(saved["id"])
        assert live is not None and live.version == saved["version"]
        for seat, state in saved["states"].items():
            again = live.state(seat)
            assert again["view"] == state["view"] and again["last_hand"] == state["last_hand"]
            assert again["match"]["commitments"] == state["match"]["commitments"]

    with_service(tmp_path, first)
    with_service(tmp_path, second, robot_delay=3600)


def test_a_rematch_of_a_table_keeps_the_robots_and_waits_for_every_friend(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        table = await seat_table(service, {"preset": "gin3", "target": 15}, 2, ["novice"])
        await play_to_end(table, random.Random(2), reconnects=False, watch=False)
        live = table.live
        host, friend = table.guests[0], table.guests[1]
        rematch_id = await service.rooms.rematch(friend, live.id)
        fresh = await service.get_live(rematch_id)
        assert fresh is not None and fresh.status == "waiting"
        assert [s.kind for s in fresh.seats] == [None, "human", "robot"] and fresh.seats[
            0
        ].invited == host.name
        assert await service.rooms.rematch(host, live.id) == rematch_id
        assert fresh.status == "playing"

    with_service(tmp_path, body)


class FreshCheck:
    """Compares each state's view with the seat's view built afresh from the game at that moment."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.live: Any = None
        self.checked = 0
        self.latest: dict[str, Any] | None = None
        self.wake = asyncio.Event()

    def send_text(self, text: str) -> None:
        message = json.loads(text)
        if message["type"] != "state":
            return
        game = self.live.match
        if not game.is_over:
            # The history is encoded as it grows: the text must still be exactly the view.
            assert message["view"] == game.view(self.seat).to_json()
            self.checked += 1
        self.latest = message
        self.wake.set()


def test_the_rummy_history_encoded_as_it_grows_is_the_view_itself(tmp_path: Path) -> None:
    async def body(service: GameService) -> None:
        guest = await service.guests.new_guest()
        match_id = await service.create_robot_match(
            guest, "casual", {"preset": "rummy", "players": 3, "target": 15}
        )
        live = await service.get_live(match_id)
        assert live is not None
        sock = FreshCheck(0)
        sock.live = live
        live.connect(0, sock)
        rng = random.Random(9)
        while live.status != "over":
            state = sock.latest
            assert state is not None
            if state["view"]["legal"] and state["version"] == live.version:
                await live.act(0, rng.choice(state["view"]["legal"]), state["version"])
            else:
                sock.wake.clear()
                await asyncio.wait_for(sock.wake.wait(), 10)
        assert sock.checked > 20 and live.match.hand_number >= 1

    with_service(tmp_path, body)
