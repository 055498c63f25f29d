"""Imitation learning with numpy only: a policy learns expectimax's choices from its decision
log, then plays a match.

    python python/examples/imitation.py                 # under a minute; prints what it learnt
    python python/examples/imitation.py --games 100 --match-games 400   # a shorter run

1. ``aeroplane.run`` plays expectimax against random (two players, seats rotated) and logs every
   decision (``log_games``, docs/LOG.md).
2. ``aeroplane.read_log`` reads the log as numpy arrays: the observation, legal-action mask and
   action of every decision, checked against the engine.
3. A small network scores each legal action from the features of the plane it moves (the 9
   numbers of the agent's plane p in the observation, for action p and 4 + p, and whether the
   action stays on the flight cell) and the whole observation, through one hidden layer shared
   by the actions; a softmax
   over the legal actions is trained by cross-entropy on expectimax's choices (Adam,
   minibatches), on the first 80% of the games, and measured on the rest.
4. The trained policy plays as a Python bot in ``aeroplane.run`` against random, seats rotated,
   on other seeds than the log's; random against random wins half.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

import aeroplane

class Policy:
    """Scores s(a) = w2 . tanh(W1 f(a) + b1) over the legal actions' features f(a)."""

    def __init__(self, inputs: int, hidden: int, rng: np.random.Generator):
        self.w1 = rng.normal(0, 1 / np.sqrt(inputs), (inputs, hidden)).astype(np.float32)
        self.b1 = np.zeros(hidden, np.float32)
        self.w2 = rng.normal(0, 1 / np.sqrt(hidden), hidden).astype(np.float32)

    def params(self) -> list[np.ndarray]:
        return [self.w1, self.b1, self.w2]

    def scores(self, f: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.tanh(f @ self.w1 + self.b1)
        s = h @ self.w2
        return np.where(mask, s, -np.inf), h

    def grads(self, f: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> tuple[float, list[np.ndarray]]:
        """Mean cross-entropy of the chosen actions and its gradients."""
        s, h = self.scores(f, mask)
        s = s - s.max(1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(1, keepdims=True)
        n = len(actions)
        loss = -float(np.log(p[np.arange(n), actions] + 1e-12).mean())
        ds = p
        ds[np.arange(n), actions] -= 1
        ds /= n
        dw2 = np.einsum("nah,na->h", h, ds)
        dpre = ds[..., None] * self.w2 * (1 - h * h)
        dw1 = np.einsum("nai,nah->ih", f, dpre)
        db1 = dpre.sum((0, 1))
        return loss, [dw1, db1, dw2]

    def choose(self, game: aeroplane.Game) -> int:
        """The bot's move: the legal action of highest score (as a Python bot in a run)."""
        seat = game.to_move
        after = np.zeros((1, 8, aeroplane.OBSERVATION_LEN), np.float32)
        for a in game.legal_actions():
            child = game.clone()
            child.apply_action(a)
            after[0, a] = child.observation(seat)
        s, _ = self.scores(after, game.legal_actions_mask()[None])
        return int(s[0].argmax())


def train(policy: Policy, f: np.ndarray, mask: np.ndarray, actions: np.ndarray, steps: int,
          batch: int, lr: float, rng: np.random.Generator) -> float:
    """Adam on minibatches; returns the last loss."""
    m = [np.zeros_like(p) for p in policy.params()]
    v = [np.zeros_like(p) for p in policy.params()]
    loss = 0.0
    for t in range(1, steps + 1):
        idx = rng.integers(len(actions), size=batch)
        loss, grads = policy.grads(f[idx], mask[idx], actions[idx])
        for p, g, mi, vi in zip(policy.params(), grads, m, v):
            mi *= 0.9
            mi += 0.1 * g
            vi *= 0.999
            vi += 0.001 * g * g
            p -= lr * (mi / (1 - 0.9**t)) / (np.sqrt(vi / (1 - 0.999**t)) + 1e-8)
    return loss


def accuracy(policy: Policy, f: np.ndarray, mask: np.ndarray, actions: np.ndarray) -> float:
    s, _ = policy.scores(f, mask)
    return float((s.argmax(1) == actions).mean())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--teacher", default="expectimax:depth=1", help="the bot imitated")
    p.add_argument("--games", type=int, default=300, help="deals of the teacher's logged run")
    p.add_argument("--match-games", type=int, default=1000, help="deals of the match against random")
    p.add_argument("--steps", type=int, default=1000, help="training steps")
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "teacher"
        report = aeroplane.run([args.teacher, "random"], games=args.games, seed=args.seed,
                               rotate_seats=True, out=str(out), log_games="games.jsonl.zst")
        teacher_rate = report["report"]["summary"]["bots"][0]["win_rate"]
        log = aeroplane.read_log(out / "games.jsonl.zst", afterstates=True)
    mine = log["bot"] == 0  # the teacher's decisions (lineup entry 0)
    f, mask, actions, games = log["afterstate"][mine], log["mask"][mine], log["action"][mine], log["game"][mine]
    split = np.quantile(games, 0.8)
    fit, held = games <= split, games > split
    print(f"log: {len(log['action'])} decisions, {int(mine.sum())} of them {args.teacher}'s "
          f"({fit.sum()} to train on, {held.sum()} held out)")
    policy = Policy(f.shape[2], args.hidden, rng)
    before = accuracy(policy, f[held], mask[held], actions[held])
    loss = train(policy, f[fit], mask[fit], actions[fit], args.steps, 1024, 0.01, rng)
    after = accuracy(policy, f[held], mask[held], actions[held])
    print(f"agreement with {args.teacher} on held-out decisions: {100 * before:.1f}% before training, "
          f"{100 * after:.1f}% after (cross-entropy {loss:.3f})")
    match = aeroplane.run([policy.choose, "random"], games=args.match_games, seed=args.seed + 1000,
                          rotate_seats=True)
    me = match["report"]["summary"]["bots"][0]
    low, high = me["interval"]
    print(f"the imitation policy won {100 * me['win_rate']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%] "
          f"of {me['counts']['games']} games against random; {args.teacher} won "
          f"{100 * teacher_rate:.1f}% of its logged games; random against random wins 50%")
    print(f"in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
