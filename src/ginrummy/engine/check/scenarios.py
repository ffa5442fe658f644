"""Real positions the checker sends an engine: found by our players' seeded games, for every phase,
preset and game the protocol covers."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...bots import make_player
from ...bots.table_players import TablePlayer, make_game_player
from ...rules import (
    BigGin,
    Draw,
    GameView,
    GinTableView,
    Knock,
    LayMeld,
    LayOff,
    Match,
    Rules,
    RummyView,
    View,
    min_deadwood,
    new_game,
)
from ..protocol import AnyView

__all__ = [
    "Scenario",
    "TableScenario",
    "finished_table_view",
    "finished_view",
    "protocol_view",
    "scenarios",
    "table_players",
    "table_scenarios",
]


@dataclass(frozen=True, slots=True)
class Scenario:
    """A real position for the engine's seat: what it shows, and the view to send."""

    name: str
    view: View


def _is_gin_chance(view: View) -> bool:
    return any(isinstance(a, Knock) and min_deadwood(view.hand - a.card) == 0 for a in view.legal)


# name, preset, test on the view of the seat to act
_WANTED: tuple[tuple[str, str, Callable[[View], bool]], ...] = (
    ("offer: the first upcard, first to decide", "classic", lambda v: v.phase == "offer" and not v.history),
    (
        "offer: the first upcard after the other player passed",
        "classic",
        lambda v: v.phase == "offer" and len(v.history) == 1,
    ),
    (
        "draw: stock only, both players passed the first upcard",
        "classic",
        lambda v: v.phase == "draw" and len(v.legal) == 1,
    ),
    ("draw: stock or upcard", "classic", lambda v: v.phase == "draw" and len(v.legal) == 2),
    (
        "discard after drawing from the stock",
        "classic",
        lambda v: (
            v.phase == "discard" and v.history[-1].to_json()["action"] == {"type": "draw", "source": "stock"}
        ),
    ),
    (
        "discard after taking the upcard (that card may not be discarded)",
        "classic",
        lambda v: (
            v.phase == "discard"
            and v.history[-1].to_json()["action"] == {"type": "draw", "source": "discard"}
        ),
    ),
    (
        "discard with a knock allowed",
        "classic",
        lambda v: any(isinstance(a, Knock) for a in v.legal) and not _is_gin_chance(v),
    ),
    ("discard with Gin possible", "classic", _is_gin_chance),
    ("a later hand, with scores", "classic", lambda v: v.hand_number > 1 and max(v.scores) > 0),
    ("three cards left in the stock", "classic", lambda v: v.phase == "draw" and v.stock_count == 3),
    (
        "Oklahoma: knock limit set by the first upcard",
        "oklahoma",
        lambda v: v.phase == "discard" and 0 < v.knock_limit < 10,
    ),
    ("Oklahoma: an ace upcard, only Gin ends the hand", "oklahoma", lambda v: v.knock_limit == 0),
    ("Hoyle rules (end-of-match bonuses)", "hoyle", lambda v: v.phase == "discard" and v.hand_number > 1),
    ("Big Gin: all eleven cards melded", "big_gin", lambda v: any(isinstance(a, BigGin) for a in v.legal)),
)


@functools.cache
def scenarios(*, seeds: int = 400) -> tuple[list[Scenario], list[str]]:
    """A real position for each kind the checker tries, found by our baseline players' seeded games.

    Returns the positions and the names of any kind no game reached within `seeds` matches.
    """
    found: dict[str, View] = {}
    for preset in dict.fromkeys(p for _, p, _ in _WANTED):
        wanted = [(name, test) for name, p, test in _WANTED if p == preset]
        for seed in range(seeds):
            if all(name in found for name, _ in wanted):
                break
            match = Match(Rules.preset(preset), seed=seed)
            players = [make_player("baseline", seed=seed * 2 + s) for s in (0, 1)]
            for _ in range(2000):
                if match.is_over:
                    break
                seat = match.to_act
                assert seat is not None
                view = match.view(seat)
                for name, test in wanted:
                    if name not in found and test(view):
                        found[name] = view
                match.apply(players[seat].act(view), seat)
    ordered = [Scenario(name, found[name]) for name, _, _ in _WANTED if name in found]
    missing = [name for name, _, _ in _WANTED if name not in found]
    return ordered, missing


# -- positions of the games for more than two (version 2) ------------------------------


@dataclass(frozen=True, slots=True)
class TableScenario:
    """A real position of a game of version 2 for the seat to act: what it shows, and the view."""

    name: str
    view: AnyView


def _own_table(view: GinTableView) -> Any:
    number = view.table
    return None if number is None else view.tables[number]


def _goes_out(view: RummyView) -> bool:
    """Whether some legal action empties the hand (a last discard, or laying the last cards)."""
    size = len(view.hand)
    for action in view.legal:
        if isinstance(action, LayMeld) and len(action.cards) == size:
            return True
        if size == 1 and not isinstance(action, Draw):
            return True
    return False


