"""The coach at the table, through the service: hints in casual matches (never in rated or tournament ones),
and replay analysis (queued, made in the background from each person's own view, stored once, remade
after a restart)."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from test_service_clock import FakeSocket

from ginrummy.bots import ExpertPlayer, make_player, suggest
from ginrummy.bots.review import ENGINE, THRESHOLDS
from ginrummy.rules import Discard, Knock, Match, Rules, View
from ginrummy.service import GameService, LiveMatch, NotFinished, NotFound, ServiceConfig
from ginrummy.service.analysis import fresh_match
from ginrummy.service.live import HINT_BURST
from ginrummy.service.ports import GuestRow, MatchRow, SeatRow
from ginrummy.storage import SqlStore

SHORT = Rules.preset("classic").replace(target=25).to_json()  # a match of a hand or two


class Clock:
    """A clock the test moves by hand (the hint allowance refills with time)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def service_on(path: Path, clock: Clock | None = None) -> GameService:
    config = ServiceConfig(robot_delay=0.0, grace_seconds=30.0, min_turn_seconds=0.05)
    return GameService(SqlStore(f"sqlite:///{path}"), config, secret="s" * 32, clock=clock or Clock())


def visible(view: View) -> set[str]:
    """Every card the seat of `view` can see: its hand, the pile, the cards seen taken, the history."""
    cards = {str(c) for c in view.hand} | {str(c) for c in view.discard_pile}
    cards |= {str(c) for c in view.opponent_known}
    cards |= {str(step.card) for step in view.history if step.card is not None}
    return cards


