"""Classic Rummy to the target: hands dealt one after another, balances, the dealer's rotation."""

from __future__ import annotations

from .actions import GameAction
from .deal import next_dealer
from .hand import NotYourTurnError
from .match import HandByHand, MatchOverError
from .results import RummyGameResult, rummy_result
from .rummy import RummyHand, RummyHandResult
from .rummy_views import RummyView, build_rummy_view
from .tables import TableGame, choose_first_dealer

__all__ = ["RummyGame", "RummyGameResult"]


class RummyGame(TableGame, HandByHand[RummyHand, RummyHandResult]):
    """Hands of classic Rummy until a balance reaches the target; the next hand is dealt at once.

    Each seat's score is its balance: what it was paid minus what it paid, so the scores
    always sum to zero. The first balance to reach `rules.target` ends the game.

    >>> game = RummyGame(Rules.preset("rummy"), seed=3)
    >>> game.seat_count, len(game.view(game.seats_to_act[0]).hand), game.hand.stock_count
    (4, 7, 23)
    """

    GAME = "rummy"
    TITLE = "Rummy"

    def _begin(self, first_dealer: int | None) -> None:
        n = self.rules.players
        self.scores = [0] * n
        self.hands_won = [0] * n
        self.hands: list[RummyHand] = []
        self.result: RummyGameResult | None = None
        if first_dealer is None:
            first_dealer = choose_first_dealer(self.seed, self.rules.first_dealer, n)
        self._start_hand(first_dealer)

    def _start_hand(self, dealer: int) -> None:
        self.hands.append(RummyHand(self.rules, self._deal_seed(len(self.hands)), dealer))

    # -- the Game interface ------------------------------------------------------

    @property
    def seat_count(self) -> int:
        """How many seats play."""
        return self.rules.players

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """Each seat scores for itself."""
        return tuple((s,) for s in range(self.rules.players))

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        return self.hands[-1].dealer

    @property
    def seats_to_act(self) -> tuple[int, ...]:
        """The seat whose turn it is (one at a time in Rummy), or none once the game is over."""
        return () if self.result is not None else (self.hands[-1].to_act,)

    def legal_actions(self, seat: int | None = None) -> list[GameAction]:
        """Every action `seat` (by default the seat to act) may take now."""
        return [] if self.result is not None else self.hands[-1].legal_actions(seat)

    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why the action is not allowed now."""
        if self.result is not None:
            raise MatchOverError("the game is over; no action is allowed")
        self._check_seat(seat)
        self.hands[-1].check(action, seat)

    def _check_seat(self, seat: int | None) -> None:
        if seat is not None and not (type(seat) is int and 0 <= seat < self.rules.players):
            raise NotYourTurnError(f"there is no seat {seat!r}: seats are 0 to {self.rules.players - 1}")

    def _end_hand(self, result: RummyHandResult) -> None:
        for s, amount in enumerate(result.payments):
            self.scores[s] += amount
        if result.winner is not None:
            self.hands_won[result.winner] += 1
        self.scores_after.append(tuple(self.scores))
        if max(self.scores) >= self.rules.target:
            self.result = rummy_result(self.scores, self.hands_won, len(self.hands))
            return
        self._start_hand(self._next_dealer(result))

    def _next_dealer(self, result: RummyHandResult) -> int:
        dealer, winner = self.hands[-1].dealer, result.winner  # no winner: the hand was void
        loser = 1 - winner if winner is not None and self.rules.players == 2 else None
        return next_dealer(
            self.rules.next_dealer,
            dealer,
            (dealer + 1) % self.rules.players,
            winner,
            loser,
            void=winner is None,
        )

    def view(self, seat: int) -> RummyView:
        """What `seat` may know now."""
        return self.hand_view(seat, len(self.hands))

    def hand_view(self, seat: int, hand_number: int) -> RummyView:
        """`seat`'s view of hand `hand_number` (1-based); a finished hand shows every payment."""
        self._check_view(seat, hand_number, len(self.hands))
        hand = self.hands[hand_number - 1]
        return build_rummy_view(hand, seat, hand_number=hand_number, scores=self.scores_at(hand_number))

    def __repr__(self) -> str:
        return f"<RummyGame hand={len(self.hands)} scores={self.scores} over={self.is_over}>"
