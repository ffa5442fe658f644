"""Cards, the 52-bit CardSet, and the rule book's text notation (docs/rules.md §1)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

__all__ = [
    "RANKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "Card",
    "CardError",
    "CardSet",
    "parse_card",
    "parse_cards",
    "card_points",
]

RANKS: Final = "A23456789TJQK"
SUITS: Final = "CDHS"
SUIT_SYMBOLS: Final = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
FULL_MASK: Final = (1 << 52) - 1

# Point value of each rank index: ace 1, two to ten face value, faces 10.
RANK_POINTS: Final = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
# Point value of each card index (suit * 13 + rank).
CARD_POINTS: Final = tuple(RANK_POINTS[i % 13] for i in range(52))


class CardError(ValueError):
    """Text that is not a card, a duplicate card, or a card index out of range."""


class Card:
    """One playing card; `Card.parse("TD")`, `str(card) == "TD"`.

    A card is identified by its index ``suit * 13 + rank`` where rank 0 is the ace
    and suits are ordered clubs, diamonds, hearts, spades. Cards are interned, so
    ``Card.parse("AS") is Card(39)``.
    """

    __slots__ = ("index", "rank", "suit", "points", "_text")
    _cache: list[Card] = []

    index: int
    rank: int
    suit: int
    points: int
    _text: str

    def __new__(cls, index: int) -> Card:
        if cls._cache:
            if not isinstance(index, int) or not 0 <= index < 52:
                raise CardError(f"card index must be 0-51, got {index!r}")
            return cls._cache[index]
        self = object.__new__(cls)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "rank", index % 13)
        object.__setattr__(self, "suit", index // 13)
        object.__setattr__(self, "points", RANK_POINTS[index % 13])
        object.__setattr__(self, "_text", RANKS[index % 13] + SUITS[index // 13])
        return self

    @classmethod
    def from_rank_suit(cls, rank: int, suit: int) -> Card:
        """The card of `rank` (0 = ace … 12 = king) and `suit` (0 = clubs … 3 = spades)."""
        if not (0 <= rank < 13 and 0 <= suit < 4):
            raise CardError(f"no card has rank {rank} and suit {suit}")
        return CARDS[suit * 13 + rank]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse rule-book notation: `AS`, `td`, `10h` (case-insensitive, `10` for `T`)."""
        return parse_card(text)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card.parse({self._text!r})"

    def __hash__(self) -> int:
        return self.index

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    @property
    def pretty(self) -> str:
        """The card with its rank as printed on it and a suit symbol: `10♥`."""
        rank = "10" if self.rank == 9 else RANKS[self.rank]
        return rank + SUIT_SYMBOLS[SUITS[self.suit]]


CARDS: Final = tuple(Card(i) for i in range(52))
Card._cache.extend(CARDS)

_TEXT_TO_INDEX: Final = {str(c): c.index for c in CARDS}

#: Per byte of a mask (cards 0-7, 8-15, ...) and per value of that byte: the texts of its cards in
#: index order. `CardSet.to_json` runs for every card set of every state sent; a byte at a time it
#: costs a third of a loop over the bits.
_TEXT_BYTES: Final = tuple(
    tuple(
        tuple(str(CARDS[base + i]) for i in range(8) if value >> i & 1 and base + i < 52)
        for value in range(256)
    )
    for base in range(0, 52, 8)
)


def parse_card(text: str) -> Card:
    """Parse one card in rule-book notation; raise `CardError` naming bad text."""
    if not isinstance(text, str):
        raise CardError(f"a card must be text like 'AS', got {text!r}")
    token = text.strip().upper()
    if token.startswith("10"):
        token = "T" + token[2:]
    index = _TEXT_TO_INDEX.get(token)
    if index is None:
        raise CardError(
            f"{text!r} is not a card: use a rank from A23456789TJQK (or 10) "
            "followed by a suit from CDHS, e.g. 'AS', 'TD', '10h'"
        )
    return CARDS[index]


CardLike = Card | str | int


def _to_index(card: CardLike) -> int:
    if isinstance(card, Card):
        return card.index
    if isinstance(card, str):
        return parse_card(card).index
    if isinstance(card, int) and not isinstance(card, bool) and 0 <= card < 52:
        return card
    raise CardError(f"not a card: {card!r}")


