"""Aeroplane Chess as a PettingZoo AEC environment.

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

``env()`` adds PettingZoo's usual wrappers (an illegal action ends the game with -1 for the
agent that made it); ``raw_env()`` raises ``ValueError`` for one. ``pettingzoo`` is an
optional dependency (``pip install ./python[pettingzoo]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import NUM_ACTIONS, OBSERVATION_LEN, Game, Rules, SeededDice

__all__ = ["env", "raw_env"]

_COLOURS = ("red", "yellow", "blue", "green")


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's wrappers (illegal actions end the game, actions are
    checked against the action space, the API's call order is enforced)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


def describe(game: Game) -> str:
    """A position as a few lines of text: each player's planes, whose turn, the roll."""
    centre = game.rules.centre
    lines = [f"position {game}"]
    for k, seat in enumerate(game.seats):
        steps = []
        for s in game.steps(seat):
            steps.append("hangar" if s < 0 else "home" if s == centre else str(s))
        rank = game.rank(seat)
        tail = f"  (rank {rank})" if rank else ""
        lines.append(f"player_{k} ({_COLOURS[seat]}, seat {seat}): {', '.join(steps)}{tail}")
    if game.is_terminal():
        lines.append(f"game over ({game.status}) after {game.turns} turns")
    else:
        who = f"player_{game.player_of(game.to_move)}"
        roll = game.pending_roll
        lines.append(f"{who} to move" + (f", rolled {roll}" if roll else ""))
    return "\n".join(lines)


class raw_env(AECEnv):
    """Aeroplane Chess for ``players`` (2 to 4) under ``rules`` (an ``aeroplane.Rules``, a
    preset name or a variant file)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi", "human"],
        "name": "aeroplane_v0",
        "is_parallelizable": False,
    }

    def __init__(self, rules: Rules | str = "appfreegame", players: int = 2, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r}: allowed are None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        self.render_mode = render_mode
        self.rules = rules if isinstance(rules, Rules) else Rules.load(str(rules))
        self.game = Game(self.rules, players)
        self.possible_agents = [f"player_{k}" for k in range(self.game.players)]
        self.agents = self.possible_agents[:]
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (OBSERVATION_LEN,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._seed: int | None = None
        self._game_index = 0
        self._dice: SeededDice | None = None
        self.agent_selection = self.possible_agents[0]

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
        if seed is not None:
            self._seed = int(seed)
            self._game_index = 0
        elif self._seed is None:
            entropy = np.random.SeedSequence().entropy
            assert isinstance(entropy, int)
            self._seed = entropy % 2**64
            self._game_index = 0
        else:
            self._game_index += 1
        self._dice = SeededDice(self._seed, self._game_index)
        self.game = Game(self.rules, self.game.players)
        self.agents = self.possible_agents[:]
        self.rewards: dict[str, float] = {a: 0.0 for a in self.agents}
        self._cumulative_rewards: dict[str, float] = {a: 0.0 for a in self.agents}
        self.terminations: dict[str, bool] = {a: False for a in self.agents}
        self.truncations: dict[str, bool] = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._roll_to_decision()
        self.agent_selection = self._selected()

    def _roll_to_decision(self) -> None:
        """Rolls until a seat has a decision or the game is over."""
        assert self._dice is not None, "reset() first"
        while self.game.is_chance_node():
            self._dice.roll_for(self.game)

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
