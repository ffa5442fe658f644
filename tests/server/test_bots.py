"""Bot accounts over the real server: a token shown once and stored hashed, challenges accepted and
declined, a whole match between a bot and a person with every frame the bot received scanned for
hidden cards, a token revoked mid-game (refused at once; the stand-in plays on), the per-token rate
limit, and bots kept out of people's leaderboards, quick pairing and tournaments."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from server_helpers import Guest, live_server, new_guest, run, test_settings
from test_leak import Truth, greedy_or_random, scan

from ginrummy.rules import GameRecord
from ginrummy.service import GameService
from ginrummy.service.errors import Forbidden
from ginrummy.storage import SqlStore

PASSWORD = "a long enough secret"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A server whose absent players get a stand-in after one second; and its SQLite file."""
    root = tmp_path_factory.mktemp("bots")
    with live_server(test_settings(root, grace_seconds=1.0, bot_rate_per_second=1000.0)) as address:
        yield address, root / "test.sqlite3"


async def owner_with_bot(host: str, name: str) -> tuple[Guest, dict[str, Any], str]:
    owner = await new_guest(host)
    status, data = await owner.request("POST", "/api/account", {"name": f"{name}_own", "password": PASSWORD})
    assert status == 200, data
    status, made = await owner.request("POST", "/api/bots", {"name": name})
    assert status == 200, made
    return owner, made["bot"], made["token"]


class BotClient:
    """A bot written against the documented API: its event stream and its game sockets."""

    def __init__(self, host: str, token: str) -> None:
        self.host = host
        self.headers = {"Authorization": f"Bearer {token}"}
        self.frames: list[str] = []  # every frame of every game socket

    async def open(self, path: str) -> Any:
        return await websockets.connect(
            f"ws://{self.host}{path}", additional_headers=self.headers, open_timeout=10, ping_interval=None
        )

    async def http(self, method: str, path: str, body: Any = None) -> tuple[int, Any, dict[str, str]]:
        async with httpx.AsyncClient(base_url=f"http://{self.host}", timeout=20) as client:
            response = await client.request(method, path, json=body, headers=self.headers)
            return response.status_code, response.json(), dict(response.headers)


async def recv(ws: Any, timeout: float = 15.0) -> dict[str, Any]:
    text = await asyncio.wait_for(ws.recv(), timeout)
    message: dict[str, Any] = json.loads(text)
    return message


async def until(ws: Any, kind: str, frames: list[str] | None = None, timeout: float = 15.0) -> dict[str, Any]:
    while True:
        text = await asyncio.wait_for(ws.recv(), timeout)
        if frames is not None:
            frames.append(text)
        message: dict[str, Any] = json.loads(text)
        if message["type"] == kind:
            return message


async def challenge(person: Guest, bot_id: str, **options: Any) -> dict[str, Any]:
    body = {"preset": "classic", "target": 15, "turn_seconds": 60, "rated": True, **options}
    status, made = await person.request("POST", f"/api/players/{bot_id}/challenge", body)
    assert status == 200, made
    return made


async def play_person(person: Guest, match_id: str, rng: random.Random) -> dict[str, Any]:
    table = await person.connect(match_id)
    acted = -1
    while True:
        message = await table.recv(timeout=30)
        if message["type"] != "state":
            continue
        if message["result"] is not None:
            return message
        if message["view"]["legal"] and message["version"] > acted:
            acted = message["version"]
            await table.act(greedy_or_random(message["view"], rng), version=message["version"])


async def play_bot(bot: BotClient, match_id: str, rng: random.Random) -> dict[str, Any]:
    ws = await bot.open(f"/api/bot/game/{match_id}")
    acted = -1
    try:
        while True:
            text = await asyncio.wait_for(ws.recv(), 30)
            bot.frames.append(text)
            message = json.loads(text)
            assert message["type"] != "error", message
            if message["type"] != "state":
                continue
            if message["result"] is not None:
                return message
            if message["view"]["legal"] and message["version"] > acted:
                acted = message["version"]
                action = greedy_or_random(message["view"], rng)
                await ws.send(json.dumps({"type": "action", "action": action, "version": message["version"]}))
    finally:
        await ws.close()


