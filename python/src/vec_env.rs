//! `aeroplane.VecEnv`: many games stepped at once for training, every array filled in Rust.
//!
//! Environment `i` of `n` plays the games `i`, `i + n`, `i + 2n`, ... of the command line's
//! numbering for its seed (with per-environment seeds, games `0, 1, 2, ...` of its own seed):
//! game `g` takes its dice from `SeededDice(seed, deal)` and its bots' seeds from
//! `bot_stream(seed, deal, seat)`, the deal being `g` (or `g / players` with seat rotation,
//! where rotation `g % players` seats lineup entry `(k + r) mod players` in the k-th seat). So
//! with the same actions, environment `i` plays `aeroplane run --seed S` game `i` with a bot in
//! the agent's place. The die rolls and the opponents' moves are played inside `step`; the
//! agent is asked only where it has a choice (two or more legal actions), as the runner asks
//! bots, unless `forced_moves=True`. A game in which the agent has no choice at all still takes
//! one step, at its end, so that every game is reported with its return.

use std::any::Any;
use std::sync::{Arc, Mutex, TryLockError};

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rayon::prelude::*;

use aeroplane::{
    ActionId, Bot, BotSpec, Dice, Game, MoveList, NUM_ACTIONS, RuleOption, Rules, Seat, SeededDice,
    Status, bot_stream,
};

use crate::bots::{PyBot, resolve};
use crate::game::{PyGame, before_roll, int_arg, new_game, u64_arg};
use crate::observe::{ObsKind, kind_arg};
use crate::rules::{rules_arg, type_name};

/// The most environments one `VecEnv` holds (about 1 KB each with the arrays of a step: the
/// state is about 320 bytes with a random opponent, a step's arrays 693).
pub const MAX_ENVS: usize = 1 << 22;
/// The most search-bot opponents (expectimax, montecarlo, mcts, exact) one `VecEnv` holds:
/// each keeps its search memory (an mcts arena is up to 64 MiB).
pub const MAX_SEARCH_BOTS: usize = 1024;
/// Environments per task handed to a worker thread.
const BLOCK: usize = 128;
/// Environments stepped between two checks for signals (Ctrl-C).
const WAVE: usize = 1 << 16;
/// The same with search-bot opponents, whose decisions take milliseconds.
const SEARCH_WAVE: usize = 64;

/// Who plays a lineup entry: the agent, or the j-th opponent bot of each environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Entry {
    Agent,
    Bot(usize),
}

/// The settings every environment shares.
struct Shared {
    rules: Rules,
    players: usize,
    rotate: bool,
    forced: bool,
    lineup: Vec<Entry>,
    start: Game,
    self_play: bool,
    kind: ObsKind,
    /// Environments between two checks for signals.
    wave: usize,
}

/// One environment: its game, dice, and which game of which seed it is. Between steps the game
/// waits for the agent's decision on `roll`, kept on the fast path (the position before the
/// roll, with the roll's legal moves) so that neither the observation nor the action lists the
/// moves again.
#[derive(Clone)]
struct Env {
    game: Game,
    dice: SeededDice,
    /// Its seed: the VecEnv's, or its own.
    seed: u64,
    /// The game index it plays now.
    index: u64,
    /// How far apart its games are (`n` under the shared numbering, 1 with its own seed).
    stride: u64,
    rotation: u8,
    /// The roll waiting for the agent's decision (0 before the first, and while idle).
    roll: u8,
    /// Its legal moves.
    moves: MoveList,
    /// The legal actions of the decision node, as bits.
    bits: u8,
    /// Whether the agent has had a decision in this game.
    decided: bool,
    /// Waiting at the end of a game in which the agent had no choice: action 0 reports it.
    idle: bool,
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

/// What `get_state` keeps of an environment besides its position, for `set_state` of that
/// position to go on with the same game: its seed, game index and rotation, its dice (the rolls
/// drawn from each seat's stream), whether the agent has decided in it, and the generator of
/// each opponent that draws random numbers ([`Bot::generator`]).
pub struct EnvSnapshot {
    /// The position `get_state` gave (at the agent's decision).
    position: Game,
    seed: u64,
    index: u64,
    rotation: u8,
    dice: SeededDice,
    decided: bool,
    /// Per opponent bot of the environment: its generator, if it has one.
    generators: Vec<Option<Box<dyn Any + Send + Sync>>>,
}

/// A copy of a bot's generator (the core's type, known here only through [`Bot::generator`]).
fn keep<T: Clone + Send + Sync + 'static>(rng: &T) -> Box<dyn Any + Send + Sync> {
    Box::new(rng.clone())
}

/// Puts a generator [`keep`] copied back into a bot.
fn put_back<T: Clone + 'static>(rng: &mut T, saved: &(dyn Any + Send + Sync)) {
    if let Some(s) = saved.downcast_ref::<T>() {
        *rng = s.clone();
    }
}

/// A game that ended during a step, for one environment.
#[derive(Clone, Copy)]
struct Ended {
    /// The environment.
    env: usize,
    /// Its game index.
    index: u64,
    /// The position it ended in.
    last: Game,
    /// The agent's seat in it (opponents mode).
    agent: Seat,
    /// Whether the agent had a choice in it.
    decided: bool,
}

impl Ended {
    fn truncated(&self) -> bool {
        self.last.status() == Status::Unfinished
    }
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

    /// The agent's seat in rotation `r` (the first seat with self-play).
    fn agent_seat(&self, rotation: u8) -> Seat {
        self.start
            .seats()
            .iter()
            .find(|&&s| self.entry(s, rotation) == Entry::Agent)
            .copied()
            .unwrap_or(Seat::ALL[0])
    }

    /// The seat whose view the observation takes: the seat to decide, or at the end of a game
    /// without a choice the agent's.
    fn observer(&self, env: &Env) -> Seat {
        if env.idle && !self.self_play {
            self.agent_seat(env.rotation)
        } else {
            env.game.to_move()
        }
    }

    /// The deal and rotation of game `g`.
    fn deal(&self, g: u64) -> (u64, u64) {
        let p = self.players as u64;
        if self.rotate { (g / p, g % p) } else { (g, 0) }
    }

    /// Sets `env` up for game `g`, seeding its bots.
    fn begin(&self, env: &mut Env, bots: &mut [Box<dyn Bot>], g: u64) -> Result<(), String> {
        let (_, rotation) = self.deal(g);
        env.game = self.start;
        env.index = g;
        env.rotation = rotation as u8;
        self.reseed(env, bots)
    }

    /// Starts `env`'s dice and bots afresh for its game (`begin`, `set_state`).
    fn reseed(&self, env: &mut Env, bots: &mut [Box<dyn Bot>]) -> Result<(), String> {
        let (deal, _) = self.deal(env.index);
        env.dice = SeededDice::new(env.seed, deal);
        env.decided = false;
        env.idle = false;
        env.bits = 0;
        env.roll = 0;
        for &seat in self.start.seats() {
            if let Entry::Bot(j) = self.entry(seat, env.rotation) {
                bots[j]
                    .try_new_game(
                        &self.start,
                        seat,
                        bot_stream(env.seed, deal, seat),
                        env.index,
                    )
                    .map_err(|f| f.to_string())?;
            }
        }
        Ok(())
    }

