//! The tournament runner: plays a [`RunSpec`] in parallel and tallies it.
//!
//! **Architecture invariant:** results depend only on the spec, never on the thread count or the
//! chunk size. Deals are cut into fixed-size chunks; workers take chunks in ascending order from
//! a shared counter, each with its own bots built once ([`BotSpec::build`]) and re-seeded per
//! game ([`Bot::new_game`]); there is no per-thread RNG. Tallies are integers merged exactly in
//! any order, and per-game rows reach the [`GameSink`] in game order: the calling thread puts
//! finished chunks back in order and hands each on as soon as every earlier chunk is done.

mod kept;
mod log;
mod spec;

pub use kept::{FinishedGame, KeptGames};
pub use log::{log_games, log_games_with};
pub use spec::{PlayOptions, RunSpec};

use kept::UnitGames;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, mpsc};

use crate::analysis::luck::{Both, GameLuck, LuckMeter, LuckNet, LuckTally};
use crate::bots::Bot;
use crate::bots::registry::BotSpec;
use crate::decision_log::encode::{LogEncoder, LogStyle};
use crate::stats::{Played, Tally};
use aeroplane_core::{Game, Rules, SetupError};

/// The most worker threads a run takes: more only adds start-up time and memory (thousands of
/// threads took minutes to start and tens of thousands never finished).
pub const MAX_THREADS: usize = 1024;

/// More worker threads asked for than [`MAX_THREADS`]: every job that takes a thread count
/// (run, sweep, league, tune, grade, train) refuses it with this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} worker threads asked for: give at most {MAX_THREADS} (0 = one per core)")]
pub struct TooManyThreads(pub usize);

/// Refuses more worker threads than [`MAX_THREADS`] (0 = one per core is always allowed).
pub fn check_threads(threads: usize) -> Result<(), TooManyThreads> {
    if threads > MAX_THREADS {
        return Err(TooManyThreads(threads));
    }
    Ok(())
}

/// Worker threads that could not start.
#[derive(Debug, thiserror::Error)]
#[error("cannot start {threads} worker thread(s): {message}")]
pub struct PoolError {
    /// Threads asked for.
    pub threads: usize,
    /// The reason.
    pub message: String,
}

/// A pool of `threads` workers (0 = one per core), named `aeroplane-{job}-{i}`: the one way
/// the jobs (and Python's vectorised environment) start their threads. The count is checked
/// against [`MAX_THREADS`] by [`check_threads`] first, where a job refuses it.
pub fn worker_pool(threads: usize, job: &'static str) -> Result<rayon::ThreadPool, PoolError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("aeroplane-{job}-{i}"))
        .build()
        .map_err(|e| PoolError {
            threads,
            message: e.to_string(),
        })
}

/// Deals per chunk unless told otherwise.
pub const DEFAULT_CHUNK_DEALS: u64 = 256;

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Zero games asked for.
    #[error("the number of games must be at least 1")]
    NoGames,
    /// The lineup is not 2 to 4 bots.
    #[error(
        "the lineup has {0} bot(s): give one bot per seat, 2, 3 or 4 of them (e.g. greedy,random,random,random)"
    )]
    Players(usize),
    /// A bot of the lineup cannot play the rules (an `exact` bot with a table of other
    /// rules).
    #[error(transparent)]
    Lineup(crate::bots::BotError),
    /// The net that measures luck does not fit a part's rules or players.
    #[error("the luck net {net}: {what}")]
    Luck {
        /// The net file as given.
        net: String,
        /// What differs.
        what: String,
    },
    /// Game indices would overflow.
    #[error("first game + games is too large: game indices must fit in 64 bits")]
    TooManyGames,
    /// A chunk size of zero.
    #[error("the chunk size must be at least 1 deal")]
    Chunk,
    /// The game could not be set up.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The dice ran out before the game ended (only scripted dice can).
    #[error(transparent)]
    OutOfDice(Box<aeroplane_core::OutOfDice>),
    /// The worker pool could not start.
    #[error(transparent)]
    Pool(#[from] PoolError),
    /// Writing per-game rows failed.
    #[error("writing games: {0}")]
    Sink(#[source] std::io::Error),
    /// A unit outside its part's deals.
    #[error("unit {0:?} is not a range of deals of its part")]
    Plan(Unit),
    /// More worker threads than [`MAX_THREADS`].
    #[error("{}", TooManyThreads(*.0))]
    Threads(usize),
    /// A signal stopped the run.
    #[error("interrupted")]
    Interrupted,
    /// The consumer of unit results failed.
    #[error("{0}")]
    Consumer(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// A bot failed (a bot program crashed, hung, or answered nonsense) and the run was not
    /// told to recover.
    #[error(
        "{fault}\n  in game {game} (seed {seed}, deal {deal}, rotation {rotation}{}); the run stopped (finished chunks were kept; the setting `recover` forfeits such games and goes on)",
        seat.map(|s| format!(", seat {s}")).unwrap_or_default()
    )]
    Bot {
        /// What went wrong.
        fault: Box<crate::bots::BotFault>,
        /// The game index.
        game: u64,
        /// The master seed.
        seed: u64,
        /// The deal.
        deal: u64,
        /// The rotation.
        rotation: u64,
        /// The seat of the failing bot.
        seat: Option<usize>,
    },
}

impl From<crate::analysis::luck::LuckMismatch> for RunError {
    fn from(e: crate::analysis::luck::LuckMismatch) -> RunError {
        RunError::Luck {
            net: e.net,
            what: e.what,
        }
    }
}

/// One game of a run, as written to `games.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRow {
    /// Game index: `deal * games_per_deal + rotation`.
    pub game: u64,
    /// Deal index (the dice and bot seeds).
    pub deal: u64,
    /// Rotation of the lineup, 0 without rotation.
    pub rotation: u64,
    /// The record and who sat where.
    pub played: Played,
    /// Why the game was forfeited, if it was (runs with `recover`).
    pub forfeit_cause: Option<crate::bots::FaultKind>,
}

