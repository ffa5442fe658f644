"""Gin for three players and for two teams of two (docs/rules.md §7, guide 000).

Both are made of ordinary two-player hands (`Hand`), each dealt from its own seed:

- **Three players** (`ThreeGin`): each hand the dealer deals to the other two and sits out.
  The player on the dealer's left (the next seat) is offered the first upcard first; the
  one after holds the dealer's role in the hand. One running total per seat; the first to
  reach the target ends the match. The deal passes by `rules.next_dealer`: `alternate` to
  the next seat, `loser`/`winner` to the loser/winner of the hand; after a void hand (or a
  tie that nobody scores) the same seat deals again.
- **Two teams** (`TeamGin`): seats 0 and 2 against seats 1 and 3. Each round two hands are
  played at once, every player against one opponent; opponents change every round (odd
  rounds 0-1 and 2-3, even rounds 0-3 and 2-1). One team deals both hands. When both are
  over each team adds up the points its players scored, and the team ahead scores the
  difference. The first team total to reach the target ends the match. A void hand counts
  0 and is not replayed; a round where both hands are void is dealt again by the same team.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .actions import Action, GameAction
from .deal import next_dealer
from .gin_table_views import GinTableView, TableHandView, TeamRoundResult, table_hand_view
from .hand import Hand, HandResult, NotYourTurnError
from .match import HandByHand, MatchOverError
from .record import GameRecord, record_of, replayed
from .results import TEAMS, MatchResult, final_result
from .tables import TableGame, choose_first_dealer

__all__ = ["TeamGin", "ThreeGin"]


def _check_seat(seat: int | None, seats: int) -> None:
    if seat is not None and not (type(seat) is int and 0 <= seat < seats):
        raise NotYourTurnError(f"there is no seat {seat!r}: seats are 0 to {seats - 1}")


class ThreeGin(TableGame, HandByHand[Hand, HandResult]):
    """Three-player Gin: the dealer sits out each hand; three running totals to the target.

    >>> game = ThreeGin(Rules.preset("gin3"), seed=5)
    >>> sitting_out = game.dealer
    >>> game.view(sitting_out).tables[0].hand is None, len(game.seats_to_act)
    (True, 1)
    """

    GAME = "gin3"
    TITLE = "three-player Gin"

    def _begin(self, first_dealer: int | None) -> None:
        self.scores = [0, 0, 0]
        self.hands_won = [0, 0, 0]
        self.hands: list[Hand] = []
        self.dealers: list[int] = []  # the seat that dealt (and sat out) each hand
        self.result: MatchResult | None = None
        if first_dealer is None:
            first_dealer = choose_first_dealer(self.seed, self.rules.first_dealer, 3)
        self._start_hand(first_dealer)

    def _start_hand(self, dealer: int) -> None:
        # The inner hand's seat 0 is the dealer's left, offered the first upcard; seat 1
        # plays the dealer's role (docs/rules.md §3.3).
        self.hands.append(Hand(self.rules, self._deal_seed(len(self.hands)), 1))
        self.dealers.append(dealer)

    def players_of(self, hand_number: int) -> tuple[int, int]:
        """The two seats playing hand `hand_number`: the dealer's left first, then the next."""
        dealer = self.dealers[hand_number - 1]
        return ((dealer + 1) % 3, (dealer + 2) % 3)

    # -- the Game interface ------------------------------------------------------

    @property
    def seat_count(self) -> int:
        """How many seats play (3)."""
        return 3

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """Each seat scores for itself."""
        return ((0,), (1,), (2,))

    @property
    def dealer(self) -> int:
        """The seat that dealt the current hand and sits it out."""
        return self.dealers[-1]

    @property
    def seats_to_act(self) -> tuple[int, ...]:
        """The seat whose move it is, or none once the match is over."""
        if self.result is not None:
            return ()
        return (self.players_of(len(self.hands))[self.hands[-1].to_act],)

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every action `seat` (by default the seat to act) may take now."""
        if self.result is not None:
            return []
        if seat is not None and (seat,) != self.seats_to_act:
            return []
        return self.hands[-1].legal_actions()

    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why the action is not allowed now."""
        if self.result is not None:
            raise MatchOverError("the match is over; no action is allowed")
        _check_seat(seat, 3)
        if seat is not None and seat == self.dealer:
            raise NotYourTurnError(f"seat {seat} dealt this hand and sits it out")
        hand = self.hands[-1]
        inner = None if seat is None else self.players_of(len(self.hands)).index(seat)
        hand.check(action, inner)

    def _end_hand(self, result: HandResult) -> None:
        players = self.players_of(len(self.hands))
        if result.scorer is not None:
            scorer = players[result.scorer]
            self.scores[scorer] += result.points
            self.hands_won[scorer] += 1
        self.scores_after.append(tuple(self.scores))
        if max(self.scores) >= self.rules.target:
            self.result = final_result(self.scores, self.hands_won, self.rules, len(self.hands), teams=False)
            return
        self._start_hand(self._next_dealer(result, players))

    def _next_dealer(self, result: HandResult, players: tuple[int, int]) -> int:
        dealer, scorer = self.dealers[-1], result.scorer
        winner, loser = (None, None) if scorer is None else (players[scorer], players[1 - scorer])
        return next_dealer(
            self.rules.next_dealer, dealer, (dealer + 1) % 3, winner, loser, void=result.outcome == "void"
        )

    def view(self, seat: int) -> GinTableView:
        """What `seat` may know now (the seat sitting out holds no card and sees none hidden)."""
        return self.hand_view(seat, len(self.hands))

    def hand_view(self, seat: int, hand_number: int) -> GinTableView:
        """`seat`'s view of hand `hand_number` (1-based); a finished hand shows its showdown."""
        self._check_view(seat, hand_number, len(self.hands))
        hand = self.hands[hand_number - 1]
        players = self.players_of(hand_number)
        table = table_hand_view(hand, players, seat, hand_number=hand_number)
        acting = hand.phase != "over" and players[hand.to_act] == seat
        return GinTableView(
            game="gin3",
            seat=seat,
            players=3,
            dealer=self.dealers[hand_number - 1],
            hand_number=hand_number,
            scores=self.scores_at(hand_number),
            rules=self.rules,
            tables=(table,),
            legal=tuple(hand.legal_actions()) if acting else (),
        )

    # -- records -----------------------------------------------------------------

    def deal_summary(self, hand_number: int) -> tuple[tuple[int, ...], int, dict[str, Any] | None]:
        """Hand `hand_number`'s seed, dealer and result (JSON, in the game's seats)."""
        hand = self.hands[hand_number - 1]
        return (
            (hand.seed,),
            self.dealers[hand_number - 1],
            _hand_result_json(hand, self.players_of(hand_number)),
        )

    def _deal_actions(self, hand_number: int) -> Iterator[tuple[int, GameAction]]:
        """Hand `hand_number`'s actions in the order played, each with the game's seat (the hand's
        seat is one of its two players)."""
        players = self.players_of(hand_number)
        return ((players[step.seat], step.action) for step in self.hands[hand_number - 1].steps)

    def __repr__(self) -> str:
        return f"<ThreeGin hand={len(self.hands)} scores={self.scores} over={self.is_over}>"