    /// Plays roll `face` of the seat to move (its legal moves listed in `moves`), unless it is
    /// the agent's decision; returns whether it is.
    fn play_roll(
        &self,
        env: &mut Env,
        bots: &mut [Box<dyn Bot>],
        face: u8,
        moves: &mut MoveList,
    ) -> Result<bool, String> {
        let seat = env.game.to_move();
        env.game.legal_moves_into(face, moves);
        match self.entry(seat, env.rotation) {
            Entry::Agent if moves.len() >= 2 || (self.forced && moves.len() == 1) => {
                env.bits = moves
                    .iter()
                    .fold(0u8, |b, m| b | 1 << ActionId::of_move(m).index());
                env.roll = face;
                env.moves = *moves;
                env.decided = true;
                Ok(true)
            }
            Entry::Agent => {
                env.game.apply(face, moves.first().copied());
                Ok(false)
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
                Ok(false)
            }
        }
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
            if self.play_roll(env, bots, face, moves)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Plays on (from the agent's action, a fresh game or a set position) to the agent's next
    /// decision, starting the environment's next game when one ends; a game in which the agent
    /// had no choice stops at its end (idle, action 0 alone legal). Returns the game that ended
    /// on the way, if one did (at most one does).
    fn settle(
        &self,
        env: &mut Env,
        bots: &mut [Box<dyn Bot>],
        moves: &mut MoveList,
        i: usize,
    ) -> Result<Option<Ended>, String> {
        let mut ended = None;
        loop {
            if self.advance(env, bots, moves)? {
                return Ok(ended);
            }
            if !env.decided {
                env.idle = true;
                env.bits = 1;
                env.roll = 0;
                return Ok(ended);
            }
            ended = Some(self.ended(env, i));
            let next = env.index + env.stride;
            self.begin(env, bots, next)?;
        }
    }

    /// The record of `env`'s game, which is over.
    fn ended(&self, env: &Env, i: usize) -> Ended {
        Ended {
            env: i,
            index: env.index,
            last: env.game,
            agent: self.agent_seat(env.rotation),
            decided: env.decided,
        }
    }

    /// Moves environment `i` on: its first game (`Reset`), the agent's action (`Step`).
    fn move_env(
        &self,
        env: &mut Env,
        bots: &mut [Box<dyn Bot>],
        how: Move,
        action: u8,
        moves: &mut MoveList,
        i: usize,
    ) -> Result<Option<Ended>, String> {
        match how {
            Move::Observe => Ok(None),
            Move::Reset(start) => {
                self.begin(env, bots, start)?;
                self.settle(env, bots, moves, i)
            }
            Move::Step if env.idle => {
                let ended = self.ended(env, i);
                let next = env.index + env.stride;
                self.begin(env, bots, next)?;
                let later = self.settle(env, bots, moves, i)?;
                debug_assert!(later.is_none());
                Ok(Some(ended))
            }
            Move::Step => {
                let a = usize::from(action);
                let m = env
                    .moves
                    .iter()
                    .copied()
                    .find(|m| ActionId::of_move(m).index() == a)
                    .ok_or_else(|| format!("action {a} is not legal in environment {i}"))?;
                env.game.apply(env.roll, Some(m));
                env.roll = 0;
                self.settle(env, bots, moves, i)
            }
        }
    }
}

/// The output rows of a block of environments.
struct Rows<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut [bool],
    truncated: &'a mut [bool],
}

/// A block of environments for one worker, with its output rows.
struct Block<'a> {
    /// The index of its first environment.
    first: usize,
    envs: &'a mut [Env],
    bots: &'a mut [Box<dyn Bot>],
    actions: &'a [u8],
    active: &'a [bool],
    rows: Rows<'a>,
    ended: &'a mut Vec<Ended>,
}

/// How a block's environments move on.
#[derive(Clone, Copy)]
enum Move {
    /// Start each environment's first game (the index given per environment).
    Reset(u64),
    /// Play each environment's action.
    Step,
    /// Only write the observations and masks.
    Observe,
}

impl Block<'_> {
    fn run(self, shared: &Shared, how: Move, per_env: usize, starts: &[u64]) -> Result<(), String> {
        let mut moves = MoveList::default();
        let width = if shared.self_play { shared.players } else { 1 };
        let len = shared.kind.len();
        let Rows {
            obs,
            mask,
            rewards,
            terminated,
            truncated,
        } = self.rows;
        for (k, env) in self.envs.iter_mut().enumerate() {
            let i = self.first + k;
            let bots = &mut self.bots[k * per_env..(k + 1) * per_env];
            let active = self.active.is_empty() || self.active[k];
            let how_i = match how {
                Move::Reset(_) | Move::Step if !active => Move::Observe,
                Move::Reset(_) => Move::Reset(starts[k]),
                other => other,
            };
            let action = self.actions.get(k).copied().unwrap_or(0);
            let ended = shared.move_env(env, bots, how_i, action, &mut moves, i)?;
            write_row(shared, env, &mut obs[k * len..(k + 1) * len]);
            for (a, m) in mask[k * NUM_ACTIONS..(k + 1) * NUM_ACTIONS]
                .iter_mut()
                .enumerate()
            {
                *m = env.bits & (1 << a) != 0;
            }
            if !rewards.is_empty() {
                let row = &mut rewards[k * width..(k + 1) * width];
                row.fill(0.0);
                if let Some(e) = &ended {
                    let returns = e.last.returns();
                    if shared.self_play {
                        for (c, s) in shared.start.seats().iter().enumerate() {
                            row[c] = returns[s.index()] as f32;
                        }
                    } else {
                        row[0] = returns[e.agent.index()] as f32;
                    }
                }
            }
            if !terminated.is_empty() {
                terminated[k] = ended.is_some();
                truncated[k] = ended.as_ref().is_some_and(Ended::truncated);
            }
            if let Some(e) = ended {
                self.ended.push(e);
            }
        }
        Ok(())
    }
}

/// Writes environment `env`'s observation row.
fn write_row(shared: &Shared, env: &Env, row: &mut [f32]) {
    crate::observe::write(shared.kind, &env.game, shared.observer(env), env.roll, row);
}

/// The opponents of every environment: one lineup for all, or one per environment.
enum Lineups {
    Shared(Vec<BotSpec>),
    PerEnv(Vec<Vec<BotSpec>>),
}

impl Lineups {
    fn of(&self, i: usize) -> &[BotSpec] {
        match self {
            Lineups::Shared(s) => s,
            Lineups::PerEnv(v) => &v[i],
        }
    }

    fn all(&self) -> Box<dyn Iterator<Item = &BotSpec> + '_> {
        match self {
            Lineups::Shared(s) => Box::new(s.iter()),
            Lineups::PerEnv(v) => Box::new(v.iter().flatten()),
        }
    }
}

/// The state behind the lock.
struct Inner {
    shared: Shared,
    /// The seed of the shared numbering (`None` once environments have seeds of their own).
    seed: Option<u64>,
    lineups: Lineups,
    envs: Vec<Env>,
    bots: Vec<Box<dyn Bot>>,
    /// Games of the last step that ended by `max_turns`.
    truncated: Vec<bool>,
    /// The games that ended in the last step, one list per block (kept to reuse their memory).
    ended: Vec<Vec<Ended>>,
    /// A step or reset stopped half-way (Ctrl-C, a failing bot): only `reset` goes on.
    broken: Option<String>,
    ready: bool,
    pool: rayon::ThreadPool,
}

