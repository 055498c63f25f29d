"""docs/read_log.py with the package installed: a decision log written by `aeroplane run
--log-games` loads into (observation, action) pairs whose observations are the engine's, and the
compressed and plain logs read the same."""

from __future__ import annotations

import importlib.util
import json
import shutil

import numpy as np
import pytest

import aeroplane
from conftest import REPO, run_cli


def reader():
    spec = importlib.util.spec_from_file_location("read_log", REPO / "docs" / "read_log.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def logs(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("logs")
    for name in ("games.jsonl.zst", "games.jsonl"):
        folder = out / name.replace(".", "-")
        run_cli(cli, "run", "--rules", "classic", "--bots", "expectimax:depth=1,greedy,random",
                "--games", "4", "--rotate-seats", "-q", "--out", str(folder), "--log-games", name)
        (out / name).write_bytes((folder / name).read_bytes())
    return out


def test_pairs_carry_the_engines_observations(logs):
    if shutil.which("zstd") is None and importlib.util.find_spec("zstandard") is None:
        pytest.skip("reading .zst needs the zstandard package or the zstd command")
    read_log = reader()
    plain = read_log.load_pairs(str(logs / "games.jsonl"))
    packed = read_log.load_pairs(str(logs / "games.jsonl.zst"))
    assert len(plain) == len(packed) > 100
    header, lines = read_log.read_log(str(logs / "games.jsonl"))
    rules = aeroplane.Rules(**header["rules"])
    assert rules == aeroplane.Rules("classic")
    decisions = [line for line in lines if "action" in line]
    for (observation, action), (observation2, action2), line in zip(plain, packed, decisions):
        assert action == action2 == line["action"]
        assert observation.shape == (aeroplane.OBSERVATION_LEN,)
        np.testing.assert_array_equal(observation, observation2)
        game = aeroplane.Game.from_notation(line["position"], rules)
        np.testing.assert_array_equal(observation, game.observation())
        assert game.legal_actions() == line["legal"]
        assert line["action"] in game.legal_actions()


def test_parsed_positions_without_the_engine(logs):
    read_log = reader()
    pairs = read_log.load_pairs(str(logs / "games.jsonl"), engine=False)
    header, lines = read_log.read_log(str(logs / "games.jsonl"))
    for (position, action), line in zip(pairs, (l for l in lines if "action" in l)):
        game = aeroplane.Game.from_notation(line["position"], aeroplane.Rules(**header["rules"]))
        assert position["to_move"] == game.to_move == line["seat"]
        assert position["roll"] == game.pending_roll == line["roll"]
        for seat in game.seats:
            assert position["steps"][seat] == game.steps(seat)
        assert json.dumps(position)  # plain numbers only
