"""Luck-adjusted results from Python (``aeroplane.run(luck=...)``, docs/LUCK.md) and a loaded
net's ``value(game)``: the same folder as ``aeroplane run --luck``, the luck figures in the
report, nets of other rules or players refused, and ``value`` equal to numpy's forward pass."""

from __future__ import annotations

import json

import numpy as np
import pytest

import aeroplane
from aeroplane import Game, nets

from conftest import run_cli, same_folders

NET = "bots/nets/td-classic-2p.safetensors"
NETS = [NET, "bots/nets/td-chinese-2p.safetensors"]


def test_run_reports_luck_as_the_command_line_does(in_repo, cli, tmp_path):
    args = ["--rules", "classic", "--bots", "greedy,random", "--games", "30", "--rotate-seats"]
    run_cli(cli, "run", *args, "--luck", NET, "--out", str(tmp_path / "cli"), "-q")
    report = aeroplane.run("greedy,random", rules="classic", games=30, rotate_seats=True, luck=NET,
                           out=tmp_path / "py", threads=2)
    same_folders(tmp_path / "cli", tmp_path / "py")
    assert report == json.loads((tmp_path / "py" / "summary.json").read_text())
    luck = report["report"]["luck"]
    assert luck["net"] == NET
    for b in luck["bots"]:
        w = b["win_rate"]
        assert w["adjusted"] == w["plain"] - w["luck"]
        assert w["interval"][0] < w["adjusted"] < w["interval"][1]
    plain = aeroplane.run("greedy,random", rules="classic", games=30, rotate_seats=True, threads=1)
    assert "luck" not in plain["report"]
    assert plain["report"]["summary"] == report["report"]["summary"]


def test_luck_nets_that_do_not_fit_are_refused(in_repo, tmp_path):
    with pytest.raises(ValueError, match="td-classic-4p.safetensors.*for 4 players, the game has 2"):
        aeroplane.run("greedy,random", rules="classic", games=2, luck="bots/nets/td-classic-4p.safetensors")
    with pytest.raises(ValueError, match="other rules"):
        aeroplane.run("greedy,random", rules="chinese", games=2, luck=NET)
    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"no net")
    with pytest.raises(ValueError, match="junk.safetensors.*not a whole safetensors file"):
        aeroplane.run("greedy,random", rules="classic", games=2, luck=junk)
    with pytest.raises(ValueError, match="td-classic-4p.safetensors.*for 4 players, the game has 2"):
        aeroplane.run("greedy,random", rules="classic", sprt="elo0=0,elo1=50",
                      luck="bots/nets/td-classic-4p.safetensors")


def test_a_luck_adjusted_sprt_is_the_command_lines(in_repo, cli, tmp_path):
    args = ["--bots", "greedy,random", "--rules", "classic", "--sprt", "elo0=0,elo1=50",
            "--max-games", "400", "--seed", "5", "--luck", NET]
    run_cli(cli, "run", *args, "--out", str(tmp_path / "cli"), "-q")
    report = aeroplane.run("greedy,random", rules="classic", sprt="elo0=0,elo1=50", max_games=400,
                           seed=5, luck=NET, out=tmp_path / "py")
    same_folders(tmp_path / "cli", tmp_path / "py")
    assert report == json.loads((tmp_path / "py" / "summary.json").read_text())
    assert json.loads((tmp_path / "py" / "sprt.json").read_text())["luck"]


def test_luck_ply_is_the_command_line_one(in_repo, cli, tmp_path):
    net4 = "bots/nets/td-classic-4p.safetensors"
    args = ["--rules", "classic", "--bots", "greedy,random,random,expectimax", "--games", "4",
            "--rotate-seats"]
    run_cli(cli, "run", *args, "--luck", net4, "--luck-ply", "1", "--out", str(tmp_path / "cli"),
            "-q")
    report = aeroplane.run("greedy,random,random,expectimax", rules="classic", games=4,
                           rotate_seats=True, luck=net4, luck_ply=1, out=tmp_path / "py",
                           threads=2)
    same_folders(tmp_path / "cli", tmp_path / "py")
    assert report["report"]["luck"]["ply"] == 1
    assert json.loads((tmp_path / "py" / "run.json").read_text())["luck_ply"] == 1
    sweep = aeroplane.sweep(["base=classic,chinese"], bots="greedy,random", games=2,
                            luck=NETS, luck_ply=2)
    assert [row["luck"]["ply"] for row in sweep["report"]["rows"]] == [2, 2]
    league = aeroplane.league("greedy,random", rules="classic", players=2, games=2, luck=NET,
                              luck_ply=1)
    assert league["report"]["luck"]["ply"] == 1


def test_bad_luck_plies_are_refused_as_the_command_line_refuses_them(in_repo):
    jobs = [
        lambda **kw: aeroplane.run("greedy,random", rules="classic", games=2, **kw),
        lambda **kw: aeroplane.run("greedy,random", rules="classic", games=2,
                                   sprt="elo0=0,elo1=50", **kw),
        lambda **kw: aeroplane.league("greedy,random", rules="classic", players=2, games=2, **kw),
        lambda **kw: aeroplane.sweep(["base=classic,chinese"], bots="greedy,random", games=2,
                                     **kw),
    ]

    def nets_of(job):
        return NETS if job is jobs[-1] else NET

    for job in jobs:
        for bad in [4, -1, 2**40]:
            with pytest.raises(ValueError, match=f"^luck_ply must be from 0 to 3, not {bad}$"):
                job(luck=nets_of(job), luck_ply=bad)
        for ply in [0, 1]:
            with pytest.raises(ValueError, match="^luck_ply=N is the depth of the luck measure: "
                                                 "give luck=NET too$"):
                job(luck_ply=ply)
        with pytest.raises(TypeError, match="luck_ply must be an integer, not bool"):
            job(luck=nets_of(job), luck_ply=True)
        with pytest.raises(TypeError, match="luck_ply must be an integer, not str"):
            job(luck=nets_of(job), luck_ply="1")
        with pytest.raises(ValueError, match="luck_ply .* is out of range"):
            job(luck=nets_of(job), luck_ply=2**70)


def test_value_is_the_numpy_forward_pass(in_repo):
    net = nets.load(NET)
    assert net.players == 2
    tensors, _ = nets.load_net(NET)
    game = Game("classic", players=2)
    rng = np.random.default_rng(4)
    checked = 0
    while not game.is_terminal() and checked < 60:
        if not game.is_chance_node():
            acts = game.legal_actions()
            game.apply_action(acts[int(rng.integers(len(acts)))])
            continue
        values = net.value(game)
        assert len(values) == 2
        for seat in range(2):
            want = nets.value(tensors["w1"], tensors["b1"], tensors["w2"], tensors["b2"], game,
                              game.seats[seat])
            assert values[seat] == pytest.approx(want, abs=1e-5)
        checked += 1
        game.apply_roll(int(rng.integers(1, 7)))
    assert checked > 20
    with pytest.raises(ValueError, match="for 2 players, the game has 4"):
        net.value(Game("classic", players=4))
    with pytest.raises(ValueError, match="not a whole safetensors file|cannot be read"):
        nets.load("no/such/file.safetensors")
