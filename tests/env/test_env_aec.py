"""The PettingZoo environment: PettingZoo's own API tests, views only, rewards, seeds, errors, text."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="the env extra is not installed")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from ginrummy import CardSet, IllegalActionError, Rules, View, new_match  # noqa: E402
from ginrummy.env import ACTIONS, GinRummyEnv, ObservationEncoder, env, raw_env  # noqa: E402

# What PettingZoo's checks say about every environment whose observation is the
# {"observation", "action_mask"} dictionary of its classic card games (its own classic games
# are exempted by name): nothing else may be warned about.
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}

SHORT = Rules.preset("classic").replace(target=25)


def _warnings_of(run: Any) -> set[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return {str(w.message) for w in caught}


def _play_random(game: GinRummyEnv, rng: random.Random, *, steps: int = 100_000) -> list[tuple[str, Any]]:
    """Play the episode with uniformly random legal actions; return (agent, observation) per decision."""
    seen = []
    for agent in game.agent_iter(steps):
        obs, _, terminated, truncated, _ = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        seen.append((agent, obs))
        game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("preset", [n for n in Rules.preset_names() if Rules.preset(n).game == "gin"])
@pytest.mark.parametrize("episode", ["match", "hand"])
def test_pettingzoo_api_test_passes(preset: str, episode: str) -> None:
    warned = _warnings_of(lambda: api_test(env(preset, episode=episode), num_cycles=400))
    assert warned <= DICT_OBSERVATION_WARNINGS, warned - DICT_OBSERVATION_WARNINGS


def test_pettingzoo_seed_test_passes() -> None:
    warned = _warnings_of(lambda: seed_test(lambda: env("classic"), num_cycles=300))
    assert not warned


def test_a_seed_deals_the_rules_engines_match() -> None:
    game = raw_env("classic")
    game.reset(seed=1234)
    match = new_match("classic", seed=1234)
    seat = match.to_act
    assert game.agent_selection == f"player_{seat}"
    obs = game.observe(game.agent_selection)
    planes = game.layout.card_planes(obs["observation"])
    assert CardSet.from_mask(_mask(planes["hand"])) == match.view(seat).hand
    assert _mask(planes["upcard"]) == 1 << match.view(seat).discard_pile[-1].index


def _mask(plane: np.ndarray) -> int:
    return sum(1 << int(i) for i in np.flatnonzero(plane))


def test_observations_come_from_the_seats_protocol_view_only() -> None:
    """Each observation equals a fresh encoding of the view's PROTOCOL.md JSON, and no hidden card shows."""
    rng = random.Random(5)
    for seed in range(6):
        game = raw_env(SHORT, episode="hand")
        game.reset(seed=seed)
        for agent in game.agent_iter(10_000):
            obs, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            view = game.view(agent)
            fresh, fresh_mask = ObservationEncoder(2).encode(View.from_json(view.to_json()))
            assert np.array_equal(obs["observation"], fresh)
            assert np.array_equal(obs["action_mask"], fresh_mask)
            seat = game.possible_agents.index(agent)
            hand = game.match.hand
            hidden = hand.hands[1 - seat] & ~hand.known[1 - seat]
            planes = game.layout.card_planes(obs["observation"])
            for name, plane in planes.items():
                assert _mask(plane) & hidden == 0, f"{name} shows a card {agent} cannot see"
            game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_the_mask_is_exactly_the_legal_actions() -> None:
    rng = random.Random(2)
    game = raw_env(SHORT)
    game.reset(seed=9)
    for agent, obs in _play_random(game, rng, steps=3000):
        del agent
        legal_indices = set(np.flatnonzero(obs["action_mask"]).tolist())
        assert legal_indices  # it is this agent's turn
    game.reset(seed=9)
    view = game.view(game.agent_selection)
    assert {
        ACTIONS.action(i) for i in np.flatnonzero(game.observe(game.agent_selection)["action_mask"])
    } == set(view.legal)


def test_every_action_number_round_trips() -> None:
    assert len(ACTIONS) == 108
    for index in range(len(ACTIONS)):
        assert ACTIONS.index(ACTIONS.action(index)) == index
    with pytest.raises(ValueError, match="from 0 to 107"):
        ACTIONS.action(108)


def test_hand_episodes_pay_the_hands_points() -> None:
    rng = random.Random(3)
    outcomes = set()
    for seed in range(25):
        game = raw_env("classic", episode="hand")
        game.reset(seed=seed)
        totals = dict.fromkeys(game.possible_agents, 0.0)
        for agent in game.agent_iter(10_000):
            obs, reward, terminated, truncated, info = game.last()
            totals[agent] += reward
            if terminated or truncated:
                game.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            knocks = [i for i in legal if ACTIONS.action(int(i)).__class__.__name__ == "Knock"]
            game.step(int(knocks[0]) if knocks else int(rng.choice(legal)))
        result = game.match.hands[0].result
        assert result is not None
        outcomes.add(result.outcome)
        assert len(game.match.hands) == 2  # the match dealt on; the episode showed one hand
        if result.scorer is None:
            assert totals == {"player_0": 0.0, "player_1": 0.0}
        else:
            assert totals[f"player_{result.scorer}"] == result.points
            assert totals[f"player_{1 - result.scorer}"] == -result.points
    assert {"knock", "gin"} & outcomes


