//! `aeroplane.VecEnv`: many games stepped at once for training, every array filled in Rust.
//!
//! Environment `i` of `n` plays the games `i`, `i + n`, `i + 2n`, ... of the command line's
//! numbering for its seed: game `g` takes its dice from `SeededDice(seed, deal)` and its bots'
//! seeds from `bot_stream(seed, deal, seat)`, the deal being `g` (or `g / players` with seat
//! rotation, where rotation `g % players` seats lineup entry `(k + r) mod players` in the k-th
//! seat). So with the same actions, environment `i` plays `aeroplane run --seed S` game `i`
//! with a bot in the agent's place. The die rolls and the opponents' moves are played inside
//! `step`; the agent is asked only where it has a choice (two or more legal actions), as the
//! runner asks bots, unless `forced_moves=True`.

use std::sync::{Mutex, TryLockError};

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use rayon::prelude::*;

use aeroplane::observation::ROLL_AT;
use aeroplane::{
    ActionId, Bot, BotSpec, Dice, Game, MoveList, NUM_ACTIONS, OBSERVATION_LEN, Rules, Seat,
    SeededDice, Status, bot_stream,
};

use crate::bots::{PyBot, resolve};
use crate::game::{PyGame, int_arg, new_game, u64_arg};
use crate::rules::{rules_arg, type_name};

/// The most environments one `VecEnv` holds (about 1 KB each with the arrays of a step: the
/// state is 256 bytes, plus 48 per random opponent).
pub const MAX_ENVS: usize = 1 << 22;
/// The most search-bot opponents (expectimax, montecarlo, mcts) one `VecEnv` holds: each
/// keeps its search memory (an mcts arena is up to 64 MiB).
pub const MAX_SEARCH_BOTS: usize = 1024;
/// Environments per task handed to a worker thread.
const BLOCK: usize = 128;
/// Environments stepped between two checks for signals (Ctrl-C).
const WAVE: usize = 1 << 16;
/// The same with search-bot opponents, whose decisions take milliseconds.
const SEARCH_WAVE: usize = 64;
/// Games in a row without a choice for the agent after which a step gives up.
const MAX_GAMES_WITHOUT_CHOICE: u32 = 1000;

/// Who plays a lineup entry: the agent, or the j-th opponent bot of each environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Agent,
    Bot(usize),
}

/// The settings every environment shares.
struct Shared {
    n: usize,
    rules: Rules,
    players: usize,
    seed: u64,
    rotate: bool,
    forced: bool,
    lineup: Vec<Entry>,
    specs: Vec<BotSpec>,
    start: Game,
    self_play: bool,
    /// Environments between two checks for signals.
    wave: usize,
}

/// One environment: its game, dice, and which game of the run it is. Between steps the game
/// waits for the agent's decision on `roll`, kept on the fast path (the position before the
/// roll, with the roll's legal moves) so that neither the observation nor the action lists the
/// moves again.
#[derive(Clone)]
struct Env {
    game: Game,
    dice: SeededDice,
    index: u64,
    rotation: u8,
    /// The roll waiting for the agent's decision (0 before the first).
    roll: u8,
    /// Its legal moves.
    moves: MoveList,
    /// The legal actions of the decision node, as bits.
    bits: u8,
    /// Whether the agent has had a decision in this game.
    decided: bool,
}

impl Env {
    /// The game at the agent's decision node (the state API's form).
    fn decision(&self) -> Game {
        let mut g = self.game;
        if self.roll != 0 {
            // The roll has two or more moves (or one with forced_moves): a decision node.
            let _ = g.apply_roll(self.roll);
        }
        g
    }
}

/// What ended during a step, for one environment.
#[derive(Clone, Copy, Default)]
struct Ended {
    returns: [f64; 4],
    /// The agent's seat in the game that ended (opponents mode).
    agent: u8,
    terminated: bool,
    truncated: bool,
}

impl Shared {
    /// The lineup entry playing `seat` in rotation `r`.
    fn entry(&self, seat: Seat, rotation: u8) -> Entry {
        let k = self
            .start
            .seats()
            .iter()
            .position(|&s| s == seat)
            .unwrap_or(0);
        self.lineup[(k + usize::from(rotation)) % self.players]
    }

