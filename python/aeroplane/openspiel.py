"""Aeroplane Chess for OpenSpiel: a pyspiel Python game ``"aeroplane"`` with explicit chance
nodes, so OpenSpiel's algorithms (MCTS, evaluation tools, ``random_sim_test``) run on it.

    import pyspiel
    import aeroplane.openspiel
    aeroplane.openspiel.register()
    game = pyspiel.load_game("aeroplane(players=2,rules=classic)")

Parameters: ``players`` (2, 3 or 4; default 4, ``aeroplane.DEFAULT_PLAYERS`` as everywhere in
the package) and ``rules`` (a preset, ``appfreegame``, ``classic`` or ``chinese``, or the path
of a variant file; default ``appfreegame``). OpenSpiel's game strings split parameters at
commas and parentheses, so the ``rules`` parameter is percent-decoded: a path holding ``,``,
``(``, ``)``, ``=`` or ``%`` is written with ``%2C``, ``%28``, ``%29``, ``%3D``, ``%25``
(``rules_param(path)`` does it; a path given in a parameter dict is encoded for you, so
``serialize_game_and_state`` and ``game.get_parameters()`` give a string that loads again).

- **Players** are OpenSpiel's: player ``k`` is the k-th seat in play (two players sit on seats
  0 and 2 of the board).
- **Chance nodes** roll the die: outcome ``f`` (0..5) is the face ``f + 1``, each with
  probability 1/6. A roll that offers no move is played at once, so a chance node can follow a
  chance node.
- **Actions** are the engine's ids (8 distinct actions): ``p`` moves plane ``p``, ``4 + p``
  moves it onto the flight cell and stays. A decision node has at least one legal action.
- **Returns** are zero-sum by rank (1 for the winner, -1 for the last; ``docs/RULES.md``).
- **Observations**: the 170-float vector of ``aeroplane.Game.observation`` (rotated to the
  observer) and its string; the game has perfect information, so the information state is the
  observation with the history (OpenSpiel's observer for public-information games).
- ``max_game_length`` is ``3 * max_turns`` decisions (at most 2147483647): a bound wherever
  ``three_sixes`` ends a turn at its third six; under ``three_sixes = none`` a turn of four or
  more sixes in a row can make more, which a game of the presets does not come near (about a
  hundred turns, against a cap of 10,000).

**OpenSpiel's C++ bots do not run on it.** ``pyspiel.MCTSBot`` and the other bots written in
C++ crash the interpreter (a segmentation fault) on any game registered from Python, this one
and OpenSpiel's own Python games alike: use the Python implementations
(``open_spiel.python.algorithms.mcts.MCTSBot`` with ``RolloutEvaluator`` below,
``evaluate_bots``, ``random_sim_test``), which do.

``open_spiel`` is an optional dependency (``pip install './python[openspiel]'``): ``import
aeroplane`` never needs it.
"""

from __future__ import annotations

from typing import Any, Literal

import re

import numpy as np

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "aeroplane.openspiel needs OpenSpiel: pip install './python[openspiel]' "
        f"(or pip install open_spiel); {e}"
    ) from e

from . import CHANCE, DEFAULT_PLAYERS, NUM_ACTIONS, OBSERVATION_LEN, TERMINAL, Game, Rules

__all__ = [
    "AeroplaneGame",
    "AeroplaneObserver",
    "AeroplaneState",
    "GAME_TYPE",
    "RolloutEvaluator",
    "register",
    "rules_param",
]

_DEFAULT_PARAMS: dict[str, Any] = {"players": DEFAULT_PLAYERS, "rules": "appfreegame"}

_ESCAPED = {"%": "%25", ",": "%2C", "(": "%28", ")": "%29", "=": "%3D"}


def rules_param(rules: str) -> str:
    """``rules`` (a preset or a path) as the game string's ``rules`` parameter: the characters
    OpenSpiel's parser splits at, and ``%``, percent-encoded."""
    return "".join(_ESCAPED.get(c, c) for c in rules)


