"""Reasons for moves as data: phrases with their values, written in English here and in any language by a client.

A player's reason for a move is a `Reason`: a few `Phrase`s, each a key into a phrase book
with the values it names (cards, deadwood, percentages). `Reason.text()` writes it in English
(the terminal's hint, logs); `Reason.to_json()` gives the keys and values, which the web table
writes in the page's language from its catalogues (`hint.<key>` in `server/static/i18n/*.json`,
with the same placeholders as `ENGLISH`). Each phrase after the first carries the punctuation
that joins it to the one before (`", "`, `": "`, `"; "`), the same in every language here.

>>> from ginrummy.rules import Card, parse_cards
>>> why = Reason.of("take_makes", card=Card.parse("9H"), meld=parse_cards("7H 8H 9H"))
>>> why.text()
'take 9♥: it makes 7♥8♥9♥'
>>> why.then("first_chance", lead="; ").text()
'take 9♥: it makes 7♥8♥9♥; at the first chance'
>>> why.to_json()
[{'key': 'take_makes', 'values': {'card': '9H', 'meld': ['7H', '8H', '9H']}}]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from ..rules import Card, CardSet

__all__ = ["ENGLISH", "HEADS", "LEADS", "Phrase", "Reason", "Value"]

Value = int | float | Card | CardSet
#: How a phrase joins the one before it.
LEADS: Final = ("", ", ", ": ", "; ")

#: The phrase book in English. A key ending in ".one" / ".other" is a plural pair chosen by the
#: value `n` (as the web catalogues' `tn` does). Floats are written with one decimal.
ENGLISH: Final[dict[str, str]] = {
    # the plain facts of a move (suggest.explain)
    "pass": "pass",
    "stock": "draw from the stock",
    "take_upcard": "take the upcard",
    "pass_rather": "pass rather than take {card} (deadwood {now} → {after})",
    "stock_rather": "draw from the stock rather than take {card} (deadwood {now} → {after})",
    "pass_no_help": "pass: {card} does not help your hand (deadwood {now})",
    "stock_no_help": "draw from the stock: {card} does not help your hand (deadwood {now})",
    "take_makes": "take {card}: it makes {meld}",
    "take_deadwood": "take {card}: deadwood {now} → {after}",
    "big_gin_all": "all eleven cards are melded",
    "gin_throw": "Gin: throw {card} and every card is melded",
    "knock_with": "knock with {card}: {left} deadwood, opponent likely above {estimate}",
    "throw_deadwood": "throw {card}: deadwood {left}",
    "keeps_pair": "keeps the pair {cards} ({n} left to make a set)",
    "keeps_open": "keeps {cards} open at both ends",
    "keeps_run.one": "keeps {cards} ({n} card to make a run)",
    "keeps_run.other": "keeps {cards} ({n} cards to make a run)",
    # what the levels weigh (levels.py, expert/steady.py)
    "fewest_partners": "it goes with the fewest cards; points are not counted",
    "goes_with_loose": "it goes with a loose card",
    "first_chance": "at the first chance",
    "early_knock": "early in the hand a knock rarely gets undercut",
    "late_knock_low": "{deadwood} deadwood is low enough to knock late in the hand",
    "helps_opponent": "{percent}% chance it helps the opponent",
    "plays_on_for_gin": "plays on for Gin rather than knock with {deadwood}",
    "stock_would_leave": "a stock card would leave {expected} on average",
    "stock_leaves_vs": "a stock card leaves {expected} on average, {card} leaves {after}",
    "cash_in": "{deadwood} deadwood is too much to undercut a knock, so take the points now",
    # the expert's own words (expert/player.py): a head naming the move, then why
    "only_move": "the only legal move",
    "knock_head": "knock with {deadwood} deadwood",
    "gin_head": "Gin: every card melded",
    "big_gin_head": "Big Gin: all eleven cards melded",
    "take_head": "take {card}",
    "pass_head": "pass the upcard",
    "discard_head": "discard {card}",
    "take_and_throw": (
        "take {card} and throw {throw}: {expected} deadwood expected after the next draw, "
        "a better hand than a stock draw is likely to give"
    ),
    "worth_less_than_stock": "{card} is worth less than a stock draw",
    "leaves_expected": "leaves {expected} deadwood expected after the next draw",
    "unlikely_to_help": "and it is unlikely to help the opponent",
    "match_clinch": "a win now likely takes the match ({knock}% against {play}% playing on)",
    "match_threat": (
        "the opponent is {points} points from the match; knocking wins it {knock}% of the time "
        "against {play}% playing on"
    ),
    "play_on_undercut": "play on rather than knock with {deadwood}: a low hand undercuts a knock and Gin scores more",
}

#: Phrases that only name the move (a hint shows the move itself, so it leaves these out).
HEADS: Final = frozenset(
    {"stock", "pass", "take_upcard", "knock_head", "take_head", "pass_head", "discard_head"}
)


def _english(value: Value) -> str:
    if isinstance(value, Card):
        return value.pretty
    if isinstance(value, CardSet):
        return "".join(card.pretty for card in value)
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _json(value: Value) -> object:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, CardSet):
        return [str(card) for card in value]
    if isinstance(value, float):
        return round(value, 1)
    return value


@dataclass(frozen=True, slots=True)
class Phrase:
    """One phrase of a reason: its key in the phrase book, its values, and how it joins the one before."""

    key: str
    values: tuple[tuple[str, Value], ...] = ()
    lead: str = ""

    def __post_init__(self) -> None:
        if self.lead not in LEADS:
            raise ValueError(f"a phrase joins with one of {LEADS!r}, not {self.lead!r}")
        if self.book_key not in ENGLISH:
            raise ValueError(f"no phrase {self.key!r} in the phrase book")

    @property
    def book_key(self) -> str:
        """The key of its English text (a plural pair picks ".one" or ".other" by `n`)."""
        if f"{self.key}.other" not in ENGLISH:
            return self.key
        n = dict(self.values).get("n")
        return f"{self.key}.one" if n == 1 else f"{self.key}.other"

    def text(self) -> str:
        """The phrase in English (without its lead)."""
        return ENGLISH[self.book_key].format(**{name: _english(v) for name, v in self.values})

    def to_json(self) -> dict[str, object]:
        """`{"key": ..., "values": {...}}` (cards as "7H", card groups as lists), with "lead" after the first."""
        out: dict[str, object] = {"key": self.key, "values": {name: _json(v) for name, v in self.values}}
        if self.lead:
            out["lead"] = self.lead
        return out


@dataclass(frozen=True, slots=True)
class Reason:
    """Why a move: phrases in order (empty when a level weighed nothing worth saying)."""

    phrases: tuple[Phrase, ...] = ()

    @classmethod
    def of(cls, key: str, **values: Value) -> Reason:
        """A reason of one phrase."""
        return cls((Phrase(key, tuple(values.items())),))

    def then(self, key: str, *, lead: str, **values: Value) -> Reason:
        """This reason with one more phrase joined by `lead` (no lead when this one is empty)."""
        return Reason((*self.phrases, Phrase(key, tuple(values.items()), lead if self.phrases else "")))

    def join(self, other: Reason, *, lead: str) -> Reason:
        """This reason followed by `other`, its first phrase joined by `lead`."""
        if not other.phrases:
            return self
        if not self.phrases:
            return other
        first, *rest = other.phrases
        return Reason((*self.phrases, Phrase(first.key, first.values, lead), *rest))

    def without(self, keys: Iterable[str]) -> Reason:
        """The phrases whose key is not in `keys` (the first one left loses its lead)."""
        drop = frozenset(keys)
        kept = [p for p in self.phrases if p.key not in drop]
        if kept and kept[0].lead:
            kept[0] = Phrase(kept[0].key, kept[0].values)
        return Reason(tuple(kept))

    def __bool__(self) -> bool:
        return bool(self.phrases)

    def text(self) -> str:
        """The reason in English."""
        return "".join(p.lead + p.text() for p in self.phrases)

    def to_json(self) -> list[dict[str, object]]:
        return [p.to_json() for p in self.phrases]