def test_a_bot_token_is_shown_once_stored_hashed_and_replaced_at_once(server: tuple[str, Path]) -> None:
    host, database = server

    async def body() -> None:
        guest = await new_guest(host)
        status, refused = await guest.request("POST", "/api/bots", {"name": "NoAccountBot"})
        assert (status, refused["error"]["code"]) == (403, "forbidden")
        owner, bot, token = await owner_with_bot(host, "TokenBot")
        assert token.startswith(f"grb_{bot['id']}.") and len(token) > 40
        assert bot["token"] is True and "token_hash" not in bot
        # Listed without the token; a second bot of the same name is refused.
        status, mine = await owner.request("GET", "/api/bots")
        assert status == 200 and [b["name"] for b in mine["bots"]] == ["TokenBot"]
        assert token not in json.dumps(mine)
        status, taken = await owner.request("POST", "/api/bots", {"name": "tokenbot"})
        assert (status, taken["error"]["code"]) == (409, "name_taken")
        # An owner cannot farm a rating against their own bot.
        status, own = await owner.request("POST", f"/api/players/{bot['id']}/challenge", {"rated": True})
        assert status == 400 and "your own bot" in own["error"]["message"]
        # No password signs a bot account in.
        status, _ = await Guest(host).request(
            "POST", "/api/login", {"name": "TokenBot", "password": PASSWORD}
        )
        assert status == 403

        client = BotClient(host, token)
        status, me, _ = await client.http("GET", "/api/bot/account")
        assert status == 200 and me["name"] == "TokenBot" and me["bot"] is True and me["pool"] == "gin_bot"
        for header, code in [
            ({}, "invalid_token"),
            ({"Authorization": "Basic abc"}, "invalid_token"),
            ({"Authorization": f"Bearer {token[:-1]}{'A' if token[-1] != 'A' else 'B'}"}, "invalid_token"),
            ({"Authorization": f"Bearer grb_nobody.{token[-43:]}"}, "invalid_token"),
        ]:
            client.headers = header
            status, error, _ = await client.http("GET", "/api/bot/account")
            assert (status, error["error"]["code"]) == (401, code), error
            assert error["error"]["message"]

        # Only the hash is kept: the token itself is nowhere in the database.
        with sqlite3.connect(database) as db:
            stored = db.execute("SELECT token_hash FROM bots WHERE guest_id = ?", (bot["id"],)).fetchone()[0]
        assert stored == hashlib.sha256(token.encode()).hexdigest()
        assert token.encode() not in database.read_bytes()
        assert token.split(".")[-1].encode() not in database.read_bytes()

        # A new token replaces the old one at once; another person cannot touch the bot.
        status, fresh = await owner.request("POST", f"/api/bots/{bot['id']}/token")
        assert status == 200 and fresh["token"] != token
        client.headers = {"Authorization": f"Bearer {token}"}
        status, error, _ = await client.http("GET", "/api/bot/account")
        assert status == 401 and "revoked or replaced" in error["error"]["message"]
        client.headers = {"Authorization": f"Bearer {fresh['token']}"}
        assert (await client.http("GET", "/api/bot/account"))[0] == 200
        stranger = await new_guest(host)
        status, _ = await stranger.request("DELETE", f"/api/bots/{bot['id']}/token")
        assert status == 404

    run(body)


