"""aeroplane.run, sweep and league: the same output folder as the command line, byte for byte,
the report of summary.json as a dict, Python callables as bots, and bad input."""

from __future__ import annotations

import json
import random
import shutil

import pytest

import aeroplane
from aeroplane.bots import Greedy

from conftest import run_cli, same_folders

RUNS = [
    (
        ["--rules", "classic", "--bots", "greedy,random,random", "--games", "300", "--seed", "7",
         "--rotate-seats", "--per-game"],
        dict(bots="greedy,random,random", rules="classic", games=300, seed=7, rotate_seats=True,
             per_game=True),
    ),
    (["--games", "400"], dict(games=400)),  # every default: rules, bots, seed
    (
        ["--rules", "configs/classic-bounce.toml", "--bots", "expectimax,greedy", "--games", "12",
         "--first-game", "5", "--chunk-size", "4"],
        dict(bots=["expectimax", Greedy()], rules="configs/classic-bounce.toml", games=12,
             first_game=5, chunk_size=4),
    ),
    (
        ["--bots", "greedy,random", "--sprt", "elo0=0,elo1=100", "--games", "3000", "--seed", "3"],
        dict(bots="greedy,random", sprt="elo0=0,elo1=100", games=3000, seed=3),
    ),
    (
        ["--bots", "greedy,random", "--sprt", "elo0=0,elo1=100", "--max-games", "64"],
        dict(bots="greedy,random", sprt="elo0=0,elo1=100", max_games=64),
    ),
]


@pytest.mark.parametrize("cli_args, kwargs", RUNS)
def test_run_writes_the_command_lines_folder(in_repo, cli, tmp_path, cli_args, kwargs):
    run_cli(cli, "run", *cli_args, "--out", str(tmp_path / "cli"), "-q")
    report = aeroplane.run(**kwargs, out=tmp_path / "py", threads=2)
    same_folders(tmp_path / "cli", tmp_path / "py")
    assert report == json.loads((tmp_path / "py" / "summary.json").read_text())
    assert report == aeroplane.run(**{**kwargs, "per_game": False}, threads=1)


def test_run_logs_every_decision_as_the_command_line_does(in_repo, cli, tmp_path):
    args = ["--bots", "expectimax:depth=1,greedy", "--games", "20", "--rotate-seats", "--chunk-size", "3"]
    run_cli(cli, "run", *args, "--log-games", "g.jsonl.zst", "--out", str(tmp_path / "cli"), "-q")
    aeroplane.run("expectimax:depth=1,greedy", games=20, rotate_seats=True,
                  log_games="g.jsonl.zst", out=tmp_path / "py", threads=2, chunk_size=3)
    same_folders(tmp_path / "cli", tmp_path / "py")
    assert (tmp_path / "py" / "g.jsonl.zst").read_bytes() == (tmp_path / "cli" / "g.jsonl.zst").read_bytes()
    with pytest.raises(ValueError, match="give out=DIR"):
        aeroplane.run(games=2, log_games="g.jsonl")
    with pytest.raises(ValueError, match="not to sprt"):
        aeroplane.run("greedy,random", sprt="elo0=0,elo1=100", log_games="g.jsonl", out=tmp_path / "s")
    with pytest.raises(ValueError, match="jsonl"):
        aeroplane.run(games=2, log_games="g.txt", out=tmp_path / "t")


def test_run_log_positions_as_the_command_line(in_repo, cli, tmp_path):
    args = ["--bots", "greedy,random", "--games", "6"]
    run_cli(cli, "run", *args, "--log-games", "g.jsonl", "--log-positions", "1",
            "--out", str(tmp_path / "cli"), "-q")
    aeroplane.run("greedy,random", games=6, log_games="g.jsonl", log_positions=1,
                  out=tmp_path / "py")
    assert (tmp_path / "py" / "g.jsonl").read_bytes() == (tmp_path / "cli" / "g.jsonl").read_bytes()
    assert json.loads((tmp_path / "py" / "run.json").read_text())["log_positions"] == 1
    with pytest.raises(ValueError, match="log_positions"):
        aeroplane.run(games=2, log_games="g.jsonl", log_positions=0, out=tmp_path / "z")
    with pytest.raises(ValueError, match="give log_games"):
        aeroplane.run(games=2, log_positions=4, out=tmp_path / "n")


def test_run_report_html_too(in_repo, cli, tmp_path):
    run_cli(cli, "run", "--games", "200", "--rotate-seats", "--report", "--out", str(tmp_path / "cli"), "-q")
    aeroplane.run(games=200, rotate_seats=True, report=True, out=str(tmp_path / "py"))
    same_folders(tmp_path / "cli", tmp_path / "py")


