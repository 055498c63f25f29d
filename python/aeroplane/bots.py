"""Bots: the built-in ones as objects with ``choose(game) -> action``, and what a Python bot is.

``load("expectimax:depth=3")`` (or ``Bot(...)``) resolves a bot as a lineup names it: a
built-in profile or kind with ``:key=value`` parameters, or a path to a profile file (a bot
program too). ``Greedy()``, ``Random()``, ``Expectimax(depth=3)``, ``MonteCarlo(...)`` and
``Mcts(...)`` are the built-in kinds.

A *Python bot* plays in ``aeroplane.run``, ``sweep`` and ``league``: any callable taking an
``aeroplane.Game`` at a decision node and returning one of its ``legal_actions()``, or an
object with such a ``choose(game)`` method. If it has ``new_game(seat, seed)``, that is called
before each game with the seed the runner gives that seat (use it for any randomness, and
results stay reproducible). Its ``name`` attribute (else ``__name__``) names it in the tables.
The runner asks a bot only when a roll offers two or more moves.
"""

from __future__ import annotations

from typing import Any

from ._native import Bot

__all__ = ["Bot", "Expectimax", "Greedy", "Mcts", "MonteCarlo", "Random", "load"]


def load(name: str, bots_dir: str | None = None) -> Bot:
    """The bot ``name`` names, as ``--bots`` takes it (``bots_dir``: more profiles)."""
    return Bot(name, bots_dir)


def _named(kind: str, params: dict[str, Any]) -> str:
    parts = [kind]
    for key, value in params.items():
        if isinstance(value, bool):
            raise TypeError(f"bot parameter {key} takes a number or a word, not bool")
        parts.append(f"{key}={value}")
    return ":".join(parts)


class Greedy(Bot):
    """The fixed-priority bot: capture, else a jump or the flight, else launch, else move; the
    plane furthest along first."""

    def __new__(cls) -> "Greedy":
        return super().__new__(cls, "greedy")


class Random(Bot):
    """Uniform among the distinct legal moves, from the seed of ``new_game``."""

    def __new__(cls) -> "Random":
        return super().__new__(cls, "random")


class Expectimax(Bot):
    """Depth-limited expectimax over the die faces (``depth``, the evaluation's weights)."""

    def __new__(cls, **params: Any) -> "Expectimax":
        return super().__new__(cls, _named("expectimax", params))


class MonteCarlo(Bot):
    """Flat Monte Carlo: rollouts per legal move (``rollouts``, ``policy``, ``cutoff``)."""

    def __new__(cls, **params: Any) -> "MonteCarlo":
        return super().__new__(cls, _named("montecarlo", params))


class Mcts(Bot):
    """UCT tree search with chance nodes (``iterations``, ``exploration``, ``policy``, ...)."""

    def __new__(cls, **params: Any) -> "Mcts":
        return super().__new__(cls, _named("mcts", params))
