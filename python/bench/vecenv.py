"""Throughput of aeroplane.VecEnv with random masked actions sampled in numpy.

    python python/bench/vecenv.py                 # VecEnv(4096), 2 players against random
    python python/bench/vecenv.py --envs 4096 --players 4 --opponents greedy,greedy,greedy
    python python/bench/vecenv.py --game          # also: one Game stepped from Python
    python python/bench/vecenv.py --out           # step(..., out=...) into the same arrays

Prints the median agent steps per second of --repeats timed runs (each --steps calls of
step() on every environment), the CPU time per agent step (all threads, less sensitive to
other load than the wall clock), and the machine's 1-minute load average: the machine is
shared, so quote medians with the load. Build the package in release mode (pip install ./python does)
before measuring.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import aeroplane


def vecenv_rate(args: argparse.Namespace) -> tuple[list[float], list[float]]:
    """Agent steps per second, and CPU nanoseconds per agent step, of each timed run."""
    opponents = None if args.opponents == "self" else args.opponents.split(",")
    env = aeroplane.VecEnv(args.envs, args.rules, args.players, seed=1, opponents=opponents,
                           threads=args.threads)
    rng = np.random.default_rng(0)
    obs, mask = env.reset()
    rewards = np.zeros((args.envs, args.players) if opponents is None else args.envs, np.float32)
    terminated = np.zeros(args.envs, np.bool_)
    out = (obs, rewards, terminated, mask) if args.out else None
    # With out=, the sampling reuses its arrays too.
    scores = np.empty(mask.shape, np.float32)
    actions = np.empty(args.envs, np.int64)

    def sample() -> np.ndarray:
        if args.out:
            rng.random(mask.shape, dtype=np.float32, out=scores)
            np.multiply(scores, mask, out=scores)
            return scores.argmax(1, out=actions)
        return (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)

    for _ in range(10):  # warm-up: page in the arrays, start the workers
        got = env.step(sample(), out=out)
        mask = got[3]
    rates, cpu = [], []
    for _ in range(args.repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        for _ in range(args.steps):
            obs, rewards, terminated, mask = env.step(sample(), out=out)
        rates.append(args.envs * args.steps / (time.perf_counter() - start))
        cpu.append((time.process_time() - start_cpu) / (args.envs * args.steps) * 1e9)
    return rates, cpu


def game_step_cost(repeats: int) -> list[float]:
    """Microseconds per decision of one Game driven from Python: roll (SeededDice.roll_for),
    legal_actions, apply_action, as a Python agent loop does it."""
    costs = []
    for r in range(repeats):
        decisions = 0
        start = time.perf_counter()
        for g in range(200):
            game = aeroplane.Game("appfreegame", 2)
            dice = aeroplane.SeededDice(r, g)
            while not game.is_terminal():
                if game.is_chance_node():
                    dice.roll_for(game)
                    continue
                game.apply_action(game.legal_actions()[0])
                decisions += 1
        costs.append((time.perf_counter() - start) / decisions * 1e6)
    return costs


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--envs", type=int, default=4096)
    p.add_argument("--rules", default="appfreegame")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponents", default="random", help="comma-separated bots, or 'self' for self-play")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--game", action="store_true", help="also time one Game stepped from Python")
    p.add_argument("--out", action="store_true", help="step into the same arrays (out=)")
    args = p.parse_args()
    load_before = os.getloadavg()[0]
    rates, cpu = vecenv_rate(args)
    load = f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(
        f"VecEnv({args.envs}) {args.rules}, {args.players} players, opponents {args.opponents}"
        f"{', out=' if args.out else ''}: "
        f"median {statistics.median(rates):,.0f} agent steps/s "
        f"(min {min(rates):,.0f}, max {max(rates):,.0f}; {args.repeats} runs of {args.steps} steps); "
        f"CPU {statistics.median(cpu):.0f} ns per agent step (numpy sampling included); "
        f"load average {load}; {os.cpu_count()} cores"
    )
    if args.game:
        costs = game_step_cost(args.repeats)
        print(
            f"Game from Python (roll, legal_actions, apply_action): median {statistics.median(costs):.2f} us "
            f"per decision (min {min(costs):.2f}, max {max(costs):.2f})"
        )


if __name__ == "__main__":
    main()