def _hand_result_json(hand: Hand, players: tuple[int, int]) -> dict[str, Any] | None:
    result = hand.result
    if result is None:
        return None
    return {
        "outcome": result.outcome,
        "scorer": None if result.scorer is None else players[result.scorer],
        "points": result.points,
        "knocker": None if result.knocker is None else players[result.knocker],
    }


class TeamGin(TableGame):
    """Four-player team Gin: two hands at once each round, partners' points added, the team
    ahead scoring the difference.

    >>> game = TeamGin(Rules.preset("gin4_teams"), seed=2)
    >>> len(game.seats_to_act), [t.players for t in game.view(0).tables]
    (2, [(0, 1), (2, 3)])
    """

    GAME = "gin4_teams"
    TITLE = "team Gin"

    def _begin(self, first_dealer: int | None) -> None:
        self.scores = [0, 0]  # per team
        self.rounds_won = [0, 0]
        self.rounds: list[tuple[Hand, Hand]] = []
        self.dealers: list[int] = []  # the team that dealt each round
        self.round_results: list[TeamRoundResult] = []
        self.round_order: list[list[int]] = []  # per round: the hand (0 or 1) of each action in turn
        self.result: MatchResult | None = None
        if first_dealer is None:
            # One player of each team cuts (seat 0 for team 0, seat 1 for team 1): low deals.
            first_dealer = choose_first_dealer(self.seed, self.rules.first_dealer, 2)
        self._start_round(first_dealer)

    def _start_round(self, team: int) -> None:
        first = 2 * len(self.rounds)
        # Inner seat 0 is the team-0 player; the dealing team's players hold the dealer's role.
        self.rounds.append(
            (
                Hand(self.rules, self._deal_seed(first), team),
                Hand(self.rules, self._deal_seed(first + 1), team),
            )
        )
        self.dealers.append(team)
        self.round_order.append([])

    @staticmethod
    def pairing(round_number: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The two hands' players in round `round_number` (1-based): (team-0 seat, team-1 seat)."""
        return ((0, 1), (2, 3)) if round_number % 2 == 1 else ((0, 3), (2, 1))

    def _table_of(self, seat: int) -> int:
        tables = self.pairing(len(self.rounds))
        return 0 if seat in tables[0] else 1

    # -- the Game interface ------------------------------------------------------

    @property
    def seat_count(self) -> int:
        """How many seats play (4)."""
        return 4

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """The two teams: `scores[0]` is seats 0 and 2's total, `scores[1]` seats 1 and 3's."""
        return TEAMS

    @property
    def hand_number(self) -> int:
        """1-based number of the current round (two hands), void rounds included."""
        return len(self.rounds)

    @property
    def dealer(self) -> int:
        """The team that dealt the current round (0: seats 0 and 2; 1: seats 1 and 3)."""
        return self.dealers[-1]

    @property
    def seats_to_act(self) -> tuple[int, ...]:
        """Every seat with a move to make: one per hand still being played (so up to two)."""
        if self.result is not None:
            return ()
        tables = self.pairing(len(self.rounds))
        return tuple(
            sorted(tables[t][hand.to_act] for t, hand in enumerate(self.rounds[-1]) if hand.phase != "over")
        )

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Every action `seat` may take now (by default the lowest seat to act)."""
        acting = self.seats_to_act
        if not acting:
            return []
        if seat is None:
            seat = acting[0]
        if seat not in acting:
            return []
        return self.rounds[-1][self._table_of(seat)].legal_actions()

    def check(self, action: GameAction, seat: int | None = None) -> None:
        """Raise `IllegalActionError` saying why the action is not allowed now.

        Two seats may act at once here, so the seat must be given.
        """
        if self.result is not None:
            raise MatchOverError("the match is over; no action is allowed")
        if seat is None:
            raise NotYourTurnError("team Gin plays two hands at once: say which seat acts")
        _check_seat(seat, 4)
        table = self._table_of(seat)
        hand = self.rounds[-1][table]
        if hand.phase == "over":
            raise NotYourTurnError(f"seat {seat}'s hand is over; the round ends when the other hand does")
        players = self.pairing(len(self.rounds))[table]
        hand.check(action, players.index(seat))

    def apply(self, action: GameAction, seat: int | None = None) -> HandResult | None:
        """Apply a legal action; returns the hand's result when the action ended that seat's hand.

        The round is scored, and the next one dealt, when both hands are over.
        """
        self.check(action, seat)
        assert seat is not None
        table = self._table_of(seat)
        hand = self.rounds[-1][table]
        hand.apply_checked(action)
        self.round_order[-1].append(table)
        if hand.result is None:
            return None
        if all(h.result is not None for h in self.rounds[-1]):
            self._end_round()
        return hand.result

    def _end_round(self) -> None:
        number = len(self.rounds)
        team_points = [0, 0]
        for hand, players in zip(self.rounds[-1], self.pairing(number), strict=True):
            result = hand.result
            assert result is not None
            if result.scorer is not None:
                team_points[players[result.scorer] % 2] += result.points
        difference = abs(team_points[0] - team_points[1])
        scorer = None if difference == 0 else (0 if team_points[0] > team_points[1] else 1)
        self.round_results.append(TeamRoundResult((team_points[0], team_points[1]), scorer, difference))
        if scorer is not None:
            self.scores[scorer] += difference
            self.rounds_won[scorer] += 1
        self.scores_after.append(tuple(self.scores))
        if max(self.scores) >= self.rules.target:
            self.result = final_result(self.scores, self.rounds_won, self.rules, number, teams=True)
            return
        self._start_round(self._next_dealer(scorer))

    def _next_dealer(self, scorer: int | None) -> int:
        team = self.dealers[-1]
        both_void = all(h.result is not None and h.result.outcome == "void" for h in self.rounds[-1])
        loser = None if scorer is None else 1 - scorer
        return next_dealer(self.rules.next_dealer, team, 1 - team, scorer, loser, void=both_void)

    def view(self, seat: int) -> GinTableView:
        """What `seat` may know now: its own hand, and the public side of its partner's."""
        return self.hand_view(seat, len(self.rounds))

    def hand_view(self, seat: int, hand_number: int) -> GinTableView:
        """`seat`'s view of round `hand_number` (1-based); finished hands show their showdowns."""
        self._check_view(seat, hand_number, len(self.rounds), "round")
        hands = self.rounds[hand_number - 1]
        pairing = self.pairing(hand_number)
        tables: list[TableHandView] = []
        legal: tuple[Action, ...] = ()
        for hand, players in zip(hands, pairing, strict=True):
            tables.append(table_hand_view(hand, players, seat, hand_number=hand_number))
            if seat in players and hand.phase != "over" and players[hand.to_act] == seat:
                legal = tuple(hand.legal_actions())
        return GinTableView(
            game="gin4_teams",
            seat=seat,
            players=4,
            dealer=self.dealers[hand_number - 1],
            hand_number=hand_number,
            scores=self.scores_at(hand_number),
            rules=self.rules,
            tables=(tables[0], tables[1]),
            legal=legal,
            round=self.round_results[hand_number - 1] if hand_number <= len(self.round_results) else None,
        )

    # -- records -----------------------------------------------------------------

    def deal_summary(self, hand_number: int) -> tuple[tuple[int, ...], int, dict[str, Any] | None]:
        """Round `hand_number`'s two seeds, dealing team and result (JSON, in the game's seats)."""
        hands = self.rounds[hand_number - 1]
        result = None
        if hand_number <= len(self.round_results):
            pairing = self.pairing(hand_number)
            result = {
                "hands": [_hand_result_json(h, p) for h, p in zip(hands, pairing, strict=True)],
                **self.round_results[hand_number - 1].to_json(),
            }
        return (hands[0].seed, hands[1].seed), self.dealers[hand_number - 1], result

    def record(self) -> GameRecord:
        """The match so far; each round's actions of both hands in the order they were played."""
        return record_of(self, self._round_actions)

    def _round_actions(self, hand_number: int) -> Iterator[tuple[int, GameAction]]:
        """Round `hand_number`'s actions of both hands in the order played, in the game's seats."""
        pairing = self.pairing(hand_number)
        steps = [iter(hand.steps) for hand in self.rounds[hand_number - 1]]
        for table in self.round_order[hand_number - 1]:
            step = next(steps[table])
            yield pairing[table][step.seat], step.action

    @classmethod
    def from_record(cls, record: GameRecord) -> TeamGin:
        """Replay a record into a match in the same state; raise `ValueError` if it disagrees."""
        if any(len(h.seeds) != 2 for h in record.hands):
            raise ValueError("every team Gin round has two seeds, one per hand")
        return replayed(record, cls, [seed for h in record.hands for seed in h.seeds])

    def __repr__(self) -> str:
        return f"<TeamGin round={len(self.rounds)} scores={self.scores} over={self.is_over}>"
