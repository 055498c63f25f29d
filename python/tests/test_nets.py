"""aeroplane.nets: a net written in numpy with safetensors plays as the native ``td`` bot (in
``aeroplane.run`` and as a VecEnv opponent), whose ply-0 choice is the numpy forward pass's."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest
from safetensors.numpy import load_file

import aeroplane
from aeroplane import nets
from conftest import REPO



def random_net(rules: str, players: int, hidden: int = 12, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    n = nets.inputs(rules, players)
    return [rng.normal(0, 0.5, (n, hidden)).astype(np.float32),
            rng.normal(0, 0.1, hidden).astype(np.float32),
            rng.normal(0, 0.5, (players, hidden)).astype(np.float32),
            rng.normal(0, 0.1, players).astype(np.float32)]


def test_inputs_and_features():
    assert aeroplane._native.TDG_ENCODING == ("tdg", 1)
    assert nets.inputs("classic", 4) > nets.inputs("classic", 2)
    g = aeroplane.Game("classic", 2)
    f = nets.features(g, 0)
    assert f.dtype == np.int64 and (np.diff(f) > 0).all() and f.max() < nets.inputs("classic", 2)
    # Seen from the other seat, the same position starts with the same blocks (both in the
    # hangar) but another seat rolls next.
    assert not np.array_equal(f, nets.features(g, 2))
    with pytest.raises(ValueError, match="not in play"):
        nets.features(g, 1)


def test_saved_file_has_the_format_and_checksum(tmp_path):
    w = random_net("classic", 2)
    path = tmp_path / "n.safetensors"
    nets.save_net(path, *w, rules="classic", players=2, metadata={"trainer": "test"})
    t, meta = nets.load_net(path)
    for name, a in zip(("w1", "b1", "w2", "b2"), w):
        assert np.array_equal(t[name], a) and np.array_equal(load_file(str(path))[name], a)
    assert meta["format"] == "aeroplane-td-net" and meta["encoding"] == "tdg"
    assert meta["inputs"] == str(w[0].shape[0]) and meta["outputs"] == "2" and meta["trainer"] == "test"
    assert json.loads(meta["rules"]) == json.loads(aeroplane._native._rules_json("classic"))
    data = b"".join(a.astype("<f4").tobytes() for a in w)
    assert meta["checksum"] == f"{nets.fnv1a64(data):016x}"
    with pytest.raises(ValueError, match=r"w2 has shape \[3, 12\]"):
        nets.save_net(path, w[0], w[1], np.zeros((3, 12)), w[3], rules="classic", players=2)
    with pytest.raises(ValueError, match="format's own"):
        nets.save_net(path, *w, rules="classic", players=2, metadata={"checksum": "0"})


def positions(rules: str, players: int, count: int, seed: int) -> list[aeroplane.Game]:
    """Decision nodes with two or more legal actions, from random play."""
    rng = np.random.default_rng(seed)
    out: list[aeroplane.Game] = []
    while len(out) < count:
        g = aeroplane.Game(rules, players)
        while not g.is_terminal() and len(out) < count:
            if g.is_chance_node():
                g.apply_roll(int(rng.integers(1, 7)))
                continue
            a = g.legal_actions()
            if len(a) > 1 and rng.random() < 0.3:
                out.append(g.clone())
            g.apply_action(a[int(rng.integers(len(a)))])
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_native_choice_is_the_numpy_forward_pass(tmp_path, players):
    w = random_net("classic", players, seed=players)
    path = tmp_path / "n.safetensors"
    nets.save_net(path, *w, rules="classic", players=players)
    bot = aeroplane.bots.load(f"td:net={path}:ply=0")
    distinct = 0
    for game in positions("classic", players, 60, seed=players):
        seat = game.to_move
        values = []
        for a in game.legal_actions():
            g = game.clone()
            g.apply_action(a)
            values.append(nets.value(w[0], w[1], w[2], w[3], g, seat))
        bot.new_game(seat, 0)
        choice = bot.choose(game)
        best = max(values)
        # The bot's move is one the numpy pass values best (ties: the engine's first).
        assert values[game.legal_actions().index(choice)] >= best - 1e-5, (str(game), values, choice)
        distinct += sorted(values)[-2] < best - 1e-3
    assert distinct > 20  # most positions have one best move: the test can tell moves apart


def test_numpy_net_plays_in_run_and_as_vecenv_opponent(tmp_path):
    w = random_net("classic", 2)
    path = tmp_path / "n.safetensors"
    nets.save_net(path, *w, rules="classic", players=2)
    report = aeroplane.run([f"td:net={path}", "random"], rules="classic", games=20,
                           seed=3, rotate_seats=True)
    assert report["report"]["summary"]["bots"][0]["counts"]["games"] == 40  # 20 deals, seats rotated
    env = aeroplane.VecEnv(8, "classic", 2, seed=1, opponents=[f"td:net={path}"])
    obs, mask = env.reset()
    rng = np.random.default_rng(0)
    done = 0
    for _ in range(400):
        obs, rewards, terminated, mask = env.step((rng.random(mask.shape) * mask).argmax(1))
        done += int(terminated.sum())
    assert done > 0 and env.opponents == [f"td:net={path}"]


def test_net_of_another_player_count_is_refused(tmp_path):
    w = random_net("classic", 2)
    path = tmp_path / "n.safetensors"
    nets.save_net(path, *w, rules="classic", players=2)
    with pytest.raises(Exception, match="the net is for 2 players, the game has 4"):
        aeroplane.run([f"td:net={path}", "random", "random", "random"], rules="classic",
                      games=2, seed=1)
    with pytest.raises(Exception, match="the net is for 2 players, the game has 4"):
        env = aeroplane.VecEnv(2, "classic", 4, seed=1, opponents=[f"td:net={path}"] * 3)
        env.reset()


def net_doc_blocks() -> list[str]:
    text = (REPO / "docs" / "NET.md").read_text()
    start = text.index("## From Python")
    return re.findall(r"```python\n(.*?)```", text[start:text.index("\n## ", start + 1)], re.S)


@pytest.mark.parametrize("index", range(len(net_doc_blocks())))
def test_net_doc_python_blocks_run(tmp_path, index):
    code = net_doc_blocks()[index]
    if "import torch" in code:
        pytest.importorskip("torch", reason="the PyTorch block runs where torch is installed")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / ("torch-net.safetensors" if "torch" in code else "net.safetensors")).exists()


def test_decided_value_is_the_seats_return_at_the_end(tmp_path):
    """Issue #48 item 13: a finished game's value for a seat is that seat's return (returns()
    is indexed by seat), for every seat in play, as the native Net.value gives it; seat 2 of a
    two-player game was read as player 1 and got 0.0."""
    g = aeroplane.Game.from_notation("h,h,h,h/-/56,56,56,55/- 2 1 0 - - - 40", rules="classic")
    g.apply_action(3)
    assert g.is_terminal() and g.returns() == [-1.0, 0.0, 1.0, 0.0]
    w = random_net("classic", 2)
    assert nets.decided_value(g, 2) == 1.0 and nets.decided_value(g, 0) == -1.0
    assert nets.value(*w, g, 2) == 1.0 and nets.value(*w, g, 0) == -1.0
    rng = np.random.default_rng(13)
    for players in (2, 3, 4):
        w = random_net("classic", players, seed=players)
        path = tmp_path / f"n{players}.safetensors"
        nets.save_net(path, *w, rules="classic", players=players)
        net = nets.load(path)
        for _ in range(3):
            game = aeroplane.Game("classic", players)
            while not game.is_terminal():
                if game.is_chance_node():
                    game.apply_roll(int(rng.integers(1, 7)))
                else:
                    acts = game.legal_actions()
                    game.apply_action(acts[int(rng.integers(len(acts)))])
            want = [game.returns()[s] for s in game.seats]
            assert sorted(want) != [0.0] * players
            assert [nets.decided_value(game, s) for s in game.seats] == want
            assert [nets.value(*w, game, s) for s in game.seats] == want
            assert net.value(game) == pytest.approx(want)


def bad_net_files(tmp_path, good) -> dict[str, str]:
    """Net files the td bot must refuse: missing, empty, not safetensors, cut, a flipped weight
    (checksum), a folder."""
    data = good.read_bytes()
    files = {"missing": str(tmp_path / "no-such.safetensors"), "folder": str(tmp_path)}
    for name, content in [("empty", b""), ("garbage", b"not a net at all\n" * 20),
                          ("cut", data[: len(data) // 2]),
                          ("flipped", data[:-9] + bytes([data[-9] ^ 0x40]) + data[-8:])]:
        p = tmp_path / f"{name}.safetensors"
        p.write_bytes(content)
        files[name] = str(p)
    return files


def test_td_bot_refuses_a_bad_net_file_at_load(tmp_path):
    """Issue #48 item 15: bots.load("td:net=FILE") refuses a missing or broken file when it
    loads, with nets.load's ValueError naming the file (not a RuntimeError at the first
    choice); a good file loads."""
    w = random_net("classic", 2)
    good = tmp_path / "good.safetensors"
    nets.save_net(good, *w, rules="classic", players=2)
    assert aeroplane.bots.load(f"td:net={good}").kind == "td"
    for name, path in bad_net_files(tmp_path, good).items():
        with pytest.raises(ValueError) as want:
            nets.load(path)
        with pytest.raises(ValueError, match=re.escape(path)) as got:
            aeroplane.bots.load(f"td:net={path}")
        assert str(want.value) in str(got.value), name
        with pytest.raises(ValueError, match=re.escape(path)):
            aeroplane.bots.Bot(f"td:net={path}:ply=1")
