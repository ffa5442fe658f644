"""The Gymnasium single-agent environment: Gymnasium's checker, opponents that see only their views."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the env extra is not installed")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from ginrummy import Action, GameAction, GameView, IllegalActionError, Rules, View  # noqa: E402
from ginrummy.bots import make_player  # noqa: E402
from ginrummy.bots.table_players import make_game_player  # noqa: E402
from ginrummy.env import GYM_ID, GinRummyGymEnv  # noqa: E402


class SpyPlayer:
    """A baseline player that records every view it is given."""

    name = "spy"

    def __init__(self) -> None:
        self.inner = make_player("baseline", seed=1)
        self.acted: list[View] = []
        self.observed: list[View] = []

    def act(self, view: View) -> Action:
        self.acted.append(view)
        return self.inner.act(view)

    def observe(self, view: View) -> None:
        self.observed.append(view)
        self.inner.observe(view)


def test_gymnasium_check_env_passes() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(GinRummyGymEnv("baseline", episode="hand", illegal_reward=-1.0), skip_render_check=True)
    assert not [str(w.message) for w in caught if "spec" not in str(w.message)]


def test_registered_with_gymnasium() -> None:
    game = gymnasium.make(GYM_ID, opponent="novice", episode="hand")
    obs, info = game.reset(seed=3)
    assert obs["observation"].shape == game.observation_space["observation"].shape
    assert info["seed"] == 3 and info["seat"] in (0, 1)


@pytest.mark.parametrize("opponent", ["random", "baseline", "casual", "expert"])
def test_a_random_learner_plays_whole_matches_against_our_players(opponent: str) -> None:
    rules = Rules.preset("classic").replace(target=40)
    game = GinRummyGymEnv(opponent, rules, reward="points")
    obs, info = game.reset(seed=11)
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(100_000):
        assert game.observation_space.contains(obs)
        mask = game.action_masks()
        assert mask.any() and np.array_equal(mask, obs["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = game.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        if terminated or truncated:
            break
    final = game.game.match.result
    assert terminated and final is not None
    me = game.seat
    assert total == final.scores[me] - final.scores[1 - me]
    with pytest.raises(RuntimeError, match="reset"):
        game.step(0)


def test_the_opponent_sees_its_own_views_and_every_hands_result() -> None:
    spy = SpyPlayer()
    game = GinRummyGymEnv(spy, Rules.preset("classic").replace(target=30), seat=0)
    obs, _ = game.reset(seed=2)
    rng = np.random.default_rng(1)
    while True:
        obs, _, terminated, truncated, _ = game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if terminated or truncated:
            break
    match = game.game.match
    assert spy.acted and all(v.seat == 1 and v.legal for v in spy.acted)
    assert [v.hand_number for v in spy.observed] == list(range(1, len(match.hands) + 1))
    assert all(v.seat == 1 and v.phase == "over" for v in spy.observed)


def test_seeded_resets_repeat() -> None:
    def run() -> list[int]:
        game = GinRummyGymEnv("casual", episode="hand")
        obs, _ = game.reset(seed=77)
        rng = np.random.default_rng(5)
        actions = []
        for _ in range(2000):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            actions.append(action)
            obs, _, terminated, truncated, _ = game.step(action)
            if terminated or truncated:
                break
        return actions + [game.seat, int(obs["observation"].sum() * 1000)]

    assert run() == run()


def test_illegal_actions_raise_or_end_the_episode() -> None:
    game = GinRummyGymEnv("baseline", episode="hand", seat=0)
    obs, _ = game.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        game.step(illegal)
    assert game.step(int(np.flatnonzero(obs["action_mask"])[0]))[0] is not None  # still playable
    lenient = GinRummyGymEnv("baseline", episode="hand", seat=0, illegal_reward=-5.0)
    obs, _ = lenient.reset(seed=4)
    _, reward, terminated, _, info = lenient.step(illegal)
    assert (reward, terminated) == (-5.0, True) and "cannot play" in info["illegal_action"]


def test_bad_arguments_say_what_is_allowed() -> None:
    with pytest.raises(ValueError, match="unknown player 'grandmaster'"):
        GinRummyGymEnv("grandmaster")
    with pytest.raises(ValueError, match="seat"):
        GinRummyGymEnv("baseline", seat=2)


def test_render_is_the_learners_view() -> None:
    game = GinRummyGymEnv("baseline", seat=1, render_mode="ansi")
    game.reset(seed=6)
    text = game.render()
    assert text is not None and "player_1's hand:" in text


class SpyTablePlayer:
    """A table player that records every view it is given (any game)."""

    name = "spy"

    def __init__(self, rules: Rules) -> None:
        self.inner = make_game_player("casual", rules, seed=3)
        self.acted: list[GameView] = []
        self.observed: list[GameView] = []

    def act(self, view: GameView) -> GameAction:
        self.acted.append(view)
        return self.inner.act(view)

    def observe(self, view: GameView) -> None:
        self.observed.append(view)
        self.inner.observe(view)


@pytest.mark.parametrize(
    ("rules", "opponents"),
    [
        (Rules.preset("gin3").replace(target=30), "expert"),
        (Rules.preset("gin4_teams").replace(target=30), ["baseline", "novice", "casual"]),
        (Rules.for_game("rummy", 2).replace(target=30), "advanced"),
        (Rules.for_game("rummy", 5).replace(target=30), "casual"),
    ],
    ids=["gin3", "teams", "rummy2", "rummy5"],
)
def test_a_random_learner_plays_every_game_against_our_players(rules: Rules, opponents: Any) -> None:
    game = GinRummyGymEnv(opponents, rules, reward="points", seat=1)
    obs, info = game.reset(seed=5)
    assert info["seat"] == 1
    rng = np.random.default_rng(2)
    total = 0.0
    for _ in range(100_000):
        assert game.observation_space.contains(obs)
        obs, reward, terminated, truncated, info = game.step(
            int(rng.choice(np.flatnonzero(game.action_masks())))
        )
        total += reward
        if terminated or truncated:
            break
    played = game.game.game
    final = played.result
    assert terminated and final is not None and info["winners"] == [f"player_{s}" for s in final.winners]
    side = next(i for i, seats in enumerate(played.sides) if 1 in seats)
    if rules.game == "rummy":
        margin = float(final.scores[side])
    else:
        others = [final.scores[i] for i in range(len(played.sides)) if i != side]
        margin = final.scores[side] - sum(others) / len(others)
    assert total == pytest.approx(margin)


def test_table_opponents_see_their_own_views_and_each_deal_once() -> None:
    rules = Rules.preset("gin3")
    spies = [SpyTablePlayer(rules), SpyTablePlayer(rules)]
    game = GinRummyGymEnv(spies, rules, seat=0)
    obs, _ = game.reset(seed=12)
    rng = np.random.default_rng(4)
    while True:
        obs, _, terminated, truncated, _ = game.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if terminated or truncated:
            break
    deals = game.game.game.hand_number
    assert deals >= 3  # each seat sat a hand out
    for seat, spy in zip((1, 2), spies, strict=True):
        assert spy.acted and all(v.seat == seat and v.legal for v in spy.acted)
        assert [v.hand_number for v in spy.observed] == list(range(1, deals + 1))
    with pytest.raises(ValueError, match="one opponent per other seat"):
        GinRummyGymEnv(["casual"], rules)
    with pytest.raises(ValueError, match="unknown Rummy player 'expert'"):
        GinRummyGymEnv("expert", Rules.preset("rummy"))


def test_gymnasium_check_env_passes_for_rummy() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(
            GinRummyGymEnv("novice", "rummy", episode="hand", illegal_reward=-1.0), skip_render_check=True
        )
    assert not [str(w.message) for w in caught if "spec" not in str(w.message)]
