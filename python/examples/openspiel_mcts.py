"""OpenSpiel's MCTS bot against a built-in bot (greedy by default), two players.

    python python/examples/openspiel_mcts.py --games 20
    python python/examples/openspiel_mcts.py --games 200 --opponent random --simulations 200
    python python/examples/openspiel_mcts.py --games 2 --openspiel-rollouts   # pure OpenSpiel

The searcher is open_spiel.python.algorithms.mcts.MCTSBot (UCT with chance nodes) on the
registered pyspiel game "aeroplane". Its leaves are valued by random rollouts: by default
aeroplane.openspiel.RolloutEvaluator, which plays each rollout in Rust; with
--openspiel-rollouts, OpenSpiel's own RandomRolloutEvaluator (each rollout stepped through
pyspiel, some hundred times slower). The opponent is an aeroplane.bots bot choosing on the
state's aeroplane.Game. Seats alternate between games; the dice come from a seeded generator,
so a run is reproducible. Needs `pip install ./python[openspiel]`.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

import aeroplane
import aeroplane.openspiel


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--simulations", type=int, default=200)
    p.add_argument("--uct-c", type=float, default=2.0)
    p.add_argument("--opponent", default="greedy", help="a bot name, as aeroplane run --bots takes it")
    p.add_argument("--rules", default="appfreegame")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--openspiel-rollouts", action="store_true",
                   help="value leaves with OpenSpiel's RandomRolloutEvaluator")
    args = p.parse_args()

    aeroplane.openspiel.register()
    game = pyspiel.load_game(f"aeroplane(players=2,rules={args.rules})")
    rng = np.random.RandomState(args.seed)
    evaluator = (mcts.RandomRolloutEvaluator(1, rng) if args.openspiel_rollouts
                 else aeroplane.openspiel.RolloutEvaluator(1, rng))
    searcher = mcts.MCTSBot(game, uct_c=args.uct_c, max_simulations=args.simulations,
                            evaluator=evaluator, random_state=rng)
    opponent = aeroplane.bots.load(args.opponent)
    wins = 0
    start = time.perf_counter()
    for g in range(args.games):
        me = g % 2  # MCTS plays first in even games, second in odd ones
        opponent.new_game(aeroplane.Game(args.rules, 2).seat_of(1 - me), args.seed * 1_000_003 + g)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            elif state.current_player() == me:
                action = searcher.step(state)
            else:
                action = opponent.choose(state.game)
            state.apply_action(action)
        won = state.returns()[me] > 0
        wins += won
        print(f"game {g + 1:3d}: MCTS as player {me} {'won' if won else 'lost'}; "
              f"{wins}/{g + 1} so far ({time.perf_counter() - start:.0f} s)", flush=True)
    rate = wins / args.games
    half = 1.96 * math.sqrt(rate * (1 - rate) / args.games)
    print(f"MCTS ({args.simulations} simulations) against {args.opponent}: won {wins} of "
          f"{args.games} = {rate:.1%} (+/- {half:.1%}, 95% normal interval)")


if __name__ == "__main__":
    main()
