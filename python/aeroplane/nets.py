"""Value nets in the ``td`` bot's file format (docs/NET.md), written and evaluated in numpy.

A net trained in Python (numpy, PyTorch, anything that gives float32 arrays) saved with
``save_net`` loads as the bot ``td:net=FILE`` in ``aeroplane.run`` and as a ``VecEnv``
opponent, played at native speed. ``features`` is the net's input for a position (the ``tdg``
encoding, computed by the engine), ``value`` the net's expected return there, as the bot
computes it::

    import numpy as np
    from aeroplane import Game, nets

    inputs = nets.inputs("classic", players=2)
    rng = np.random.default_rng(0)
    w1 = rng.normal(0, 0.1, (inputs, 16)).astype(np.float32)
    b1, w2, b2 = np.zeros(16, np.float32), np.zeros((2, 16), np.float32), np.zeros(2, np.float32)
    nets.save_net("my.safetensors", w1, b1, w2, b2, rules="classic", players=2)
    # aeroplane.run(rules="classic", players=2, bots=["td:net=my.safetensors", "random"], ...)

Saving needs the ``safetensors`` package (``pip install safetensors``).
"""

from __future__ import annotations

import os
from typing import Any, Mapping

import numpy as np
import numpy.typing as npt

from ._native import TDG_ENCODING, Game, Net, Rules, _load_net, _rules_json, tdg_features, tdg_inputs

__all__ = ["FORMAT", "FORMAT_VERSION", "fnv1a64", "inputs", "features", "forward", "payoffs", "value",
           "decided_value", "save_net", "load_net", "load", "Net"]

#: The ``format`` and ``format_version`` metadata of a net file.
FORMAT = "aeroplane-td-net"
FORMAT_VERSION = 1
_MAX_HIDDEN = 1024
_FNV_START = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = 0xFFFFFFFFFFFFFFFF


def fnv1a64(data: bytes, h: int = _FNV_START) -> int:
    """FNV-1a 64 of ``data``, continuing from ``h`` (a net file's ``checksum``)."""
    for b in data:
        h = ((h ^ b) * _FNV_PRIME) & _MASK
    return h


def inputs(rules: Rules | str | None = None, players: int = 4) -> int:
    """The number of input units (``w1``'s rows) of a net for ``rules`` and ``players``."""
    return tdg_inputs(rules, players)


def features(game: Game, perspective: int) -> npt.NDArray[np.int64]:
    """The active input units of ``game`` (an afterstate: after a move, before the next roll)
    seen from seat ``perspective``: the rows of ``w1`` that the first layer sums."""
    return tdg_features(game, perspective)