/// A game forfeited by a failing bot (runs with `recover`), and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ForfeitNote {
    /// The game index.
    pub game: u64,
    /// The seat of the bot that failed.
    pub seat: usize,
    /// Its lineup index.
    pub bot: usize,
    /// What kind of failure.
    pub cause: crate::bots::FaultKind,
    /// What happened, as the fault says it (without the bot's stderr, which differs from run
    /// to run).
    pub message: String,
}

/// Receives the per-game rows of a run, chunk by chunk, in game order.
pub trait GameSink {
    /// Takes the next rows (they follow the previous call's without a gap).
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()>;

    /// Whether the run should stop now (asked after every chunk written): a sequential test
    /// that has decided. The rows written so far are the same for any thread count; the
    /// returned tally then also holds chunks played ahead, so such a sink keeps its own.
    fn done(&self) -> bool {
        false
    }
}

/// How to execute a run: none of this changes its results (`recover` only matters when a bot
/// program fails).
#[derive(Clone, Copy, Debug)]
pub struct Exec {
    /// Worker threads; 0 for one per core.
    pub threads: usize,
    /// Deals per chunk (the unit of work and of progress).
    pub chunk_deals: u64,
    /// A failing bot program forfeits the game in progress instead of stopping the run.
    pub recover: bool,
    /// Called by the worker that finished a game, with the number of games finished so far
    /// (the progress count): for progress displays and for tests that stop a job at a game.
    pub on_game: Option<fn(u64)>,
}

impl Default for Exec {
    fn default() -> Self {
        Exec {
            threads: 0,
            chunk_deals: DEFAULT_CHUNK_DEALS,
            recover: false,
            on_game: None,
        }
    }
}

/// One unit of work of a job: a range of deals of one of its parts (a run, a sweep's variant,
/// a league's table). Units are what the executor hands to workers, what progress, shards and
/// checkpoints count, and what a job's tallies are made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Position of the unit in its job's plan.
    pub index: usize,
    /// Index of the part (into the `parts` given to [`execute`]).
    pub part: usize,
    /// First deal of the unit.
    pub first_deal: u64,
    /// Number of deals (at least 1).
    pub deals: u64,
}

/// A deterministic plan: every unit of a job, in the order their results are delivered: each
/// part's deals cut into units of `chunk_deals` deals, part after part. Units are computed on
/// demand, never stored, so a plan of any number of deals takes constant memory (per part).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    chunk_deals: u64,
    /// Per part: the index of its first unit, its first deal and its deals.
    parts: Vec<PartUnits>,
    /// Units in the plan.
    len: u64,
}

/// Where one part's units sit in a [`Plan`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PartUnits {
    first_unit: u64,
    first_deal: u64,
    deals: u64,
    games_per_deal: u64,
}

impl PartUnits {
    fn units(&self, chunk: u64) -> u64 {
        self.deals.div_ceil(chunk)
    }
}

impl Plan {
    /// Cuts each part's deals into units of `chunk_deals` deals, part after part.
    pub fn chunked(parts: &[RunSpec], chunk_deals: u64) -> Result<Plan, RunError> {
        if chunk_deals == 0 {
            return Err(RunError::Chunk);
        }
        let mut out = Vec::with_capacity(parts.len());
        let mut len = 0u64;
        for spec in parts {
            spec.validate()?;
            let p = PartUnits {
                first_unit: len,
                first_deal: spec.first_deal,
                deals: spec.deals,
                games_per_deal: spec.games_per_deal(),
            };
            len = len
                .checked_add(p.units(chunk_deals))
                .filter(|&n| usize::try_from(n).is_ok())
                .ok_or(RunError::TooManyGames)?;
            out.push(p);
        }
        Ok(Plan {
            chunk_deals,
            parts: out,
            len,
        })
    }

    /// Number of units.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the plan has no unit.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Deals per unit (the last unit of a part may have fewer).
    pub fn chunk_deals(&self) -> u64 {
        self.chunk_deals
    }

    /// Unit `index` of the plan, if there is one.
    pub fn unit(&self, index: u64) -> Option<Unit> {
        if index >= self.len {
            return None;
        }
        let part = self.parts.partition_point(|p| p.first_unit <= index) - 1;
        let p = &self.parts[part];
        let lo = (index - p.first_unit) * self.chunk_deals;
        Some(Unit {
            index: index as usize,
            part,
            first_deal: p.first_deal + lo,
            deals: self.chunk_deals.min(p.deals - lo),
        })
    }

    /// Every unit, in plan order.
    pub fn units(&self) -> impl Iterator<Item = Unit> + '_ {
        (0..self.len).map(|i| self.unit(i).expect("within the plan"))
    }

    /// The units with index `start + n * step` (n = 0, 1, ...), in plan order: the whole plan
    /// (`start` 0, `step` 1), what is left of it after `start` units, or one shard's share.
    pub fn every(&self, start: u64, step: u64) -> Units<'_> {
        let step = step.max(1);
        let len = if start >= self.len {
            0
        } else {
            (self.len - 1 - start) / step + 1
        };
        Units {
            plan: self,
            start,
            step,
            len,
        }
    }

    /// Games the plan plays.
    pub fn games(&self) -> u64 {
        self.games_of_every(1, 0)
    }

    /// Games of the units whose index is `rem` modulo `modulus` (one shard's share), computed
    /// without listing them.
    pub fn games_of_every(&self, modulus: u64, rem: u64) -> u64 {
        let modulus = modulus.max(1);
        let c = u128::from(self.chunk_deals);
        let mut games = 0u128;
        for p in &self.parts {
            let n = p.units(self.chunk_deals);
            if n == 0 {
                continue;
            }
            let (lo, hi) = (p.first_unit, p.first_unit + n - 1);
            // The first index >= lo that is `rem` modulo `modulus`.
            let first = lo + (rem + modulus - lo % modulus) % modulus;
            if first > hi {
                continue;
            }
            let k = u128::from((hi - first) / modulus + 1);
            let mut deals = k * c;
            if hi % modulus == rem % modulus {
                // The part's last unit is one of them, and may be short.
                let last = u128::from(p.deals) - u128::from(n - 1) * c;
                deals -= c - last;
            }
            games += deals * u128::from(p.games_per_deal);
        }
        u64::try_from(games).unwrap_or(u64::MAX)
    }
}

