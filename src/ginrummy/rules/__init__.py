"""The rules of Gin Rummy (RULES.md): cards, melds, showdowns, hands, matches, views, records.

Pure and standard-library only: no I/O and no global randomness. `masks` is the same rules
on 52-bit card masks, the API computer players call thousands of times per decision.
"""

from . import masks
from .actions import (
    Action,
    ActionError,
    BigGin,
    Discard,
    Draw,
    Knock,
    Pass,
    action_from_json,
    parse_action,
)
from .cards import Card, CardError, CardSet, card_points, parse_card, parse_cards
from .hand import (
    Hand,
    HandResult,
    IllegalActionError,
    LegalMasks,
    NotYourTurnError,
    PublicStep,
    Step,
    deal_order,
)
from .match import Match, MatchOverError, MatchResult, deal_seed, new_match, seed_commitment
from .melds import (
    Arrangement,
    all_best_arrangements,
    best_arrangement,
    deadwood_points,
    is_meld,
    knock_options,
    min_deadwood,
)
from .record import HandRecord, MatchRecord, RecordError, dumps, loads
from .render import render_hand, render_match
from .showdown import Layoff, Showdown, ShowdownError, best_layoffs, score_showdown
from .variants import PRESETS, Rules, RulesError
from .views import HandEnd, View, ViewError, build_view

__all__ = [
    "Action",
    "ActionError",
    "Arrangement",
    "BigGin",
    "Card",
    "CardError",
    "CardSet",
    "Discard",
    "Draw",
    "Hand",
    "HandEnd",
    "HandRecord",
    "HandResult",
    "IllegalActionError",
    "Knock",
    "Layoff",
    "LegalMasks",
    "Match",
    "MatchOverError",
    "MatchRecord",
    "MatchResult",
    "NotYourTurnError",
    "PRESETS",
    "Pass",
    "PublicStep",
    "RecordError",
    "Rules",
    "RulesError",
    "Showdown",
    "ShowdownError",
    "Step",
    "View",
    "ViewError",
    "action_from_json",
    "all_best_arrangements",
    "best_arrangement",
    "best_layoffs",
    "build_view",
    "card_points",
    "deadwood_points",
    "deal_order",
    "deal_seed",
    "dumps",
    "is_meld",
    "knock_options",
    "loads",
    "masks",
    "min_deadwood",
    "new_match",
    "parse_action",
    "parse_card",
    "parse_cards",
    "render_hand",
    "render_match",
    "score_showdown",
    "seed_commitment",
]
