"""The four heuristic levels people choose from: `novice`, `casual`, `skilled` and `advanced`.

Each level is its own strategy, and each adds what a stronger human player knows:

- `novice` plays sensibly but naively: it takes the upcard only to finish a meld, throws
  the card with the fewest partners without counting points (so it keeps high cards
  too long), never looks at the opponent, and waits for a small deadwood before knocking.
- `casual` is a deadwood minimiser: it throws the card that leaves the least deadwood,
  breaking ties by simple meld potential (keep pairs and suited neighbours), takes the
  upcard to finish a meld or whenever it goes with one of its loose cards (same rank,
  or same suit within two: grabbing discards "for later" shows a watching opponent what
  to hold back and often leaves the card stranded), and knocks at the first chance.
- `skilled` adds card tracking: a two-card draw is worth what its live outs (not in the
  discard pile, not in the opponent's hand) are likely to bring within the next couple
  of draws, so it trades a little deadwood for good draws; it takes the upcard only to
  finish a meld and knocks at the first chance.
- `advanced` adds reading the opponent: it infers the opponent's hand from what it
  took, refused and threw, and prices each discard by the chance it completes an
  opponent meld; compares taking a non-meld upcard with the expected result of a stock
  draw; and knows late knocks get undercut: it knocks freely during its first four
  turns, afterwards only with 3 deadwood or less.

All levels see only their view; every decision returns a `Decision` (action and a
short reason, as phrases of `reasons.Reason`) so `suggest` can explain it.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass

from ..rules import Action, BigGin, Discard, Knock, View
from ..rules.actions import DRAW_DISCARD, DRAW_STOCK, PASS
from ..rules.cards import CARD_POINTS, CARDS
from ..rules.fast_core import (
    RANK_MASKS,
    RANK_OF,
    SUIT_BITS,
    deadwood_cards,
    forms_meld,
    least_after_discard,
    least_deadwood,
    points,
)
from .base import register_player
from .knowledge import (
    Knowledge,
    discard_danger,
    expected_after_draw,
    expected_deadwood,
    layoff_exposure,
    meld_draw_count,
    opponent_probabilities,
    stock_weights,
    track,
)
from .reasons import Reason

__all__ = [
    "AdvancedPlayer",
    "CasualPlayer",
    "Decision",
    "LevelPlayer",
    "NovicePlayer",
    "SkilledPlayer",
]


@dataclass(frozen=True, slots=True)
class Decision:
    """An action and what this level weighed to choose it (may be empty).

    `suggest` puts the plain facts first (the meld an upcard makes, the deadwood left,
    the draws kept) and adds this reason after them.
    """

    action: Action
    why: Reason = Reason()

    @property
    def reason(self) -> str:
        """What was weighed, in English."""
        return self.why.text()


class LevelPlayer(ABC):
    """Shared plumbing: seed, time budget, and the phase dispatch of `act`."""

    name = "level"

    def __init__(self, *, seed: int | None = None, time_budget: float | None = None) -> None:
        self.rng = random.Random(seed)
        self.time_budget = time_budget

    def act(self, view: View) -> Action:
        return self.decide(view).action

    def observe(self, view: View) -> None:
        return None

    def decide(self, view: View) -> Decision:
        """The action for `view` and why."""
        legal = view.legal
        if not legal:
            raise ValueError("this view has no legal action: it is not this seat's turn")
        if view.phase in ("offer", "draw"):
            return self.draw(view)
        for action in legal:
            if isinstance(action, BigGin):
                return Decision(action)
        return self.discard(view)

    # Each level decides these two.
    @abstractmethod
    def draw(self, view: View) -> Decision:
        """The move of an offer or draw phase."""

    @abstractmethod
    def discard(self, view: View) -> Decision:
        """The move of a discard phase (a discard, a knock or Gin)."""

    @staticmethod
    def _refuse(view: View, why: Reason = Reason()) -> Decision:
        if view.phase == "offer":
            return Decision(PASS, why)
        return Decision(DRAW_STOCK, why)

    @staticmethod
    def _knock_options(view: View) -> dict[int, int]:
        """Card index -> deadwood left, for every legal knock."""
        hand = view.hand.mask
        return {
            a.card.index: least_deadwood(hand & ~(1 << a.card.index))
            for a in view.legal
            if isinstance(a, Knock)
        }

    @staticmethod
    def _discardable(view: View) -> list[int]:
        return [a.card.index for a in view.legal if isinstance(a, Discard)]


def _upcard(view: View) -> int:
    """The upcard this player may consider taking, or -1.

    A card it already took or threw earlier in this hand is never taken again: two
    players who keep taking each other's discards would otherwise trade the same cards
    forever while the stock never shrinks.
    """
    if DRAW_DISCARD not in view.legal or not view.discard_pile:
        return -1
    up = view.discard_pile[-1]
    seat = view.seat
    for entry in view.history:
        if entry.seat == seat and entry.card == up:
            return -1
    return up.index


def _connections(card: int, hand: int) -> int:
    """How many cards of `hand` could share a meld with `card` (same rank, or suited within two)."""
    rank = RANK_OF[card]
    n = (hand & RANK_MASKS[rank] & ~(1 << card)).bit_count()
    base = card - rank
    pattern = (hand >> base) & SUIT_BITS
    for r in (rank - 2, rank - 1, rank + 1, rank + 2):
        if 0 <= r < 13 and pattern >> r & 1:
            n += 1
    return n


# -- novice ------------------------------------------------------------------------


class NovicePlayer(LevelPlayer):
    """Sensible but naive: melds first, points ignored, knocks only with little deadwood."""

    name = "novice"
    knock_at = 5  # waits for this little deadwood, whatever the stock says

    def draw(self, view: View) -> Decision:
        up = _upcard(view)
        hand = view.hand.mask
        if up >= 0 and forms_meld(up, hand):
            return Decision(DRAW_DISCARD)
        return self._refuse(view)

    def discard(self, view: View) -> Decision:
        hand = view.hand.mask
        knocks = self._knock_options(view)
        if knocks:
            best = min(knocks.values())
            if best <= self.knock_at:
                card = min((c for c, d in knocks.items() if d == best), key=lambda c: CARD_POINTS[c])
                return Decision(Knock(CARDS[card]))
        options = self._discardable(view)
        dead = deadwood_cards(hand)
        loose = [c for c in options if dead >> c & 1] or options
        # Fewest partners goes; points are not counted, so a lone king stays as long as a lone ace.
        fewest = min(_connections(c, hand) for c in loose)
        choices = [c for c in loose if _connections(c, hand) == fewest]
        card = choices[0] if len(choices) == 1 else self.rng.choice(choices)
        return Decision(Discard(CARDS[card]), Reason.of("fewest_partners"))


# -- casual ------------------------------------------------------------------------


class CasualPlayer(LevelPlayer):
    """A deadwood minimiser with simple meld potential; grabs discards that go with its
    loose cards; knocks at the first chance."""

    name = "casual"

    def draw(self, view: View) -> Decision:
        up = _upcard(view)
        hand = view.hand.mask
        if up >= 0 and forms_meld(up, hand):
            return Decision(DRAW_DISCARD)
        if up >= 0 and _connections(up, deadwood_cards(hand)):
            # Grabbing a card "for later" feels safe, but it shows a watching opponent
            # what to hold back, and the card often stays stranded.
            return Decision(DRAW_DISCARD, Reason.of("goes_with_loose"))
        return self._refuse(view)

    def discard(self, view: View) -> Decision:
        hand = view.hand.mask
        knocks = self._knock_options(view)
        if knocks:
            best = min(knocks.values())
            card = max((c for c, d in knocks.items() if d == best), key=lambda c: CARD_POINTS[c])
            return Decision(Knock(CARDS[card]), Reason() if best == 0 else Reason.of("first_chance"))
        best_key: tuple[int, int, int] | None = None
        best_card = -1
        for c in self._discardable(view):
            rest = hand & ~(1 << c)
            dead = deadwood_cards(rest)
            # Least deadwood first; then keep the most two-card draws; then throw the higher card.
            key = (-points(dead), meld_draw_count(dead), CARD_POINTS[c])
            if best_key is None or key > best_key:
                best_key, best_card = key, c
        return Decision(Discard(CARDS[best_card]))


# -- skilled -----------------------------------------------------------------------


class SkilledPlayer(LevelPlayer):
    """Card tracking: draws are worth their live outs; knocks at the first chance."""

    name = "skilled"
    horizon = 2.0  # draws a two-card draw has to find its out
    danger_weight = 0.0  # deadwood points per unit chance that a discard melds for the opponent
    #: Knock with any legal deadwood during this many own draws (None: all hand long) ...
    early_turns: int | None = None
    knock_step = 10  # ... then the allowed deadwood drops by this much per draw ...
    knock_floor = 5  # ... down to this

    def probabilities(self, k: Knowledge) -> list[float]:
        """Where the unseen cards are: card tracking only, no reading of the opponent."""
        return opponent_probabilities(k, inference=False)

    def draw(self, view: View) -> Decision:
        up = _upcard(view)
        if up >= 0 and forms_meld(up, view.hand.mask):
            return Decision(DRAW_DISCARD)
        return self._refuse(view)

    def knock_allowance(self, k: Knowledge) -> int:
        """The most deadwood this player knocks with now."""
        late = 0 if self.early_turns is None else k.my_draws - self.early_turns
        if late <= 0:
            return k.knock_limit
        return max(self.knock_floor, k.knock_limit - self.knock_step * late)

    def knock_card(self, hand: int, knocks: dict[int, int], probs: list[float]) -> int:
        best = min(knocks.values())
        return min(
            (c for c, d in knocks.items() if d == best),
            key=lambda c: layoff_exposure(hand & ~(1 << c), probs),
        )

    def judge_knock(
        self, view: View, k: Knowledge, probs: list[float], knocks: dict[int, int]
    ) -> Decision | None:
        hand = view.hand.mask
        card = self.knock_card(hand, knocks, probs)
        dw = knocks[card]
        if dw == 0:
            return Decision(Knock(CARDS[card]))
        if dw > self.knock_allowance(k):
            return None
        if self.early_turns is None:
            why = Reason.of("first_chance")
        elif k.my_draws <= self.early_turns:
            why = Reason.of("early_knock")
        else:
            why = Reason.of("late_knock_low", deadwood=dw)
        return Decision(Knock(CARDS[card]), why)

    def score_discard(self, hand: int, card: int, k: Knowledge, probs: list[float]) -> float:
        rest = hand & ~(1 << card)
        score = -expected_deadwood(rest, k, probs, self.horizon)
        if self.danger_weight:
            score -= self.danger_weight * discard_danger(card, probs)
        return score

    def discard(self, view: View) -> Decision:
        hand = view.hand.mask
        k = track(view)
        probs = self.probabilities(k)
        knocks = self._knock_options(view)
        if knocks:
            decision = self.judge_knock(view, k, probs, knocks)
            if decision is not None:
                return decision
        best_score = -1e9
        best_card = -1
        for c in self._discardable(view):
            score = self.score_discard(hand, c, k, probs)
            if score > best_score + 1e-9 or (
                abs(score - best_score) <= 1e-9 and CARD_POINTS[c] > CARD_POINTS[best_card]
            ):
                best_score, best_card = score, c
        why = Reason()
        if knocks:
            why = Reason.of("plays_on_for_gin", deadwood=min(knocks.values()))
        if self.danger_weight:
            percent = round(100 * discard_danger(best_card, probs))
            why = why.then("helps_opponent", lead="; ", percent=percent)
        return Decision(Discard(CARDS[best_card]), why)


# -- advanced ----------------------------------------------------------------------


class AdvancedPlayer(SkilledPlayer):
    """Opponent inference, safer discards, one-step upcard lookahead, and knocks that get
    stricter as the hand goes on."""

    name = "advanced"
    horizon = 3.0
    danger_weight = 6.0
    early_turns = 4  # knock with any legal deadwood during its first four draws ...
    knock_floor = 3  # ... afterwards only with this much or less (late knocks get undercut)

    def probabilities(self, k: Knowledge) -> list[float]:
        return opponent_probabilities(k, inference=True)

    def draw(self, view: View) -> Decision:
        up = _upcard(view)
        hand = view.hand.mask
        if up < 0:
            return self._refuse(view, Reason.of("stock"))
        if forms_meld(up, hand):
            return Decision(DRAW_DISCARD)
        now = least_deadwood(hand)
        after = least_after_discard(hand | 1 << up, up)
        if after >= now or (self.time_budget is not None and self.time_budget < 0.002):
            return self._refuse(view)
        k = track(view)
        expected = expected_after_draw(hand, stock_weights(k, self.probabilities(k)))
        if after < expected:
            return Decision(DRAW_DISCARD, Reason.of("stock_would_leave", expected=expected))
        return self._refuse(
            view, Reason.of("stock_leaves_vs", expected=expected, card=CARDS[up], after=after)
        )


register_player("novice", NovicePlayer)
register_player("casual", CasualPlayer)
register_player("skilled", SkilledPlayer)
register_player("advanced", AdvancedPlayer)
