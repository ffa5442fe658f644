"""A Gymnasium single-agent environment: one seat learns, our computer players take the others."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

from ..bots import Player, make_player
from ..rules import IllegalActionError, Rules
from .aec import DEFAULT_MAX_HAND_STEPS, Episode, GinRummyEnv, Observation, RewardKind

__all__ = ["GinRummyGymEnv"]


class GinRummyGymEnv(gymnasium.Env[Observation, int]):
    """Gin Rummy for one learning seat against any of our players (`ginrummy.bots`).

    `opponent` is a player name (``"random"``, ``"baseline"``, ``"novice"`` … ``"expert"``),
    a `Player` object (an `EnginePlayer` seats an outside program), or a callable that
    returns a fresh `Player` for a seed. The opponent sees only its own seat's views and
    is told each hand's result, as in the arena. Observations, actions, rewards and
    options are those of `GinRummyEnv`, seen from the learning seat; `action_masks()`
    returns the legal actions for libraries that ask for them (sb3-contrib's MaskablePPO).

    ``seat=None`` (default) draws the learner's seat at each reset from the
    environment's seeded generator; a seat number fixes it.

    An illegal action raises `IllegalActionError` (nothing changes) unless
    ``illegal_reward`` is a number: then the episode ends at once with that reward and
    ``info["illegal_action"]`` saying why (what Gymnasium's `check_env` and unmasked
    learners need).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        opponent: str | Player = "baseline",
        rules: Rules | str = "classic",
        *,
        seat: int | None = None,
        episode: Episode = "match",
        reward: RewardKind | None = None,
        render_mode: str | None = None,
        max_hand_steps: int = DEFAULT_MAX_HAND_STEPS,
        illegal_reward: float | None = None,
    ) -> None:
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"seat must be 0, 1 or None (drawn at each reset), got {seat!r}")
        if isinstance(opponent, str):
            make_player(opponent, seed=0)  # an unknown name fails here, with the names allowed
        self.game = GinRummyEnv(
            rules,
            episode=episode,
            reward=reward,
            render_mode="ansi" if render_mode is not None else None,
            max_hand_steps=max_hand_steps,
        )
        self.render_mode = render_mode
        self.opponent_spec = opponent
        self.fixed_seat = seat
        self.seat = seat if seat is not None else 0
        self.agent = self.game.possible_agents[self.seat]
        self.observation_space = self.game.observation_space(self.agent)
        self.action_space = self.game.action_space(self.agent)
        self.illegal_reward = illegal_reward
        self.opponents: dict[str, Player] = {}
        self._hand_number = 0
        self._ended_illegally = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(2))
        self.agent = self.game.possible_agents[self.seat]
        match_seed = seed if seed is not None else int(rng.integers(2**63 - 1))
        self.opponents = {
            agent: self._opponent(int(rng.integers(2**31 - 1)))
            for agent in self.game.possible_agents
            if agent != self.agent
        }
        self.game.reset(seed=match_seed, options=options)
        self._ended_illegally = False
        self._hand_number = self.game.match.hand_number
        self._play_others()
        observation, _, _, _, info = self.game.last()
        assert observation is not None
        return observation, {**info, "seat": self.seat, "seed": match_seed}

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        game = self.game
        if game.agent_selection != self.agent or self._done():
            raise RuntimeError("the episode is over: call reset()")
        if self.illegal_reward is not None:
            try:
                game.step(action)
            except (IllegalActionError, ValueError) as exc:
                self._ended_illegally = True
                info = {"illegal_action": str(exc)}
                return game.observe(self.agent), float(self.illegal_reward), True, False, info
        else:
            game.step(action)
        reward = game.rewards[self.agent]
        self._observe_hand_end()
        reward += self._play_others()
        observation = game.observe(self.agent)
        return (
            observation,
            float(reward),
            game.terminations[self.agent],
            game.truncations[self.agent],
            dict(game.infos[self.agent]),
        )

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (sb3-contrib's convention)."""
        return self.game.observe(self.agent)["action_mask"].astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() was called without a render_mode; pass render_mode='ansi' or 'human'"
            )
            return None
        previous = self.game.render_seat
        self.game.render_seat = self.seat
        try:
            text = self.game.render()
        finally:
            self.game.render_seat = previous
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        for player in self.opponents.values():
            close = getattr(player, "close", None)
            if close is not None and player is not self.opponent_spec:
                close()
        self.game.close()

    # -- internals -------------------------------------------------------------

    def _opponent(self, seed: int) -> Player:
        spec = self.opponent_spec
        if isinstance(spec, str):
            return make_player(spec, seed=seed)
        return spec

    def _done(self) -> bool:
        game = self.game
        return self._ended_illegally or game.terminations[self.agent] or game.truncations[self.agent]

    def _play_others(self) -> float:
        """Let the other seats move until the learner is to act or the episode ends; its reward meanwhile."""
        game = self.game
        reward = 0.0
        while not self._done() and game.agent_selection != self.agent:
            agent = game.agent_selection
            view = game.view(agent)
            action = self.opponents[agent].act(view)
            game.step(game.codec.index(action))
            reward += game.rewards[self.agent]
            self._observe_hand_end()
        return reward

    def _observe_hand_end(self) -> None:
        """Show each opponent the showdown of a hand that just ended, as a table would."""
        match = self.game.match
        finished = self._hand_number
        if match.hand_number == finished and not match.hand.is_over:
            return
        for agent, player in self.opponents.items():
            player.observe(match.hand_view(self.game.possible_agents.index(agent), finished))
        self._hand_number = match.hand_number if not match.hand.is_over else match.hand_number + 1
