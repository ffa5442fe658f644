"""The `expert` player: legal, deterministic, within its budget, and sensible where the answer is clear."""

from __future__ import annotations

import math
import random

import pytest
from bot_helpers import random_positions

from ginrummy.bots import make_player
from ginrummy.bots.baseline import BaselinePlayer
from ginrummy.bots.expert import ExpertPlayer
from ginrummy.bots.expert.infer import evolved_hands
from ginrummy.bots.expert.match_odds import match_win
from ginrummy.bots.expert.steady import SteadyPlayer
from ginrummy.bots.knowledge import (
    DISCARDED,
    PASSED,
    STOCK,
    TOOK,
    card_probs,
    card_weights,
    expected_after_draw,
    track,
)
from ginrummy.rules import (
    BigGin,
    Card,
    CardSet,
    Discard,
    Draw,
    HandEnd,
    Knock,
    PublicStep,
    Rules,
    View,
    best_arrangement,
    build_view,
    min_deadwood,
    new_match,
    parse_cards,
)
from ginrummy.rules.hand import Hand


# The game the expert plays once it knows the opponent knocks at its first chance.
class UndercutGame(ExpertPlayer):
    """The undercut game from the first hand (no steady opening)."""

    ADAPTIVE_OPENING = False


class PlainUndercutGame(UndercutGame):
    """The undercut game valuing hands by their plain expected deadwood."""

    RISK_TAU = 0.0


def _cards(text: str) -> int:
    return parse_cards(text).mask


def _index(text: str) -> int:
    return parse_cards(text).mask.bit_length() - 1


def position(
    mine: str,
    pile: str,
    *,
    opp_known: str = "",
    opp_hidden: str | None = None,
    phase: str = "discard",
    scores: tuple[int, int] = (0, 0),
    rules: Rules | None = None,
    history: list[tuple[int, dict[str, str], str | None]] | None = None,
    stock: int | None = None,
) -> View:
    """Seat 0's view of a hand-built position: its cards, the discard pile (bottom first),
    the opponent's cards seen taken, and a history of (seat, action, card) steps."""
    h = Hand(rules or Rules(), 1, dealer=1)
    hand = _cards(mine)
    pile_cards = [_index(t) for t in pile.split()] if pile else []
    known = _cards(opp_known)
    used = hand | known | sum(1 << c for c in pile_cards)
    rest = [i for i in range(52) if not used >> i & 1]
    if opp_hidden is None:
        hidden = rest[: 10 - known.bit_count()]
    else:
        hidden = [_index(t) for t in opp_hidden.split()]
    opp = known | sum(1 << c for c in hidden)
    h.hands = [hand, opp]
    h.discard_pile = pile_cards
    h.stock = [c for c in rest if not opp >> c & 1]
    if stock is not None:
        # Cards beyond `stock` lie buried in the discard pile.
        h.discard_pile = h.stock[stock:] + h.discard_pile
        h.stock = h.stock[:stock]
    h.known = [0, known]
    h.to_act = 0
    h.phase = phase  # type: ignore[assignment]
    h.passes = 2 if phase != "offer" else 0
    h.taken = -1
    h.after_table = None
    steps = []
    from ginrummy.rules.actions import action_from_json
    from ginrummy.rules.cards import CARDS
    from ginrummy.rules.hand import Step

    for seat, action, card in history or []:
        steps.append(Step(seat, action_from_json(action), CARDS[_index(card)] if card else None))
    for step in steps:
        h._record(step)
    return build_view(h, 0, hand_number=1, scores=scores)


# -- always legal, deterministic, budgets ------------------------------------------------


def test_always_legal_on_random_positions() -> None:
    player = ExpertPlayer(seed=3)
    for _, view in random_positions(150, seed=11):
        action = player.act(view)
        assert action in view.legal, (view.to_json(), action)


@pytest.mark.parametrize("preset", ["classic", "oklahoma", "big_gin", "hoyle"])
def test_plays_whole_matches_legally(preset: str) -> None:
    expert = ExpertPlayer(seed=1)
    other = BaselinePlayer(seed=2)
    match = new_match(preset, seed=5)
    players = [expert, other]
    for _ in range(2000):
        if match.is_over:
            break
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        action = players[seat].act(view)
        assert action in view.legal
        if match.apply(action, seat) is not None:
            expert.observe(match.hand_view(0, len(match.hands) - (0 if match.is_over else 1)))
    assert match.is_over