def test_a_bot_plays_a_person_to_the_end_and_never_sees_a_hidden_card(server: tuple[str, Path]) -> None:
    host, _ = server

    async def body() -> None:
        _, bot, token = await owner_with_bot(host, "ScanBot")
        client = BotClient(host, token)
        person = await new_guest(host)
        # Offline bots cannot be challenged.
        status, offline = await person.request(
            "POST", f"/api/players/{bot['id']}/challenge", {"preset": "classic", "target": 15}
        )
        assert (status, offline["error"]["code"]) == (409, "conflict")
        stream = await client.open("/api/bot/stream")
        hello = await recv(stream)
        assert hello == {"type": "hello", "bot": {"id": bot["id"], "name": "ScanBot"}}
        status, online = await person.request("GET", "/api/bots/online")
        assert bot["id"] in [b["id"] for b in online["bots"]]

        # A declined challenge tells the person why.
        first = await challenge(person, bot["id"], rated=False)
        event = await until(stream, "challenge")
        assert event["challenge"]["id"] == first["id"] and event["challenge"]["rated"] is False
        await stream.send(json.dumps({"type": "decline", "challenge": first["id"], "reason": "rated"}))
        status, seen = await person.request("GET", f"/api/challenges/{first['id']}?wait=10")
        assert (status, seen["status"], seen["decline_reason"]) == (200, "declined", "rated")
        await stream.send(json.dumps({"type": "accept", "challenge": first["id"]}))
        refused = await until(stream, "error")
        assert refused["code"] == "conflict" and "declined" in refused["message"]
        await stream.send(json.dumps({"type": "accept", "challenge": 7}))
        assert (await until(stream, "error"))["code"] == "bad_request"

        # Over HTTP this time: a reason outside the list is refused, then the challenge accepted.
        made = await challenge(person, bot["id"])
        event = await until(stream, "challenge")
        status, bad, _ = await client.http(
            "POST", f"/api/bot/challenges/{made['id']}/decline", {"reason": "x"}
        )
        assert status == 400 and "reason must be one of" in bad["error"]["message"]
        status, accepted, _ = await client.http(
            "POST", f"/api/bot/challenges/{event['challenge']['id']}/accept"
        )
        assert status == 200, accepted
        start = await until(stream, "game_start")
        match_id = start["game"]["id"]
        assert accepted["game"] == start["game"]
        status, games, _ = await client.http("GET", "/api/bot/games")
        assert [g["id"] for g in games["games"]] == [match_id]
        status, profile = await person.request("GET", f"/api/players/{bot['id']}")
        assert profile["playing"] == [{"id": match_id, "watch": f"/watch/{match_id}"}]
        status, seen = await person.request("GET", f"/api/challenges/{made['id']}?wait=10")
        assert seen["status"] == "accepted" and seen["url"] == f"/m/{match_id}"

        rng = random.Random(5)
        person_end, bot_end = await asyncio.gather(
            play_person(person, match_id, random.Random(rng.random())),
            play_bot(client, match_id, random.Random(rng.random())),
        )
        finish = await until(stream, "game_finish")
        assert finish["game"]["id"] == match_id
        await stream.close()
        for _ in range(100):  # until the server has seen the stream close
            status, online = await person.request("GET", "/api/bots/online")
            if bot["id"] not in [b["id"] for b in online["bots"]]:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the bot still shows as online after its stream closed")
        assert person_end["result"] == bot_end["result"]
        players = bot_end["match"]["players"]
        seat = start["game"]["seat"]
        assert players[seat]["bot"] is True and players[1 - seat]["bot"] is False

        # Every frame the bot received names only cards its seat could see at a real table.
        status, replay = await person.request("GET", f"/api/matches/{match_id}/replay")
        assert status == 200
        checked = scan(Truth.of(GameRecord.from_json(replay["record"])), seat, client.frames)
        assert checked >= 10

        # Rated in the bots' pool: the bot and the person move there, and nowhere else.
        status, profile = await person.request("GET", f"/api/players/{bot['id']}")
        assert profile["bot"]["online"] is False and profile["bot"]["owner"]["name"] == "ScanBot_own"
        assert profile["game"] == "gin_bot" and profile["rating"]["games"] == 1
        assert [m["id"] for m in profile["matches"]] == [match_id] and profile["playing"] == []
        me = await person.me()
        assert me["rating"]["games"] == 0, "a match with a bot never moves a person's rating against people"
        status, mine = await person.request("GET", f"/api/players/{me['id']}")
        assert mine["matches"][0]["opponent_bot"] is True
        for board in ("rating", "today", "rolling"):
            status, lines = await person.request("GET", f"/api/leaderboards/{board}")
            assert status == 200
            ids = {line["id"] for line in lines["lines"]}
            assert bot["id"] not in ids and me["id"] not in ids, (board, lines)
        status, again = await person.request("POST", f"/api/matches/{match_id}/rematch")
        assert status == 400 and "challenge it again" in again["error"]["message"]

    run(body)