    /// Sets `env` up for game `g`, seeding its bots.
    fn begin(&self, env: &mut Env, bots: &mut [Box<dyn Bot>], g: u64) -> Result<(), String> {
        let p = self.players as u64;
        let (deal, rotation) = if self.rotate { (g / p, g % p) } else { (g, 0) };
        env.game = self.start;
        env.dice = SeededDice::new(self.seed, deal);
        env.index = g;
        env.rotation = rotation as u8;
        env.decided = false;
        env.bits = 0;
        env.roll = 0;
        for &seat in self.start.seats() {
            if let Entry::Bot(j) = self.entry(seat, env.rotation) {
                bots[j]
                    .try_new_game(&self.start, seat, bot_stream(self.seed, deal, seat), g)
                    .map_err(|f| f.to_string())?;
            }
        }
        Ok(())
    }

    /// Plays rolls and opponents' moves until the agent has a decision, or the game ends.
    /// Returns whether the agent has a decision.
    fn advance(
        &self,
        env: &mut Env,
        bots: &mut [Box<dyn Bot>],
        moves: &mut MoveList,
    ) -> Result<bool, String> {
        while !env.game.is_over() {
            let seat = env.game.to_move();
            let face = env.dice.roll(seat).unwrap_or(1);
            env.game.legal_moves_into(face, moves);
            match self.entry(seat, env.rotation) {
                Entry::Agent if moves.len() >= 2 || (self.forced && moves.len() == 1) => {
                    env.bits = moves
                        .iter()
                        .fold(0u8, |b, m| b | 1 << ActionId::of_move(m).index());
                    env.roll = face;
                    env.moves = *moves;
                    env.decided = true;
                    return Ok(true);
                }
                Entry::Agent => {
                    env.game.apply(face, moves.first().copied());
                }
                Entry::Bot(j) => {
                    let choice = if moves.len() <= 1 {
                        moves.first().copied()
                    } else {
                        let k = bots[j]
                            .try_choose(&env.game, face, moves)
                            .map_err(|f| f.to_string())?;
                        Some(*moves.get(k).ok_or_else(|| {
                            format!("bot `{}` chose move {k} of {}", bots[j].name(), moves.len())
                        })?)
                    };
                    env.game.apply(face, choice);
                }
            }
        }
        Ok(false)
    }

    /// Plays on from the agent's action (or from a fresh game) to the agent's next decision,
    /// starting the environment's next game when one ends; says what ended first.
    fn settle(
        &self,
        env: &mut Env,
        bots: &mut [Box<dyn Bot>],
        moves: &mut MoveList,
    ) -> Result<Ended, String> {
        let mut ended = Ended::default();
        let mut without_choice = 0u32;
        loop {
            if self.advance(env, bots, moves)? {
                return Ok(ended);
            }
            if !ended.terminated {
                ended.terminated = true;
                ended.truncated = env.game.status() == Status::Unfinished;
                ended.returns = env.game.returns();
                let agent = self
                    .start
                    .seats()
                    .iter()
                    .find(|&&s| self.entry(s, env.rotation) == Entry::Agent)
                    .copied()
                    .unwrap_or(Seat::ALL[0]);
                ended.agent = agent.index() as u8;
            }
            if env.decided {
                without_choice = 0;
            } else {
                without_choice += 1;
                if without_choice >= MAX_GAMES_WITHOUT_CHOICE {
                    return Err(format!(
                        "the agent had no choice to make in {MAX_GAMES_WITHOUT_CHOICE} games in a row: these rules (planes = {}) rarely or never offer two moves; use forced_moves=True",
                        self.rules.planes()
                    ));
                }
            }
            let next = env.index + self.n as u64;
            self.begin(env, bots, next)?;
        }
    }
}

/// The output arrays of a step (or reset), as slices, cut into blocks for the workers.
struct Block<'a> {
    envs: &'a mut [Env],
    bots: &'a mut [Box<dyn Bot>],
    actions: &'a [u8],
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    truncated: &'a mut [bool],
}

