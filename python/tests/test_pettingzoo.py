"""The PettingZoo AEC environment: PettingZoo's API and seed tests on every preset and player
count, the die and the rewards, rendering, illegal actions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="pettingzoo is an optional extra")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import aeroplane  # noqa: E402
from aeroplane.pettingzoo import env, raw_env  # noqa: E402


@pytest.mark.parametrize("rules", ["appfreegame", "classic", "chinese"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_api_and_seed_tests(rules, players):
    with warnings.catch_warnings():
        # PettingZoo warns about every Dict observation with an action mask (its own classic
        # environments get the same warnings).
        warnings.simplefilter("ignore")
        api_test(env(rules=rules, players=players), num_cycles=1000)
        seed_test(lambda: env(rules=rules, players=players), num_cycles=1000)


def play(e, seed, policy):
    e.reset(seed=seed)
    trace = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            trace.append((agent, reward, terminated, truncated))
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        action = policy(agent, mask)
        trace.append((agent, action))
        e.step(action)
    return trace


def test_the_game_is_the_seeded_game_of_the_command_line():
    """reset(seed=s) plays game 0 of seed s: the same rolls as SeededDice(s, 0), and
    rewards by the returns; the next reset plays game 1."""
    e = raw_env(rules="classic", players=3)
    e.reset(seed=5)
    game = aeroplane.Game("classic", 3)
    dice = aeroplane.SeededDice(5, 0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            assert reward == game.returns()[game.seat_of(int(agent[-1]))]
            e.step(None)
            continue
        while game.is_chance_node():
            dice.roll_for(game)
        assert agent == f"player_{game.player_of(game.to_move)}"
        np.testing.assert_array_equal(obs["observation"], game.observation(game.to_move))
        action = game.legal_actions()[-1]
        game.apply_action(action)
        e.step(action)
    assert e.agents == []
    first = play(raw_env(), 8, lambda a, m: int(np.flatnonzero(m)[0]))
    second_env = raw_env()
    second_env.reset(seed=8)
    second_env.reset()
    assert second_env._game_index == 1
    assert play(raw_env(), 8, lambda a, m: int(np.flatnonzero(m)[0])) == first


def test_extra_turns_select_the_same_agent_again():
    e = raw_env(players=2)
    e.reset(seed=1)
    repeats = 0
    previous = None
    for agent in e.agent_iter(max_iter=3000):
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        repeats += agent == previous
        previous = agent
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert repeats > 0


def test_truncation_by_max_turns_and_render():
    e = raw_env(rules=aeroplane.Rules(max_turns=6), players=4, render_mode="ansi")
    trace = play(e, 2, lambda a, m: int(np.flatnonzero(m)[0]))
    ends = [t for t in trace if len(t) == 4]
    assert len(ends) == 4 and all(t[3] and not t[2] for t in ends)
    assert all(t[1] == 0 for t in ends)  # nobody finished: every return is 0
    text = e.render()
    assert "game over (unfinished) after 6 turns" in text and "player_3 (green, seat 3)" in text
    e.reset(seed=1)
    assert "to move, rolled" in e.render()
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")


def test_illegal_actions():
    e = raw_env(players=2)
    e.reset(seed=3)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=f"action {illegal} is not legal here"):
        e.step(illegal)
    wrapped = env(players=2)
    wrapped.reset(seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    agent = wrapped.agent_selection
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -1 or min(wrapped.rewards.values()) == -1
