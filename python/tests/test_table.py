"""`aeroplane.Table`: a solved table's value of a position (issue 31, item 26), against the
command line's `solve --value` and the solve's own record."""

from __future__ import annotations

import json
import subprocess

import pytest

import aeroplane


@pytest.fixture(scope="module")
def table(cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("t") / "classic-1"
    subprocess.run([str(cli), "solve", "--rules", "classic", "--planes", "1", "-q", "--out", str(out)],
                   check=True, capture_output=True)
    return out


def test_the_start_has_the_solved_first_player_value(table, cli):
    t = aeroplane.Table(table)
    record = json.loads((table / "solve.json").read_text())
    rules = aeroplane.Rules.from_toml(table / "rules.toml")
    game = aeroplane.Game(rules, 2)
    assert t.value(game) == pytest.approx(record["results"]["first_player_equity"], abs=1e-12)
    assert t.win_probability(game) == pytest.approx(
        record["results"]["first_player_win_probability"], abs=1e-12)
    assert t.move_values(game) == []
    assert t.checksum == record["results"]["table"]["checksum"]
    # The command line gives the same value.
    p = subprocess.run([str(cli), "solve", "--table", str(table), "--value", str(game)],
                       check=True, capture_output=True, text=True)
    assert f"{t.value(game):+.12f}" in p.stdout


def test_a_decision_node_values_every_move(table):
    t = aeroplane.Table(table)
    rules = aeroplane.Rules.from_toml(table / "rules.toml")
    game = aeroplane.Game(rules, 2)
    # Roll until the first decision with two or more legal actions.
    seed = 0
    while True:
        while game.is_chance_node():
            game.apply_roll(6 if seed % 3 == 0 else 1 + seed % 6)
            seed += 1
        if game.is_terminal():
            pytest.skip("no decision in this game")
        if len(game.legal_actions()) >= 2:
            break
        game.apply_action(game.legal_actions()[0])
    moves = t.move_values(game)
    assert len(moves) == len(game.legal_actions())
    assert t.value(game) == max(v for _, v in moves)


def test_bad_input_is_a_clear_error(table, tmp_path):
    with pytest.raises((FileNotFoundError, OSError, ValueError)):
        aeroplane.Table(tmp_path / "nothing")
    with pytest.raises(TypeError, match="aeroplane.Game"):
        aeroplane.Table(table).value(5)  # type: ignore[arg-type]
    other = aeroplane.Game(aeroplane.Rules.load("appfreegame"), 2)
    with pytest.raises(ValueError, match="other rules"):
        aeroplane.Table(table).value(other)