/// How a block's environments move on.
#[derive(Clone, Copy)]
enum Move {
    /// Start game `i` in environment `i`.
    Reset,
    /// Play each environment's action.
    Step,
}

impl Block<'_> {
    fn run(
        self,
        shared: &Shared,
        how: Move,
        per_env_bots: usize,
        first: usize,
    ) -> Result<(), String> {
        let mut moves = MoveList::default();
        let reward_width = if shared.self_play { shared.players } else { 1 };
        for (i, env) in self.envs.iter_mut().enumerate() {
            let bots = &mut self.bots[i * per_env_bots..(i + 1) * per_env_bots];
            let ended = match how {
                Move::Reset => {
                    shared.begin(env, bots, (first + i) as u64)?;
                    shared.settle(env, bots, &mut moves)?
                }
                Move::Step => {
                    let a = usize::from(self.actions[i]);
                    let m = env
                        .moves
                        .iter()
                        .copied()
                        .find(|m| ActionId::of_move(m).index() == a)
                        .ok_or_else(|| format!("action {a} is not legal in environment {i}"))?;
                    env.game.apply(env.roll, Some(m));
                    env.roll = 0;
                    shared.settle(env, bots, &mut moves)?
                }
            };
            let seat = env.game.to_move();
            let obs: &mut [f32; OBSERVATION_LEN] = (&mut self.obs
                [i * OBSERVATION_LEN..(i + 1) * OBSERVATION_LEN])
                .try_into()
                .expect("row");
            env.game.observation_into(seat, obs);
            if env.roll != 0 {
                // The roll waiting, as the state API's decision node shows it.
                obs[ROLL_AT + usize::from(env.roll) - 1] = 1.0;
            }
            for (a, m) in self.mask[i * NUM_ACTIONS..(i + 1) * NUM_ACTIONS]
                .iter_mut()
                .enumerate()
            {
                *m = env.bits & (1 << a) != 0;
            }
            if !self.rewards.is_empty() {
                let row = &mut self.rewards[i * reward_width..(i + 1) * reward_width];
                if shared.self_play {
                    for (k, s) in shared.start.seats().iter().enumerate() {
                        row[k] = ended.returns[s.index()] as f32;
                    }
                } else {
                    row[0] = ended.returns[usize::from(ended.agent)] as f32;
                }
                self.terminated[i] = ended.terminated;
                self.truncated[i] = ended.truncated;
            }
        }
        Ok(())
    }
}

/// The state behind the lock.
struct Inner {
    shared: Shared,
    envs: Vec<Env>,
    bots: Vec<Box<dyn Bot>>,
    /// Games of the last step that ended by `max_turns`.
    truncated: Vec<bool>,
    /// A step or reset stopped half-way (Ctrl-C, a failing bot): only `reset` goes on.
    broken: Option<String>,
    ready: bool,
    pool: rayon::ThreadPool,
}

/// ``VecEnv(n, rules=None, players=2, seed=0, opponents=None, *, rotate_seats=False,
/// agent=0, forced_moves=False, threads=0)``: ``n`` games stepped together for training.
///
/// ``opponents`` are bot names (or ``aeroplane.bots.Bot``s), one per other player, played
/// inside ``step``; the agent is player ``agent`` of the lineup ``opponents[:agent] + [agent]
/// + opponents[agent:]``. With ``opponents=None`` the agent plays every seat (self-play).
///
/// ``reset()`` returns ``(obs, mask)``: ``obs`` float32 ``(n, 170)``, the observation of the
/// seat to decide (the roll waiting is part of it), ``mask`` bool ``(n, 8)``, its legal
/// actions. ``step(actions)`` plays one action per environment (an integer array of shape
/// ``(n,)``) and returns ``(obs, rewards, terminated, mask)``: ``rewards`` float32 ``(n,)``
/// is the agent's return of a game that ended during the step (with self-play ``(n,
/// players)``, every player's), ``terminated`` says which ended; those environments have
/// started their next game already, and ``obs`` and ``mask`` are its first decision's.
///
/// Environment ``i`` plays the games ``i``, ``i + n``, ... of ``aeroplane run --seed seed``
/// (``game_index``): the same dice and opponent seeds, so with the same actions the same
/// games. The agent is asked only when it has two or more legal actions, as the runner asks
/// bots (``forced_moves=True``: at every decision). Arrays are filled by ``threads`` worker
/// threads (0: one per core) with the GIL released.
#[pyclass(name = "VecEnv", module = "aeroplane")]
pub struct PyVecEnv {
    inner: Mutex<Inner>,
    n: usize,
    players: usize,
    self_play: bool,
    rules_name: String,
}

