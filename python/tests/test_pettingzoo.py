"""The PettingZoo AEC environment: PettingZoo's API and seed tests on every preset and player
count, the die and the rewards, rendering, illegal actions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="pettingzoo is an optional extra")

import copy  # noqa: E402
import pickle  # noqa: E402

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

import aeroplane  # noqa: E402
from aeroplane.pettingzoo import env, parallel_env, raw_env  # noqa: E402


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


@pytest.mark.parametrize("rules", ["appfreegame", "classic", "chinese"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_parallel_api_and_seed_tests(rules, players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(parallel_env(rules=rules, players=players), num_cycles=1000)
        parallel_seed_test(lambda: parallel_env(rules=rules, players=players), num_cycles=1000)


def test_parallel_env_plays_the_aec_envs_game():
    """One parallel step is one decision of the agent to move (the only one with a mask and
    `to_move`); the others' actions are ignored. Same seed, same game as the AEC env."""
    aec = play(raw_env(rules="classic", players=3), 6, lambda a, m: int(np.flatnonzero(m)[-1]))
    p = parallel_env(rules="classic", players=3)
    obs, infos = p.reset(seed=6)
    trace = []
    while p.agents:
        movers = [a for a in p.agents if infos[a]["to_move"]]
        assert len(movers) == 1
        mover = movers[0]
        assert all(not obs[a]["action_mask"].any() for a in p.agents if a != mover)
        action = int(np.flatnonzero(obs[mover]["action_mask"])[-1])
        trace.append((mover, action))
        np.testing.assert_array_equal(p.state(), p.game.observation(p.game.seat_of(0)))
        actions = {a: 7 for a in p.agents}  # the others' actions, even illegal ones, are ignored
        actions[mover] = action
        obs, rewards, terminations, truncations, infos = p.step(actions)
    assert trace == [t for t in aec if len(t) == 2]
    assert [(a, rewards[a], terminations[a], truncations[a]) for a in p.possible_agents] == \
        [t for t in aec if len(t) == 4]
    with pytest.raises(RuntimeError, match="the game is over: call reset"):
        p.step({})
    obs, infos = p.reset(seed=6)
    mover = next(a for a in p.agents if infos[a]["to_move"])
    with pytest.raises(ValueError, match=f"{mover} is to move"):
        p.step({a: 0 for a in p.agents if a != mover})
    illegal = int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])
    _, rewards, terminations, _, infos = p.step({mover: illegal})
    assert rewards[mover] == -1 and all(terminations.values()) and p.agents == []
    assert infos[mover]["illegal_action"] == illegal
    assert p.state_space.shape == (aeroplane.OBSERVATION_LEN,)


@pytest.mark.parametrize("make", [raw_env, env, parallel_env])
def test_copy_and_pickle_after_reset(make):
    """Issue #31 item 18: a copy made mid-game (dice included) plays on exactly as the
    original does."""
    e = make(rules="classic", players=4)
    e.reset(seed=9)
    aec = make is not parallel_env

    def advance(x, k):
        moves = []
        for _ in range(k):
            if aec:
                agent = x.agent_selection
                obs, _, term, trunc, _ = x.last()
                action = None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0])
                x.step(action)
            else:
                if not x.agents:
                    break
                obs = {a: x._observe(a) for a in x.agents}
                agent = next(a for a in x.agents if obs[a]["action_mask"].any())
                action = int(np.flatnonzero(obs[agent]["action_mask"])[0])
                x.step({agent: action})
            moves.append((agent, action, str(x.unwrapped.game)))
        return moves

    advance(e, 25)
    copies = [copy.deepcopy(e), pickle.loads(pickle.dumps(e))]
    ahead = advance(copies[0], 40)
    assert advance(copies[1], 40) == ahead
    assert advance(e, 40) == ahead


def test_seeded_dice_copy_and_pickle():
    dice = aeroplane.SeededDice(3, 7)
    rolls = [dice.roll(s % 4) for s in range(9)]
    assert dice.drawn == [3, 2, 2, 2] and dice.seed == 3 and dice.game == 7
    fresh = aeroplane.SeededDice(3, 7)
    assert [fresh.roll(s % 4) for s in range(9)] == rolls
    twins = [copy.deepcopy(dice), pickle.loads(pickle.dumps(dice)), copy.copy(dice)]
    ahead = [dice.roll(s) for s in (0, 1, 1, 3, 2)]
    for twin in twins:
        assert [twin.roll(s) for s in (0, 1, 1, 3, 2)] == ahead
