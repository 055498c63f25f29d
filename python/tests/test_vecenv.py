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
        actions = np.array([0 if env.idle[i] else greedy.choose(env.game(i)) for i in range(n)])
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


def test_every_game_is_reported_with_its_return():
    """Issue #31 item 16: games in which the agent had no choice were played through but never
    reported, biasing win rates. Now each takes one idle step at its end (the mask allows
    action 0 alone) and that step reports it: every game of every environment appears once,
    in order, with its return."""
    n = 64
    env = VecEnv(n, "appfreegame", 4, seed=1, opponents=["greedy", "greedy", "greedy"])
    obs, mask = env.reset()
    reported = {i: [] for i in range(n)}
    idle_games = 0
    for _ in range(3000):
        idle = env.idle.copy()
        before = env.game_index.copy()
        actions = np.array([highest(m) for m in mask])
        assert (mask[idle].sum(1) == 1).all() and mask[idle, 0].all()
        obs, rewards, terminated, mask = env.step(actions)
        ended = env.ended()
        np.testing.assert_array_equal(ended["env"], np.flatnonzero(terminated))
        np.testing.assert_array_equal(ended["returns"], rewards[terminated])
        np.testing.assert_array_equal(ended["game"], before[terminated])
        np.testing.assert_array_equal(ended["no_choice"], idle[terminated])
        idle_games += int(idle.sum())
        for i, g, r in zip(ended["env"], ended["game"], ended["returns"]):
            reported[int(i)].append(int(g))
            assert r in (1.0, -1 / 3) or abs(r + 1 / 3) < 1e-6
    assert idle_games > 0, "no game without a choice for the agent: the test shows nothing"
    for i, games in reported.items():
        assert games == list(range(i, i + n * len(games), n)), f"environment {i} skipped a game"


def test_exact_opponents_are_checked_at_construction(tmp_path):
    """Issue #31 item 17: an exact bot whose table cannot be read is refused at load, naming
    the table (not at its first choice, nor at reset)."""
    missing = tmp_path / "nonexistent"
    with pytest.raises(ValueError, match=f"{missing}"):
        aeroplane.bots.load(f"exact:table={missing}")
    with pytest.raises(ValueError, match=f"{missing}"):
        VecEnv(2, players=2, opponents=[f"exact:table={missing}"])


def play_from(ref, game, forced=False):
    """Puts `game` into reference `ref` as VecEnv.set_state does: its game's dice and opponent
    seeds afresh, then a waiting roll, then on to the agent's decision."""
    deal = ref.index // ref.players if ref.rotate else ref.index
    ref.game = game.clone()
    ref.dice = SeededDice(ref.seed, deal)
    for seat, bot in ref.who.items():
        if bot is not None:
            bot.new_game(seat, bot_seed(ref.seed, deal, seat))
    ref.decided = ref.idle = False
    if not ref.game.is_chance_node():
        bot = ref.who[ref.game.to_move]
        legal = ref.game.legal_actions()
        if bot is None and (len(legal) >= 2 or forced):
            ref.decided = True
            return
        ref.game.apply_action(legal[0] if bot is None else bot.choose(ref.game))
    ref.advance()