/// An optional integer argument.
fn opt_int(value: Option<&Bound<'_, PyAny>>, what: &str, default: i64) -> PyResult<i64> {
    match value.filter(|v| !v.is_none()) {
        Some(v) => int_arg(v, what),
        None => Ok(default),
    }
}

/// `(obs, mask)` of a reset.
type Observed<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<bool>>);

fn busy() -> PyErr {
    PyRuntimeError::new_err("this VecEnv is being stepped by another thread")
}

/// The action array: one integer per environment.
fn actions_arg(py: Python<'_>, actions: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<i64>> {
    macro_rules! dtypes {
        ($($t:ty),*) => {$(
            if let Ok(a) = actions.cast::<PyArray1<$t>>() {
                let ro = a.try_readonly().map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
                let view = ro.as_array();
                if view.len() != n {
                    return Err(PyValueError::new_err(format!(
                        "actions must have shape ({n},): one action per environment, got ({},)",
                        view.len()
                    )));
                }
                #[allow(clippy::unnecessary_fallible_conversions, irrefutable_let_patterns)]
                return Ok(view.iter().map(|&x| i64::try_from(x).unwrap_or(i64::MAX)).collect());
            }
        )*};
    }
    dtypes!(i64, i32, i16, i8, u64, u32, u16, u8);
    if actions.hasattr("dtype")? && actions.hasattr("shape")? {
        let shape = actions.getattr("shape")?;
        let dims: Vec<usize> = shape.extract().unwrap_or_default();
        if dims.len() != 1 || dims[0] != n {
            return Err(PyValueError::new_err(format!(
                "actions must have shape ({n},): one action per environment, got {}",
                shape.repr()?
            )));
        }
        return Err(PyTypeError::new_err(format!(
            "actions must be an integer array (int64, int32, ..., uint8), not dtype {}",
            actions.getattr("dtype")?.str()?
        )));
    }
    if actions.is_instance_of::<PyList>() || actions.is_instance_of::<PyTuple>() {
        let np = py.import("numpy")?;
        let array = np.call_method1("asarray", (actions,))?;
        if array
            .getattr("dtype")?
            .getattr("kind")?
            .extract::<String>()?
            == "i"
        {
            return actions_arg(py, &array.call_method1("astype", ("int64",))?, n);
        }
        return actions_arg(py, &array, n);
    }
    Err(PyTypeError::new_err(format!(
        "actions must be a numpy integer array of shape ({n},), not {}",
        type_name(actions)
    )))
}

impl PyVecEnv {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Inner>> {
        match self.inner.try_lock() {
            Ok(g) => Ok(g),
            Err(TryLockError::WouldBlock) => Err(busy()),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        }
    }

