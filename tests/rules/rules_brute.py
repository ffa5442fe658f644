"""Brute-force oracles for the rules tests, written from RULES.md without the engine's code.

Cards here are plain (rank, suit) pairs — rank 1 (ace) to 13 (king), suit one of
"CDHS" — so nothing below shares a data structure, a table or a search order with
`ginrummy.rules`. Everything is exhaustive and slow on purpose: it is the reference.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations

BruteCard = tuple[int, str]
Cards = frozenset[BruteCard]

RANK_TEXT = {1: "A", 10: "T", 11: "J", 12: "Q", 13: "K"}


def card_text(card: BruteCard) -> str:
    """Rule-book notation of a brute card: (10, "D") -> "TD"."""
    rank, suit = card
    return RANK_TEXT.get(rank, str(rank)) + suit


def from_text(text: str) -> BruteCard:
    """A brute card from two-character rule-book notation (no engine parser involved)."""
    rank_char, suit = text[0].upper(), text[1].upper()
    ranks = {v: k for k, v in RANK_TEXT.items()} | {str(r): r for r in range(2, 10)}
    return ranks[rank_char], suit


def cards_of(text: str | Iterable[str]) -> Cards:
    """Brute cards from space-separated notation or an iterable of card strings."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return frozenset(from_text(t) for t in tokens)


def points(card: BruteCard) -> int:
    """Pip value: ace 1, two to ten face value, faces 10."""
    return min(card[0], 10)


def total(cards: Iterable[BruteCard]) -> int:
    """Sum of pip values."""
    return sum(points(c) for c in cards)


def is_meld(cards: Iterable[BruteCard]) -> bool:
    """A set (3-4 cards of one rank, so necessarily distinct suits) or a run (3+ consecutive, one suit)."""
    group = set(cards)
    if len(group) < 3:
        return False
    ranks = sorted(rank for rank, _ in group)
    suits = {suit for _, suit in group}
    if len(set(ranks)) == 1:
        return len(group) <= 4
    if len(suits) != 1:
        return False
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def melds_in(cards: Cards) -> list[Cards]:
    """Every meld that can be formed from `cards`, found by testing every 3+ card subset
    of each rank and each suit (not by construction)."""
    found: set[Cards] = set()
    by_rank: dict[int, list[BruteCard]] = {}
    by_suit: dict[str, list[BruteCard]] = {}
    for card in cards:
        by_rank.setdefault(card[0], []).append(card)
        by_suit.setdefault(card[1], []).append(card)
    for group in list(by_rank.values()) + list(by_suit.values()):
        for size in range(3, len(group) + 1):
            for combo in combinations(group, size):
                if is_meld(combo):
                    found.add(frozenset(combo))
    return sorted(found, key=lambda m: sorted(m))


def arrangements(cards: Cards) -> list[tuple[tuple[Cards, ...], int]]:
    """Every collection of pairwise disjoint melds from `cards`, with its deadwood count."""
    melds = melds_in(cards)
    result: list[tuple[tuple[Cards, ...], int]] = []

    def grow(start: int, used: frozenset[BruteCard], chosen: tuple[Cards, ...]) -> None:
        result.append((chosen, total(cards - used)))
        for i in range(start, len(melds)):
            if not melds[i] & used:
                grow(i + 1, used | melds[i], chosen + (melds[i],))

    grow(0, frozenset(), ())
    return result


@lru_cache(maxsize=200_000)
def min_deadwood(cards: Cards) -> int:
    """The least deadwood over every collection of disjoint melds."""
    return min(dead for _, dead in arrangements(cards))


def best_arrangements(cards: Cards) -> list[tuple[Cards, ...]]:
    """Every meld collection reaching the least deadwood."""
    everything = arrangements(cards)
    least = min(dead for _, dead in everything)
    return [melds for melds, dead in everything if dead == least]


def layable_subsets(melds: Iterable[Cards], defender: Cards) -> dict[frozenset[BruteCard], None]:
    """Every subset of `defender` that can be laid off, one card at a time, onto `melds`.

    A layoff is legal when the meld with the card added is still a meld; a
    laid-off card may make room for the next one. Explores every order and every
    choice of meld, so contested cards (fit a set and a run) are tried both ways.
    """
    start = tuple(sorted((frozenset(m) for m in melds), key=lambda m: sorted(m)))
    seen: set[tuple[frozenset[BruteCard], tuple[Cards, ...]]] = set()
    laid_sets: dict[frozenset[BruteCard], None] = {}
    stack: list[tuple[frozenset[BruteCard], tuple[Cards, ...]]] = [(frozenset(), start)]
    while stack:
        laid, state = stack.pop()
        if (laid, state) in seen:
            continue
        seen.add((laid, state))
        laid_sets[laid] = None
        for card in defender - laid:
            for i, meld in enumerate(state):
                grown = meld | {card}
                if is_meld(grown):
                    stack.append((laid | {card}, state[:i] + (grown,) + state[i + 1 :]))
    return laid_sets


def defender_deadwood(knocker_melds: Iterable[Cards], defender: Cards) -> int:
    """The defender's least deadwood: best own arrangement after the best layoffs."""
    return min(min_deadwood(defender - laid) for laid in layable_subsets(knocker_melds, defender))


def showdown_defender_deadwood(knocker: Cards, defender: Cards) -> int:
    """RULES.md §4: the knocker picks, among least-deadwood arrangements, the one that
    leaves the defender the most deadwood after the defender's best layoffs."""
    return max(defender_deadwood(melds, defender) for melds in best_arrangements(knocker))


def knock_options(cards: Cards, knock_limit: int) -> dict[BruteCard, int]:
    """For 11 cards: each discard leaving at most `knock_limit` deadwood, with that deadwood."""
    result = {}
    for card in cards:
        dead = min_deadwood(cards - {card})
        if dead <= knock_limit:
            result[card] = dead
    return result
