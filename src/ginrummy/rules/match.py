"""A match: hands to the target, dealer rotation, end-of-match bonuses (docs/rules.md §3.1, §6)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Generic, Protocol, Self, TypeVar

from .actions import Action, GameAction
from .deal import DEAL_BITS, next_dealer
from .hand import Hand, HandResult, IllegalActionError
from .record import GameRecord, record_of, replayed
from .results import MatchResult, final_result
from .tables import TableGame, choose_first_dealer
from .variants import Rules
from .views import View, build_view

__all__ = ["Match", "MatchResult", "new_match", "MatchOverError"]


class MatchOverError(IllegalActionError):
    """An action sent after the match ended."""


class _Step(Protocol):
    @property
    def seat(self) -> int: ...

    @property
    def action(self) -> GameAction: ...


class _HandResult(Protocol):
    def to_json(self) -> dict[str, Any]: ...


class _Dealt(Protocol):
    """A hand as its game's record reads it (`Hand`, `RummyHand`)."""

    @property
    def seed(self) -> int: ...

    @property
    def dealer(self) -> int: ...

    @property
    def steps(self) -> Sequence[_Step]: ...

    @property
    def result(self) -> _HandResult | None: ...

    def apply_checked(self, action: GameAction) -> None: ...


H = TypeVar("H", bound=_Dealt)
R = TypeVar("R")  # a hand's result


