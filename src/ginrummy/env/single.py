"""A Gymnasium single-agent environment: one seat learns, our computer players take the others."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import gymnasium
import numpy as np
import numpy.typing as npt

from ..bots import Player
from ..bots.table_players import TablePlayer, make_game_player
from ..rules import IllegalActionError, Rules
from .aec import Episode, GinRummyEnv, Observation, RewardKind

__all__ = ["GinRummyGymEnv", "Opponent"]

#: A player for the other seats: a name for `make_game_player`, a player object that reads
#: this game's views, or a callable that makes a fresh player from a seed.
Opponent: TypeAlias = str | Player | TablePlayer | Callable[[int], Player | TablePlayer]


class GinRummyGymEnv(gymnasium.Env[Observation, int]):
    """Any game of the rules engine for one learning seat against our players (`ginrummy.bots`).

    `opponent` seats every other seat; a sequence gives one per other seat, in seat order. Each
    is a player name (``"random"``, ``"baseline"``, ``"novice"`` … ``"expert"``; at a Gin
    table of three or four a two-player player plays its own hand, and Rummy has its own
    levels, `make_game_player`), a player object that reads this game's views (an
    `EnginePlayer` seats an outside program in two-player Gin, an `EngineSeat` at the other
    tables), or a callable that returns a fresh player for a seed. In team Gin the learner's
    partner is one of them. The other seats see only their own views and are told each
    finished deal, as in the arena. Observations, actions, rewards and options are those of
    `GinRummyEnv`, seen from the learning seat; `action_masks()` returns the legal actions for
    libraries that ask for them (sb3-contrib's MaskablePPO).

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
        opponent: Opponent | Sequence[Opponent] = "baseline",
        rules: Rules | str = "classic",
        *,
        seat: int | None = None,
        episode: Episode = "match",
        reward: RewardKind | None = None,
        render_mode: str | None = None,
        max_hand_steps: int | None = None,
        illegal_reward: float | None = None,
    ) -> None:
        self.game = GinRummyEnv(
            rules,
            episode=episode,
            reward=reward,
            render_mode="ansi" if render_mode is not None else None,
            max_hand_steps=max_hand_steps,
        )
        seats = self.game.seats
        if seat is not None and seat not in range(seats):
            raise ValueError(
                f"seat must be a seat from 0 to {seats - 1} or None (drawn at each reset), got {seat!r}"
            )
        if isinstance(opponent, Sequence) and not isinstance(opponent, str):
            if len(opponent) != seats - 1:
                raise ValueError(f"give one opponent per other seat ({seats - 1}), got {len(opponent)}")
            specs: list[Opponent] = list(opponent)
        else:
            specs = [opponent] * (seats - 1)
        for spec in specs:
            if isinstance(spec, str):
                make_game_player(
                    spec, self.game.rules, seed=0
                )  # an unknown name fails here, naming those allowed
        self.render_mode = render_mode
        self.opponent_specs = specs
        self.fixed_seat = seat
        self.seat = seat if seat is not None else 0
        self.agent = self.game.possible_agents[self.seat]
        self.observation_space = self.game.observation_space(self.agent)
        self.action_space = self.game.action_space(self.agent)
        self.illegal_reward = illegal_reward
        self.opponents: dict[str, Player | TablePlayer] = {}
        self._hand_number = 0
        self._ended_illegally = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        rng = self.np_random
        game = self.game
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(rng.integers(game.seats))
        self.agent = game.possible_agents[self.seat]
        match_seed = seed if seed is not None else int(rng.integers(2**63 - 1))
        others = [agent for agent in game.possible_agents if agent != self.agent]
        self.opponents = {
            agent: self._opponent(spec, int(rng.integers(2**31 - 1)))
            for agent, spec in zip(others, self.opponent_specs, strict=True)
        }
        game.reset(seed=match_seed, options=options)
        self._ended_illegally = False
        self._hand_number = game.game.hand_number
        self._play_others()
        observation, _, _, _, info = game.last()
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
        self._observe_deal_end()
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
        for player, spec in zip(self.opponents.values(), self.opponent_specs, strict=True):
            close = getattr(player, "close", None)
            if close is not None and player is not spec:
                close()
        self.game.close()

    # -- internals -------------------------------------------------------------

    def _opponent(self, spec: Opponent, seed: int) -> Player | TablePlayer:
        if isinstance(spec, str):
            return make_game_player(spec, self.game.rules, seed=seed)
        if hasattr(spec, "act"):
            return spec  # type: ignore[return-value]
        assert callable(spec)
        return spec(seed)

    def _done(self) -> bool:
        game = self.game
        return self._ended_illegally or game.terminations[self.agent] or game.truncations[self.agent]

    def _play_others(self) -> float:
        """Let the other seats move until the learner is to act or the episode ends; its reward meanwhile."""
        game = self.game
        reward = 0.0
        while not self._done() and game.agent_selection != self.agent:
            agent = game.agent_selection
            action = self.opponents[agent].act(game.view(agent))  # type: ignore[arg-type]
            game.step(game.encode(action))
            reward += game.rewards[self.agent]
            self._observe_deal_end()
        return reward

    def _observe_deal_end(self) -> None:
        """Show each opponent its view of a deal that just ended, as a table would."""
        played = self.game.game
        finished = self._hand_number
        if played.hand_number == finished and not played.is_over:
            return
        for agent, player in self.opponents.items():
            player.observe(played.hand_view(self.game.possible_agents.index(agent), finished))  # type: ignore[arg-type]
        self._hand_number = played.hand_number if not played.is_over else played.hand_number + 1
