"""The leak test: random whole matches through the real server; every payload a seat receives is scanned.

Each card named anywhere in a payload must be one that seat could see at a real table at that
moment: its own cards (dealt and drawn), the upcard and every face-up discard, the cards it saw
the opponent take, and once a hand is over both hands. The showdown of the last finished hand
may show that hand's cards; nothing of the stock, the next deal or the seeds still secret.
The truth is rebuilt afterwards from the finished match's record (its seed and every action).
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from server_helpers import Guest, Table, new_guest, run

from ginrummy.rules import BigGin, CardSet, Discard, Draw, GameRecord, Knock, Match, deal_seed, min_deadwood
from ginrummy.rules import seed_commitment as commit

CARD_RANKS = set("A23456789TJQK")
CARD_SUITS = set("CDHS")


def cards_in(obj: Any) -> set[str]:
    """Every string in a JSON value that names a card."""
    found: set[str] = set()
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) == 2 and item[0] in CARD_RANKS and item[1] in CARD_SUITS:
                found.add(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


PLATFORM_DEAL_BITS = 256  # the web platform deals every match it makes with 256-bit seeds


def _names(mask: int) -> set[str]:
    return {str(c) for c in CardSet.from_mask(mask)}


@dataclass
class Truth:
    """What each seat may know after each number of accepted actions, rebuilt from the record."""

    secrets: list[str]  # the match seed: never sent while the match runs
    current: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)
    last: list[tuple[frozenset[str], frozenset[str]] | None] = field(default_factory=list)
    hands: list[tuple[frozenset[str], frozenset[str]]] = field(default_factory=list)
    # Seeds and commitments that must not appear at each version (current and future deals).
    hidden: list[list[str]] = field(default_factory=list)

    @classmethod
    def of(cls, record: GameRecord) -> Truth:
        match = Match(record.rules, seed=record.seed, deal_bits=PLATFORM_DEAL_BITS)
        truth = cls(secrets=[str(record.seed)])
        actions = [(seat, action) for hand in record.hands for seat, action in hand.actions]
        seen = [set(), set()]
        last: tuple[frozenset[str], frozenset[str]] | None = None

        def deal() -> None:
            hand = match.hand
            up = str(CardSet.from_mask(1 << hand.upcard))
            for seat in (0, 1):
                seen[seat] = _names(hand.initial_hands[seat]) | {up}

        def snapshot() -> None:
            truth.current.append((frozenset(seen[0]), frozenset(seen[1])))
            truth.last.append(last)
            hand = match.hand
            truth.hands.append((frozenset(_names(hand.hands[0])), frozenset(_names(hand.hands[1]))))
            number = len(match.hands)
            first_secret = number if match.is_over else number - 1  # 0-based deal index still secret
            hidden = []
            for index in range(first_secret, number + 3):
                seed = deal_seed(record.seed, index, bits=PLATFORM_DEAL_BITS)
                hidden.append(str(seed))
                if index >= number:  # the current deal's commitment is public, later ones are not
                    hidden.append(commit(seed))
            truth.hidden.append(hidden)

        deal()
        snapshot()
        for seat, action in actions:
            hand = match.hand
            match.apply(action, seat)
            step = hand.steps[-1]
            if isinstance(action, Draw):
                assert step.card is not None
                if action.source == "stock":
                    seen[seat].add(str(step.card))
                else:
                    seen[0].add(str(step.card))
                    seen[1].add(str(step.card))
            elif isinstance(action, Discard):
                seen[0].add(str(action.card))
                seen[1].add(str(action.card))
            if hand.phase == "over":
                if isinstance(action, (Knock, BigGin)):
                    shown = _names(hand.hands[0]) | _names(hand.hands[1])
                    if isinstance(action, Knock):
                        shown.add(str(action.card))
                    seen[0] |= shown
                    seen[1] |= shown
                last = (frozenset(seen[0]), frozenset(seen[1]))
                if not match.is_over:
                    deal()
            snapshot()
        if record.result is not None and not record.result.get("ended"):  # not resigned, aborted, left
            assert match.result is not None and match.result.to_json() == record.result
        return truth


def scan(truth: Truth, seat: int, payloads: list[str]) -> int:
    """Check every payload of one seat; returns how many state messages were checked."""
    version = 0
    states = 0
    for text in payloads:
        message = json.loads(text)
        for secret in (
            truth.secrets + truth.hidden[version if message["type"] != "state" else message["version"]]
        ):
            assert secret not in text, f"seat {seat} got a secret seed or commitment: {text[:200]}"
        if message["type"] != "state":
            assert cards_in(message) <= truth.current[version][seat], f"seat {seat}: {message}"
            continue
        states += 1
        version = message["version"]
        allowed = truth.current[version][seat]
        view = message["view"]
        assert view["seat"] == seat and message["match"]["seat"] == seat
        assert set(view["hand"]) == truth.hands[version][seat], "the view shows the seat's own hand"
        leaked = cards_in(view) - allowed
        assert not leaked, f"seat {seat}, version {version}: view names unseen cards {sorted(leaked)}"
        last = truth.last[version]
        assert (message["last_hand"] is None) == (last is None), "last_hand is the latest finished hand"
        if last is not None:
            leaked = cards_in(message["last_hand"]) - last[seat]
            assert not leaked, (
                f"seat {seat}, version {version}: last hand names unseen cards {sorted(leaked)}"
            )
        assert not cards_in(message["match"]), "match metadata names no card"
        assert not cards_in(message["result"] or {}), "the result names no card"
    return states


def greedy_or_random(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Knock when possible; usually discard to the least deadwood; otherwise any legal action."""
    legal = view["legal"]
    enders = [a for a in legal if a["type"] in ("knock", "big_gin")]
    if enders:
        return rng.choice(enders)
    discards = [a for a in legal if a["type"] == "discard"]
    if discards and rng.random() < 0.8:
        hand = CardSet(view["hand"])
        scored = [(min_deadwood(hand - CardSet([a["card"]])), a) for a in discards]
        best = min(score for score, _ in scored)
        return rng.choice([a for score, a in scored if score == best])
    return rng.choice(legal)


