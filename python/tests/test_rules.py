"""aeroplane.Rules: presets, options by keyword, variant files, errors, pickling."""

from __future__ import annotations

import copy
import pickle

import pytest

import aeroplane
from aeroplane import Rules


def test_presets_match_the_rules_document():
    assert Rules.PRESETS == ["appfreegame", "classic", "chinese"]
    assert Rules() == Rules.preset("appfreegame")
    c = Rules.preset("classic")
    assert c.launch_rolls == [2, 4, 6]
    assert c.home_lane_cells == 5
    assert c.flight_optional is True
    assert c.stacking == "move_together"
    assert c.end == "full_ranking"
    assert c.centre == 56
    assert Rules.preset("chinese").overshoot == "bounce"
    assert Rules.OPTIONS[0] == "launch_rolls" and Rules.OPTIONS[-1] == "planes"


def test_options_by_keyword_and_replace():
    r = Rules("classic", overshoot="bounce", launch_rolls=[5, 6], max_turns=50, planes=2,
              flight_optional=False)
    assert (r.overshoot, r.launch_rolls, r.max_turns, r.planes, r.flight_optional) == (
        "bounce", [5, 6], 50, 2, False)
    assert r.name == "classic (overshoot=bounce, launch_rolls=[5,6], max_turns=50, planes=2, flight_optional=false)"
    assert r.replace(overshoot="illegal").overshoot == "illegal"
    assert r.to_dict()["launch_rolls"] == [5, 6]
    assert Rules.preset("chinese", three_sixes="all_moved").three_sixes == "all_moved"


def test_toml_round_trip_and_files(in_repo, tmp_path):
    r = Rules("classic", overshoot="bounce")
    assert Rules.from_toml_str(r.to_toml()) == r
    assert Rules.from_toml("configs/classic-bounce.toml") == r
    assert Rules.load("configs/classic-bounce.toml") == r
    assert Rules.load("chinese") == Rules.preset("chinese")
    f = tmp_path / "v.toml"
    f.write_text('base = "chinese"\nmax_turns = 77\n')
    assert Rules.from_toml(f).max_turns == 77


def test_pickle_copy_hash():
    r = Rules("classic", overshoot="bounce")
    assert pickle.loads(pickle.dumps(r)) == r
    assert pickle.loads(pickle.dumps(r)).name == r.name
    assert copy.deepcopy(r) == r
    assert len({r, Rules("classic", overshoot="bounce"), Rules()}) == 2
    assert "overshoot=bounce" in repr(r)


@pytest.mark.parametrize(
    "options, error, words",
    [
        ({"overshot": "bounce"}, TypeError, ["unknown rules option `overshot`", "overshoot"]),
        ({"colour": 1}, TypeError, ["unknown rules option", "launch_rolls", "planes"]),
        ({"overshoot": "sideways"}, ValueError, ["overshoot", "illegal, bounce"]),
        ({"overshoot": 3}, TypeError, ["overshoot", "illegal, bounce"]),
        ({"home_lane_cells": 9}, ValueError, ["home_lane_cells", "3 to 8"]),
        ({"home_lane_cells": "5"}, TypeError, ["home_lane_cells", "an integer"]),
        ({"planes": True}, TypeError, ["planes"]),
        ({"flight_optional": 1}, TypeError, ["flight_optional", "True or False"]),
        ({"launch_rolls": [7]}, ValueError, ["launch_rolls", "1..=6"]),
        ({"launch_rolls": []}, ValueError, ["launch_rolls", "non-empty"]),
        ({"launch_rolls": "6"}, TypeError, ["launch_rolls", "list"]),
        ({"max_turns": 0}, ValueError, ["max_turns"]),
        ({"max_turns": 2**70}, ValueError, ["max_turns"]),
    ],
)
def test_bad_options_name_what_is_allowed(options, error, words):
    with pytest.raises(error) as e:
        Rules(**options)
    for w in words:
        assert w in str(e.value)


def test_bad_presets_and_files(tmp_path):
    with pytest.raises(ValueError, match="unknown rules preset `clasic`.*classic"):
        Rules.preset("clasic")
    with pytest.raises(ValueError, match="unknown rules preset"):
        Rules.load("nonesuch")
    with pytest.raises(FileNotFoundError, match="missing.toml"):
        Rules.from_toml(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('base = "classic"\novershoot = "sideways"\n')
    with pytest.raises(ValueError, match="(?s)bad.toml.*sideways.*illegal"):
        Rules.from_toml(bad)
    empty = tmp_path / "empty.toml"
    empty.write_text("# nothing\n")
    with pytest.raises(ValueError, match="sets no option"):
        Rules.from_toml(empty)
    with pytest.raises(TypeError, match="rules must be"):
        aeroplane.Game(rules=3)
