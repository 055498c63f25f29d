"""Issue #31 item 21: messages name the parameter and the value given, never a wrapped-around
or clamped number; optional extras are named when missing; one default player count."""

from __future__ import annotations

import subprocess
import sys

import pytest

import aeroplane
from aeroplane import Game, Rules, VecEnv

from conftest import REPO


def test_an_action_id_out_of_range_is_said_as_given():
    game = Game("classic", 2)
    game.apply_roll(6)
    with pytest.raises(ValueError, match=r"action -1 is not an action id: ids are 0 to 7, and the legal actions here are 0") as e:
        game.apply_action(-1)
    assert "4294967295" not in str(e.value)
    with pytest.raises(ValueError, match="action 8 is not an action id"):
        game.apply_action(8)


def test_a_huge_option_value_is_said_as_given():
    with pytest.raises(ValueError, match=r"invalid value 10000000000000000000000000000 for option `max_turns`") as e:
        Rules(max_turns=10**28)
    assert "9223372036854775807" not in str(e.value)
    with pytest.raises(ValueError, match=r"invalid value -100000000000000000000 for option `launch_rolls`"):
        Rules(launch_rolls=[-10**20])


def test_launch_rolls_refuse_bytes():
    for value in (b"1", bytearray(b"6")):
        with pytest.raises(TypeError, match="option `launch_rolls` takes a list of die faces, not"):
            Rules(launch_rolls=value)


@pytest.mark.parametrize("call, words", [
    (lambda: Rules(5), "base must be a preset name"),
    (lambda: Rules.preset(5), "name must be a preset name"),
    (lambda: Rules.load(5), "name_or_path must be a path"),
    (lambda: Rules.from_toml(5), "path must be a path"),
    (lambda: Rules.from_toml_str(5), "text must be TOML text"),
    (lambda: Game.from_notation(5, "classic"), "text must be a position in the notation"),
    (lambda: aeroplane.bots.Greedy().choose(5), "game must be an aeroplane.Game"),
    (lambda: aeroplane.bots.Bot(5), "name must be a bot name"),
    (lambda: aeroplane.bots.Bot("greedy", 5), "bots_dir must be a path"),
    (lambda: Game().rollout(1, 5), "policy must be"),
    (lambda: Game().observation(kind=5), "kind must be \"flat\" or \"rich\""),
])
def test_type_errors_name_the_parameter(call, words):
    with pytest.raises(TypeError, match=words) as e:
        call()
    assert "is not an instance of" not in str(e.value) and "not int" in str(e.value)


CHILD = """
import os, signal, threading
import aeroplane

signal.signal(signal.SIGINT, signal.default_int_handler)
env = aeroplane.VecEnv(300_000, players=2, opponents=["random"], threads=1)
obs, mask = env.reset()
for attempt in range(100):
    timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        while True:
            obs, rewards, terminated, mask = env.step(mask.argmax(1))
    except KeyboardInterrupt:
        timer.join()
    try:
        obs, rewards, terminated, mask = env.step(mask.argmax(1))
    except RuntimeError as e:
        print(e)
        break
"""


def test_a_vecenv_interrupted_in_a_step_says_so_once():
    p = subprocess.run([sys.executable, "-c", CHILD], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "this VecEnv stopped in the middle of a step (interrupted by Ctrl-C): call reset()"


def test_one_default_player_count():
    assert aeroplane.DEFAULT_PLAYERS == 4
    assert Game().players == VecEnv(2, opponents=None).players == aeroplane.DEFAULT_PLAYERS
    assert VecEnv(2, opponents=["random"] * 3).players == 4
    pz = pytest.importorskip("aeroplane.pettingzoo")
    assert len(pz.raw_env().possible_agents) == len(pz.parallel_env().possible_agents) == 4
    gym = pytest.importorskip("aeroplane.gym")
    assert gym.AeroplaneEnv().players == 4 and gym.AeroplaneVectorEnv(2).vec_env.players == 4
    pyspiel = pytest.importorskip("pyspiel")
    ao = pytest.importorskip("aeroplane.openspiel")
    ao.register()
    assert pyspiel.load_game("aeroplane").num_players() == 4


@pytest.mark.parametrize("module, blocked, extra", [
    ("aeroplane.openspiel", "pyspiel", "[openspiel]"),
    ("aeroplane.pettingzoo", "pettingzoo", "[pettingzoo]"),
    ("aeroplane.gym", "gymnasium", "[gym]"),
])
def test_a_missing_extra_is_named(module, blocked, extra):
    code = f"import sys; sys.modules[{blocked!r}] = None\nimport {module}"
    p = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "ImportError" in p.stderr
    assert f"pip install './python{extra}'" in p.stderr, p.stderr
