"""The HTTP API and pages: guests and cookies, robot matches, rooms, my matches, replays, rematches."""

from __future__ import annotations

import random
from typing import Any

import httpx
from server_helpers import COOKIE, Guest, new_guest, pick, run

from ginrummy.rules import CardSet, GameRecord, Match, deal_order, seed_commitment
from ginrummy.service.rooms import ROOM_ALPHABET


async def play_to_the_end(guest: Guest, match_id: str, seed: int = 1) -> dict[str, Any]:
    """Play a match against a robot with random legal actions (knocking when possible); the last state."""
    table = await guest.connect(match_id)
    rng = random.Random(seed)
    while True:
        state = await table.until(lambda m: m["type"] == "state")
        if state["result"] is not None:
            await table.close()
            return state
        if state["view"]["legal"]:
            await table.act(pick(state["view"]["legal"], rng), version=state["version"])


def test_a_first_visit_creates_a_guest_with_a_signed_httponly_cookie(host: str) -> None:
    with httpx.Client(base_url=f"http://{host}") as client:
        response = client.get("/api/me")
        assert response.status_code == 200
        me = response.json()
        assert set(me) == {"id", "name", "account", "guest", "rating"} and me["name"].startswith("Guest ")
        assert me["account"] is False and me["rating"]["provisional"] is True
        header = response.headers["set-cookie"]
        assert header.startswith(f"{COOKIE}={me['id']}.") and "HttpOnly" in header
        assert "samesite=lax" in header.lower() and "Path=/" in header
        # The same cookie: the same guest, no new cookie.
        again = client.get("/api/me")
        assert again.json() == me and "set-cookie" not in again.headers
        # A tampered cookie is not that guest: a new one is made.
        client.cookies.set(COOKIE, me["id"] + "." + "f" * 64)
        forged = client.get("/api/me")
        assert forged.json()["id"] != me["id"] and "set-cookie" in forged.headers