class CardSet:
    """A set of cards stored as a 52-bit mask; behaves like a frozen Python set.

    >>> hand = parse_cards("4H 5H 6H")
    >>> Card.parse("5h") in hand, len(hand), str(hand | parse_cards("AS"))
    (True, 3, '4H 5H 6H AS')
    """

    __slots__ = ("mask",)
    mask: int

    def __init__(self, cards: Iterable[CardLike] | str | int = 0) -> None:
        if isinstance(cards, int) and not isinstance(cards, bool):
            if not 0 <= cards <= FULL_MASK:
                raise CardError(f"a card mask must be a 52-bit number, got {cards!r}")
            mask = cards
        elif isinstance(cards, str):
            mask = parse_cards(cards).mask
        else:
            mask = 0
            assert not isinstance(cards, bool)
            for card in cards:
                mask |= 1 << _to_index(card)
        object.__setattr__(self, "mask", mask)

    @classmethod
    def from_mask(cls, mask: int) -> CardSet:
        """The set whose bit `i` marks card index `i`."""
        self = _new_object(cls)
        _set_mask(self, mask & FULL_MASK)
        return self

    @classmethod
    def full_deck(cls) -> CardSet:
        """All 52 cards."""
        return cls.from_mask(FULL_MASK)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("CardSet is immutable")

    def __reduce__(self) -> tuple[type[CardSet], tuple[int]]:
        return (CardSet, (self.mask,))

    def __contains__(self, card: object) -> bool:
        if isinstance(card, Card):
            return bool(self.mask >> card.index & 1)
        if isinstance(card, str):
            try:
                return bool(self.mask >> parse_card(card).index & 1)
            except CardError:
                return False
        return False

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __iter__(self) -> Iterator[Card]:
        mask = self.mask
        while mask:
            low = mask & -mask
            yield CARDS[low.bit_length() - 1]
            mask ^= low

    def __hash__(self) -> int:
        return hash(self.mask)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CardSet):
            return self.mask == other.mask
        if isinstance(other, (set, frozenset)):
            try:
                return self.mask == CardSet(other).mask
            except CardError:
                return False
        return NotImplemented

    def _coerce(self, other: object) -> int:
        if isinstance(other, CardSet):
            return other.mask
        if isinstance(other, Card):
            return 1 << other.index
        if isinstance(other, (set, frozenset, list, tuple)):
            return CardSet(other).mask
        raise TypeError(f"cannot combine a CardSet with {type(other).__name__}")

    def __or__(self, other: object) -> CardSet:
        return CardSet.from_mask(self.mask | self._coerce(other))

    __ror__ = __or__

    def __and__(self, other: object) -> CardSet:
        return CardSet.from_mask(self.mask & self._coerce(other))

    __rand__ = __and__

    def __sub__(self, other: object) -> CardSet:
        return CardSet.from_mask(self.mask & ~self._coerce(other))

    def __xor__(self, other: object) -> CardSet:
        return CardSet.from_mask(self.mask ^ self._coerce(other))

    def __le__(self, other: CardSet) -> bool:
        return self.mask & ~other.mask == 0

    def __lt__(self, other: CardSet) -> bool:
        return self.mask != other.mask and self.mask & ~other.mask == 0

    def __ge__(self, other: CardSet) -> bool:
        return other.mask & ~self.mask == 0

    def __gt__(self, other: CardSet) -> bool:
        return self.mask != other.mask and other.mask & ~self.mask == 0

    def isdisjoint(self, other: CardSet) -> bool:
        """True when no card is in both sets."""
        return self.mask & other.mask == 0

    def add(self, card: CardLike) -> CardSet:
        """A new set with `card` added."""
        return CardSet.from_mask(self.mask | 1 << _to_index(card))

    def remove(self, card: CardLike) -> CardSet:
        """A new set without `card`; raise `CardError` if it is not in this set."""
        index = _to_index(card)
        if not self.mask >> index & 1:
            raise CardError(f"{CARDS[index]} is not in {self}")
        return CardSet.from_mask(self.mask & ~(1 << index))

    @property
    def points(self) -> int:
        """The sum of the cards' point values."""
        return sum(CARD_POINTS[c.index] for c in self)

    def sorted_by_rank(self) -> list[Card]:
        """The cards ordered by rank, then suit."""
        return sorted(self, key=lambda c: (c.rank, c.suit))

    def to_json(self) -> list[str]:
        """The cards as a list of rule-book strings, in iteration order."""
        mask = self.mask
        texts: list[str] = []
        for by_value in _TEXT_BYTES:
            if not mask:
                break
            texts += by_value[mask & 255]
            mask >>= 8
        return texts

    def __str__(self) -> str:
        return " ".join(c._text for c in self)

    def __repr__(self) -> str:
        return f"CardSet({str(self)!r})"


_new_object = object.__new__
# The slot's own setter: building a set (every view builds a few) skips the name lookup.
_set_mask = vars(CardSet)["mask"].__set__


def parse_cards(text: str | Iterable[str], *, allow_duplicates: bool = False) -> CardSet:
    """Parse space- or comma-separated cards; a bad token or duplicate raises `CardError`.

    >>> parse_cards("4H 5H 10h")
    CardSet('4H 5H TH')
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    mask = 0
    for token in tokens:
        bit = 1 << parse_card(token).index
        if mask & bit and not allow_duplicates:
            raise CardError(f"duplicate card {parse_card(token)} in {' '.join(tokens)!r}")
        mask |= bit
    return CardSet.from_mask(mask)


def card_points(card: CardLike) -> int:
    """The point value of a card: ace 1, two to ten face value, faces 10."""
    return CARD_POINTS[_to_index(card)]


def as_mask(cards: CardSet | Iterable[CardLike] | str | int) -> int:
    """The 52-bit mask of anything that names cards (used by the engine's public functions)."""
    if isinstance(cards, CardSet):
        return cards.mask
    if isinstance(cards, str):
        return parse_cards(cards).mask
    return CardSet(cards).mask
