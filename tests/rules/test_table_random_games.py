"""Random whole games of three-player Gin, team Gin and classic Rummy (two to six), checked at
every step through the common `Game` interface (STYLE.md habit 9).

Invariants: 52 cards conserved (hands, table melds, stock, discard pile, a face-down knock
card); Rummy payments sum to zero in every hand and the balances always do; `legal_actions`
agrees with the checker on a wide set of candidate actions, for the seats to act and for the
others; a rejected action changes nothing; games end; records round-trip exactly and replay
to equal states; every view parses back to itself; and no view ever names a card its seat
could not have seen at a real table (tracked here from the deals and the action log, without
the view code). A fast set runs by default; many more games are marked slow.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from rules_helpers import ALL_ACTIONS
from table_helpers import rummy_candidates

from ginrummy import (
    DEAL_SIZES,
    Discard,
    Draw,
    Game,
    GameAction,
    Hand,
    IllegalActionError,
    Knock,
    LayMeld,
    LayOff,
    NotYourTurnError,
    Rules,
    RummyGame,
    RummyHand,
    TeamGin,
    ThreeGin,
    build_view,
    deal_order,
    game_view_from_json,
    load_game,
    loads,
    new_game,
)
from ginrummy.rules.cards import CARDS

CARD_TEXT = re.compile(r'"([A2-9TJQK][CDHS])"')
FULL = (1 << 52) - 1


def cards_named(data: Any) -> set[str]:
    """Every card-like string anywhere in a JSON value (keys included)."""
    return set(CARD_TEXT.findall(json.dumps(data)))


def names(mask: int) -> set[str]:
    return {str(CARDS[i]) for i in range(52) if mask >> i & 1}


# -- what each seat could have seen, rebuilt from the deal seeds and the logs -------------------


def gin_hand_seen(hand: Hand, players: tuple[int, int], seat: int) -> int:
    """Cards `seat` could have seen of one two-player hand (playing it or watching it)."""
    deck = deal_order(hand.seed)
    dealt = [0, 0]
    for i in range(20):
        dealt[(1 - hand.dealer) if i % 2 == 0 else hand.dealer] |= 1 << deck[i]
    assert (dealt[0], dealt[1]) == hand.initial_hands
    inner = players.index(seat) if seat in players else None
    seen = 1 << deck[20]
    if inner is not None:
        seen |= dealt[inner]
    for step in hand.steps:
        action = step.action
        bit = 1 << step.card.index if step.card is not None else 0
        if (
            isinstance(action, Draw)
            and (action.source == "discard" or step.seat == inner)
            or isinstance(action, Discard)
        ):
            seen |= bit
    if hand.phase == "over":
        seen |= hand.hands[0] | hand.hands[1]
        if hand.knock_card is not None:
            seen |= 1 << hand.knock_card
    return seen


def rummy_hand_seen(hand: RummyHand, seat: int) -> int:
    n = hand.players
    deck = deal_order(hand.seed)
    size = DEAL_SIZES[n]
    dealt = 0
    for i in range(n * size):
        if (hand.dealer + 1 + i) % n == seat:
            dealt |= 1 << deck[i]
    assert dealt == hand.initial_hands[seat]
    seen = dealt | 1 << deck[n * size]
    for step in hand.steps:
        action = step.action
        if isinstance(action, Draw):
            if action.source == "discard" or step.seat == seat:
                assert step.card is not None
                seen |= 1 << step.card.index
        elif isinstance(action, Discard | LayOff):
            seen |= 1 << action.card.index
        elif isinstance(action, LayMeld):
            seen |= action.cards.mask
    if hand.phase == "over":
        for cards in hand.hands:
            seen |= cards
    return seen


# -- the checker ---------------------------------------------------------------------------------


def tables_of(game: Game) -> list[tuple[Hand, tuple[int, int]]]:
    """The two-player hands of the current deal of a Gin table game, with their players."""
    if isinstance(game, ThreeGin):
        return [(game.hand, game.players_of(game.hand_number))]
    assert isinstance(game, TeamGin)
    return list(zip(game.rounds[-1], game.pairing(game.hand_number), strict=True))


def candidates(game: Game, seat: int, rng: random.Random) -> list[GameAction]:
    if isinstance(game, RummyGame):
        return rummy_candidates(game.hand, rng)
    extra: list[GameAction] = [
        LayMeld(CardSetOf(rng.sample(range(52), 3))),
        LayOff(CARDS[rng.randrange(52)], 0),
    ]
    return [*ALL_ACTIONS, *extra]


def CardSetOf(indices: list[int]) -> Any:  # noqa: N802 - a tiny constructor for readability
    from ginrummy import CardSet

    return CardSet(indices)


def state_text(game: Game) -> str:
    """Everything an action may change: every seat's view of the deal, and the totals."""
    views = "".join(game.view(s).dumps() for s in range(game.seat_count))
    return f"{game.hand_number}/{list(game.scores)}/{views}"


