"""Fair play in rated play (service/fairplay.py) through the real service and store: players of one
address kept apart by the pool and by rated tournaments, a match given up before both players
moved themselves aborted unrated, and arranged-looking results recorded and listed by
`ginrummy fair-play`."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from test_leaderboards import MIDNIGHT, Clock, db_url, people  # noqa: F401  (db_url: a fixture)
from typer.testing import CliRunner

from ginrummy.cli import app, load_commands
from ginrummy.service import GameService, GuestRow, LiveMatch
from ginrummy.service.errors import SameAddress
from ginrummy.service.fairplay import ONE_SIDED, QUICK_LOSS, SERIES
from ginrummy.storage import SqlStore

load_commands()

HOME = "203.0.113.7"  # one household's address
ELSEWHERE = "198.51.100.20"
RATED = {"preset": "classic", "target": 500, "rated": True}


def run(url: str, body: Callable[[GameService], Awaitable[Any]], clock: Clock, **config: Any) -> Any:
    """`body` with a started service on `url`: its pairing waves are the test's own (`pool.wave()`)."""

    async def main() -> Any:
        service = GameService(SqlStore(url), clock=clock, secret="s" * 32)
        service.config = dataclasses.replace(
            service.config, pairing_interval=3600.0, robot_delay=0.0, **config
        )
        await service.start()
        try:
            return await body(service)
        finally:
            await service.close()

    return asyncio.run(main())


class Socket:
    """A table socket that keeps nothing: it makes its seat count as present."""

    def send_text(self, text: str) -> None:
        pass


async def pair(
    service: GameService,
    first: GuestRow,
    second: GuestRow,
    body: dict[str, Any],
    addresses: tuple[str, str] = (HOME, ELSEWHERE),
) -> LiveMatch:
    """`first` and `second` seek (from `addresses`) long enough to accept any rating gap, and are
    paired by a wave: their live match."""
    for _ in range(2):  # the second time a minute later: still waiting, ranges wide
        await service.seeking.seek(first, body, addresses[0])
        await service.seeking.seek(second, body, addresses[1])
        service.clock.now += 60  # type: ignore[attr-defined]
    service.clock.now -= 55  # type: ignore[attr-defined]  # seen 5 s ago: not stale
    assert await service.pool.wave() == 1
    match_id = service.pool.by_guest[first.id].match_id
    assert match_id is not None and service.pool.by_guest[second.id].match_id == match_id
    live = await service.get_live(match_id)
    assert live is not None and live.rated == body["rated"]
    return live


async def real_move(live: LiveMatch) -> int:
    """The seat to act makes a move itself (the first legal one); returns that seat."""
    seat = live.match.seats_to_act[0]
    assert await live.act(seat, live.match.legal_actions(seat)[0].to_json(), live.version) is None
    return seat


def test_the_rated_pool_never_pairs_two_seekers_of_one_address(db_url: str) -> None:  # noqa: F811
    async def body(service: GameService) -> None:
        ann, bob, cy, dee, eve = await people(service, "Ann", "Bob", "Cy", "Dee", "Eve")
        # Two identities of one household wait in the rated pool: wave after wave, no pairing.
        for guest in (ann, bob):
            assert (await service.seeking.seek(guest, RATED, HOME))["state"] == "waiting"
        for _ in range(3):
            assert await service.pool.wave() == 0
        assert {service.pool.status(service.pool.by_guest[g.id])["state"] for g in (ann, bob)} == {"waiting"}
        # Somebody of another address is paired with one of them at once.
        await service.seeking.seek(cy, RATED, ELSEWHERE)
        assert await service.pool.wave() == 1
        partner = next(g for g in (ann, bob) if service.pool.by_guest[g.id].match_id is not None)
        assert service.pool.by_guest[cy.id].match_id == service.pool.by_guest[partner.id].match_id
        # A casual pool pairs players of one address (nothing is at stake).
        casual = {**RATED, "rated": False}
        await service.seeking.seek(dee, casual, HOME)
        await service.seeking.seek(eve, casual, HOME)
        assert await service.pool.wave() == 1
        # A shared network the operator allows (GINRUMMY_RATED_SAME_ADDRESS): the household meets.
        service.fairplay.rated_same_address = True
        left = bob if partner is ann else ann
        await service.seeking.seek(dee, RATED, HOME)
        assert await service.pool.wave() == 1
        assert service.pool.by_guest[left.id].match_id == service.pool.by_guest[dee.id].match_id
        # Each entered rated play from its address: remembered, so the two are linked.
        assert await service.store.shared_addresses(ann.id, bob.id) == [HOME]
        assert await service.store.shared_addresses(ann.id, cy.id) == []

    run(db_url, body, Clock(MIDNIGHT))


