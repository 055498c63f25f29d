"""aeroplane.VecEnv against single games played through the state API and against the command
line's games; shapes, bad input, memory, the GIL."""

from __future__ import annotations

import csv
import threading

import numpy as np
import pytest

import aeroplane
from aeroplane import Game, SeededDice, VecEnv, bot_seed
from aeroplane.bots import Bot

from conftest import run_cli


def highest(mask_row: np.ndarray) -> int:
    """A deterministic agent: the highest legal action."""
    return int(np.flatnonzero(mask_row)[-1])


class Reference:
    """Environment `i` of a VecEnv, played one game at a time through aeroplane.Game."""

    def __init__(self, i, n, rules, players, seed, opponents, rotate=False, agent=0, forced=False):
        self.i, self.n, self.rules, self.players, self.seed = i, n, rules, players, seed
        self.lineup = None if opponents is None else opponents[:agent] + [None] + opponents[agent:]
        self.rotate, self.forced = rotate, forced
        self.start(i)

    def start(self, g):
        self.index = g
        deal, rot = (g // self.players, g % self.players) if self.rotate else (g, 0)
        self.game = Game(self.rules, self.players)
        self.dice = SeededDice(self.seed, deal)
        self.who = {}
        for k, seat in enumerate(self.game.seats):
            entry = (k + rot) % self.players
            name = None if self.lineup is None else self.lineup[entry]
            if name is None:
                self.who[seat] = None
            else:
                bot = Bot(name)
                bot.new_game(seat, bot_seed(self.seed, deal, seat))
                self.who[seat] = bot
        self.agent_seat = next(s for s, b in self.who.items() if b is None)
        self.decided = self.idle = False

    def advance(self):
        """Plays to the agent's next decision, starting new games as they end; a game in which
        the agent had no choice stops at its end (idle). Returns the returns of the game that
        ended (or None)."""
        ended = None
        while True:
            while not self.game.is_terminal():
                if self.game.is_chance_node():
                    self.dice.roll_for(self.game)
                    continue
                bot = self.who[self.game.to_move]
                legal = self.game.legal_actions()
                if bot is None and (len(legal) >= 2 or self.forced):
                    self.decided = True
                    return ended
                self.game.apply_action(legal[0] if bot is None else bot.choose(self.game))
            if not self.decided:
                self.idle = True
                return ended
            ended = (self.game.returns(), self.agent_seat, self.game.status)
            self.start(self.index + self.n)

    def act(self, action):
        """Plays the agent's action (action 0 at the end of a game without a choice, which
        reports it) and on to its next decision; returns what ended."""
        if self.idle:
            ended = (self.game.returns(), self.agent_seat, self.game.status)
            self.start(self.index + self.n)
            assert self.advance() is None
            return ended
        self.game.apply_action(action)
        return self.advance()

    def observer(self):
        return self.agent_seat if self.idle and self.lineup is not None else self.game.to_move

    def mask(self):
        if self.idle:
            return np.eye(8, dtype=bool)[0]
        return self.game.legal_actions_mask()


@pytest.mark.parametrize(
    "rules, players, opponents, rotate, agent, forced",
    [
        ("appfreegame", 2, ["random"], False, 0, False),
        ("classic", 4, ["greedy", "random", "random"], False, 2, False),
        ("chinese", 3, ["random", "greedy"], True, 1, False),
        ("classic", 3, None, False, 0, False),
        ("appfreegame", 2, ["random"], False, 1, True),
        (aeroplane.Rules(planes=2, max_turns=30), 2, ["greedy"], True, 0, False),
    ],
)
def test_matches_single_games(rules, players, opponents, rotate, agent, forced):
    n, seed = 5, 17
    env = VecEnv(n, rules, players, seed=seed, opponents=opponents, rotate_seats=rotate,
                 agent=agent, forced_moves=forced)
    refs = [Reference(i, n, rules, players, seed, opponents, rotate, agent, forced) for i in range(n)]
    for r in refs:
        r.advance()
    obs, mask = env.reset()
    ended_games = idle_steps = 0
    for step in range(120):
        for i, r in enumerate(refs):
            seat = r.observer()
            np.testing.assert_array_equal(obs[i], r.game.observation(seat))
            np.testing.assert_array_equal(mask[i], r.mask())
            assert env.game(i) == r.game and env.idle[i] == r.idle
            assert env.game_index[i] == r.index and env.seat[i] == seat
            assert env.player[i] == r.game.player_of(seat)
            idle_steps += r.idle
        actions = np.array([highest(m) for m in mask])
        for i, r in enumerate(refs):
            refs[i].last = r.act(int(actions[i]))
        obs, rewards, terminated, mask = env.step(actions)
        for i, r in enumerate(refs):
            assert terminated[i] == (r.last is not None)
            if r.last is not None:
                ended_games += 1
                returns, agent_seat, status = r.last
                if opponents is None:
                    game = Game(rules, players)
                    np.testing.assert_allclose(rewards[i], [returns[s] for s in game.seats], rtol=1e-6)
                else:
                    assert rewards[i] == pytest.approx(returns[agent_seat])
                assert env.truncated[i] == (status == "unfinished")
            elif opponents is not None:
                assert rewards[i] == 0
    assert ended_games > 0
    if rules == "appfreegame" and players == 2 and not forced:
        assert idle_steps == 0


@pytest.mark.parametrize("rotate", [False, True])
def test_plays_the_command_lines_games(cli, tmp_path, rotate):
    """The agent plays greedy (through aeroplane.bots.Greedy on env.game(i)): every game ends
    as the command line's game of the same index with greedy in the agent's place."""
    n, seed, lineup = 6, 9, ["greedy", "random", "greedy", "random"]
    env = VecEnv(n, "classic", 4, seed=seed, opponents=lineup[1:], rotate_seats=rotate)
    greedy = aeroplane.bots.Greedy()
    obs, mask = env.reset()
    results = {}
    while len(results) < 24:
        before = env.game_index.copy()
        actions = np.array([greedy.choose(env.game(i)) for i in range(n)])
        obs, rewards, terminated, mask = env.step(actions)
        for i in np.flatnonzero(terminated):
            results[int(before[i])] = float(rewards[i])
    out = tmp_path / "cli"
    deals = max(results) // (4 if rotate else 1) + 1
    args = ["run", "--rules", "classic", "--bots", ",".join(lineup), "--games", str(deals),
            "--seed", str(seed), "--per-game", "--out", str(out), "-q"]
    run_cli(cli, *(args + (["--rotate-seats"] if rotate else [])))
    rows = {int(r["game"]): r for r in csv.DictReader(open(out / "games.csv"))}
    for g, reward in results.items():
        row = rows[g]
        agent_seat = next(s for s in range(4) if row[f"bot_seat{s}"] == "0")
        rank = int(row[f"rank_seat{agent_seat}"])
        assert reward == pytest.approx((4 + 1 - 2 * rank) / 3), f"game {g}"


def test_arrays_and_attributes():
    env = VecEnv(16, "appfreegame", 2, seed=3, opponents=["greedy"])
    obs, mask = env.reset()
    assert obs.shape == (16, 170) and obs.dtype == np.float32
    assert mask.shape == (16, 8) and mask.dtype == np.bool_
    assert (mask.sum(1) >= 2).all()  # the agent is asked only when it has a choice
    obs2, rewards, terminated, mask2 = env.step(mask.argmax(1))
    assert rewards.shape == (16,) and rewards.dtype == np.float32
    assert terminated.shape == (16,) and terminated.dtype == np.bool_
    assert len(env) == env.num_envs == 16 and env.players == 2
    assert env.observation_len == 170 and env.num_actions == 8
    assert env.opponents == ["greedy"] and env.seed == 3
    assert list(env.game_index) == list(range(16)) or terminated.any()
    self_play = VecEnv(4, "classic", 3, seed=1)
    o, m = self_play.reset()
    _, r, _, _ = self_play.step(m.argmax(1))
    assert r.shape == (4, 3)
    # reset() starts game i again: the same arrays.
    again = VecEnv(16, "appfreegame", 2, seed=3, opponents=["greedy"])
    np.testing.assert_array_equal(again.reset()[0], obs)
    np.testing.assert_array_equal(env.reset()[0], obs)
    assert not np.array_equal(env.reset(seed=4)[0], obs)
    assert env.seed == 4
    forced = VecEnv(64, "appfreegame", 2, seed=1, opponents=["random"], forced_moves=True)
    _, fm = forced.reset()
    assert (fm.sum(1) == 1).any()


def test_bad_input():
    env = VecEnv(4, "appfreegame", 2, seed=1, opponents=["random"])
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(4, np.int64))
    obs, mask = env.reset()
    good = mask.argmax(1)
    with pytest.raises(ValueError, match=r"actions must have shape \(4,\)"):
        env.step(good[:3])
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.step(np.stack([good, good]))
    with pytest.raises(TypeError, match="integer array.*float64"):
        env.step(good.astype(np.float64))
    with pytest.raises(TypeError, match="numpy integer array"):
        env.step("0000")
    bad = good.copy()
    illegal = int(np.flatnonzero(~mask[2])[0])
    bad[2] = illegal
    with pytest.raises(ValueError, match=rf"actions\[2\] = {illegal} is not a legal action of environment 2: legal actions are"):
        env.step(bad)
    with pytest.raises(ValueError, match=r"actions\[0\] = -1"):
        env.step(np.array([-1, 0, 0, 0]))
    # A refused step changes nothing: the same actions still play.
    env.step(good.astype(np.int32))
    env.step(list(env.reset()[1].argmax(1)))
    for kwargs, error, words in [
        ({"n": 0}, ValueError, "1 to"),
        ({"n": aeroplane.MAX_ENVS + 1}, ValueError, "1 to"),
        ({"n": 2.5}, TypeError, "n must be an integer"),
        ({"n": 4, "players": 5}, ValueError, "players must be 2, 3 or 4"),
        ({"n": 4, "opponents": ["greedy", "greedy"]}, ValueError, "2 opponent"),
        ({"n": 4, "opponents": ["grede"]}, ValueError, "unknown bot `grede`"),
        ({"n": 4, "opponents": [lambda g: 0]}, TypeError, "Python bot cannot play inside"),
        ({"n": 4, "opponents": 3}, TypeError, "opponents must be"),
        ({"n": 4, "opponents": ["random"], "agent": 2}, ValueError, "agent = 2"),
        ({"n": 4, "rules": "nonesuch"}, ValueError, "unknown rules preset"),
        ({"n": 4, "seed": -1}, ValueError, "seed -1"),
        ({"n": 2000, "opponents": ["mcts"]}, ValueError, "at most 1024"),
        ({"n": 4, "opponents": ["bots/examples/greedy-py.toml"]}, ValueError, "bot program"),
        ({"n": 4, "rules": aeroplane.Rules(planes=1)}, ValueError, "forced_moves=True"),
    ]:
        with pytest.raises(error, match=words):
            VecEnv(**{"players": 2, **kwargs})


def rss_bytes() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def test_a_million_environments_in_bounded_memory_with_the_gil_released():
    n = 1_000_000
    before = rss_bytes()
    env = VecEnv(n, "appfreegame", 2, seed=1, opponents=["random"])
    obs, mask = env.reset()
    count = [0]
    stop = threading.Event()

    def count_up():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=count_up)
    t.start()
    try:
        rng = np.random.default_rng(0)
        actions = (rng.random(mask.shape, dtype=np.float32) * mask).argmax(1)
        del obs, mask
        c0 = count[0]
        obs, rewards, terminated, mask = env.step(actions)
        c1 = count[0]
    finally:
        stop.set()
        t.join()
    per_env = (rss_bytes() - before) / n
    # The state (304 bytes with a random opponent) and one step's arrays (693 bytes).
    assert per_env < 1400, f"{per_env:.0f} bytes per environment"
    assert c1 - c0 > 100, "another Python thread ran while the step was playing"
