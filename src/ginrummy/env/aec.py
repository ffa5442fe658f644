"""The PettingZoo AEC environment: Gin Rummy on the exact rules, one seat's view per observation."""

from __future__ import annotations

import operator
import random
import secrets
from typing import Any, Final, Literal

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..rules import HandResult, IllegalActionError, Match, Rules, View
from .encoding import ACTIONS
from .observer import TableObserver
from .text import render_view

__all__ = ["GinRummyEnv", "Episode", "RewardKind", "env", "raw_env"]

Episode = Literal["match", "hand"]
RewardKind = Literal["win", "points"]
Observation = dict[str, npt.NDArray[Any]]

#: Actions after which a hand is cut short (truncated): two players who keep taking each
#: other's discards never shrink the stock, so the rules alone do not end such a hand.
DEFAULT_MAX_HAND_STEPS: Final = 1000


def _agent(seat: int) -> str:
    return f"player_{seat}"


class GinRummyEnv(AECEnv[str, Observation, int]):
    """Two-player Gin Rummy as an agent-environment-cycle game (PettingZoo AEC API).

    Agents are ``player_0`` and ``player_1`` (seats 0 and 1). Each observation is the
    dictionary ``{"observation": float32 vector, "action_mask": int8 vector}`` built from
    the observing seat's VIEW only (see `ginrummy.env.encoding`); actions are the integers
    of `ginrummy.env.ACTIONS`.

    - ``episode="match"``: hands are dealt until a total reaches the rules' target;
      ``episode="hand"``: one deal, then the episode ends (a void hand ends it with 0).
    - ``reward="win"`` (default for matches): +1 to the winner, -1 to the loser at the end
      (0 each for a drawn Hoyle match); ``reward="points"`` (default for hands): each hand's
      points, +points to the scorer and -points to the other seat as the hand ends, plus the
      end-of-match bonuses' difference, so a seat's rewards add up to its final margin.
    - ``reset(seed=S)`` plays the match the rules engine deals from seed ``S`` (the same deals
      as ``ginrummy play --seed S`` and the arena); later resets without a seed draw new
      seeds from ``S``. ``options={"dealer": 0}`` fixes the first dealer.
    - An illegal action raises `IllegalActionError` saying why, and changes nothing.
    - A hand longer than ``max_hand_steps`` actions is truncated for every agent.
    - ``render()`` is text: the table as one seat sees it (the seat to act, or ``render_seat``).
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo reads it from the class
        "name": "ginrummy_v0",
        "render_modes": ["ansi", "human"],
        "render_fps": 1,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "classic",
        *,
        episode: Episode = "match",
        reward: RewardKind | None = None,
        render_mode: str | None = None,
        render_seat: int | None = None,
        max_hand_steps: int = DEFAULT_MAX_HAND_STEPS,
    ) -> None:
        super().__init__()
        self.rules = Rules.preset(rules) if isinstance(rules, str) else rules
        if self.rules.game != "gin":
            raise ValueError(f"the environment plays two-player Gin; these rules are for {self.rules.game!r}")
        if episode not in ("match", "hand"):
            raise ValueError(f"episode must be 'match' or 'hand', got {episode!r}")
        if reward is None:
            reward = "win" if episode == "match" else "points"
        if reward not in ("win", "points"):
            raise ValueError(f"reward must be 'win' or 'points', got {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if max_hand_steps < 1:
            raise ValueError(f"max_hand_steps must be at least 1, got {max_hand_steps}")
        self.episode: Episode = episode
        self.reward_kind: RewardKind = reward
        self.render_mode = render_mode
        self.seats = 2
        if render_seat is not None and not 0 <= render_seat < self.seats:
            raise ValueError(f"render_seat must be a seat from 0 to {self.seats - 1}, got {render_seat}")
        self.render_seat = render_seat
        self.max_hand_steps = max_hand_steps
        self.codec = ACTIONS
        self.observer = TableObserver(self.codec)
        self.possible_agents = [_agent(s) for s in range(self.seats)]
        self._seat_of = {name: s for s, name in enumerate(self.possible_agents)}
        self._agent_names = tuple(self.possible_agents)
        self._paid = False  # whether `rewards` holds a payment to clear at the next step
        layout = self.layout = self.observer.layout
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, layout.high(), (layout.size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (len(self.codec),), np.int8),
            }
        )
        # One space object per agent, as PettingZoo requires (each is seeded on its own).
        self.observation_spaces = {
            a: obs_space if i == 0 else _copy(obs_space) for i, a in enumerate(self.possible_agents)
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(len(self.codec)) for a in self.possible_agents}
        self._seeds = random.Random(secrets.randbits(63))
        self._match: Match | None = None
        self._hand_steps = 0
        self._final_hand: int | None = None  # the hand an ended episode shows

    # -- PettingZoo API --------------------------------------------------------

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            match_seed: int = seed
        else:
            match_seed = self._seeds.getrandbits(63)
        dealer = (options or {}).get("dealer")
        if dealer is not None and dealer not in range(self.seats):
            raise ValueError(f"options['dealer'] must be a seat from 0 to {self.seats - 1}, got {dealer!r}")
        self._match = Match(self.rules, seed=match_seed, first_dealer=dealer)
        self.observer.reset()
        self._hand_steps = 0
        self._final_hand = None
        self._paid = False
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        to_act = self._match.to_act
        assert to_act is not None
        self.agent_selection = _agent(to_act)

    def observe(self, agent: str) -> Observation:
        # What `ObservationEncoder` makes of `self.view(agent)`, read from the hand directly.
        match = self.match
        final = self._final_hand
        if final is not None:
            hand = match.hands[final - 1]
            scores: tuple[int, int] | list[int] = match.scores_after[final - 1]
        else:
            hand = match.hands[-1]
            scores = match.scores_after[-1] if hand.phase == "over" else match.scores
        obs, mask = self.observer.observe(hand, self._seat_of[agent], scores, self.rules.target)
        return {"observation": obs, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self.match
        if action is None:
            raise ValueError(f"{agent} is to act and must choose an action, not None")
        try:
            index = operator.index(action)
        except TypeError:
            raise ValueError(
                f"an action is an integer from 0 to {len(self.codec) - 1}, got {action!r}"
            ) from None
        chosen = self.codec.action(index)
        seat = self._seat_of[agent]
        try:
            result = match.apply(chosen, seat)
        except IllegalActionError as exc:
            raise IllegalActionError(f"{agent} cannot play action {index} ({chosen}): {exc}") from None
        self._hand_steps += 1
        self._cumulative_rewards[agent] = 0.0
        if self._paid:
            self._clear_rewards()
            self._paid = False
        if result is not None:
            self._hand_steps = 0
            self._hand_over(result)
            self._accumulate_rewards()
            self._paid = True
        elif self._hand_steps >= self.max_hand_steps:
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a] = {"truncated": f"the hand passed {self.max_hand_steps} actions"}
        if self.terminations[agent] or self.truncations[agent]:
            self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        else:
            # Only a finished hand pays rewards; between hands every reward is already zero.
            self.agent_selection = self._agent_names[match.hands[-1].to_act]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() was called without a render_mode; pass render_mode='ansi' or 'human'"
            )
            return None
        match = self.match
        seat = self.render_seat
        if seat is None:
            to_act = match.to_act
            if to_act is None or self._final_hand is not None:
                seat = self._seat_of[self.agent_selection]
            else:
                seat = to_act
        text = render_view(self._view(seat), names=self.possible_agents)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._match = None

    # -- beyond the API --------------------------------------------------------

    @property
    def match(self) -> Match:
        """The match being played (the environment's authority; agents only see views)."""
        if self._match is None:
            raise RuntimeError("call reset() before using the environment")
        return self._match

    def view(self, agent: str) -> View:
        """What `agent`'s seat may know now (the VIEW its observation is built from).

        Once the episode has ended it is the last hand's view, showdown included.
        """
        return self._view(self._seat_of[agent])

    def _view(self, seat: int) -> View:
        if self._final_hand is not None:
            return self.match.hand_view(seat, self._final_hand)
        return self.match.view(seat)

    # -- internals -------------------------------------------------------------

    def _hand_over(self, result: HandResult) -> None:
        match = self.match
        if self.reward_kind == "points" and result.scorer is not None:
            self._pay(result.scorer, float(result.points))
        if self.episode == "hand":
            if self.reward_kind == "win" and result.scorer is not None:
                self._pay(result.scorer, 1.0)
            self._end(outcome=result.outcome)
            return
        final = match.result
        if final is None:
            return
        if self.reward_kind == "points":
            for s in range(self.seats):
                bonus = final.scores[s] - final.points[s]
                if bonus:
                    self._pay(s, float(bonus))
        elif final.winner is not None:
            self._pay(final.winner, 1.0)
        self._end(outcome=result.outcome)

    def _pay(self, seat: int, amount: float) -> None:
        """Zero-sum: `seat` gains `amount`, the others share its loss."""
        share = amount / (self.seats - 1)
        for s in range(self.seats):
            self.rewards[_agent(s)] += amount if s == seat else -share

    def _end(self, *, outcome: str) -> None:
        match = self.match
        self._final_hand = len(match.hands) if match.result is not None else len(match.hands) - 1
        final = match.result
        scores = list(final.scores) if final is not None else list(match.scores)
        for a in self.agents:
            self.terminations[a] = True
            info: dict[str, Any] = {"outcome": outcome, "scores": scores}
            if final is not None:
                info["winner"] = None if final.winner is None else _agent(final.winner)
            self.infos[a] = info


def _copy(space: gymnasium.spaces.Dict) -> gymnasium.spaces.Dict:
    return gymnasium.spaces.Dict({key: _copy_box(value) for key, value in space.spaces.items()})


def _copy_box(space: gymnasium.spaces.Space[Any]) -> gymnasium.spaces.Box:
    assert isinstance(space, gymnasium.spaces.Box)
    return gymnasium.spaces.Box(space.low, space.high, space.shape, space.dtype)


def raw_env(rules: Rules | str = "classic", **kwargs: Any) -> GinRummyEnv:
    """The environment without PettingZoo's order-checking wrapper."""
    return GinRummyEnv(rules, **kwargs)


def env(rules: Rules | str = "classic", **kwargs: Any) -> AECEnv[str, Observation, int]:
    """The environment as PettingZoo's classic games ship it: wrapped to enforce the call order.

    Keywords are those of `GinRummyEnv` (``episode``, ``reward``, ``render_mode``, ...).
    """
    return wrappers.OrderEnforcingWrapper(GinRummyEnv(rules, **kwargs))
