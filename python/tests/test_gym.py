"""aeroplane.gym: Gymnasium's env checker on the single environment, and the vector
environment against Gymnasium's own SyncVectorEnv of single environments in both autoreset
modes (the same observations, rewards, flags and infos, step for step)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gym = pytest.importorskip("gymnasium", reason="gymnasium is an optional extra")

from gymnasium.utils.env_checker import check_env, data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

import aeroplane  # noqa: E402
from aeroplane.gym import AeroplaneEnv, AeroplaneVectorEnv  # noqa: E402


@pytest.mark.parametrize("kwargs", [
    {"players": 2, "opponents": ["greedy"]},
    {"rules": "classic", "players": 4, "opponents": ["random", "greedy", "random"], "agent": 2},
    {"rules": "chinese", "players": 3, "observation": "rich", "rotate_seats": True},
    {"players": 2, "forced_moves": True, "render_mode": "ansi"},
])
def test_check_env(kwargs):
    env = AeroplaneEnv(**kwargs)
    with warnings.catch_warnings():
        # The checker would also try other render modes through the registry (no spec here).
        warnings.filterwarnings("ignore", message=".*alternative render modes.*")
        check_env(env, skip_render_check=False)
    length = aeroplane.RICH_OBSERVATION_LEN if kwargs.get("observation") == "rich" else 170
    assert env.observation_space.shape == (length,) and env.action_space == gym.spaces.Discrete(8)


def test_episodes_are_the_seeded_games():
    """reset(seed=s) plays game 0 of seed s against greedy, as the state API plays it with
    SeededDice(s, 0) and bot_seed; the step that ends it reports its return, winner, turns."""
    env = AeroplaneEnv("classic", 2, ["greedy"])
    obs, info = env.reset(seed=11)
    assert info["game"] == 0 and info["seed"] == 11
    game = aeroplane.Game("classic", 2)
    dice = aeroplane.SeededDice(11, 0)
    greedy = aeroplane.bots.Greedy()
    greedy.new_game(2, aeroplane.bot_seed(11, 0, 2))

    def to_decision():
        while not game.is_terminal() and (game.is_chance_node() or game.to_move == 2
                                          or len(game.legal_actions()) < 2):
            if game.is_chance_node():
                dice.roll_for(game)
            elif game.to_move == 2:
                game.apply_action(greedy.choose(game))
            else:
                game.apply_action(game.legal_actions()[0])

    to_decision()
    steps = 0
    while True:
        np.testing.assert_array_equal(obs, game.observation(0))
        np.testing.assert_array_equal(info["action_mask"], game.legal_actions_mask().astype(np.int8))
        action = game.legal_actions()[-1]
        game.apply_action(action)
        to_decision()
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert (terminated or truncated) == game.is_terminal()
        if game.is_terminal():
            break
        assert reward == 0
    assert steps > 10 and terminated and not truncated
    assert reward == game.returns()[0] == info["return"] and info["winner"] == game.winner
    assert info["turns"] == game.turns and env.game == game and not info["no_choice"]
    np.testing.assert_array_equal(obs, game.observation(0))
    with pytest.raises(RuntimeError, match="the episode is over: call reset"):
        env.step(0)
    assert env.reset()[1]["game"] == 1


def test_an_illegal_action_loses_the_game():
    env = AeroplaneEnv(players=2, opponents=["random"])
    obs, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs2, reward, terminated, truncated, info2 = env.step(illegal)
    assert reward == -1 and terminated and not truncated and info2["illegal_action"]
    assert info2["legal_actions"] == np.flatnonzero(info["action_mask"]).tolist()
    np.testing.assert_array_equal(obs2, obs)
    with pytest.raises(RuntimeError, match="the episode is over: call reset"):
        env.step(0)


def step_both(ours, theirs, steps, rng):
    obs, infos = ours.reset(seed=3)
    obs2, infos2 = theirs.reset(seed=3)
    assert data_equivalence(obs, obs2) and data_equivalence(infos, infos2)
    ended = 0
    for _ in range(steps):
        actions = ours.sample_actions(infos["action_mask"], rng)
        got = ours.step(actions)
        want = theirs.step(actions)
        for name, x, y in zip(["obs", "rewards", "terminations", "truncations", "infos"], got, want):
            assert data_equivalence(x, y), f"{name} differ: {x} against {y}"
        infos = got[4]
        ended += int(got[2].sum() + got[3].sum())
    return ended


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("config", [
    {"rules": "appfreegame", "players": 2, "opponents": ["greedy"]},
    {"rules": aeroplane.Rules("classic", max_turns=60), "players": 4, "opponents": ["random", "greedy", "random"],
     "rotate_seats": True},
])
def test_vector_env_is_gymnasiums_sync_vector_env(mode, config):
    """The Rust vector environment gives what Gymnasium's SyncVectorEnv of single
    environments gives: the same arrays and infos at every step, autoresets included
    (max_turns = 60 makes truncations)."""
    n = 5
    ours = AeroplaneVectorEnv(n, autoreset_mode=mode, **config)
    theirs = SyncVectorEnv([lambda: AeroplaneEnv(**config) for _ in range(n)], autoreset_mode=mode)
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"] == mode
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.single_action_space == theirs.single_action_space
    assert ours.observation_space == theirs.observation_space and ours.action_space == theirs.action_space
    assert step_both(ours, theirs, 400, np.random.default_rng(0)) > 5
    # reset() without a seed plays each environment's next game, as the single ones do.
    obs, infos = ours.reset()
    obs2, infos2 = theirs.reset()
    assert data_equivalence(obs, obs2) and data_equivalence(infos, infos2)


def test_vector_env_details():
    envs = AeroplaneVectorEnv(4, players=2, opponents=[["greedy"], ["random"], ["greedy"], ["random"]])
    assert envs.vec_env.opponents == [["greedy"], ["random"], ["greedy"], ["random"]]
    obs, infos = envs.reset(seed=[5, 6, 7, 8])
    assert list(envs.vec_env.seeds) == [5, 6, 7, 8] and infos["seed"].tolist() == [5, 6, 7, 8]
    with pytest.raises(ValueError, match="AutoresetMode.NEXT_STEP and AutoresetMode.SAME_STEP"):
        AeroplaneVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(ValueError, match="length must match num_envs=4"):
        envs.reset(seed=[1, 2])
    bad = envs.sample_actions(infos["action_mask"])
    bad[1] = int(np.flatnonzero(infos["action_mask"][1] == 0)[0])
    obs, rewards, terminations, truncations, infos2 = envs.step(bad)
    # As the single environment: a loss, the game ended, the observation kept.
    assert rewards[1] == -1 and terminations[1] and not truncations[1]
    assert infos2["illegal_action"].tolist() == [False, True, False, False]
    assert infos2["legal_actions"][1] == np.flatnonzero(infos["action_mask"][1]).tolist()
    np.testing.assert_array_equal(obs[1], envs.reset(seed=[5, 6, 7, 8])[0][1])
    with pytest.raises(ValueError, match=r"actions must have shape \(4,\)"):
        envs.step(bad[:2])


def step_both_with(ours, theirs, steps, pick, until=None):
    """Steps both environments with the actions `pick(infos)` gives, comparing everything at
    every step; stops early when `until(result)` holds. Returns the steps' results."""
    obs, infos = ours.reset(seed=3)
    obs2, infos2 = theirs.reset(seed=3)
    assert data_equivalence(obs, obs2) and data_equivalence(infos, infos2)
    results = []
    for _ in range(steps):
        actions = pick(infos)
        got = ours.step(actions)
        want = theirs.step(actions)
        for name, x, y in zip(["obs", "rewards", "terminations", "truncations", "infos"], got, want):
            assert data_equivalence(x, y), f"{name} differ: {x} against {y}"
        infos = got[4]
        results.append(got)
        if until is not None and until(got):
            break
    return results


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_reset_right_after_a_game_ended_plays_the_next_game(mode):
    """Issue #48 item 14: reset() without a seed at the step that ended a game plays that
    environment's next game (g + 1), as SyncVectorEnv of single environments does (the vector
    environment played g + 2 in NEXT_STEP mode, and the two parted)."""
    config = {"rules": "appfreegame", "players": 2, "opponents": ["greedy"]}
    n = 3
    ours = AeroplaneVectorEnv(n, autoreset_mode=mode, **config)
    theirs = SyncVectorEnv([lambda: AeroplaneEnv(**config) for _ in range(n)], autoreset_mode=mode)
    rng = np.random.default_rng(1)
    for _ in range(3):
        results = step_both_with(ours, theirs, 2000, lambda infos: ours.sample_actions(infos["action_mask"], rng),
                                 until=lambda got: bool(got[2].any() or got[3].any()))
        ended = results[-1][2] | results[-1][3]
        assert ended.any()
        obs, infos = ours.reset()
        obs2, infos2 = theirs.reset()
        assert data_equivalence(obs, obs2) and data_equivalence(infos, infos2)
        games = results[-1][4]["game"]
        if mode == AutoresetMode.NEXT_STEP:
            # The ended game is what the step showed: the next one is one further.
            assert infos["game"].tolist() == (games + 1).tolist()
        # Both play on alike from there.
        for _ in range(40):
            actions = ours.sample_actions(infos["action_mask"], rng)
            got, want = ours.step(actions), theirs.step(actions)
            for x, y in zip(got, want):
                assert data_equivalence(x, y)
            infos = got[4]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("share", [1.0, 0.05])