/// Some of a plan's units, in plan order, computed on demand: those with index
/// `start + n * step` ([`Plan::every`]).
#[derive(Clone, Copy, Debug)]
pub struct Units<'a> {
    plan: &'a Plan,
    start: u64,
    step: u64,
    len: u64,
}

impl<'a> Units<'a> {
    /// Number of units.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `n`-th of them.
    pub fn get(&self, n: u64) -> Option<Unit> {
        (n < self.len).then(|| {
            self.plan
                .unit(self.start + n * self.step)
                .expect("within the plan")
        })
    }

    /// Whether game `game` of part `part` belongs to one of these units.
    pub fn hold_game(&self, part: usize, game: u64) -> bool {
        let Some(p) = self.plan.parts.get(part) else {
            return false;
        };
        let deal = game / p.games_per_deal.max(1);
        if deal < p.first_deal || deal - p.first_deal >= p.deals {
            return false;
        }
        let unit = p.first_unit + (deal - p.first_deal) / self.plan.chunk_deals;
        unit >= self.start
            && (unit - self.start).is_multiple_of(self.step)
            && (unit - self.start) / self.step < self.len
    }

    /// Those after the first `n`.
    pub fn skip(&self, n: u64) -> Units<'a> {
        let n = n.min(self.len);
        Units {
            plan: self.plan,
            start: self.start + n * self.step,
            step: self.step,
            len: self.len - n,
        }
    }
}

/// The result of one unit: its exact tally and, if its part asked for them, its games.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitResult {
    /// Position of the unit in the list given to [`execute`].
    pub index: usize,
    /// The unit.
    pub unit: Unit,
    /// The unit's games, counted.
    pub tally: Tally,
    /// The unit's games in game order; empty unless rows were asked for its part.
    pub rows: Vec<GameRow>,
    /// The unit's forfeited games, in game order (runs with `recover`).
    pub forfeits: Vec<ForfeitNote>,
    /// The unit's games as decision-log bytes (see [`crate::decision_log`]), in game order;
    /// empty unless the job logs its decisions.
    pub log: Vec<u8>,
    /// The unit's luck, when the job measures it ([`LuckNet`]).
    pub luck: Option<LuckTally>,
    /// Each row's game luck, in row order (index: row), when the job measures luck and keeps
    /// the part's rows; empty otherwise.
    pub game_luck: Vec<GameLuck>,
    /// Each game's result and the end of its log bytes: what the unit is kept as when a stop
    /// comes before it can be delivered.
    pub(crate) games: UnitGames,
}

impl UnitResult {
    /// The unit's games, one by one (to keep them at a stop).
    pub fn finished_games(&self) -> Vec<FinishedGame> {
        self.games
            .finished(self.unit.part, &self.forfeits, &self.log)
    }
}

/// What a worker sends the consumer.
enum Done {
    /// A whole unit.
    Unit(Box<UnitResult>),
    /// The games a unit had finished when a stop came.
    Stopped(Vec<FinishedGame>),
}

/// What a consumer of unit results wants next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Deliver the next unit.
    Continue,
    /// Stop the job: no later unit is delivered (a sequential test decided).
    Stop,
}

/// The units an execution plays: a list given in full (checked against the parts), or some
/// of a [`Plan`]'s, computed as they are needed ([`Plan::every`]: any number in constant
/// memory).
#[derive(Clone, Copy, Debug)]
pub enum Work<'a> {
    /// These units, in delivery order.
    Given(&'a [Unit]),
    /// These units of a plan of the same parts.
    Planned(Units<'a>),
}

impl<'a> From<&'a [Unit]> for Work<'a> {
    fn from(units: &'a [Unit]) -> Self {
        Work::Given(units)
    }
}

impl<'a> From<&'a Vec<Unit>> for Work<'a> {
    fn from(units: &'a Vec<Unit>) -> Self {
        Work::Given(units)
    }
}

impl<'a> From<Units<'a>> for Work<'a> {
    fn from(units: Units<'a>) -> Self {
        Work::Planned(units)
    }
}

/// How to execute a job's units and what to watch, keep and measure on the way: the one set
/// of options of [`execute`] and [`run`]. None of it changes the games. The default plays on
/// one thread per core, keeps no rows, writes no log, measures no luck and cannot be stopped.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Threads, unit size, `recover` and the per-game hook.
    pub exec: Exec,
    /// Whether part `p`'s games are kept as rows ([`UnitResult::rows`]); none without it.
    pub rows_for: Option<&'a (dyn Fn(usize) -> bool + Sync)>,
    /// Write every game's decisions in the decision log's style ([`UnitResult::log`]);
    /// without it, games are played unwatched.
    pub log: Option<LogStyle>,
    /// Measure every roll's luck ([`UnitResult::luck`]), each part's by the first of these
    /// nets that fits its rules and players (none: no luck measured; games kept at a stop are
    /// then played again, which gives the same games, so that their luck is measured too).
    pub luck: &'a [LuckNet],
    /// Games finished at an earlier stop: used in place of playing them. When the run ends
    /// the games of units delivered are dropped from it and, after an interrupt, every game
    /// finished but not delivered (of units in flight, and of units finished after one that
    /// was not) is added to it. Without it, the games not delivered at a stop are dropped.
    pub kept: Option<&'a mut KeptGames>,
    /// Workers add each finished game here.
    pub progress: Option<&'a AtomicU64>,
    /// Set by a signal: every worker ends after the game it is playing, no unit is delivered
    /// after it and the execution fails with [`RunError::Interrupted`].
    pub interrupt: Option<&'a AtomicBool>,
}