def test_sweep_writes_the_command_lines_folder(in_repo, cli, tmp_path):
    run_cli(cli, "sweep", "--rules", "chinese", "--vary", "overshoot=illegal,bounce",
            "--vary", "launch_rolls=[6];[5,6]", "--bots", "greedy,random", "--games", "150",
            "--compare", "1,3", "--sort=-turns_mean", "--rotate-seats", "--out", str(tmp_path / "cli"), "-q")
    report = aeroplane.sweep({"overshoot": ["illegal", "bounce"], "launch_rolls": [[6], [5, 6]]},
                             rules="chinese", bots="greedy,random", games=150, compare=(1, 3),
                             sort="-turns_mean", rotate_seats=True, out=tmp_path / "py")
    same_folders(tmp_path / "cli", tmp_path / "py")
    assert report == json.loads((tmp_path / "py" / "summary.json").read_text())
    again = aeroplane.sweep(["overshoot=illegal,bounce", "launch_rolls=[6];[5,6]"], rules="chinese",
                            bots="greedy,random", games=150, compare="1,3", sort="-turns_mean",
                            rotate_seats=True)
    assert again == report


def test_league_writes_the_command_lines_folder(in_repo, cli, tmp_path):
    run_cli(cli, "league", "--bots", "random,greedy,expectimax", "--players", "3", "--games", "30",
            "--seed", "2", "--bootstrap", "100", "--out", str(tmp_path / "cli"), "-q")
    report = aeroplane.league(["random", "greedy", "expectimax"], players=3, games=30, seed=2,
                              bootstrap=100, out=tmp_path / "py")
    same_folders(tmp_path / "cli", tmp_path / "py")
    assert report["command"] == "league"
    assert report == json.loads((tmp_path / "py" / "summary.json").read_text())


PROGRAM = "bots/examples/greedy-py.toml"


@pytest.mark.parametrize("job", ["run", "sweep", "league"])
def test_bot_programs_log_into_the_folders_logs_as_the_command_line_does(in_repo, cli, tmp_path, job):
    """Every job keeps a bot program's stderr under its folder's logs/, as the command line's
    does (one job builder for both: a sweep or league from Python wrote no logs/ before)."""
    args = {
        "run": (["--bots", f"{PROGRAM},random"], dict(bots=f"{PROGRAM},random")),
        "sweep": (["--vary", "overshoot=illegal,bounce", "--bots", f"{PROGRAM},random"],
                  dict(vary=["overshoot=illegal,bounce"], bots=f"{PROGRAM},random")),
        "league": (["--bots", f"{PROGRAM},random", "--players", "2", "--bootstrap", "100"],
                   dict(bots=[PROGRAM, "random"], players=2, bootstrap=100)),
    }[job]
    run_cli(cli, job, *args[0], "--games", "4", "--threads", "1", "--out", str(tmp_path / "cli"), "-q")
    getattr(aeroplane, job)(**args[1], games=4, threads=1, out=tmp_path / "py")
    for side in ("cli", "py"):
        logs = sorted(p.name for p in (tmp_path / side / "logs").iterdir())
        assert logs and all(n.startswith("greedy-py-") for n in logs), logs
    for side in ("cli", "py"):
        shutil.rmtree(tmp_path / side / "logs")
    same_folders(tmp_path / "cli", tmp_path / "py")


def wins(report):
    return [(b["counts"]["games"], b["counts"]["wins"]) for b in report["report"]["summary"]["bots"]]


def test_a_python_callable_plays_as_a_bot(in_repo, tmp_path):
    greedy = Greedy()

    def python_greedy(game: aeroplane.Game) -> int:
        assert game.pending_roll is not None and len(game.legal_actions()) >= 2
        return greedy.choose(game)

    native = aeroplane.run("greedy,random,random", rules="classic", games=200, seed=4, rotate_seats=True)
    ours = aeroplane.run([python_greedy, "random", "random"], rules="classic", games=200, seed=4,
                         rotate_seats=True, threads=2, out=tmp_path / "py")
    assert wins(ours) == wins(native)
    assert ours["report"]["summary"]["bots"][0]["name"] == "python_greedy"
    manifest = json.loads((tmp_path / "py" / "run.json").read_text())
    assert manifest["bots"][0]["kind"] == "python" and manifest["status"] == "complete"


class SeededRandom:
    """A Python bot with its own randomness, seeded by the runner for every game."""

    name = "py-random"

    def new_game(self, seat: int, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, game: aeroplane.Game) -> int:
        return self.rng.choice(game.legal_actions())


def test_python_bots_are_reproducible_on_any_thread_count():
    a = aeroplane.run([SeededRandom(), "greedy"], games=150, seed=9, threads=1)
    b = aeroplane.run([SeededRandom(), "greedy"], games=150, seed=9, threads=2, chunk_size=7)
    assert a == b
    league = aeroplane.league([SeededRandom(), "random", "greedy"], players=2, games=20, bootstrap=100)
    assert "py-random" in json.dumps(league)