/// ``VecEnv(n, rules=None, players=4, seed=0, opponents=None, *, rotate_seats=False,
/// agent=0, forced_moves=False, observation="flat", threads=0)``: ``n`` games stepped together
/// for training.
///
/// ``opponents`` are bot names (or ``aeroplane.bots.Bot``s), one per other player, played
/// inside ``step``; the agent is player ``agent`` of the lineup ``opponents[:agent] + [agent]
/// + opponents[agent:]``. A list of ``n`` such lists gives each environment its own lineup.
/// With ``opponents=None`` the agent plays every seat (self-play).
///
/// ``reset()`` returns ``(obs, mask)``: ``obs`` float32 ``(n, observation_len)``, the
/// observation of the seat to decide (the roll waiting is part of it), ``mask`` bool ``(n,
/// 8)``, its legal actions. ``step(actions)`` plays one action per environment (an integer
/// array of shape ``(n,)``) and returns ``(obs, rewards, terminated, mask)``: ``rewards``
/// float32 ``(n,)`` is the agent's return of a game that ended during the step (with self-play
/// ``(n, players)``, every player's), ``terminated`` says which ended; those environments have
/// started their next game already, and ``obs`` and ``mask`` are its first decision's.
/// ``ended()`` describes the games that ended (final observation, winner, turns).
///
/// Environment ``i`` plays the games ``i``, ``i + n``, ... of ``aeroplane run --seed seed``
/// (``game_index``): the same dice and opponent seeds, so with the same actions the same
/// games. The agent is asked only when it has two or more legal actions, as the runner asks
/// bots (``forced_moves=True``: at every decision); a game in which it has no choice at all
/// takes one step at its end (``idle``: the observation is its last position, action 0 alone
/// is legal and plays nothing, and that step reports the game). Arrays are filled by
/// ``threads`` worker threads (0: one per core) with the GIL released.
#[pyclass(name = "VecEnv", module = "aeroplane")]
pub struct PyVecEnv {
    inner: Mutex<Inner>,
    n: usize,
    players: usize,
    self_play: bool,
    kind: ObsKind,
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
type Observed<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);
/// `(obs, mask)` of one environment.
type Row<'py> = (Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<bool>>);
/// `(obs, rewards, terminated, mask)` of a step.
type Stepped<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
);

fn busy() -> PyErr {
    PyRuntimeError::new_err("this VecEnv is being stepped by another thread")
}

/// A one-dimensional integer array argument of length `n` (`what`: its name in messages).
fn ints_arg(py: Python<'_>, values: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<Vec<i64>> {
    macro_rules! dtypes {
        ($($t:ty),*) => {$(
            if let Ok(a) = values.cast::<PyArray1<$t>>() {
                let ro = a.try_readonly().map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
                let view = ro.as_array();
                if view.len() != n {
                    return Err(PyValueError::new_err(format!(
                        "{what} must have shape ({n},): one per environment, got ({},)",
                        view.len()
                    )));
                }
                #[allow(clippy::unnecessary_fallible_conversions, irrefutable_let_patterns)]
                return Ok(view.iter().map(|&x| i64::try_from(x).unwrap_or(i64::MAX)).collect());
            }
        )*};
    }
    dtypes!(i64, i32, i16, i8, u64, u32, u16, u8);
    if values.hasattr("dtype")? && values.hasattr("shape")? {
        let shape = values.getattr("shape")?;
        let dims: Vec<usize> = shape.extract().unwrap_or_default();
        if dims.len() != 1 || dims[0] != n {
            return Err(PyValueError::new_err(format!(
                "{what} must have shape ({n},): one per environment, got {}",
                shape.repr()?
            )));
        }
        return Err(PyTypeError::new_err(format!(
            "{what} must be an integer array (int64, int32, ..., uint8), not dtype {}",
            values.getattr("dtype")?.str()?
        )));
    }
    if values.is_instance_of::<PyList>() || values.is_instance_of::<PyTuple>() {
        let np = py.import("numpy")?;
        let array = np.call_method1("asarray", (values,))?;
        if array
            .getattr("dtype")?
            .getattr("kind")?
            .extract::<String>()?
            == "i"
        {
            return ints_arg(py, &array.call_method1("astype", ("int64",))?, n, what);
        }
        return ints_arg(py, &array, n, what);
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a numpy integer array of shape ({n},), not {}",
        type_name(values)
    )))
}

/// The environment mask of a step: bool `(n,)`.
fn env_mask_arg(value: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<bool>> {
    let Ok(a) = value.cast::<PyArray1<bool>>() else {
        return Err(PyTypeError::new_err(format!(
            "env_mask must be a numpy bool array of shape ({n},), not {}",
            if value.hasattr("dtype")? {
                format!("dtype {}", value.getattr("dtype")?.str()?)
            } else {
                type_name(value)
            }
        )));
    };
    let ro = a
        .try_readonly()
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    let view = ro.as_array();
    if view.len() != n {
        return Err(PyValueError::new_err(format!(
            "env_mask must have shape ({n},): one per environment, got ({},)",
            view.len()
        )));
    }
    Ok(view.iter().copied().collect())
}

/// An output buffer given in `out=`: a C-contiguous writeable array of the dtype and shape a
/// step returns.
fn out_array<'py, T: numpy::Element, D: numpy::ndarray::Dimension>(
    value: &Bound<'py, PyAny>,
    what: &str,
    shape: &[usize],
    dtype: &str,
) -> PyResult<Bound<'py, numpy::PyArray<T, D>>> {
    let wanted = || {
        format!(
            "out: {what} must be a C-contiguous writeable numpy array of dtype {dtype} and shape ({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
                + if shape.len() == 1 { "," } else { "" }
        )
    };
    let a = value
        .cast::<numpy::PyArray<T, D>>()
        .map_err(|_| PyTypeError::new_err(wanted()))?;
    if a.shape() != shape || !a.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "{}, got shape {:?}{}",
            wanted(),
            a.shape(),
            if a.is_c_contiguous() {
                ""
            } else {
                " (not C-contiguous)"
            }
        )));
    }
    Ok(a.clone())
}