impl<'a> RunOptions<'a> {
    /// The default options with `exec`.
    pub fn new(exec: Exec) -> Self {
        RunOptions {
            exec,
            ..RunOptions::default()
        }
    }
}

/// Plays the units of `work` (of `parts`) on a worker pool and hands every unit's result to
/// `on_unit` in plan order, on the calling thread; `options` say what else to keep, log,
/// measure and count. Results never depend on the thread count: units are played from fixed
/// seeds and delivered in order; workers run at most a few units ahead of the oldest
/// undelivered one, so memory stays flat.
pub fn execute<'w>(
    parts: &[RunSpec],
    work: impl Into<Work<'w>>,
    options: RunOptions<'_>,
    on_unit: &mut dyn FnMut(UnitResult) -> Result<Flow, RunError>,
) -> Result<(), RunError> {
    for spec in parts {
        spec.validate()?;
    }
    let no_rows = |_: usize| false;
    let counter = AtomicU64::new(0);
    let how = How {
        exec: options.exec,
        rows_for: options.rows_for.unwrap_or(&no_rows),
        log: options.log,
        luck: options.luck,
        progress: options.progress.unwrap_or(&counter),
        interrupt: options.interrupt,
    };
    match work.into() {
        Work::Given(units) => {
            if let Some(u) = units.iter().find(|u| {
                u.part >= parts.len()
                    || u.deals == 0
                    || !parts[u.part].contains_deals(u.first_deal, u.deals)
            }) {
                return Err(RunError::Plan(*u));
            }
            execute_at(
                parts,
                (units.len() as u64, &|i| units[i as usize]),
                how,
                options.kept,
                on_unit,
            )
        }
        Work::Planned(units) => {
            if units.plan.parts.len() != parts.len() {
                return Err(RunError::Plan(units.get(0).unwrap_or_default()));
            }
            execute_at(
                parts,
                (units.len(), &|i| units.get(i).expect("within the list")),
                how,
                options.kept,
                on_unit,
            )
        }
    }
}

/// [`RunOptions`] resolved for the executor (the defaults filled in).
#[derive(Clone, Copy)]
struct How<'a> {
    exec: Exec,
    rows_for: &'a (dyn Fn(usize) -> bool + Sync),
    log: Option<LogStyle>,
    luck: &'a [LuckNet],
    progress: &'a AtomicU64,
    interrupt: Option<&'a AtomicBool>,
}

/// The units to play: how many, and the `i`-th of them.
type UnitsAt<'u> = (u64, &'u (dyn Fn(u64) -> Unit + Sync));