@pytest.mark.parametrize("preset", ["classic", "hoyle"])
def test_points_rewards_add_up_to_the_final_margin(preset: str) -> None:
    rules = Rules.preset(preset).replace(target=30)
    for seed in range(3):
        game = raw_env(rules, reward="points")
        game.reset(seed=seed)
        totals = dict.fromkeys(game.possible_agents, 0.0)
        rng = random.Random(seed)
        for agent in game.agent_iter(200_000):
            obs, reward, terminated, truncated, _ = game.last()
            totals[agent] += reward
            if terminated or truncated:
                game.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            game.step(int(legal[-1]) if legal[-1] >= 55 else int(rng.choice(legal)))
        final = game.match.result
        assert final is not None
        margin = final.scores[0] - final.scores[1]
        assert totals == {"player_0": margin, "player_1": -margin}


def test_win_rewards_go_to_the_match_winner() -> None:
    game = raw_env(SHORT)
    game.reset(seed=4)
    totals = dict.fromkeys(game.possible_agents, 0.0)
    rng = random.Random(4)
    infos = {}
    for agent in game.agent_iter(200_000):
        obs, reward, terminated, truncated, info = game.last()
        totals[agent] += reward
        if terminated or truncated:
            infos[agent] = info
            game.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        game.step(int(legal[-1]) if legal[-1] >= 55 else int(rng.choice(legal)))
    final = game.match.result
    assert final is not None and final.winner is not None
    winner = f"player_{final.winner}"
    assert totals[winner] == 1.0 and sum(totals.values()) == 0.0
    assert infos[winner]["winner"] == winner and infos[winner]["scores"] == list(final.scores)


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    game = raw_env("classic")
    game.reset(seed=8)
    agent = game.agent_selection
    before = game.view(agent).to_json()
    discard = ACTIONS.index(next(iter(ACTIONS.actions[3:4])))
    with pytest.raises(
        IllegalActionError, match=rf"{agent} cannot play action {discard} \(discard AC\).*offered"
    ):
        game.step(discard)
    with pytest.raises(ValueError, match="from 0 to 107"):
        game.step(500)
    with pytest.raises(ValueError, match="must choose an action"):
        game.step(None)
    assert game.view(agent).to_json() == before and game.agent_selection == agent


def test_a_hand_too_long_is_truncated() -> None:
    game = raw_env("classic", max_hand_steps=5)
    game.reset(seed=1)
    rng = random.Random(1)
    steps = len(_play_random(game, rng))
    assert steps == 5 and not game.agents


def test_dealer_option_and_bad_options_are_checked() -> None:
    game = raw_env("classic")
    for dealer in (0, 1):
        game.reset(seed=3, options={"dealer": dealer})
        assert game.match.dealer == dealer and game.agent_selection == f"player_{1 - dealer}"
    with pytest.raises(ValueError, match="dealer"):
        game.reset(options={"dealer": 2})
    with pytest.raises(ValueError, match="episode"):
        GinRummyEnv("classic", episode="game")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="reward"):
        GinRummyEnv("classic", reward="score")  # type: ignore[arg-type]


def test_render_shows_the_seats_view_and_never_the_other_hand() -> None:
    game = raw_env("classic", render_mode="ansi")
    game.reset(seed=21)
    text = game.render()
    assert isinstance(text, str)
    seat = game.possible_agents.index(game.agent_selection)
    view = game.match.view(seat)
    assert f"{game.agent_selection}'s hand: " + " ".join(str(c) for c in view.hand.sorted_by_rank()) in text
    assert "to act (offer): draw discard, pass" in text
    other = game.match.hand.hand_of(1 - seat)
    shown = {word for line in text.splitlines() if not line.startswith("Discard") for word in line.split()}
    assert not {str(card) for card in other} & shown
    fixed = raw_env("classic", render_mode="ansi", render_seat=1 - seat)
    fixed.reset(seed=21)
    assert "Waiting for the other player" in (fixed.render() or "")


def test_render_after_a_hand_shows_its_showdown() -> None:
    rng = random.Random(0)
    for seed in range(40):
        game = raw_env("classic", episode="hand", render_mode="ansi")
        game.reset(seed=seed)
        for _agent in game.agent_iter(10_000):
            obs, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                break
            legal = np.flatnonzero(obs["action_mask"])
            game.step(int(legal[-1]) if legal[-1] >= 55 else int(rng.choice(legal)))
        if game.match.hands[0].result is not None and game.match.hands[0].result.knocker is not None:
            text = game.render() or ""
            assert "shows" in text and "scores" in text and "Hand 1" in text
            return
    pytest.fail("no hand ended in a knock")


def test_the_layout_names_every_entry_once() -> None:
    layout = ObservationEncoder(2).layout
    rows = layout.describe()
    assert rows[0][1] == 0 and rows[-1][2] == layout.size
    assert all(a[2] == b[1] for a, b in zip(rows, rows[1:], strict=False))
    assert all("seat N" not in meaning for *_, meaning in rows)
    match = new_match("hoyle", seed=12)
    view = match.view(match.to_act)
    obs, _ = ObservationEncoder(2).encode(view)
    scalars = layout.scalar_values(obs)
    assert list(scalars["phase"]) == [1.0, 0.0, 0.0, 0.0]
    assert scalars["stock_count"] == np.float32(31 / 52) and scalars["to_act"] == 1.0
    assert list(scalars["hand_sizes"]) == [np.float32(10 / 13)] * 2
    assert list(scalars["dealer"]) == ([0.0, 1.0] if view.dealer != view.seat else [1.0, 0.0])
    assert np.all(obs <= layout.high()) and np.all(obs >= 0)
