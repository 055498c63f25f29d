"""aeroplane.read_log: a decision log as numpy arrays, row for row what docs/read_log.py (which
replays each game through aeroplane.Game) gives, and every bad log refused by name."""

from __future__ import annotations

import importlib.util
import json

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
def logged(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("arrays")
    for name in ("games.jsonl.zst", "games.jsonl"):
        run_cli(cli, "run", "--rules", "classic", "--bots", "expectimax:depth=1,greedy,random",
                "--games", "6", "--rotate-seats", "-q", "--out", str(out / name.replace(".", "-")),
                "--log-games", name)
    return out


def test_rows_are_the_engines(logged):
    path = logged / "games-jsonl-zst" / "games.jsonl.zst"
    d = aeroplane.read_log(path)
    header, lines = reader().read_log(str(path))
    lines = list(lines)
    decisions = [line for line in lines if "result" not in line]
    results = {line["game"]: line["result"] for line in lines if "result" in line}
    pairs = reader().load_pairs(str(path))
    n = len(decisions)
    assert n > 100 and len(pairs) == n
    assert d["observation"].shape == (n, 170) and d["observation"].dtype == np.float32
    assert d["header"] == header
    np.testing.assert_array_equal(d["observation"], np.stack([o for o, _ in pairs]))
    np.testing.assert_array_equal(d["action"], [line["action"] for line in decisions])
    np.testing.assert_array_equal(d["seat"], [line["seat"] for line in decisions])
    np.testing.assert_array_equal(d["bot"], [line["bot"] for line in decisions])
    np.testing.assert_array_equal(d["roll"], [line["roll"] for line in decisions])
    np.testing.assert_array_equal(d["game"], [line["game"] for line in decisions])
    for row, line in enumerate(decisions):
        assert np.flatnonzero(d["mask"][row]).tolist() == line["legal"]
        values = line.get("values")
        assert d["has_values"][row] == (values is not None)
        if values is not None:
            for a, v in zip(line["legal"], values):
                assert (np.isnan(d["values"][row, a]) if v is None else d["values"][row, a] == pytest.approx(v))
        result = results[line["game"]]
        rank = result["ranks"][line["seat"]]
        players = header["players"]
        assert d["returns"][row] == pytest.approx((players + 1 - 2 * rank) / (players - 1))
    # Expectimax reports values; greedy and random do not.
    assert d["has_values"][d["bot"] == 0].all() and not d["has_values"][d["bot"] != 0].any()
    plain = aeroplane.read_log(logged / "games-jsonl" / "games.jsonl")
    for key in ("observation", "mask", "action", "seat", "game", "returns"):
        np.testing.assert_array_equal(plain[key], d[key])
    rich = aeroplane.read_log(path, observation="rich")
    assert rich["observation"].shape == (n, aeroplane.RICH_OBSERVATION_LEN)
    np.testing.assert_array_equal(rich["observation"][:, :169], d["observation"][:, :169])


def test_bad_logs_are_refused(logged, tmp_path):
    good = (logged / "games-jsonl" / "games.jsonl").read_text()
    lines = good.splitlines(keepends=True)
    cases = {
        "foreign.jsonl": ("game,seat\n1,2\n", "line 1"),
        "cut.jsonl": ("".join(lines[: len(lines) // 2]), "no result line|the log ends inside game"),
        "half-line.jsonl": (good[: len(good) - 7], "no newline|not a valid|ends inside"),
        "not-json.jsonl": (lines[0] + "[1,2\n", "line 2"),
    }
    other = json.loads(lines[0])
    other["rules"]["overshoot"] = "bounce"
    cases["other-rules.jsonl"] = (json.dumps(other) + "\n" + "".join(lines[1:]), "is not the engine's|offers|legal")
    for name, (text, words) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(ValueError, match=words):
            aeroplane.read_log(path)
    compressed = (logged / "games-jsonl-zst" / "games.jsonl.zst").read_bytes()
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(compressed[: len(compressed) - 100])
    with pytest.raises(ValueError, match="compressed frame|ends inside|no result line"):
        aeroplane.read_log(cut)
    with pytest.raises(FileNotFoundError):
        aeroplane.read_log(tmp_path / "missing.jsonl")
    with pytest.raises(ValueError, match="more than max_decisions = 10"):
        aeroplane.read_log(logged / "games-jsonl" / "games.jsonl", max_decisions=10)
    with pytest.raises(TypeError, match="path must be a path"):
        aeroplane.read_log(5)