/// The opponents: names or `aeroplane.bots.Bot`s (one lineup).
fn lineup_arg(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<BotSpec>> {
    let dir = std::path::Path::new("bots");
    let items: Vec<Bound<'_, PyAny>> = if value.is_instance_of::<PyString>() {
        let text: String = value.extract()?;
        return text.split(',').map(|t| resolve(t.trim(), dir)).collect();
    } else if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        value.try_iter()?.collect::<PyResult<_>>()?
    } else {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a list of bot names (or aeroplane.bots.Bot), a list of such lists (one per environment), or None for self-play, not {}",
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

/// The opponents: one lineup, or a list of `n` lineups (one per environment).
fn opponents_arg(value: &Bound<'_, PyAny>, n: usize, players: usize) -> PyResult<Lineups> {
    let per_env = (value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>())
        && value.len()? > 0
        && value.try_iter()?.all(|item| {
            item.is_ok_and(|i| i.is_instance_of::<PyList>() || i.is_instance_of::<PyTuple>())
        });
    let check = |specs: &[BotSpec], what: &str| -> PyResult<()> {
        if specs.len() + 1 != players {
            return Err(PyValueError::new_err(format!(
                "{what}: {} opponent(s) for {players} players: give players - 1 = {} opponents, or None for self-play",
                specs.len(),
                players - 1
            )));
        }
        Ok(())
    };
    if !per_env {
        let specs = lineup_arg(value, "opponents")?;
        check(&specs, "opponents")?;
        return Ok(Lineups::Shared(specs));
    }
    let len = value.len()?;
    if len != n {
        return Err(PyValueError::new_err(format!(
            "opponents is a list of {len} lineups for {n} environments: give one lineup per environment (or one lineup, a list of bot names, for all)"
        )));
    }
    let mut all = Vec::with_capacity(n);
    for (i, item) in value.try_iter()?.enumerate() {
        let what = format!("opponents[{i}]");
        let specs = lineup_arg(&item?, &what)?;
        check(&specs, &what)?;
        all.push(specs);
    }
    Ok(Lineups::PerEnv(all))
}

/// Where `a` differs from `b`, for messages: `overshoot bounce (this VecEnv: illegal)`.
fn rule_differences(a: &Rules, b: &Rules) -> String {
    RuleOption::ALL
        .iter()
        .filter(|&&o| a.get(o) != b.get(o))
        .map(|&o| format!("{} (this VecEnv: {})", a.get(o), b.get(o)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The seeds of a reset: one for all (the command line's numbering) or one per environment.
enum Seeds {
    Keep,
    All(u64),
    Each(Vec<u64>),
}

fn seeds_arg(py: Python<'_>, value: Option<&Bound<'_, PyAny>>, n: usize) -> PyResult<Seeds> {
    let Some(v) = value.filter(|v| !v.is_none()) else {
        return Ok(Seeds::Keep);
    };
    if !v.is_instance_of::<pyo3::types::PyInt>()
        && !v.hasattr("__index__")?
        && v.hasattr("__len__")?
    {
        let len = v.len()?;
        if len != n {
            return Err(PyValueError::new_err(format!(
                "seed is a list of {len} seeds for {n} environments: give one seed (every environment plays the command line's games i, i + n, ...) or one per environment"
            )));
        }
        let mut seeds = Vec::with_capacity(n);
        for (i, s) in v.try_iter()?.enumerate() {
            seeds.push(u64_arg(&s?, &format!("seed[{i}]"))?);
        }
        let _ = py;
        return Ok(Seeds::Each(seeds));
    }
    Ok(Seeds::All(u64_arg(v, "seed")?))
}

#[pymethods]
impl PyVecEnv {
    #[new]
    #[pyo3(signature = (n, rules = None, players = None, seed = None, opponents = None, *,
        rotate_seats = false, agent = None, forced_moves = false, observation = None,
        threads = None))]
    fn py_new(
        n: &Bound<'_, PyAny>,
        rules: Option<&Bound<'_, PyAny>>,
        players: Option<&Bound<'_, PyAny>>,
        seed: Option<&Bound<'_, PyAny>>,
        opponents: Option<&Bound<'_, PyAny>>,
        rotate_seats: bool,
        agent: Option<&Bound<'_, PyAny>>,
        forced_moves: bool,
        observation: Option<&Bound<'_, PyAny>>,
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
        let players_n = opt_int(players, "players", crate::game::DEFAULT_PLAYERS)?;
        let start = new_game(rules, players_n)?;
        let players = start.players();
        let seed = match seed.filter(|s| !s.is_none()) {
            Some(s) => u64_arg(s, "seed")?,
            None => 0,
        };
        let kind = kind_arg(observation, "observation")?;
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
        let (lineup, lineups) = match opponents.filter(|o| !o.is_none()) {
            None => (vec![Entry::Agent; players], Lineups::Shared(Vec::new())),
            Some(o) => {
                let lineups = opponents_arg(o, n, players)?;
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
                let mut lineup: Vec<Entry> = (0..players - 1).map(Entry::Bot).collect();
                lineup.insert(a, Entry::Agent);
                (lineup, lineups)
            }
        };
        let mut search = 0;
        let mut checked: Vec<String> = Vec::new();
        for s in lineups.all() {
            if s.external.is_some() {
                return Err(PyValueError::new_err(format!(
                    "opponent `{}` is a bot program: VecEnv plays its opponents inside Rust, one per environment; use aeroplane.run for bot programs",
                    s.name
                )));
            }
            if !checked.contains(&s.name) {
                s.check_fit(&rules, players)
                    .map_err(|e| PyValueError::new_err(crate::errors::chain(&e)))?;
                checked.push(s.name.clone());
            }
            if !matches!(s.kind.as_str(), "greedy" | "random") {
                search += 1;
            }
        }
        let search_total = match &lineups {
            Lineups::Shared(_) => search * n,
            Lineups::PerEnv(_) => search,
        };
        if search_total > MAX_SEARCH_BOTS {
            return Err(PyValueError::new_err(format!(
                "{search_total} search-bot opponents in {n} environments: each keeps its search memory, so a VecEnv holds at most {MAX_SEARCH_BOTS} (use greedy or random opponents, or fewer environments)"
            )));
        }
        if !forced_moves && rules.planes() == 1 && !rules.flight_optional() {
            return Err(PyValueError::new_err(
                "with planes = 1 and flight_optional = false a roll never offers two moves, so the agent would never be asked: use forced_moves=True",
            ));
        }
        let pool = aeroplane::runner::worker_pool(threads, "vecenv")
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let self_play = matches!(&lineups, Lineups::Shared(s) if s.is_empty());
        let mut bots = Vec::with_capacity(n * (players - 1));
        if !self_play {
            for i in 0..n {
                bots.extend(lineups.of(i).iter().map(BotSpec::build));
            }
        }
        let env = Env {
            game: start,
            dice: SeededDice::new(seed, 0),
            seed,
            index: 0,
            stride: n as u64,
            rotation: 0,
            roll: 0,
            moves: MoveList::default(),
            bits: 0,
            decided: false,
            idle: false,
        };
        Ok(PyVecEnv {
            inner: Mutex::new(Inner {
                shared: Shared {
                    rules,
                    players,
                    rotate: rotate_seats,
                    forced: forced_moves,
                    lineup,
                    start,
                    self_play,
                    kind,
                    wave: if search > 0 { SEARCH_WAVE } else { WAVE },
                },
                seed: Some(seed),
                lineups,
                envs: vec![env; n],
                bots,
                truncated: vec![false; n],
                ended: Vec::new(),
                broken: None,
                ready: false,
                pool,
            }),
            n,
            players,
            self_play,
            kind,
            rules_name,
        })
    }

    /// Starts every environment's first game and returns ``(obs, mask)`` of its first
    /// decision. ``seed`` (if given) is one seed, under which environment ``i`` plays the
    /// command line's games ``i, i + n, ...``, or a sequence of ``n`` seeds, one per
    /// environment, each playing games ``0, 1, 2, ...`` of its own seed. ``start`` (an integer
    /// array ``(n,)``) sets the game index each environment starts at (default: ``i``, or 0
    /// with per-environment seeds). ``env_mask`` (bool ``(n,)``) starts only the environments
    /// it marks, each at its ``start`` (with the seeds they have: no ``seed`` then); the
    /// others keep their game, and their rows are their current observation and mask.
    /// ``out=(obs, mask)`` fills those arrays instead of new ones.
    #[pyo3(signature = (seed = None, *, start = None, env_mask = None, out = None))]
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
        start: Option<&Bound<'py, PyAny>>,
        env_mask: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Observed<'py>> {
        let mut inner = self.lock()?;
        let active = match env_mask.filter(|m| !m.is_none()) {
            Some(m) => {
                if seed.is_some_and(|s| !s.is_none()) {
                    return Err(PyValueError::new_err(
                        "reset with env_mask starts the marked environments with the seeds they have: give no seed",
                    ));
                }
                if start.is_none_or(|s| s.is_none()) {
                    return Err(PyValueError::new_err(
                        "reset with env_mask needs start: the game index of each marked environment",
                    ));
                }
                if let Some(why) = &inner.broken {
                    return Err(PyRuntimeError::new_err(format!(
                        "this VecEnv stopped in the middle of a step ({why}): call reset() without env_mask"
                    )));
                }
                if !inner.ready {
                    return Err(PyRuntimeError::new_err(
                        "call reset() without env_mask first",
                    ));
                }
                env_mask_arg(m, self.n)?
            }
            None => Vec::new(),
        };
        let seeds = seeds_arg(py, seed, self.n)?;
        let starts = match start.filter(|s| !s.is_none()) {
            Some(s) => {
                let v = ints_arg(py, s, self.n, "start")?;
                let mut u = Vec::with_capacity(self.n);
                for (i, x) in v.into_iter().enumerate() {
                    u.push(u64::try_from(x).map_err(|_| {
                        PyValueError::new_err(format!(
                            "start[{i}] = {x}: a game index is 0 or more"
                        ))
                    })?);
                }
                Some(u)
            }
            None => None,
        };
        let out = match out.filter(|o| !o.is_none()) {
            None => None,
            Some(o) => {
                let t = o.cast::<PyTuple>().map_err(|_| {
                    PyTypeError::new_err("out must be a tuple (obs, mask) of arrays")
                })?;
                if t.len() != 2 {
                    return Err(PyValueError::new_err(
                        "out must be a tuple (obs, mask) of arrays for reset (obs, rewards, terminated, mask for step)",
                    ));
                }
                Some((t.get_item(0)?, t.get_item(1)?))
            }
        };
        match seeds {
            Seeds::Keep => {}
            Seeds::All(s) => {
                inner.seed = Some(s);
                let n = self.n as u64;
                for e in &mut inner.envs {
                    e.seed = s;
                    e.stride = n;
                }
            }
            Seeds::Each(v) => {
                inner.seed = None;
                for (e, s) in inner.envs.iter_mut().zip(v) {
                    e.seed = s;
                    e.stride = 1;
                }
            }
        }
        let starts: Vec<u64> = starts.unwrap_or_else(|| {
            inner
                .envs
                .iter()
                .enumerate()
                .map(|(i, e)| if e.stride == 1 { 0 } else { i as u64 })
                .collect()
        });
        inner.broken = None;
        inner.ready = false;
        let (obs, mask) = match out {
            Some((o, m)) => (Some(o), Some(m)),
            None => (None, None),
        };
        let got = self.advance(
            py,
            &mut inner,
            Move::Reset(0),
            Vec::new(),
            active,
            starts,
            [obs, None, None, mask],
        )?;
        inner.ready = true;
        Ok((got.0, got.3))
    }

    /// Plays ``actions[i]`` in environment ``i`` and everything up to its next decision;
    /// returns ``(obs, rewards, terminated, mask)``. ``env_mask`` (bool ``(n,)``) steps only
    /// the environments it marks: the others keep their game (their rows are their current
    /// observation and mask, reward 0, not terminated) and their actions are not read.
    /// ``out=(obs, rewards, terminated, mask)`` fills those arrays instead of new ones (and
    /// returns them), so that a step allocates nothing.
    #[pyo3(signature = (actions, env_mask = None, *, out = None))]
    fn step<'py>(
        &self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
        env_mask: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Stepped<'py>> {
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
        let active = match env_mask.filter(|m| !m.is_none()) {
            Some(m) => env_mask_arg(m, self.n)?,
            None => Vec::new(),
        };
        let given = ints_arg(py, actions, self.n, "actions")?;
        let mut checked = Vec::with_capacity(self.n);
        for (i, (&a, env)) in given.iter().zip(&inner.envs).enumerate() {
            if !active.is_empty() && !active[i] {
                checked.push(0);
                continue;
            }
            let ok = (0..NUM_ACTIONS as i64).contains(&a) && env.bits & (1 << a) != 0;
            if !ok {
                let legal: Vec<String> = (0..NUM_ACTIONS)
                    .filter(|b| env.bits & (1 << b) != 0)
                    .map(|b| b.to_string())
                    .collect();
                let idle = if env.idle {
                    " (its game ended without a choice for the agent: action 0 reports it)"
                } else {
                    ""
                };
                return Err(PyValueError::new_err(format!(
                    "actions[{i}] = {a} is not a legal action of environment {i}: legal actions are {} (mask[{i}]){idle}",
                    legal.join(", ")
                )));
            }
            checked.push(a as u8);
        }
        let out = match out.filter(|o| !o.is_none()) {
            None => [None, None, None, None],
            Some(o) => {
                let t = o.cast::<PyTuple>().map_err(|_| {
                    PyTypeError::new_err(
                        "out must be a tuple (obs, rewards, terminated, mask) of arrays",
                    )
                })?;
                if t.len() != 4 {
                    return Err(PyValueError::new_err(
                        "out must be a tuple (obs, rewards, terminated, mask) of arrays",
                    ));
                }
                [
                    Some(t.get_item(0)?),
                    Some(t.get_item(1)?),
                    Some(t.get_item(2)?),
                    Some(t.get_item(3)?),
                ]
            }
        };
        self.advance(py, &mut inner, Move::Step, checked, active, Vec::new(), out)
    }

    /// ``(obs, mask)`` of every environment's current decision, without moving any
    /// (``out=(obs, mask)`` fills those arrays).
    #[pyo3(signature = (*, out = None))]
    fn observe<'py>(
        &self,
        py: Python<'py>,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Observed<'py>> {
        let mut inner = self.lock()?;
        if !inner.ready {
            return Err(PyRuntimeError::new_err("call reset() first"));
        }
        let (o, m) = match out.filter(|o| !o.is_none()) {
            None => (None, None),
            Some(o) => {
                let t = o.cast::<PyTuple>().map_err(|_| {
                    PyTypeError::new_err("out must be a tuple (obs, mask) of arrays")
                })?;
                if t.len() != 2 {
                    return Err(PyValueError::new_err(
                        "out must be a tuple (obs, mask) of arrays",
                    ));
                }
                (Some(t.get_item(0)?), Some(t.get_item(1)?))
            }
        };
        let got = self.advance(
            py,
            &mut inner,
            Move::Observe,
            Vec::new(),
            Vec::new(),
            Vec::new(),
            [o, None, None, m],
        )?;
        Ok((got.0, got.3))
    }

    /// The games that ended in the last step (at most one per environment), as a dict of
    /// arrays over them: ``env`` (int64, the environment), ``game`` (uint64, its game index),
    /// ``seed`` (uint64), ``returns`` (float32, the agent's return; with self-play ``(k,
    /// players)``), ``winner`` (int64 seat, -1 for none), ``turns`` (int64), ``truncated``
    /// (bool: stopped by ``max_turns``), ``no_choice`` (bool: the agent had no choice in it)
    /// ``final_obs`` (float32 ``(k, observation_len)``: its last position from the agent's
    /// side, the first seat's with self-play) and ``final_game`` (a list of ``Game``: the
    /// position each ended in).
    fn ended<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let inner = self.lock()?;
        let all: Vec<&Ended> = inner.ended.iter().flatten().collect();
        let k = all.len();
        let len = self.kind.len();
        let width = if self.self_play { self.players } else { 1 };
        let mut obs = vec![0f32; k * len];
        let mut returns = Vec::with_capacity(k * width);
        for (j, e) in all.iter().enumerate() {
            let seat = if self.self_play {
                inner.shared.start.seats()[0]
            } else {
                e.agent
            };
            crate::observe::write(
                self.kind,
                &e.last,
                seat,
                0,
                &mut obs[j * len..(j + 1) * len],
            );
            let r = e.last.returns();
            if self.self_play {
                returns.extend(
                    inner
                        .shared
                        .start
                        .seats()
                        .iter()
                        .map(|s| r[s.index()] as f32),
                );
            } else {
                returns.push(r[e.agent.index()] as f32);
            }
        }
        let d = PyDict::new(py);
        d.set_item(
            "env",
            PyArray1::from_vec(py, all.iter().map(|e| e.env as i64).collect()),
        )?;
        d.set_item(
            "game",
            PyArray1::from_vec(py, all.iter().map(|e| e.index).collect()),
        )?;
        d.set_item(
            "seed",
            PyArray1::from_vec(py, all.iter().map(|e| inner.envs[e.env].seed).collect()),
        )?;
        let returns = PyArray1::from_vec(py, returns);
        if self.self_play {
            d.set_item("returns", returns.reshape([k, width])?)?;
        } else {
            d.set_item("returns", returns)?;
        }
        d.set_item(
            "winner",
            PyArray1::from_vec(
                py,
                all.iter()
                    .map(|e| e.last.winner().map_or(-1, |s| s.index() as i64))
                    .collect(),
            ),
        )?;
        d.set_item(
            "turns",
            PyArray1::from_vec(py, all.iter().map(|e| i64::from(e.last.turns())).collect()),
        )?;
        d.set_item(
            "truncated",
            PyArray1::from_vec(py, all.iter().map(|e| e.truncated()).collect()),
        )?;
        d.set_item(
            "no_choice",
            PyArray1::from_vec(py, all.iter().map(|e| !e.decided).collect()),
        )?;
        d.set_item("final_obs", PyArray1::from_vec(py, obs).reshape([k, len])?)?;
        let games: Vec<PyGame> = all
            .iter()
            .map(|e| PyGame::wrap(e.last, self.rules_name.clone()))
            .collect();
        d.set_item("final_game", games)?;
        Ok(d)
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

    /// Length of an observation (170 for ``"flat"``, 414 for ``"rich"``).
    #[getter]
    fn observation_len(&self) -> usize {
        self.kind.len()
    }

    /// The observation kind: ``"flat"`` or ``"rich"``.
    #[getter]
    fn observation(&self) -> &'static str {
        self.kind.name()
    }

    /// Number of action ids (8).
    #[getter]
    fn num_actions(&self) -> usize {
        NUM_ACTIONS
    }

    /// The seed of the shared numbering, or ``None`` when environments have seeds of their own
    /// (``seeds``).
    #[getter]
    fn seed(&self) -> PyResult<Option<u64>> {
        Ok(self.lock()?.seed)
    }

    /// Each environment's seed, uint64 ``(n,)``.
    #[getter]
    fn seeds<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let inner = self.lock()?;
        Ok(PyArray1::from_vec(
            py,
            inner.envs.iter().map(|e| e.seed).collect(),
        ))
    }

    /// The rules' name.
    #[getter]
    fn rules(&self) -> PyResult<crate::rules::PyRules> {
        Ok(crate::rules::PyRules::new_named(
            self.lock()?.shared.rules,
            self.rules_name.clone(),
        ))
    }

    /// The game each environment plays now (its index under its seed's numbering), uint64
    /// ``(n,)``.
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
            .map(|e| inner.shared.observer(e).index() as i64)
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
                let s = inner.shared.observer(e);
                seats.iter().position(|&x| x == s).unwrap_or(0) as i64
            })
            .collect();
        Ok(PyArray1::from_vec(py, v))
    }

    /// Which environments wait at the end of a game in which the agent had no choice (their
    /// mask allows action 0 alone, which plays nothing and reports the game), bool ``(n,)``.
    #[getter]
    fn idle<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let inner = self.lock()?;
        let v: Vec<bool> = inner.envs.iter().map(|e| e.idle).collect();
        Ok(PyArray1::from_vec(py, v))
    }

    /// Which games of the last step ended by ``max_turns`` (a subset of ``terminated``).
    #[getter]
    fn truncated<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<bool>>> {
        Ok(PyArray1::from_slice(py, &self.lock()?.truncated))
    }

    /// A copy of environment ``i``'s game, at its decision node (``get_state``).
    fn game(&self, i: &Bound<'_, PyAny>) -> PyResult<PyGame> {
        self.get_state(i)
    }

    /// A copy of environment ``i``'s game, at its decision node (at an idle environment, the
    /// finished game). It holds the environment's dice (seed, game index, the rolls drawn) and
    /// its opponents' generators (random, montecarlo, mcts), so that ``set_state(j, game)`` of
    /// this position (or of a copy, ``clone()``/``copy``) goes on with the same game.
    fn get_state(&self, i: &Bound<'_, PyAny>) -> PyResult<PyGame> {
        let mut inner = self.lock()?;
        let k = self.env_index(i)?;
        let per_env = self.per_env(&inner);
        let Inner { envs, bots, .. } = &mut *inner;
        let env = &envs[k];
        let position = env.decision();
        let generators = bots[k * per_env..(k + 1) * per_env]
            .iter_mut()
            .map(|b| b.generator().map(|rng| keep(&*rng)))
            .collect();
        let mut game = PyGame::wrap(position, self.rules_name.clone());
        game.snapshot = Some(Arc::new(EnvSnapshot {
            position,
            seed: env.seed,
            index: env.index,
            rotation: env.rotation,
            dice: env.dice.clone(),
            decided: env.decided,
            generators,
        }));
        Ok(game)
    }

    /// Puts ``game`` (an ``aeroplane.Game`` of this VecEnv's rules and players, not over) into
    /// environment ``i`` and returns ``(obs, mask)`` of its next decision there.
    ///
    /// A game as ``get_state`` gave it (or a copy), unchanged since, is a snapshot: the
    /// environment goes on with that game where it was, its seed, game index and dice (the
    /// rolls drawn so far) and its opponents' generators as they were, so it plays what it
    /// would have played from there.
    ///
    /// Any other game is played on as environment ``i``'s game (``game_index[i]`` unchanged)
    /// with that game's dice and opponent seeds started afresh: the die of ``SeededDice(seed,
    /// deal)`` from each seat's first roll, each opponent seeded with ``bot_seed(seed, deal,
    /// seat)`` (as the state API plays it with those). A roll waiting in ``game`` is played
    /// first (the agent's decision if it has a choice, else the opponent's move or the only
    /// one); then the die and the opponents as in ``step``.
    fn set_state<'py>(
        &self,
        py: Python<'py>,
        i: &Bound<'py, PyAny>,
        game: &Bound<'py, PyAny>,
    ) -> PyResult<Row<'py>> {
        let mut inner = self.lock()?;
        let k = self.env_index(i)?;
        let Ok(g) = game.cast::<PyGame>() else {
            return Err(PyTypeError::new_err(format!(
                "game must be an aeroplane.Game, not {}",
                type_name(game)
            )));
        };
        let (g, snapshot) = {
            let b = g.borrow();
            (b.game, b.snapshot.clone())
        };
        let snapshot = snapshot.filter(|s| s.position == g);
        if *g.rules() != inner.shared.rules {
            return Err(PyValueError::new_err(format!(
                "the game's rules are not this VecEnv's ({}): {}",
                self.rules_name,
                rule_differences(g.rules(), &inner.shared.rules)
            )));
        }
        if g.players() != self.players {
            return Err(PyValueError::new_err(format!(
                "the game has {} players, this VecEnv {}",
                g.players(),
                self.players
            )));
        }
        if g.is_over() {
            return Err(PyValueError::new_err(
                "the game is over: set_state takes a game in play",
            ));
        }
        if !inner.ready {
            return Err(PyRuntimeError::new_err("call reset() first"));
        }
        let roll = g.pending_roll();
        let fast = if roll.is_some() { before_roll(&g)? } else { g };
        let per_env = self.per_env(&inner);
        let Inner {
            shared, envs, bots, ..
        } = &mut *inner;
        let env = &mut envs[k];
        let bots = &mut bots[k * per_env..(k + 1) * per_env];
        let result = (|| -> Result<(), String> {
            if let Some(snap) = &snapshot {
                env.seed = snap.seed;
                env.index = snap.index;
                env.rotation = snap.rotation;
            }
            shared.reseed(env, bots)?;
            if let Some(snap) = &snapshot {
                env.dice = snap.dice.clone();
                env.decided = snap.decided;
                for (bot, saved) in bots.iter_mut().zip(&snap.generators) {
                    if let (Some(rng), Some(saved)) = (bot.generator(), saved) {
                        put_back(rng, saved.as_ref());
                    }
                }
            }
            env.game = fast;
            let mut moves = MoveList::default();
            if let Some(face) = roll
                && shared.play_roll(env, bots, face, &mut moves)?
            {
                return Ok(());
            }
            // A game that ends here without a choice for the agent waits, idle, for the
            // next step to report it.
            shared.settle(env, bots, &mut moves, k).map(|_| ())
        })();
        if let Err(e) = result {
            inner.broken = Some(e.clone());
            return Err(PyRuntimeError::new_err(e));
        }
        if let Some(snap) = &snapshot
            && inner.seed.is_some_and(|s| s != snap.seed)
        {
            // A snapshot of another seed: the environments no longer share one.
            inner.seed = None;
        }
        let env = &inner.envs[k];
        let len = self.kind.len();
        let mut row = vec![0f32; len];
        write_row(&inner.shared, env, &mut row);
        let mask: Vec<bool> = (0..NUM_ACTIONS).map(|a| env.bits & (1 << a) != 0).collect();
        Ok((PyArray1::from_vec(py, row), PyArray1::from_vec(py, mask)))
    }

    /// The opponents' names, in lineup order (empty for self-play); with per-environment
    /// lineups, one list per environment.
    #[getter]
    fn opponents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.lock()?;
        let names = |s: &[BotSpec]| s.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
        Ok(match &inner.lineups {
            Lineups::Shared(s) => names(s).into_pyobject(py)?.into_any(),
            Lineups::PerEnv(v) => v
                .iter()
                .map(|s| names(s))
                .collect::<Vec<_>>()
                .into_pyobject(py)?
                .into_any(),
        })
    }

    fn __repr__(&self) -> PyResult<String> {
        let inner = self.lock()?;
        let who = match &inner.lineups {
            Lineups::Shared(s) if s.is_empty() => "self-play".to_string(),
            Lineups::Shared(s) => format!(
                "opponents {}",
                s.iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Lineups::PerEnv(_) => "opponents per environment".to_string(),
        };
        let seed = inner
            .seed
            .map_or_else(|| "per environment".to_string(), |s| s.to_string());
        Ok(format!(
            "<aeroplane.VecEnv n={} rules={:?} players={} seed={seed} observation={} {who}>",
            self.n,
            self.rules_name,
            self.players,
            self.kind.name()
        ))
    }
}

