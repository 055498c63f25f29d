"""aeroplane.Game: the state API against the runner's fast path on seeded games, the node
invariants, the notation, copying and pickling, and bad input."""

from __future__ import annotations

import copy
import csv
import json
import pickle
import random

import numpy as np
import pytest

import aeroplane
from aeroplane import CHANCE, TERMINAL, Game, SeededDice, bot_seed
from aeroplane.bots import Bot

from conftest import run_cli


def play(rules: str, lineup: list[str], seed: int, index: int, log: list | None = None) -> Game:
    """Game `index` of `aeroplane run --seed seed` (no rotation), through the state API: the
    same dice streams and bot seeds, bots asked only with two or more legal actions."""
    game = Game(rules, len(lineup))
    bots = [Bot(name) for name in lineup]
    for k, seat in enumerate(game.seats):
        bots[k].new_game(seat, bot_seed(seed, index, seat))
    dice = SeededDice(seed, index)
    while not game.is_terminal():
        assert game.current_player() == CHANCE
        seat = game.to_move
        face = dice.roll(seat)
        before = game.clone()
        game.apply_roll(face)
        if game.is_chance_node() or game.is_terminal():
            if log is not None:
                log.append((seat, face, "pass"))
            continue
        assert game.current_player() == seat and game.pending_roll == face
        action = bots[game.player_of(seat)].choose(game)
        if log is not None:
            log.append((seat, face, game.action_to_string(action).split(" ", 1)[1]))
        game.apply_action(action)
        assert before != game
    return game


@pytest.mark.parametrize(
    "rules, bots",
    [
        ("appfreegame", "greedy,random,random,random"),
        ("classic", "random,greedy,random"),
        ("chinese", "random,random"),
        ("classic", "random,random,random,random"),
    ],
)
def test_state_api_plays_the_runners_games(cli, tmp_path, rules, bots):
    out = tmp_path / "run"
    run_cli(cli, "run", "--rules", rules, "--bots", bots, "--games", "60", "--seed", "11",
            "--per-game", "--out", str(out), "-q")
    rows = list(csv.DictReader(open(out / "games.csv")))
    lineup = bots.split(",")
    for row in rows:
        g = play(rules, lineup, 11, int(row["game"]))
        assert g.status == ("unfinished" if row["unfinished"] == "1" else "finished")
        assert str(g.winner if g.winner is not None else "") == row["winner_seat"]
        assert str(g.turns) == row["turns"]
        for seat in g.seats:
            rank = g.rank(seat)
            assert row[f"rank_seat{seat}"] == ("" if rank is None else str(rank))


