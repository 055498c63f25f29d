"""The OpenSpiel game: registration, pyspiel's own conformance test on every preset and
player count, the observer, and OpenSpiel's MCTS bot playing it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is an optional extra")

import aeroplane  # noqa: E402
import aeroplane.openspiel as ao  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402

ao.register()


@pytest.mark.parametrize("rules", ["appfreegame", "classic", "chinese"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_sim_test(rules, players):
    game = pyspiel.load_game(f"aeroplane(players={players},rules={rules})")
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_and_state_api(in_repo):
    ao.register()  # a second call does nothing
    game = pyspiel.load_game("aeroplane")
    assert game.num_players() == aeroplane.DEFAULT_PLAYERS == 4 and game.num_distinct_actions() == 8
    assert game.max_chance_outcomes() == 6 and game.get_type().short_name == "aeroplane"
    assert game.max_game_length() == 3 * 10_000
    assert game.observation_tensor_size() == aeroplane.OBSERVATION_LEN
    variant = pyspiel.load_game("aeroplane(players=3,rules=configs/classic-bounce.toml)")
    state = variant.new_initial_state()
    assert state.game.rules.overshoot == "bounce" and state.game.players == 3
    assert state.is_chance_node() and state.chance_outcomes() == [(f, 1 / 6) for f in range(6)]
    state.apply_action(5)  # a six
    assert state.current_player() == 0 and state.legal_actions() == [0]
    assert state.action_to_string(0) == "p0 launch"
    state.apply_action(0)
    clone = state.clone()
    assert str(clone) == str(state) and clone.history() == state.history() == [5, 0]
    with pytest.raises(ValueError, match="unknown rules preset"):
        pyspiel.load_game("aeroplane(rules=nonesuch)")
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        pyspiel.load_game("aeroplane(players=5)")


def test_observations_are_the_games():
    game = pyspiel.load_game("aeroplane(players=4,rules=classic)")
    obs = make_observation(game)
    state = game.new_initial_state()
    rng = np.random.RandomState(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.randint(6))
            continue
        for player in range(4):
            obs.set_from(state, player)
            np.testing.assert_array_equal(obs.tensor, state.game.observation(state.game.seat_of(player)))
            assert obs.dict["planes"].shape == (4, 4, 9)
            assert state.observation_string(player).startswith(f"observer {state.game.seat_of(player)}")
            np.testing.assert_array_equal(
                state.observation_tensor(player), state.game.observation(state.game.seat_of(player)))
        state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == pytest.approx(0)
    assert state.information_state_string(0)  # OpenSpiel's observer for public information


def play_match(game, bots_by_player, rng) -> list[float]:
    """One game: chance from `rng`, each player's bot at its decisions (a forced move is played
    without asking)."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        legal = state.legal_actions()
        bot = bots_by_player[state.current_player()]
        state.apply_action(legal[0] if len(legal) == 1 else bot(state))
    return state.returns()


def test_openspiel_mcts_with_its_own_random_rollouts_plays_a_whole_game():
    game = pyspiel.load_game("aeroplane(players=2)")
    rng = np.random.RandomState(3)
    bot = mcts.MCTSBot(game, uct_c=2, max_simulations=3,
                       evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    returns = play_match(game, {0: bot.step, 1: lambda s: rng.choice(s.legal_actions())}, rng)
    assert sorted(returns) == [-1.0, 1.0]


def test_openspiel_mcts_beats_random():
    """OpenSpiel's MCTSBot (its code; random rollouts played in Rust by RolloutEvaluator) wins
    most two-player games against a random player. The seeds are fixed: the result is too."""
    game = pyspiel.load_game("aeroplane(players=2)")
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, uct_c=1, max_simulations=100,
                       evaluator=ao.RolloutEvaluator(1, rng), random_state=rng)
    random_player = lambda s: rng.choice(s.legal_actions())  # noqa: E731
    wins = 0
    games = 40
    for g in range(games):
        mcts_player = g % 2
        players = {mcts_player: bot.step, 1 - mcts_player: random_player}
        wins += play_match(game, players, rng)[mcts_player] > 0
    # Random against random wins half; the greedy bot wins 77% of two-player games against
    # random. These seeds give 30 of 40; 26 of 40 (65%) has a one-sided p-value of 0.04
    # against a fair coin.
    assert wins >= 26, f"MCTS won {wins} of {games}"


def test_a_rules_path_with_openspiels_separators_round_trips(tmp_path):
    """Issue #31 item 20: a rules path with a comma broke serialize_game_and_state."""
    path = tmp_path / "odd, name (v=2) 100%.toml"
    path.write_text((Path(__file__).resolve().parents[2] / "configs" / "classic-bounce.toml").read_text())
    game = pyspiel.load_game("aeroplane", {"players": 3, "rules": str(path)})
    assert game.get_parameters()["rules"] == ao.rules_param(str(path))
    state = game.new_initial_state()
    for action in (5, 0, 2):
        state.apply_action(action)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(state2) == str(state) and state2.game.rules.overshoot == "bounce"
    assert game2.num_players() == 3
    again = pyspiel.load_game(f"aeroplane(players=2,rules={ao.rules_param(str(path))})")
    assert again.new_initial_state().game.rules == state.game.rules


def test_the_python_guide_warns_of_openspiels_cpp_bots():
    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "python.md").read_text()
    assert "pyspiel.MCTSBot" in guide and "segmentation fault" in guide
    assert "segmentation fault" in ao.__doc__