def test_a_python_bot_that_raises_stops_the_job_with_its_exception():
    def broken(game):
        return 1 / 0

    with pytest.raises(ZeroDivisionError) as e:
        aeroplane.run([broken, "random"], games=50)
    assert any("bot `broken`" in n for n in getattr(e.value, "__notes__", []))


@pytest.mark.parametrize("answer", [7, "0", None, 1.0, -1])
def test_a_python_bot_answering_an_illegal_action_is_a_value_error(answer):
    with pytest.raises(ValueError, match="which is not a legal action: legal actions are"):
        aeroplane.run([lambda g: answer, "random"], games=50)


def test_bad_input(in_repo, tmp_path):
    with pytest.raises(ValueError, match="unknown bot `grede`"):
        aeroplane.run("grede,random", games=10)
    with pytest.raises(ValueError, match="unknown bot"):
        aeroplane.run(["random", "nonesuch"], games=10)
    with pytest.raises(TypeError, match="a bot is a name"):
        aeroplane.run(["random", 3], games=10)
    with pytest.raises(TypeError, match="bots must be"):
        aeroplane.run(3, games=10)
    with pytest.raises(ValueError, match="the lineup has 1 bot"):
        aeroplane.run("random", games=10)
    with pytest.raises(ValueError, match="unknown rules preset"):
        aeroplane.run(rules="nonesuch", games=10)
    with pytest.raises(TypeError, match="rules must be"):
        aeroplane.run(rules=5, games=10)
    with pytest.raises(ValueError, match="at least 1"):
        aeroplane.run(games=0)
    with pytest.raises(ValueError, match="games -5 is out of range"):
        aeroplane.run(games=-5)
    with pytest.raises(TypeError, match="games must be an integer"):
        aeroplane.run(games="10")
    with pytest.raises(ValueError, match="per_game=True writes games.csv"):
        aeroplane.run(games=10, per_game=True)
    with pytest.raises(ValueError, match="give out=DIR"):
        aeroplane.run(games=10, report=True)
    with pytest.raises(ValueError, match="two distinct bots"):
        aeroplane.run("greedy,random,greedy", sprt="elo0=0,elo1=10", games=10)
    with pytest.raises(ValueError, match="sprt elo0"):
        aeroplane.run("greedy,random", sprt="elo0=zero", games=10)
    with pytest.raises(ValueError, match="chunk_size must be at least 1"):
        aeroplane.run(games=10, chunk_size=0)
    with pytest.raises(ValueError, match="overshoot"):
        aeroplane.sweep({"overshoot": ["sideways"]}, games=10)
    with pytest.raises(ValueError, match="nothing to vary"):
        aeroplane.sweep([], games=10)
    with pytest.raises(ValueError, match="compare"):
        aeroplane.sweep(["overshoot=illegal,bounce"], games=10, compare=(1, 5))
    with pytest.raises(ValueError, match="pool of at least 2"):
        aeroplane.league(["greedy"], games=10)
    aeroplane.run(games=10, out=tmp_path / "done")
    with pytest.raises(ValueError, match="already holds.*the setting `force`") as refused:
        aeroplane.run(games=10, out=tmp_path / "done")
    # The library's messages name settings as Python knows them, never as command-line flags.
    assert "--" not in str(refused.value)
    aeroplane.run(games=10, out=tmp_path / "done", force=True)
    with pytest.raises(ValueError, match="the setting `bots` lists 1 bot") as small:
        aeroplane.league(["greedy"], games=10)
    assert "--" not in str(small.value)


class Uncopyable:
    """A Python bot that copy.deepcopy cannot copy (it holds a lock)."""

    name = "locked"

    def __init__(self):
        import threading

        self.lock = threading.Lock()

    def choose(self, game):
        return game.legal_actions()[0]


def test_an_uncopyable_python_bot_plays_on_one_thread_only():
    report = aeroplane.run([Uncopyable(), "random"], games=40, threads=1)
    assert report["report"]["summary"]["games"] == 40
    with pytest.raises(ValueError, match="copy.deepcopy cannot copy it.*threads=1"):
        aeroplane.run([Uncopyable(), "random"], games=400, threads=2, chunk_size=1)


DEEPCOPY_CHILD = """
import numpy as np
import aeroplane

class Heavy:
    name = "heavy"
    def __init__(self):
        self.weights = np.ones(4_000_000, np.float32)  # copying it releases the GIL
    def choose(self, game):
        return game.legal_actions()[int(self.weights[0]) - 1]

for seed in range(5):
    aeroplane.run([Heavy(), "random"], games=20, seed=seed, threads=2)
print("done")
"""


def test_python_bots_whose_copy_releases_the_gil_do_not_deadlock():
    """Each worker thread builds its copy of a Python bot with copy.deepcopy, which releases the
    GIL for a large numpy array: the registry's lock must not be held meanwhile (a worker
    holding the GIL and waiting for the lock hung the run)."""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", DEEPCOPY_CHILD], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0 and p.stdout.strip() == "done", p.stderr