    /// Moves every environment on (`Reset` or `Step`) in waves, the GIL released, checking for
    /// signals between waves; returns the arrays.
    #[allow(clippy::type_complexity)]
    fn advance<'py>(
        &self,
        py: Python<'py>,
        inner: &mut Inner,
        how: Move,
        actions: Vec<u8>,
    ) -> PyResult<(
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyAny>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray2<bool>>,
    )> {
        let n = self.n;
        let width = if self.self_play { self.players } else { 1 };
        // SAFETY: every element of these new arrays is written below before they are returned
        // (a failed step returns an error instead, and the arrays are dropped unread).
        let obs = unsafe { PyArray2::<f32>::new(py, [n, OBSERVATION_LEN], false) };
        let mask = unsafe { PyArray2::<bool>::new(py, [n, NUM_ACTIONS], false) };
        let rewards_2d = unsafe { PyArray2::<f32>::new(py, [n, width], false) };
        let terminated = unsafe { PyArray1::<bool>::new(py, [n], false) };
        let mut truncated = std::mem::take(&mut inner.truncated);
        truncated.resize(n, false);
        {
            let obs_s = unsafe { obs.as_slice_mut() }.expect("contiguous");
            let mask_s = unsafe { mask.as_slice_mut() }.expect("contiguous");
            let rew_s = unsafe { rewards_2d.as_slice_mut() }.expect("contiguous");
            let term_s = unsafe { terminated.as_slice_mut() }.expect("contiguous");
            let per_env = inner
                .shared
                .lineup
                .iter()
                .filter(|e| **e != Entry::Agent)
                .count();
            let Inner {
                shared,
                envs,
                bots,
                pool,
                ..
            } = inner;
            let is_reset = matches!(how, Move::Reset);
            if is_reset {
                rew_s.fill(0.0);
                term_s.fill(false);
                truncated.fill(false);
            }
            let mut done = 0;
            while done < n {
                let wave = shared.wave.min(n - done);
                let env_w = &mut envs[done..done + wave];
                let bots_w = &mut bots[done * per_env..(done + wave) * per_env];
                let obs_w = &mut obs_s[done * OBSERVATION_LEN..(done + wave) * OBSERVATION_LEN];
                let mask_w = &mut mask_s[done * NUM_ACTIONS..(done + wave) * NUM_ACTIONS];
                let rew_w: &mut [f32] = if is_reset {
                    &mut []
                } else {
                    &mut rew_s[done * width..(done + wave) * width]
                };
                let term_w: &mut [bool] = &mut term_s[done..done + wave];
                let trunc_w: &mut [bool] = &mut truncated[done..done + wave];
                let act_w: &[u8] = if is_reset {
                    &[]
                } else {
                    &actions[done..done + wave]
                };
                let shared: &Shared = shared;
                let result: Result<(), String> = py.detach(|| {
                    pool.install(|| {
                        let blocks = split(
                            env_w, bots_w, act_w, obs_w, mask_w, rew_w, term_w, trunc_w, per_env,
                            width,
                        );
                        blocks
                            .into_par_iter()
                            .map(|(first, b)| b.run(shared, how, per_env, done + first))
                            .collect::<Result<Vec<()>, String>>()
                            .map(|_| ())
                    })
                });
                if let Err(e) = result {
                    inner_break(&mut inner.broken, &e);
                    return Err(PyRuntimeError::new_err(e));
                }
                done += wave;
                if done < n
                    && let Err(e) = py.check_signals()
                {
                    inner.broken = Some("interrupted in the middle of a step (Ctrl-C)".into());
                    return Err(e);
                }
            }
        }
        inner.truncated = truncated;
        let rewards = if self.self_play {
            rewards_2d.into_any()
        } else {
            rewards_2d.reshape([n])?.into_any()
        };
        Ok((obs, rewards, terminated, mask))
    }
}

fn inner_break(broken: &mut Option<String>, why: &str) {
    *broken = Some(why.to_string());
}

