"""Aeroplane Chess (Flying Chess, 飞行棋) for game-AI research, from Python.

The engine, bots and tournament runner of `aeroplane` (written in Rust) as a Python package:

- ``Rules``, ``Game``: rule variants and one game through an OpenSpiel-shaped state API
  (chance nodes, action ids 0..7, returns, observation vectors, the position notation);
- ``SeededDice``, ``bot_seed``: the seeding scheme of every run, so game ``i`` of seed ``s``
  can be replayed;
- ``aeroplane.bots``: the built-in bots with ``choose(game) -> action``;
- ``run``, ``sweep``, ``league``: the command line's jobs, with the same output folder and the
  report of ``summary.json`` as a dict; Python callables can play in them;
- ``VecEnv``: many games stepped at once, every array filled in Rust, for training loops
  (snapshots with ``get_state``/``set_state``, environment masks, lineups per environment,
  ``out=`` buffers);
- ``read_log``: a decision log (docs/LOG.md) as numpy arrays, for imitation learning;
- ``aeroplane.gym`` (``pip install './python[gym]'``), ``aeroplane.openspiel`` (``[openspiel]``)
  and ``aeroplane.pettingzoo`` (``[pettingzoo]``): Gymnasium single and vector environments,
  the game for OpenSpiel's algorithms, PettingZoo AEC and parallel environments.

Every default player count is ``DEFAULT_PLAYERS`` = 4 (the board's and the command line's).

Seats are the board's (0 red, 1 yellow, 2 blue, 3 green; two players sit on seats 0 and 2,
three on 0, 1, 2). OpenSpiel and PettingZoo number *players* instead: player ``k`` is the
k-th seat in play (``Game.seat_of``, ``Game.player_of``).
"""

import atexit as _atexit

from ._native import (
    CHANCE,
    DEFAULT_PLAYERS,
    MAX_ENVS,
    NUM_ACTIONS,
    OBSERVATION_LEN,
    RICH_OBSERVATION_LEN,
    TERMINAL,
    Game,
    Rules,
    SeededDice,
    VecEnv,
    __version__,
    bot_seed,
    league,
    read_log,
    run,
    sweep,
)
from . import bots
from ._native import _finish_stopping_jobs

# A job stopped by Ctrl-C whose games in flight took longer than a second finishes them in the
# background; at exit the interpreter waits for it to write its folder (a second Ctrl-C stops
# the wait).
_atexit.register(_finish_stopping_jobs)

__all__ = [
    "CHANCE",
    "DEFAULT_PLAYERS",
    "MAX_ENVS",
    "NUM_ACTIONS",
    "OBSERVATION_LEN",
    "RICH_OBSERVATION_LEN",
    "TERMINAL",
    "Game",
    "Rules",
    "SeededDice",
    "VecEnv",
    "__version__",
    "bot_seed",
    "bots",
    "league",
    "read_log",
    "run",
    "sweep",
]

# A solved table's values (issue 31, item 26).
from ._native import Table  # noqa: E402

__all__ += ["Table"]