def card_codes(data: Any) -> set[str]:
    """Every card code ("7H") anywhere in a JSON value."""
    if isinstance(data, dict):
        return set().union(*(card_codes(v) for v in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(card_codes(v) for v in data)) if data else set()
    if isinstance(data, str) and len(data) == 2 and data[0] in "A23456789TJQK" and data[1] in "CDHS":
        return {data}
    return set()


async def my_turn(live: LiveMatch, seat: int) -> None:
    """Wait until the robot has moved and `seat` is to act."""
    for _ in range(2000):
        if live.status != "playing" or live.match.to_act == seat:
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the robot never moved")


# -- hints ---------------------------------------------------------------------------------------


def test_a_hint_in_a_casual_match_is_the_experts_legal_move_from_the_seats_own_view(tmp_path: Path) -> None:
    async def main() -> None:
        clock = Clock()
        service = service_on(tmp_path / "h.sqlite3", clock)
        await service.start()
        try:
            guest = await service.guests.new_guest()
            live = await service.get_live(await service.create_robot_match(guest, "casual", "classic"))
            assert live is not None and live.hints
            socket = FakeSocket()
            live.connect(0, socket)
            assert socket.state["match"]["hints"] is True  # the table shows the Hint button
            seen = 0
            for _turn in range(6):
                await my_turn(live, 0)
                view = live.match.view(0)
                text = await live.hint(0, live.version)
                assert isinstance(text, str), text
                hint = json.loads(text)
                # Exactly what the expert says from the seat's own view: nothing else goes in.
                assert hint == {
                    "type": "hint",
                    "version": live.version,
                    **suggest(view, seed=live.version).to_json(),
                }
                assert hint["action"] in [a.to_json() for a in view.legal] and hint["level"] == "expert"
                assert hint["why"] and all("key" in p for p in hint["why"]) and hint["reason"]
                assert card_codes(hint) <= visible(view), "a hint names a card the seat cannot see"
                # Asking again about the same move answers the same and costs nothing.
                for _ in range(HINT_BURST + 2):
                    assert await live.hint(0, None) == text
                assert await live.act(0, hint["action"], live.version) is None
                seen += 1
                clock.now += 10  # the allowance refills
            assert seen == 6
        finally:
            await service.close()

    asyncio.run(main())


def test_hints_are_refused_out_of_turn_when_stale_and_past_the_allowance(tmp_path: Path) -> None:
    async def main() -> None:
        clock = Clock()
        service = service_on(tmp_path / "r.sqlite3", clock)
        await service.start()
        try:
            alice, bob = await service.guests.new_guest(), await service.guests.new_guest()
            code, match_id = await service.rooms.create_room(alice, "classic", 0)
            live = await service.get_live(match_id)
            assert live is not None
            assert await live.hint(0, None) == (
                "illegal_action",
                "there is no move to give a hint for: the match is not being played",
            )
            await service.rooms.join_room(bob, code)
            seat = live.match.to_act
            assert seat is not None
            refused = await live.hint(1 - seat, None)
            assert isinstance(refused, tuple) and refused[0] == "not_your_turn"
            assert (await live.hint(seat, live.version + 5))[0] == "stale"  # type: ignore[index]
            assert (await live.hint(seat, "3"))[0] == "bad_message"  # type: ignore[index]
            # Each new position costs one from the allowance, per seat: the players follow their
            # hints until one of them has asked for more than the burst without time passing.
            granted = [0, 0]
            while True:
                mover = live.match.to_act
                assert mover is not None
                answer = await live.hint(mover, None)
                if isinstance(answer, tuple):
                    break
                granted[mover] += 1
                assert await live.act(mover, json.loads(answer)["action"], live.version) is None
            assert answer[0] == "rate_limited" and granted[mover] == HINT_BURST
            clock.now += 10
            assert isinstance(await live.hint(mover, None), str)
        finally:
            await service.close()

    asyncio.run(main())


def test_rated_and_tournament_matches_give_no_hints(tmp_path: Path) -> None:
    async def main() -> None:
        service = service_on(tmp_path / "n.sqlite3")
        await service.start()
        try:
            a, b = await service.guests.new_guest(), await service.guests.new_guest()
            for fields in ({"kind": "online", "rated": True}, {"kind": "tourney", "tournament_id": "t1"}):
                row = service.new_match_row(
                    status="playing", rules=SHORT, seats=(SeatRow(0, a.id), SeatRow(1, b.id)), **fields
                )
                await service.store.create_match(row)
                live = await service.get_live(row.id)
                assert live is not None and not live.hints
                socket = FakeSocket()
                live.connect(0, socket)
                assert socket.state["match"]["hints"] is False  # no Hint button at that table
                seat = live.match.to_act
                assert seat is not None
                assert await live.hint(seat, None) == (
                    "hints_off",
                    "hints are given in casual matches only, never in rated or tournament matches",
                )
            # A casual match between strangers gives them, as a robot match or a friend's room does.
            casual = service.new_match_row(
                kind="online", status="playing", rules=SHORT, seats=(SeatRow(0, a.id), SeatRow(1, b.id))
            )
            await service.store.create_match(casual)
            live = await service.get_live(casual.id)
            assert live is not None and live.hints
        finally:
            await service.close()

    asyncio.run(main())


# -- replay analysis -----------------------------------------------------------------------------


@functools.cache
def scripted_match_with_a_blunder() -> tuple[int, list[tuple[int, dict[str, Any]]], tuple[int, int]]:
    """A short match (to 25) where seat 0 plays the expert's own choice at every decision but
    one: the first time it can go Gin, it throws a card instead. Seat 1 is the casual robot.
    Returns the seed, the actions, and where the blunder was (hand, step)."""
    row_rules = Rules.from_json(SHORT)
    # Seed 17 is the first to give one; the search goes on should the players' play change.
    for seed in range(17, 217):
        match = Match(row_rules, seed=f"{seed:064x}", deal_bits=256)
        robot = make_player("casual", seed=seed)
        actions: list[tuple[int, dict[str, Any]]] = []
        blunder: tuple[int, int] | None = None
        while not match.is_over:
            seat = match.to_act
            assert seat is not None
            view = match.view(seat)
            if seat == 1:
                action = robot.act(view)
            else:
                action = ExpertPlayer(seed=0).act(view)
                gin = [a for a in view.legal if isinstance(a, Knock) and _left(view, a) == 0]
                if gin and blunder is None:
                    blunder = (len(match.hands), len(match.hand.steps))
                    action = next(
                        a for a in view.legal if isinstance(a, Discard) and a.card == gin[0].card
                    )  # the same card thrown face up: the hand plays on
            actions.append((seat, action.to_json()))
            if match.apply(action, seat) is not None:
                number = len(match.hands) if match.is_over else len(match.hands) - 1
                robot.observe(match.hand_view(1, number))
        if blunder is not None:
            return seed, actions, blunder
    raise AssertionError("no seed gave seat 0 a chance to go Gin")


def _left(view: View, knock: Knock) -> int:
    from ginrummy.rules.masks import least_deadwood

    return least_deadwood(view.hand.mask & ~(1 << knock.card.index))


async def store_finished(
    service: GameService, guest: GuestRow, seed: int, actions: list[tuple[int, Any]]
) -> str:
    """Store the scripted match as the platform would have: its row, its events, its end."""
    from ginrummy.service.ports import EventRow

    row = MatchRow(
        id=f"scripted{seed}",
        kind="robot",
        status="playing",
        rules=SHORT,
        seed=f"{seed:064x}",
        seats=(SeatRow(0, guest.id), SeatRow(1, robot_level="casual")),
        created_at=service.clock(),
    )
    await service.store.create_match(row)
    match = fresh_match(row)
    for seq, (seat, action) in enumerate(actions, start=1):
        await service.store.append_event(row.id, EventRow(seq, seat, action))
        from ginrummy.rules import action_from_json

        match.apply(action_from_json(action), seat)
    assert match.result is not None
    now = service.clock()
    await service.store.finish_match(
        row.id, match.result.to_json(), now, service.outcome_of(match, row.seats, False, now)
    )
    return row.id


async def finished(service: GameService, match_id: str) -> dict[str, Any]:
    for _ in range(6000):
        status = await service.analyses.status(match_id)
        if status["status"] in ("done", "failed"):
            return status
        await asyncio.sleep(0.01)
    raise AssertionError(f"the analysis did not finish: {status}")


def test_the_analysis_marks_a_missed_gin_as_a_blunder_and_agrees_with_the_rest(tmp_path: Path) -> None:
    seed, actions, (blunder_hand, blunder_step) = scripted_match_with_a_blunder()

    async def main() -> None:
        service = service_on(tmp_path / "a.sqlite3")
        await service.start()
        try:
            guest = await service.guests.new_guest()
            match_id = await store_finished(service, guest, seed, actions)
            assert (await service.analyses.status(match_id))["status"] == "none"
            asked = await service.analyses.request(match_id)
            assert asked["status"] in ("queued", "running") and asked["engine"] == ENGINE
            done = await finished(service, match_id)
            assert done["status"] == "done", done
            analysis = done["analysis"]
            assert analysis["seats"] == [0] and analysis["thresholds"] == list(THRESHOLDS)
            decisions = analysis["decisions"]
            assert decisions and all(d["seat"] == 0 for d in decisions)  # the robot's moves are not analysed
            marked = [d for d in decisions if d["mark"]]
            assert [(d["hand"], d["step"]) for d in marked] == [(blunder_hand, blunder_step)]
            blunder = marked[0]
            assert blunder["mark"] == "blunder" and blunder["unit"] == "points"
            assert blunder["choice"]["type"] == "knock" and blunder["action"]["type"] == "discard"
            assert blunder["cost"] >= THRESHOLDS[2]
            assert blunder["choice_value"] - blunder["action_value"] == pytest.approx(
                blunder["cost"], abs=0.01
            )
            assert blunder["why"][0]["key"] == "gin_head"
            others = [d for d in decisions if not d["mark"]]
            assert all(d["cost"] == 0 and d["choice"] == d["action"] for d in others)
            seat = analysis["summary"]["0"]
            assert seat["blunder"] == 1 and seat["mistake"] == seat["inaccuracy"] == 0
            assert seat["decisions"] == len(decisions) and seat["agreed"] == len(decisions) - 1
            # Each decision names only cards its seat could see then.
            replay = fresh_match(await service.store.get_match(match_id))  # type: ignore[arg-type]
            from ginrummy.bots.review import positions
            from ginrummy.rules import action_from_json

            views = {
                (p.hand, p.step): p.view
                for p in positions(replay, [(s, action_from_json(a)) for s, a in actions], [0])
            }
            for d in decisions:
                assert card_codes(d) <= visible(views[(d["hand"], d["step"])]), d
            # Asked again: the stored analysis, not a new one.
            again = await service.analyses.request(match_id)
            assert again["status"] == "done" and again["analysis"] == analysis
            assert again["finished_at"] == done["finished_at"]
        finally:
            await service.close()

    asyncio.run(main())


def test_an_analysis_left_running_by_a_stopped_server_is_made_after_the_restart(tmp_path: Path) -> None:
    seed, actions, _ = scripted_match_with_a_blunder()
    path = tmp_path / "restart.sqlite3"

    async def first() -> str:
        service = service_on(path)
        await service.start()
        try:
            guest = await service.guests.new_guest()
            match_id = await store_finished(service, guest, seed, actions)
            # As if the process had died mid-analysis: the row says running, nobody runs it.
            await service.store.request_analysis(match_id, ENGINE, service.clock())
            await service.store.set_analysis(match_id, "running", service.clock())
            return match_id
        finally:
            await service.analyses.close()  # the worker stops before it could take the match
            await service.close()

    async def second(match_id: str) -> dict[str, Any]:
        service = service_on(path)
        await service.start()
        try:
            return await finished(service, match_id)
        finally:
            await service.close()

    match_id = asyncio.run(first())
    done = asyncio.run(second(match_id))
    assert done["status"] == "done" and done["analysis"]["summary"]["0"]["blunder"] == 1


def test_only_finished_matches_are_analysed(tmp_path: Path) -> None:
    async def main() -> None:
        service = service_on(tmp_path / "u.sqlite3")
        await service.start()
        try:
            guest = await service.guests.new_guest()
            match_id = await service.create_robot_match(guest, "casual", SHORT)
            with pytest.raises(NotFinished):
                await service.analyses.request(match_id)
            with pytest.raises(NotFinished):
                await service.analyses.status(match_id)
            with pytest.raises(NotFound):
                await service.analyses.request("no-such-match")
        finally:
            await service.close()

    asyncio.run(main())
