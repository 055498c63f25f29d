"""REINFORCE with numpy only: a linear softmax policy learns to beat a random player.

    python python/examples/reinforce.py                  # under two minutes; prints its win rate
    python python/examples/reinforce.py --iterations 10  # a shorter run

The agent is player 0 of two-player appfreegame against the built-in random bot, in
aeroplane.VecEnv: each step plays one decision in each of --envs games; the die rolls and the
opponent's moves are played inside Rust, and the agent is asked only when it has a choice.

The policy scores each legal action from the features of the plane it moves, read from the
observation (the 9 numbers of the agent's own plane p, for action p and 4 + p, and whether the
action stays on the flight cell): a softmax over theta . features, shared by the four planes.
For each game the agent keeps the sum of the gradients of log pi(action) over its decisions;
when the game ends that sum, weighted by (return - baseline), goes into the update: REINFORCE,
with a running mean of the returns as the baseline. The win rate printed is over the games
finished in each iteration (random against random wins half of them).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import aeroplane

PLANE = 9  # numbers per plane in an observation (docs/RULES.md)
FEATURES = ["hangar", "take-off", "ring", "lane", "home", "progress", "cell", "moved", "latest", "stay"]


def features(obs: np.ndarray) -> np.ndarray:
    """(n, 8, 10): for action a, the agent's plane a % 4 and whether a stays (a >= 4)."""
    own = obs[:, : 4 * PLANE].reshape(-1, 4, PLANE)
    planes = np.concatenate([own, own], axis=1)
    stay = np.zeros((len(obs), 8, 1), np.float32)
    stay[:, 4:] = 1.0
    return np.concatenate([planes, stay], axis=2)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--envs", type=int, default=2048)
    p.add_argument("--steps", type=int, default=20, help="steps of every game per iteration")
    p.add_argument("--lr", type=float, default=2.0)
    p.add_argument("--report-every", type=int, default=10, help="iterations per line of output")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()

    rng = np.random.default_rng(args.seed)
    env = aeroplane.VecEnv(args.envs, "appfreegame", 2, seed=args.seed, opponents=["random"])
    n = args.envs
    theta = np.zeros(len(FEATURES), np.float32)
    running = np.zeros((n, len(FEATURES)), np.float32)  # per game: sum of grad log pi
    baseline = 0.0
    obs, mask = env.reset()
    start = time.perf_counter()
    rates = []
    window_games = window_wins = 0
    for it in range(1, args.iterations + 1):
        update = np.zeros_like(theta)
        finished = wins = 0
        for _ in range(args.steps):
            phi = features(obs)
            logits = np.where(mask, phi @ theta, -np.inf)
            pi = np.exp(logits - logits.max(1, keepdims=True))
            pi /= pi.sum(1, keepdims=True)
            actions = (pi.cumsum(1) > rng.random((n, 1))).argmax(1)
            running += phi[np.arange(n), actions] - np.einsum("na,naf->nf", pi, phi)
            obs, rewards, done, mask = env.step(actions)
            if done.any():
                returns = rewards[done]
                update += (returns - baseline) @ running[done]
                running[done] = 0.0
                baseline += 0.1 * (float(returns.mean()) - baseline)
                finished += int(done.sum())
                wins += int((returns > 0).sum())
        theta += args.lr * update / max(finished, 1)
        window_games += finished
        window_wins += wins
        if it % args.report_every == 0 or it == args.iterations:
            rates.append(window_wins / max(window_games, 1))
            print(f"iterations {it - (it - 1) % args.report_every:4d}-{it:<4d} win rate {rates[-1]:6.1%} "
                  f"over {window_games:6,d} games ({time.perf_counter() - start:5.1f} s)", flush=True)
            window_games = window_wins = 0
    weights = ", ".join(f"{name} {w:+.2f}" for name, w in zip(FEATURES, theta))
    print(f"weights: {weights}")
    print(f"win rate against random: {rates[0]:.1%} at first, {rates[-1]:.1%} at the end "
          f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
