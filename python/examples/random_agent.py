"""A random agent, two ways: one game through the state API, then many at once in a VecEnv.

    python python/examples/random_agent.py
    python python/examples/random_agent.py --envs 4096 --steps 200 --players 4
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

import aeroplane


def one_game(seed: int) -> None:
    """Game 0 of seed `seed`: the dice every `aeroplane run --seed` gives it, random choices."""
    game = aeroplane.Game("classic", players=2)
    dice = aeroplane.SeededDice(seed, 0)
    rng = random.Random(seed)
    decisions = 0
    while not game.is_terminal():
        if game.is_chance_node():
            dice.roll_for(game)  # rolls for the seat to move; a roll without a move is played
            continue
        action = rng.choice(game.legal_actions())
        if decisions < 3:
            print(f"  seat {game.to_move} rolled {game.pending_roll}: {game.action_to_string(action)}")
        game.apply_action(action)
        decisions += 1
    print(f"one game: {decisions} decisions, {game.turns} turns, winner seat {game.winner}, "
          f"returns {game.returns()}")
    print(f"  final position: {game}")


def many_games(envs: int, steps: int, players: int, seed: int) -> None:
    """`envs` games against random opponents; actions sampled in numpy from the mask."""
    env = aeroplane.VecEnv(envs, "appfreegame", players, seed=seed, opponents=["random"] * (players - 1))
    rng = np.random.default_rng(seed)
    obs, mask = env.reset()
    games = wins = 0
    start = time.perf_counter()
    for _ in range(steps):
        actions = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)
        obs, rewards, terminated, mask = env.step(actions)
        games += int(terminated.sum())
        wins += int((rewards[terminated] == 1).sum())
    elapsed = time.perf_counter() - start
    print(f"VecEnv({envs}), {players} players: {envs * steps:,} agent steps in {elapsed:.2f} s "
          f"({envs * steps / elapsed:,.0f} steps/s); {games:,} games finished, the random agent "
          f"won {wins / max(games, 1):.1%} (1/{players} expected)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--envs", type=int, default=1024)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    one_game(args.seed)
    many_games(args.envs, args.steps, args.players, args.seed)


if __name__ == "__main__":
    main()
