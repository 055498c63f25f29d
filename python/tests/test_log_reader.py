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
    """The same run logged four ways: compressed and plain, with the position on every decision
    line (`k1-`) and on the default key lines only."""
    out = tmp_path_factory.mktemp("logs")
    for every in ("1", None):
        for name in ("games.jsonl.zst", "games.jsonl"):
            stored = ("k1-" if every else "") + name
            folder = out / stored.replace(".", "-")
            extra = ["--log-positions", every] if every else []
            run_cli(cli, "run", "--rules", "classic", "--bots", "expectimax:depth=1,greedy,random",
                    "--games", "4", "--rotate-seats", "-q", "--out", str(folder),
                    "--log-games", name, *extra)
            (out / stored).write_bytes((folder / name).read_bytes())
    return out


def needs_zstd():
    if shutil.which("zstd") is None and importlib.util.find_spec("zstandard") is None:
        pytest.skip("reading .zst needs the zstandard package or the zstd command")


def test_pairs_carry_the_engines_observations(logs):
    needs_zstd()
    read_log = reader()
    plain = read_log.load_pairs(str(logs / "games.jsonl"))
    packed = read_log.load_pairs(str(logs / "games.jsonl.zst"))
    every = read_log.load_pairs(str(logs / "k1-games.jsonl.zst"))
    assert len(plain) == len(packed) == len(every) > 100
    # The log with every position: each observation is the logged position's (not replayed).
    header, lines = read_log.read_log(str(logs / "k1-games.jsonl"))
    assert header["version"] == 2 and header["log_positions"] == 1
    rules = aeroplane.Rules(**header["rules"])
    assert rules == aeroplane.Rules("classic")
    decisions = [line for line in lines if "action" in line]
    for pairs in (plain, packed, every):
        for (observation, action), line in zip(pairs, decisions):
            assert action == line["action"]
            assert observation.shape == (aeroplane.OBSERVATION_LEN,)
            game = aeroplane.Game.from_notation(line["position"], rules)
            np.testing.assert_array_equal(observation, game.observation())
            assert game.legal_actions() == line["legal"]
            assert line["action"] in game.legal_actions()


def test_version_2_lines_read_as_dicts_with_key_positions(logs):
    read_log = reader()
    header, lines = read_log.read_log(str(logs / "games.jsonl"))
    _, every = read_log.read_log(str(logs / "k1-games.jsonl"))
    every = list(every)
    key = header["log_positions"]
    assert key == 32
    n = 0
    for line, full in zip(lines, every):
        if "action" not in line:
            assert line["result"]["winner"] == full["result"]["winner"]
            assert line["position"] == full["position"]
            n = 0
            continue
        assert {k: v for k, v in line.items() if k != "position"} == {
            k: v for k, v in full.items() if k != "position"
        }
        assert ("position" in line) == (n % key == 0)
        if "position" in line:
            assert line["position"] == full["position"]
        n += 1
    # A logged position the engine disagrees with is named with its game and decision.
    text = (logs / "games.jsonl").read_text()
    first = next(l for l in text.splitlines() if l.startswith("[1,"))
    fields = json.loads(first)
    turns = fields[8].rsplit(" ", 1)
    fields[8] = f"{turns[0]} {int(turns[1]) + 1}"
    bad = logs / "bad.jsonl"
    bad.write_text(text.replace(first, json.dumps(fields, separators=(",", ":")), 1))
    with pytest.raises(ValueError, match="game 1, decision 1"):
        read_log.load_pairs(str(bad))


def test_parsed_positions_without_the_engine(logs):
    read_log = reader()
    pairs = read_log.load_pairs(str(logs / "k1-games.jsonl"), engine=False)
    header, lines = read_log.read_log(str(logs / "k1-games.jsonl"))
    for (position, action), line in zip(pairs, (l for l in lines if "action" in l)):
        game = aeroplane.Game.from_notation(line["position"], aeroplane.Rules(**header["rules"]))
        assert position["to_move"] == game.to_move == line["seat"]
        assert position["roll"] == game.pending_roll == line["roll"]
        for seat in game.seats:
            assert position["steps"][seat] == game.steps(seat)
        assert json.dumps(position)  # plain numbers only
    with pytest.raises(ValueError, match="one decision line in 32"):
        read_log.load_pairs(str(logs / "games.jsonl"), engine=False)