/// The executor: plays units `at(0)`, ..., `at(count - 1)`.
fn execute_at(
    parts: &[RunSpec],
    (count, at): UnitsAt<'_>,
    how: How<'_>,
    kept: Option<&mut KeptGames>,
    on_unit: &mut dyn FnMut(UnitResult) -> Result<Flow, RunError>,
) -> Result<(), RunError> {
    let How {
        exec,
        rows_for,
        log,
        luck,
        progress,
        interrupt,
    } = how;
    if !luck.is_empty() {
        for spec in parts {
            LuckNet::meter_of(luck, &spec.rules, spec.players())?;
        }
    }
    let interrupted = || interrupt.is_some_and(|i| i.load(Ordering::Relaxed));
    check_threads(exec.threads).map_err(|e| RunError::Threads(e.0))?;
    let pool = worker_pool(exec.threads, "run")?;
    let workers = pool.current_num_threads();
    // Units a worker may run ahead of the oldest one not yet delivered (bounds memory).
    let ahead = 4 * workers as u64;

    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let delivered = (Mutex::new(0u64), Condvar::new());
    let failure = Mutex::new(None::<RunError>);
    let (tx, rx) = mpsc::channel::<Done>();
    // Stops every worker, waking those that wait for the consumer (under the lock, so no
    // wake-up is lost).
    let halt = |e: Option<RunError>| {
        if let Some(e) = e {
            failure.lock().expect("lock").get_or_insert(e);
        }
        stop.store(true, Ordering::Relaxed);
        let _guard = delivered.0.lock().expect("lock");
        delivered.1.notify_all();
    };
    let halt = &halt;
    let no_games = KeptGames::new();
    let reuse: &KeptGames = kept.as_deref().unwrap_or(&no_games);
    // Games finished but not delivered at a stop, and the units delivered that had kept games.
    let mut left = Vec::new();
    let mut used = Vec::new();

    pool.in_place_scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, stop, delivered) = (&next, &stop, &delivered);
            scope.spawn(move |_| {
                let mut worker = Worker {
                    log: match log.map(LogEncoder::new).transpose() {
                        Ok(l) => l,
                        Err(e) => return halt(Some(RunError::Sink(e))),
                    },
                    luck_net: luck,
                    ..Worker::default()
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= count || stop.load(Ordering::Relaxed) || interrupted() {
                        break;
                    }
                    {
                        let (lock, cvar) = delivered;
                        let mut done = lock.lock().expect("lock");
                        while i >= *done + ahead && !stop.load(Ordering::Relaxed) {
                            done = cvar.wait(done).expect("lock");
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let unit = at(i);
                    let spec = &parts[unit.part];
                    let job = UnitJob {
                        want_rows: rows_for(unit.part),
                        recover: exec.recover,
                        reuse,
                        on_game: exec.on_game,
                    };
                    let done = match worker.play(spec, unit, job, progress, interrupt) {
                        Ok(Ok(played)) => Done::Unit(Box::new(UnitResult {
                            index: i as usize,
                            unit,
                            tally: played.tally,
                            rows: played.rows,
                            forfeits: played.forfeits,
                            log: played.log,
                            luck: played.luck,
                            game_luck: played.game_luck,
                            games: played.games,
                        })),
                        Ok(Err(stopped)) => Done::Stopped(stopped),
                        Err(e) => return halt(Some(e)),
                    };
                    if tx.send(done).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut next_out = 0usize;
        let mut stopping = false;
        // The consumer ended the run (a sequential test decided, or it failed).
        let mut ended = false;
        'receive: loop {
            // After a stop, the workers end after the game they are playing: their units
            // (whole or not) are still received, so that no finished game is lost.
            if !stopping && interrupted() {
                stopping = true;
                halt(None);
            }
            let done = match rx.recv_timeout(std::time::Duration::from_millis(50)) {
                Ok(d) => d,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break 'receive,
            };
            let result = match done {
                Done::Unit(r) => *r,
                Done::Stopped(games) => {
                    left.extend(games);
                    continue;
                }
            };
            pending.insert(result.index, result);
            // After a stop nothing more is delivered: the units finished by then are handed
            // back with the rest, so a stop lands exactly where it was asked for.
            while !interrupted() {
                let Some(result) = pending.remove(&next_out) else {
                    break;
                };
                next_out += 1;
                let u = result.unit;
                let games = parts[u.part].game_index(u.first_deal, 0)
                    ..parts[u.part].game_index(u.first_deal + u.deals, 0);
                if reuse.any_in(u.part, games.clone()) {
                    used.push((u.part, games));
                }
                match on_unit(result) {
                    Ok(Flow::Continue) => {}
                    Ok(Flow::Stop) => {
                        halt(None);
                        ended = true;
                        break 'receive;
                    }
                    Err(e) => {
                        halt(Some(e));
                        ended = true;
                        break 'receive;
                    }
                }
                *delivered.0.lock().expect("lock") = next_out as u64;
                delivered.1.notify_all();
            }
        }
        if !ended && interrupted() && (next_out as u64) < count {
            failure
                .lock()
                .expect("lock")
                .get_or_insert(RunError::Interrupted);
            left.extend(pending.into_values().flat_map(|r| r.finished_games()));
        }
    });

    if let Some(kept) = kept {
        for (part, games) in used {
            kept.remove_range(part, games);
        }
        if matches!(*failure.lock().expect("lock"), Some(RunError::Interrupted)) {
            for g in left {
                kept.insert(g);
            }
        }
    }
    match failure.into_inner().expect("lock") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A worker's bots, built once per lineup and re-seeded per game.
#[derive(Default)]
struct Worker<'a> {
    lineup: Vec<BotSpec>,
    bots: Vec<Box<dyn Bot>>,
    /// The decision log's writer, when the job logs its decisions.
    log: Option<LogEncoder>,
    /// The nets that measure luck (none when the job measures none).
    luck_net: &'a [LuckNet],
    /// Its meter for the rules and players of the part played.
    luck: Option<(Rules, usize, LuckMeter)>,
}

/// What a worker is asked for a unit beyond the unit itself.
#[derive(Clone, Copy)]
struct UnitJob<'a> {
    /// Keep its games as rows.
    want_rows: bool,
    /// A failing bot program forfeits its game instead of stopping the run.
    recover: bool,
    /// Games finished at an earlier stop: used in place of playing them.
    reuse: &'a KeptGames,
    /// Called after each game played ([`Exec::on_game`]).
    on_game: Option<fn(u64)>,
}

/// A worker's whole unit: its tally, rows, forfeits, decision-log bytes and games.
struct UnitPlayed {
    tally: Tally,
    rows: Vec<GameRow>,
    forfeits: Vec<ForfeitNote>,
    log: Vec<u8>,
    luck: Option<LuckTally>,
    game_luck: Vec<GameLuck>,
    games: UnitGames,
}

