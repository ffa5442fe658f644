"""The one `Game` interface over every game: two-player Gin's `Match` satisfies it unchanged, and a
host written only against it plays all four games (the static proof is mypy's check of
`rules.game._GAMES`)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from ginrummy import (
    BigGin,
    Discard,
    Draw,
    Game,
    GameRecord,
    GinTableView,
    HandOutcome,
    IllegalActionError,
    Knock,
    LayMeld,
    Match,
    MatchOverError,
    NotYourTurnError,
    RecordError,
    Rules,
    RulesError,
    RummyView,
    View,
    ViewError,
    game_from_record,
    game_view_from_json,
    load_game,
    loads,
    new_game,
    new_match,
    parse_cards,
)

PRESETS = ("classic", "hoyle", "gin3", "gin4_teams", "rummy")


def host_plays(game: Game, rng: random.Random) -> list[str]:
    """A host that knows only the `Game` interface: plays to the end, returns the outcomes seen."""
    outcomes = []
    while not game.is_over:
        seat = rng.choice(game.seats_to_act)
        legal = list(game.legal_actions(seat))
        endings = [a for a in legal if type(a).__name__ in ("Knock", "LayMeld", "LayOff", "BigGin")]
        action = rng.choice(endings) if endings and rng.random() < 0.8 else rng.choice(legal)
        game.check(action, seat)
        number = game.hand_number  # the deal this action belongs to
        ended = game.apply(action, seat)
        if ended is not None:
            assert isinstance(ended, HandOutcome)
            outcomes.append(ended.outcome)
            for s in range(game.seat_count):
                finished = game.hand_view(s, number)
                assert finished.to_json() == game_view_from_json(finished.to_json()).to_json()
    result = game.result
    assert result is not None and result.winners
    side = next(i for i, seats in enumerate(game.sides) if result.winners[0] in seats)
    assert set(game.sides[side]) == set(result.winners)
    assert result.scores[side] == max(result.scores) and len(result.scores) == len(game.sides)
    return outcomes


@pytest.mark.parametrize("preset", PRESETS)
def test_a_host_written_against_the_interface_plays_every_game(preset: str) -> None:
    game = new_game(Rules.preset(preset).replace(target=40), seed=preset)
    assert game.seat_count == Rules.preset(preset).players
    outcomes = host_plays(game, random.Random(1))
    assert outcomes
    text = game.record().dumps()
    again = load_game(text)
    assert again.record().dumps() == text and type(again) is type(game)


def _eager(rng: random.Random, legal: list[Any]) -> Any:
    """Random play that knocks most of the times it may (uniform play is mostly void hands)."""
    knocks = [a for a in legal if isinstance(a, Knock | BigGin)]
    return rng.choice(knocks) if knocks and rng.random() < 0.7 else rng.choice(legal)


def test_two_player_match_is_unchanged_behind_the_interface() -> None:
    """`new_game("classic")` is the very `Match` of `new_match`: same deals, views, JSON and records."""
    assert isinstance(new_game("classic", seed=42), Match)
    short = Rules.preset("classic").replace(target=30)  # a whole match, a few hands long
    game = new_game(short, seed=42)
    match = new_match(short, seed=42)
    assert isinstance(game, Match)
    rng_a, rng_b = random.Random(5), random.Random(5)
    while not match.is_over:
        seat = match.to_act
        assert seat is not None and game.seats_to_act == (seat,)
        assert game.legal_actions(1 - seat) == [] and game.legal_actions(seat) == match.legal_actions()
        assert game.view(seat).dumps() == match.view(seat).dumps()
        action = _eager(rng_a, match.legal_actions())
        assert _eager(rng_b, game.legal_actions()) == action
        assert match.apply(action) == game.apply(action, seat)
    assert game.record().dumps() == match.record().dumps()
    assert json.loads(game.record().dumps())["format"] == "ginrummy-game"
    assert game.record().game == "gin" and all(len(h.seeds) == 1 for h in game.record().hands)
    assert game.result is not None and game.result.winners == (game.result.winner,)
    assert game.seats_to_act == () and game.seat_count == 2
    with pytest.raises(MatchOverError):
        game.check(Draw("stock"), 0)


def test_a_rummy_action_is_refused_by_gin_with_a_reason() -> None:
    match = new_match(seed=3)
    seat = match.to_act
    with pytest.raises(IllegalActionError, match="first upcard"):
        match.apply(LayMeld(parse_cards("7H 8H 9H")), seat)
    match.apply(Draw("discard"))
    with pytest.raises(IllegalActionError, match="discard a card or knock"):
        match.check(LayMeld(parse_cards("7H 8H 9H")), seat)


def test_new_game_dispatches_on_the_rules() -> None:
    assert type(new_game(Rules.for_game("rummy", 6), seed=1)).__name__ == "RummyGame"
    assert new_game(seed=1).rules == Rules()
    with pytest.raises(RulesError, match="unknown rules preset"):
        new_game("poker")
    seeds = [5, 6, 7]
    game = new_game("rummy", seed=1, seed_source=lambda i: seeds[i])
    assert game.record().hands[0].seeds == (5,)


def test_records_of_every_game_are_one_format() -> None:
    match = new_match(seed=9)
    assert loads(match.record().dumps()) == match.record() and match.record().game == "gin"
    assert isinstance(game_from_record(match.record()), Match)
    rummy = new_game("rummy", seed=9)
    assert isinstance(loads(rummy.record().dumps()), GameRecord)
    with pytest.raises(RecordError, match="expected 'ginrummy-game' .or 'ginrummy-match' version 1"):
        loads('{"format": "chess"}')
    with pytest.raises(RecordError, match="not valid JSON"):
        loads("{")
    bad = json.loads(rummy.record().dumps())
    bad["game"] = "gin3"
    with pytest.raises(RecordError, match="record says game 'gin3' but its rules are for 'rummy'"):
        loads(json.dumps(bad))
    bad = json.loads(rummy.record().dumps())
    bad["hands"][0]["actions"] = [[9, {"type": "draw", "source": "stock"}]]
    with pytest.raises(RecordError, match="seat below 4"):
        loads(json.dumps(bad))
    bad = json.loads(match.record().dumps())
    bad["game"] = "rummy"
    with pytest.raises(RecordError, match="record says game 'rummy' but its rules are for 'gin'"):
        loads(json.dumps(bad))
    with pytest.raises(RulesError, match="not two-player Gin"):
        Match.from_record(rummy.record())


def test_views_of_every_game_parse_by_their_game_field() -> None:
    match = new_match(seed=2)
    data = match.view(0).to_json()
    assert isinstance(game_view_from_json(data), View)
    assert isinstance(game_view_from_json({**data, "game": "gin", "players": 2}), View)
    assert isinstance(game_view_from_json(new_game("gin3", seed=1).view(0).to_json()), GinTableView)
    assert isinstance(game_view_from_json(new_game("rummy", seed=1).view(0).dumps()), RummyView)
    with pytest.raises(ViewError, match="unknown game 'go'"):
        game_view_from_json({"game": "go"})
    rummy = new_game("rummy", seed=1).view(0).to_json()
    del rummy["table"]
    with pytest.raises(ViewError, match="missing the field 'table'"):
        game_view_from_json(rummy)


def test_seats_that_do_not_exist_are_refused() -> None:
    for preset in ("gin3", "gin4_teams", "rummy"):
        game = new_game(preset, seed=1)
        with pytest.raises(NotYourTurnError, match="there is no seat 9"):
            game.check(Draw("stock"), 9)
        with pytest.raises(ValueError, match="seat must be"):
            game.view(9)
        with pytest.raises(ValueError, match="no (hand|round) 5"):
            game.hand_view(0, 5)


def test_rummy_discard_of_a_card_not_held_says_so() -> None:
    game = new_game("rummy", seed=4)
    seat = game.seats_to_act[0]
    game.apply(Draw("stock"), seat)
    held = game.view(seat).hand
    missing = next(card for card in parse_cards("AC 2C 3C 4C 5C 6C 7C 8C 9C") if card not in held)
    with pytest.raises(IllegalActionError, match=f"{missing} is not in your hand"):
        game.apply(Discard(missing), seat)


@pytest.mark.parametrize("preset", PRESETS)
def test_one_rendering_replays_every_game_and_shows_every_gin_showdown(preset: str) -> None:
    """`render_game` prints any record: two-player Gin exactly as `render_match` does, and every
    hand of three-player and team Gin that ended in a knock or Gin with both sides' melds shown."""
    from ginrummy import render_game, render_match

    game = new_game(Rules.preset(preset), seed=21)
    outcomes = host_plays(game, random.Random(21))
    record = game.record()
    text = render_game(record)
    assert text == render_game(loads(record.dumps()))
    if preset in ("classic", "hoyle"):
        assert text == render_match(record)
    if preset != "rummy":
        shown = sum(1 for o in outcomes if o in ("knock", "gin", "big_gin", "undercut", "tie"))
        assert shown > 0 and text.count(" shows ") == 2 * shown
        assert text.count(" dealt: ") == 2 * len(outcomes)  # every hand dealt was played out
    final = game.result
    assert final is not None
    assert f"{list(final.scores)}" in text or f"{final.scores[0]} – {final.scores[1]}" in text