impl PyVecEnv {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Inner>> {
        match self.inner.try_lock() {
            Ok(g) => Ok(g),
            Err(TryLockError::WouldBlock) => Err(busy()),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        }
    }

    fn per_env(&self, inner: &Inner) -> usize {
        inner
            .shared
            .lineup
            .iter()
            .filter(|e| **e != Entry::Agent)
            .count()
    }

    fn env_index(&self, i: &Bound<'_, PyAny>) -> PyResult<usize> {
        let k = int_arg(i, "environment index")?;
        usize::try_from(k)
            .ok()
            .filter(|&k| k < self.n)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "environment {k}: there are {} (0 to {})",
                    self.n,
                    self.n - 1
                ))
            })
    }

    /// Moves every environment on (`Reset`, `Step`, or not at all: `Observe`) in waves, the GIL
    /// released, checking for signals between waves; returns the arrays (`out`'s, if given:
    /// obs, rewards, terminated, mask).
    fn advance<'py>(
        &self,
        py: Python<'py>,
        inner: &mut Inner,
        how: Move,
        actions: Vec<u8>,
        active: Vec<bool>,
        starts: Vec<u64>,
        out: [Option<Bound<'py, PyAny>>; 4],
    ) -> PyResult<Stepped<'py>> {
        let n = self.n;
        let len = self.kind.len();
        let width = if self.self_play { self.players } else { 1 };
        let steps = matches!(how, Move::Step);
        let [o_obs, o_rew, o_term, o_mask] = out;
        let obs = match &o_obs {
            Some(o) => out_array::<f32, numpy::Ix2>(o, "obs", &[n, len], "float32")?,
            // SAFETY: every element is written below before the array is returned (a failed
            // step returns an error instead, and the array is dropped unread).
            None => unsafe { PyArray2::<f32>::new(py, [n, len], false) },
        };
        let mask = match &o_mask {
            Some(o) => out_array::<bool, numpy::Ix2>(o, "mask", &[n, NUM_ACTIONS], "bool")?,
            None => unsafe { PyArray2::<bool>::new(py, [n, NUM_ACTIONS], false) },
        };
        let rewards: Option<Bound<'py, PyAny>> = if !steps {
            None
        } else if self.self_play {
            Some(match &o_rew {
                Some(o) => {
                    out_array::<f32, numpy::Ix2>(o, "rewards", &[n, width], "float32")?.into_any()
                }
                None => unsafe { PyArray2::<f32>::new(py, [n, width], false) }.into_any(),
            })
        } else {
            Some(match &o_rew {
                Some(o) => out_array::<f32, numpy::Ix1>(o, "rewards", &[n], "float32")?.into_any(),
                None => unsafe { PyArray1::<f32>::new(py, [n], false) }.into_any(),
            })
        };
        let terminated: Option<Bound<'py, PyArray1<bool>>> = if !steps {
            None
        } else {
            Some(match &o_term {
                Some(o) => out_array::<bool, numpy::Ix1>(o, "terminated", &[n], "bool")?,
                None => unsafe { PyArray1::<bool>::new(py, [n], false) },
            })
        };
        let mut obs_rw = obs
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("out: obs: {e}")))?;
        let mut mask_rw = mask
            .try_readwrite()
            .map_err(|e| PyValueError::new_err(format!("out: mask: {e}")))?;
        let mut rew_rw = match &rewards {
            None => None,
            Some(r) if self.self_play => Some(Err(r
                .cast::<PyArray2<f32>>()?
                .try_readwrite()
                .map_err(|e| PyValueError::new_err(format!("out: rewards: {e}")))?)),
            Some(r) => Some(Ok(r
                .cast::<PyArray1<f32>>()?
                .try_readwrite()
                .map_err(|e| PyValueError::new_err(format!("out: rewards: {e}")))?)),
        };
        let mut term_rw = match &terminated {
            None => None,
            Some(t) => Some(
                t.try_readwrite()
                    .map_err(|e| PyValueError::new_err(format!("out: terminated: {e}")))?,
            ),
        };
        let obs_s = obs_rw.as_slice_mut().expect("contiguous");
        let mask_s = mask_rw.as_slice_mut().expect("contiguous");
        let rew_s: &mut [f32] = match &mut rew_rw {
            None => &mut [],
            Some(Ok(r)) => r.as_slice_mut().expect("contiguous"),
            Some(Err(r)) => r.as_slice_mut().expect("contiguous"),
        };
        let term_s: &mut [bool] = match &mut term_rw {
            None => &mut [],
            Some(t) => t.as_slice_mut().expect("contiguous"),
        };
        let per_env = self.per_env(inner);
        let mut truncated = std::mem::take(&mut inner.truncated);
        truncated.resize(n, false);
        if !steps {
            truncated.fill(false);
        }
        let blocks_n = n.div_ceil(BLOCK);
        let mut ended = std::mem::take(&mut inner.ended);
        if !matches!(how, Move::Observe) {
            ended.resize_with(blocks_n, Vec::new);
            for e in &mut ended {
                e.clear();
            }
        }
        let mut scratch: Vec<Vec<Ended>> = Vec::new();
        let Inner {
            shared,
            envs,
            bots,
            pool,
            ..
        } = inner;
        let shared: &Shared = shared;
        let mut done = 0;
        let mut result: Result<(), String> = Ok(());
        let mut interrupted = None;
        while done < n {
            let wave = shared.wave.min(n - done);
            let end = done + wave;
            let env_w = &mut envs[done..end];
            let bots_w = &mut bots[done * per_env..end * per_env];
            let obs_w = &mut obs_s[done * len..end * len];
            let mask_w = &mut mask_s[done * NUM_ACTIONS..end * NUM_ACTIONS];
            let rew_w: &mut [f32] = if rew_s.is_empty() {
                &mut []
            } else {
                &mut rew_s[done * width..end * width]
            };
            let term_w: &mut [bool] = if term_s.is_empty() {
                &mut []
            } else {
                &mut term_s[done..end]
            };
            let trunc_w: &mut [bool] = &mut truncated[done..end];
            let act_w: &[u8] = if actions.is_empty() {
                &[]
            } else {
                &actions[done..end]
            };
            let active_w: &[bool] = if active.is_empty() {
                &[]
            } else {
                &active[done..end]
            };
            let starts_w: &[u64] = if starts.is_empty() {
                &[]
            } else {
                &starts[done..end]
            };
            let ended_w: &mut [Vec<Ended>] = if matches!(how, Move::Observe) {
                scratch.resize_with(wave.div_ceil(BLOCK), Vec::new);
                &mut scratch[..]
            } else {
                &mut ended[done / BLOCK..end.div_ceil(BLOCK)]
            };
            let r: Result<(), String> = py.detach(|| {
                pool.install(|| {
                    let blocks = split(
                        done, env_w, bots_w, act_w, active_w, obs_w, mask_w, rew_w, term_w,
                        trunc_w, ended_w, per_env, width, len,
                    );
                    blocks
                        .into_par_iter()
                        .map(|b| {
                            let s0 = b.first - done;
                            let k = b.envs.len();
                            let st = if starts_w.is_empty() {
                                &[][..]
                            } else {
                                &starts_w[s0..s0 + k]
                            };
                            b.run(shared, how, per_env, st)
                        })
                        .collect::<Result<Vec<()>, String>>()
                        .map(|_| ())
                })
            });
            if let Err(e) = r {
                result = Err(e);
                break;
            }
            done = end;
            if done < n
                && !matches!(how, Move::Observe)
                && let Err(e) = py.check_signals()
            {
                interrupted = Some(e);
                break;
            }
        }
        inner.truncated = truncated;
        inner.ended = ended;
        if let Err(e) = result {
            inner.broken = Some(e.clone());
            return Err(PyRuntimeError::new_err(e));
        }
        if let Some(e) = interrupted {
            inner.broken = Some("interrupted by Ctrl-C".into());
            return Err(e);
        }
        drop((obs_rw, mask_rw, rew_rw, term_rw));
        let none = || py.None().into_bound(py);
        Ok((
            obs.into_any(),
            rewards.unwrap_or_else(none),
            terminated.map_or_else(none, Bound::into_any),
            mask.into_any(),
        ))
    }
}