@pytest.mark.parametrize("rules", ["appfreegame", "classic", "chinese"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_move_log_matches_replay(cli, rules, players):
    lineup = ["greedy", "random", "greedy", "random"][:players]
    for index in (0, 7):
        p = run_cli(cli, "replay", "--rules", rules, "--bots", ",".join(lineup), "--seed", "5",
                    "--game", str(index), "--json")
        replay = json.loads(p.stdout)
        log: list = []
        g = play(rules, lineup, 5, index, log)
        expected = [(e["seat"], e["roll"], e["action"]) for e in replay["log"]]
        # Penalised third sixes are played at once, like passes.
        ours = [(s, r, a) for s, r, a in log]
        assert [x[:2] for x in ours] == [x[:2] for x in expected]
        for mine, theirs in zip(ours, expected):
            if mine[2] != "pass":
                assert mine[2] == theirs[2]
            else:
                assert theirs[2] in ("pass", "penalty") or theirs[2].startswith("penalty")
        record = replay["record"]
        assert g.turns == record["turns"]
        for r in record["ranks"]:
            assert g.steps(r["seat"]) == r["steps"]
            assert g.rank(r["seat"]) == r["rank"]


def random_positions(count: int, seed: int = 1):
    """Positions met in random games of every preset and player count."""
    rng = random.Random(seed)
    for i in range(count):
        rules = ["appfreegame", "classic", "chinese"][i % 3]
        game = Game(rules, 2 + i % 3)
        while not game.is_terminal():
            yield game
            if game.is_chance_node():
                game.apply_roll(rng.randint(1, 6))
            else:
                game.apply_action(rng.choice(game.legal_actions()))
        yield game


def test_nodes_actions_returns_observations():
    terminal = 0
    for game in random_positions(30):
        p = game.current_player()
        mask = game.legal_actions_mask()
        assert mask.dtype == np.bool_ and mask.shape == (8,)
        assert list(np.flatnonzero(mask)) == game.legal_actions()
        if p == CHANCE:
            assert game.is_chance_node() and game.legal_actions() == []
            assert game.chance_outcomes() == [(f, 1 / 6) for f in range(1, 7)]
            assert game.pending_roll is None
        elif p == TERMINAL:
            terminal += 1
            assert game.is_terminal() and game.chance_outcomes() == []
            assert abs(sum(game.returns())) < 1e-12
            assert max(game.returns()) <= 1 and min(game.returns()) >= -1
        else:
            assert p == game.to_move and p in game.seats
            assert game.legal_actions() == sorted(game.legal_actions()) != []
            assert all(0 <= a < 8 for a in game.legal_actions())
            assert game.returns() == [0.0] * 4
        for seat in game.seats:
            obs = game.observation(seat)
            assert obs.dtype == np.float32 and obs.shape == (aeroplane.OBSERVATION_LEN,)
            assert 0 <= obs.min() and obs.max() <= 1
            assert obs[144 + 0] == 1.0  # the observer is in play, first
            assert game.observation_string(seat).startswith(f"observer {seat}:")
        np.testing.assert_array_equal(game.observation(), game.observation(game.to_move))
    assert terminal == 30


def test_notation_copies_and_pickles():
    for i, game in enumerate(random_positions(6, seed=2)):
        if i % 7:
            continue
        text = str(game)
        back = Game.from_notation(text, game.rules)
        assert back == game and str(back) == text and hash(back) == hash(game)
        assert pickle.loads(pickle.dumps(game)) == game
        assert copy.copy(game) == game and copy.deepcopy(game) == game
        c = game.clone()
        if not c.is_terminal():
            if c.is_chance_node():
                c.apply_roll(6)
            else:
                c.apply_action(c.legal_actions()[0])
            assert str(game) == text  # the original is untouched
    g = Game.from_notation("h,h,12,57/-/0,3,h,h/- 2 6 1 0 0 - 17")
    assert g.legal_actions() == [0, 1, 2] and g.current_player() == 2 and g.pending_roll == 6
    assert g.steps(0) == [-1, -1, 12, 57] and g.players == 2 and g.seats == [0, 2]
    assert g.player_of(2) == 1 and g.seat_of(1) == 2
    assert g.action_to_string(0) == "p0 0" and g.action_to_string(2) == "p2 launch"
    assert "Game.from_notation" in repr(g)


def test_rollout_plays_to_the_end_from_a_copy():
    g = Game("classic", 3)
    before = str(g)
    r = g.rollout(7)
    assert str(g) == before
    assert r == g.rollout(7) and abs(sum(r)) < 1e-12 and max(r) == 1.0
    assert g.rollout(7, "greedy") == g.rollout(7, "greedy")
    g.apply_roll(6)
    assert abs(sum(g.rollout(1))) < 1e-12
    with pytest.raises(ValueError, match="random.*greedy"):
        g.rollout(1, "clever")


def test_bad_input_raises_value_and_type_errors():
    g = Game("appfreegame", 2)
    with pytest.raises(ValueError, match="the die must be rolled first"):
        g.apply_action(0)
    with pytest.raises(ValueError, match="1 to 6"):
        g.apply_roll(7)
    with pytest.raises(ValueError, match="1 to 6"):
        g.apply_roll(-1)
    with pytest.raises(TypeError, match="face must be an integer"):
        g.apply_roll("6")
    g.apply_roll(6)
    with pytest.raises(ValueError, match="choose an action first"):
        g.apply_roll(3)
    with pytest.raises(ValueError, match="action 1 is not legal here: legal actions are 0"):
        g.apply_action(1)
    for bad in (-1, 8, 2**70):
        with pytest.raises(ValueError):
            g.apply_action(bad)
    with pytest.raises(TypeError, match="action must be an integer, not float"):
        g.apply_action(0.0)
    with pytest.raises(TypeError, match="not bool"):
        g.apply_action(False)
    g.apply_action(np.int64(0))  # numpy integers are integers
    with pytest.raises(ValueError, match="seat 1 is not in play: the seats of a 2-player game are 0, 2"):
        g.observation(1)
    with pytest.raises(ValueError, match="seat 9"):
        g.steps(9)
    with pytest.raises(ValueError, match="player 2 is not in the game"):
        g.seat_of(2)
    with pytest.raises(ValueError, match="players must be 2, 3 or 4"):
        Game("classic", 5)
    with pytest.raises(ValueError, match="turns: `x` is not a count of turns"):
        Game.from_notation("h,h,h,h/-/h,h,h,h/- 0 - 0 - - - x")
    with pytest.raises(ValueError):
        Game.from_notation("nonsense")
    with pytest.raises(ValueError, match="action 9 is not an action id"):
        g.action_to_string(9)
    with pytest.raises(ValueError, match="seat 4 is not a seat"):
        SeededDice(1, 0).roll(4)
    with pytest.raises(ValueError, match="seed -1 is out of range"):
        SeededDice(-1, 0)
    with pytest.raises(TypeError, match="game must be an integer"):
        bot_seed(1, "0", 0)
    assert SeededDice(2**64 - 1, 5).roll(3) in range(1, 7)
    over = Game.from_notation("57,57,57,57/-/h,h,h,h/- 0 - 0 - - 0,2 40")
    assert over.is_terminal() and over.returns()[0] == 1.0
    with pytest.raises(ValueError, match="the game is over"):
        over.apply_roll(3)


def test_no_input_panics():
    """Random junk into every method gives ValueError or TypeError, never a panic."""
    rng = random.Random(3)
    junk = [None, -1, 0, 1, 6, 7, 255, 2**64, -(2**70), 1.5, "1", "", b"x", [], [1], {}, True, object()]
    names = ["apply_roll", "apply_action", "action_to_string", "observation", "observation_string",
             "rank", "steps", "player_of", "seat_of", "rollout"]
    for game in random_positions(3, seed=4):
        if rng.random() > 0.05:
            continue
        for name in names:
            for value in junk:
                g = game.clone()
                try:
                    getattr(g, name)(value)
                except (ValueError, TypeError):
                    pass
