"""A value net trained in numpy, saved in the ``td`` bot's format, played at native speed.

    python python/examples/numpy_value_net.py            # a few seconds
    python python/examples/numpy_value_net.py --quick    # under a second (what the tests run)

1. Self-play with ``aeroplane.Game``: every seat moves to the afterstate (the position after a
   move, before the next roll) the current net values best, or at random with probability
   ``--explore``; the afterstates' ``tdg`` features (``aeroplane.nets.features``) are kept.
2. Monte Carlo targets: each afterstate's target is the mover's final rank; the net
   (``relu`` hidden layer, softmax over ranks, docs/NET.md) is fitted by cross-entropy (SGD).
3. ``aeroplane.nets.save_net`` writes it with ``safetensors``; it plays as ``td:net=FILE`` in
   ``aeroplane.run`` against random (seats rotated) and as a ``VecEnv`` opponent of a random
   agent. Random against random wins half.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import aeroplane
from aeroplane import nets


def self_play(w: list[np.ndarray], rules: str, players: int, games: int, explore: float,
              rng: np.random.Generator) -> tuple[list[np.ndarray], list[int], list[int]]:
    """Afterstates' active inputs and their targets (the mover's final rank, 0-based), and
    ``finishing``: the greedy choices that had a move finishing first and took one, and the
    afterstates finishing first that ``nets.value`` valued exactly 1, of all of them (a
    decided afterstate takes its exact value, for every seat)."""
    w1, b1, w2, b2 = w
    feats: list[np.ndarray] = []
    ranks: list[int] = []
    finishing = [0, 0, 0, 0]
    for _ in range(games):
        game = aeroplane.Game(rules, players)
        mine: list[tuple[np.ndarray, int]] = []
        while not game.is_terminal():
            if game.is_chance_node():
                game.apply_roll(int(rng.integers(1, 7)))
                continue
            seat = game.to_move
            actions = game.legal_actions()
            afters = []
            for a in actions:
                g = game.clone()
                g.apply_action(a)
                afters.append(g)
            if rng.random() < explore:
                k = int(rng.integers(len(actions)))
            else:
                values = [nets.value(w1, b1, w2, b2, g, seat) for g in afters]
                k = int(np.argmax(values))
                first = [g.rank(seat) == 1 for g in afters]
                if any(first):
                    finishing[0] += 1
                    finishing[1] += int(first[k])
                    finishing[2] += sum(first)
                    finishing[3] += sum(v == 1.0 for v, f in zip(values, first) if f)
            after = afters[k]
            if nets.decided_value(after, seat) is None:
                mine.append((nets.features(after, seat), seat))
            game.apply_action(actions[k])
        for f, seat in mine:
            r = game.rank(seat)
            feats.append(f)
            # An unranked seat (a capped game) takes the last rank.
            ranks.append(players - 1 if r is None else r - 1)
    return feats, ranks, finishing


def fit(w: list[np.ndarray], feats: list[np.ndarray], ranks: list[int], epochs: int, lr: float,
        rng: np.random.Generator) -> float:
    """SGD on the cross-entropy of the rank softmax; returns the last epoch's mean loss."""
    w1, b1, w2, b2 = w
    loss = 0.0
    for _ in range(epochs):
        loss = 0.0
        for i in rng.permutation(len(feats)):
            x, r = feats[i], ranks[i]
            h, p = nets.forward(w1, b1, w2, b2, x)
            loss -= float(np.log(p[r] + 1e-9))
            g = p.copy()
            g[r] -= 1.0
            dh = (w2.T @ g) * (h > 0)
            w2 -= lr * np.outer(g, h)
            b2 -= lr * g
            w1[x] -= lr * dh
            b1 -= lr * dh
        loss /= max(len(feats), 1)
    return loss


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rules", default="classic")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--hidden", type=int, default=16)
    p.add_argument("--iterations", type=int, default=4, help="rounds of self-play then fitting")
    p.add_argument("--games", type=int, default=60, help="self-play games per round")
    p.add_argument("--explore", type=float, default=0.2)
    p.add_argument("--match-games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", help="where to save the net (default: a temporary folder)")
    p.add_argument("--quick", action="store_true", help="a few seconds: 2 rounds of 15 games, 400 match games")
    args = p.parse_args()
    if args.quick:
        args.iterations, args.games, args.match_games = 2, 15, 400
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    n_in = nets.inputs(args.rules, args.players)
    w = [rng.normal(0, 0.1, (n_in, args.hidden)).astype(np.float32),
         np.full(args.hidden, 0.1, np.float32),
         rng.normal(0, 0.1, (args.players, args.hidden)).astype(np.float32),
         np.zeros(args.players, np.float32)]
    loss = 0.0
    finishing = [0, 0, 0, 0]
    for _ in range(args.iterations):
        feats, ranks, took = self_play(w, args.rules, args.players, args.games, args.explore, rng)
        finishing = [a + b for a, b in zip(finishing, took)]
        loss = fit(w, feats, ranks, 2, 0.01, rng)
    print(f"trained: {args.iterations} rounds of {args.games} self-play games, {n_in} inputs, "
          f"{args.hidden} hidden, cross-entropy {loss:.3f}")
    print(f"self-play valued {finishing[3]} of {finishing[2]} moves that finish first at 1 and took one "
          f"at {finishing[1]} of the {finishing[0]} greedy choices that had one")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.out) if args.out else Path(tmp) / "net.safetensors"
        nets.save_net(path, *w, rules=args.rules, players=args.players,
                      metadata={"trainer": "python/examples/numpy_value_net.py"})
        bot = f"td:net={path}"
        match = aeroplane.run([bot] + ["random"] * (args.players - 1), rules=args.rules,
                              games=args.match_games, seed=args.seed + 1000, rotate_seats=True)
        me = match["report"]["summary"]["bots"][0]
        low, high = me["interval"]
        print(f"td:net (ply 0) won {100 * me['win_rate']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%] "
              f"of {me['counts']['games']} games against random; random against random wins 50%")
        env = aeroplane.VecEnv(64, args.rules, args.players, seed=args.seed,
                               opponents=[bot] * (args.players - 1))
        obs, mask = env.reset()
        games = wins = 0
        while games < 200:
            actions = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)
            obs, rewards, terminated, mask = env.step(actions)
            games += int(terminated.sum())
            wins += int((rewards[terminated] == 1).sum())
        print(f"a random agent against the net as its VecEnv opponent won {100 * wins / games:.1f}% "
              f"of {games} games")
    print(f"in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