def test_renaming_trims_and_checks_the_name(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        status, data = await guest.request("POST", "/api/me", {"name": "  Ana   Lu  "})
        assert status == 200 and data["name"] == "Ana Lu"
        assert (await guest.me())["name"] == "Ana Lu"
        for bad in ("", "   ", "x" * 25, 42, "tab\u0007bell"):
            status, data = await guest.request("POST", "/api/me", {"name": bad})
            assert status == 400 and data["error"]["code"] == "bad_request", bad
        status, data = await guest.request("POST", "/api/me", {"nom": "x"})
        assert status == 400
        assert (await guest.me())["name"] == "Ana Lu"

    run(body)


def test_bad_bodies_and_choices_get_400_with_a_reason(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        cases: list[tuple[str, str, Any]] = [
            ("/api/matches", "level", {"level": "grandmaster"}),
            ("/api/matches", "rules", {"rules": "poker"}),
            ("/api/matches", "rules", {"rules": {"target": -5}}),
            ("/api/matches", "rules", {"rules": 7}),
            ("/api/matches", "players", {"rules": {"preset": "rummy", "players": 7}}),
            ("/api/matches", "levels must be a list", {"rules": "gin3", "levels": ["casual"]}),
            ("/api/rooms", "at least one friend", {"rules": "gin3", "seats": [{"robot": "casual"}] * 2}),
            ("/api/rooms", "turn_seconds", {"turn_seconds": 5}),
            ("/api/rooms", "turn_seconds", {"turn_seconds": "soon"}),
        ]
        for path, word, payload in cases:
            status, data = await guest.request("POST", path, payload)
            assert status == 400 and data["error"]["code"] == "bad_request", payload
            assert word in data["error"]["message"], (payload, data)
        headers = {"Cookie": f"{COOKIE}={guest.cookie}"}
        for content in (b"{not json", b"[1, 2]"):
            response = await guest.http.post("/api/matches", content=content, headers=headers)
            assert response.status_code == 400 and "JSON" in response.json()["error"]["message"]
        assert (await guest.request("GET", "/api/matches"))[1] == {"matches": []}

    run(body)


def test_robot_match_with_custom_rules_and_every_level(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        for level in ("novice", "casual", "skilled", "advanced", "expert"):
            match_id = await guest.robot_match(level, rules="hoyle")
            table = await guest.connect(match_id)
            state = await table.recv()
            assert state["match"]["players"][1]["level"] == level
            assert state["match"]["rules"]["preset"] == "hoyle"
        match_id = await guest.robot_match("casual", rules={"preset": "classic", "target": 50})
        state = await (await guest.connect(match_id)).recv()
        assert state["match"]["rules"]["target"] == 50

    run(body)


def test_rooms_join_by_code_and_unknown_rooms_are_404(host: str) -> None:
    async def body() -> None:
        alice, bob = await new_guest(host), await new_guest(host)
        room = await alice.room(turn_seconds=30)
        assert len(room["code"]) == 6 and set(room["code"]) <= set(ROOM_ALPHABET)
        status, data = await bob.join("ZZZZZZ" if room["code"] != "ZZZZZZ" else "YYYYYY")
        assert status == 404 and data["error"]["code"] == "not_found"
        status, data = await bob.join(room["code"])
        assert status == 200 and data == {"match_id": room["match_id"], "url": f"/m/{room['match_id']}"}
        table = await bob.connect(room["match_id"])
        state = await table.recv()
        assert state["match"]["seat"] == 1 and state["match"]["status"] == "playing"
        if state["view"]["legal"]:
            assert state["match"]["turn_deadline"] is not None  # the room's clock is on

    run(body)


def test_my_matches_lists_only_mine(host: str) -> None:
    async def body() -> None:
        alice, bob, carol = await new_guest(host), await new_guest(host), await new_guest(host)
        await alice.request("POST", "/api/me", {"name": "Alice"})
        await bob.request("POST", "/api/me", {"name": "Bob"})
        robot = await alice.robot_match("skilled")
        room = await alice.room()
        await bob.join(room["code"])
        await carol.robot_match()
        _, mine = await alice.request("GET", "/api/matches")
        items = {m["id"]: m for m in mine["matches"]}
        assert set(items) == {robot, room["match_id"]}
        assert items[robot]["opponent_kind"] == "robot" and items[robot]["opponent_level"] == "skilled"
        assert items[room["match_id"]]["opponent"] == "Bob" and items[room["match_id"]]["seat"] == 0
        assert items[robot]["status"] == "playing" and items[robot]["winner_seat"] is None
        # The robot may already have knocked on its first turn (and scored): two scores, whatever they are.
        assert items[robot]["rules"]["preset"] == "classic" and len(items[robot]["scores"]) == 2
        assert mine["matches"][0]["id"] == room["match_id"]  # newest first
        _, theirs = await bob.request("GET", "/api/matches")
        assert [m["opponent"] for m in theirs["matches"]] == ["Alice"]

    run(body)


def test_replay_opens_only_when_the_match_is_over_and_lets_anyone_verify_the_deals(host: str) -> None:
    async def body() -> None:
        guest, stranger = await new_guest(host), await new_guest(host)
        match_id = await guest.robot_match("novice", rules={"preset": "classic", "target": 30})
        status, data = await stranger.request("GET", f"/api/matches/{match_id}/replay")
        assert status == 409 and data["error"]["code"] == "not_finished"
        assert "seed" not in str(data) and "record" not in data
        status, data = await guest.request("GET", "/api/matches/nope/replay")
        assert status == 404
        final = await play_to_the_end(guest, match_id)
        status, replay = await stranger.request("GET", f"/api/matches/{match_id}/replay")
        assert status == 200
        assert replay["result"] == final["result"]
        assert [p["kind"] for p in replay["players"]] == ["human", "robot"]
        assert (replay["record"]["format"], replay["record"]["game"]) == ("ginrummy-game", "gin")
        record = GameRecord.from_json(replay["record"])
        match = Match.from_record(record)
        assert match.result is not None and match.result.to_json() == replay["result"]
        assert len(replay["hands"]) == len(record.hands)
        for number, hand in enumerate(replay["hands"], start=1):
            assert hand["number"] == number
            seed = int(hand["seed"])
            assert hand["commitment"] == seed_commitment(seed)
            deck = deal_order(seed)
            dealt = [CardSet(), CardSet()]
            non_dealer = 1 - hand["dealer"]
            for i in range(20):
                seat = non_dealer if i % 2 == 0 else hand["dealer"]
                dealt[seat] = dealt[seat] | CardSet([deck[i]])
            assert [d.to_json() for d in dealt] == hand["initial_hands"]
            assert hand["upcard"] == str(CardSet([deck[20]]))
            steps = [[s["seat"], s["action"]] for s in hand["steps"]]
            assert steps == record.hands[number - 1].to_json()["actions"]
            assert hand["showdown"]["outcome"] == record.hands[number - 1].result["outcome"]
        assert replay["hands"][-1]["scores_after"] == final["result"]["points"]

    run(body)


def test_rematch_is_one_new_match_for_both_players(host: str) -> None:
    async def body() -> None:
        guest, stranger = await new_guest(host), await new_guest(host)
        match_id = await guest.robot_match("casual", rules={"preset": "classic", "target": 20})
        status, data = await guest.request("POST", f"/api/matches/{match_id}/rematch")
        assert status == 409 and data["error"]["code"] == "not_finished"
        watcher = await guest.connect(match_id)
        await play_to_the_end(guest, match_id)
        status, data = await stranger.request("POST", f"/api/matches/{match_id}/rematch")
        assert status == 403 and data["error"]["code"] == "forbidden"
        status, first = await guest.request("POST", f"/api/matches/{match_id}/rematch")
        assert status == 200 and first["match_id"] != match_id and first["url"] == f"/m/{first['match_id']}"
        status, second = await guest.request("POST", f"/api/matches/{match_id}/rematch")
        assert second == first
        pushed = await watcher.until(lambda m: m["type"] == "state" and m["match"]["rematch_id"] is not None)
        assert pushed["match"]["rematch_id"] == first["match_id"]
        state = await (await guest.connect(first["match_id"])).recv()
        assert state["match"]["status"] == "playing" and state["match"]["rules"]["target"] == 20
        assert state["version"] in (0, 1, 2)

    run(body)


def test_pages_static_files_and_unknown_api_routes(host: str) -> None:
    with httpx.Client(base_url=f"http://{host}") as client:
        for path in ("/", "/r/ABCDEF", "/m/some-id", "/matches", "/replay/some-id"):
            response = client.get(path)
            assert response.status_code == 200, path
            assert response.headers["content-type"].startswith("text/html")
            assert response.headers["x-content-type-options"] == "nosniff"
        assert client.get("/static/no-such-file.js").status_code == 404
        response = client.get("/api/nothing-here")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
        assert client.get("/api/health").json()["ok"] is True
