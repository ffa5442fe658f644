"""The showdown: both arrangements, the opponent's layoffs and the hand's score (docs/rules.md §4-5)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .cards import CARDS, Card, CardLike, CardSet, as_mask
from .fast_core import all_best_melds as mask_all_best_melds
from .fast_core import best_layoffs as mask_best_layoffs
from .fast_core import least_deadwood as mask_least_deadwood
from .fast_core import points as mask_points
from .melds import Arrangement, best_arrangement
from .variants import Rules

__all__ = ["Layoff", "Showdown", "ShowdownError", "best_layoffs", "score_showdown"]

Outcome = Literal["knock", "gin", "big_gin", "undercut", "tie"]
Scorer = Literal["knocker", "defender"]


class ShowdownError(ValueError):
    """The hands cannot meet at a showdown (overlap, wrong size, too much deadwood)."""


@dataclass(frozen=True, slots=True)
class Layoff:
    """A defender's card added to the knocker's meld number `meld` (an index into its melds)."""

    card: Card
    meld: int

    def to_json(self) -> dict[str, Any]:
        """`{"card": "8H", "meld": 0}`."""
        return {"card": str(self.card), "meld": self.meld}


def best_layoffs(
    knocker_melds: Iterable[CardSet], defender_cards: CardSet | Iterable[CardLike] | str
) -> tuple[int, list[Layoff]]:
    """The defender's least deadwood when laying off on `knocker_melds`, and the layoffs used."""
    melds = [as_mask(m) for m in knocker_melds]
    value, _, layoffs = mask_best_layoffs(melds, as_mask(defender_cards))
    return value, [Layoff(CARDS[i], k) for i, k in layoffs]


@dataclass(frozen=True, slots=True)
class Showdown:
    """The result of one knock (or Gin, or Big Gin) at the showdown."""

    outcome: Outcome
    scorer: Scorer | None
    points: int
    knocker_deadwood: int
    #: The defender's deadwood after layoffs (none after Gin or Big Gin).
    defender_deadwood: int
    knocker_melds: tuple[CardSet, ...]
    knocker_deadwood_cards: CardSet
    defender_melds: tuple[CardSet, ...]
    defender_deadwood_cards: CardSet
    layoffs: tuple[Layoff, ...]
    knock_limit: int
    multiplier: int = 1
    #: The bonus inside `points` before the multiplier: Gin, Big Gin or undercut (0 for a plain knock).
    bonus: int = 0

    @property
    def laid_off(self) -> CardSet:
        """The defender's cards laid off on the knocker's melds."""
        return CardSet(layoff.card for layoff in self.layoffs)

    def to_json(self) -> dict[str, Any]:
        """The showdown as JSON (docs/protocol.md `showdown`), seen from the knocker and defender."""
        return {
            "outcome": self.outcome,
            "scorer": self.scorer,
            "points": self.points,
            "knocker_deadwood": self.knocker_deadwood,
            "defender_deadwood": self.defender_deadwood,
            "knocker_melds": [m.to_json() for m in self.knocker_melds],
            "knocker_deadwood_cards": self.knocker_deadwood_cards.to_json(),
            "defender_melds": [m.to_json() for m in self.defender_melds],
            "defender_deadwood_cards": self.defender_deadwood_cards.to_json(),
            "layoffs": [layoff.to_json() for layoff in self.layoffs],
            "knock_limit": self.knock_limit,
            "multiplier": self.multiplier,
            "bonus": self.bonus,
        }