def test_set_state_plays_on_as_the_state_api():
    n, rules, players, seed, opponents = 3, "classic", 3, 5, ["greedy", "random"]
    env = VecEnv(n, rules, players, seed=seed, opponents=opponents)
    refs = [Reference(i, n, rules, players, seed, opponents) for i in range(n)]
    for r in refs:
        r.advance()
    obs, mask = env.reset()
    # A position from elsewhere: game 0 of seed 99 after 40 rolls, at a chance or decision node.
    positions = []
    g = Game(rules, players)
    dice = SeededDice(99, 0)
    greedy = aeroplane.bots.Greedy()
    for k in range(120):
        if g.is_chance_node():
            dice.roll_for(g)
        else:
            g.apply_action(greedy.choose(g))
        if k in (40, 81):
            positions.append(g.clone())
    for step in range(60):
        if step in (0, 30):
            target = 1 if step == 0 else 2
            got_obs, got_mask = env.set_state(target, positions[step // 30])
            play_from(refs[target], positions[step // 30])
            np.testing.assert_array_equal(got_obs, refs[target].game.observation(refs[target].observer()))
            np.testing.assert_array_equal(got_mask, refs[target].mask())
            assert env.get_state(target) == refs[target].game
            obs, mask = env.observe()
        for i, r in enumerate(refs):
            np.testing.assert_array_equal(obs[i], r.game.observation(r.observer()))
            np.testing.assert_array_equal(mask[i], r.mask())
            assert env.get_state(i) == r.game
        actions = np.array([highest(m) for m in mask])
        lasts = [r.act(int(a)) for r, a in zip(refs, actions)]
        obs, rewards, terminated, mask = env.step(actions)
        for i, last in enumerate(lasts):
            assert terminated[i] == (last is not None)
            if last is not None:
                assert rewards[i] == pytest.approx(last[0][last[1]])


def test_set_state_bad_input():
    env = VecEnv(2, "classic", 2, seed=1, opponents=["random"])
    with pytest.raises(RuntimeError, match="reset"):
        env.set_state(0, Game("classic", 2))
    env.reset()
    with pytest.raises(ValueError, match=r"rules are not this VecEnv's \(classic\): overshoot=bounce \(this VecEnv: overshoot=illegal\)"):
        env.set_state(0, Game(aeroplane.Rules("classic", overshoot="bounce"), 2))
    with pytest.raises(ValueError, match="the game has 4 players, this VecEnv 2"):
        env.set_state(0, Game("classic", 4))
    with pytest.raises(ValueError, match="environment 2: there are 2"):
        env.set_state(2, Game("classic", 2))
    with pytest.raises(TypeError, match="game must be an aeroplane.Game, not str"):
        env.set_state(0, str(Game("classic", 2)))
    over = Game.from_notation(str(env.game(0)), "classic")
    while not over.is_terminal():
        if over.is_chance_node():
            over.apply_roll(6)
        else:
            over.apply_action(over.legal_actions()[-1])
    with pytest.raises(ValueError, match="the game is over"):
        env.set_state(0, over)


def test_env_mask_steps_only_the_marked_environments():
    n, rules, players, seed, opponents = 6, "appfreegame", 2, 3, ["greedy"]
    env = VecEnv(n, rules, players, seed=seed, opponents=opponents)
    refs = [Reference(i, n, rules, players, seed, opponents) for i in range(n)]
    for r in refs:
        r.advance()
    obs, mask = env.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(150):
        active = rng.random(n) < 0.5
        actions = np.array([highest(m) for m in mask])
        actions[~active] = 99  # not read
        lasts = [r.act(int(a)) if on else None for r, a, on in zip(refs, actions, active)]
        obs, rewards, terminated, mask = env.step(actions, active)
        for i, r in enumerate(refs):
            np.testing.assert_array_equal(obs[i], r.game.observation(r.observer()))
            np.testing.assert_array_equal(mask[i], r.mask())
            assert terminated[i] == (lasts[i] is not None)
            if lasts[i] is None:
                assert rewards[i] == 0
            else:
                ended += 1
                assert rewards[i] == pytest.approx(lasts[i][0][lasts[i][1]])
    assert ended > 0
    with pytest.raises(TypeError, match="env_mask must be a numpy bool array"):
        env.step(actions, np.ones(n, np.int64))
    with pytest.raises(ValueError, match=r"env_mask must have shape \(6,\)"):
        env.step(actions, np.ones(5, np.bool_))


def test_lineups_per_environment_are_the_command_lines_runs(cli, tmp_path):
    """Each environment plays its own lineup: its games are the command line's games of that
    lineup with greedy in the agent's place."""
    lineups = [["greedy", "random", "greedy"], ["random", "random", "random"],
               ["greedy", "greedy", "random"]]
    n, seed = len(lineups), 4
    env = VecEnv(n, "classic", 4, seed=seed, opponents=lineups)
    assert env.opponents == lineups
    greedy = aeroplane.bots.Greedy()
    env.reset()
    results: dict[int, dict[int, float]] = {i: {} for i in range(n)}
    while min(len(r) for r in results.values()) < 6:
        before = env.game_index.copy()
        actions = np.array([0 if env.idle[i] else greedy.choose(env.game(i)) for i in range(n)])
        _, rewards, terminated, _ = env.step(actions)
        for i in np.flatnonzero(terminated):
            results[int(i)][int(before[i])] = float(rewards[i])
    for i, lineup in enumerate(lineups):
        out = tmp_path / f"cli{i}"
        games = max(results[i]) + 1
        run_cli(cli, "run", "--rules", "classic", "--bots", ",".join(["greedy"] + lineup),
                "--games", str(games), "--seed", str(seed), "--per-game", "--out", str(out), "-q")
        rows = {int(r["game"]): r for r in csv.DictReader(open(out / "games.csv"))}
        for g, reward in results[i].items():
            expected = (4 + 1 - 2 * int(rows[g]["rank_seat0"])) / 3
            assert reward == pytest.approx(expected), f"environment {i}, game {g}"
    with pytest.raises(ValueError, match=r"opponents\[1\]: 2 opponent\(s\) for 4 players"):
        VecEnv(3, "classic", 4, opponents=[lineups[0], lineups[1][:2], lineups[2]])
    with pytest.raises(ValueError, match="a list of 2 lineups for 3 environments"):
        VecEnv(3, "classic", 4, opponents=lineups[:2])


def test_seeds_per_environment():
    """reset(seed=[...]): environment i plays games 0, 1, 2, ... of its own seed."""
    seeds, rules, players, opponents = [7, 8, 2**64 - 1], "chinese", 3, ["random", "greedy"]
    env = VecEnv(3, rules, players, opponents=opponents)
    obs, mask = env.reset(seed=seeds)
    assert env.seed is None and list(env.seeds) == seeds and list(env.game_index) == [0, 0, 0]
    refs = [Reference(0, 1, rules, players, s, opponents) for s in seeds]
    for r in refs:
        r.advance()
    for _ in range(200):
        for i, r in enumerate(refs):
            np.testing.assert_array_equal(obs[i], r.game.observation(r.observer()))
            assert env.game_index[i] == r.index
        actions = np.array([highest(m) for m in mask])
        for r, a in zip(refs, actions):
            r.act(int(a))
        obs, _, _, mask = env.step(actions)
    assert max(r.index for r in refs) > 0
    env.reset(seed=[1, 2, 3], start=[5, 6, 7])
    assert list(env.game_index) == [5, 6, 7]
    with pytest.raises(ValueError, match="a list of 2 seeds for 3 environments"):
        env.reset(seed=[1, 2])
    with pytest.raises(ValueError, match=r"seed\[1\] -1"):
        env.reset(seed=[1, -1, 2])


def test_out_buffers_are_filled_without_allocating():
    import tracemalloc

    n = 4096
    a = VecEnv(n, "appfreegame", 2, seed=2, opponents=["random"])
    b = VecEnv(n, "appfreegame", 2, seed=2, opponents=["random"])
    obs = np.empty((n, aeroplane.OBSERVATION_LEN), np.float32)
    mask = np.empty((n, 8), np.bool_)
    rewards = np.empty(n, np.float32)
    terminated = np.empty(n, np.bool_)
    got = a.reset(out=(obs, mask))
    assert got[0] is obs and got[1] is mask
    want = b.reset()
    np.testing.assert_array_equal(obs, want[0])
    actions = np.empty(n, np.int64)
    tracemalloc.start()
    try:
        for _ in range(20):
            np.argmax(mask, axis=1, out=actions)
            step_want = b.step(actions)
            before = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            got = a.step(actions, out=(obs, rewards, terminated, mask))
            peak = tracemalloc.get_traced_memory()[1] - before
            assert got[0] is obs and got[1] is rewards and got[2] is terminated and got[3] is mask
            for x, y in zip(got, step_want):
                np.testing.assert_array_equal(x, y)
            # Without out= a step allocates 4096 x 693 bytes of arrays.
            assert peak < 16_384, f"{peak} bytes allocated by a step with out="
    finally:
        tracemalloc.stop()
    np.argmax(mask, axis=1, out=actions)
    for bad, error, words in [
        ((obs.astype(np.float64), rewards, terminated, mask), TypeError, "obs must be a C-contiguous writeable numpy array of dtype float32"),
        ((obs[:10], rewards, terminated, mask), ValueError, r"shape \(4096, 170\), got shape \[10, 170\]"),
        ((obs, rewards, terminated), ValueError, "out must be a tuple"),
        ((np.asfortranarray(obs), rewards, terminated, mask), ValueError, "not C-contiguous"),
    ]:
        with pytest.raises(error, match=words):
            a.step(actions, out=bad)
    frozen = mask.copy()
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="out: mask"):
        a.step(actions, out=(obs, rewards, terminated, frozen))
    # The refused steps changed nothing.
    a.step(actions, out=(obs, rewards, terminated, mask))


def test_rich_observation():
    env = VecEnv(8, "classic", 3, seed=1, opponents=["greedy", "random"], observation="rich")
    assert env.observation == "rich" and env.observation_len == aeroplane.RICH_OBSERVATION_LEN == 414
    obs, mask = env.reset()
    assert obs.shape == (8, 414)
    for _ in range(40):
        obs, _, _, mask = env.step(np.array([highest(m) for m in mask]))
    for i in range(8):
        game = env.game(i)
        seat = int(env.seat[i])
        np.testing.assert_array_equal(obs[i], game.observation(seat, kind="rich"))
        flat = game.observation(seat)
        np.testing.assert_array_equal(obs[i][:169], flat[:169])
        assert obs[i][169] == pytest.approx(min(game.turns / 1000, 1))
        blocks = obs[i][170:].reshape(4, 61)
        for r in range(4):
            s = (seat + r) % 4
            if s in game.seats:
                assert blocks[r].sum() == pytest.approx(1)
                for step in game.steps(s):
                    assert blocks[r][0 if step < 0 else step + 1] > 0
            else:
                assert not blocks[r].any()
    with pytest.raises(ValueError, match='observation "planes": allowed are "flat"'):
        VecEnv(2, observation="planes")


PEAK = """
import sys
import numpy as np
import aeroplane


def peak():
    # VmHWM, the peak resident set of this process since its exec (ru_maxrss can carry the
    # parent's peak over a fork).
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM")


n = int(sys.argv[1])
base = peak()
env = aeroplane.VecEnv(n, "appfreegame", 2, seed=1, opponents=["random"])
obs = np.empty((n, aeroplane.OBSERVATION_LEN), np.float32)
mask = np.empty((n, 8), np.bool_)
rewards = np.empty(n, np.float32)
terminated = np.empty(n, np.bool_)
actions = np.empty(n, np.int64)
env.reset(out=(obs, mask))
for _ in range(4):
    np.argmax(mask, axis=1, out=actions)
    env.step(actions, out=(obs, rewards, terminated, mask))
print((peak() - base) * 1024 / n)
"""


def test_a_million_environments_peak_with_out_buffers():
    """Issue #31 item 19: the README's loop keeps the last step's arrays while the next step
    makes new ones (a peak of 1.68 GiB for VecEnv(1_000_000)); with out= buffers the peak is the
    state (about 320 bytes per environment with a random opponent) and one set of arrays (693
    bytes) and the actions (8)."""
    import subprocess
    import sys

    from conftest import REPO

    p = subprocess.run([sys.executable, "-c", PEAK, "1000000"], cwd=REPO, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    per_env = float(p.stdout)
    assert 693 < per_env < 1100, f"{per_env:.0f} bytes per environment at the peak"


@pytest.mark.parametrize("rules, players, opponents, rotate", [
    ("classic", 2, ["random"], False),
    ("chinese", 3, ["random", "greedy"], True),
    ("appfreegame", 4, ["greedy", "greedy", "random"], False),
    ("classic", 3, ["montecarlo:rollouts=3", "mcts:iterations=12"], False),
])
def test_a_snapshot_restored_goes_on_with_the_same_game(rules, players, opponents, rotate):
    """Issue #48 item 16: get_state's game holds its environment's dice (the seed, the game
    index, the rolls drawn) and its opponents' generators, so set_state of it, after the
    environment played on, goes on with the same game: the same trajectory step for step,
    into the same next games. A copy does the same; a position changed since, or from
    elsewhere, starts the dice afresh as before."""
    import copy

    n = 4
    env = VecEnv(n, rules, players, seed=21, opponents=opponents, rotate_seats=rotate)
    obs, mask = env.reset()
    for _ in range(15):
        obs, _, _, mask = env.step(np.array([highest(m) for m in mask]))
    snaps = [env.get_state(i) for i in range(n)]
    copies = [copy.deepcopy(s) if i % 2 else s.clone() for i, s in enumerate(snaps)]
    start = (obs.copy(), mask.copy(), env.game_index.copy())

    def play(obs, mask):
        out = []
        for _ in range(150):
            obs, rewards, terminated, mask = env.step(np.array([highest(m) for m in mask]))
            out.append((obs.copy(), rewards.copy(), terminated.copy(), mask.copy(),
                        env.game_index.copy(), [env.get_state(i) for i in range(n)]))
        return out

    first = play(*start[:2])
    assert sum(int(t[2].sum()) for t in first) >= 2  # games end on the way
    for i in range(n):
        got_obs, got_mask = env.set_state(i, copies[i] if i < 2 else snaps[i])
        np.testing.assert_array_equal(got_obs, start[0][i])
        np.testing.assert_array_equal(got_mask, start[1][i])
    np.testing.assert_array_equal(env.game_index, start[2])
    again = play(*start[:2])
    for k, (a, b) in enumerate(zip(first, again)):
        for x, y in zip(a[:5], b[:5]):
            np.testing.assert_array_equal(x, y, err_msg=f"step {k}")
        assert a[5] == b[5], f"step {k}"
    # A position that is not the snapshot's (changed since) starts the dice afresh.
    moved = snaps[0].clone()
    moved.apply_action(moved.legal_actions()[0])
    fresh = Game.from_notation(str(moved), rules)
    assert env.set_state(0, moved)[0].tolist() == env.set_state(0, fresh)[0].tolist()


def test_reset_with_env_mask_starts_only_the_marked_environments():
    """reset(start=, env_mask=) starts game start[i] in each marked environment alone (what
    aeroplane.gym does after an illegal action); the others keep their game."""
    seeds = [4, 5, 6]
    env = VecEnv(3, "classic", 2, opponents=["random"])
    env.reset(seed=seeds)
    for _ in range(7):
        obs, _, _, mask = env.step(np.array([highest(m) for m in env.observe()[1]]))
    kept = [env.get_state(i) for i in (0, 2)]
    obs, mask = env.reset(start=[0, 9, 0], env_mask=np.array([False, True, False]))
    assert env.game_index.tolist()[1] == 9 and list(env.seeds) == seeds
    assert [env.get_state(0), env.get_state(2)] == kept
    other = VecEnv(3, "classic", 2, opponents=["random"])
    obs2, mask2 = other.reset(seed=seeds, start=[0, 9, 0])
    np.testing.assert_array_equal(obs[1], obs2[1])
    np.testing.assert_array_equal(mask[1], mask2[1])
    np.testing.assert_array_equal(obs[[0, 2]], env.observe()[0][[0, 2]])
    with pytest.raises(ValueError, match="give no seed"):
        env.reset(seed=[1, 2, 3], start=[0, 0, 0], env_mask=np.ones(3, bool))
    with pytest.raises(ValueError, match="needs start"):
        env.reset(env_mask=np.ones(3, bool))
    with pytest.raises(RuntimeError, match="call reset\\(\\) without env_mask first"):
        VecEnv(3, "classic", 2, opponents=["random"]).reset(start=[0, 0, 0], env_mask=np.ones(3, bool))
