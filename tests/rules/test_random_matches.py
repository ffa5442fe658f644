"""Random whole matches checked at every step (STYLE.md habit 9).

Invariants: 52 cards conserved (hands + stock + discard pile + the face-down knock card),
`legal_actions()` agrees with the checker on every possible action, a rejected action
changes nothing, at most one scorer per hand, scores add up, matches end, records
round-trip and replay to equal states, and no view ever holds a card its seat cannot see.
A fast set runs by default; thousands more matches are marked slow.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from rules_helpers import ALL_ACTIONS, Policy, eager_policy, greedy_policy, random_policy

from ginrummy import (
    Action,
    BigGin,
    Discard,
    Draw,
    IllegalActionError,
    Knock,
    Match,
    MatchOverError,
    NotYourTurnError,
    RecordError,
    Rules,
    View,
    deal_order,
    dumps,
    loads,
    min_deadwood,
    render_match,
)
from ginrummy.rules.cards import CARDS

CARD_TEXT = re.compile(r"^[A2-9TJQK][CDHS]$")
FULL = (1 << 52) - 1


def mixed_policy(match: Match, rng: random.Random) -> Action:
    """Mostly sensible, sometimes random: takes upcards, passes, knocks, plays on for Gin."""
    legal = match.legal_actions()
    if BigGin() in legal and rng.random() < 0.7:
        return BigGin()
    if rng.random() < 0.3:
        return rng.choice(legal)
    action = greedy_policy(match, rng)
    if isinstance(action, Knock) and rng.random() < 0.2:
        discards = [a for a in legal if isinstance(a, Discard)]
        return rng.choice(discards)  # play on, hoping for Gin (and risking an undercut)
    return action


def gin_policy(match: Match, rng: random.Random) -> Action:
    """Plays for Gin: ends a hand only with Big Gin or Gin, else keeps the least deadwood."""
    legal = match.legal_actions()
    if BigGin() in legal:
        return BigGin()
    action = greedy_policy(match, rng)
    if isinstance(action, Knock):
        cards = match.hand.hand_of(match.hand.to_act)
        gins = [a for a in legal if isinstance(a, Knock) and min_deadwood(cards - a.card) == 0]
        if gins:
            return gins[0]
        discards = [a for a in legal if isinstance(a, Discard)]
        return min(discards, key=lambda a: (min_deadwood(cards - a.card), -a.card.points))
    return action


def cards_named(data: Any) -> set[str]:
    """Every card-like string anywhere in a JSON value, keys included."""
    found: set[str] = set()
    if isinstance(data, str):
        if CARD_TEXT.match(data):
            found.add(data)
    elif isinstance(data, dict):
        for key, value in data.items():
            found |= cards_named(key) | cards_named(value)
    elif isinstance(data, list):
        for item in data:
            found |= cards_named(item)
    return found


def names(mask: int) -> set[str]:
    return {str(CARDS[i]) for i in range(52) if mask >> i & 1}


class Tracker:
    """What each seat has seen of one hand, rebuilt from the deal seed and the public log
    (independently of the view code): own cards dealt and drawn, the upcard, every
    face-up discard, every card taken from the discard pile."""

    def __init__(self, match: Match, index: int) -> None:
        hand = match.hands[index]
        deck = deal_order(hand.seed)
        dealt = [0, 0]
        for i in range(20):
            dealt[(1 - hand.dealer) if i % 2 == 0 else hand.dealer] |= 1 << deck[i]
        assert (dealt[0], dealt[1]) == hand.initial_hands
        self.hand = hand
        self.seen = [dealt[0] | 1 << deck[20], dealt[1] | 1 << deck[20]]
        self.known = [0, 0]  # cards each seat was seen to take and still holds
        self.done = 0

    def update(self) -> None:
        for step in self.hand.steps[self.done :]:
            bit = 1 << step.card.index if step.card is not None else 0
            action, seat = step.action, step.seat
            if isinstance(action, Draw):
                self.seen[seat] |= bit
                if action.source == "discard":
                    self.seen[1 - seat] |= bit
                    self.known[seat] |= bit
            elif isinstance(action, Discard):
                self.seen[0] |= bit
                self.seen[1] |= bit
                self.known[seat] &= ~bit
            elif isinstance(action, Knock):
                self.known[seat] &= ~bit  # face down: the opponent learns it at the showdown
        self.done = len(self.hand.steps)

    def visible(self, seat: int) -> int:
        if self.hand.phase != "over":
            return self.seen[seat]
        knock = 1 << self.hand.knock_card if self.hand.knock_card is not None else 0
        return self.seen[seat] | self.hand.hands[0] | self.hand.hands[1] | knock


class MatchChecker:
    """Plays a match through `apply`, checking every invariant after every step."""

    def __init__(self, match: Match, rng: random.Random, *, full_universe: bool = True) -> None:
        self.match = match
        self.rng = rng
        self.full_universe = full_universe
        self.trackers = [Tracker(match, 0)]
        self.steps = 0
        self.check_state()

    # -- invariants --------------------------------------------------------------------

    def check_cards(self) -> None:
        hand = self.match.hand
        parts = [
            hand.hands[0],
            hand.hands[1],
            *(1 << i for i in hand.stock),
            *(1 << i for i in hand.discard_pile),
        ]
        if hand.knock_card is not None:
            parts.append(1 << hand.knock_card)
        union = 0
        for part in parts:
            assert not union & part, "a card is in two places"
            union |= part
        assert union == FULL, "a card went missing"
        assert hand.cards_in_play() == 52
        if hand.phase != "over":
            sizes = [bin(hand.hands[s]).count("1") for s in (0, 1)]
            holding = 11 if hand.phase == "discard" else 10
            assert sizes[hand.to_act] == holding and sizes[1 - hand.to_act] == 10

    def check_legal(self) -> None:
        match = self.match
        legal = match.legal_actions()
        assert len(set(legal)) == len(legal), "an action is listed twice"
        assert legal, "a live match with nothing to do"
        seat = match.to_act
        assert seat is not None
        universe = ALL_ACTIONS if self.full_universe else self.rng.sample(ALL_ACTIONS, 12) + legal
        for action in universe:
            try:
                match.check(action, seat)
                allowed = True
            except IllegalActionError:
                allowed = False
            assert allowed == (action in legal), f"{action}: checker says {allowed}"
            if allowed:
                with pytest.raises(NotYourTurnError):
                    match.check(action, 1 - seat)

    def check_views(self) -> None:
        match = self.match
        tracker = self.trackers[-1]
        tracker.update()
        for seat in (0, 1):
            view = match.view(seat)
            self.check_view(view, seat, tracker)
            if seat == match.to_act:
                assert list(view.legal) == match.legal_actions()
            else:
                assert view.legal == ()

    def check_view(self, view: View, seat: int, tracker: Tracker) -> None:
        hand = tracker.hand
        data = view.to_json()
        leaked = cards_named(data) - names(tracker.visible(seat))
        assert not leaked, f"seat {seat} sees {sorted(leaked)} ({hand.phase})"
        assert View.from_json(data) == view
        assert View.from_json(json.dumps(data)) == view
        assert view.hand.mask == hand.hands[seat]
        assert [c.index for c in view.discard_pile] == hand.discard_pile
        assert view.stock_count == len(hand.stock)
        assert (view.seat, view.dealer, view.phase) == (seat, hand.dealer, hand.phase)
        if hand.phase != "over":
            assert view.opponent_known.mask == tracker.known[1 - seat]
            assert view.showdown is None
            assert all(h.kind != "knock" for h in view.history)
        else:
            assert view.showdown is not None

    def check_state(self) -> None:
        self.check_cards()
        if not self.match.is_over:
            self.check_legal()
        self.check_views()

    def check_rejections(self) -> None:
        """A random illegal action (or a legal one from the wrong seat) changes nothing."""
        match = self.match
        legal = match.legal_actions()
        illegal = [a for a in ALL_ACTIONS if a not in legal]
        before = (match.view(0).to_json(), match.view(1).to_json(), dumps(match.record()))
        seat = match.to_act
        assert seat is not None
        for action, by in [(self.rng.choice(illegal), seat), (self.rng.choice(legal), 1 - seat)]:
            with pytest.raises(IllegalActionError):
                match.apply(action, by)
        after = (match.view(0).to_json(), match.view(1).to_json(), dumps(match.record()))
        assert after == before

    # -- play --------------------------------------------------------------------------

    def step(self, action: Action) -> None:
        match = self.match
        seat = match.to_act
        scores = list(match.scores)
        hands = len(match.hands)
        if self.rng.random() < 0.1:
            self.check_rejections()
        result = match.apply(action, seat)
        self.steps += 1
        if result is None:
            assert len(match.hands) == hands and match.scores == scores
        else:
            self.check_hand_result(hands - 1, scores)
            if not match.is_over:
                assert len(match.hands) == hands + 1
                self.trackers.append(Tracker(match, hands))
        self.check_state()

    def check_hand_result(self, index: int, scores_before: list[int]) -> None:
        match = self.match
        hand = match.hands[index]
        result = hand.result
        assert result is not None and hand.phase == "over"
        # At most one scorer; everyone else's total is unchanged.
        assert result.scorer in (None, 0, 1) and result.points >= 0
        expected = list(scores_before)
        if result.scorer is None:
            assert result.points == 0 and result.outcome in ("void", "tie")
        else:
            assert result.outcome in ("knock", "gin", "big_gin", "undercut")
            expected[result.scorer] += result.points
        assert list(match.scores_after[index]) == expected
        if result.outcome == "void":
            # A void hand ran out of stock, or a card was retaken past the rules' limit.
            assert result.knocker is None
            assert len(hand.stock) <= 2 or max(hand.takes) > hand.rules.retake_limit
        else:
            assert result.knocker in (0, 1) and result.showdown is not None
            scorer = "knocker" if result.scorer == result.knocker else "defender"
            assert result.showdown.scorer == (None if result.scorer is None else scorer)
        # The finished hand's views show the showdown and nothing from the stock.
        tracker = self.trackers[index]
        tracker.update()
        for seat in (0, 1):
            self.check_view(match.hand_view(seat, index + 1), seat, tracker)

    def play(self, policy: Policy, *, max_steps: int = 100_000) -> None:
        while not self.match.is_over:
            assert self.steps < max_steps, "the match did not end"
            self.step(policy(self.match, self.rng))
        self.check_final()

    def check_final(self) -> None:
        match = self.match
        result = match.result
        assert result is not None and match.to_act is None and match.legal_actions() == []
        with pytest.raises(MatchOverError):
            match.apply(ALL_ACTIONS[0])
        totals = [0, 0]
        won = [0, 0]
        for hand in match.hands:
            assert hand.result is not None
            if hand.result.scorer is not None:
                totals[hand.result.scorer] += hand.result.points
                won[hand.result.scorer] += 1
        assert list(result.points) == totals == match.scores
        assert list(result.hands_won) == won
        assert max(totals) >= match.rules.target > min(totals)
        assert result.hands_played == len(match.hands)
        bonus = [result.game_bonus[s] + result.box_bonus[s] + result.shutout_bonus[s] for s in (0, 1)]
        assert list(result.scores) == [totals[0] + bonus[0], totals[1] + bonus[1]]
        if result.scores[0] != result.scores[1]:
            assert result.winner == int(result.scores[1] > result.scores[0])

    # -- records -----------------------------------------------------------------------

    def check_record(self) -> None:
        match = self.match
        record = match.record()
        text = dumps(record)
        loaded = loads(text)
        assert loaded == record
        assert dumps(loaded) == text
        replay = Match.from_record(loaded)
        assert dumps(replay.record()) == text
        assert replay.scores == match.scores and replay.is_over == match.is_over
        assert replay.result == match.result
        assert replay.legal_actions() == match.legal_actions()
        for seat in (0, 1):
            assert replay.view(seat) == match.view(seat)
            for number in range(1, len(match.hands) + 1):
                assert replay.hand_view(seat, number) == match.hand_view(seat, number)
        rendered = render_match(record)
        assert f"Hand {len(match.hands)}" in rendered


def test_record_errors_are_specific() -> None:
    match = Match(Rules(), seed=3)
    rng = random.Random(3)
    for _ in range(6):
        match.apply(greedy_policy(match, rng))
    data = json.loads(dumps(match.record()))
    tampered = json.loads(json.dumps(data))
    tampered["hands"][0]["actions"][2][1] = {"type": "pass"}
    with pytest.raises(ValueError, match="hand 1, action 3 \\(pass\\)"):
        Match.from_record(loads(json.dumps(tampered)))
    for path, value, message in [
        (("hands", 0, "actions", 0), [True, {"type": "pass"}], "an action entry must be \\[seat, action\\]"),
        (("hands", 0, "actions", 0), [2, {"type": "pass"}], "with a seat below 2, got \\[2, "),
        (("hands", 0, "actions"), {"0": "pass"}, "a hand's actions must be a list"),
        (("hands", 0, "actions", 0), [0, {"type": "fold"}], "unknown action type 'fold'"),
        (("hands", 0, "dealer"), 2, "bad dealer in hand record: 2"),
        (("hands", 0, "seeds"), ["7"], "seeds must be a list of whole numbers"),
        (("rules",), {"preset": "texas"}, "unknown rules preset 'texas'"),
        (("version",), 99, "unsupported game record version 99"),
        (("format",), "pgn", "not a game record"),
    ]:
        bad = json.loads(json.dumps(data))
        target = bad
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        with pytest.raises(RecordError, match=message):
            loads(json.dumps(bad))
    with pytest.raises(RecordError, match="not valid JSON"):
        loads("{")
    with pytest.raises(RecordError, match="missing 'hands'"):
        loads(json.dumps({k: v for k, v in data.items() if k != "hands"}))


CASES: list[tuple[str, Policy, Rules]] = [
    ("greedy", greedy_policy, Rules.preset("classic")),
    ("mixed", mixed_policy, Rules.preset("classic")),
    ("mixed", mixed_policy, Rules.preset("hoyle")),
    ("mixed", mixed_policy, Rules.preset("oklahoma")),
    ("gin", gin_policy, Rules.preset("big_gin")),
    ("mixed", mixed_policy, Rules(undercut_on_tie=False, next_dealer="winner", target=60)),
]
# Random play that knocks whenever it can: long matches of mostly void hands (slow set only).
SLOW_CASES = [*CASES, ("eager", eager_policy, Rules(target=40))]


def run_match(seed: int, policy: Policy, rules: Rules, *, full_universe: bool = True) -> MatchChecker:
    rng = random.Random(seed)
    checker = MatchChecker(Match(rules, seed=seed), rng, full_universe=full_universe)
    stop = rng.randrange(1, 60)
    while not checker.match.is_over and checker.steps < stop:
        checker.step(policy(checker.match, rng))
    checker.check_record()  # an unfinished record replays too
    checker.play(policy)
    checker.check_record()
    return checker


# The default run: four matches of every case, which reach every kind of hand ending (the slow
# run adds 2,000 more).
FAST_SEEDS = range(24)


@pytest.mark.parametrize("seed", FAST_SEEDS)
def test_random_match_invariants(seed: int) -> None:
    _, policy, rules = CASES[seed % len(CASES)]
    run_match(seed, policy, rules)


@pytest.mark.slow
def test_uniformly_random_match_ends() -> None:
    """Uniform random play (mostly void hands: the stock runs out, or a card is retaken past
    the limit) still ends; cheaper checks on a long match (thousands of steps, each checked
    against the whole record: minutes)."""
    checker = run_match(1, random_policy, Rules(target=10), full_universe=False)
    assert any(h.result is not None and h.result.outcome == "void" for h in checker.match.hands)


def test_fast_set_covers_every_outcome() -> None:
    """The default run's matches reach every kind of hand ending (else it proves little)."""
    outcomes: set[str] = set()
    for seed in FAST_SEEDS:
        _, policy, rules = CASES[seed % len(CASES)]
        match = Match(rules, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            match.apply(policy(match, rng))
        outcomes |= {h.result.outcome for h in match.hands if h.result is not None}
    assert outcomes >= {"void", "knock", "gin", "undercut", "big_gin", "tie"}


@pytest.mark.slow
@pytest.mark.parametrize("block", range(20))
def test_random_match_invariants_thousands(block: int) -> None:
    """2,000 more matches (100 per block), every preset and policy."""
    for seed in range(1000 + block * 100, 1000 + (block + 1) * 100):
        _, policy, rules = SLOW_CASES[seed % len(SLOW_CASES)]
        run_match(seed, policy, rules, full_universe=seed % 4 == 0)
