"""The leak scan of the bigger tables: whole games of three-player Gin, team Gin and Rummy played
through the service by people (who come and go) and robots; every payload a seat receives, and
what it fetches, is scanned against what that seat could know at a real table at that moment.

The truth is rebuilt afterwards from the finished game's record (its seed and every action),
with no view code: each seat knows its own cards (dealt and drawn from the stock), every card
face up (upcards, discards, cards taken from the pile, melds and layoffs on the table), and the
hands shown when a hand ends (Gin's showdown; every hand left when a Rummy hand ends). The sitting-out
dealer of three-player Gin knows what is face up; in team Gin each seat knows its own hand and
only the face-up side of the other one. A spectator knows only what is face up. No seed may be
sent before its deal is over (a void deal's before the game is), no commitment of a later deal,
never the game's seed; `last_hand` may show the last finished deal, nothing of the next.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from live_table_helpers import LEVELS, play_to_end, seat_table
from test_leak import cards_in
from test_service_clock import with_service

from ginrummy.rules import (
    BigGin,
    CardSet,
    Discard,
    Draw,
    Game,
    GameRecord,
    Knock,
    LayMeld,
    LayOff,
    Rules,
    RummyGame,
    TeamGin,
    ThreeGin,
    deal_seed,
    new_game,
    seed_commitment,
)
from ginrummy.service import GameService

Knowledge = tuple[frozenset[str], ...]


def _names(mask: int) -> set[str]:
    return {str(c) for c in CardSet.from_mask(mask)}


@dataclass
class TableTruth:
    """What each seat (and a spectator) may know after each number of events, from the record."""

    seats: int
    secret: str
    current: list[Knowledge] = field(default_factory=list)
    public: list[frozenset[str]] = field(default_factory=list)
    own: list[tuple[frozenset[str] | None, ...]] = field(default_factory=list)
    last: list[tuple[Knowledge, frozenset[str]] | None] = field(default_factory=list)
    hidden: list[list[str]] = field(default_factory=list)

    @classmethod
    def of(cls, record: GameRecord) -> TableTruth:
        rules = record.rules
        per_deal = 2 if rules.game == "gin4_teams" else 1
        seeds = [seed for hand in record.hands for seed in hand.seeds]

        def source(index: int) -> int:
            return seeds[index] if index < len(seeds) else deal_seed(record.seed, index, bits=256)

        game = new_game(rules, seed=record.seed, seed_source=source)
        n = game.seat_count
        truth = cls(seats=n, secret=str(record.seed))
        seen: list[set[str]] = [set() for _ in range(n)]
        public: set[str] = set()
        void_seeds: list[str] = []
        last: tuple[Knowledge, frozenset[str]] | None = None

        def show(cards: set[str], seat: int | None = None) -> None:
            if seat is None:
                public.update(cards)
                for known in seen:
                    known.update(cards)
            else:
                seen[seat].update(cards)

        def deal() -> None:
            public.clear()
            for known in seen:
                known.clear()
            for hand, players in _hands(game):
                up = _names(1 << hand.upcard)
                show(up)
                for inner, seat in enumerate(players):
                    show(_names(hand.initial_hands[inner]), seat)

        def snapshot() -> None:
            truth.current.append(tuple(frozenset(k) for k in seen))
            truth.public.append(frozenset(public))
            truth.own.append(_own(game))
            truth.last.append(last)
            number = game.hand_number
            hidden = [truth.secret, *void_seeds] if not game.is_over else [truth.secret]
            if not game.is_over:
                hidden += [str(s) for s in game.deal_summary(number)[0]]
            for index in range(number * per_deal, (number + 3) * per_deal):
                later = deal_seed(record.seed, index, bits=256)
                hidden += [str(later), seed_commitment(later)]
            truth.hidden.append(hidden)

        deal()
        snapshot()
        for hand_record in record.hands:
            for seat, action in hand_record.actions:
                number = game.hand_number
                hands = _hands(game)
                table = next(i for i, (_, players) in enumerate(hands) if seat in players)
                hand, players = hands[table]
                game.apply(action, seat)
                card = hand.steps[-1].card
                if isinstance(action, Draw):
                    assert card is not None
                    show({str(card)}, seat if action.source == "stock" else None)
                elif isinstance(action, Discard):
                    show({str(action.card)})
                elif isinstance(action, LayMeld):
                    show({str(c) for c in action.cards})
                elif isinstance(action, LayOff):
                    show({str(action.card)})
                if hand.phase == "over":
                    if isinstance(game, RummyGame):
                        show(set().union(*(_names(h) for h in hand.hands)))
                    elif isinstance(action, (Knock, BigGin)):
                        shown = _names(hand.hands[0]) | _names(hand.hands[1])
                        if isinstance(action, Knock):
                            shown.add(str(action.card))
                        show(shown)
                if game.hand_number != number or game.is_over:  # the deal is over
                    last = (tuple(frozenset(k) for k in seen), frozenset(public))
                    summary = game.deal_summary(number)
                    void_seeds += [
                        str(s) for s, o in zip(summary[0], _outcomes(summary[2]), strict=True) if o
                    ]
                    if game.hand_number != number:
                        deal()
                snapshot()
        assert game.result is not None and game.result.to_json() == record.result
        return truth


def _hands(game: Game) -> list[tuple[Any, tuple[int, ...]]]:
    """The hands being dealt or played now, each with its players (game seats, inner order)."""
    if isinstance(game, ThreeGin):
        return [(game.hands[-1], game.players_of(game.hand_number))]
    if isinstance(game, TeamGin):
        return list(zip(game.rounds[-1], game.pairing(game.hand_number), strict=True))
    assert isinstance(game, RummyGame)
    return [(game.hands[-1], tuple(range(game.seat_count)))]


def _own(game: Game) -> tuple[frozenset[str] | None, ...]:
    mine: list[frozenset[str] | None] = [None] * game.seat_count
    for hand, players in _hands(game):
        for inner, seat in enumerate(players):
            mine[seat] = frozenset(_names(hand.hands[inner]))
    return tuple(mine)


def _outcomes(result: dict[str, Any] | None) -> list[bool]:
    assert result is not None
    return [h["outcome"] == "void" for h in result.get("hands") or [result]]


def _own_cards(view: dict[str, Any], seat: int) -> frozenset[str] | None:
    if "tables" in view:
        for table in view["tables"]:
            if seat in table["players"]:
                return frozenset(table["hand"])
            assert table["hand"] is None, "a view shows the hand of a table this seat does not play"
        return None
    return frozenset(view["hand"])


def scan(truth: TableTruth, seat: int | None, payloads: list[str]) -> int:
    """Check every payload of one seat (None: the spectator); returns how many states were checked."""
    version = 0
    states = 0
    for text in payloads:
        message = json.loads(text)
        kind = message["type"]
        if kind in ("state", "spectate"):
            version = message["version"]
        for secret in truth.hidden[version]:
            assert secret not in text, f"seat {seat} got a secret seed or commitment: {text[:200]}"
        allowed = truth.public[version] if seat is None else truth.current[version][seat]
        if kind not in ("state", "spectate"):
            assert cards_in(message) <= allowed, f"seat {seat}: {message}"
            continue
        states += 1
        view = message["view"]
        if view is None:
            assert message["match"]["status"] == "waiting" and not cards_in(message)
            continue
        if seat is not None:
            assert view["seat"] == seat and message["match"]["seat"] == seat
            assert _own_cards(view, seat) == truth.own[version][seat], "the view shows the seat's own cards"
        leaked = cards_in(view) - allowed
        assert not leaked, f"seat {seat}, version {version}: the view names unseen cards {sorted(leaked)}"
        last = truth.last[version]
        finished = message["last_hand"] if kind == "state" else message.get("last_hand")
        assert (finished is None) == (last is None), "last_hand is the latest finished deal"
        if last is not None:
            known = last[1] if seat is None else last[0][seat]
            leaked = cards_in(finished) - known
            assert not leaked, (
                f"seat {seat}, version {version}: last hand names unseen cards {sorted(leaked)}"
            )
        assert not cards_in(message["match"]), "match metadata names no card"
        assert not cards_in(message["result"] or {}), "the result names no card"
    return states


TABLES = {
    "gin3": lambda rng: (Rules.preset("gin3"), rng.randint(1, 3)),
    "gin4_teams": lambda rng: (Rules.preset("gin4_teams"), rng.randint(1, 4)),
    "rummy": lambda rng: (Rules.for_game("rummy", rng.randint(2, 6)), None),
}


async def leak_check_games(service: GameService, game: str, count: int, seed: int, target: int | None) -> int:
    rng = random.Random(seed)
    checked = 0
    for _ in range(count):
        rules, people = TABLES[game](rng)
        if people is None:
            people = rng.randint(1, min(3, rules.players))
        if target is not None:
            rules = rules.replace(target=target)
        levels = [rng.choice(LEVELS) for _ in range(rules.players - people)]
        table = await seat_table(service, rules.to_json(), people, levels)
        # A spectator at some tables: what it sees is folded from every seat's view (costly to scan).
        await play_to_end(table, random.Random(rng.random()), watch=rng.random() < 0.4)
        replay = await service.history.replay(table.live.id)
        truth = TableTruth.of(GameRecord.from_json(replay["record"]))
        for seat in table.guests:
            checked += scan(truth, seat, table.texts(seat))
            for text in table.http[seat]:
                assert not cards_in(json.loads(text)), f"seat {seat} fetched cards: {text[:200]}"
        if table.watcher is not None:
            checked += scan(truth, None, table.watcher.texts)
    return checked


@pytest.mark.parametrize("game", ["gin3", "gin4_teams", "rummy"])
def test_no_payload_of_a_table_names_a_card_its_seat_cannot_see(tmp_path: Path, game: str) -> None:
    async def body(service: GameService) -> None:
        assert await leak_check_games(service, game, 2, seed=7, target=25) > 40

    with_service(tmp_path, body, grace_seconds=0.05, robot_time_budget=0.02)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["gin3", "gin4_teams", "rummy"])
def test_no_payload_leaks_over_two_hundred_whole_games_of_each_table(tmp_path: Path, game: str) -> None:
    async def body(service: GameService) -> None:
        assert await leak_check_games(service, game, 200, seed=2025, target=None) > 20_000

    with_service(tmp_path, body, grace_seconds=0.05, robot_time_budget=0.02)


@pytest.mark.parametrize("game", ["gin3", "gin4_teams", "rummy"])
def test_spectators_of_every_table_see_only_what_is_face_up(tmp_path: Path, game: str) -> None:
    """Spectators of the tables of three and more: one watches from the deal, another arrives in
    the middle of the game (its first frame is the whole table at once); every frame they get,
    with its clocks and its count of spectators, names only face-up cards and no seed or
    commitment before its deal is over."""

    async def body(service: GameService) -> None:
        rng = random.Random(26)
        for number in range(2):
            rules, people = TABLES[game](rng)
            people = min(people or 2, rules.players)
            levels = [rng.choice(LEVELS) for _ in range(rules.players - people)]
            table = await seat_table(
                service, rules.replace(target=25).to_json(), people, levels, turn_seconds=30
            )
            await play_to_end(table, random.Random(number), late_watch=rng.randrange(4, 12))
            replay = await service.history.replay(table.live.id)
            truth = TableTruth.of(GameRecord.from_json(replay["record"]))
            assert table.watcher is not None and table.late_watcher is not None
            # Frames may be folded together when several moves land at once (robots move at
            # once), so the count varies; the watcher from the deal saw the game to its end.
            assert scan(truth, None, table.watcher.texts) >= 2
            versions = [json.loads(t).get("version") for t in table.watcher.texts]
            assert max(v for v in versions if v is not None) == len(truth.hidden) - 1
            late = [json.loads(text) for text in table.late_watcher.texts]
            assert late[0]["version"] > 0, "the late spectator arrived during the game"
            assert scan(truth, None, table.late_watcher.texts) >= 1
            for message in [json.loads(text) for text in table.watcher.texts] + late:
                meta = message["match"]
                assert meta["spectators"] in (1, 2) and meta["turn_seconds"] == 30
                assert len(meta["turn_deadlines"]) == rules.players
            assert {json.loads(t)["match"]["spectators"] for t in table.watcher.texts} == {1, 2}

    with_service(tmp_path, body, grace_seconds=0.05, robot_time_budget=0.02)


def test_the_table_scanner_catches_a_leak(tmp_path: Path) -> None:
    """The check above can fail: another seat's card, a stock card or a secret seed added is caught."""

    async def body(service: GameService) -> None:
        table = await seat_table(service, {"preset": "rummy", "players": 3, "target": 10}, 2, ["casual"])
        await play_to_end(table, random.Random(3), reconnects=False)
        truth = TableTruth.of(GameRecord.from_json((await service.history.replay(table.live.id))["record"]))
        payloads = table.texts(0)
        assert scan(truth, 0, payloads) > 0
        first = json.loads(next(p for p in payloads if json.loads(p).get("view")))
        version = first["version"]
        unseen = sorted((truth.own[version][1] or set()) - truth.current[version][0])[0]  # in seat 1's hand
        for field_name in ("discard_pile", "hand"):
            tampered = json.loads(json.dumps(first))
            tampered["view"][field_name] = [*tampered["view"][field_name], unseen]
            with pytest.raises(AssertionError, match="unseen|own cards"):
                scan(truth, 0, [json.dumps(tampered)])
        tampered = json.loads(json.dumps(first))
        tampered["view"]["history"].append(
            {"seat": 1, "action": {"type": "draw", "source": "stock"}, "card": unseen}
        )
        with pytest.raises(AssertionError, match="unseen"):
            scan(truth, 0, [json.dumps(tampered)])
        secret = json.loads(json.dumps(first))
        secret["match"]["note"] = truth.hidden[version][-1]  # a later deal's commitment
        with pytest.raises(AssertionError, match="secret"):
            scan(truth, 0, [json.dumps(secret)])
        assert table.watcher is not None
        watched = next(json.loads(p) for p in table.watcher.texts if json.loads(p).get("view"))
        watched["view"]["hand_counts"] = [*watched["view"]["hand_counts"], unseen]
        with pytest.raises(AssertionError, match="unseen"):
            scan(truth, None, [json.dumps(watched)])

    with_service(tmp_path, body, grace_seconds=0.05, robot_time_budget=0.02)