/// Cuts the environments and their output rows into blocks of [`BLOCK`], each with the index of
/// its first environment within the wave.
#[allow(clippy::too_many_arguments)]
fn split<'a>(
    mut envs: &'a mut [Env],
    mut bots: &'a mut [Box<dyn Bot>],
    mut actions: &'a [u8],
    mut obs: &'a mut [f32],
    mut mask: &'a mut [bool],
    mut rewards: &'a mut [f32],
    mut terminated: &'a mut [bool],
    mut truncated: &'a mut [bool],
    per_env: usize,
    width: usize,
) -> Vec<(usize, Block<'a>)> {
    let mut blocks = Vec::new();
    let mut first = 0;
    let steps = !actions.is_empty();
    while !envs.is_empty() {
        let k = BLOCK.min(envs.len());
        let (e, e_rest) = envs.split_at_mut(k);
        let (b, b_rest) = bots.split_at_mut(k * per_env);
        let (o, o_rest) = obs.split_at_mut(k * OBSERVATION_LEN);
        let (m, m_rest) = mask.split_at_mut(k * NUM_ACTIONS);
        let (t, t_rest) = terminated.split_at_mut(k);
        let (u, u_rest) = truncated.split_at_mut(k);
        let (a, a_rest) = if steps {
            actions.split_at(k)
        } else {
            (&[][..], actions)
        };
        let (r, r_rest) = if steps {
            rewards.split_at_mut(k * width)
        } else {
            (&mut [][..], rewards)
        };
        blocks.push((
            first,
            Block {
                envs: e,
                bots: b,
                actions: a,
                obs: o,
                mask: m,
                rewards: r,
                terminated: t,
                truncated: u,
            },
        ));
        (
            envs, bots, obs, mask, terminated, truncated, actions, rewards,
        ) = (
            e_rest, b_rest, o_rest, m_rest, t_rest, u_rest, a_rest, r_rest,
        );
        first += k;
    }
    blocks
}

/// The opponents: names or `aeroplane.bots.Bot`s.
fn opponents_arg(value: &Bound<'_, PyAny>) -> PyResult<Vec<BotSpec>> {
    let dir = std::path::Path::new("bots");
    let items: Vec<Bound<'_, PyAny>> = if value.is_instance_of::<PyString>() {
        let text: String = value.extract()?;
        return text.split(',').map(|t| resolve(t.trim(), dir)).collect();
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        value.try_iter()?.collect::<PyResult<_>>()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "opponents must be a list of bot names (or aeroplane.bots.Bot), or None for self-play, not {}",
            type_name(value)
        )));
    };
    items
        .iter()
        .map(|item| {
            if let Ok(s) = item.cast::<PyString>() {
                resolve(s.to_cow()?.trim(), dir)
            } else if let Ok(b) = item.cast::<PyBot>() {
                Ok(b.borrow().spec.clone())
            } else {
                Err(PyTypeError::new_err(format!(
                    "an opponent is a bot name (\"greedy\") or an aeroplane.bots.Bot played inside Rust, not {} (a Python bot cannot play inside VecEnv.step: use aeroplane.run for it)",
                    type_name(item)
                )))
            }
        })
        .collect()
}