def score_showdown(
    knocker_cards: CardSet | Iterable[CardLike] | str,
    defender_cards: CardSet | Iterable[CardLike] | str,
    rules: Rules | None = None,
    *,
    knock_limit: int | None = None,
    multiplier: int = 1,
) -> Showdown:
    """Arrange both hands, lay off, and score the hand by docs/rules.md §4-5.

    `knocker_cards` holds 10 cards after the face-down discard, or 11 for Big Gin.
    `knock_limit` overrides the rules' limit (Oklahoma); `multiplier` doubles an
    Oklahoma spade hand.

    >>> s = score_showdown("4H 5H 6H 7H 9S 9D 9C 2D 3S 4C", "KS KH KD 5S 6S 7S 8H 3H JC 2S")
    >>> s.outcome, s.scorer, s.points, s.knocker_deadwood, s.defender_deadwood
    ('knock', 'knocker', 3, 9, 12)
    """
    rules = rules if rules is not None else Rules()
    limit = rules.knock_limit if knock_limit is None else knock_limit
    knocker = as_mask(knocker_cards)
    defender = as_mask(defender_cards)
    if knocker & defender:
        raise ShowdownError(f"both hands hold {CardSet.from_mask(knocker & defender)}")
    n = knocker.bit_count()
    if n not in (10, 11):
        raise ShowdownError(f"the knocker must show 10 cards (11 for Big Gin), not {n}")
    if defender.bit_count() != 10:
        raise ShowdownError(f"the defender must show 10 cards, not {defender.bit_count()}")

    if n == 11:
        if not rules.big_gin:
            raise ShowdownError("Big Gin is not played under these rules")
        arrangement = best_arrangement(CardSet.from_mask(knocker))
        if arrangement.deadwood:
            raise ShowdownError(f"Big Gin needs all eleven cards melded; {arrangement}")
        assert rules.big_gin_bonus is not None
        defender_alone = best_arrangement(CardSet.from_mask(defender))
        return _final(
            "big_gin",
            "knocker",
            rules.big_gin_bonus + defender_alone.deadwood,
            rules.big_gin_bonus,
            arrangement,
            defender_alone,
            (),
            0,
            defender_alone.deadwood,
            limit,
            multiplier,
        )

    # The arrangements are searched on masks; only the one shown becomes typed values.
    candidates = mask_all_best_melds(knocker)
    knocker_dw = mask_least_deadwood(knocker)
    if knocker_dw > limit:
        raise ShowdownError(f"cannot knock with {knocker_dw} deadwood; the knock limit is {limit}")
    if knocker_dw == 0:
        defender_alone = best_arrangement(CardSet.from_mask(defender))
        return _final(
            "gin",
            "knocker",
            rules.gin_bonus + defender_alone.deadwood,
            rules.gin_bonus,
            _arranged(knocker, candidates[0]),
            defender_alone,
            (),
            0,
            defender_alone.deadwood,
            limit,
            multiplier,
        )

    # Among the knocker's least-deadwood arrangements, the one that lets the
    # defender lay off the least is the knocker's best.
    chosen: tuple[list[int], int, int, list[tuple[int, int]]] | None = None
    for melds in candidates:
        value, laid, layoffs = mask_best_layoffs(melds, defender)
        if chosen is None or value > chosen[1]:
            chosen = (melds, value, laid, layoffs)
    assert chosen is not None
    melds, defender_dw, laid, layoffs = chosen
    arrangement = _arranged(knocker, melds)
    defender_rest = best_arrangement(CardSet.from_mask(defender & ~laid))
    layoff_objs = tuple(Layoff(CARDS[i], k) for i, k in layoffs)
    if defender_dw < knocker_dw or (defender_dw == knocker_dw and rules.undercut_on_tie):
        outcome: Outcome = "undercut"
        scorer: Scorer | None = "defender"
        bonus = rules.undercut_bonus
        points = knocker_dw - defender_dw + bonus
    elif defender_dw == knocker_dw:
        outcome, scorer, points, bonus = "tie", None, 0, 0
    else:
        outcome, scorer, points, bonus = "knock", "knocker", defender_dw - knocker_dw, 0
    return _final(
        outcome,
        scorer,
        points,
        bonus,
        arrangement,
        defender_rest,
        layoff_objs,
        knocker_dw,
        defender_dw,
        limit,
        multiplier,
    )


def _arranged(mask: int, melds: list[int]) -> Arrangement:
    """The typed arrangement of `mask` with these melds."""
    dead = mask
    for m in melds:
        dead &= ~m
    return Arrangement(tuple(CardSet.from_mask(m) for m in melds), CardSet.from_mask(dead), mask_points(dead))


def _final(
    outcome: Outcome,
    scorer: Scorer | None,
    points: int,
    bonus: int,
    knocker: Arrangement,
    defender: Arrangement,
    layoffs: tuple[Layoff, ...],
    knocker_dw: int,
    defender_dw: int,
    limit: int,
    multiplier: int,
) -> Showdown:
    return Showdown(
        outcome=outcome,
        scorer=scorer,
        points=points * multiplier,
        knocker_deadwood=knocker_dw,
        defender_deadwood=defender_dw,
        knocker_melds=knocker.melds,
        knocker_deadwood_cards=knocker.deadwood_cards,
        defender_melds=defender.melds,
        defender_deadwood_cards=defender.deadwood_cards,
        layoffs=layoffs,
        knock_limit=limit,
        multiplier=multiplier,
        bonus=bonus,
    )
