"""The environment for three-player Gin, team Gin and Rummy for two to six: PettingZoo's own API
tests, observations read from the seat's view only (checked card by card against the table,
never a hidden card), masks that are the legal actions, rewards, seeds and the turn order of
team Gin's two hands."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from ginrummy import CardSet, IllegalActionError, Rules, RummyGame, TeamGin, ThreeGin  # noqa: E402
from ginrummy.env import RUMMY_ACTIONS, GinRummyEnv, GinTableEncoder, RummyEncoder, env, raw_env  # noqa: E402
from ginrummy.rules import Discard, Draw, LayMeld, LayOff, Pass, game_view_from_json  # noqa: E402

# What PettingZoo's checks say about a {"observation", "action_mask"} observation (its own
# classic card games are exempted by name): nothing else may be warned about.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}

GIN3 = Rules.preset("gin3").replace(target=40)
TEAMS = Rules.preset("gin4_teams").replace(target=40)


def rummy(players: int, **changes: Any) -> Rules:
    return Rules.for_game("rummy", players).replace(target=40, **changes)


def _mask(plane: np.ndarray) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(plane))


def _warnings_of(run: Any) -> set[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return {str(w.message) for w in caught}


def _legal_index_choice(obs: dict[str, np.ndarray], rng: random.Random) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


@pytest.mark.parametrize(
    ("rules", "episode"),
    [
        (Rules.preset("gin3"), "hand"),
        (GIN3, "match"),
        (Rules.preset("gin4_teams"), "hand"),
        (TEAMS, "match"),
        (Rules.preset("rummy"), "hand"),
        (rummy(2), "match"),
        (rummy(6, ace="either"), "match"),
    ],
    ids=[
        "gin3-hand",
        "gin3-match",
        "teams-hand",
        "teams-match",
        "rummy4-hand",
        "rummy2-match",
        "rummy6-match",
    ],
)
def test_pettingzoo_api_test_passes(rules: Rules, episode: str) -> None:
    warned = _warnings_of(lambda: api_test(env(rules, episode=episode), num_cycles=120))
    assert warned <= DICT_OBSERVATION_WARNINGS, warned - DICT_OBSERVATION_WARNINGS


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("ace", ["low", "high", "either"])
def test_pettingzoo_api_test_passes_for_every_rummy_table(players: int, ace: str) -> None:
    warned = _warnings_of(lambda: api_test(env(rummy(players, ace=ace)), num_cycles=400))
    assert warned <= DICT_OBSERVATION_WARNINGS, warned - DICT_OBSERVATION_WARNINGS


def test_pettingzoo_seed_test_passes() -> None:
    for rules in (TEAMS, rummy(3)):
        assert not _warnings_of(lambda rules=rules: seed_test(lambda: env(rules), num_cycles=150))


# -- observations against the table ---------------------------------------------------------------


def _hidden(hand: Any, players: tuple[int, ...], seat: int) -> int:
    """What `seat` cannot see at a two-player hand: the other hands but for the cards seen taken,
    and the stock."""
    hidden = sum(1 << card for card in hand.stock)
    for inner, player in enumerate(players):
        if player != seat:
            hidden |= hand.hands[inner] & ~hand.known[inner]
    return hidden


def _check_gin_table(game: GinRummyEnv, agent: str, obs: np.ndarray) -> None:
    """Every plane of a Gin table observation, card by card, against the hands being played.

    Team Gin's two hands are dealt from two decks: each plane is checked against its own hand.
    """
    played = game.game
    assert isinstance(played, (ThreeGin, TeamGin))
    seat = game.possible_agents.index(agent)
    n = played.seat_count
    planes = {name: _mask(plane) for name, plane in game.layout.card_planes(obs).items()}
    scalars = game.layout.scalar_values(obs)
    number = game._final_hand or played.hand_number
    if isinstance(played, ThreeGin):
        tables = [(played.hands[number - 1], played.players_of(number))]
    else:
        tables = list(zip(played.rounds[number - 1], TeamGin.pairing(number), strict=True))
    mine = next((i for i, (_, players) in enumerate(tables) if seat in players), 0)
    order = [mine] + [i for i in range(len(tables)) if i != mine]
    table_of_seat = {}
    for position, index in enumerate(order):
        hand, players = tables[index]
        prefix = "" if position == 0 else "other_"
        hidden = _hidden(hand, players, seat)
        for inner, player in enumerate(players):
            table_of_seat[player] = (hand, players, inner)
        assert planes[f"{prefix}discard_pile"] == sum(1 << card for card in hand.discard_pile)
        assert planes[f"{prefix}upcard"] == (1 << hand.discard_pile[-1] if hand.discard_pile else 0)
        names = [f"{prefix}discard_pile", f"{prefix}upcard", f"{prefix}pile_order"]
        if position == 0:
            assert planes["hand"] == (hand.hands[players.index(seat)] if seat in players else 0)
            names.append("hand")
        for name in names:
            assert planes[name] & hidden == 0, f"{name} shows a card seat {seat} cannot see"
    for r in range(n):
        other = (seat + r) % n
        if other not in table_of_seat:  # three players: sitting this hand out
            assert scalars["hand_sizes"][r] == 0
            assert planes.get(f"discarded_by_{r}", 0) == planes.get(f"known_{r}", 0) == 0
            continue
        hand, players, inner = table_of_seat[other]
        assert scalars["hand_sizes"][r] == np.float32(hand.hands[inner].bit_count() / 13)
        discarded = declined = 0
        for i, step in enumerate(hand.steps):
            if step.seat != inner:
                continue
            if isinstance(step.action, Discard):
                discarded |= 1 << step.action.card.index
            elif isinstance(step.action, Pass):
                declined |= 1 << hand.upcard
            elif step.action == Draw("stock") and i and isinstance(hand.steps[i - 1].action, Discard):
                declined |= 1 << hand.steps[i - 1].action.card.index
        assert planes[f"discarded_by_{r}"] == discarded
        if r:
            assert planes[f"known_{r}"] == hand.known[inner]
            assert planes[f"declined_by_{r}"] == declined
        hidden = _hidden(hand, players, seat)
        for name in (f"known_{r}", f"discarded_by_{r}", f"declined_by_{r}"):
            assert planes.get(name, 0) & hidden == 0, f"{name} shows a card seat {seat} cannot see"


def _check_rummy(game: GinRummyEnv, agent: str, obs: np.ndarray) -> None:
    """Every plane of a Rummy observation against the hand; no hidden card anywhere."""
    played = game.game
    assert isinstance(played, RummyGame)
    seat = game.possible_agents.index(agent)
    hand = played.hands[(game._final_hand or played.hand_number) - 1]
    n = hand.players
    planes = {name: _mask(plane) for name, plane in game.layout.card_planes(obs).items()}
    scalars = game.layout.scalar_values(obs)
    hidden = sum(1 << card for card in hand.stock)
    for other in range(n):
        if other != seat:
            hidden |= hand.hands[other] & ~hand.known[other]
    for name, value in planes.items():
        # The layoff spots name cards that would fit the table, wherever they are, and the
        # discards are public history (a turned-over pile takes them back into the stock):
        # neither says where an unseen card is. Both are checked against the hand below.
        if name != "layoff_spots" and not name.startswith("discarded_by_"):
            assert value & hidden == 0, f"{name} shows a card seat {seat} cannot see"
    table = 0
    for meld in hand.table:
        table |= meld
    assert planes["hand"] == hand.hands[seat]
    assert planes["table"] == table == sum(planes[f"laid_by_{r}"] for r in range(n))
    spots = 0
    for spot in hand.spots:
        spots |= spot
    assert planes["layoff_spots"] == spots  # the rules' own layoff targets
    assert planes["discard_pile"] == sum(1 << card for card in hand.discard_pile)
    for r in range(n):
        other = (seat + r) % n
        assert scalars["hand_sizes"][r] == np.float32(hand.hands[other].bit_count() / 13)
        discarded = 0  # a card may be discarded, taken back and discarded again
        for step in hand.steps:
            if step.seat == other and isinstance(step.action, Discard):
                discarded |= 1 << step.action.card.index
        assert planes[f"discarded_by_{r}"] == discarded
        if r:
            assert planes[f"known_{r}"] == hand.known[other]
        if hand.phase != "over":  # going out ends the hand before the rules note the turn's lays
            assert bool(scalars["laid_before"][r]) == hand.laid_before[other]


def _legal_from_mask(game: GinRummyEnv, agent: str, mask: np.ndarray) -> set[Any]:
    return {game.decode(int(i), agent) for i in np.flatnonzero(mask)}


def _play_and_check(rules: Rules, episode: str, seed: int, choices: int) -> GinRummyEnv:
    game = raw_env(rules, episode=episode)
    game.reset(seed=seed)
    rng = random.Random(choices)
    check = _check_rummy if rules.game == "rummy" else _check_gin_table
    encoder: Any = RummyEncoder(rules) if rules.game == "rummy" else GinTableEncoder(rules)
    steps = 0
    for agent in game.agent_iter(20_000):
        obs, _, terminated, truncated, _ = game.last()
        for other in game.possible_agents:
            seen = game.observe(other)
            check(game, other, seen["observation"])
            if terminated or truncated:
                assert not seen["action_mask"].any()
            elif other != agent:
                # In team Gin the seat to act in the other hand may act too, by the rules; it is
                # this agent's turn first.
                rules_legal = game.game.legal_actions(game.possible_agents.index(other))
                assert len(rules_legal) == int(seen["action_mask"].sum()) and (
                    rules.game == "gin4_teams" or not rules_legal
                )
        if terminated or truncated:
            game.step(None)
            continue
        seat = game.possible_agents.index(agent)
        legal = game.game.legal_actions(seat)
        mask = obs["action_mask"]
        assert int(mask.sum()) == len(legal) and _legal_from_mask(game, agent, mask) == set(legal)
        steps += 1
        if steps % 17 == 0:  # the view's JSON says all the observation says
            fresh, fresh_mask = encoder.encode(game_view_from_json(game.view(agent).to_json()))
            assert np.array_equal(fresh, obs["observation"]) and np.array_equal(fresh_mask, mask)
        game.step(_legal_index_choice(obs, rng))
    return game


@pytest.mark.parametrize(
    ("rules", "seed"),
    [(GIN3, 1), (TEAMS, 2), (rummy(2), 3), (rummy(4, ace="high"), 4), (rummy(6, ace="either"), 5)],
    ids=["gin3", "teams", "rummy2", "rummy4-high", "rummy6-either"],
)
def test_observations_are_the_seats_view_and_never_show_a_hidden_card(rules: Rules, seed: int) -> None:
    game = _play_and_check(rules, "hand", seed, seed * 7)
    assert all(game.terminations.values()) or all(game.truncations.values())


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "rules", [GIN3, TEAMS, *(rummy(n, ace=a) for n in range(2, 7) for a in ("low", "either"))]
)
def test_whole_games_observe_only_the_seats_view(rules: Rules, seed: int) -> None:
    _play_and_check(rules.replace(target=25), "match", seed, seed)


# -- turns, actions, rewards ----------------------------------------------------------------------


def _team_hand(seed: int) -> tuple[list[tuple[int, bool]], list[str]]:
    """One team Gin round with random actions: (hand played, both hands still on) per action, and the agents."""
    game = raw_env(Rules.preset("gin4_teams"), episode="hand")
    game.reset(seed=seed)
    rng = random.Random(seed)
    tables, agents = [], []
    for agent in game.agent_iter(5000):
        obs, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        seat = game.possible_agents.index(agent)
        hands = game.game.rounds[-1]  # type: ignore[attr-defined]
        tables.append((0 if seat in TeamGin.pairing(1)[0] else 1, all(h.phase != "over" for h in hands)))
        agents.append(agent)
        game.step(_legal_index_choice(obs, rng))
    return tables, agents


def test_team_gins_two_hands_take_turns_one_action_each() -> None:
    for seed in (9, 10):
        tables, agents = _team_hand(seed)
        both = [table for table, playing in tables if playing]
        assert both[0] == 0 and all(a != b for a, b in zip(both, both[1:], strict=False))
        alone = [table for table, playing in tables if not playing]
        assert len(set(alone)) <= 1  # once one hand is over, the other plays on alone
        assert (tables, agents) == _team_hand(seed)  # one seed and the same actions: one game


@pytest.mark.parametrize("rules", [GIN3, TEAMS, rummy(3)], ids=["gin3", "teams", "rummy3"])
def test_points_rewards_add_up_to_the_final_margins_and_sum_to_zero(rules: Rules) -> None:
    game = raw_env(rules, reward="points")
    game.reset(seed=6)
    rng = random.Random(6)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter(200_000):
        obs, reward, terminated, truncated, info = game.last()
        totals[agent] += reward
        if terminated or truncated:
            game.step(None)
            continue
        assert abs(sum(game.rewards.values())) < 1e-9
        legal = np.flatnonzero(obs["action_mask"])
        lays = [i for i in legal if isinstance(game.decode(int(i)), (LayMeld, LayOff))]
        knocks = [i for i in legal if 55 <= i < 107] if rules.game != "rummy" else []
        game.step(int((lays or knocks or [rng.choice(legal)])[0]))
    final = game.game.result
    assert final is not None
    sides = game.game.sides
    for s, side in enumerate(sides):
        if rules.game == "rummy":
            margin = float(final.scores[s])
        else:
            others = [final.scores[o] for o in range(len(sides)) if o != s]
            margin = final.scores[s] - sum(others) / len(others)
        for seat in side:
            assert totals[f"player_{seat}"] == pytest.approx(margin)
    assert info["winners"] == [f"player_{s}" for s in final.winners]


def test_win_rewards_go_to_the_winning_team() -> None:
    game = raw_env(TEAMS)
    game.reset(seed=3)
    rng = random.Random(3)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter(200_000):
        obs, reward, terminated, truncated, _ = game.last()
        totals[agent] += reward
        if terminated or truncated:
            game.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        game.step(int(legal[-1]) if legal[-1] >= 55 else int(rng.choice(legal)))
    final = game.game.result
    assert final is not None and final.winner is not None
    assert {agent: totals[agent] for agent in totals} == {
        f"player_{s}": 1.0 if s in final.winners else -1.0 for s in range(4)
    }


def test_a_hand_episode_of_three_player_gin_pays_the_scorer() -> None:
    for seed in range(30):
        game = raw_env(Rules.preset("gin3"), episode="hand", reward="win")
        game.reset(seed=seed)
        rng = random.Random(seed)
        totals = dict.fromkeys(game.possible_agents, 0.0)
        for agent in game.agent_iter(5000):
            obs, reward, terminated, truncated, _ = game.last()
            totals[agent] += reward
            if terminated or truncated:
                game.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            game.step(int(legal[-1]) if legal[-1] >= 55 else int(rng.choice(legal)))
        result = game.game.hands[0].result  # type: ignore[attr-defined]
        if result.scorer is not None:
            scorer = game.game.players_of(1)[result.scorer]  # type: ignore[attr-defined]
            assert totals == {f"player_{s}": 1.0 if s == scorer else -0.5 for s in range(3)}
            return
    pytest.fail("no hand was scored")


def test_rummy_actions_number_every_meld_and_each_way_to_lay_off() -> None:
    assert len(RUMMY_ACTIONS) == 579 and len(set(RUMMY_ACTIONS.melds)) == 369
    table: list[int] = []
    for index in range(len(RUMMY_ACTIONS)):
        if index < 423:
            assert RUMMY_ACTIONS.index(RUMMY_ACTIONS.action(index, table), table) == index
    with pytest.raises(ValueError, match="from 0 to 578"):
        RUMMY_ACTIONS.action(579, table)
    with pytest.raises(ValueError, match="no table meld takes"):
        RUMMY_ACTIONS.action(423, table)


def test_illegal_actions_raise_say_why_and_change_nothing() -> None:
    game = raw_env(rummy(3))
    game.reset(seed=8)
    agent = game.agent_selection
    before = game.view(agent).to_json()
    with pytest.raises(IllegalActionError, match=r"cannot play action 2 \(discard AC\)"):
        game.step(2)  # a discard before drawing
    with pytest.raises(IllegalActionError, match="no table meld takes"):
        game.step(423)
    with pytest.raises(ValueError, match="from 0 to 578"):
        game.step(579)
    assert game.view(agent).to_json() == before and game.agent_selection == agent
    teams = raw_env("gin4_teams")
    with pytest.raises(ValueError, match="a team, 0 or 1"):
        teams.reset(options={"dealer": 2})
    teams.reset(seed=1, options={"dealer": 1})
    assert teams.game.dealer == 1  # type: ignore[attr-defined]


def test_render_shows_the_seats_own_cards_only() -> None:
    for rules in (GIN3, TEAMS, rummy(4)):
        game = raw_env(rules, render_mode="ansi")
        game.reset(seed=21)
        agent = game.agent_selection
        seat = game.possible_agents.index(agent)
        text = game.render() or ""
        assert f"{agent} to act" in text
        played = game.game
        if isinstance(played, RummyGame):
            hand = played.hands[-1]
            own, hidden = hand.hands[seat], _hidden(hand, tuple(range(hand.players)), seat)
        else:
            tables = (
                [(played.hands[-1], played.players_of(1))]
                if isinstance(played, ThreeGin)
                else list(zip(played.rounds[-1], TeamGin.pairing(1), strict=True))  # type: ignore[union-attr]
            )
            hand, players = next(t for t in tables if seat in t[1])
            own, hidden = hand.hands[players.index(seat)], _hidden(hand, players, seat)
            for other, _ in tables:  # the other deck's public cards share names with this one's
                hidden &= ~sum(1 << card for card in other.discard_pile)
        words = set(text.replace(",", " ").split())
        assert {str(c) for c in CardSet.from_mask(own)} <= words
        assert not {str(c) for c in CardSet.from_mask(hidden)} & words
