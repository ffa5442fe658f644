"""What every game with a table of seats shares: choosing the first dealer from the game's seed,
and (`TableGame`) the start of every game: two-player Gin (its two-seat case), three-player Gin,
team Gin and Rummy."""

from __future__ import annotations

import hashlib
import random
import secrets
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import ClassVar

from .deal import deal_seed
from .variants import Rules, RulesError

__all__ = ["TableGame", "choose_first_dealer"]


def choose_first_dealer(seed: int | str, rule: str, seats: int) -> int:
    """The first dealer among `seats` seats (or sides), a function of the game's seed.

    `random` picks one uniformly. `cut` has every seat draw a card in seat order from a
    shuffled deck: the lowest rank deals (ace lowest); seats tied for the lowest draw again.

    >>> choose_first_dealer(7, "cut", 4) == choose_first_dealer(7, "cut", 4)
    True
    """
    digest = hashlib.sha256(f"ginrummy/{seed}/first-dealer".encode()).digest()
    rng = random.Random(int.from_bytes(digest[:8], "big"))
    if rule == "random":
        return rng.randrange(seats)
    deck = list(range(52))
    rng.shuffle(deck)
    candidates = list(range(seats))
    position = 0
    while len(candidates) > 1 and position + len(candidates) <= 52:
        ranks = [deck[position + i] % 13 for i in range(len(candidates))]
        position += len(candidates)
        low = min(ranks)
        candidates = [seat for seat, rank in zip(candidates, ranks, strict=True) if rank == low]
    return candidates[0]


class TableGame(ABC):
    """What every game shares: the rules of its own game (its book rules when none are given),
    the seed every deal's seed comes from unless `seed_source` gives them (as a record's replay
    does), and the totals after each hand once it is over.

    A game makes the rest of its state and deals its first hand in `_begin`, with the first
    dealer given (None: cut for by `choose_first_dealer`).
    """

    #: The game whose rules it plays, and whose book rules it plays when given none.
    GAME: ClassVar[str]
    #: The game's name in an error ("two-player Gin").
    TITLE: ClassVar[str]
    #: Bits of each deal's seed (`deal_seed`): 64, or 256 as the web platform deals two-player Gin.
    deal_bits: int = 64
    scores: list[int]
    result: object | None  # the game's result, once a total has reached the target

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seed: int | str | None = None,
        seed_source: Callable[[int], int] | None = None,
        first_dealer: int | None = None,
    ) -> None:
        rules = rules if rules is not None else Rules.for_game(self.GAME)
        if rules.game != self.GAME:
            raise RulesError(
                f"these rules are for {rules.game!r}, not {self.TITLE}: start that game with new_game"
            )
        self.rules = rules
        self.seed: int | str = seed if seed is not None else secrets.randbits(63)
        self._seed_source = seed_source
        self.scores_after: list[tuple[int, ...]] = []
        self._begin(first_dealer)

    @abstractmethod
    def _begin(self, first_dealer: int | None) -> None:
        """Make the game's own state and deal its first hand."""

    def _deal_seed(self, index: int) -> int:
        """The seed of deal `index` (0-based, void deals included)."""
        if self._seed_source is not None:
            return self._seed_source(index)
        return deal_seed(self.seed, index, bits=self.deal_bits)

    @property
    @abstractmethod
    def seat_count(self) -> int:
        """How many seats play."""

    def _check_view(self, seat: int, hand_number: int, dealt: int, deal: str = "hand") -> None:
        """Raise ValueError unless `seat` is one of the game's seats and `hand_number` (1-based)
        one of the `dealt` deals (hands, team Gin's rounds) so far."""
        seats = self.seat_count
        if not (type(seat) is int and 0 <= seat < seats):
            raise ValueError(f"seat must be 0 to {seats - 1}, got {seat!r}")
        if not 1 <= hand_number <= dealt:
            raise ValueError(f"no {deal} {hand_number}; {dealt} dealt so far")

    @property
    def is_over(self) -> bool:
        """True once a total (a team's, a balance) has reached the target."""
        return self.result is not None

    def scores_at(self, hand_number: int) -> tuple[int, ...]:
        """The totals (team Gin's per team, Rummy's balances) after hand `hand_number` (team Gin's
        round) if it is over, else the totals now."""
        if hand_number <= len(self.scores_after):
            return self.scores_after[hand_number - 1]
        return tuple(self.scores)
