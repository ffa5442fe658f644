"""An arena over the real server: players join by link, are paired as matches end, standings are pushed
live, a spectator watches a match and sees no hidden card (every frame scanned), the clock ends it."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from server_helpers import Guest, live_server, new_guest, run, test_settings
from test_leak import Truth, cards_in, greedy_or_random

from ginrummy.rules import loads


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(test_settings(tmp_path_factory.mktemp("arena"), swiss_round_gap=0.5)) as address:
        yield address


def absorb(state: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """The tournament page's state after `message`, as the page's `absorb` builds it: a whole
    state replaces it, a push applies its changes."""
    if not message.get("delta") or state is None:
        return message
    lines = {line["id"]: {k: v for k, v in line.items() if k != "rank"} for line in state["standings"]}
    lines.update(message.get("lines", {}))
    order = message.get("order", [line["id"] for line in state["standings"]])
    return {
        **state,
        "now": message["now"],
        "players_ranked": message["players_ranked"],
        "standings": [{"rank": rank, **lines[guest]} for rank, guest in enumerate(order, start=1)],
        "tournament": message.get("tournament", state["tournament"]),
        "playing": message.get("playing", state["playing"]),
        "me": message["me"] if "me" in message else state["me"],
    }


class Socket:
    """A read-only socket (tournament page or spectator) keeping every frame; a tournament page's
    pushes are applied to its state, and predicates see the state."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: list[str] = []
        self.state: dict[str, Any] | None = None

    @classmethod
    async def open(cls, host: str, path: str, guest: Guest | None = None) -> Socket:
        headers = {"Cookie": f"gr_guest={guest.cookie}"} if guest and guest.cookie else {}
        socket = cls(
            await websockets.connect(f"ws://{host}{path}", additional_headers=headers, max_size=2**22)
        )
        _open.append(socket)
        return socket

    async def until(self, predicate: Any, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            text = await asyncio.wait_for(self.ws.recv(), max(0.01, deadline - time.monotonic()))
            self.frames.append(text)
            message = json.loads(text)
            if message["type"] == "pairing":
                continue  # a player's own page hears of its next match at once; the state follows
            if message["type"] == "tournament":
                message = self.state = absorb(self.state, message)
            if predicate(message):
                return message  # type: ignore[no-any-return]

    async def drain(self) -> None:
        try:
            while True:
                self.frames.append(await asyncio.wait_for(self.ws.recv(), 0.3))
        except (TimeoutError, websockets.ConnectionClosed):
            pass


_open: list[Socket] = []


def run_closing(body: Any) -> None:
    """`run(body)`, closing every read-only socket it opened even when it failed half way."""

    async def closing() -> None:
        try:
            await body()
        finally:
            while _open:
                await _open.pop().ws.close()

    run(closing)


async def play(guest: Guest, match_id: str, rng: random.Random) -> dict[str, Any]:
    """Play one seat of a match to its end; returns the final state."""
    table = await guest.connect(match_id)
    acted = -1
    while True:
        message = await table.recv(timeout=60)
        if message["type"] != "state":
            continue
        if message["match"]["status"] == "over":
            await table.close()
            return message
        if message["view"]["legal"] and message["version"] > acted:
            acted = message["version"]
            await table.act(greedy_or_random(message["view"], rng), version=message["version"])


def scan_spectator(truth: Truth, frames: list[str]) -> int:
    """Every card a spectator frame names was seen by both players at that moment."""
    checked = 0
    for text in frames:
        message = json.loads(text)
        if message["type"] != "spectate":
            continue
        version = message["version"]
        for secret in truth.secrets + truth.hidden[version]:
            assert secret not in text, "a spectator got a secret seed or commitment"
        public = truth.current[version][0] & truth.current[version][1]
        shown = cards_in(message["view"])
        assert shown <= public, f"version {version}: a spectator saw {sorted(shown - public)}"
        last = truth.last[version]
        if message["last_showdown"] is not None:
            assert last is not None and cards_in(message["last_showdown"]) <= last[0] & last[1]
        assert not cards_in(message["match"])
        checked += 1
    return checked


def test_an_arena_by_link_pairs_players_pushes_standings_and_spectators_see_only_public_cards(
    host: str,
) -> None:
    async def body() -> None:
        rng = random.Random(11)
        ann, bob, cy = [await new_guest(host) for _ in range(3)]
        status, made = await ann.request(
            "POST",
            "/api/tournaments",
            {
                "name": "Test arena",
                "minutes": 2,
                "rules": {"preset": "classic", "target": 25},
                "robots": True,
                "rated": True,
            },
        )
        assert status == 200 and made["url"] == f"/t/{made['id']}" and made["listed"] is False
        tid = made["id"]
        status, data = await ann.request("GET", "/api/tournaments")
        assert tid not in [t["id"] for t in data["tournaments"]]  # private: by link only
        page = await Socket.open(host, f"/ws/t/{tid}")
        first = await page.until(lambda m: m["type"] == "tournament")
        assert first["standings"] == [] and first["me"] is None
        for guest in (ann, bob, cy):
            status, state = await guest.request("POST", f"/api/tournaments/{tid}/join")
            assert status == 200 and state["me"]["joined"] is True
        # Two people are paired at once; the third plays a robot after a short wait.
        paired = await page.until(lambda m: len([p for p in m["playing"]]) == 2, timeout=30)
        matches = {p["id"]: p for p in paired["playing"]}
        mine = {}
        for guest in (ann, bob, cy):
            status, state = await guest.request("GET", f"/api/tournaments/{tid}")
            mine[guest] = state["me"]["match_id"]
        assert set(mine.values()) == set(matches) and len([g for g in mine if mine[g]]) == 3
        human_match = next(m for m in matches if list(mine.values()).count(m) == 2)
        spectator = await Socket.open(host, f"/ws/watch/{human_match}")
        results = await asyncio.gather(*(play(g, mine[g], rng) for g in (ann, bob, cy)))
        assert all(r["match"]["tournament_id"] == tid for r in results)
        assert {r["match"]["rated"] for r in results if r["match"]["id"] == human_match} == {True}
        # Standings are pushed as the matches end: two matches, three players.
        standing = await page.until(lambda m: sum(line["played"] for line in m["standings"]) >= 3, timeout=30)
        assert {line["name"] for line in standing["standings"]} == {
            (await g.me())["name"] for g in (ann, bob, cy)
        }
        assert standing["standings"][0]["score"] >= 2
        await spectator.drain()
        # The spectator's frames against the truth rebuilt from the finished match.
        status, replay = await ann.request("GET", f"/api/matches/{human_match}/replay")
        assert status == 200
        truth = Truth.of(loads(json.dumps(replay["record"])))
        # Every frame is checked; how many there are depends on how fast the match went.
        assert scan_spectator(truth, spectator.frames) >= 1
        # Pairing goes on: players who finished are paired again.
        again = await page.until(
            lambda m: len(m["playing"]) >= 1 and not set(p["id"] for p in m["playing"]) & set(matches),
            timeout=30,
        )
        assert again["tournament"]["status"] == "started"
        status, left = await cy.request("POST", f"/api/tournaments/{tid}/withdraw")
        assert status == 200 and left["me"]["joined"] is False
        await page.ws.close()
        await spectator.ws.close()

    run_closing(body)


def test_a_swiss_by_link_plays_its_rounds_without_rematches_and_names_a_winner(host: str) -> None:
    async def body() -> None:
        rng = random.Random(12)
        ann, bob, cy = [await new_guest(host) for _ in range(3)]
        status, made = await ann.request(
            "POST",
            "/api/tournaments",
            {
                "format": "swiss",
                "name": "Test Swiss",
                "rounds": 2,
                "starts_in": 0.05,  # three seconds: time for everyone to join
                "rules": {"preset": "classic", "target": 25},
                "robots": True,
            },
        )
        assert status == 200 and made["format"] == "swiss" and made["rounds"] == 2 and made["round"] == 0
        tid = made["id"]
        page = await Socket.open(host, f"/ws/t/{tid}")
        for guest in (ann, bob, cy):
            status, state = await guest.request("POST", f"/api/tournaments/{tid}/join")
            assert status == 200 and state["me"]["joined"] is True
        opponents: dict[str, list[str | None]] = {}
        played: set[str] = set()
        for number in (1, 2):
            # Three players: one pair of people, and the odd one out plays a robot (not the same twice).
            paired = await page.until(
                lambda m, n=number: m["tournament"]["round"] == n and len(m["playing"]) == 2, timeout=60
            )
            matches = {p["id"]: p for p in paired["playing"]}
            assert not set(matches) & played
            played |= set(matches)
            mine = {}
            for guest in (ann, bob, cy):
                status, state = await guest.request("GET", f"/api/tournaments/{tid}")
                mine[guest] = state["me"]["match_id"]
            assert set(mine.values()) == set(matches)
            results = await asyncio.gather(*(play(g, mine[g], rng) for g in (ann, bob, cy)))
            for guest, result in zip((ann, bob, cy), results, strict=True):
                assert result["match"]["tournament_id"] == tid
                me = (await guest.me())["name"]
                (other,) = [p for p in result["match"]["players"] if p["name"] != me]
                opponents.setdefault(me, []).append(None if other["kind"] == "robot" else other["name"])
        for faced in opponents.values():
            assert len(faced) == 2 and faced[0] != faced[1]  # no rematch, no second robot
        over = await page.until(lambda m: m["tournament"]["status"] == "finished", timeout=60)
        lines = over["standings"]
        assert len(lines) == 3 and all(len(line["sheet"]) == 2 for line in lines)
        # Each round: the pair's point goes to one of them (or halves), the robot's match to its player or nobody.
        assert 2.0 <= sum(line["score"] for line in lines) <= 4.0
        assert [line["score"] for line in lines] == sorted((line["score"] for line in lines), reverse=True)
        assert over["tournament"]["winner"]["id"] == lines[0]["id"]
        assert all("buchholz" in line and "sonneborn_berger" in line for line in lines)
        # Joining a finished tournament is refused.
        late = await new_guest(host)
        status, data = await late.request("POST", f"/api/tournaments/{tid}/join")
        assert status == 403 and "over" in data["error"]["message"]

    run_closing(body)


def test_a_rated_tournament_match_ends_with_its_rating_changes_and_has_no_rematch(host: str) -> None:
    async def body() -> None:
        ann, bob = await new_guest(host), await new_guest(host)
        status, made = await ann.request(
            "POST",
            "/api/tournaments",
            {"format": "swiss", "name": "One round", "rounds": 1, "starts_in": 0.05, "robots": False},
        )
        assert status == 200 and made["rated"] is True
        tid = made["id"]
        page = await Socket.open(host, f"/ws/t/{tid}")
        for guest in (ann, bob):
            status, _ = await guest.request("POST", f"/api/tournaments/{tid}/join")
            assert status == 200
        paired = await page.until(lambda m: len(m["playing"]) == 1, timeout=60)
        match_id = paired["playing"][0]["id"]
        await decide(ann, bob, match_id, bob)
        table = await ann.connect(match_id)
        over = await table.until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
        await table.close()
        seat = over["match"]["seat"]
        changes = over["match"]["ratings"]
        assert changes[seat]["change"] > 0 > changes[1 - seat]["change"]
        assert changes[seat]["rating"] == (await ann.me())["rating"]["rating"]
        # A rematch inside a tournament makes no sense: the tournament pairs the next match.
        status, data = await ann.request("POST", f"/api/matches/{match_id}/rematch")
        assert status == 400 and "tournament match has no rematch" in data["error"]["message"]
        status, mine = await ann.request("GET", "/api/matches")
        assert status == 200 and [m["id"] for m in mine["matches"]] == [match_id]  # no match made
        await page.ws.close()

    run_closing(body)


def test_a_tournament_starts_at_a_chosen_time_in_utc_not_in_the_past_nor_too_far_ahead(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        at = time.time() + 5 * 86400 + 0.5  # the page sends its local date and time as UTC seconds
        status, made = await guest.request("POST", "/api/tournaments", {"starts_at": at, "minutes": 45})
        assert status == 200 and made["starts_at"] == at and made["ends_at"] == at + 45 * 60
        status, data = await guest.request("GET", f"/api/tournaments/{made['id']}")
        assert status == 200 and data["tournament"]["status"] == "created"
        # A moment ago (the form took a while): it starts now.
        status, made = await guest.request("POST", "/api/tournaments", {"starts_at": time.time() - 5})
        assert status == 200 and made["starts_at"] >= time.time() - 5
        for bad, reason in (
            ({"starts_at": time.time() - 3600}, "in the past"),
            ({"starts_at": time.time() + 31 * 86400}, "more than 30 days ahead"),
            ({"starts_at": "tomorrow"}, "unix seconds"),
            ({"starts_at": True}, "unix seconds"),
            ({"starts_at": time.time() + 60, "starts_in": 5}, "not both"),
            ({"starts_in": 31 * 24 * 60}, "starts_in must be"),
        ):
            status, data = await guest.request("POST", "/api/tournaments", bad)
            assert status == 400 and reason in data["error"]["message"], (bad, data)

    run_closing(body)


def test_one_person_may_have_only_a_few_tournaments_open(host: str) -> None:
    async def body() -> None:
        maker = await new_guest(host)
        made = []
        for n in range(3):  # the default cap (GINRUMMY_OPEN_TOURNAMENTS)
            status, data = await maker.request(
                "POST", "/api/tournaments", {"name": f"Mine {n}", "starts_in": 60}
            )
            assert status == 200, data
            made.append(data["id"])
        status, data = await maker.request(
            "POST", "/api/tournaments", {"name": "One too many", "starts_in": 60}
        )
        assert status == 403 and "3 at a time" in data["error"]["message"], data
        status, data = await maker.request("GET", "/api/tournaments/" + made[0])
        assert status == 200  # what was made before stays
        # Somebody else is not held back by it.
        other = await new_guest(host)
        status, data = await other.request("POST", "/api/tournaments", {"name": "Theirs", "starts_in": 60})
        assert status == 200, data

    run_closing(body)


def test_one_address_may_make_only_a_few_tournaments_an_hour_whoever_makes_them(tmp_path: Any) -> None:
    """New guests cost nothing, so the cap per creator is backed by a budget per address."""
    settings = test_settings(tmp_path, tournaments_per_hour=2, forwarded_allow_ips=("127.0.0.1",))

    async def body(host: str) -> None:
        refused = Guest(host, address="203.0.113.5")
        status, data = await refused.request("POST", "/api/tournaments", {"name": "\u202eBad"})
        assert status == 400  # refused: it does not count
        for n in range(2):
            maker = Guest(host, address="203.0.113.5")  # a fresh guest each time
            status, data = await maker.request(
                "POST", "/api/tournaments", {"name": f"Spam {n}", "starts_in": 60, "listed": True}
            )
            assert status == 200, data
        status, data = await Guest(host, address="203.0.113.5").request(
            "POST", "/api/tournaments", {"name": "Spam 2", "listed": True}
        )
        assert status == 429 and "2 tournaments an hour" in data["error"]["message"], data
        status, data = await Guest(host, address="198.51.100.5").request(
            "POST", "/api/tournaments", {"name": "Other", "listed": True}
        )
        assert status == 200, data
        status, data = await refused.request("GET", "/api/tournaments")
        assert sorted(t["name"] for t in data["tournaments"] if not t["id"].startswith("daily-")) == [
            "Other",
            "Spam 0",
            "Spam 1",
        ]

    with live_server(settings) as host:
        run_closing(lambda: body(host))


def test_bad_tournaments_are_refused(host: str) -> None:
    async def body() -> None:
        guest = await new_guest(host)
        for bad, reason in (
            ({"format": "knockout"}, "format must be"),
            ({"format": "swiss", "rounds": 0}, "rounds must be"),
            ({"format": "swiss", "rounds": 2.5}, "whole number"),
            ({"minutes": 0}, "minutes must be"),
            ({"name": ""}, "1 to 40"),
            ({"rated": "yes"}, "rated must be"),
            ({"rules": "chess"}, "bad rules"),
            # Control and bidi characters, as account names refuse them (one validator for both).
            ({"name": "Cup\u0000"}, "U+0000"),
            ({"name": "\u202eCup of the week"}, "U+202E"),
            ({"name": "Cup\u2066 of\u2069"}, "U+2066"),
            ({"name": "\u3164"}, "U+3164"),
        ):
            status, data = await guest.request("POST", "/api/tournaments", bad)
            assert status == 400 and reason in data["error"]["message"], data
        assert [
            t
            for t in (await guest.request("GET", "/api/tournaments"))[1]["tournaments"]
            if t["name"] == "Cup"
        ] == []
        status, data = await guest.request("GET", "/api/tournaments/nope")
        assert status == 404

    run_closing(body)


def test_sigkill_mid_tournament_loses_no_result_and_pairing_resumes(tmp_path: Any) -> None:
    from test_restart import _free_port, serve

    port = _free_port()
    host = f"127.0.0.1:{port}"

    async def before_kill() -> tuple[str, list[str], str]:
        rng = random.Random(4)
        ann, bob = await new_guest(host), await new_guest(host)
        status, made = await ann.request(
            "POST",
            "/api/tournaments",
            {"minutes": 10, "rules": {"preset": "classic", "target": 25}, "robots": False},
        )
        assert status == 200
        tid = made["id"]
        for guest in (ann, bob):
            assert (await guest.request("POST", f"/api/tournaments/{tid}/join"))[0] == 200
        page = await Socket.open(host, f"/ws/t/{tid}")
        first = await page.until(lambda m: len(m["playing"]) == 1, timeout=30)
        match_id = first["playing"][0]["id"]
        await asyncio.gather(play(ann, match_id, rng), play(bob, match_id, rng))
        # The match's result is in the standings, and the two are paired again at once.
        second = await page.until(
            lambda m: len(m["playing"]) == 1 and m["playing"][0]["id"] != match_id, timeout=30
        )
        assert sum(line["played"] for line in second["standings"]) == 2
        await page.ws.close()
        return tid, [str(ann.cookie), str(bob.cookie)], second["playing"][0]["id"]

    with serve(tmp_path, port) as process:
        tid, cookies, running = run(before_kill)
        while _open:
            _open.pop()  # closed by before_kill itself
        process.send_signal(9)  # SIGKILL: no shutdown code runs
        process.wait(timeout=30)

    async def after_restart() -> None:
        rng = random.Random(5)
        ann, bob = Guest(host, cookies[0]), Guest(host, cookies[1])
        status, state = await ann.request("GET", f"/api/tournaments/{tid}")
        assert status == 200 and state["tournament"]["status"] == "started"
        assert sum(line["played"] for line in state["standings"]) == 2  # no result lost
        assert state["me"]["match_id"] == running  # the match being played is still theirs
        page = await Socket.open(host, f"/ws/t/{tid}")
        await asyncio.gather(play(ann, running, rng), play(bob, running, rng))
        resumed = await page.until(
            lambda m: (
                sum(line["played"] for line in m["standings"]) == 4
                and len(m["playing"]) == 1
                and m["playing"][0]["id"] != running
            ),
            timeout=30,
        )
        assert resumed["tournament"]["status"] == "started"  # and pairing goes on after the restart
        await page.ws.close()

    with serve(tmp_path, port):
        run_closing(after_restart)


async def decide(a: Guest, b: Guest, match_id: str, loser: Guest | None, *, moves: int = 0) -> None:
    """`a` and `b` play `match_id` until both have moved and `moves` more moves are made, then
    `loser` resigns (a decided result at once); with `loser` None the match is left being played."""
    tables = [await a.connect(match_id), await b.connect(match_id)]
    for table in tables:
        await table.until(lambda m: m["type"] == "state")
    made = 0
    while True:
        version = max(t.state["version"] for t in tables if t.state is not None)
        states = [await t.state_at_least(version) for t in tables]
        if not states[0]["match"]["abortable"]:  # both have moved
            if made >= moves:
                break
            made += 1
        seat = next(i for i, state in enumerate(states) if state["view"]["legal"])
        await tables[seat].act(states[seat]["view"]["legal"][0], version=states[seat]["version"])
        for table in tables:
            await table.state_at_least(version + 1)
    if loser is not None:
        table = tables[0 if loser is a else 1]
        await table.send({"type": "resign"})
        await table.until(lambda m: m["type"] == "state" and m["match"]["status"] == "over")
    for table in tables:
        await table.close()


@pytest.mark.slow  # two server processes started one after the other: about a minute on a loaded machine
def test_sigkill_mid_swiss_round_loses_no_result_and_the_next_round_is_paired(tmp_path: Any) -> None:
    from test_restart import _free_port, serve

    port = _free_port()
    host = f"127.0.0.1:{port}"
    fast = {"GINRUMMY_SWISS_ROUND_GAP": "0.5"}

    async def before_kill() -> tuple[str, list[str], str]:
        guests = [await new_guest(host) for _ in range(4)]
        body = {"format": "swiss", "rounds": 2, "starts_in": 0.05, "robots": False}
        status, made = await guests[0].request("POST", "/api/tournaments", body)
        assert status == 200
        tid = made["id"]
        for guest in guests:
            assert (await guest.request("POST", f"/api/tournaments/{tid}/join"))[0] == 200
        page = await Socket.open(host, f"/ws/t/{tid}")
        paired = await page.until(lambda m: m["tournament"]["round"] == 1 and len(m["playing"]) == 2)
        mine = {}
        for guest in guests:
            mine[guest] = (await guest.request("GET", f"/api/tournaments/{tid}"))[1]["me"]["match_id"]
        first, second = (p["id"] for p in paired["playing"])
        a, b = [g for g in guests if mine[g] == first]
        c, d = [g for g in guests if mine[g] == second]
        await decide(a, b, first, loser=b)  # over: a's point is stored
        await page.until(lambda m: sum(line["played"] for line in m["standings"]) == 2)
        await decide(c, d, second, loser=None, moves=2)  # still being played when the server dies
        await page.ws.close()
        return tid, [str(g.cookie) for g in (a, b, c, d)], second

    with serve(tmp_path, port, fast) as process:
        tid, cookies, running = run(before_kill)
        while _open:
            _open.pop()  # closed by before_kill itself
        process.send_signal(9)  # SIGKILL: no shutdown code runs
        process.wait(timeout=30)

    async def after_restart() -> None:
        a, b, c, d = (Guest(host, cookie) for cookie in cookies)
        ids = {g: (await g.me())["id"] for g in (a, b, c, d)}
        status, state = await a.request("GET", f"/api/tournaments/{tid}")
        assert status == 200 and state["tournament"]["status"] == "started"
        assert state["tournament"]["round"] == 1
        lines = {line["id"]: line for line in state["standings"]}
        assert lines[ids[a]]["score"] == 1 and lines[ids[a]]["sheet"] == ["1"]  # no result lost
        assert lines[ids[b]]["sheet"] == ["0"] and lines[ids[c]]["sheet"] == ["*"]
        assert (await c.request("GET", f"/api/tournaments/{tid}"))[1]["me"]["match_id"] == running
        page = await Socket.open(host, f"/ws/t/{tid}")
        await decide(c, d, running, loser=c)
        # The round is over: the next one is paired after the gap, and nobody meets again.
        second = await page.until(lambda m: m["tournament"]["round"] == 2 and len(m["playing"]) == 2)
        assert sum(line["played"] for line in second["standings"]) == 4
        now = {g: (await g.request("GET", f"/api/tournaments/{tid}"))[1]["me"]["match_id"] for g in ids}
        assert now[a] != now[b] and now[c] != now[d] and len(set(now.values())) == 2
        await page.ws.close()

    with serve(tmp_path, port, fast):
        run_closing(after_restart)