#[pymethods]
impl PyVecEnv {
    #[new]
    #[pyo3(signature = (n, rules = None, players = None, seed = None, opponents = None, *,
        rotate_seats = false, agent = None, forced_moves = false, threads = None))]
    #[allow(clippy::too_many_arguments)]
    fn py_new(
        n: &Bound<'_, PyAny>,
        rules: Option<&Bound<'_, PyAny>>,
        players: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        opponents: Option<&Bound<'_, PyAny>>,
        rotate_seats: bool,
        agent: Option<&Bound<'_, PyAny>>,
        forced_moves: bool,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let count = int_arg(n, "n")?;
        let n = usize::try_from(count)
            .ok()
            .filter(|n| (1..=MAX_ENVS).contains(n))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "n = {count} environments: give 1 to {MAX_ENVS} (each takes about 1 KiB)"
                ))
            })?;
        let (rules, rules_name) = rules_arg(rules)?;
        let players_n = opt_int(players, "players", 2)?;
        let start = new_game(rules, players_n)?;
        let players = start.players();
        let seed = match seed.filter(|s| !s.is_none()) {
            Some(s) => u64_arg(s, "seed")?,
            None => 0,
        };
        let threads_n = opt_int(threads, "threads", 0)?;
        let threads = usize::try_from(threads_n)
            .ok()
            .filter(|&t| t <= aeroplane::runner::MAX_THREADS)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "threads = {threads_n}: give 0 (one per core) to {}",
                    aeroplane::runner::MAX_THREADS
                ))
            })?;
        let (lineup, specs) = match opponents.filter(|o| !o.is_none()) {
            None => (vec![Entry::Agent; players], Vec::new()),
            Some(o) => {
                let specs = opponents_arg(o)?;
                if specs.len() + 1 != players {
                    return Err(PyValueError::new_err(format!(
                        "{} opponent(s) for {players} players: give players - 1 = {} opponents, or None for self-play",
                        specs.len(),
                        players - 1
                    )));
                }
                let a = opt_int(agent, "agent", 0)?;
                let a = usize::try_from(a)
                    .ok()
                    .filter(|&a| a < players)
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "agent = {a}: the agent's place in the lineup is 0 to {}",
                            players - 1
                        ))
                    })?;
                let mut lineup: Vec<Entry> = (0..specs.len()).map(Entry::Bot).collect();
                lineup.insert(a, Entry::Agent);
                (lineup, specs)
            }
        };
        for s in &specs {
            if s.external.is_some() {
                return Err(PyValueError::new_err(format!(
                    "opponent `{}` is a bot program: VecEnv plays its opponents inside Rust, one per environment; use aeroplane.run for bot programs",
                    s.name
                )));
            }
        }
        let search = specs
            .iter()
            .filter(|s| !matches!(s.kind.as_str(), "greedy" | "random"))
            .count();
        if search * n > MAX_SEARCH_BOTS {
            return Err(PyValueError::new_err(format!(
                "{search} search-bot opponent(s) x {n} environments = {} bots: each keeps its search memory, so a VecEnv holds at most {MAX_SEARCH_BOTS} (use greedy or random opponents, or fewer environments)",
                search * n
            )));
        }
        if !forced_moves && rules.planes() == 1 && !rules.flight_optional() {
            return Err(PyValueError::new_err(
                "with planes = 1 and flight_optional = false a roll never offers two moves, so the agent would never be asked: use forced_moves=True",
            ));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("aeroplane-vecenv-{i}"))
            .build()
            .map_err(|e| {
                PyRuntimeError::new_err(format!("cannot start the worker threads: {e}"))
            })?;
        let self_play = specs.is_empty();
        let mut bots = Vec::with_capacity(n * specs.len());
        for _ in 0..n {
            bots.extend(specs.iter().map(BotSpec::build));
        }
        let env = Env {
            game: start,
            dice: SeededDice::new(seed, 0),
            index: 0,
            rotation: 0,
            roll: 0,
            moves: MoveList::default(),
            bits: 0,
            decided: false,
        };
        Ok(PyVecEnv {
            inner: Mutex::new(Inner {
                shared: Shared {
                    n,
                    rules,
                    players,
                    seed,
                    rotate: rotate_seats,
                    forced: forced_moves,
                    lineup,
                    specs,
                    start,
                    self_play,
                    wave: if search > 0 { SEARCH_WAVE } else { WAVE },
                },
                envs: vec![env; n],
                bots,
                truncated: vec![false; n],
                broken: None,
                ready: false,
                pool,
            }),
            n,
            players,
            self_play,
            rules_name,
        })
    }

    /// Starts game ``i`` in environment ``i`` (with ``seed``, if given, as the new seed) and
    /// returns ``(obs, mask)`` of every environment's first decision.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Observed<'py>> {
        let mut inner = self.lock()?;
        if let Some(s) = seed.filter(|s| !s.is_none()) {
            inner.shared.seed = u64_arg(s, "seed")?;
        }
        inner.broken = None;
        inner.ready = false;
        let (obs, _, _, mask) = self.advance(py, &mut inner, Move::Reset, Vec::new())?;
        inner.ready = true;
        Ok((obs, mask))
    }

    /// Plays ``actions[i]`` in environment ``i`` and everything up to its next decision;
    /// returns ``(obs, rewards, terminated, mask)``.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyAny>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray2<bool>>,
    )> {
        let mut inner = self.lock()?;
        if let Some(why) = &inner.broken {
            return Err(PyRuntimeError::new_err(format!(
                "this VecEnv stopped in the middle of a step ({why}): call reset()"
            )));
        }
        if !inner.ready {
            return Err(PyRuntimeError::new_err(
                "call reset() before the first step",
            ));
        }
        let given = actions_arg(py, actions, self.n)?;
        let mut checked = Vec::with_capacity(self.n);
        for (i, (&a, env)) in given.iter().zip(&inner.envs).enumerate() {
            let ok = (0..NUM_ACTIONS as i64).contains(&a) && env.bits & (1 << a) != 0;
            if !ok {
                let legal: Vec<String> = (0..NUM_ACTIONS)
                    .filter(|b| env.bits & (1 << b) != 0)
                    .map(|b| b.to_string())
                    .collect();
                return Err(PyValueError::new_err(format!(
                    "actions[{i}] = {a} is not a legal action of environment {i}: legal actions are {} (mask[{i}])",
                    legal.join(", ")
                )));
            }
            checked.push(a as u8);
        }
        self.advance(py, &mut inner, Move::Step, checked)
    }

    /// Number of environments.
    #[getter]
    fn num_envs(&self) -> usize {
        self.n
    }

    fn __len__(&self) -> usize {
        self.n
    }

    /// Number of players per game.
    #[getter]
    fn players(&self) -> usize {
        self.players
    }

    /// Length of an observation (170).
    #[getter]
    fn observation_len(&self) -> usize {
        OBSERVATION_LEN
    }

    /// Number of action ids (8).
    #[getter]
    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    /// The seed.
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        Ok(self.lock()?.shared.seed)
    }

    /// The rules' name.
    #[getter]
    fn rules(&self) -> PyResult<crate::rules::PyRules> {
        Ok(crate::rules::PyRules::new_named(
            self.lock()?.shared.rules,
            self.rules_name.clone(),
        ))
    }

    /// The game of the run (``aeroplane run --seed seed`` numbering) each environment plays
    /// now, uint64 ``(n,)``.
    #[getter]
    fn game_index<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let inner = self.lock()?;
        let v: Vec<u64> = inner.envs.iter().map(|e| e.index).collect();
        Ok(PyArray1::from_vec(py, v))
    }

    /// The seat deciding in each environment (the observation's point of view), int64 ``(n,)``.
    #[getter]
    fn seat<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let inner = self.lock()?;
        let v: Vec<i64> = inner
            .envs
            .iter()
            .map(|e| e.game.to_move().index() as i64)
            .collect();
        Ok(PyArray1::from_vec(py, v))
    }

    /// The player deciding in each environment (0..players: the k-th seat in play), int64
    /// ``(n,)``; with self-play, the column of ``rewards`` that is its own.
    #[getter]
    fn player<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let inner = self.lock()?;
        let seats = inner.shared.start.seats();
        let v: Vec<i64> = inner
            .envs
            .iter()
            .map(|e| {
                seats
                    .iter()
                    .position(|&s| s == e.game.to_move())
                    .unwrap_or(0) as i64
            })
            .collect();
        Ok(PyArray1::from_vec(py, v))
    }

    /// Which games of the last step ended by ``max_turns`` (a subset of ``terminated``).
    #[getter]
    fn truncated<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        Ok(PyArray1::from_slice(py, &self.lock()?.truncated))
    }

    /// A copy of environment ``i``'s game, at its decision node.
    fn game(&self, i: &Bound<'_, PyAny>) -> PyResult<PyGame> {
        let inner = self.lock()?;
        let k = int_arg(i, "environment index")?;
        let env = usize::try_from(k)
            .ok()
            .and_then(|k| inner.envs.get(k))
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "environment {k}: there are {} (0 to {})",
                    self.n,
                    self.n - 1
                ))
            })?;
        Ok(PyGame::wrap(env.decision(), self.rules_name.clone()))
    }

    /// The opponents' names, in lineup order (empty for self-play).
    #[getter]
    fn opponents(&self) -> PyResult<Vec<String>> {
        Ok(self
            .lock()?
            .shared
            .specs
            .iter()
            .map(|s| s.name.clone())
            .collect())
    }

    fn __repr__(&self) -> PyResult<String> {
        let inner = self.lock()?;
        let who = if self.self_play {
            "self-play".to_string()
        } else {
            format!(
                "opponents {}",
                inner
                    .shared
                    .specs
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        Ok(format!(
            "<aeroplane.VecEnv n={} rules={:?} players={} seed={} {who}>",
            self.n, self.rules_name, self.players, inner.shared.seed
        ))
    }
}