def test_a_revoked_token_is_refused_mid_game_and_the_stand_in_plays_on(server: tuple[str, Path]) -> None:
    host, _ = server

    async def body() -> None:
        owner, bot, token = await owner_with_bot(host, "RevokeBot")
        client = BotClient(host, token)
        person = await new_guest(host)
        stream = await client.open("/api/bot/stream")
        await until(stream, "hello")
        made = await challenge(person, bot["id"], target=100)
        await until(stream, "challenge")
        await stream.send(json.dumps({"type": "accept", "challenge": made["id"]}))
        start = await until(stream, "game_start")
        match_id, seat = start["game"]["id"], start["game"]["seat"]
        table = await person.connect(match_id)
        game = await client.open(f"/api/bot/game/{match_id}")
        state = await until(game, "state")
        assert state["match"]["seat"] == seat

        status, _ = await owner.request("DELETE", f"/api/bots/{bot['id']}/token")
        assert status == 200
        for ws in (game, stream):
            error = await until(ws, "error")
            assert error["code"] == "token_revoked" and "revoked" in error["message"], error
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await until(ws, "state", timeout=5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        # Reconnecting with it is refused at once, with the reason.
        again = await client.open(f"/api/bot/game/{match_id}")
        error = await recv(again)
        assert error["type"] == "error" and error["code"] == "invalid_token" and "revoked" in error["message"]
        with pytest.raises(websockets.ConnectionClosed):
            await recv(again, timeout=5)

        # The person's table goes on: the bot's seat is away, then the stand-in robot plays it.
        def bot_seat(message: dict[str, Any]) -> dict[str, Any]:
            player: dict[str, Any] = message["match"]["players"][seat]
            return player

        away = await table.until(lambda m: m["type"] == "state" and not bot_seat(m)["connected"], 10)
        assert bot_seat(away)["bot"] is True
        moved_for_bot = None
        version = away["version"]
        for _ in range(200):
            message = await table.until(lambda m: m["type"] == "state", 15)
            if message["version"] > version and message["view"]["history"]:
                last = message["view"]["history"][-1]
                if last["seat"] == seat:
                    moved_for_bot = message
                    break
            if message["view"]["legal"] and message["version"] >= version:
                version = message["version"]
                await table.act(message["view"]["legal"][0], version=message["version"])
        assert moved_for_bot is not None, "the stand-in played the revoked bot's seat"

    run(body)


def test_a_token_revoked_by_another_server_process_is_refused_within_a_second(
    server: tuple[str, Path],
) -> None:
    host, database = server

    async def body() -> None:
        _, bot, token = await owner_with_bot(host, "ElsewhereBot")
        stream = await BotClient(host, token).open("/api/bot/stream")
        await until(stream, "hello")
        await stream.send('{"type":"ping"}')
        assert (await until(stream, "pong"))["type"] == "pong"
        # Another process revokes it: this one hears nothing, and reads the token again soon.
        with sqlite3.connect(database) as db:
            db.execute("UPDATE bots SET token_hash = NULL WHERE guest_id = ?", (bot["id"],))
        await asyncio.sleep(1.1)
        await stream.send('{"type":"ping"}')
        error = await until(stream, "error")
        assert error["code"] == "token_revoked" and "revoked" in error["message"]
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await until(stream, "pong", timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401

    run(body)


def test_the_rate_limit_per_token_says_when_to_come_back(tmp_path: Path) -> None:
    async def body(host: str) -> None:
        _, _bot, token = await owner_with_bot(host, "FastBot")
        client = BotClient(host, token)
        codes = []
        refused: tuple[Any, dict[str, str]] | None = None
        for _ in range(8):
            status, data, headers = await client.http("GET", "/api/bot/account")
            codes.append(status)
            if status == 429 and refused is None:
                refused = data, headers
        assert codes[:4] == [200] * 4 and refused is not None, codes
        data, headers = refused
        assert data["error"]["code"] == "rate_limited" and "a second" in data["error"]["message"]
        assert int(headers["retry-after"]) >= 1
        await asyncio.sleep(1.2)  # the bucket refills
        stream = await client.open("/api/bot/stream")
        await until(stream, "hello")
        for _ in range(12):
            await stream.send('{"type":"ping"}')
        error = await until(stream, "error")
        assert error["code"] == "rate_limited" and error["retry_after"] > 0
        await stream.close()

    settings = test_settings(tmp_path, bot_rate_per_second=1.0, bot_rate_burst=4)
    with live_server(settings) as host:
        run(lambda: body(host))


def test_bots_stay_out_of_quick_pairing_and_tournaments(tmp_path: Path) -> None:
    async def body() -> None:
        service = GameService(SqlStore(f"sqlite:///{tmp_path / 'db.sqlite3'}"), secret="s" * 32)
        await service.start()
        try:
            owner = await service.guests.new_guest()
            await service.accounts.claim(owner, "Owner_1", PASSWORD)
            bot, _token = await service.bots.create(owner, "PoolBot")
            bot_guest = await service.guests.guest(bot["id"])
            assert bot_guest is not None
            with pytest.raises(Forbidden, match="quick pairing"):
                await service.seeking.seek(bot_guest, {"preset": "classic", "target": 100})
            arena = await service.tournaments.create(owner.id, {"name": "Open", "minutes": 30})
            with pytest.raises(Forbidden, match="tournaments"):
                await arena.join(bot_guest.id, bot_guest.name)
            assert bot_guest.id not in arena.players
            await arena.join(owner.id, owner.name)  # people still may
            assert owner.id in arena.players
        finally:
            await service.close()

    asyncio.run(body())
