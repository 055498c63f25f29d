"""Aeroplane Chess as PettingZoo environments: AEC (``env``, ``raw_env``) and parallel
(``parallel_env``).

    from aeroplane.pettingzoo import env
    e = env(players=4, rules="classic", render_mode="ansi")
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

- **Agents** are ``player_0`` ... ``player_{n-1}``: player ``k`` is the k-th seat in play (two
  players sit on seats 0 and 2 of the board).
- **The die** is rolled by the environment before each decision, so the roll is part of that
  decision's observation and action mask; rolls that offer no move are played at once. A six
  earns another roll: the same agent is selected again (``agent_selection``).
- **Observations** are ``{"observation": float32 (170,), "action_mask": int8 (8,)}``: the
  observation vector of ``aeroplane.Game.observation`` from the agent's seat, and its legal
  actions (all zero for an agent that is not to move). **Actions** are ``Discrete(8)``: ``p``
  moves plane ``p``, ``4 + p`` moves it onto the flight cell and stays there.
- **Rewards** are zero until the game ends, then each agent's return by rank (1 for the winner,
  -1 for the last, summing to zero; ``docs/RULES.md``). A game stopped by ``max_turns`` ends
  with ``truncations`` set instead of ``terminations``.
- **Seeding**: ``reset(seed=s)`` plays game 0 of seed ``s`` (the dice ``aeroplane run --seed
  s`` gives game 0); each later ``reset()`` without a seed plays the next game of that seed.
  Without any seed, the first reset draws one from the operating system.
- ``render_mode="ansi"``: ``render()`` returns the position as text; ``"human"`` prints it.

- ``state()`` (``state_space``) is the global state for centralised critics: the observation
  from player 0's seat (the game hides nothing, so it is the whole position).
- Players: 4 by default (``aeroplane.DEFAULT_PLAYERS``, as everywhere in the package).
- The environments copy (``copy.deepcopy``) and pickle at any point, dice included.

``env()`` adds PettingZoo's usual wrappers (an illegal action ends the game with -1 for the
agent that made it); ``raw_env()`` raises ``ValueError`` for one.

**Parallel** (``parallel_env``, for SuperSuit's vector wrappers and other parallel-API
tools): one ``step`` is one decision. Every agent in play gets an observation each step, but
only the agent to move (``infos[agent]["to_move"]``, the one whose ``action_mask`` is not all
zero) acts: ``step(actions)`` reads ``actions[that agent]`` and ignores any action given for
the others, which get no action to make. The same seeds play the same games as the AEC
environment; when the game ends every agent is terminated (or truncated, at ``max_turns``) at
once, with its return as reward, and ``agents`` is empty. An illegal action of the agent to move
ends the game as ``env()`` does: -1 for that agent, 0 for the others, and
``infos[agent]["illegal_action"]``.

``pettingzoo`` is an optional dependency (``pip install './python[pettingzoo]'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
    from pettingzoo.utils import wrappers
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "aeroplane.pettingzoo needs PettingZoo and Gymnasium: pip install './python[pettingzoo]' "
        f"(or pip install pettingzoo gymnasium); {e}"
    ) from e

from . import DEFAULT_PLAYERS, NUM_ACTIONS, OBSERVATION_LEN, Game, Rules, SeededDice
from ._text import describe

__all__ = ["describe", "env", "parallel_env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's wrappers (illegal actions end the game, actions are
    checked against the action space, the API's call order is enforced)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv):
    """Aeroplane Chess for ``players`` (2 to 4) under ``rules`` (an ``aeroplane.Rules``, a
    preset name or a variant file)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "aeroplane_v0",
        "is_parallelizable": False,
    }

    def __init__(self, rules: Rules | str = "appfreegame", players: int = DEFAULT_PLAYERS,
                 render_mode: str | None = None):
        super().__init__()
        _setup(self, rules, players, render_mode)
        self.agent_selection = self.possible_agents[0]

    def state(self) -> np.ndarray:
        """The global state: the observation from player 0's seat (the whole position)."""
        return self.game.observation(self.game.seat_of(0))

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        return self.game.seat_of(self.possible_agents.index(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if agent == self.agent_selection and not self.game.is_terminal():
            mask[self.game.legal_actions()] = 1
        return {"observation": self.game.observation(self._seat(agent)), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        _next_game(self, seed)
        self.agents = self.possible_agents[:]
        self.rewards: dict[str, float] = {a: 0.0 for a in self.agents}
        self._cumulative_rewards: dict[str, float] = {a: 0.0 for a in self.agents}
        self.terminations: dict[str, bool] = {a: False for a in self.agents}
        self.truncations: dict[str, bool] = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._roll_to_decision()
        self.agent_selection = self._selected()

    def _roll_to_decision(self) -> None:
        _roll_to_decision(self)

    def _selected(self) -> str:
        return f"player_{self.game.player_of(self.game.to_move)}"

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to move: give one of its legal actions {self.game.legal_actions()}, not None")
        self._cumulative_rewards[agent] = 0.0
        self.game.apply_action(action)
        self._roll_to_decision()
        self._clear_rewards()
        if self.game.is_terminal():
            by_seat = self.game.returns()
            truncated = self.game.status == "unfinished"
            for k, a in enumerate(self.agents):
                self.rewards[a] = by_seat[self.game.seat_of(k)]
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
        self.agent_selection = self._selected()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        text = describe(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _setup(e: Any, rules: Rules | str, players: int, render_mode: str | None) -> None:
    """The settings, spaces and seeding state both environments share."""
    if render_mode is not None and render_mode not in e.metadata["render_modes"]:
        raise ValueError(
            f"render_mode {render_mode!r}: allowed are None, "
            + ", ".join(repr(m) for m in e.metadata["render_modes"])
        )
    e.render_mode = render_mode
    e.rules = rules if isinstance(rules, Rules) else Rules.load(str(rules))
    e.game = Game(e.rules, players)
    e.possible_agents = [f"player_{k}" for k in range(e.game.players)]
    e.agents = e.possible_agents[:]
    e.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in e.possible_agents}
    e.observation_spaces = {
        a: spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBSERVATION_LEN,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        for a in e.possible_agents
    }
    e.state_space = spaces.Box(0.0, 1.0, (OBSERVATION_LEN,), np.float32)
    e._seed = None
    e._game_index = 0
    e._dice = None


def _next_game(e: Any, seed: int | None) -> None:
    """Starts game 0 of ``seed``, or the next game of the seed in use (a seed drawn from the
    operating system the first time)."""
    if seed is not None:
        e._seed = int(seed)
        e._game_index = 0
    elif e._seed is None:
        entropy = np.random.SeedSequence().entropy
        assert isinstance(entropy, int)
        e._seed = entropy % 2**64
        e._game_index = 0
    else:
        e._game_index += 1
    e._dice = SeededDice(e._seed, e._game_index)
    e.game = Game(e.rules, e.game.players)


def _roll_to_decision(e: Any) -> None:
    """Rolls until a seat has a decision or the game is over."""
    assert e._dice is not None, "reset() first"
    while e.game.is_chance_node():
        e._dice.roll_for(e.game)


class parallel_env(ParallelEnv):
    """Aeroplane Chess for ``players`` (2 to 4) under ``rules`` through PettingZoo's parallel
    API: each step the agent to move acts, the others get no action (see the module's
    documentation)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "aeroplane_v0"}

    def __init__(self, rules: Rules | str = "appfreegame", players: int = DEFAULT_PLAYERS,
                 render_mode: str | None = None):
        _setup(self, rules, players, render_mode)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        """The global state: the observation from player 0's seat (the whole position)."""
        return self.game.observation(self.game.seat_of(0))

    def _mover(self) -> str:
        return f"player_{self.game.player_of(self.game.to_move)}"

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if not self.game.is_terminal() and agent == self._mover():
            mask[self.game.legal_actions()] = 1
        seat = self.game.seat_of(self.possible_agents.index(agent))
        return {"observation": self.game.observation(seat), "action_mask": mask}

    def _infos(self) -> dict[str, dict[str, Any]]:
        over = self.game.is_terminal()
        mover = None if over else self._mover()
        return {a: {"to_move": a == mover} for a in self.possible_agents}

    def reset(self, seed: int | None = None, options: dict | None = None
              ) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        _next_game(self, seed)
        self.agents = self.possible_agents[:]
        _roll_to_decision(self)
        return {a: self._observe(a) for a in self.agents}, self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[
            dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            raise RuntimeError("the game is over: call reset()")
        mover = self._mover()
        action = actions.get(mover)
        if action is None:
            raise ValueError(
                f"{mover} is to move: give its action (one of {self.game.legal_actions()}) in actions[{mover!r}]"
            )
        if int(action) not in self.game.legal_actions():
            return self._lose(mover, int(action))
        self.game.apply_action(int(action))
        _roll_to_decision(self)
        agents = self.agents
        observations = {a: self._observe(a) for a in agents}
        rewards = {a: 0.0 for a in agents}
        terminations = {a: False for a in agents}
        truncations = {a: False for a in agents}
        infos = self._infos()
        if self.game.is_terminal():
            by_seat = self.game.returns()
            truncated = self.game.status == "unfinished"
            for k, a in enumerate(agents):
                rewards[a] = by_seat[self.game.seat_of(k)]
                terminations[a] = not truncated
                truncations[a] = truncated
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def _lose(self, mover: str, action: int) -> tuple[
            dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        """An illegal action ends the game: -1 for the agent that made it, 0 for the others
        (as ``env()``'s ``TerminateIllegalWrapper`` does for the AEC environment)."""
        agents = self.agents
        legal = self.game.legal_actions()
        observations = {a: self._observe(a) for a in agents}
        for o in observations.values():
            o["action_mask"][:] = 0
        infos: dict[str, dict[str, Any]] = {a: {"to_move": False} for a in agents}
        infos[mover].update(illegal_action=action, legal_actions=legal)
        rewards = {a: (-1.0 if a == mover else 0.0) for a in agents}
        self.agents = []
        return observations, rewards, dict.fromkeys(agents, True), dict.fromkeys(agents, False), infos

    def render(self) -> str | None:
        text = describe(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