def test_unmasked_actions_lose_as_in_the_single_environment(mode, share):
    """Issue #48 item 17: Gymnasium's own loop with unmasked actions (action_space.sample())
    runs on the vector environment: an illegal action loses that environment's game (reward
    -1, terminated, infos illegal_action and legal_actions) exactly as SyncVectorEnv of
    AeroplaneEnv scores it, step for step in both autoreset modes; share 0.05 mixes illegal
    actions with games played to their end in the same steps."""
    config = {"rules": "classic", "players": 4, "opponents": ["random", "greedy", "random"],
              "rotate_seats": True}
    n = 6
    ours = AeroplaneVectorEnv(n, autoreset_mode=mode, **config)
    theirs = SyncVectorEnv([lambda: AeroplaneEnv(**config) for _ in range(n)], autoreset_mode=mode)
    ours.action_space.seed(5)
    rng = np.random.default_rng(5)

    def pick(infos):
        unmasked = ours.action_space.sample()
        return np.where(rng.random(n) < share, unmasked, ours.sample_actions(infos["action_mask"], rng))

    results = step_both_with(ours, theirs, 300 if share == 1.0 else 1500, pick)
    illegal = sum(int(r[4].get("_illegal_action", np.zeros(n, bool)).sum()) for r in results)
    if mode == AutoresetMode.SAME_STEP:
        illegal = sum(int(r[4]["final_info"].get("_illegal_action", np.zeros(n, bool)).sum())
                      for r in results if "final_info" in r[4])
    won = sum(int((r[1] == 1).sum()) for r in results)
    assert illegal > 20 and (share == 1.0 or won > 3), (illegal, won)
    obs, infos = ours.reset()
    obs2, infos2 = theirs.reset()
    assert data_equivalence(obs, obs2) and data_equivalence(infos, infos2)