impl Worker<'_> {
    /// Plays a unit: `Ok(Ok(_))` when whole, `Ok(Err(games))` with the games it finished when
    /// a stop came first (the game in play at the stop is not one of them).
    fn play(
        &mut self,
        spec: &RunSpec,
        unit: Unit,
        job: UnitJob<'_>,
        progress: &AtomicU64,
        interrupt: Option<&AtomicBool>,
    ) -> Result<Result<UnitPlayed, Vec<FinishedGame>>, RunError> {
        if self.bots.is_empty() || self.lineup != spec.lineup {
            self.lineup = spec.lineup.clone();
            self.bots = spec.lineup.iter().map(BotSpec::build).collect();
        }
        let start = Game::new(spec.rules, spec.players())?;
        let per_deal = spec.games_per_deal();
        let mut tally = Tally::new(spec.players(), per_deal);
        let mut rows = Vec::new();
        let mut forfeits = Vec::new();
        let mut log = Vec::new();
        let unit_games = (unit.deals * per_deal) as usize;
        let mut done = UnitGames {
            games: Vec::with_capacity(unit_games),
        };
        if job.want_rows {
            rows.reserve(unit_games);
        }
        let stopped = |done: &UnitGames, forfeits: &[ForfeitNote], log: &[u8]| {
            Ok(Err(done.finished(unit.part, forfeits, log)))
        };
        let mut games = [empty_played(); 4];
        let mut lucks = [GameLuck::default(); 4];
        let mut luck_tally = (!self.luck_net.is_empty()).then(LuckTally::default);
        let mut game_luck = Vec::new();
        if !self.luck_net.is_empty() {
            let key = (spec.rules, spec.players());
            if self.luck.as_ref().is_none_or(|(r, p, _)| (*r, *p) != key) {
                self.luck = Some((
                    spec.rules,
                    spec.players(),
                    LuckNet::meter_of(self.luck_net, &spec.rules, spec.players())?,
                ));
            }
        }
        let mut causes = [None; 4];
        for deal in unit.first_deal..unit.first_deal + unit.deals {
            for r in 0..per_deal {
                // At a stop, the unit ends here: its finished games are handed back.
                if interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
                    return stopped(&done, &forfeits, &log);
                }
                let game = spec.game_index(deal, r);
                // A kept game carries no luck: with luck measured it is played again (the same
                // game, a pure function of the run and its index).
                let kept = match self.luck {
                    None => job.reuse.get(unit.part, game),
                    Some(_) => None,
                };
                let (played, forfeit) = match kept {
                    Some(k) => {
                        log.extend_from_slice(&k.log);
                        (k.played, k.forfeit.clone())
                    }
                    None => match self.play_game(spec, &start, deal, r, &mut log, job.recover) {
                        Ok(p) => {
                            let n = progress.fetch_add(1, Ordering::Relaxed) + 1;
                            if let Some(f) = job.on_game {
                                f(n);
                            }
                            p
                        }
                        // A bot that failed at the stop (a program killed by it) does not fail
                        // the job: the game is played again on resume.
                        Err(_) if interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) => {
                            return stopped(&done, &forfeits, &log);
                        }
                        Err(e) => return Err(e),
                    },
                };
                games[r as usize] = played;
                if let Some((_, _, m)) = &self.luck {
                    lucks[r as usize] = m.game();
                }
                causes[r as usize] = forfeit.as_ref().map(|f| f.cause);
                forfeits.extend(forfeit);
                done.games.push((game, played, log.len()));
            }
            let n = per_deal as usize;
            tally.add_deal(&games[..n]);
            if let Some(l) = luck_tally.as_mut() {
                l.add_deal(&games[..n], &lucks[..n], spec.players());
            }
            if job.want_rows && luck_tally.is_some() {
                game_luck.extend_from_slice(&lucks[..n]);
            }
            if job.want_rows {
                rows.extend(games[..n].iter().enumerate().map(|(r, p)| GameRow {
                    game: spec.game_index(deal, r as u64),
                    deal,
                    rotation: r as u64,
                    played: *p,
                    forfeit_cause: causes[r],
                }));
            }
        }
        Ok(Ok(UnitPlayed {
            tally,
            rows,
            forfeits,
            log,
            luck: luck_tally,
            game_luck,
            games: done,
        }))
    }

    /// Plays one game (rotation `r` of `deal`), appending its decisions to `log` when the job
    /// logs them; its result and its forfeit, if a failing bot forfeited it.
    fn play_game(
        &mut self,
        spec: &RunSpec,
        start: &Game,
        deal: u64,
        r: u64,
        log: &mut Vec<u8>,
        recover: bool,
    ) -> Result<(Played, Option<ForfeitNote>), RunError> {
        let game = spec.game_index(deal, r);
        let meter = self.luck.as_mut().map(|(_, _, m)| {
            m.begin();
            m
        });
        let bots = &mut self.bots[..];
        let with = PlayOptions {
            start: Some(start),
            bots: Some(bots),
            dice: None,
            recover,
        };
        let (played, forfeit) = match (self.log.as_mut(), meter) {
            (None, None) => spec.play_noting(game, &mut (), with)?,
            (None, Some(m)) => spec.play_noting(game, m, with)?,
            (Some(enc), meter) => {
                enc.lines().begin(game, start, spec.bot_at_seat(r));
                let (played, forfeit) = match meter {
                    None => spec.play_noting(game, enc.lines(), with)?,
                    Some(m) => spec.play_noting(game, &mut Both(enc.lines(), m), with)?,
                };
                enc.finish_game(deal, r, &played.record, log)
                    .map_err(RunError::Sink)?;
                (played, forfeit)
            }
        };
        let note = forfeit.map(|f| {
            let line = f
                .fault
                .line
                .as_ref()
                .map(|l| format!("; offending line: {l:?}"))
                .unwrap_or_default();
            ForfeitNote {
                game,
                seat: f.seat.index(),
                bot: usize::from(played.bot_at_seat[f.seat.index()]),
                cause: f.fault.kind,
                message: aeroplane_core::excerpt::clip_lines(
                    &format!("{}{line}", f.fault.what),
                    300,
                ),
            }
        });
        Ok((played, note))
    }
}

/// Plays the run and returns its tally. `sink`, if any, gets every game's row in game order
/// and can stop the run ([`GameSink::done`]); the tally then counts the units delivered.
/// `options` are [`execute`]'s (their `rows_for` is set here: every row when there is a sink).
pub fn run(
    spec: &RunSpec,
    options: RunOptions<'_>,
    mut sink: Option<&mut dyn GameSink>,
) -> Result<Tally, RunError> {
    let parts = std::slice::from_ref(spec);
    let plan = Plan::chunked(parts, options.exec.chunk_deals)?;
    let want_rows = sink.is_some();
    let mut total = Tally::new(spec.players(), spec.games_per_deal());
    execute(
        parts,
        plan.every(0, 1),
        RunOptions {
            rows_for: Some(&|_| want_rows),
            ..options
        },
        &mut |result| {
            total.merge(&result.tally);
            if let Some(sink) = sink.as_mut() {
                sink.write_games(&result.rows).map_err(RunError::Sink)?;
                if sink.done() {
                    return Ok(Flow::Stop);
                }
            }
            Ok(Flow::Continue)
        },
    )?;
    Ok(total)
}

