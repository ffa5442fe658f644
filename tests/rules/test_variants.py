"""Every Rules field changes play or scoring (each test fails if its field is ignored), and
the presets classic / hoyle / oklahoma / big_gin with lookup by name (RULES.md §3, §5, §6)."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest
from rules_helpers import (
    eager_policy,
    greedy_policy,
    play,
    rig_hand,
    rig_match,
    seed_with_upcard,
)

from ginrummy import (
    PRESETS,
    Card,
    Discard,
    Draw,
    Hand,
    Knock,
    Match,
    Pass,
    Rules,
    RulesError,
    ShowdownError,
    knock_options,
    new_match,
    parse_cards,
    score_showdown,
)
from ginrummy.rules.cards import CARDS
from ginrummy.rules.variants import CUSTOM, RANGES, TABLE_FIELDS

READY = "3H 4H 5H 6H 9S 9D 9C 9H 2C 2D"  # deadwood 4
OTHER = "KS KD KC 5S 6S 7S 8S TC 8D AD"  # deadwood 19
GIN = "3H 4H 5H 6H 9S 9D 9C AC 2C 3C"
TIE_DEFENDER = "KS KH KD 5S 6S 7S 8H 3H 7C 2S"  # 9 after laying off 8♥ 3♥ on the hearts
AN = "4H 5H 6H 7H 9S 9D 9C 2D 3S 4C"  # guide 003: deadwood 9


def c(text: str) -> Card:
    return Card.parse(text)


def knock_after_drawing_7h(rules: Rules, seed: int = 0) -> Match:
    """A match whose first hand seat 1 (non-dealer) ends by knocking 2♣ with 2 deadwood."""
    used = (parse_cards(READY) | parse_cards(OTHER) | c("7H")).mask
    if rules.oklahoma:
        seed = seed_with_upcard(lambda i: not used >> i & 1, seed)
        hand = rig_hand(rules, dealer=0, non_dealer=READY, dealer_cards=OTHER, stock_top=["7H"], seed=seed)
    else:
        hand = rig_hand(rules, dealer=0, non_dealer=READY, dealer_cards=OTHER, upcard="QH", stock_top=["7H"])
    match = rig_match(rules, hand)
    match.apply(Pass())
    match.apply(Pass())
    match.apply(Draw("stock"))
    return match


# -- fields that change a showdown ----------------------------------------------------------


def test_knock_limit() -> None:
    assert score_showdown(AN, TIE_DEFENDER).knocker_deadwood == 9
    with pytest.raises(ShowdownError, match="knock limit is 8"):
        score_showdown(AN, TIE_DEFENDER, Rules(knock_limit=8))
    # In play: the same 11 cards may knock under 10 but not under 3.
    match = knock_after_drawing_7h(Rules())
    assert Knock(c("4H")) in match.legal_actions()  # leaves 3♥ 2♣ 2♦ = 7
    strict = knock_after_drawing_7h(Rules(knock_limit=3))
    assert strict.hand.knock_limit == 3
    knocks = {str(a.card) for a in strict.legal_actions() if isinstance(a, Knock)}
    assert knocks == {"2C", "2D"}
    with pytest.raises(Exception, match="knock limit is 3"):
        strict.apply(Knock(c("4H")))


def test_gin_bonus() -> None:
    assert score_showdown(GIN, OTHER).points == 25 + 19
    assert score_showdown(GIN, OTHER, Rules(gin_bonus=20)).points == 20 + 19
    assert score_showdown(GIN, OTHER, Rules(gin_bonus=10)).points == 10 + 19


def test_undercut_bonus() -> None:
    undercut = "KS KD KC KH 5S 6S 7S 8S AD AC"  # 2 v the knocker's 9
    assert score_showdown(AN, undercut).points == 7 + 25
    assert score_showdown(AN, undercut, Rules(undercut_bonus=20)).points == 7 + 20
    assert score_showdown(AN, undercut, Rules(undercut_bonus=10)).points == 7 + 10


def test_undercut_on_tie() -> None:
    tie = score_showdown(AN, TIE_DEFENDER)
    assert (tie.outcome, tie.scorer, tie.points) == ("undercut", "defender", 25)
    even = score_showdown(AN, TIE_DEFENDER, Rules(undercut_on_tie=False))
    assert (even.outcome, even.scorer, even.points) == ("tie", None, 0)
    assert even.defender_deadwood == even.knocker_deadwood == 9
    # Lower deadwood is still an undercut either way.
    lower = score_showdown(AN, "KS KH KD 5S 6S 7S 8H 3H 6C 2S", Rules(undercut_on_tie=False))
    assert (lower.outcome, lower.points) == ("undercut", 26)


def test_a_tie_scores_nothing_in_a_match() -> None:
    rules = Rules(undercut_on_tie=False)
    hand = rig_hand(
        rules,
        dealer=1,
        non_dealer="4H 5H 6H 9S 9D 9C 2D 3S 4C TD",
        dealer_cards=TIE_DEFENDER,
        upcard="QD",
        stock_top=["7H"],
    )
    match = rig_match(rules, hand)
    match.apply(Pass())
    match.apply(Pass())
    match.apply(Draw("stock"))
    result = match.apply(Knock(c("TD")))
    assert result is not None and (result.outcome, result.scorer, result.points) == ("tie", None, 0)
    assert match.scores == [0, 0] and match.hands_won == [0, 0]


def test_big_gin_bonus() -> None:
    eleven = GIN + " 4C"
    assert score_showdown(eleven, OTHER, Rules(big_gin_bonus=31)).points == 31 + 19
    assert score_showdown(eleven, OTHER, Rules(big_gin_bonus=50)).points == 50 + 19
    with pytest.raises(ShowdownError, match="Big Gin is not played"):
        score_showdown(eleven, OTHER, Rules(big_gin_bonus=None))
    assert Rules(big_gin_bonus=50).big_gin and not Rules().big_gin


# -- fields that change a match ---------------------------------------------------------


def test_target() -> None:
    for target in (1, 30, 150):
        rules = Rules(target=target)
        match = Match(rules, seed=target)
        play(match, greedy_policy, random.Random(target))
        assert match.result is not None
        totals = match.scores_after
        assert max(totals[-1]) >= target
        assert all(max(t) < target for t in totals[:-1]), "the match went on past the target"


def test_first_dealer() -> None:
    random_dealers = [Match(Rules(first_dealer="random"), seed=s).dealer for s in range(64)]
    cut_dealers = [Match(Rules(first_dealer="cut"), seed=s).dealer for s in range(64)]
    assert set(random_dealers) == set(cut_dealers) == {0, 1}
    assert random_dealers != cut_dealers, "the cut is not how the first dealer is chosen"
    # The choice is a function of the match seed (replayable).
    assert cut_dealers == [Match(Rules(first_dealer="cut"), seed=s).dealer for s in range(64)]


def next_dealer_transitions(rule: str, seeds: range) -> list[tuple[str, int | None, int, int]]:
    """(outcome, scorer, dealer, next dealer) for every hand of some played matches."""
    rows = []
    for seed in seeds:
        match = Match(Rules(next_dealer=rule, target=60), seed=seed)  # type: ignore[arg-type]
        play(match, eager_policy, random.Random(seed))
        for hand, following in zip(match.hands, match.hands[1:], strict=False):
            assert hand.result is not None
            rows.append((hand.result.outcome, hand.result.scorer, hand.dealer, following.dealer))
    return rows


@pytest.mark.parametrize("rule", ["alternate", "loser", "winner"])
def test_next_dealer(rule: str) -> None:
    rows = next_dealer_transitions(rule, range(6))
    voids = [r for r in rows if r[0] == "void"]
    scored = [r for r in rows if r[1] is not None]
    assert voids and scored
    for _, _, dealer, following in voids:
        assert following == dealer, "after a void hand the same dealer deals again"
    for _, scorer, dealer, following in scored:
        assert scorer is not None
        expected = {"alternate": 1 - dealer, "loser": 1 - scorer, "winner": scorer}[rule]
        assert following == expected
    # Make sure the rows tell the rules apart (the non-dealer won some, the dealer others).
    assert {scorer == dealer for _, scorer, dealer, _ in scored} == {True, False}


def end_bonus_results(rules: Rules, seeds: range) -> list[Match]:
    matches = []
    for seed in seeds:
        match = Match(rules, seed=seed)
        play(match, greedy_policy, random.Random(seed))
        matches.append(match)
    return matches


@pytest.mark.parametrize("field", ["game_bonus", "box_bonus", "shutout_bonus"])
def test_end_of_match_bonus(field: str) -> None:
    rules = Rules(target=40).replace(**{field: 7})
    shutouts = 0
    for match in end_bonus_results(rules, range(25)):
        result = match.result
        assert result is not None
        winner = 0 if result.points[0] >= 40 else 1
        expected = [0, 0]
        if field == "game_bonus":
            expected[winner] = 7
        elif field == "box_bonus":
            expected = [7 * result.hands_won[0], 7 * result.hands_won[1]]
        elif result.hands_won[1 - winner] == 0:
            expected[winner] = 7
            shutouts += 1
        assert getattr(result, field) == tuple(expected)
        assert result.scores == (result.points[0] + expected[0], result.points[1] + expected[1])
        assert result.winner == (
            None if result.scores[0] == result.scores[1] else int(result.scores[1] > result.scores[0])
        )
    if field == "shutout_bonus":
        assert 0 < shutouts < 25  # both kinds of ending were seen


def test_box_bonus_can_change_the_winner() -> None:
    """Hoyle: the highest total wins, bonuses included — not necessarily who reached the target."""
    rules = Rules(target=40, box_bonus=50)
    flipped = [
        m
        for m in end_bonus_results(rules, range(40))
        if m.result is not None
        and m.result.winner is not None
        and m.result.points[m.result.winner] < rules.target
    ]
    assert flipped, "no match where the box bonus decided the winner"


# -- Oklahoma ------------------------------------------------------------------------------


@pytest.mark.parametrize("rank", range(13))
def test_oklahoma_upcard_sets_the_knock_limit(rank: int) -> None:
    seed = seed_with_upcard(lambda i: i % 13 == rank)
    expected = 0 if rank == 0 else min(rank + 1, 10)
    assert Hand(Rules.preset("oklahoma"), seed, 0).knock_limit == expected
    assert Hand(Rules(oklahoma=True), seed, 1).knock_limit == expected
    assert Hand(Rules(), seed, 0).knock_limit == 10
    assert Hand(Rules(knock_limit=7), seed, 0).knock_limit == 7


@pytest.mark.parametrize("upcard_rank", [0, 1, 3, 5])
def test_oklahoma_limit_decides_the_knocks(upcard_rank: int) -> None:
    """After drawing 7♥ to READY, the knocks allowed are exactly those within the
    upcard's limit; an ace upcard (limit 0) allows only Gin."""
    rules = Rules.preset("oklahoma")
    used = (parse_cards(READY) | parse_cards(OTHER) | c("7H")).mask
    seed = seed_with_upcard(lambda i: i % 13 == upcard_rank and not used >> i & 1)
    hand = rig_hand(rules, dealer=0, non_dealer=READY, dealer_cards=OTHER, stock_top=["7H"], seed=seed)
    limit = 0 if upcard_rank == 0 else upcard_rank + 1
    assert hand.knock_limit == limit
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    allowed = {a.card.index for a in hand.legal_actions() if isinstance(a, Knock)}
    assert allowed == set(knock_options(hand.hand_of(1), limit))
    assert allowed != set(knock_options(hand.hand_of(1), 10))
    if upcard_rank == 0:
        assert allowed == set()


