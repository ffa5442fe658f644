"""Melds, deadwood and the exact best arrangement of a hand (docs/rules.md §2), on typed cards.

The searches themselves work on card masks in `masks` (its docstring explains them);
these functions take anything that names cards and return typed values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .cards import CardLike, CardSet, as_mask
from .fast_core import SUIT_BITS, all_best_melds, best_melds, least_deadwood, points
from .fast_core import knock_options as mask_knock_options

__all__ = [
    "Meld",
    "Arrangement",
    "is_meld",
    "min_deadwood",
    "best_arrangement",
    "all_best_arrangements",
    "knock_options",
    "deadwood_points",
]


def min_deadwood(cards: CardSet | Iterable[CardLike] | str) -> int:
    """The least deadwood count any arrangement of `cards` leaves (docs/rules.md §2).

    >>> min_deadwood(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC"))
    11
    """
    if type(cards) is CardSet:
        return least_deadwood(cards.mask)
    return least_deadwood(as_mask(cards))


def deadwood_points(cards: CardSet | Iterable[CardLike] | str) -> int:
    """The sum of the point values of `cards` (all counted as deadwood)."""
    return points(as_mask(cards))


@dataclass(frozen=True, slots=True)
class Meld:
    """A set (3-4 cards of a rank) or a run (3+ consecutive cards of a suit)."""

    cards: CardSet

    @property
    def kind(self) -> str:
        """`"set"` or `"run"`."""
        ranks = {c.rank for c in self.cards}
        return "set" if len(ranks) == 1 else "run"

    def __str__(self) -> str:
        return str(self.cards)

    def to_json(self) -> list[str]:
        """The meld's cards in rule-book notation."""
        return self.cards.to_json()


def is_meld(cards: CardSet | Iterable[CardLike] | str) -> bool:
    """True for a valid set or run (docs/rules.md §2)."""
    mask = as_mask(cards)
    n = mask.bit_count()
    if n < 3:
        return False
    suits = [mask >> (13 * s) & SUIT_BITS for s in range(4)]
    if n <= 4 and sum(1 for p in suits if p) == n and len({p for p in suits if p}) == 1:
        return True
    held = [p for p in suits if p]
    if len(held) != 1:
        return False
    pattern = held[0]
    low = pattern & -pattern
    return (pattern // low) & ((pattern // low) + 1) == 0


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Disjoint melds plus the deadwood cards left over, with their count."""

    melds: tuple[CardSet, ...]
    deadwood_cards: CardSet
    deadwood: int

    def __iter__(self) -> Iterator[object]:
        # Allows `melds, deadwood_cards, deadwood = best_arrangement(hand)`.
        return iter((self.melds, self.deadwood_cards, self.deadwood))

    def to_json(self) -> dict[str, object]:
        """`{"melds": [[...], ...], "deadwood_cards": [...], "deadwood": n}`."""
        return {
            "melds": [m.to_json() for m in self.melds],
            "deadwood_cards": self.deadwood_cards.to_json(),
            "deadwood": self.deadwood,
        }

    def __str__(self) -> str:
        parts = [f"[{m}]" for m in self.melds]
        if self.deadwood_cards:
            parts.append(f"deadwood {self.deadwood_cards} = {self.deadwood}")
        else:
            parts.append("deadwood 0")
        return " ".join(parts)


def best_arrangement(cards: CardSet | Iterable[CardLike] | str) -> Arrangement:
    """An arrangement with the least deadwood (melds, deadwood cards, deadwood count).

    >>> a = best_arrangement(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC"))
    >>> [str(m) for m in a.melds], str(a.deadwood_cards), a.deadwood
    (['9C 9D 9H 9S', '3S 4S 5S 6S'], 'KC AD', 11)
    """
    mask = as_mask(cards)
    melds = best_melds(mask)
    dead = mask
    for m in melds:
        dead &= ~m
    return Arrangement(tuple(CardSet.from_mask(m) for m in melds), CardSet.from_mask(dead), points(dead))


def all_best_arrangements(cards: CardSet | Iterable[CardLike] | str) -> list[Arrangement]:
    """Every distinct arrangement that reaches the least deadwood.

    Used at the showdown, where the knocker's choice among equal arrangements
    changes what the opponent can lay off.
    """
    mask = as_mask(cards)
    found = []
    for melds in all_best_melds(mask):
        dead = mask
        for m in melds:
            dead &= ~m
        found.append(
            Arrangement(tuple(CardSet.from_mask(m) for m in melds), CardSet.from_mask(dead), points(dead))
        )
    return found


def knock_options(cards: CardSet | Iterable[CardLike] | str, knock_limit: int = 10) -> dict[int, int]:
    """For an 11-card hand: each card index whose discard allows a knock, with the deadwood left.

    >>> opts = knock_options(parse_cards("3S 4S 5S 6S 9C 9D 9H 9S AD KC 2D"))
    >>> {str(CardSet.from_mask(1 << i)): d for i, d in opts.items()}
    {'KC': 3}
    """
    return mask_knock_options(as_mask(cards), knock_limit)
