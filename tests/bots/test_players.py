"""The computer players: legal moves everywhere, the baseline's published rules, and views only."""

from __future__ import annotations

import gc
import inspect
import random
import types
from typing import Any

import pytest
from bot_helpers import LEVEL_NAMES, OUR_PLAYERS, hand_view, random_positions

from ginrummy.bots import available_players, make_player
from ginrummy.bots.base import _REGISTRY
from ginrummy.bots.baseline import BaselinePlayer
from ginrummy.rules import (
    Card,
    CardSet,
    Discard,
    Draw,
    Hand,
    Knock,
    Match,
    Pass,
    View,
    min_deadwood,
    new_match,
    parse_cards,
)
from ginrummy.rules.masks import forms_meld


def test_every_level_is_registered() -> None:
    names = set(available_players())
    assert {"random", "baseline", *LEVEL_NAMES} <= names


@pytest.mark.parametrize("name", OUR_PLAYERS)
def test_players_choose_legal_actions_in_random_positions(name: str) -> None:
    player = make_player(name, seed=3, time_budget=0.05)
    seen_phases = set()
    for _, view in random_positions(150, seed=11):
        action = player.act(view)
        assert action in view.legal, f"{name} chose {action} in phase {view.phase}"
        seen_phases.add(view.phase)
    assert seen_phases == {"offer", "draw", "discard"}


@pytest.mark.parametrize("preset", ["hoyle", "oklahoma", "big_gin"])
def test_levels_play_whole_matches_under_each_preset(preset: str) -> None:
    from ginrummy.arena import play_match

    for i, name in enumerate(LEVEL_NAMES):
        stats = play_match(name, "baseline", preset, seed=40 + i, a_seat=i % 2)
        assert stats.forfeit is None
        assert stats.winner in ("a", "b")


def test_levels_take_big_gin_when_offered() -> None:
    from ginrummy.arena import play_match

    stats = play_match("advanced", "casual", "big_gin", seed=5)
    assert stats.forfeit is None


# -- the baseline's rules --------------------------------------------------------


def test_baseline_takes_an_upcard_that_makes_a_meld() -> None:
    player = BaselinePlayer(seed=1)
    view = hand_view("7H 8H 2C 4D 6S 9S JC QD KS AH", "9H")
    assert player.act(view) == Draw("discard")
    view = hand_view("7H 7S 2C 4D 6S 9D JC QD KS AH", "7C", phase="offer")
    assert player.act(view) == Draw("discard")


def test_baseline_refuses_an_upcard_that_makes_no_meld() -> None:
    player = BaselinePlayer(seed=1)
    # AS would lower the deadwood a lot but melds with nothing: the baseline still refuses it.
    view = hand_view("7H 8H 2C 4D 6S 9S JC QD KS KH", "AS")
    assert player.act(view) == Draw("stock")
    view = hand_view("7H 8H 2C 4D 6S 9S JC QD KS KH", "AS", phase="offer")
    assert player.act(view) == Pass()


def test_baseline_draw_rule_over_random_positions() -> None:
    player = BaselinePlayer(seed=2)
    checked = 0
    for _, view in random_positions(300, seed=5):
        if view.phase not in ("offer", "draw"):
            continue
        action = player.act(view)
        up = view.upcard
        wanted = up is not None and Draw("discard") in view.legal and forms_meld(up.index, view.hand.mask)
        assert (action == Draw("discard")) == wanted
        checked += 1
    assert checked > 50


def _play_with_baseline(seed: int, visit: Any) -> None:
    """Baseline against itself; `visit(view, action)` sees every decision."""
    match = new_match("classic", seed=seed)
    players = [BaselinePlayer(seed=seed), BaselinePlayer(seed=seed + 1)]
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        action = players[seat].act(view)
        visit(view, action)
        match.apply(action, seat)


def test_baseline_never_discards_the_card_just_taken_and_knocks_at_once() -> None:
    counts = {"took": 0, "knock": 0}

    def visit(view: View, action: Any) -> None:
        if view.phase != "discard":
            return
        last = view.history[-1]
        if last.seat == view.seat and last.kind == "draw" and last.source == "discard":
            counts["took"] += 1
            assert action.card != last.card
        knocks = [a for a in view.legal if isinstance(a, Knock)]
        if knocks:
            counts["knock"] += 1
            assert isinstance(action, Knock), "the baseline knocks at the first chance"
            best = min(min_deadwood(view.hand.mask & ~(1 << a.card.index)) for a in knocks)
            assert min_deadwood(view.hand.mask & ~(1 << action.card.index)) == best
        else:
            # An ordinary discard leaves the least deadwood possible.
            hand = view.hand.mask
            options = [a for a in view.legal if isinstance(a, Discard)]
            best = min(min_deadwood(hand & ~(1 << a.card.index)) for a in options)
            assert min_deadwood(hand & ~(1 << action.card.index)) == best

    for seed in range(6):
        _play_with_baseline(seed, visit)
    assert counts["took"] > 5 and counts["knock"] > 10