def _rules_from_param(param: str) -> str:
    """The preset or path a ``rules`` parameter names (percent-decoded)."""
    return re.sub(r"%([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), param)

GAME_TYPE = pyspiel.GameType(
    short_name="aeroplane",
    long_name="Aeroplane Chess",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS,
)

_MAX_INT = 2**31 - 1


class AeroplaneGame(pyspiel.Game):
    """The game ``aeroplane(players=..., rules=...)``."""

    def __init__(self, params: dict[str, Any] | None = None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        rules = params["rules"]
        if not isinstance(rules, str):
            raise TypeError(f"rules is a preset name or a variant file path, not {type(rules).__name__}")
        # A path with OpenSpiel's separators in it is kept encoded in the parameters, so that
        # the game string loads again; decoding an encoded one gives the path back.
        name = _rules_from_param(rules)
        rules = rules_param(name)
        self.rules = Rules.load(name)
        players = params["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=6,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=min(3 * self.rules.max_turns, _MAX_INT),
        )
        super().__init__(GAME_TYPE, info, {"players": players, "rules": rules})

    def new_initial_state(self) -> "AeroplaneState":
        """The start of a game: the die is to be rolled for seat 0."""
        return AeroplaneState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observation vector for (public, imperfect-recall) observations; OpenSpiel's
        public-information observer otherwise (the information state)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return AeroplaneObserver(params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class AeroplaneState(pyspiel.State):
    """A position: an ``aeroplane.Game`` (``state.game``) behind OpenSpiel's state API."""

    def __init__(self, game: AeroplaneGame):
        super().__init__(game)
        self.game = Game(game.rules, game.num_players())

    def current_player(self) -> int:
        """The player to act, ``PlayerId.CHANCE`` or ``PlayerId.TERMINAL``."""
        p = self.game.current_player()
        if p == CHANCE:
            return pyspiel.PlayerId.CHANCE
        if p == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return self.game.player_of(p)

    def _legal_actions(self, player: int) -> list[int]:
        return self.game.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The six faces as outcomes 0..5."""
        return [(face - 1, p) for face, p in self.game.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        if self.game.is_chance_node():
            self.game.apply_roll(action + 1)
        else:
            self.game.apply_action(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"roll {action + 1}"
        return self.game.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.game.is_terminal()

    def returns(self) -> list[float]:
        """Each player's return (zero until the end)."""
        by_seat = self.game.returns()
        return [by_seat[s] for s in self.game.seats]

    def __str__(self) -> str:
        return str(self.game)


class AeroplaneObserver:
    """The observation of ``aeroplane.Game.observation`` for OpenSpiel: ``tensor`` (170
    float32) and named views of it in ``dict``."""

    def __init__(self, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.tensor = np.zeros(OBSERVATION_LEN, np.float32)
        self.dict = {
            "planes": self.tensor[:144].reshape(4, 4, 9),
            "seats": self.tensor[144:160].reshape(4, 4),
            "roll": self.tensor[160:166],
            "sixes": self.tensor[166:169],
            "turns": self.tensor[169:170],
        }

    def set_from(self, state: AeroplaneState, player: int) -> None:
        """Fills ``tensor`` with ``state`` as ``player`` sees it."""
        game = state.game
        self.tensor[:] = game.observation(game.seat_of(player))

    def string_from(self, state: AeroplaneState, player: int) -> str:
        """``state`` as one line of text from ``player``'s side."""
        game = state.game
        return game.observation_string(game.seat_of(player))


class RolloutEvaluator:
    """A random-rollout evaluator for OpenSpiel's ``mcts.MCTSBot`` that plays its rollouts in
    Rust (``aeroplane.Game.rollout``): the value of a state is the mean return of
    ``n_rollouts`` games played to the end by ``policy`` (``"random"``, as OpenSpiel's
    ``RandomRolloutEvaluator``, or ``"greedy"``) from seeds drawn from ``random_state``; the
    prior is uniform over the legal actions (the die's odds at chance nodes). It implements
    ``open_spiel.python.algorithms.mcts.Evaluator`` and is some hundred times faster than
    ``RandomRolloutEvaluator``, whose rollouts step the game through pyspiel one action at a
    time.
    """

    def __init__(self, n_rollouts: int = 1, random_state=None,
                 policy: Literal["random", "greedy"] = "random"):
        self.n_rollouts = n_rollouts
        self._random_state = random_state or np.random.RandomState()
        self.policy = policy

    def evaluate(self, state: AeroplaneState) -> np.ndarray:
        """The mean returns, per player, of ``n_rollouts`` playouts from ``state``."""
        game = state.game
        total = np.zeros(len(game.seats))
        seats = game.seats
        for _ in range(self.n_rollouts):
            seed = int(self._random_state.randint(0, 2**63 - 1))
            by_seat = game.rollout(seed, self.policy)
            total += [by_seat[s] for s in seats]
        return total / self.n_rollouts

    def prior(self, state: AeroplaneState) -> list[tuple[int, float]]:
        """Uniform over the legal actions; the die's odds at a chance node."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


_registered = False


def register() -> None:
    """Registers the game ``"aeroplane"`` with pyspiel (once; calling again does nothing)."""
    global _registered
    if not _registered and "aeroplane" not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, AeroplaneGame)
    _registered = True