fn empty_played() -> Played {
    Played {
        record: aeroplane_core::GameRecord::default(),
        bot_at_seat: [crate::stats::NO_BOT; 4],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_lineup;
    use aeroplane_core::Preset;

    fn spec(preset: Preset, bots: &str, first: u64, deals: u64, rotate: bool) -> RunSpec {
        RunSpec {
            rules: preset.rules(),
            lineup: parse_lineup(bots, "bots".as_ref()).unwrap(),
            seed: 11,
            first_deal: first,
            deals,
            rotate_seats: rotate,
        }
    }

    #[derive(Default)]
    struct Rows(Vec<GameRow>);
    impl GameSink for Rows {
        fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
            self.0.extend_from_slice(rows);
            Ok(())
        }
    }

    fn play(s: &RunSpec, threads: usize, chunk: u64) -> (Tally, Vec<GameRow>) {
        let mut rows = Rows::default();
        let exec = Exec {
            threads,
            chunk_deals: chunk,
            recover: false,
            ..Exec::default()
        };
        let t = run(s, RunOptions::new(exec), Some(&mut rows)).unwrap();
        (t, rows.0)
    }

    /// Plays `s` through [`execute`] with `kept`, stopping at `stop` if given; the rows
    /// delivered.
    fn play_kept(
        s: &RunSpec,
        exec: Exec,
        kept: &mut KeptGames,
        stop: Option<&AtomicBool>,
    ) -> (Result<(), RunError>, Vec<GameRow>) {
        let parts = std::slice::from_ref(s);
        let plan = Plan::chunked(parts, exec.chunk_deals).unwrap();
        let mut rows = Vec::new();
        let r = execute(
            parts,
            plan.every(0, 1),
            RunOptions {
                rows_for: Some(&|_| true),
                kept: Some(kept),
                interrupt: stop,
                ..RunOptions::new(exec)
            },
            &mut |u| {
                rows.extend(u.rows);
                Ok(Flow::Continue)
            },
        );
        (r, rows)
    }

    #[test]
    fn kept_games_are_used_in_place_of_playing_them() {
        let s = spec(Preset::Classic, "greedy,random", 0, 10, true);
        let (_, rows) = play(&s, 1, 256);
        // A kept game that differs from what playing it gives (it never would) shows that it
        // is used, not played.
        let mut fake = rows[3].played;
        fake.record
            .counters
            .add(aeroplane_core::Counter::Turns, 1000);
        let mut kept: KeptGames = [FinishedGame {
            part: 0,
            game: rows[3].game,
            played: fake,
            forfeit: None,
            log: Vec::new(),
        }]
        .into_iter()
        .collect();
        let exec = Exec {
            threads: 2,
            chunk_deals: 3,
            ..Exec::default()
        };
        let (r, got) = play_kept(&s, exec, &mut kept, None);
        r.unwrap();
        assert_eq!(got.len(), rows.len());
        for (i, (g, w)) in got.iter().zip(&rows).enumerate() {
            if i == 3 {
                assert_eq!(g.played, fake);
            } else {
                assert_eq!(g, w, "game {i}");
            }
        }
        assert!(kept.is_empty(), "the games of delivered units are dropped");
    }

    static STOP: AtomicBool = AtomicBool::new(false);

    #[test]
    fn a_stop_hands_back_every_finished_game() {
        let s = spec(Preset::Classic, "greedy,random,random", 0, 40, true);
        let (_, rows) = play(&s, 1, 256);
        // One thread, units of 7 deals (21 games): the stop comes at game 50, inside the third
        // unit. The units the consumer had taken by then are delivered (whole, in order); every
        // other finished game, up to the 50th, is handed back.
        let exec = Exec {
            threads: 1,
            chunk_deals: 7,
            on_game: Some(|n| {
                if n == 50 {
                    STOP.store(true, Ordering::Relaxed);
                }
            }),
            ..Exec::default()
        };
        let mut kept = KeptGames::new();
        let (r, got) = play_kept(&s, exec, &mut kept, Some(&STOP));
        assert!(matches!(r, Err(RunError::Interrupted)), "{r:?}");
        let n = got.len();
        assert!(n % 21 == 0 && n <= 42, "{n} rows delivered");
        assert_eq!(got[..], rows[..n]);
        let games: Vec<_> = kept.iter().map(|g| (g.game, g.played)).collect();
        let want: Vec<_> = rows[n..50].iter().map(|r| (r.game, r.played)).collect();
        assert_eq!(games, want);

        // Resumed from there, the rest is played and the kept games are used: the same rows.
        STOP.store(false, Ordering::Relaxed);
        let plan = Plan::chunked(std::slice::from_ref(&s), 7).unwrap();
        let mut rest = Vec::new();
        execute(
            std::slice::from_ref(&s),
            plan.every(0, 1).skip(n as u64 / 21),
            RunOptions {
                rows_for: Some(&|_| true),
                kept: Some(&mut kept),
                ..RunOptions::new(Exec {
                    on_game: None,
                    ..exec
                })
            },
            &mut |u| {
                rest.extend(u.rows);
                Ok(Flow::Continue)
            },
        )
        .unwrap();
        assert_eq!(rest[..], rows[n..]);
        assert!(kept.is_empty());
    }

    #[test]
    fn results_do_not_depend_on_threads_or_chunks() {
        let s = spec(Preset::Classic, "greedy,random,random", 0, 300, true);
        let base = play(&s, 1, 256);
        for (threads, chunk) in [(2, 7), (3, 1), (2, 256), (1, 13)] {
            assert_eq!(
                play(&s, threads, chunk),
                base,
                "{threads} threads, chunk {chunk}"
            );
        }
        let ids: Vec<u64> = base.1.iter().map(|r| r.game).collect();
        assert_eq!(ids, (0..900).collect::<Vec<_>>());
        let no_rows = run(&s, RunOptions::new(Exec::default()), None).unwrap();
        assert_eq!(no_rows, base.0);
    }

    #[test]
    fn two_shards_merge_into_the_whole_run() {
        for rotate in [false, true] {
            let whole = play(
                &spec(
                    Preset::AppFreeGame,
                    "greedy,random,random,random",
                    5,
                    200,
                    rotate,
                ),
                2,
                16,
            );
            let a = play(
                &spec(
                    Preset::AppFreeGame,
                    "greedy,random,random,random",
                    5,
                    77,
                    rotate,
                ),
                1,
                16,
            );
            let b = play(
                &spec(
                    Preset::AppFreeGame,
                    "greedy,random,random,random",
                    82,
                    123,
                    rotate,
                ),
                2,
                5,
            );
            let mut ab = a.0.clone();
            ab.merge(&b.0);
            let mut ba = b.0.clone();
            ba.merge(&a.0);
            assert_eq!(ab, whole.0);
            assert_eq!(ba, whole.0);
            let rows: Vec<GameRow> = a.1.into_iter().chain(b.1).collect();
            assert_eq!(rows, whole.1);
        }
    }

    #[test]
    fn rotation_puts_every_bot_in_every_seat_with_the_same_dice() {
        // Greedy is a pure function of the dice, so with four greedy bots the same seat wins
        // every rotation of a deal, and each lineup entry wins exactly once per deal.
        let s = spec(
            Preset::AppFreeGame,
            "greedy,greedy,greedy,greedy",
            0,
            50,
            true,
        );
        let (t, rows) = play(&s, 2, 3);
        for deal in rows.chunks(4) {
            let winner = deal[0].played.record.winner;
            assert!(deal.iter().all(|r| r.played.record.winner == winner));
            assert!(
                deal.iter()
                    .all(|r| r.played.record.counters == deal[0].played.record.counters)
            );
            for (r, row) in deal.iter().enumerate() {
                assert_eq!(row.rotation, r as u64);
                assert_eq!(row.game, row.deal * 4 + r as u64);
                assert_eq!(row.played.bot_at_seat, s.bot_at_seat(r as u64));
            }
        }
        assert!(t.bots[..4].iter().all(|b| b.games == 200 && b.wins == 50));
        assert!(t.bots[..4].iter().all(|b| b.group_wins_sq == 50));
        assert_eq!(s.bot_at_seat(1), [1, 2, 3, 0]);
        // Two players sit in seats 0 and 2.
        let two = spec(Preset::Chinese, "greedy,random", 0, 10, true);
        assert_eq!(two.bot_at_seat(1), [1, NO, 0, NO]);
        let (t2, _) = play(&two, 1, 4);
        assert_eq!(
            (t2.seats[0].games, t2.seats[2].games, t2.seats[1].games),
            (20, 20, 0)
        );
        assert_eq!((t2.bots[0].games, t2.bots[1].games), (20, 20));
    }

    const NO: u8 = crate::stats::NO_BOT;

    #[test]
    fn rotation_zero_is_the_plain_run() {
        let plain = play(&spec(Preset::Classic, "random,greedy", 0, 40, false), 1, 8).1;
        let rotated = play(&spec(Preset::Classic, "random,greedy", 0, 40, true), 1, 8).1;
        for (p, r) in plain.iter().zip(rotated.iter().step_by(2)) {
            assert_eq!(p.played, r.played);
        }
    }

    #[test]
    fn bad_specs_are_refused() {
        let mut s = spec(Preset::AppFreeGame, "greedy,random", 0, 0, false);
        assert!(matches!(s.validate(), Err(RunError::NoGames)));
        s.deals = 1;
        s.lineup.truncate(1);
        assert!(matches!(s.validate(), Err(RunError::Players(1))));
        let mut s = spec(Preset::AppFreeGame, "greedy,random", u64::MAX, 2, false);
        assert!(matches!(s.validate(), Err(RunError::TooManyGames)));
        s.first_deal = 0;
        let exec = Exec {
            threads: 1,
            chunk_deals: 0,
            recover: false,
            ..Exec::default()
        };
        assert!(matches!(
            run(&s, RunOptions::new(exec), None),
            Err(RunError::Chunk)
        ));
    }

    struct Failing;
    impl GameSink for Failing {
        fn write_games(&mut self, _: &[GameRow]) -> std::io::Result<()> {
            Err(std::io::Error::other("disk full"))
        }
    }

    /// Stops once it has `limit` rows.
    struct Until(Vec<GameRow>, usize);
    impl GameSink for Until {
        fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
            self.0.extend_from_slice(rows);
            Ok(())
        }
        fn done(&self) -> bool {
            self.0.len() >= self.1
        }
    }

    #[test]
    fn a_done_sink_stops_after_the_same_chunks_for_any_thread_count() {
        let s = spec(Preset::AppFreeGame, "greedy,random", 0, 2000, true);
        let mut seen = Vec::new();
        for threads in [1, 2, 3] {
            let mut sink = Until(Vec::new(), 50);
            let exec = Exec {
                threads,
                chunk_deals: 8,
                recover: false,
                ..Exec::default()
            };
            run(&s, RunOptions::new(exec), Some(&mut sink)).unwrap();
            // 50 rows = 25 deals: the fourth chunk of 8 deals (64 rows) is the last written.
            assert_eq!(sink.0.len(), 64);
            seen.push(sink.0);
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]));
    }

    #[test]
    fn a_failing_sink_stops_the_run_with_its_error() {
        let s = spec(Preset::AppFreeGame, "random,random", 0, 5000, false);
        let exec = Exec {
            threads: 2,
            chunk_deals: 10,
            recover: false,
            ..Exec::default()
        };
        let e = run(&s, RunOptions::new(exec), Some(&mut Failing)).unwrap_err();
        assert!(e.to_string().contains("disk full"), "{e}");
    }
}