class HandByHand(Generic[H, R]):
    """A game dealt one hand at a time, each when the last is over: `hands` in the order dealt
    (void deals included), the current hand and its number, and its record (the `Game` interface).
    """

    rules: Rules
    seed: int | str
    result: Any  # the game's result (with `to_json()`), once it is over
    hands: list[H]

    @property
    def hand(self) -> H:
        """The hand being played (the last one once the game is over)."""
        return self.hands[-1]

    @property
    def hand_number(self) -> int:
        """1-based number of the current deal, void deals included."""
        return len(self.hands)

    @abstractmethod
    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why `seat` may not take the action now."""

    def apply(self, action: GameAction, seat: int | None = None) -> R | None:
        """Apply a legal action of `seat`; returns the hand's result when the action ended a hand
        (a record's replay applies every recorded one).

        An illegal action raises `IllegalActionError` and changes nothing.
        """
        self.check(action, seat)
        hand = self.hands[-1]
        hand.apply_checked(action)
        result: R | None = hand.result  # type: ignore[assignment]  # the hand type's result type
        if result is not None:
            self._end_hand(result)
        return result

    @abstractmethod
    def _end_hand(self, result: R) -> None:
        """Score the hand just ended, then end the game or deal the next hand."""

    def deal_summary(self, hand_number: int) -> tuple[tuple[int, ...], int, dict[str, Any] | None]:
        """Hand `hand_number`'s seed, dealer and result (JSON), as its record holds them."""
        hand = self.hands[hand_number - 1]
        return (hand.seed,), hand.dealer, hand.result.to_json() if hand.result is not None else None

    def record(self) -> GameRecord:
        """The game so far: rules, every deal's seed and dealer, every action, every result."""
        return record_of(self, self._deal_actions)

    def _deal_actions(self, hand_number: int) -> Iterator[tuple[int, GameAction]]:
        """Hand `hand_number`'s actions in the order played, each with the game's seat that made it."""
        return ((step.seat, step.action) for step in self.hands[hand_number - 1].steps)

    @classmethod
    def from_record(cls, record: GameRecord) -> Self:
        """Replay a record into a game in the same state; raise `ValueError` if it disagrees."""
        return replayed(record, cls, [h.seeds[0] for h in record.hands])


class Match(TableGame, HandByHand[Hand, HandResult]):
    """Hands played to the target; the match deals the next hand as soon as one ends: the two-seat
    case of the table games (`TableGame`).

    >>> m = new_match(seed=7)
    >>> m.to_act == 1 - m.dealer, m.hand.phase, len(m.view(m.to_act).hand)
    (True, 'offer', 10)
    """

    GAME = "gin"
    TITLE = "two-player Gin"
    scores_after: list[tuple[int, int]]  # type: ignore[assignment]  # two totals after each hand
    result: MatchResult | None

    def __init__(
        self,
        rules: Rules | None = None,
        *,
        seed: int | str | None = None,
        seed_source: Callable[[int], int] | None = None,
        first_dealer: int | None = None,
        deal_bits: int = 64,
    ) -> None:
        if deal_bits not in DEAL_BITS:
            raise ValueError(f"deal seeds have 64 or 256 bits, not {deal_bits!r}")
        self.deal_bits = deal_bits
        super().__init__(rules, seed=seed, seed_source=seed_source, first_dealer=first_dealer)

    def _begin(self, first_dealer: int | None) -> None:
        self.scores = [0, 0]
        self.hands_won = [0, 0]
        self.hands: list[Hand] = []
        self.result = None
        if first_dealer is None:
            first_dealer = choose_first_dealer(self.seed, self.rules.first_dealer, 2)
        self._start_hand(first_dealer)

    # -- setup -----------------------------------------------------------------

    def next_deal_seed(self) -> int:
        """The seed the next deal will use."""
        return self._deal_seed(len(self.hands))

    def _start_hand(self, dealer: int) -> None:
        self.hands.append(Hand(self.rules, self.next_deal_seed(), dealer))

    # -- queries ---------------------------------------------------------------

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        return self.hands[-1].dealer

    @property
    def seat_count(self) -> int:
        """How many seats play (2)."""
        return 2

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """Each seat scores for itself (the `Game` interface)."""
        return ((0,), (1,))

    @property
    def seats_to_act(self) -> tuple[int, ...]:
        """The seat whose move it is, or none once the match is over (the `Game` interface)."""
        return () if self.result is not None else (self.hands[-1].to_act,)

    @property
    def to_act(self) -> int | None:
        """The seat whose move it is, or None once the match is over."""
        return None if self.result is not None else self.hands[-1].to_act

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every action the seat to act may take (none when `seat` is given and not to act)."""
        if self.result is not None:
            return []
        hand = self.hands[-1]
        if seat is not None and seat != hand.to_act:
            return []
        return hand.legal_actions()

    def view(self, seat: int) -> View:
        """What `seat` may know now (docs/protocol.md VIEW)."""
        hand = self.hands[-1]
        scores = self.scores_after[-1] if hand.phase == "over" else (self.scores[0], self.scores[1])
        return build_view(hand, seat, hand_number=len(self.hands), scores=scores)

    def hand_view(self, seat: int, hand_number: int) -> View:
        """`seat`'s view of hand `hand_number` (1-based); a finished hand shows its showdown."""
        if not 1 <= hand_number <= len(self.hands):
            raise ValueError(f"no hand {hand_number}; {len(self.hands)} dealt so far")
        hand = self.hands[hand_number - 1]
        if hand.phase == "over":
            scores = self.scores_after[hand_number - 1]
        else:
            scores = (self.scores[0], self.scores[1])
        return build_view(hand, seat, hand_number=hand_number, scores=scores)

    # -- transitions -----------------------------------------------------------

    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why the action is not allowed now."""
        if self.result is not None:
            raise MatchOverError("the match is over; no action is allowed")
        self.hands[-1].check(action, seat)

    def apply(self, action: GameAction, seat: int | None = None) -> HandResult | None:
        """Apply a legal action; returns the hand's result when the action ended a hand.

        An illegal action raises `IllegalActionError` and changes nothing.
        """
        if self.result is not None:
            raise MatchOverError("the match is over; no action is allowed")
        hand = self.hands[-1]
        hand.apply(action, seat)
        if hand.result is None:
            return None
        self._end_hand(hand.result)
        return hand.result

    def _end_hand(self, result: HandResult) -> None:
        if result.scorer is not None:
            self.scores[result.scorer] += result.points
            self.hands_won[result.scorer] += 1
        self.scores_after.append((self.scores[0], self.scores[1]))
        if max(self.scores) >= self.rules.target:
            self._end_match()
            return
        self._start_hand(self._next_dealer(result))

    def _next_dealer(self, result: HandResult) -> int:
        dealer, scorer = self.hands[-1].dealer, result.scorer
        loser = None if scorer is None else 1 - scorer
        return next_dealer(
            self.rules.next_dealer, dealer, 1 - dealer, scorer, loser, void=result.outcome == "void"
        )

    def _end_match(self) -> None:
        self.result = final_result(self.scores, self.hands_won, self.rules, len(self.hands))

    def __repr__(self) -> str:
        return f"<Match hand={len(self.hands)} scores={self.scores} over={self.is_over}>"


def new_match(rules: Rules | str | None = None, *, seed: int | str | None = None) -> Match:
    """Start a match (first hand dealt). `rules` is a `Rules` or a preset name.

    >>> m = new_match("classic", seed=1)
    >>> m.apply(m.legal_actions()[0]) is None
    True
    """
    if isinstance(rules, str):
        rules = Rules.preset(rules)
    return Match(rules, seed=seed)