def test_a_rated_tournament_refuses_a_second_player_from_one_address(db_url: str) -> None:  # noqa: F811
    async def body(service: GameService) -> None:
        ann, bob, cy = await people(service, "Ann", "Bob", "Cy")
        options = {"minutes": 30, "starts_in": 5, "rules": {"preset": "classic", "target": 25}}
        rated = await service.tournaments.create(ann.id, {**options, "rated": True})
        await service.tournaments.act(rated.id, "join", ann, HOME)
        with pytest.raises(SameAddress) as refused:
            await service.tournaments.act(rated.id, "join", bob, HOME)
        assert refused.value.status == 403 and refused.value.code == "same_address"
        assert (
            "another player of this rated tournament plays from your network address" in refused.value.message
        )
        assert set(rated.players) == {ann.id}  # the refusal changed nothing
        await service.tournaments.act(rated.id, "join", ann, HOME)  # coming back is no second player
        await service.tournaments.act(rated.id, "join", cy, ELSEWHERE)
        assert set(rated.players) == {ann.id, cy.id}
        # A casual tournament takes both.
        casual = await service.tournaments.create(ann.id, {**options, "rated": False})
        for guest in (ann, bob):
            await service.tournaments.act(casual.id, "join", guest, HOME)
        assert set(casual.players) == {ann.id, bob.id}

    run(db_url, body, Clock(MIDNIGHT))


def test_giving_up_before_both_moved_themselves_is_aborted_unrated(db_url: str) -> None:  # noqa: F811
    async def body(service: GameService) -> None:
        ann, bob, cy, dee = await people(service, "Ann", "Bob", "Cy", "Dee")
        # Resigning before anyone moved: aborted, no rating.
        live = await pair(service, ann, bob, RATED)
        assert live.state(0)["match"]["abortable"] is True
        assert await live.resign(0) is None
        assert live.ending is not None
        assert (live.ending["ended"], live.ending["winner"], live.ending["rated"]) == ("aborted", None, False)
        assert live.ending["moves"] == [0, 0]

        # One player moves; the other's turn clock runs out and the stand-in moves for it: that is
        # no move of its own, so resigning now still aborts, unrated.
        live = await pair(service, cy, dee, RATED)
        for seat in (0, 1):
            live.connect(seat, Socket())
        mover = await real_move(live)
        idle = 1 - mover
        for _ in range(2000):  # the stand-in moves once the (short) clock has run out
            if any(step.seat == idle for hand in live.match.hands for step in hand.steps):
                break
            await asyncio.sleep(0.005)
        else:
            raise AssertionError("the stand-in never moved for the idle player")
        assert live.log.played[idle] == 0 and live.state(mover)["match"]["abortable"] is True
        assert await live.resign(mover) is None
        assert live.ending is not None
        assert (live.ending["ended"], live.ending["winner"], live.ending["rated"]) == ("aborted", None, False)
        assert live.ending["moves"][idle] == 0 and live.ending["moves"][mover] >= 1

        # After a restart the stored log still tells the stand-in's moves from the player's own.
        row = await service.store.get_match(live.id)
        assert row is not None
        service.live.pop(live.id)
        rebuilt = await service.get_live(live.id)
        assert rebuilt is not None and rebuilt.log.played == live.log.played

        # Nobody's rating, board or statistics moved; the profile lists the match as aborted.
        assert await service.store.get_ratings([g.id for g in (ann, bob, cy, dee)], "gin") == {}
        profile = await service.history.profile(cy.id)
        assert profile["stats"]["matches"] == 0
        assert [m["outcome"] for m in profile["matches"]] == ["aborted"]

    # A short turn clock (real seconds: the test's clock stands still, the timer does not).
    run(db_url, body, Clock(MIDNIGHT), online_turn_seconds=0.05)