def test_baseline_discards_at_random_among_equal_choices() -> None:
    # Two lone kings leave the same deadwood; different seeds pick both.
    view = hand_view("AC 2C 3C 5D 6D 7D 9H 9S KS KC", "2H")
    from ginrummy.rules import build_view
    from ginrummy.rules.hand import Hand as _Hand

    assert isinstance(view, View)
    picks = set()
    for seed in range(30):
        h = _Hand(view.rules, 1, dealer=1)
        h.hands[0] = parse_cards("AC 2C 3C 5D 6D 7D 9H 9S KS KC QH").mask
        h.hands[1] = 0
        h.to_act = 0
        h.phase = "discard"
        v = build_view(h, 0, hand_number=1, scores=(0, 0))
        action = BaselinePlayer(seed=seed).act(v)
        picks.add(str(action.card))  # type: ignore[union-attr]
    assert picks == {"KS", "KC", "QH"}


# -- players see only views ---------------------------------------------------------


def _reachable(root: object) -> list[object]:
    """Every object reachable from `root` through instance references.

    Classes, modules and functions are not followed: they lead to module globals, which
    hold no game state (the registry holds factories, not players or matches).
    """
    seen: dict[int, object] = {}
    stack = [root]
    skip = (
        type,
        types.ModuleType,
        types.FunctionType,
        types.BuiltinFunctionType,
        types.CodeType,
        types.MethodType,
    )
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, skip):
            continue
        seen[id(obj)] = obj
        stack.extend(gc.get_referents(obj))
        # Read slots explicitly too, so nothing depends on how gc reports slotted objects.
        for klass in type(obj).__mro__:
            for slot in getattr(klass, "__slots__", ()):
                if slot != "__weakref__" and hasattr(obj, slot):
                    stack.append(getattr(obj, slot))
    return list(seen.values())


def test_the_reachability_walk_finds_hidden_state_when_it_is_there() -> None:
    # Negative control: an object that does hold the hand is caught by the same walk.
    match = new_match(seed=4)

    class Leaky:
        def __init__(self) -> None:
            self.secret = {"state": [match.hand]}

    found = _reachable(Leaky())
    assert any(isinstance(obj, Hand) for obj in found)
    assert any(isinstance(obj, int) and obj == match.hand.hands[1] for obj in found)


def _visible_cards(view: View) -> int:
    mask = view.hand.mask | view.opponent_known.mask
    for card in view.discard_pile:
        mask |= 1 << card.index
    for entry in view.history:
        if entry.card is not None:
            mask |= 1 << entry.card.index
    return mask


def _hidden_facts(match: Match, seat: int) -> tuple[int, int, list[int]]:
    hand = match.hand
    return hand.hands[1 - seat], hand.hands[1 - seat] & ~hand.known[1 - seat], list(hand.stock)


def test_nothing_reachable_from_a_view_holds_hidden_cards() -> None:
    checked = 0
    for match, view in random_positions(40, seed=21):
        seat = view.seat
        opp_mask, opp_hidden, stock = _hidden_facts(match, seat)
        visible = _visible_cards(view)
        objects = _reachable(view)
        assert len(objects) > 30  # the walk really goes through the view's fields
        for obj in objects:
            assert not isinstance(obj, (Match, Hand)), "a view leads back to the game state"
            if isinstance(obj, Card):
                assert visible >> obj.index & 1, f"{obj} is reachable but not visible to seat {seat}"
            elif isinstance(obj, CardSet):
                assert obj.mask & ~visible == 0
            elif isinstance(obj, int) and not isinstance(obj, bool) and obj > 52:
                assert obj not in (opp_mask, opp_hidden), "the opponent's hand is reachable as a mask"
            elif isinstance(obj, list) and len(obj) > 3:
                assert obj != stock, "the stock is reachable from the view"
        checked += 1
    assert checked == 40


def _factory_parameters(name: str) -> set[str]:
    factory = _REGISTRY[name]
    target = factory.__init__ if inspect.isclass(factory) else factory  # type: ignore[misc]
    return set(inspect.signature(target).parameters) - {"self"}


@pytest.mark.parametrize("name", OUR_PLAYERS)
def test_players_are_built_from_a_seed_and_a_budget_only(name: str) -> None:
    assert _factory_parameters(name) <= {"seed", "time_budget"}


@pytest.mark.parametrize("name", OUR_PLAYERS)
def test_players_hold_no_game_state_after_a_match(name: str) -> None:
    match = new_match("classic", seed=9)
    players = [make_player(name, seed=1), make_player("baseline", seed=2)]
    steps = 0
    while not match.is_over and steps < 400:
        seat = match.to_act
        assert seat is not None
        action = players[seat].act(match.view(seat))
        match.apply(action, seat)
        steps += 1
    for obj in _reachable(players[0]):
        assert not isinstance(obj, (Match, Hand)), f"{name} keeps a reference to the game state"


def test_a_view_from_json_plays_the_same() -> None:
    # Players decide from the public VIEW alone: the JSON round trip changes nothing.
    rng = random.Random(4)
    for name in LEVEL_NAMES:
        for _, view in random_positions(25, seed=rng.randrange(1000)):
            again = View.from_json(view.to_json())
            assert make_player(name, seed=7).act(view) == make_player(name, seed=7).act(again)


def test_unknown_player_name_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown player 'grandmaster'"):
        make_player("grandmaster")
