"""The rules of Gin Rummy (docs/rules.md): cards, melds, showdowns, hands, matches, views, records;
Gin for three players and for two teams, and classic Rummy for two to six (docs/rules.md §7-§8),
all behind one `Game` interface (`new_game`).

A hand (`hand`) is dealt from its seed's shuffle (`deal`) and keeps its steps as played and as
each seat saw them (`steps`). Pure and standard-library only: no I/O and no global randomness.
`masks` is the same rules on 52-bit card masks, the API computer players call thousands of times
per decision; `fast_core` gives the same functions from its mypyc build when one is built
(scripts/build_fast_core.py), and from `masks` otherwise.
"""

from . import masks
from .actions import (
    Action,
    ActionError,
    BigGin,
    Discard,
    Draw,
    GameAction,
    Knock,
    LayMeld,
    LayOff,
    Pass,
    action_from_json,
    game_action_from_json,
    parse_action,
    parse_game_action,
)
from .cards import Card, CardError, CardSet, card_points, parse_card, parse_cards
from .deal import deal_order, deal_seed, seed_commitment
from .game import (
    Game,
    GameResult,
    GameView,
    HandOutcome,
    game_from_record,
    game_view_from_json,
    load_game,
    new_game,
)
from .gin_table_views import GinTableView, TableHandView, TeamRoundResult
from .gin_tables import TeamGin, ThreeGin
from .hand import Hand, HandResult, IllegalActionError, LegalMasks, NotYourTurnError
from .match import Match, MatchOverError, MatchResult, new_match
from .melds import (
    Arrangement,
    all_best_arrangements,
    best_arrangement,
    deadwood_points,
    is_meld,
    knock_options,
    min_deadwood,
)
from .record import GameHandRecord, GameRecord, RecordError, dumps, loads
from .render import render_game, render_hand, render_match
from .results import TEAMS, RummyGameResult
from .rummy import DEAL_SIZES, RummyHand, RummyHandResult, RummyStep, TableMeld
from .rummy_game import RummyGame
from .rummy_melds import (
    is_rummy_meld,
    rummy_deadwood,
    rummy_hand_points,
    rummy_layoff_cards,
    rummy_layoff_fits,
    rummy_least_left,
    rummy_melds,
)
from .rummy_views import RummyEvent, RummyView, build_rummy_view
from .showdown import Layoff, Showdown, ShowdownError, best_layoffs, score_showdown
from .steps import PublicStep, Step
from .tables import choose_first_dealer
from .variants import GAMES, PRESETS, Rules, RulesError
from .views import HandEnd, View, ViewError, build_view

#: The result of three-player and team Gin under its earlier name: the one Gin result, `MatchResult`.
GinTableResult = MatchResult

__all__ = [
    "Action",
    "ActionError",
    "Arrangement",
    "BigGin",
    "Card",
    "CardError",
    "CardSet",
    "DEAL_SIZES",
    "Discard",
    "Draw",
    "GAMES",
    "Game",
    "GameAction",
    "GameHandRecord",
    "GameRecord",
    "GameResult",
    "GameView",
    "GinTableResult",
    "GinTableView",
    "Hand",
    "HandEnd",
    "HandOutcome",
    "HandResult",
    "IllegalActionError",
    "Knock",
    "LayMeld",
    "LayOff",
    "Layoff",
    "LegalMasks",
    "Match",
    "MatchOverError",
    "MatchResult",
    "NotYourTurnError",
    "PRESETS",
    "Pass",
    "PublicStep",
    "RecordError",
    "Rules",
    "RulesError",
    "RummyEvent",
    "RummyGame",
    "RummyGameResult",
    "RummyHand",
    "RummyHandResult",
    "RummyStep",
    "RummyView",
    "Showdown",
    "ShowdownError",
    "Step",
    "TEAMS",
    "TableHandView",
    "TableMeld",
    "TeamGin",
    "TeamRoundResult",
    "ThreeGin",
    "View",
    "ViewError",
    "action_from_json",
    "all_best_arrangements",
    "best_arrangement",
    "best_layoffs",
    "build_rummy_view",
    "build_view",
    "card_points",
    "choose_first_dealer",
    "deadwood_points",
    "deal_order",
    "deal_seed",
    "dumps",
    "game_action_from_json",
    "game_from_record",
    "game_view_from_json",
    "is_meld",
    "is_rummy_meld",
    "knock_options",
    "load_game",
    "loads",
    "masks",
    "min_deadwood",
    "new_game",
    "new_match",
    "parse_action",
    "parse_card",
    "parse_cards",
    "parse_game_action",
    "render_game",
    "render_hand",
    "render_match",
    "rummy_deadwood",
    "rummy_hand_points",
    "rummy_layoff_cards",
    "rummy_layoff_fits",
    "rummy_least_left",
    "rummy_melds",
    "score_showdown",
    "seed_commitment",
]
