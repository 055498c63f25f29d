"""Aeroplane Chess for Gymnasium: one agent against built-in opponents, as a single
environment (``AeroplaneEnv``) and as a vector environment over the Rust ``VecEnv``
(``AeroplaneVectorEnv``), with Gymnasium 1.x's conventions.

    import gymnasium as gym
    import aeroplane.gym

    env = aeroplane.gym.AeroplaneEnv(players=2, opponents=["greedy"])
    obs, info = env.reset(seed=1)
    while True:
        action = env.action_space.sample(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break

    envs = aeroplane.gym.AeroplaneVectorEnv(1024, players=2, opponents=["random"])
    obs, infos = envs.reset(seed=1)
    actions = envs.sample_actions(infos["action_mask"])
    obs, rewards, terminations, truncations, infos = envs.step(actions)

- **Observations** are float32 vectors in [0, 1]: the 170 values of ``aeroplane.Game.
  observation`` from the agent's seat (``observation="flat"``), or 414 with
  ``observation="rich"`` (docs/RULES.md, "For programs"). The roll waiting for the agent's
  decision is part of them (one-hot at indices 160-165).
- **Actions** are ``Discrete(8)``: ``p`` moves plane ``p``, ``4 + p`` moves it onto the flight
  cell and stays there. The legal ones are ``info["action_mask"]`` (int8 ``(8,)``, as
  Gymnasium's Taxi gives it; ``action_space.sample(info["action_mask"])`` draws one).
- **One step** is one decision of the agent: the die, the opponents' moves and the agent's
  rolls without a choice are played inside it, as the command line's runner asks a bot only
  when a roll offers two or more moves (``forced_moves=True``: at every move). A game in which
  the agent has no choice at all still takes one step, at its end: the observation is its last
  position, the mask allows action 0 alone, and that step ends the episode with the game's
  return, so every game is an episode.
- **Rewards** are 0 until the game ends, then the agent's return by rank (1 for the winner,
  -1 for the last; docs/RULES.md). A game stopped by ``max_turns`` is *truncated*
  (``truncated=True``); otherwise it is *terminated*.
- **Seeding**: ``reset(seed=s)`` plays game 0 of seed ``s`` (its dice ``SeededDice(s, deal)``
  and opponent seeds ``bot_seed(s, deal, seat)``, as ``aeroplane run --seed s`` game 0 with a
  bot in the agent's place); each later ``reset()`` without a seed plays the next game of that
  seed (the game after the one the last step showed). The first reset without any seed draws
  one from ``np_random``.
- **An illegal action** (one the mask does not allow) ends the episode as a loss for the agent:
  reward -1, ``terminated=True``, ``info["illegal_action"] = True`` (the convention of
  PettingZoo's ``TerminateIllegalWrapper``), so that ``gymnasium.utils.env_checker.check_env``
  and unmasked sampling (``action_space.sample()``) work; ``info["legal_actions"]`` lists the
  legal ones. The vector environment does the same in each environment (its infos have
  ``illegal_action`` and ``legal_actions`` where one was played), and that environment's next
  game follows as after any other end.
- ``info`` holds ``action_mask``, ``game`` (its index under its seed) and ``seed``; the step
  that ends a game adds ``winner`` (seat, -1 for none), ``turns``, ``return`` and
  ``no_choice`` (the agent had no choice in it).

The vector environment steps ``num_envs`` such games in Rust per call (the same games as
``num_envs`` single environments with the same seeds, checked against Gymnasium's
``SyncVectorEnv`` in the tests). ``autoreset_mode`` (``metadata["autoreset_mode"]``) is
Gymnasium's:

- ``AutoresetMode.NEXT_STEP`` (the default, as in ``SyncVectorEnv``): the step that ends a
  game returns its last observation; the next step ignores that environment's action and
  returns the first observation of its next game, with reward 0 and neither flag set.
- ``AutoresetMode.SAME_STEP``: the step that ends a game returns the next game's first
  observation already, and the ended game's last observation in ``infos["final_obs"]`` (an
  object array, ``None`` where no game ended) and its info in ``infos["final_info"]`` (with
  ``_final_obs``/``_final_info`` masks).

(``DISABLED`` is refused: the Rust environments always start the next game.) ``infos`` follow
``VectorEnv``'s layout: a key per item with an array over environments and a ``_key`` mask of
the environments that have it; ``infos["action_mask"]`` is int8 ``(num_envs, 8)``. ``reset
(seed=s)`` seeds environment ``i`` with ``s + i`` (a list gives each environment its seed),
each playing games 0, 1, 2, ... of its seed as a single environment would; ``seeds`` of the
Rust ``VecEnv`` (``envs.vec_env``) shows them. ``gymnasium`` is an optional dependency
(``pip install './python[gym]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

try:
    import gymnasium as gym
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "aeroplane.gym needs Gymnasium 1.x: pip install './python[gym]' (or pip install gymnasium); "
        f"{e}"
    ) from e

from . import DEFAULT_PLAYERS, NUM_ACTIONS, Game, Rules, VecEnv
from ._text import describe

__all__ = ["AeroplaneEnv", "AeroplaneVectorEnv"]

_RENDER_MODES = ["ansi", "human"]


def _opponents(players: int, opponents: Sequence[Any] | None) -> list[Any]:
    if opponents is None:
        return ["random"] * (players - 1)
    if isinstance(opponents, str):
        return [o.strip() for o in opponents.split(",")]
    return list(opponents)


def _check_render_mode(render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in _RENDER_MODES:
        raise ValueError(
            f"render_mode {render_mode!r}: allowed are None, " + ", ".join(map(repr, _RENDER_MODES))
        )


def _observation_space(length: int) -> spaces.Box:
    return spaces.Box(0.0, 1.0, (length,), np.float32)


class AeroplaneEnv(gym.Env):
    """One agent against built-in opponents (bot names or ``aeroplane.bots.Bot``s, one per
    other player; default random): ``AeroplaneEnv(rules="appfreegame", players=4,
    opponents=None, *, agent=0, rotate_seats=False, forced_moves=False, observation="flat",
    render_mode=None)``. The agent is player ``agent`` of the lineup ``opponents[:agent] +
    [agent] + opponents[agent:]``; see the module's documentation for the rest."""

    metadata: dict[str, Any] = {"render_modes": _RENDER_MODES, "render_fps": 4}

    def __init__(self, rules: Rules | str = "appfreegame", players: int = DEFAULT_PLAYERS,
                 opponents: Sequence[Any] | None = None, *, agent: int = 0,
                 rotate_seats: bool = False, forced_moves: bool = False,
                 observation: Literal["flat", "rich"] = "flat", render_mode: str | None = None):
        _check_render_mode(render_mode)
        self.render_mode = render_mode
        self._vec = VecEnv(1, rules, players, 0, _opponents(players, opponents), agent=agent,
                           rotate_seats=rotate_seats, forced_moves=forced_moves,
                           observation=observation, threads=1)
        self.rules = self._vec.rules
        self.players = self._vec.players
        self.observation_space = _observation_space(self._vec.observation_len)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._seed: int | None = None
        self._game = 0
        self._obs = np.zeros(self._vec.observation_len, np.float32)
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        self._over = True
        self._final: Game | None = None

    @property
    def game(self) -> Game:
        """A copy of the game: at the agent's decision, or as it ended."""
        return self._final if self._over and self._final is not None else self._vec.get_state(0)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "game": self._game, "seed": self._seed}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._game = int(seed), 0
        elif self._seed is None:
            self._seed, self._game = int(self.np_random.integers(2**63)), 0
        else:
            self._game += 1
        obs, mask = self._vec.reset(seed=[self._seed], start=[self._game])
        self._obs, self._mask = obs[0], mask[0].astype(np.int8)
        self._over, self._final = False, None
        return self._obs.copy(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        a = int(action)
        if not (0 <= a < NUM_ACTIONS and self._mask[a]):
            self._final = self._vec.get_state(0)
            self._over = True
            legal = np.flatnonzero(self._mask).tolist()
            self._mask = np.zeros(NUM_ACTIONS, np.int8)
            info = self._info()
            info.update(illegal_action=True, legal_actions=legal)
            return self._obs.copy(), -1.0, True, False, info
        obs, rewards, terminated, mask = self._vec.step(np.array([a], np.int64))
        if not terminated[0]:
            self._obs, self._mask = obs[0], mask[0].astype(np.int8)
            return self._obs.copy(), 0.0, False, False, self._info()
        ended = self._vec.ended()
        self._final = ended["final_game"][0]
        self._over = True
        self._obs = ended["final_obs"][0]
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        reward = float(rewards[0])
        info = self._info()
        info.update(winner=int(ended["winner"][0]), turns=int(ended["turns"][0]),
                    no_choice=bool(ended["no_choice"][0]))
        info["return"] = reward
        truncated = bool(ended["truncated"][0])
        return self._obs.copy(), reward, not truncated, truncated, info

    def render(self) -> str | None:
        text = describe(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text


class AeroplaneVectorEnv(VectorEnv):
    """``num_envs`` games of one agent against built-in opponents, stepped in Rust:
    ``AeroplaneVectorEnv(num_envs, rules="appfreegame", players=4, opponents=None, *,
    agent=0, rotate_seats=False, forced_moves=False, observation="flat",
    autoreset_mode=AutoresetMode.NEXT_STEP, threads=0)``. ``opponents`` is one lineup for all
    or a list of ``num_envs`` lineups (one per environment). See the module's documentation."""

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs: int, rules: Rules | str = "appfreegame",
                 players: int = DEFAULT_PLAYERS, opponents: Sequence[Any] | None = None, *,
                 agent: int = 0, rotate_seats: bool = False, forced_moves: bool = False,
                 observation: Literal["flat", "rich"] = "flat",
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, threads: int = 0):
        mode = autoreset_mode if isinstance(autoreset_mode, AutoresetMode) else AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(
                f"autoreset_mode {mode}: allowed are AutoresetMode.NEXT_STEP and AutoresetMode.SAME_STEP "
                "(the environments always start their next game)"
            )
        if opponents is not None and not isinstance(opponents, str) and len(opponents) > 0 \
                and all(isinstance(o, (list, tuple)) for o in opponents):
            lineups: Any = [list(o) for o in opponents]
        else:
            lineups = _opponents(players, opponents)
        self.vec_env = VecEnv(num_envs, rules, players, 0, lineups, agent=agent,
                              rotate_seats=rotate_seats, forced_moves=forced_moves,
                              observation=observation, threads=threads)
        self.num_envs = self.vec_env.num_envs
        self.autoreset_mode = mode
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.render_mode = None
        self.single_observation_space = _observation_space(self.vec_env.observation_len)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        n, length = self.num_envs, self.vec_env.observation_len
        # Buffers the Rust environment fills (out=): a step allocates only what it returns.
        self._obs = np.zeros((n, length), np.float32)
        self._mask = np.zeros((n, NUM_ACTIONS), np.bool_)
        self._rewards = np.zeros(n, np.float32)
        self._terminated = np.zeros(n, np.bool_)
        self._autoreset = np.zeros(n, np.bool_)
        self._seeds: np.ndarray | None = None
        self._games = np.zeros(n, np.int64)

    def sample_actions(self, action_mask: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action per environment (``action_mask`` as ``infos`` give
        it)."""
        rng = rng if rng is not None else self.np_random
        scores = rng.random(action_mask.shape, dtype=np.float32) * action_mask
        return scores.argmax(1)

    def _base_info(self, games: np.ndarray) -> dict[str, Any]:
        """What every step's ``infos`` hold: ``action_mask``, ``game``, ``seed``."""
        n = self.num_envs
        everywhere = np.ones(n, np.bool_)
        assert self._seeds is not None
        return {"action_mask": self._mask.astype(np.int8), "_action_mask": everywhere,
                "game": games.astype(np.int64), "_game": everywhere.copy(),
                "seed": self._seeds.astype(np.int64), "_seed": everywhere.copy()}

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        starts = np.zeros(self.num_envs, np.int64)
        if seed is None:
            if self._seeds is None:
                super().reset(seed=None)
                seeds = self.np_random.integers(2**63, size=self.num_envs, dtype=np.uint64)
            else:
                # The next game of each environment's seed.
                seeds = self._seeds
                starts = self._games + 1
        elif isinstance(seed, (int, np.integer)):
            super().reset(seed=int(seed))
            seeds = np.arange(self.num_envs, dtype=np.uint64) + np.uint64(seed)
        else:
            if len(seed) != self.num_envs:
                raise ValueError(
                    f"If seeds are passed as a list the length must match num_envs={self.num_envs} "
                    f"but got length={len(seed)}."
                )
            seeds = np.array([int(s) for s in seed], dtype=np.uint64)
        self._seeds = seeds
        self.vec_env.reset(seed=list(seeds), start=starts, out=(self._obs, self._mask))
        self._autoreset[:] = False
        self._games = self.vec_env.game_index.astype(np.int64)
        return self._obs.copy(), self._base_info(self._games)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), got {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            actions = actions.astype(np.int64)
        n = self.num_envs
        next_step = self.autoreset_mode == AutoresetMode.NEXT_STEP
        # NEXT_STEP: an environment whose game ended at the last step is not stepped now; the
        # Rust environment started its next game already, whose first decision it shows.
        stepped = ~self._autoreset if next_step else np.ones(n, np.bool_)
        # An illegal action loses the game, as in AeroplaneEnv: that environment is not
        # stepped; its game ends here, with the observation it had, and its next game starts.
        in_range = (actions >= 0) & (actions < NUM_ACTIONS)
        safe = np.where(in_range, actions, 0).astype(np.int64)
        illegal = stepped & ~(in_range & self._mask[np.arange(n), safe])
        if illegal.any():
            lost = np.flatnonzero(illegal)
            lost_obs = self._obs[lost].copy()
            lost_legal = [np.flatnonzero(self._mask[i]).tolist() for i in lost]
            lost_games = self._games[lost].copy()
            stepped = stepped & ~illegal
            safe[lost] = 0
        env_mask = None if stepped.all() else stepped
        self.vec_env.step(safe, env_mask,
                          out=(self._obs, self._rewards, self._terminated, self._mask))
        ended = self.vec_env.ended()
        where = ended["env"]
        truncated = self.vec_env.truncated
        games = self.vec_env.game_index.astype(np.int64)
        if illegal.any():
            # The next game of each environment's seed (the wrapper gives every environment a
            # seed of its own: games 0, 1, 2, ...).
            self.vec_env.reset(start=games + 1, env_mask=illegal, out=(self._obs, self._mask))
            self._rewards[lost] = -1.0
            self._terminated[lost] = True
            games = self.vec_env.game_index.astype(np.int64)
        terminated = self._terminated & ~truncated
        obs = self._obs.copy()
        final: dict[str, Any] = {}
        has = np.zeros(n, np.bool_)
        if len(where) or illegal.any():
            has[where] = True
            has[illegal] = True
            # The ended games' infos, as a single environment gives them at its last step
            # (no legal action left), in VectorEnv's layout: zero where no game ended.
            ended_games = np.zeros(n, np.int64)
            ended_games[where] = ended["game"].astype(np.int64)
            ended_seeds = np.zeros(n, np.int64)
            assert self._seeds is not None
            ended_seeds[has] = self._seeds[has].astype(np.int64)
            final = {"action_mask": np.zeros((n, NUM_ACTIONS), np.int8), "_action_mask": has.copy(),
                     "game": ended_games, "_game": has.copy(),
                     "seed": ended_seeds, "_seed": has.copy()}
            if len(where):
                played = np.zeros(n, np.bool_)
                played[where] = True
                for key, src, dtype in (("winner", "winner", np.int64), ("turns", "turns", np.int64),
                                        ("no_choice", "no_choice", np.bool_),
                                        ("return", "returns", np.float64)):
                    column = np.zeros(n, dtype)
                    column[where] = ended[src]
                    final[key] = column
                    final["_" + key] = played.copy()
            if illegal.any():
                ended_games[lost] = lost_games
                legal_lists = np.full(n, None, dtype=object)
                for j, i in enumerate(lost):
                    legal_lists[i] = lost_legal[j]
                final["illegal_action"], final["_illegal_action"] = illegal.copy(), illegal.copy()
                final["legal_actions"], final["_legal_actions"] = legal_lists, illegal.copy()
        infos = self._base_info(games)
        if next_step:
            if has.any():
                obs[where] = ended["final_obs"]
                if illegal.any():
                    obs[lost] = lost_obs
                for key in ("action_mask", "game"):
                    infos[key][has] = final[key][has]
                for key in ("winner", "turns", "no_choice", "return", "illegal_action", "legal_actions"):
                    if key in final:
                        infos[key], infos["_" + key] = final[key], final["_" + key]
            # What the step shows: the ended game where one ended (reset() plays the next).
            self._games = infos["game"].copy()
        else:
            if has.any():
                final_obs = np.full(n, None, dtype=object)
                for j, i in enumerate(where):
                    final_obs[i] = ended["final_obs"][j]
                if illegal.any():
                    for j, i in enumerate(lost):
                        final_obs[i] = lost_obs[j]
                infos["final_obs"], infos["_final_obs"] = final_obs, has.copy()
                infos["final_info"], infos["_final_info"] = final, has.copy()
            self._games = games
        self._autoreset = self._terminated.copy()
        return obs, self._rewards.astype(np.float64), terminated, truncated.copy(), infos

    def close_extras(self, **kwargs: Any) -> None:
        pass