class GameChecker:
    def __init__(
        self, game: Game, rng: random.Random, *, universe: bool = True, check_share: float = 1.0
    ) -> None:
        self.game = game
        self.rng = rng
        self.universe = universe
        self.actions = 0
        # The legality and view checks cost as much as the whole history (quadratic over a game):
        # the default run checks a random share of the steps, the slow run every one of them.
        self.check_share = check_share
        self.sampler = random.Random(rng.random())
        self.checks = 0

    def check_cards(self) -> None:
        game = self.game
        if isinstance(game, RummyGame):
            hand = game.hand
            parts = [
                *hand.hands,
                *hand.table,
                *(1 << i for i in hand.stock),
                *(1 << i for i in hand.discard_pile),
            ]
            union = 0
            for part in parts:
                assert not union & part, "a card is in two places"
                union |= part
            assert union == FULL and hand.cards_in_play() == 52
            assert sum(game.scores) == 0, "the balances always sum to zero"
            return
        for hand, _ in tables_of(game):
            union = hand.hands[0]
            for part in [hand.hands[1], *(1 << i for i in hand.stock), *(1 << i for i in hand.discard_pile)]:
                assert not union & part
                union |= part
            if hand.knock_card is not None:
                union |= 1 << hand.knock_card
            assert union == FULL

    def check_legal(self) -> None:
        game = self.game
        acting = game.seats_to_act
        assert acting and len(set(acting)) == len(acting)
        for seat in range(game.seat_count):
            legal = list(game.legal_actions(seat))
            assert list(game.view(seat).legal) == legal
            assert bool(legal) == (seat in acting)
            assert len(set(legal)) == len(legal), "an action is listed twice"
        seat = self.rng.choice(acting)
        legal = list(game.legal_actions(seat))
        wide = self.universe and self.checks % 3 == 0
        universe = candidates(game, seat, self.rng) if wide else legal + self.rng.sample(ALL_ACTIONS, 10)
        before = state_text(game) if wide else ""
        for action in universe + legal:
            try:
                game.check(action, seat)
                allowed = True
            except IllegalActionError:
                allowed = False
            assert allowed == (action in legal), f"{action}: checker says {allowed}"
        for other in set(range(game.seat_count)) - set(acting):
            with pytest.raises(NotYourTurnError):
                game.check(legal[0], other)
        if wide:
            bad = next(a for a in universe if a not in legal)
            with pytest.raises(IllegalActionError):
                game.apply(bad, seat)
            assert state_text(game) == before, "a rejected action changed the game"

    def check_views(self) -> None:
        game = self.game
        for seat in range(game.seat_count):
            view = game.view(seat)
            data = view.to_json()
            if self.checks % 4 == 0:
                assert game_view_from_json(data).to_json() == data, "the view does not parse back to itself"
            named = cards_named(data)
            if isinstance(game, RummyGame):
                visible = rummy_hand_seen(game.hand, seat)
            else:
                visible = 0
                for hand, players in tables_of(game):
                    visible |= gin_hand_seen(hand, players, seat)
                if seat in players_of_all(game) and self.checks % 4 == 0:
                    self.check_two_player(game, seat)
            leaked = named - names(visible)
            assert not leaked, f"seat {seat} sees {sorted(leaked)}"

    def check_two_player(self, game: Game, seat: int) -> None:
        view = game.view(seat)
        assert not isinstance(view, type(None))
        for hand, players in tables_of(game):
            if seat not in players:
                continue
            inner = players.index(seat)
            pair = view.pair_scores()  # type: ignore[attr-defined]
            scores = pair if inner == 0 else (pair[1], pair[0])
            expected = build_view(hand, inner, hand_number=game.hand_number, scores=scores)
            two = view.two_player()  # type: ignore[attr-defined]
            assert two == expected
            assert two.dumps() == expected.dumps()

    def step(self) -> None:
        game = self.game
        self.check_cards()
        if self.check_share >= 1 or self.sampler.random() < self.check_share:
            self.check_legal()
            self.check_views()
            self.checks += 1
        seat = self.rng.choice(game.seats_to_act)
        action = policy(game, seat, self.rng)
        number = game.hand_number
        ended = game.apply(action, seat)
        self.actions += 1
        if ended is not None and isinstance(game, RummyGame):
            result = game.hands[number - 1].result
            assert result is not None and result is ended and sum(result.payments) == 0
            assert (result.winner is None) == (result.outcome == "void")

    def run(self, limit: int = 60_000) -> None:
        while not self.game.is_over:
            self.step()
            assert self.actions < limit, "the game did not end"
            if self.rng.random() < 0.005:
                check_record(self.game)
        check_record(self.game)
        result = self.game.result
        assert result is not None and self.game.seats_to_act == () and self.game.legal_actions() == []
        assert max(result.scores) == result.scores[result.winners[0]] if result.winners else True