def test_quick_losses_between_linked_players_and_one_sided_series_are_listed_for_the_operator(
    db_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    async def body(service: GameService) -> list[str]:
        ann, bob, cy, dee = await people(service, "Ann", "Bob", "Cy", "Dee")
        service.fairplay.rated_same_address = True  # a shared network: they meet, and are recorded
        matches = []
        for _ in range(SERIES):
            # Bob resigns to Ann as soon as both have moved once: both entered from HOME.
            live = await pair(service, ann, bob, RATED, (HOME, HOME))
            while not (live.moved(0) and live.moved(1)):
                await real_move(live)
            assert await live.resign(live.seat_of(bob.id) or 0) is None
            assert (
                live.ending is not None
                and live.ending["ended"] == "resigned"
                and live.ending["rated"] is True
            )
            matches.append(live.id)
            await service.fairplay.settled()
        # A fair resignation between strangers of two addresses after a long match: no record.
        live = await pair(service, cy, dee, RATED)
        while sum(live.log.played) < 12:
            await real_move(live)
        assert await live.resign(0) is None
        await service.fairplay.settled()

        ratings = await service.store.get_ratings([ann.id, bob.id], "gin")
        assert ratings[ann.id].rating > 1500 > ratings[bob.id].rating  # the results counted
        flags = await service.store.flags(100)
        assert sorted((f.kind, f.match_id) for f in flags) == sorted(
            [(QUICK_LOSS, m) for m in matches] + [(ONE_SIDED, matches[-1])]
        )
        assert all((f.winner_id, f.loser_id) == (ann.id, bob.id) for f in flags)
        quick = next(f for f in flags if f.kind == QUICK_LOSS)
        assert quick.evidence["addresses"] == [HOME] and quick.evidence["ended"] == "resigned"
        assert sum(quick.evidence["moves"]) < 10
        pairs = await service.fairplay.suspicious_pairs()
        assert [(p.first, p.second, len(p.flags)) for p in pairs] == [(*sorted((ann.id, bob.id)), SERIES + 1)]
        return matches

    matches = run(db_url, body, Clock(MIDNIGHT))

    # The operator's command, on the same database.
    runner = CliRunner()
    env = {"DATABASE_URL": db_url, "GINRUMMY_DATA_DIR": str(tmp_path)}
    result = runner.invoke(app, ["fair-play"], env=env)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "1 pair(s) of players with suspicious rated results" in out
    assert f"Ann (guest id-ann-0000) and Bob (guest id-bob-0000): {SERIES + 1} record(s)" in out
    assert all(f"match {m}" in out for m in matches)
    assert "Bob resigned to Ann after" in out and f"both entered rated play from {HOME}" in out
    assert f"Ann won {SERIES} of the {SERIES} rated matches against Bob within 30 days" in out
    # Names as the report prints them ("Cy (guest …"): a match id may hold the letters "Cy" too.
    assert "Cy (" not in out and "Dee (" not in out
    listed = json.loads(runner.invoke(app, ["fair-play", "--json"], env=env).output)
    assert [sorted(p["name"] for p in pair["players"]) for pair in listed] == [["Ann", "Bob"]]
    assert {r["kind"] for r in listed[0]["records"]} == {QUICK_LOSS, ONE_SIDED}