def test_same_seed_same_play() -> None:
    def actions(seed: int) -> list[str]:
        match = new_match("classic", seed=9)
        players = [ExpertPlayer(seed=seed), BaselinePlayer(seed=4)]
        out = []
        while not match.is_over and len(out) < 400:
            seat = match.to_act
            assert seat is not None
            action = players[seat].act(match.view(seat))
            out.append(str(action))
            match.apply(action, seat)
        return out

    assert actions(17) == actions(17)


def _undercut_match(seed: int) -> list[str]:
    """The actions of one whole match of the undercut game against the baseline."""
    match = new_match("classic", seed=seed)
    players = [UndercutGame(seed=seed), BaselinePlayer(seed=4)]
    out = []
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        action = players[seat].act(match.view(seat))
        out.append(str(action))
        if match.apply(action, seat) is not None:
            number = len(match.hands) - (0 if match.is_over else 1)
            for s in (0, 1):
                players[s].observe(match.hand_view(s, number))
    return out


def test_without_a_budget_a_slow_clock_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """No time budget: fixed search sizes, so a seeded match repeats on any machine."""
    import ginrummy.bots.expert.player as expert_module

    played = [0]
    real_rollout = expert_module.rollout

    def counted(*args: object, **kwargs: object) -> int:
        played[0] += 1
        return real_rollout(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(expert_module, "rollout", counted)
    normal = _undercut_match(21)
    assert played[0] > 0  # the end-of-match search ran
    ticks = [0.0]

    def slow_clock() -> float:
        ticks[0] += 1.0  # a second passes at every look at the clock
        return ticks[0]

    monkeypatch.setattr(expert_module.time, "perf_counter", slow_clock)
    assert _undercut_match(21) == normal


def test_small_time_budget_still_answers() -> None:
    player = make_player("expert", seed=2, time_budget=0.005)
    for _, view in random_positions(30, seed=5):
        assert player.act(view) in view.legal


def test_rejects_bad_budget_and_empty_views() -> None:
    with pytest.raises(ValueError, match="time_budget"):
        ExpertPlayer(time_budget=0)
    match = new_match("classic", seed=1)
    idle = match.view(1 - match.to_act)  # type: ignore[operator]
    with pytest.raises(ValueError, match="legal actions"):
        ExpertPlayer().act(idle)


def test_registered_under_its_name() -> None:
    player = make_player("expert", seed=1)
    assert player.name == "expert" and isinstance(player, ExpertPlayer)


# -- sensible decisions in constructed positions --------------------------------------------


def test_goes_gin_when_it_can() -> None:
    view = position("3S 4S 5S 6S 9C 9D 9H JD QD KD KC", "2C")
    action = ExpertPlayer(seed=1).act(view)
    assert action == Knock(parse_cards("KC").__iter__().__next__())


def test_big_gin_when_the_variant_is_on() -> None:
    rules = Rules.preset("big_gin")
    view = position("3S 4S 5S 6S 9C 9D 9H JD QD KD KC KH KS".replace(" KH KS", ""), "2C", rules=rules)
    # 11 cards all melded: 3-6S, 999, JD QD KD... KC alone breaks it, so build one that melds fully.
    view = position("3S 4S 5S 6S 9C 9D 9H JD QD KD 7S", "2C", rules=rules)
    assert ExpertPlayer(seed=1).act(view) == BigGin()


def test_takes_the_upcard_that_completes_a_meld() -> None:
    view = position("5H 6H 9C 9D KS QC JD 2S 3C 8D", "7H", phase="draw")
    assert ExpertPlayer(seed=1).act(view) == Draw("discard")


def test_draws_from_stock_when_the_upcard_is_useless() -> None:
    view = position("5H 6H 7H 9C 9D 9S 2S 3S 4S AC", "KD", phase="draw")
    assert ExpertPlayer(seed=1).act(view) == Draw("stock")


def test_throws_the_safe_card_of_two_equal_ones() -> None:
    # The opponent took TC and TH: TD would give it a set. KS is just as useless to us
    # (every card near TD and KS is dead), so KS must go.
    view = position(
        "AS 2S 3S 4C 5C 6C 7D 7H 7C TD KS",
        "9D JD QD KC KD KH TS QS JS",
        opp_known="TC TH",
        history=[
            (1, {"type": "draw", "source": "discard"}, "TC"),
            (1, {"type": "discard", "card": "9D"}, None),
            (0, {"type": "draw", "source": "discard"}, "9D"),
            (0, {"type": "discard", "card": "9D"}, None),
            (1, {"type": "draw", "source": "discard"}, "TH"),
        ],
    )
    action = UndercutGame(seed=1).act(view)
    assert isinstance(action, Discard) and str(action.card) == "KS"


def test_knocks_to_clinch_the_match() -> None:
    # 95 points and a short stock: a knock the opponent cannot undercut wins the match,
    # while playing on may end in a void hand.
    view = position("3S 4S 5S 9C 9D 9H JD QD KD 2C AH", "8C", scores=(95, 40), stock=6)
    action = UndercutGame(seed=1).act(view)
    assert isinstance(action, Knock)


def test_plays_on_for_gin_early_with_a_low_hand_mid_match() -> None:
    # Deadwood 3 early in a hand, far from the target: an undercut or Gin is worth more.
    view = position("3S 4S 5S 9C 9D 9H JD QD KD 2C AH", "8C", scores=(10, 10), stock=20)
    action = UndercutGame(seed=1).act(view)
    assert isinstance(action, Discard)


def test_keeps_a_pair_that_may_make_a_set_over_a_lower_single_card() -> None:
    # Sets of 9s and Ks; loose 4D 5C AH and the pair 6H 6S. Throwing 6H leaves the least
    # deadwood expected after the next draw, but the pair's live sixes give a chance of a
    # count low enough to undercut, so the undercut game throws 5C.
    view = position("5C 9C KC 4D 9D KD AH 6H 9H 6S KS", "")
    risky = UndercutGame(seed=1).act(view)
    plain = PlainUndercutGame(seed=1).act(view)
    assert (str(risky), str(plain)) == ("discard 5C", "discard 6H")


# -- the parts ---------------------------------------------------------------------------


def test_track_follows_the_opponent() -> None:
    match = new_match("classic", seed=3)
    rng = random.Random(2)
    for _ in range(25):
        match.apply(rng.choice([a for a in match.legal_actions() if not isinstance(a, Knock)]))
    seat = match.to_act
    assert seat is not None
    view = match.view(seat)
    k = track(view)
    assert k.hand == view.hand.mask and k.stock_count == view.stock_count
    assert k.unseen & (k.hand | k.opp_known) == 0
    assert k.unseen.bit_count() == 52 - len(view.hand) - len(view.discard_pile) - len(view.opponent_known)
    for ev in k.events:
        assert ev.kind in (PASSED, TOOK, DISCARDED, STOCK)
    discards = [str(e.card) for e in view.history if e.seat != seat and e.kind == "discard"]
    assert [str(CardSet.from_mask(1 << ev.card)) for ev in k.events if ev.kind == DISCARDED] == discards


def test_inference_follows_what_the_opponent_took() -> None:
    view = position(
        "AS 2S 3S 4C 5C 6C 7D 8H KC QC JC",
        "2D",
        opp_known="9H",
        history=[
            (1, {"type": "draw", "source": "discard"}, "9H"),
            (1, {"type": "discard", "card": "2D"}, None),
        ],
    )
    k = track(view)
    probs = card_probs(k)
    assert probs[_index("9H")] == 1.0
    assert probs[_index("AS")] == 0.0
    # A card that melds with 9H (9C, TH...) is likelier than a far one (4D).
    assert probs[_index("9C")] > probs[_index("4D")]
    hands = evolved_hands(k, 20, random.Random(1), card_weights(k))
    assert all(h >> _index("9H") & 1 and h.bit_count() == 10 and not h & k.hand for h in hands)


def test_match_win_table_is_sensible() -> None:
    assert match_win(100, 50, 100) == 1.0 and match_win(50, 100, 100) == 0.0
    assert match_win(90, 10, 100) > match_win(10, 10, 100) > match_win(10, 90, 100)
    assert 0.0 < match_win(0, 0, 100) < 1.0


@pytest.mark.parametrize("seed", range(6))
def test_expected_after_draw_against_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    deck = rng.sample(range(52), 52)
    hand = sum(1 << c for c in deck[:10])
    stock = [(c, rng.choice([0.0, 0.5, 1.0, 2.0])) for c in deck[10:40]]
    total = sum(w for _, w in stock)
    # After drawing c: the least deadwood of the eleven cards less any one of them.
    after = {
        c: min(
            min_deadwood(CardSet.from_mask((hand | 1 << c) & ~(1 << x)))
            for x in range(52)
            if (hand | 1 << c) >> x & 1
        )
        for c, _ in stock
    }
    plain = sum(w * after[c] for c, w in stock) / total
    assert expected_after_draw(hand, stock, total) == pytest.approx(plain)
    for tau in (4.0, 12.0):
        certain = -tau * math.log(sum(w * math.exp(-after[c] / tau) for c, w in stock) / total)
        assert expected_after_draw(hand, stock, total, tau) == pytest.approx(certain)
        assert certain <= plain + 1e-9  # a falling, convex utility: never above the mean
    assert expected_after_draw(hand, stock, total, 1e6) == pytest.approx(plain, abs=1e-3)


def test_decide_gives_a_reason() -> None:
    view = position("3S 4S 5S 6S 9C 9D 9H JD QD KD KC", "2C")
    decision = ExpertPlayer(seed=1).decide(view)
    assert decision.action == ExpertPlayer(seed=1).act(view)
    assert "Gin" in decision.reason


def test_learns_when_the_opponent_passes_up_knocks() -> None:
    # A finished hand where this seat knocked and the opponent held 8 deadwood: it could
    # have knocked itself, so it is not a knock-at-once player.
    match = new_match("classic", seed=2)
    view = match.view(0)
    hands = (parse_cards("3S 4S 5S 9C 9D 9H JD QD KD 2C"), parse_cards("AH 2H 3H 4C 5C 6C 7D 7H 7C 8H"))
    knocker, defender = (best_arrangement(cards) for cards in hands)
    showdown = HandEnd(
        "undercut",
        1,
        27,
        0,
        (0, 27),
        hands=hands,
        melds=(knocker.melds, defender.melds),
        deadwood_cards=(knocker.deadwood_cards, defender.deadwood_cards),
        deadwood=(knocker.deadwood, defender.deadwood),
    )
    over = View(
        **{
            **{f: getattr(view, f) for f in view.__dataclass_fields__},
            "phase": "over",
            "legal": (),
            "showdown": showdown,
        }
    )
    player = ExpertPlayer(seed=1)
    player.observe(over)
    assert player._asap_missed == 1
    player.observe(View(**{**{f: getattr(over, f) for f in over.__dataclass_fields__}, "showdown": None}))
    assert player._asap_missed == 1


def _play(expert: ExpertPlayer, other: object, seed: int) -> None:
    match = new_match("classic", seed=seed)
    players = [expert, other]
    while not match.is_over:
        seat = match.to_act
        assert seat is not None
        result = match.apply(players[seat].act(match.view(seat)), seat)  # type: ignore[attr-defined]
        if result is not None:
            number = len(match.hands) if match.is_over else len(match.hands) - 1
            for s in (0, 1):
                players[s].observe(match.hand_view(s, number))  # type: ignore[attr-defined]


def test_plays_its_steady_game_until_the_opponent_knocks_at_once() -> None:
    # Against the baseline (knocks at its first chance) it soon switches to the undercut game.
    expert = ExpertPlayer(seed=3)
    assert not expert.exploiting
    _play(expert, BaselinePlayer(seed=4), seed=5)
    assert expert.exploiting and expert._late_knocks >= 1
    # A patient player (the expert's own opening game) never knocks late with deadwood,
    # so the expert never switches.
    expert = ExpertPlayer(seed=3)
    _play(expert, SteadyPlayer(seed=4), seed=5)
    assert not expert.exploiting and expert._late_knocks == 0


def _hand_end(
    outcome: str,
    scorer: int,
    points: int,
    knocker: int,
    hands: tuple[str, str],
    deadwood: tuple[int, int] | None = None,
) -> HandEnd:
    """A showdown with both hands face up (deadwood as given, else the hands' least)."""
    cards = (parse_cards(hands[0]), parse_cards(hands[1]))
    a, b = (best_arrangement(c) for c in cards)
    return HandEnd(
        outcome,
        scorer,
        points,
        knocker,
        (0, points),
        hands=cards,
        melds=(a.melds, b.melds),
        deadwood_cards=(a.deadwood_cards, b.deadwood_cards),
        deadwood=deadwood if deadwood is not None else (a.deadwood, b.deadwood),
    )


def test_a_late_knock_switches_the_game_and_a_passed_up_knock_switches_it_back() -> None:
    match = new_match("classic", seed=2)
    view = match.view(0)
    draws = [PublicStep(1, "draw", "stock"), PublicStep(1, "discard", None, Card.parse("KS"))] * 7
    late_knock = _hand_end("knock", 1, 9, 1, ("", ""), (15, 6))
    over = View(
        **{
            **{f: getattr(view, f) for f in view.__dataclass_fields__},
            "phase": "over",
            "legal": (),
            "showdown": late_knock,
            "history": tuple(draws),
        }
    )
    player = ExpertPlayer(seed=1)
    player.observe(over)
    assert player.exploiting
    gin = _hand_end("gin", 1, 40, 1, ("", ""), (15, 0))
    early = View(
        **{
            **{f: getattr(over, f) for f in over.__dataclass_fields__},
            "showdown": late_knock,
            "history": tuple(draws[:6]),
        }
    )
    other = ExpertPlayer(seed=1)
    other.observe(View(**{**{f: getattr(over, f) for f in over.__dataclass_fields__}, "showdown": gin}))
    other.observe(early)  # three draws and 6 deadwood: what a patient player does too
    assert not other.exploiting
    passed_up = _hand_end(
        "undercut", 1, 27, 0, ("3S 4S 5S 9C 9D 9H JD QD KD 2C", "AH 2H 3H 4C 5C 6C 7D 7H 7C 8H")
    )
    player.observe(
        View(**{**{f: getattr(over, f) for f in over.__dataclass_fields__}, "showdown": passed_up})
    )
    assert not player.exploiting


def test_the_steady_game_still_gives_reasons() -> None:
    view = position("5H 6H 9C 9D KS QC JD 2S 3C 8D", "7H", phase="draw")
    decision = ExpertPlayer(seed=1).decide(view)
    assert decision.action == Draw("discard") and decision.reason.startswith("take 7")


def test_appraise_gives_the_choice_and_the_cost_of_another_discard() -> None:
    from ginrummy.bots.expert import appraise
    from ginrummy.rules import Card

    # Two melds, a pair and loose high cards (no knock): a high card goes; breaking a meld
    # costs several points of deadwood.
    view = position(
        "AC 2C 3C 7S 8S 9S 5D 5H KH QD JC", "4D", history=[(1, {"type": "discard", "card": "4D"}, None)]
    )
    best = appraise(view, Discard(Card.parse("KH")))
    assert best.choice in [Discard(Card.parse(t)) for t in ("KH", "QD", "JC")]
    same = appraise(view, best.choice)
    assert same.cost == 0.0 and same.to_json()["cost"] == 0.0
    worse = appraise(view, Discard(Card.parse("8S")))
    assert worse.cost is not None and worse.cost > 5
    with pytest.raises(ValueError, match="not legal"):
        appraise(view, Discard(Card.parse("4D")))


_SPARE = ["QC", "QH", "QS", "JC", "JH", "JS", "TC", "TH", "TS", "8H", "8S", "7C", "7H", "7S"]


def _after_draws(hand: str, draws: int) -> View:
    """Seat 0 holding `hand` (11 cards) just after its `draws`-th stock draw of the hand, both
    players having thrown spare cards so far."""
    history: list[tuple[int, dict[str, str], str | None]] = []
    for turn in range(draws):
        thrown = _SPARE[2 * turn]
        history += [
            (1, {"type": "draw", "source": "stock"}, None),
            (1, {"type": "discard", "card": thrown}, thrown),
        ]
        history.append((0, {"type": "draw", "source": "stock"}, None))
        if turn < draws - 1:
            mine = _SPARE[2 * turn + 1]
            history.append((0, {"type": "discard", "card": mine}, mine))
    return position(hand, " ".join(_SPARE[: 2 * draws - 1]), history=history, scores=(10, 10), stock=20)


def test_the_steady_opening_knocks_by_the_steady_judgement() -> None:
    # Early in a hand it knocks freely; during draws 5-6 it cashes in 4 or more deadwood and
    # plays a lower hand on; later it only goes Gin. The undercut game plays on throughout.
    low, high = "3S 4S 5S 9C 9D 9H JD QD KD 2C AH", "3S 4S 5S 9C 9D 9H JD QD KD 5C 4H"
    assert SteadyPlayer.knocks(1, 2) and not SteadyPlayer.knocks(1, 5) and SteadyPlayer.knocks(4, 5)
    cases = [(low, 2, "knock 2C", "early in the hand"), (low, 5, "discard 2C", "plays on for Gin")]
    cases += [(high, 5, "knock 5C", "too much to undercut"), (high, 7, "discard 5C", "plays on for Gin")]
    for hand, draws, move, why in cases:
        decision = ExpertPlayer(seed=1).decide(_after_draws(hand, draws))
        assert (str(decision.action), why in decision.reason) == (move, True), (hand, draws, decision.reason)
    assert isinstance(UndercutGame(seed=1).act(_after_draws(low, 2)), Discard)


def test_the_steady_opening_plays_the_expert_s_own_cards() -> None:
    # Both games share the expert's card play; `advanced` (the steady game's own) throws KC here.
    view = position("3S QC 8C 6S 6D 9D 3D QH 3H 4C KC", "")
    assert str(SteadyPlayer(seed=1).act(view)) == "discard KC"
    assert str(ExpertPlayer(seed=1).act(view)) == str(UndercutGame(seed=1).act(view)) == "discard 9D"
