"""The live games list over the real server: public matches only (quick pairing, not robot matches
nor rooms of friends), highest rated first, with names, ratings, score, game and spectators and
nothing else; a player's profile links to the match they play; the watch page's socket says how
many watch and each seat's clock."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import pytest
from server_helpers import Guest, live_server, new_guest, test_settings
from test_leak import cards_in
from test_online import both_move
from test_tournament import Socket, run_closing

#: Every key a live games answer may hold: public facts only (no hand, stock, seed, commitment).
PUBLIC_KEYS = {
    *("games", "id", "watch", "game", "kind", "rated", "tournament", "target", "hand_number"),
    *("scores", "to_act", "players", "rating", "spectators"),
    *("seat", "name", "level", "bot", "guest", "provisional"),
}


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(test_settings(tmp_path_factory.mktemp("live"))) as address:
        yield address


def keys_in(value: Any) -> set[str]:
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


async def pair(a: Guest, b: Guest, *, rated: bool) -> str:
    """Both seek in the same pool until paired (ratings apart take a few seconds to meet)."""
    choice = {"preset": "classic", "target": 100, "rated": rated}
    for guest in (a, b):
        status, data = await guest.request("POST", "/api/pool", choice)
        assert status == 200 and data["state"] == "waiting", data
    news = [None, None]
    while not all(news):
        got = await asyncio.gather(*(g.request("GET", "/api/pool?wait=5") for g in (a, b)))
        for i, (status, data) in enumerate(got):
            assert status == 200, data
            if data["state"] == "paired":
                news[i] = data["match_id"]
    assert news[0] == news[1]
    return str(news[0])


async def live(guest: Guest, query: str = "") -> list[dict[str, Any]]:
    status, data = await guest.request("GET", f"/api/live{query}")
    assert status == 200, data
    games: list[dict[str, Any]] = data["games"]
    return games


def test_the_live_games_list_is_public_matches_highest_rated_first_with_public_facts_only(host: str) -> None:
    async def body() -> None:
        rng = random.Random(26)
        ann, bob, cy, dee, eve, fay = [await new_guest(host) for _ in range(6)]
        # A rated match ann resigns once both have moved: bob is rated above 1500, ann below.
        first = await pair(ann, bob, rated=True)
        tables = [await ann.connect(first), await bob.connect(first)]
        for table in tables:
            await table.until(lambda m: m["type"] == "state")
        assert [g["id"] for g in await live(ann)] == [first]
        await both_move(tables, rng)
        await tables[0].send({"type": "resign"})
        await tables[1].until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        for table in tables:
            await table.close()
        assert await live(ann) == []  # over: off the list
        bob_rating = (await bob.me())["rating"]["rating"]
        ann_rating = (await ann.me())["rating"]["rating"]
        assert bob_rating > 1500 > ann_rating

        # Two public matches at once: bob's (the higher mean rating) and ann's; and two private
        # ones: a robot match and a room of friends, never listed.
        high = await pair(bob, cy, rated=False)
        low = await pair(ann, dee, rated=True)
        robot = await eve.robot_match()
        room = await eve.room()
        status, _ = await fay.join(room["code"])
        assert status == 200
        tables = [await g.connect(m) for g, m in ((bob, high), (cy, high), (ann, low), (dee, low))]
        for table in tables:
            await table.until(lambda m: m["type"] == "state")
        spectator = await Socket.open(host, f"/ws/watch/{high}")
        watched = await spectator.until(lambda m: m["type"] == "spectate")
        assert watched["match"]["spectators"] == 1
        # Both clocks: the turn's time, and the running clock of the one seat to act.
        deadlines = watched["match"]["turn_deadlines"]
        assert watched["match"]["turn_seconds"] > 0 and len(deadlines) == 2
        assert [d is not None for d in deadlines] == [s == watched["view"]["to_act"] for s in (0, 1)]

        games = await live(ann)
        assert [g["id"] for g in games] == [high, low]
        assert robot not in {g["id"] for g in games} and room["match_id"] not in {g["id"] for g in games}
        top = games[0]
        names = {(await g.me())["id"]: (await g.me())["name"] for g in (bob, cy)}
        assert {p["id"]: p["name"] for p in top["players"]} == names
        assert all(p["guest"] is True for p in top["players"])  # guests without an account, marked so
        assert {p["id"]: p["rating"] for p in top["players"]} == {
            (await bob.me())["id"]: bob_rating,
            (await cy.me())["id"]: 1500,
        }
        assert top["rating"] == round((bob_rating + 1500) / 2) > games[1]["rating"]
        assert top["watch"] == f"/watch/{high}" and top["game"] == "gin" and top["kind"] == "online"
        assert top["rated"] is False and games[1]["rated"] is True and top["tournament"] is None
        assert top["scores"] == [0, 0] and top["target"] == 100 and top["hand_number"] == 1
        assert top["spectators"] == 1 and games[1]["spectators"] == 0
        # Public facts only: no card anywhere, and no key beyond the public ones.
        assert not cards_in(games) and keys_in({"games": games}) <= PUBLIC_KEYS
        assert [g["id"] for g in await live(ann, "?limit=1")] == [high]  # the home page's featured match
        for bad in ("0", "51", "x"):
            status, data = await ann.request("GET", f"/api/live?limit={bad}")
            assert status == 400 and "limit" in data["error"]["message"], data

        # The profile of a player in a public match links to it; a robot match is not shown.
        status, profile = await bob.request("GET", f"/api/players/{(await bob.me())['id']}")
        assert status == 200 and profile["playing"] == [{"id": high, "watch": f"/watch/{high}"}]
        status, profile = await eve.request("GET", f"/api/players/{(await eve.me())['id']}")
        assert status == 200 and profile["playing"] == []

        # A second spectator: every spectator hears the count.
        other = await Socket.open(host, f"/ws/watch/{high}")
        await other.until(lambda m: m["type"] == "spectate")
        await spectator.until(lambda m: m["type"] == "spectate" and m["match"]["spectators"] == 2)
        await other.ws.close()
        await spectator.until(lambda m: m["type"] == "spectate" and m["match"]["spectators"] == 1)
        await spectator.ws.close()
        # The match aborted before both moved is over: the list has the other one only.
        await tables[0].send({"type": "abort"})
        await tables[1].until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        assert [g["id"] for g in await live(ann)] == [low]

    run_closing(body)