def forward(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray,
            active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The hidden layer and the rank probabilities of the net for one position's active
    units: ``h = relu(b1 + w1[active].sum(0))``, ``p = softmax(w2 @ h + b2)``."""
    h = np.maximum(b1 + w1[active].sum(axis=0), 0.0)
    z = w2 @ h + b2
    e = np.exp(z - z.max())
    return h, e / e.sum()


def payoffs(players: int) -> np.ndarray:
    """The return of each finishing rank: 1 for the first, -1 for the last."""
    n = players
    return np.array([(n - 1 - 2 * r) / (n - 1) for r in range(n)], dtype=np.float32)


def decided_value(game: Game, seat: int) -> float | None:
    """The exact return of ``seat`` if the game is over or the seat has finished, else None
    (the net is not asked there). ``seat`` is a board seat, as ``game.returns()`` is indexed."""
    r = game.rank(seat)  # ValueError for a seat not in play
    if game.is_terminal():
        return float(game.returns()[seat])
    if r is not None:
        return float(payoffs(game.players)[r - 1])
    return None


def value(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray, game: Game,
          seat: int) -> float:
    """The net's expected return (-1..1) for ``seat`` at the afterstate ``game``, as the
    ``td`` bot values it (exact where the position is decided for the seat)."""
    d = decided_value(game, seat)
    if d is not None:
        return d
    _, p = forward(w1, b1, w2, b2, features(game, seat))
    return float(p @ payoffs(len(p)))


def _checked(name: str, a: Any, shape: tuple[int, ...]) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(a), dtype="<f4")
    if arr.shape != shape:
        raise ValueError(f"{name} has shape {list(arr.shape)}; the net's sizes take {list(shape)}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} holds a NaN or infinite weight")
    return arr


def save_net(path: str | os.PathLike[str], w1: Any, b1: Any, w2: Any, b2: Any, *,
             rules: Rules | str | None = None, players: int = 4,
             metadata: Mapping[str, str] | None = None) -> None:
    """Writes a net file (docs/NET.md) that the ``td`` bot plays: ``w1`` ``[inputs, hidden]``,
    ``b1`` ``[hidden]``, ``w2`` ``[players, hidden]``, ``b2`` ``[players]`` (any array-likes,
    stored as float32) for ``rules`` (an ``aeroplane.Rules``, a preset name or a variant file;
    default ``appfreegame``) and ``players``. The format's metadata and the checksum are
    added; ``metadata`` adds other string keys (kept and ignored by the bot).

    ``ValueError`` names a shape that does not fit the rules and players, a NaN or infinite
    weight, or a metadata key of the format's own."""
    from safetensors.numpy import save_file

    n_in = inputs(rules, players)
    hidden = np.shape(w1)[1] if np.ndim(w1) == 2 else -1
    if not 1 <= hidden <= _MAX_HIDDEN:
        raise ValueError(f"w1 has shape {list(np.shape(w1))}: it is [inputs, hidden] with "
                         f"inputs {n_in} for these rules and players and hidden 1 to {_MAX_HIDDEN}")
    t = {
        "w1": _checked("w1", w1, (n_in, hidden)),
        "b1": _checked("b1", b1, (hidden,)),
        "w2": _checked("w2", w2, (players, hidden)),
        "b2": _checked("b2", b2, (players,)),
    }
    h = _FNV_START
    for name in ("w1", "b1", "w2", "b2"):
        h = fnv1a64(t[name].tobytes(), h)
    meta = {
        "format": FORMAT,
        "format_version": str(FORMAT_VERSION),
        "encoding": TDG_ENCODING[0],
        "encoding_version": str(TDG_ENCODING[1]),
        "inputs": str(n_in),
        "hidden": str(hidden),
        "outputs": str(players),
        "activation": "relu",
        "output": "softmax_ranks",
        "rules": _rules_json(rules),
        "players": str(players),
        "checksum": f"{h:016x}",
    }
    for k, v in (metadata or {}).items():
        if k in meta:
            raise ValueError(f"metadata key {k!r} is the format's own; save_net writes it")
        meta[k] = str(v)
    save_file(t, os.fspath(path), metadata=meta)


def load_net(path: str | os.PathLike[str]) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """The tensors (``w1``, ``b1``, ``w2``, ``b2``) and metadata of a net file, read with
    ``safetensors`` (for numpy; the ``td`` bot does its own checks when it loads one)."""
    from safetensors import safe_open

    with safe_open(os.fspath(path), framework="numpy") as f:
        meta = dict(f.metadata() or {})
        tensors = {k: f.get_tensor(k) for k in f.keys()}
    return tensors, meta


def load(path: str | os.PathLike[str]) -> Net:
    """The net file at ``path``, loaded and checked natively as the ``td`` bot and ``run(luck=)``
    load it (a net shipped in ``bots/nets/`` also loads from the copy built in).
    ``load(path).value(game)`` is the net's expected return (-1..1) for every seat in play
    (player order) at ``game``, a position before a roll; a game of other rules or players is
    refused with ``ValueError``::

        net = nets.load("bots/nets/td-classic-2p.safetensors")
        net.value(Game("classic", players=2))   # [v0, v1]
    """
    return _load_net(path)
