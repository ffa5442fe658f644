"""The searching expert: legal and repeatable, searching deals consistent with its view, and
the fast hand simulator it plays them out with."""

from __future__ import annotations

import random

import pytest
from bot_helpers import random_positions

import ginrummy.bots.expert.rollout as rollout_module
import ginrummy.bots.expert.search as search_module
from ginrummy.bots import make_player
from ginrummy.bots.expert import SearchingExpert
from ginrummy.bots.expert.rollout import quick_discard, rollout
from ginrummy.rules import Rules, new_match
from ginrummy.rules.fast_core import least_deadwood


def _gin_hand(rng: random.Random) -> int:
    """Ten cards in melds: a run of four, a set of three and a run of three."""
    while True:
        s1, s2 = rng.sample(range(4), 2)
        r1, r2, r3 = rng.randrange(10), rng.randrange(11), rng.randrange(13)
        run4 = {s1 * 13 + r1 + i for i in range(4)}
        run3 = {s2 * 13 + r2 + i for i in range(3)}
        group = {s * 13 + r3 for s in rng.sample(range(4), 3)}
        cards = run4 | run3 | group
        if len(cards) == 10:
            return sum(1 << c for c in cards)


def test_the_quick_policy_goes_gin_whenever_a_discard_leaves_gin() -> None:
    rng = random.Random(3)
    for _ in range(300):
        gin = _gin_hand(rng)
        extra = rng.choice([c for c in range(52) if not gin >> c & 1])
        hand = gin | 1 << extra
        live = ~hand & ((1 << 52) - 1)
        d, card = quick_discard(hand, -1, live)
        assert d == 0 == least_deadwood(hand ^ 1 << card)
        # Without Gin it leaves a deadwood that a discard really leaves.
        d, card = quick_discard(hand, extra, live) if extra != card else (d, card)
        assert d == least_deadwood(hand ^ 1 << card)


def test_a_playout_that_goes_on_past_the_turn_limit_is_void(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(4)
    deck = list(range(52))
    rng.shuffle(deck)
    me = sum(1 << c for c in deck[:10])
    opp = sum(1 << c for c in deck[10:20])
    stock = deck[21:]
    # With a knock limit of 0 only Gin ends a hand, which no side reaches in its first turn.
    monkeypatch.setattr(rollout_module, "MAX_TURNS", 0)
    assert rollout(me, opp, list(stock), deck[20], 0, Rules(), 0, random.Random(1)) == 0
    monkeypatch.setattr(rollout_module, "MAX_TURNS", 100)
    knocked = rollout(
        me, opp, list(stock), deck[20], 0, Rules(), 10, random.Random(1), me_knocks=lambda d, n: True
    )
    assert knocked != 0


def test_playouts_from_random_deals_end_within_the_stock() -> None:
    rng = random.Random(9)
    for _ in range(300):
        deck = list(range(52))
        rng.shuffle(deck)
        me = sum(1 << c for c in deck[:10])
        opp = sum(1 << c for c in deck[10:20])
        stock = deck[21:]
        points = rollout(me, opp, stock, deck[20], 0, Rules(), 10, rng)
        assert -200 < points < 200


def test_the_sampled_deals_fit_the_view() -> None:
    searcher = SearchingExpert(seed=3)
    checked = 0
    for _, view in random_positions(80, seed=21):
        turn = searcher.read(view)
        k = turn.k
        seen = k.hand | k.pile_mask
        for opp, stock, _seed, worth in searcher._worlds(view, turn, None):
            assert opp.bit_count() == 10
            assert opp & k.opp_known == k.opp_known  # the cards it was seen taking
            assert opp & seen == 0
            assert len(stock) == k.stock_count == len(set(stock))
            assert all(not (opp | seen) >> c & 1 for c in stock)
            assert 0.0 <= worth(25) <= 1.0 and worth(25) >= worth(-25)
            checked += 1
    assert checked >= 80 * searcher.SEARCH_WORLDS // 2


def test_searcher_chooses_legal_actions_with_and_without_a_budget() -> None:
    for budget in (None, 0.02, 0.2):
        player = make_player("searcher", seed=5, time_budget=budget)
        phases = set()
        for _, view in random_positions(60, seed=13):
            assert player.act(view) in view.legal
            phases.add(view.phase)
        assert phases == {"offer", "draw", "discard"}


def _match_moves(seed: int) -> list[str]:
    match = new_match("classic", seed=seed)
    players = (SearchingExpert(seed=1), make_player("expert", seed=2))
    moves = []
    while not match.is_over and len(moves) < 160:
        seat = match.to_act
        assert seat is not None
        action = players[seat].act(match.view(seat))
        moves.append(str(action))
        if match.apply(action, seat) is not None:
            number = len(match.hands) - (0 if match.is_over else 1)
            for s in (0, 1):
                players[s].observe(match.hand_view(s, number))
    return moves


def test_searches_run_and_a_seed_repeats_the_play(monkeypatch: pytest.MonkeyPatch) -> None:
    played = [0]
    real = search_module.rollout

    def counted(*args: object, **kwargs: object) -> int:
        played[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(search_module, "rollout", counted)
    first = _match_moves(8)
    assert played[0] > 0
    assert _match_moves(8) == first


def test_a_clear_discard_is_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    searcher = SearchingExpert(seed=1)
    view = next(v for _, v in random_positions(40, seed=2) if v.phase == "discard")
    turn = searcher.read(view)

    def no_search(*args: object, **kwargs: object) -> int:
        raise AssertionError("searched a clear choice")

    monkeypatch.setattr(search_module, "rollout", no_search)
    scored = [(1.0, 3, 1.0), (1.0 + searcher.SEARCH_MARGIN + 0.5, 4, 2.0)]
    assert searcher.pick_discard(view, turn, scored, None) == scored[0]