def players_of_all(game: Game) -> set[int]:
    return {s for _, players in tables_of(game) for s in players}


def policy(game: Game, seat: int, rng: random.Random) -> GameAction:
    """Random play that ends hands: knock or lay down most of the time it may."""
    legal = list(game.legal_actions(seat))
    eager = [a for a in legal if isinstance(a, Knock | LayMeld | LayOff)]
    if eager and rng.random() < 0.85:
        return rng.choice(eager)
    return rng.choice(legal)


def check_record(game: Game) -> None:
    text = game.record().dumps()
    assert loads(text).dumps() == text, "the record does not round-trip"
    again = load_game(text)
    assert again.record().dumps() == text
    for seat in range(game.seat_count):
        assert again.view(seat).to_json() == game.view(seat).to_json()
    assert again.seats_to_act == game.seats_to_act and list(again.scores) == list(game.scores)


GAMES = [("gin3", 3), ("gin4_teams", 4), *((f"rummy{n}", n) for n in range(2, 7))]


def rules_of(name: str, target: int) -> Rules:
    if name.startswith("rummy"):
        return Rules.for_game("rummy", int(name[5:])).replace(target=target)
    return Rules.preset(name).replace(target=target)


@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_random_games_keep_every_invariant(name: str, seats: int) -> None:
    game = new_game(rules_of(name, 20 if name.startswith("gin") else 40), seed=f"{name}-0")
    assert game.seat_count == seats
    GameChecker(game, random.Random(0), check_share=0.3).run()


@pytest.mark.slow
@pytest.mark.parametrize(("name", "seats"), GAMES)
def test_many_random_games_keep_every_invariant(name: str, seats: int) -> None:
    for seed in range(1, 30):
        game = new_game(rules_of(name, 80), seed=f"{name}-{seed}")
        GameChecker(game, random.Random(seed), universe=seed % 3 == 0).run()


@pytest.mark.parametrize("ace", ["low", "high", "either"])
def test_random_rummy_with_every_ace_rule_and_no_turnover(ace: str) -> None:
    rules = Rules.preset("rummy").replace(ace=ace, stock_turnovers=0, target=30)
    game = new_game(rules, seed=ace)
    GameChecker(game, random.Random(7), check_share=0.3).run()


def test_a_tampered_record_is_refused() -> None:
    game = new_game(rules_of("rummy4", 100), seed=3)
    rng = random.Random(3)
    for _ in range(40):
        seat = game.seats_to_act[0]
        game.apply(policy(game, seat, rng), seat)
    data = game.record().to_json()
    data["hands"][0]["actions"][1][0] = (data["hands"][0]["actions"][1][0] + 1) % 4
    with pytest.raises(ValueError, match="hand 1, action 2"):
        load_game(json.dumps(data))
    data = game.record().to_json()
    data["hands"][0]["seeds"] = [data["hands"][0]["seeds"][0] + 1]
    with pytest.raises(ValueError):
        load_game(json.dumps(data))