async def play_seat(guest: Guest, match_id: str, rng: random.Random, reconnect_at: int | None) -> None:
    """Play one seat to the end of the match, reconnecting once after `reconnect_at` messages."""
    table: Table = await guest.connect(match_id)
    acted = -1
    count = 0
    while True:
        message = await table.recv(timeout=30)
        count += 1
        if message["type"] != "state":
            continue
        if message["result"] is not None:
            return
        if reconnect_at is not None and count >= reconnect_at:
            reconnect_at = None
            await table.close()
            table = await guest.connect(match_id)
            acted = -1
            continue
        if message["view"]["legal"] and message["version"] > acted:
            acted = message["version"]
            await table.act(greedy_or_random(message["view"], rng), version=message["version"])


def _collected(guest: Guest) -> list[str]:
    return [text for table in guest.tables for text in table.raw]


async def leak_check_matches(host: str, humans: int, robots: int, target: int | None, seed: int) -> int:
    rng = random.Random(seed)
    presets = ["classic", "oklahoma", "hoyle", "big_gin"]

    async def human_match(i: int) -> int:
        alice, bob = await new_guest(host), await new_guest(host)
        rules: Any = presets[i % len(presets)]
        if target is not None:
            rules = {"preset": rules, "target": target}
        room = await alice.room(rules=rules)
        await bob.join(room["code"])
        sub = random.Random(rng.random())
        await asyncio.gather(
            play_seat(alice, room["match_id"], random.Random(sub.random()), sub.randrange(5, 60)),
            play_seat(bob, room["match_id"], random.Random(sub.random()), None),
        )
        status, replay = await alice.request("GET", f"/api/matches/{room['match_id']}/replay")
        assert status == 200, replay
        truth = Truth.of(GameRecord.from_json(replay["record"]))
        return scan(truth, 0, _collected(alice)) + scan(truth, 1, _collected(bob))

    async def robot_match(i: int) -> int:
        guest = await new_guest(host)
        rules: Any = presets[(i + 1) % len(presets)]
        if target is not None:
            rules = {"preset": rules, "target": target}
        level = ["novice", "casual", "skilled", "advanced", "expert"][i % 5]
        match_id = await guest.robot_match(level, rules=rules)
        sub = random.Random(rng.random())
        await play_seat(guest, match_id, sub, sub.randrange(5, 60))
        status, replay = await guest.request("GET", f"/api/matches/{match_id}/replay")
        assert status == 200, replay
        return scan(Truth.of(GameRecord.from_json(replay["record"])), 0, _collected(guest))

    results = await asyncio.gather(
        *[human_match(i) for i in range(humans)], *[robot_match(i) for i in range(robots)]
    )
    return sum(results)


def test_no_payload_names_a_card_its_seat_cannot_see(host: str) -> None:
    checked = run(lambda: leak_check_matches(host, humans=3, robots=2, target=30, seed=11))
    assert checked > 200


@pytest.mark.slow
def test_no_payload_leaks_over_many_whole_matches(host: str) -> None:
    checked = run(lambda: leak_check_matches(host, humans=20, robots=10, target=None, seed=2024))
    assert checked > 5000


def test_the_scanner_catches_a_leak(host: str) -> None:
    """The check above can fail: a payload with one stock card added is caught."""

    async def body() -> None:
        guest = await new_guest(host)
        match_id = await guest.robot_match("casual", rules={"preset": "classic", "target": 10})
        await play_seat(guest, match_id, random.Random(5), None)
        status, replay = await guest.request("GET", f"/api/matches/{match_id}/replay")
        assert status == 200
        truth = Truth.of(GameRecord.from_json(replay["record"]))
        payloads = _collected(guest)
        assert scan(truth, 0, payloads) > 0
        first = json.loads(payloads[0])
        version = first["version"]
        unseen = sorted(set(str(c) for c in CardSet.from_mask((1 << 52) - 1)) - truth.current[version][0])
        for field_name in ("discard_pile", "opponent_known"):
            tampered = json.loads(payloads[0])
            tampered["view"][field_name] = [*tampered["view"][field_name], unseen[0]]
            with pytest.raises(AssertionError, match="unseen"):
                scan(truth, 0, [json.dumps(tampered)])
        tampered = json.loads(payloads[0])
        tampered["view"]["history"].append(
            {"seat": 1, "action": {"type": "draw", "source": "stock"}, "card": unseen[-1]}
        )
        with pytest.raises(AssertionError, match="unseen"):
            scan(truth, 0, [json.dumps(tampered)])
        secret = json.loads(payloads[0])
        secret["match"]["note"] = truth.secrets[0]
        with pytest.raises(AssertionError, match="secret"):
            scan(truth, 0, [json.dumps(secret)])

    run(body)