def test_oklahoma_ace_upcard_still_allows_gin() -> None:
    rules = Rules.preset("oklahoma")
    used = (parse_cards(GIN) | parse_cards(OTHER) | c("4C")).mask
    seed = seed_with_upcard(lambda i: i % 13 == 0 and not used >> i & 1)
    hand = rig_hand(
        rules, dealer=0, non_dealer=GIN.replace("3C", "7D"), dealer_cards=OTHER, stock_top=["3C"], seed=seed
    )
    hand.apply(Pass())
    hand.apply(Pass())
    hand.apply(Draw("stock"))
    assert [a for a in hand.legal_actions() if isinstance(a, Knock)] == [Knock(c("7D"))]
    hand.apply(Knock(c("7D")))
    assert hand.result is not None and hand.result.outcome == "gin"


@pytest.mark.parametrize(
    ("spade", "spade_double", "multiplier"), [(True, True, 2), (True, False, 1), (False, True, 1)]
)
def test_spade_double(spade: bool, spade_double: bool, multiplier: int) -> None:
    rules = Rules(oklahoma=True, spade_double=spade_double)
    used = (parse_cards(READY) | parse_cards(OTHER) | c("7H")).mask
    seed = seed_with_upcard(lambda i: (i // 13 == 3) == spade and i % 13 >= 2 and not used >> i & 1)
    hand = rig_hand(rules, dealer=0, non_dealer=READY, dealer_cards=OTHER, stock_top=["7H"], seed=seed)
    assert hand.multiplier == multiplier
    match = rig_match(rules, hand)
    match.apply(Pass())
    match.apply(Pass())
    match.apply(Draw("stock"))
    result = match.apply(Knock(c("2C")))
    assert result is not None and result.outcome == "knock"
    assert result.points == (19 - 2) * multiplier
    assert match.scores[1] == (19 - 2) * multiplier
    assert result.showdown is not None and result.showdown.multiplier == multiplier


def test_spade_double_needs_oklahoma() -> None:
    seed = seed_with_upcard(lambda i: i // 13 == 3)
    assert Hand(Rules(spade_double=True), seed, 0).multiplier == 1
    assert Hand(Rules(oklahoma=True, spade_double=True), seed, 0).multiplier == 2


# -- presets and the Rules value -------------------------------------------------------------


def _grab_until_over(rules: Rules) -> Hand:
    """Both players always take the upcard and throw their lowest card they may."""
    hand = Hand(rules, 4, dealer=0)
    while not hand.is_over:
        legal = hand.legal_actions()
        if Draw("discard") in legal:
            hand.apply(Draw("discard"))
        else:
            hand.apply(next(a for a in legal if isinstance(a, Discard)))
    return hand


@pytest.mark.parametrize("limit", [1, 3])
def test_retake_limit_ends_a_hand_of_players_who_keep_retaking(limit: int) -> None:
    """Taking each other's discards never shrinks the stock; the hand is void at the end of
    the turn in which a card was taken for the (limit + 1)-th time."""
    hand = _grab_until_over(Rules(retake_limit=limit))
    assert hand.result is not None and hand.result.outcome == "void"
    assert hand.stock_count > 2  # not the ordinary end of the stock
    assert max(hand.takes) == limit + 1
    assert isinstance(hand.steps[-1].action, Discard)
    longer = _grab_until_over(Rules(retake_limit=limit + 1))
    assert len(longer.steps) > len(hand.steps)


def test_rules_stored_before_retake_limit_still_load() -> None:
    old = Rules(preset_name="house", target=50).to_json()
    del old["retake_limit"]
    assert Rules.from_json(old) == Rules(preset_name="house", target=50)


def test_presets() -> None:
    assert (
        Rules.preset_names()
        == ("classic", "hoyle", "oklahoma", "big_gin", "gin3", "gin4_teams", "rummy")
        == tuple(PRESETS)
    )
    classic = Rules.preset("classic")
    assert classic == Rules()
    assert (classic.knock_limit, classic.gin_bonus, classic.undercut_bonus, classic.target) == (
        10,
        25,
        25,
        100,
    )
    assert (classic.undercut_on_tie, classic.big_gin_bonus, classic.next_dealer) == (True, None, "alternate")
    assert (classic.game_bonus, classic.box_bonus, classic.shutout_bonus, classic.oklahoma) == (
        0,
        0,
        0,
        False,
    )
    hoyle = Rules.preset("hoyle")
    assert (hoyle.first_dealer, hoyle.next_dealer) == ("cut", "loser")
    assert (hoyle.game_bonus, hoyle.box_bonus, hoyle.shutout_bonus) == (100, 25, 100)
    oklahoma = Rules.preset("oklahoma")
    assert oklahoma.oklahoma and oklahoma.spade_double and oklahoma.big_gin_bonus is None
    assert Rules.preset("big_gin").big_gin_bonus == 31
    for name in PRESETS:
        assert Rules.preset(name).preset_name == name
    assert Rules.preset(" Big-Gin ") == Rules.preset("big_gin") == Rules.preset("BIG GIN")


def test_unknown_preset_lists_the_presets() -> None:
    with pytest.raises(
        RulesError,
        match="unknown rules preset 'texas'; choose one of classic, hoyle, oklahoma, big_gin, gin3, gin4_teams, rummy",
    ):
        Rules.preset("texas")
    with pytest.raises(RulesError, match="choose one of"):
        new_match("texas")


def test_new_match_takes_a_preset_name() -> None:
    assert new_match("hoyle", seed=1).rules == Rules.preset("hoyle")
    assert new_match(seed=1).rules == Rules.preset("classic")


def test_rules_json_round_trip() -> None:
    for rules in [
        *PRESETS.values(),
        Rules.preset("hoyle").replace(target=250, gin_bonus=20),
        Rules(big_gin_bonus=50, undercut_on_tie=False, next_dealer="winner"),
    ]:
        data = rules.to_json()
        assert data["preset"] == rules.preset_name and "preset_name" not in data
        assert Rules.from_json(data) == rules
    # Missing fields take the named preset's values.
    assert Rules.from_json({"preset": "hoyle", "target": 50}) == Rules.preset("hoyle").replace(target=50)


def test_every_field_is_covered_here() -> None:
    """A new Rules field must get a test in this file, or (the fields of the games for more than
    two players) in test_table_variants.py, whose own meta-test names each one's test."""
    assert {f.name for f in fields(Rules)} - set(TABLE_FIELDS) == {
        "preset_name",
        "knock_limit",
        "gin_bonus",
        "undercut_bonus",
        "undercut_on_tie",
        "big_gin_bonus",
        "target",
        "first_dealer",
        "next_dealer",
        "game_bonus",
        "box_bonus",
        "shutout_bonus",
        "oklahoma",
        "spade_double",
        "retake_limit",
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"knock_limit": -1}, "knock_limit"),
        ({"knock_limit": 101}, "knock_limit"),
        ({"knock_limit": 11}, "knock_limit must be a whole number from 0 to 10, got 11"),
        ({"gin_bonus": 101}, "gin_bonus must be a whole number from 0 to 100"),
        (
            {"target": 10**4000},
            "target must be a whole number from 1 to 1000, got a number of about 4000 digits",
        ),
        ({"game_bonus": 1001}, "game_bonus"),
        ({"box_bonus": 101}, "box_bonus"),
        ({"shutout_bonus": -1}, "shutout_bonus"),
        ({"big_gin_bonus": 101}, "big_gin_bonus must be None or a whole number from 0 to 100"),
        ({"gin_bonus": 2.5}, "gin_bonus"),
        ({"target": 0}, "target"),
        ({"big_gin_bonus": -3}, "big_gin_bonus"),
        ({"big_gin_bonus": True}, "big_gin_bonus"),
        ({"undercut_bonus": True}, "undercut_bonus"),
        ({"first_dealer": "oldest"}, "first_dealer must be 'random' or 'cut', got 'oldest'"),
        ({"next_dealer": "dealer"}, "next_dealer must be 'alternate', 'loser' or 'winner'"),
        ({"oklahoma": "yes"}, "oklahoma must be true or false"),
        ({"retake_limit": 0}, "retake_limit must be a whole number from 1 to 100, got 0"),
        ({"retake_limit": 2.5}, "retake_limit"),
        ({"colour": "red"}, "unknown rules field"),
    ],
)
def test_bad_rules_are_refused(change: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules().replace(**change)


def test_every_number_has_a_documented_range() -> None:
    """(`players` is ranged per game by `GAMES`; test_table_variants.py checks it.)"""
    numbers = {f.name for f in fields(Rules) if f.type in ("int", "int | None")} - {"players"}
    assert numbers == set(RANGES)
    for name, (low, high) in RANGES.items():
        base = Rules.preset("rummy") if name in TABLE_FIELDS else Rules()
        assert base.replace(**{name: low}).replace(**{name: high})  # both ends are allowed
        for outside in (low - 1, high + 1):
            with pytest.raises(RulesError, match=f"{name} must be"):
                base.replace(**{name: outside})


def test_rules_are_named_after_the_preset_they_equal_or_custom() -> None:
    assert Rules.preset("classic").replace(gin_bonus=0).preset_name == CUSTOM
    assert Rules.from_json({"preset": "classic", "gin_bonus": 0}).to_json()["preset"] == "custom"
    assert Rules.from_json({"preset": "hoyle", "game_bonus": 0, "box_bonus": 0, "shutout_bonus": 0}) == (
        Rules.preset("hoyle").replace(game_bonus=0, box_bonus=0, shutout_bonus=0)
    )
    # Exactly a preset's rules carry its name, whatever name was given.
    assert Rules(preset_name="hoyle").preset_name == "classic"
    assert Rules.preset("classic").replace(big_gin_bonus=31).preset_name == "big_gin"
    everything = Rules.preset("oklahoma").to_json()
    assert Rules.from_json({**everything, "preset": "My house rules"}).preset_name == "oklahoma"
    custom = Rules(gin_bonus=20, target=150)
    assert Rules.from_json(custom.to_json()) == custom and custom.to_json()["preset"] == "custom"
    # The target is how long a match lasts, not a rule: classic played to 150 is still classic.
    assert (
        Rules(target=150).preset_name == "classic"
        and Rules.preset("hoyle").replace(target=25).preset_name == "hoyle"
    )
    # A name is short text; a long one is refused, and "custom" alone does not say the rules.
    with pytest.raises(RulesError, match="1 to 40 characters, got 15000 characters"):
        Rules.from_json({"preset": "x" * 15000})
    with pytest.raises(RulesError, match="give every field"):
        Rules.from_json({"preset": "custom", "target": 150})


def test_rules_are_frozen() -> None:
    rules = Rules()
    with pytest.raises(AttributeError):
        rules.target = 5  # type: ignore[misc]
    assert rules.replace(target=5).target == 5 and rules.target == 100


def test_discard_is_unaffected_by_variants() -> None:
    """Sanity: a plain discard works the same under every two-player preset (no variant leaks into it)."""
    for name in PRESETS:
        rules = Rules.preset(name)
        if rules.game != "gin":
            continue
        match = knock_after_drawing_7h(rules)
        match.apply(Discard(c("7H")))
        assert match.hand.phase == "draw" and CARDS[match.hand.discard_pile[-1]] == c("7H")