def _table_wanted() -> list[tuple[str, Rules, Callable[[Any], bool]]]:
    gin3, teams = Rules.preset("gin3"), Rules.preset("gin4_teams")
    wanted: list[tuple[str, Rules, Callable[[Any], bool]]] = [
        (
            "gin3: the first upcard, first to decide",
            gin3,
            lambda v: v.phase == "offer" and not _own_table(v).history,
        ),
        (
            "gin3: the first upcard after the other player passed",
            gin3,
            lambda v: v.phase == "offer" and len(_own_table(v).history) == 1,
        ),
        ("gin3: draw: stock or upcard", gin3, lambda v: v.phase == "draw" and len(v.legal) == 2),
        ("gin3: discard with a knock allowed", gin3, lambda v: any(isinstance(a, Knock) for a in v.legal)),
        ("gin3: a later hand, with three totals", gin3, lambda v: v.hand_number > 1 and sum(v.scores) > 0),
        ("gin4_teams: the first upcard", teams, lambda v: v.phase == "offer"),
        (
            "gin4_teams: both hands waiting for a move at once",
            teams,
            lambda v: v.phase == "discard" and all(t.to_act is not None for t in v.tables),
        ),
        (
            "gin4_teams: discard with a knock allowed",
            teams,
            lambda v: any(isinstance(a, Knock) for a in v.legal),
        ),
        (
            "gin4_teams: after a round, with team totals",
            teams,
            lambda v: v.hand_number > 1 and sum(v.scores) > 0,
        ),
    ]
    for players in (2, 3, 4, 6):
        rules = Rules.for_game("rummy", players)
        wanted += [
            (
                f"rummy for {players}: draw: stock or discard pile",
                rules,
                lambda v: v.phase == "draw" and len(v.legal) == 2,
            ),
            (
                f"rummy for {players}: a meld to lay",
                rules,
                lambda v: v.phase == "play" and any(isinstance(a, LayMeld) for a in v.legal),
            ),
            (
                f"rummy for {players}: a card to lay off",
                rules,
                lambda v: any(isinstance(a, LayOff) for a in v.legal),
            ),
            (f"rummy for {players}: going out", rules, _goes_out),
        ]
    wanted.append(
        (
            "rummy for 6: the stock is empty: draw turns the discard pile over",
            Rules.for_game("rummy", 6),
            lambda v: v.phase == "draw" and v.stock_count == 0,
        ),
    )
    return wanted


def table_players(rules: Rules, seed: int) -> list[TablePlayer]:
    name = "novice" if rules.game == "rummy" else "baseline"
    return [make_game_player(name, rules, seed=seed * 8 + s) for s in range(rules.players)]


@functools.cache
def table_scenarios(*, seeds: int = 60) -> tuple[list[TableScenario], list[str]]:
    """A real position for each kind of version-2 check, found by our players' seeded games.

    Returns the positions and the names of any kind no game reached within `seeds` games.
    """
    wanted = _table_wanted()
    found: dict[str, AnyView] = {}
    for rules in dict.fromkeys(r for _, r, _ in wanted):
        tests = [(name, test) for name, r, test in wanted if r == rules]
        for seed in range(seeds):
            if all(name in found for name, _ in tests):
                break
            game = new_game(rules, seed=seed)
            players = table_players(rules, seed)
            for _ in range(3000):
                if game.is_over:
                    break
                seat = game.seats_to_act[0]
                view = protocol_view(game.view(seat))
                for name, test in tests:
                    if name not in found and test(view):
                        found[name] = view
                game.apply(players[seat].act(view), seat)
    ordered = [TableScenario(name, found[name]) for name, _, _ in wanted if name in found]
    missing = [name for name, _, _ in wanted if name not in found]
    return ordered, missing


def protocol_view(view: GameView) -> AnyView:
    """A game's view as the protocol's types (every game's view is one)."""
    assert isinstance(view, (View, GinTableView, RummyView))
    return view


def finished_view() -> View:
    """A seat's view of a finished hand (phase `over`, with its showdown), from a seeded game."""
    match = Match(Rules.preset("classic"), seed=3)
    players = [make_player("baseline", seed=s) for s in (0, 1)]
    while True:
        seat = match.to_act
        assert seat is not None
        result = match.apply(players[seat].act(match.view(seat)), seat)
        if result is not None and result.outcome != "void":
            return match.hand_view(0, len(match.hands) if match.is_over else len(match.hands) - 1)


def finished_table_view() -> AnyView:
    """A seat's view of a finished Rummy hand (with its result), from a seeded game."""
    rules = Rules.preset("rummy")
    game = new_game(rules, seed=3)
    players = table_players(rules, 3)
    while True:
        seat = game.seats_to_act[0]
        number = game.hand_number
        ended = game.apply(players[seat].act(game.view(seat)), seat)
        if ended is not None and ended.outcome != "void":
            return protocol_view(game.hand_view(0, number))