/// Cuts a wave of environments (the first being `first`) and their output rows into blocks
/// of [`BLOCK`].
fn split<'a>(
    mut first: usize,
    mut envs: &'a mut [Env],
    mut bots: &'a mut [Box<dyn Bot>],
    mut actions: &'a [u8],
    mut active: &'a [bool],
    mut obs: &'a mut [f32],
    mut mask: &'a mut [bool],
    mut rewards: &'a mut [f32],
    mut terminated: &'a mut [bool],
    mut truncated: &'a mut [bool],
    mut ended: &'a mut [Vec<Ended>],
    per_env: usize,
    width: usize,
    len: usize,
) -> Vec<Block<'a>> {
    fn cut<'b, T>(s: &mut &'b mut [T], k: usize) -> &'b mut [T] {
        if s.is_empty() {
            return &mut [];
        }
        let (a, b) = std::mem::take(s).split_at_mut(k);
        *s = b;
        a
    }
    fn cut_ref<'b, T>(s: &mut &'b [T], k: usize) -> &'b [T] {
        if s.is_empty() {
            return &[];
        }
        let (a, b) = s.split_at(k);
        *s = b;
        a
    }
    let mut blocks = Vec::new();
    while !envs.is_empty() {
        let k = BLOCK.min(envs.len());
        let (e_ended, rest) = std::mem::take(&mut ended)
            .split_first_mut()
            .expect("a list per block");
        ended = rest;
        blocks.push(Block {
            first,
            envs: cut(&mut envs, k),
            bots: cut(&mut bots, k * per_env),
            actions: cut_ref(&mut actions, k),
            active: cut_ref(&mut active, k),
            rows: Rows {
                obs: cut(&mut obs, k * len),
                mask: cut(&mut mask, k * NUM_ACTIONS),
                rewards: cut(&mut rewards, k * width),
                terminated: cut(&mut terminated, k),
                truncated: cut(&mut truncated, k),
            },
            ended: e_ended,
        });
        first += k;
    }
    blocks
}
