//! Grading bots against perfect play: every decision a bot makes in games against the `exact`
//! bot, measured by the value table of `aeroplane solve`.
//!
//! **The games.** Each graded bot plays the exact bot on the table's rules, seats rotated, on
//! the same deals (seed) as every other graded bot: game `i` is game `i` of `aeroplane run
//! --rules TABLE/rules.toml --bots BOT,exact:table=TABLE --rotate-seats --seed S`, played
//! through the same [`RunSpec`], so a graded game can be replayed and its result checked.
//!
//! **A decision** is a roll with two or more legal moves, where the driver asks the bot. At
//! each one the table gives the equity of every move (for the mover: `P(win) - P(loss)` under
//! perfect play from there); the bot's *loss* is the best move's equity minus its own move's.
//! A decision is an *error* when the loss exceeds the threshold (by default 1e-9 equity:
//! anything above the rounding of values solved to 1e-12), and *matters* when the best and the
//! worst move differ by more than the threshold (choices between equal moves cannot be wrong).
//!
//! **Units**, as gnubg reports them: equity losses in *millipoints* (1 mp = 0.001 equity) and in
//! points of win probability (1 point = 0.01 of P(win) = 20 mp, since equity = 2 P(win) - 1).
//!
//! **Intervals** (95%) are cluster-robust by deal, the unit of randomisation, with the floors
//! of the run tables at small N: the rates (error rate, optimal share) by
//! [`crate::stats::clustered_rate`], the loss per decision by
//! [`crate::stats::clustered_loss_mean`] (a decision loses at most 2 equity), the loss per
//! game by the same [`crate::stats::gamma_loss_interval`] of the per-deal mean (never
//! narrower, below [`crate::stats::MIN_DEALS`] deals or without spread, than the loss per
//! decision's interval times the decisions per game); the win rate as `aeroplane run`
//! computes it. The losses' intervals are gamma intervals (the loss is a sum of rare errors of
//! very different sizes) whose upper bound allows one more error the size of the mean stake
//! of the decisions that matter (best move's equity minus the worst's).

mod folder;
pub mod log;
pub mod net;
mod output;
pub mod rating;

pub use folder::{FolderState, GradeStatus, folder_state};
pub use log::{LogGradeContext, LogGradeJob, check_log_job, grade_log, grade_log_with};
pub use net::NetReference;
pub use rating::Rating;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};

use serde::{Deserialize, Serialize};

use aeroplane_core::{Bot, BotFault, Game, GameRecord, MAX_MOVES, Move, Rules, Seat, Setup};

use crate::analysis::Summary;
use crate::analysis::Z95;
use crate::bots::BotSpec;
use crate::export::{
    CannotResume, CheckpointError, ExportError, ManifestBot, ManifestError, OutputDir,
};
use crate::runner::{RunError, RunSpec};
use crate::stats::{ClusterSums, Played, Tally};
use crate::value_table::{Table, TableError};

/// Decisions whose loss exceeds this equity are errors, unless told otherwise.
pub const DEFAULT_THRESHOLD: f64 = 1e-9;
/// Blunders kept per bot, unless told otherwise.
pub const DEFAULT_BLUNDERS: usize = 10;
/// Deals per unit of work.
pub const DEFAULT_CHUNK_DEALS: u64 = 8;
/// The most deals per unit of work.
pub const MAX_CHUNK_DEALS: u64 = 65_536;
/// The grade summary's file name.
pub const GRADE_FILE: &str = "grade.json";
/// An unfinished grade's finished units, in its folder.
pub const GRADE_CHECKPOINT: &str = "grade.checkpoint";
/// A stopped grade's deals finished in units not finished, beside its checkpoint.
pub const GRADE_KEPT_DEALS: &str = "grade.checkpoint.deals";
/// `grade.csv`: one row per graded bot.
pub const GRADE_HEADER: [&str; 25] = crate::export::columns(
    crate::export::BOT_WIN_COLUMNS,
    [
        "decisions",
        "decisions_per_game",
        "matters",
        "errors",
        "error_rate",
        "error_lo95",
        "error_hi95",
        "optimal_when_matters",
        "optimal_lo95",
        "optimal_hi95",
        "loss_mp_per_decision",
        "loss_mp_per_decision_lo95",
        "loss_mp_per_decision_hi95",
        "loss_mp_per_game",
        "loss_mp_per_game_lo95",
        "loss_mp_per_game_hi95",
        "loss_points_per_game",
        "interval_method",
    ],
);
/// `blunders.csv`: the worst decisions of each bot.
pub const BLUNDERS_HEADER: [&str; 14] = [
    "bot",
    "name",
    "rank",
    "game",
    "deal",
    "seat",
    "turn",
    "roll",
    "position",
    "chosen",
    "best",
    "chosen_equity",
    "best_equity",
    "loss_mp",
];
/// How the ratio intervals are computed, as the CSV's `interval_method` says it.
pub const RATIO_METHOD: &str = "cluster_by_deal_wilson";

/// Why grading failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GradeError {
    /// The table cannot be used.
    #[error(transparent)]
    Table(#[from] TableError),
    /// No bots to grade, or no games.
    #[error("{0}")]
    Job(String),
    /// A game failed (a bot that cannot play the rules, a bot program that crashed).
    #[error(transparent)]
    Run(#[from] RunError),
    /// Stopped by a signal (with an output folder, the finished units are in its checkpoint).
    #[error("interrupted")]
    Interrupted,
    /// The checkpoint cannot be used.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// Writing failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Resuming is not possible.
    #[error(transparent)]
    Resume(#[from] CannotResume),
    /// A bot of the checkpoint cannot be rebuilt.
    #[error(transparent)]
    Bot(#[from] ManifestError),
    /// The decision log cannot be graded.
    #[error(transparent)]
    Log(#[from] crate::decision_log::read::LogError),
    /// The report page cannot be drawn.
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// The worker pool could not start.
    #[error(transparent)]
    Pool(#[from] crate::runner::PoolError),
}

/// What a grade judges decisions by.
#[derive(Clone, Debug, PartialEq)]
pub enum Reference {
    /// Perfect play: the solve's folder (or table file) of `aeroplane solve`.
    Table(PathBuf),
    /// A td net's N-ply evaluation (where no table exists: the full game).
    Net(NetReference),
}

impl Reference {
    /// The table's or the net's path.
    pub fn path(&self) -> &std::path::Path {
        match self {
            Reference::Table(t) => t,
            Reference::Net(n) => &n.net,
        }
    }
}

/// A grading job.
#[derive(Clone, Debug)]
pub struct GradeJob {
    /// What the decisions are judged by; the graded bots play it (the `exact` bot of the
    /// table, or the `td` bot of the net at the same ply).
    pub reference: Reference,
    /// The bots to grade.
    pub bots: Vec<BotSpec>,
    /// The master seed: every bot plays the same deals.
    pub seed: u64,
    /// Deals per bot; each is played with both seatings.
    pub deals: u64,
    /// A decision losing more equity than this is an error.
    pub threshold: f64,
    /// Worst decisions kept per bot.
    pub blunders: usize,
    /// Deals per unit of work (never changes the results).
    pub chunk_deals: u64,
    /// Worker threads, 0 for one per core (never changes the results).
    pub threads: usize,
    /// Also write `report.html` into the output folder when the grade is complete.
    pub report: bool,
    /// Give each bot its rating label ([`rating`]); net grades always do.
    pub ratings: bool,
}

/// How to run a grade: none of this changes the results.
#[derive(Clone, Copy)]
pub struct GradeContext<'a> {
    /// Workers add every finished game here.
    pub progress: &'a AtomicU64,
    /// Set by a signal handler: the grade stops at the next decision of the games in flight
    /// (their deals are played again on resume); with `out`, every finished deal is kept.
    pub interrupt: Option<&'a AtomicBool>,
    /// Where `grade.json`, `grade.csv`, `blunders.csv` and the checkpoint go, if anywhere.
    pub out: Option<&'a OutputDir>,
    /// Go on with the grade whose checkpoint is in `out`.
    pub resume: bool,
    /// Called after each unit this process finishes, with how many it has finished.
    pub unit_done: Option<&'a (dyn Fn(usize) + Sync)>,
    /// Called after each game the grade finishes, with how many it has finished (counting
    /// those kept from earlier sessions).
    pub game_done: Option<fn(u64)>,
    /// Told what a resume found (a unit cut short, a missing checkpoint).
    pub note: Option<&'a (dyn Fn(&str) + Sync)>,
    /// Told, once a resume has read its folder and before it plays on, how many games it
    /// restored (already added to `progress`).
    pub resumed: Option<&'a (dyn Fn(u64) + Sync)>,
}

/// What a grade's checkpoint starts with: the whole job, so that it can be resumed (and a
/// checkpoint of another job is refused).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradeRecord {
    /// Always `aeroplane`.
    pub tool: String,
    /// The version that started it.
    pub version: String,
    /// Always `grade`.
    pub command: String,
    /// The table as given.
    pub table: String,
    /// Its checksum.
    pub table_checksum: String,
    /// The graded bots.
    pub bots: Vec<ManifestBot>,
    /// The seed.
    pub seed: u64,
    /// Deals per bot.
    pub deals: u64,
    /// The error threshold.
    pub threshold: f64,
    /// Blunders kept per bot.
    pub blunders: usize,
    /// Deals per unit (part of the plan).
    pub chunk_deals: u64,
    /// Whether `report.html` is written when the grade is complete.
    #[serde(default)]
    pub report: bool,
    /// A net grade: `table` is the net file, `table_checksum` its checksum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<NetRecord>,
    /// Whether the bots get rating labels.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ratings: bool,
    /// A log grade: the decision log graded (`bots`, `seed`, `deals` and `chunk_deals` are
    /// then unused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

/// A net grade's reference, as its record keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetRecord {
    /// Plies of search.
    pub ply: u8,
    /// The rules as given, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
}

impl GradeRecord {
    /// The log grade of this record, if it is one; `threads` as given.
    pub fn log_job(&self, threads: usize) -> Option<LogGradeJob> {
        let log = self.log.as_ref()?;
        Some(LogGradeJob {
            log: PathBuf::from(log),
            reference: self.reference(),
            threshold: self.threshold,
            blunders: self.blunders,
            threads,
            ratings: self.ratings,
        })
    }

    fn reference(&self) -> Reference {
        match &self.net {
            None => Reference::Table(PathBuf::from(&self.table)),
            Some(n) => Reference::Net(NetReference {
                net: PathBuf::from(&self.table),
                ply: n.ply,
                rules: n.rules.clone(),
            }),
        }
    }

    /// The job of this record (bots checked again); `threads` as given.
    pub fn job(&self, file: &str, threads: usize) -> Result<GradeJob, GradeError> {
        let reference = match &self.net {
            None => Reference::Table(PathBuf::from(&self.table)),
            Some(n) => Reference::Net(NetReference {
                net: PathBuf::from(&self.table),
                ply: n.ply,
                rules: n.rules.clone(),
            }),
        };
        Ok(GradeJob {
            reference,
            bots: self
                .bots
                .iter()
                .enumerate()
                .map(|(i, b)| b.spec(file, i))
                .collect::<Result<_, _>>()?,
            seed: self.seed,
            deals: self.deals,
            threshold: self.threshold,
            blunders: self.blunders,
            chunk_deals: self.chunk_deals,
            threads,
            report: self.report,
            ratings: self.ratings,
        })
    }
}

impl GradeJob {
    fn record(&self, checksum: String) -> GradeRecord {
        GradeRecord {
            tool: "aeroplane".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: "grade".into(),
            table: self.reference.path().display().to_string(),
            table_checksum: checksum,
            bots: self.bots.iter().map(ManifestBot::from).collect(),
            seed: self.seed,
            deals: self.deals,
            threshold: self.threshold,
            blunders: self.blunders,
            chunk_deals: self.chunk_deals,
            report: self.report,
            net: match &self.reference {
                Reference::Table(_) => None,
                Reference::Net(n) => Some(NetRecord {
                    ply: n.ply,
                    rules: n.rules.clone(),
                }),
            },
            ratings: self.ratings,
            log: None,
        }
    }
}

/// The exact bot's spec for a table.
pub fn exact_spec(table: &std::path::Path) -> Result<BotSpec, GradeError> {
    let mut params = std::collections::BTreeMap::new();
    params.insert(
        "table".to_string(),
        toml::Value::String(table.display().to_string()),
    );
    crate::bots::registry::resolve("exact", "exact", &params, "grade --table")
        .map_err(|e| GradeError::Job(e.to_string()))
}

/// One worst decision, with what it takes to look at it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Blunder {
    /// 1 for the worst.
    pub rank: usize,
    /// The game index (of the bot's run against exact).
    pub game: u64,
    /// Its deal.
    pub deal: u64,
    /// The bot's seat.
    pub seat: usize,
    /// Turns begun when it chose.
    pub turn: u32,
    /// The roll.
    pub roll: u8,
    /// The decision node in the position notation (the roll waiting).
    pub position: String,
    /// The move chosen (move notation).
    pub chosen: String,
    /// The best move.
    pub best: String,
    /// The chosen move's equity for the mover.
    pub chosen_equity: f64,
    /// The best move's equity.
    pub best_equity: f64,
    /// The loss in millipoints.
    pub loss_mp: f64,
    /// How to look at the game in the board viewer (net and log grades).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<String>,
}

/// A ratio or mean with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The estimate.
    pub value: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// One graded bot's figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotGrade {
    /// Its index in the graded list.
    pub index: usize,
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: String,
    /// Every parameter.
    pub params: crate::bots::params::Params,
    /// Games against exact.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Win rate against exact, with its interval (as `aeroplane run` computes it).
    pub win_rate: Estimate,
    /// Decisions (rolls with two or more moves).
    pub decisions: u64,
    /// Decisions where the moves' equities differ by more than the threshold.
    pub matters: u64,
    /// Decisions losing more than the threshold.
    pub errors: u64,
    /// Errors per decision.
    pub error_rate: Option<Estimate>,
    /// Share of the decisions that matter where it chose a best move.
    pub optimal_when_matters: Option<Estimate>,
    /// Mean equity loss per decision, millipoints.
    pub loss_mp_per_decision: Option<Estimate>,
    /// Mean equity loss per game, millipoints.
    pub loss_mp_per_game: Estimate,
    /// Mean loss per game in points of win probability.
    pub loss_points_per_game: f64,
    /// The worst decisions, worst first.
    pub blunders: Vec<Blunder>,
    /// Its rating label by its loss per decision (net grades, and exact grades asked for it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<Rating>,
}

/// What `aeroplane grade` reports (and writes as `grade.json` when it is complete: without a
/// `status`, which only an unfinished grade's `grade.json`, a [`GradeStatus`], has).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GradeReport {
    /// Always `aeroplane`.
    pub tool: String,
    /// The version.
    pub version: String,
    /// Always `grade`.
    pub command: String,
    /// The table graded against.
    pub table: String,
    /// Its checksum, hex.
    pub table_checksum: String,
    /// Its rules.
    pub rules: Rules,
    /// Seat 0's probability of winning at the start under perfect play.
    pub first_player_win_probability: f64,
    /// The master seed.
    pub seed: u64,
    /// Deals per bot.
    pub deals: u64,
    /// The error threshold, in equity.
    pub threshold: f64,
    /// What the figures mean.
    pub units: String,
    /// Interval method of the ratios.
    pub interval_method: String,
    /// Per graded bot.
    pub bots: Vec<BotGrade>,
    /// The `aeroplane run` command that plays each bot's games again (same index order).
    pub reproduce: Vec<String>,
    /// For a net grade (`table` is then the net file): the reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<ReferenceInfo>,
}

/// A net grade's reference, as its report says it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReferenceInfo {
    /// `net`, or `table` (a log graded against a table).
    pub kind: String,
    /// The net file or the table.
    pub path: String,
    /// Plies of search (a net).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ply: Option<u8>,
    /// The players.
    pub players: usize,
    /// For a log grade: the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

/// What the units mean, as the report says it.
pub const UNITS: &str = "equity = P(win) - P(loss) for the mover under perfect play from the position; loss = best move's equity - chosen move's; 1 millipoint (mp) = 0.001 equity; 1 point of win probability = 0.01 P(win) = 20 mp";

/// What the units mean for a grade judged by `reference` ([`UNITS`] for perfect play; for a
/// net, the equity is its search's).
pub fn units(reference: Option<&ReferenceInfo>) -> String {
    match reference.and_then(|r| r.ply) {
        Some(ply) => UNITS.replacen(
            "under perfect play from the position",
            &format!("as the net's {ply}-ply search values the position (not perfect play)"),
            1,
        ),
        None => UNITS.into(),
    }
}

/// A decision that lost equity, kept while it may be among the worst.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Kept {
    loss: f64,
    decision: u32,
    blunder: Blunder,
}

impl Kept {
    /// Worst first, then by game and decision: a total order, so the kept set never depends
    /// on how the games were split.
    fn order(a: &Kept, b: &Kept) -> std::cmp::Ordering {
        b.loss
            .total_cmp(&a.loss)
            .then(a.blunder.game.cmp(&b.blunder.game))
            .then(a.decision.cmp(&b.decision))
    }
}

/// One game's decisions by the graded bot.
#[derive(Clone, Debug, Default)]
struct GameLog {
    decisions: u32,
    matters: u32,
    errors: u32,
    optimal: u32,
    loss: f64,
    /// Σ over the decisions of the best move's equity minus the worst's: what they risked.
    stakes: f64,
    candidates: Vec<Kept>,
}

/// The graded bot: plays as its inner bot and logs each decision's loss.
struct Grader {
    inner: Box<dyn Bot>,
    judge: Judge,
    threshold: f64,
    keep: usize,
    game_index: u64,
    log: Arc<Mutex<GameLog>>,
    values: [f64; MAX_MOVES],
    /// Set at a stop: the next decision is given up.
    stop: Arc<AtomicBool>,
}

/// Whether the grade is stopping: told so, or a signal asked every job to stop (what makes
/// waits on bot programs give up, [`crate::bots::external::process::stopping`]), seen at once.
fn stop_asked(stop: &AtomicBool) -> bool {
    stop.load(Ordering::Relaxed) || crate::bots::external::process::stopping()
}

/// The fault of a bot whose decision is given up because the grade is stopping.
fn stopped(bot: &str) -> Box<BotFault> {
    Box::new(BotFault {
        bot: bot.to_string(),
        command: None,
        what: "the grade is stopping".into(),
        line: None,
        kind: aeroplane_core::FaultKind::Stopped,
        stderr: None,
    })
}

/// The graded bots' opponent, giving up its next decision at a stop (a net's search can take
/// a second per decision).
struct Stoppable {
    inner: Box<dyn Bot>,
    stop: Arc<AtomicBool>,
}

impl Bot for Stoppable {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn new_game(&mut self, seat: Seat, seed: u64) {
        self.inner.new_game(seat, seed);
    }
    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        self.inner.choose(game, roll, moves)
    }
    fn try_new_game(
        &mut self,
        start: &Game,
        seat: Seat,
        seed: u64,
        game_index: u64,
    ) -> Result<(), Box<BotFault>> {
        if stop_asked(&self.stop) {
            return Err(stopped(self.inner.name()));
        }
        self.inner.try_new_game(start, seat, seed, game_index)
    }
    fn try_choose(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
    ) -> Result<usize, Box<BotFault>> {
        if stop_asked(&self.stop) {
            return Err(stopped(self.inner.name()));
        }
        self.inner.try_choose(game, roll, moves)
    }
    fn move_values(&self) -> Option<&[f32]> {
        self.inner.move_values()
    }
    fn game_over(&mut self, record: &GameRecord) -> Result<(), Box<BotFault>> {
        self.inner.game_over(record)
    }
}

impl Bot for Grader {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn new_game(&mut self, seat: Seat, seed: u64) {
        self.inner.new_game(seat, seed);
    }
    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        crate::bots::choose_or_panic(self, game, roll, moves)
    }
    fn try_new_game(
        &mut self,
        start: &Game,
        seat: Seat,
        seed: u64,
        game_index: u64,
    ) -> Result<(), Box<BotFault>> {
        if stop_asked(&self.stop) {
            return Err(stopped(self.inner.name()));
        }
        self.game_index = game_index;
        *self.log.lock().expect("not poisoned") = GameLog::default();
        self.inner.try_new_game(start, seat, seed, game_index)
    }
    fn try_choose(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
    ) -> Result<usize, Box<BotFault>> {
        if stop_asked(&self.stop) {
            return Err(stopped(self.inner.name()));
        }
        let pick = self.inner.try_choose(game, roll, moves)?;
        let values = &mut self.values[..moves.len()];
        if let Err(e) = self.judge.values(game, roll, moves, values) {
            return Err(Box::new(BotFault {
                bot: format!("{} (graded)", self.inner.name()),
                command: None,
                what: e,
                line: None,
                kind: aeroplane_core::FaultKind::Start,
                stderr: None,
            }));
        }
        let mut log = self.log.lock().expect("not poisoned");
        let at = Decision {
            game,
            roll,
            moves,
            values,
            pick,
            game_index: self.game_index,
            deal: self.game_index / 2,
        };
        log.judge(&at, self.threshold, self.keep);
        Ok(pick)
    }
    fn game_over(&mut self, record: &GameRecord) -> Result<(), Box<BotFault>> {
        self.inner.game_over(record)
    }
}

/// One judged decision: the position, the moves with the reference's values, the pick.
struct Decision<'a> {
    game: &'a Game,
    roll: u8,
    moves: &'a [Move],
    values: &'a [f64],
    pick: usize,
    game_index: u64,
    deal: u64,
}

impl GameLog {
    /// Counts one decision: its loss against the reference's best move, an error when the
    /// loss exceeds `threshold`, kept among the `keep` worst.
    fn judge(&mut self, d: &Decision, threshold: f64, keep: usize) {
        let values = d.values;
        let (mut best, mut worst) = (0, 0);
        for (i, &v) in values.iter().enumerate() {
            if v > values[best] {
                best = i;
            }
            if v < values[worst] {
                worst = i;
            }
        }
        let Some(&chosen_equity) = values.get(d.pick) else {
            return;
        };
        let loss = values[best] - chosen_equity;
        let matters = values[best] - values[worst] > threshold;
        self.decisions += 1;
        self.matters += u32::from(matters);
        self.loss += loss;
        self.stakes += values[best] - values[worst];
        if loss > threshold {
            self.errors += 1;
            let worst_kept = self.candidates.last().map_or(f64::INFINITY, |k| k.loss);
            if self.candidates.len() < keep || loss >= worst_kept {
                let mut setup = Setup::from(d.game);
                setup.roll = Some(d.roll);
                let c = Kept {
                    loss,
                    decision: self.decisions,
                    blunder: Blunder {
                        rank: 0,
                        game: d.game_index,
                        deal: d.deal,
                        seat: d.game.to_move().index(),
                        turn: d.game.turns(),
                        roll: d.roll,
                        position: setup.to_string(),
                        chosen: d.moves[d.pick].to_string(),
                        best: d.moves[best].to_string(),
                        chosen_equity,
                        best_equity: values[best],
                        loss_mp: loss * 1000.0,
                        viewer: None,
                    },
                };
                keep_worst(&mut self.candidates, c, keep);
            }
        } else if matters {
            self.optimal += 1;
        }
    }
}

/// What judges a decision: the exact table, or a net's search (one per worker).
enum Judge {
    Table(Arc<Table>),
    Net(Box<net::NetJudge>),
}

impl Judge {
    fn values(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
        out: &mut [f64],
    ) -> Result<(), String> {
        match self {
            Judge::Table(t) => t
                .move_values(game, roll, moves, out)
                .map_err(|e| e.to_string()),
            Judge::Net(n) => n.move_values(game, roll, moves, out),
        }
    }
}

/// The loaded reference, shared by the workers.
enum Source {
    Table(Arc<Table>),
    Net(Arc<crate::td::Net>, u8),
}

impl Source {
    fn judge(&self) -> Judge {
        match self {
            Source::Table(t) => Judge::Table(Arc::clone(t)),
            Source::Net(n, ply) => Judge::Net(Box::new(net::NetJudge::new(Arc::clone(n), *ply))),
        }
    }
}

/// Adds `c` to `kept` (sorted worst first) if it is among the `keep` worst.
fn keep_worst(kept: &mut Vec<Kept>, c: Kept, keep: usize) {
    if keep == 0 {
        return;
    }
    let at = kept.partition_point(|k| Kept::order(k, &c).is_lt());
    if at < keep {
        kept.insert(at, c);
        kept.truncate(keep);
    }
}

/// One deal's figures for one bot (its two games).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
struct DealGrade {
    decisions: u32,
    matters: u32,
    errors: u32,
    optimal: u32,
    loss: f64,
    /// What its decisions risked (see `GameLog::stakes`): the loss intervals' allowance.
    #[serde(default)]
    stakes: f64,
}

/// One bot's decisions summed deal by deal, in plan order: a constant size however many deals
/// (the intervals come from these sums, [`crate::stats::ClusterSums`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotSums {
    /// Per deal: its decisions and its errors.
    errors: ClusterSums,
    /// Per deal: its decisions that matter and those where a best move was chosen.
    optimal: ClusterSums,
    /// Per deal: its decisions and their equity loss.
    loss: ClusterSums,
    /// Per deal: one, and its loss per game in millipoints.
    per_game: ClusterSums,
    /// The stakes of its decisions that matter, summed (see `GameLog::stakes`).
    stakes: f64,
    /// The worst decisions, worst first.
    worst: Vec<Kept>,
}

impl BotSums {
    /// Adds one deal of `games` games.
    fn add_deal(&mut self, d: &DealGrade, games: u64) {
        let decisions = u64::from(d.decisions);
        self.errors.add(decisions, f64::from(d.errors));
        self.optimal.add(u64::from(d.matters), f64::from(d.optimal));
        self.loss.add(decisions, d.loss);
        self.per_game.add(1, d.loss * 1000.0 / games.max(1) as f64);
        self.stakes += d.stakes;
    }
}

/// Every bot's sums over the units of the plan's first `folded` units: what a grade keeps
/// instead of its units, and what a compacted checkpoint starts with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fold {
    /// Units `0..folded` of the plan are in the sums.
    folded: usize,
    /// Their games.
    games: u64,
    /// Per graded bot.
    bots: Vec<BotFold>,
}

/// One graded bot's part of a [`Fold`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BotFold {
    sums: BotSums,
    tally: Tally,
}

impl Fold {
    fn new(bots: usize) -> Fold {
        Fold {
            folded: 0,
            games: 0,
            bots: (0..bots)
                .map(|_| BotFold {
                    sums: BotSums::default(),
                    tally: Tally::new(2, 2),
                })
                .collect(),
        }
    }

    /// Folds the units of `pending` that come next in the plan.
    fn take_ready(&mut self, pending: &mut BTreeMap<usize, UnitResult>, blunders: usize) {
        while let Some(r) = pending.remove(&self.folded) {
            let b = &mut self.bots[r.bot];
            for d in &r.deals {
                b.sums.add_deal(d, 2);
            }
            b.tally.merge(&r.tally);
            for c in r.candidates {
                keep_worst(&mut b.sums.worst, c, blunders);
            }
            self.games += 2 * r.deals.len() as u64;
            self.folded += 1;
        }
    }
}

/// The checkpoint is written again, compacted (the sums of the units folded, then the records
/// of those finished out of order), once it holds this many bytes and twice its size after the
/// last compaction: its size never grows with the deals, and compactions (a sync each) cost
/// little next to the records they replace.
const COMPACT_BYTES: u64 = 4 << 20;

/// The result of one unit of work, as the checkpoint keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct UnitResult {
    unit: usize,
    bot: usize,
    deals: Vec<DealGrade>,
    tally: Tally,
    candidates: Vec<Kept>,
}

/// One unit of work: a range of deals of one bot.
#[derive(Clone, Copy)]
struct Unit {
    index: usize,
    bot: usize,
    first: u64,
    deals: u64,
}

/// One graded bot's lineup (the graded bot, then exact) and the log its grader writes.
type Lineup = (Vec<Box<dyn Bot>>, Arc<Mutex<GameLog>>);

/// A worker's bots, built once per graded bot and re-seeded per game.
struct Seats {
    bots: Vec<Option<Lineup>>,
}

/// Checks that a table folder's `rules.toml` (the rules its replay and run commands name) holds
/// the rules its `table.bin` solves: a `rules.toml` of other rules would make the grade's
/// printed commands play other games than the graded ones, or fail. A table given as a file,
/// or a folder without `rules.toml`, has nothing to check.
pub fn check_table_rules(table_path: &std::path::Path, table: &Table) -> Result<(), GradeError> {
    use crate::files::RulesToml;
    let file = table_path.join("rules.toml");
    if !table_path.is_dir() || std::fs::symlink_metadata(&file).is_err() {
        return Ok(());
    }
    let shown = aeroplane_core::excerpt::path(&file);
    let named = crate::config::read_rules_file(&file)
        .map_err(|e| GradeError::Job(format!("{shown} cannot be read: {e}")))?;
    if named == *table.rules() {
        return Ok(());
    }
    let solved = table.rules().to_toml();
    let differ: Vec<String> = named
        .to_toml()
        .lines()
        .zip(solved.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("`{a}` where the table has `{b}`"))
        .collect();
    Err(GradeError::Job(format!(
        "{shown} holds other rules than the table {} solves ({}): the grade would play the table's rules while its replay commands name the file's; put the table's rules back in {shown} (`aeroplane solve` wrote them there), or give the table's table.bin alone",
        aeroplane_core::excerpt::path(&table_path.join("table.bin")),
        if differ.is_empty() {
            "they differ".to_string()
        } else {
            differ.join(", ")
        }
    )))
}

/// Grades every bot of `job`; see the module documentation.
pub fn grade(job: &GradeJob, ctx: &GradeContext) -> Result<GradeReport, GradeError> {
    if job.bots.is_empty() {
        return Err(GradeError::Job(
            "no bots to grade: give the setting `bots`".into(),
        ));
    }
    if job.deals == 0 {
        return Err(GradeError::Job(
            "the number of games must be at least 1".into(),
        ));
    }
    if job.chunk_deals == 0 || job.chunk_deals > MAX_CHUNK_DEALS {
        return Err(GradeError::Job(format!(
            "chunk size {}: give 1 to {MAX_CHUNK_DEALS} deals per unit (a unit's deals are kept until it is folded, and its checkpoint record holds them)",
            job.chunk_deals
        )));
    }
    if !(job.threshold >= 0.0 && job.threshold < 2.0) {
        return Err(GradeError::Job(format!(
            "threshold {}: give an equity loss from 0 to 2 (e.g. 1e-9)",
            job.threshold
        )));
    }
    let loaded = Loaded::new(&job.reference)?;
    let (source, rules, exact) = (&loaded.source, loaded.rules, &loaded.opponent);
    let specs: Vec<RunSpec> = job
        .bots
        .iter()
        .map(|b| RunSpec {
            rules,
            lineup: vec![b.clone(), exact.clone()],
            seed: job.seed,
            first_deal: 0,
            deals: job.deals,
            rotate_seats: true,
        })
        .collect();
    for s in &specs {
        s.validate()?;
    }
    check_threads(job.threads)?;
    // The plan: each bot's deals cut into units of `chunk_deals`, computed on demand (as the
    // runner's `Plan` is), so a grade of any number of deals takes no memory up front.
    let per_bot = job.deals.div_ceil(job.chunk_deals);
    let Some(total_units) = per_bot
        .checked_mul(job.bots.len() as u64)
        .and_then(|n| usize::try_from(n).ok())
    else {
        return Err(GradeError::Job(format!(
            "{} deals in units of {} for {} bots are more units than this machine can number: give fewer games or a larger chunk size",
            job.deals,
            job.chunk_deals,
            job.bots.len()
        )));
    };
    let unit_at = |index: usize| -> Option<Unit> {
        if index >= total_units {
            return None;
        }
        let (bot, k) = (index as u64 / per_bot, index as u64 % per_bot);
        let first = k * job.chunk_deals;
        Some(Unit {
            index,
            bot: bot as usize,
            first,
            deals: job.chunk_deals.min(job.deals - first),
        })
    };
    let pool = worker_pool(job.threads)?;
    let workers = pool.current_num_threads();
    let partials = Mutex::new(folder::Partials::new());
    let games_finished = AtomicU64::new(0);
    // Set once a stop is asked for: the bots of the games in flight give up at their next
    // decision (a `BotFault` of kind `Stopped`), so a stop never waits for a slow game.
    let stop = Arc::new(AtomicBool::new(false));
    let stopping =
        || stop.load(Ordering::Relaxed) || ctx.interrupt.is_some_and(|i| i.load(Ordering::Relaxed));
    // Keeps a unit's finished deals at a stop, for the resume to go on after them.
    let stop_in = |result: UnitResult| {
        if !result.deals.is_empty() {
            partials
                .lock()
                .expect("not poisoned")
                .insert(result.unit, result);
        }
        GradeError::Interrupted
    };
    let play = |seats: &mut Seats, unit: &Unit| -> Result<UnitResult, GradeError> {
        let spec = &specs[unit.bot];
        let (bots, log) = seats.bots[unit.bot].get_or_insert_with(|| {
            let log = Arc::new(Mutex::new(GameLog::default()));
            let grader: Box<dyn Bot> = Box::new(Grader {
                inner: job.bots[unit.bot].build(),
                judge: source.judge(),
                threshold: job.threshold,
                keep: job.blunders,
                game_index: 0,
                log: Arc::clone(&log),
                values: [0.0; MAX_MOVES],
                stop: Arc::clone(&stop),
            });
            let opponent: Box<dyn Bot> = Box::new(Stoppable {
                inner: exact.build(),
                stop: Arc::clone(&stop),
            });
            (vec![grader, opponent], log)
        });
        // A unit stopped before goes on after the deals it kept.
        let kept = partials.lock().expect("not poisoned").remove(&unit.index);
        let mut result = kept.unwrap_or_else(|| UnitResult {
            unit: unit.index,
            bot: unit.bot,
            deals: Vec::with_capacity(unit.deals.min(1 << 12) as usize),
            tally: Tally::new(2, 2),
            candidates: Vec::new(),
        });
        for deal in unit.first + result.deals.len() as u64..unit.first + unit.deals {
            if stopping() {
                return Err(stop_in(result));
            }
            let mut d = DealGrade::default();
            let mut played: [Option<Played>; 2] = [None, None];
            let mut candidates = Vec::new();
            for (r, slot) in played.iter_mut().enumerate() {
                let game = spec.game_index(deal, r as u64);
                let with = crate::runner::PlayOptions {
                    bots: Some(&mut bots[..]),
                    ..Default::default()
                };
                match spec.play(game, &mut (), with) {
                    Ok(p) => *slot = Some(p),
                    // A game given up at a stop (a bot program told to stop, a decision not
                    // taken): its deal is played again on resume, and its games finished
                    // are not counted as played.
                    Err(e) if matches!(e, RunError::Interrupted) || stopping() => {
                        ctx.progress.fetch_sub(r as u64, Ordering::Relaxed);
                        return Err(stop_in(result));
                    }
                    Err(e) => return Err(e.into()),
                }
                let g = std::mem::take(&mut *log.lock().expect("not poisoned"));
                d.decisions += g.decisions;
                d.matters += g.matters;
                d.errors += g.errors;
                d.optimal += g.optimal;
                d.loss += g.loss;
                d.stakes += g.stakes;
                candidates.extend(g.candidates);
                ctx.progress.fetch_add(1, Ordering::Relaxed);
                let n = games_finished.fetch_add(1, Ordering::Relaxed) + 1;
                if let Some(hook) = ctx.game_done {
                    hook(n);
                }
            }
            for c in candidates {
                keep_worst(&mut result.candidates, c, job.blunders);
            }
            let played = played.map(|p| p.expect("both rotations played"));
            result.tally.add_deal(&played);
            result.deals.push(d);
        }
        Ok(result)
    };
    let header = job.record(loaded.checksum.clone());
    let plan = |unit: usize| unit_at(unit).map(|u| (u.bot, u.deals));
    let mut notes = Vec::new();
    let fresh = || Fold::new(job.bots.len());
    let (folder, mut fold, kept) = match ctx.out {
        Some(dir) if ctx.resume => {
            let (f, fold, kept, deals) = folder::Folder::resume(dir, &header, &plan, &mut notes)?;
            *partials.lock().expect("not poisoned") = deals;
            (Some(f), fold.unwrap_or_else(fresh), kept)
        }
        Some(dir) => (
            Some(folder::Folder::start(dir, &header)?),
            fresh(),
            Vec::new(),
        ),
        None => (None, fresh(), Vec::new()),
    };
    if fold.bots.len() != job.bots.len() {
        return Err(GradeError::Job(format!(
            "the checkpoint's sums are of {} bots, the grade has {}",
            fold.bots.len(),
            job.bots.len()
        )));
    }
    if let Some(note) = ctx.note {
        notes.iter().for_each(|n| note(n));
    }
    // Units kept by the checkpoint (folded, or whole records), not played again.
    let first_open = fold.folded;
    let done: std::collections::BTreeSet<usize> = kept.iter().map(|r| r.unit).collect();
    let before = fold.games + folder::games(&kept);
    let before_partial = folder::games_in(partials.lock().expect("not poisoned").values());
    ctx.progress
        .fetch_add(before + before_partial, Ordering::Relaxed);
    if let (true, Some(told)) = (ctx.resume, ctx.resumed) {
        told(before + before_partial);
    }
    games_finished.store(before + before_partial, Ordering::Relaxed);
    // Units finished and not folded yet (they come in any order; the fold is in plan order).
    let mut pending: BTreeMap<usize, UnitResult> = kept.into_iter().map(|r| (r.unit, r)).collect();
    fold.take_ready(&mut pending, job.blunders);
    let mut games_kept = before;
    let finished = AtomicUsize::new(0);
    let next = AtomicUsize::new(first_open);
    // Units a worker may run ahead of the oldest one not folded yet (bounds memory).
    let ahead = 4 * workers;
    let delivered = (Mutex::new(fold.folded), Condvar::new());
    let halt = || {
        stop.store(true, Ordering::Relaxed);
        let _guard = delivered.0.lock().expect("not poisoned");
        delivered.1.notify_all();
    };
    let (tx, rx) = mpsc::channel::<Result<UnitResult, GradeError>>();
    let mut failure: Option<GradeError> = None;
    let mut compact_at = COMPACT_BYTES;
    pool.in_place_scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, delivered, done, stop, finished) =
                (&next, &delivered, &done, &stop, &finished);
            let (play, halt, unit_at) = (&play, &halt, &unit_at);
            scope.spawn(move |_| {
                let mut seats = Seats {
                    bots: (0..job.bots.len()).map(|_| None).collect(),
                };
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total_units || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if done.contains(&i) {
                        continue;
                    }
                    {
                        let (lock, cvar) = delivered;
                        let mut folded = lock.lock().expect("not poisoned");
                        while i >= *folded + ahead && !stop.load(Ordering::Relaxed) {
                            folded = cvar.wait(folded).expect("not poisoned");
                        }
                    }
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let r = play(&mut seats, &unit_at(i).expect("within the plan"));
                    let ok = r.is_ok();
                    if !ok {
                        halt();
                    }
                    if tx.send(r).is_err() || !ok {
                        break;
                    }
                    let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                    if let Some(hook) = ctx.unit_done {
                        hook(n);
                    }
                }
            });
        }
        drop(tx);
        loop {
            if !stop.load(Ordering::Relaxed) && stopping() {
                halt();
            }
            let r = match rx.recv_timeout(std::time::Duration::from_millis(50)) {
                Ok(r) => r,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            };
            let r = match r {
                Ok(r) => r,
                Err(GradeError::Interrupted) => continue,
                Err(e) => {
                    failure.get_or_insert(e);
                    continue;
                }
            };
            if failure.is_some() {
                continue;
            }
            if let Some(f) = &folder
                && let Err(e) = f.keep(&r)
            {
                failure = Some(e);
                halt();
                continue;
            }
            games_kept += 2 * r.deals.len() as u64;
            pending.insert(r.unit, r);
            fold.take_ready(&mut pending, job.blunders);
            *delivered.0.lock().expect("not poisoned") = fold.folded;
            delivered.1.notify_all();
            if let Some(f) = &folder {
                let compacted = match f.size() {
                    Ok(len) if len >= compact_at => {
                        f.compact(&fold, pending.values()).and_then(|()| {
                            compact_at = COMPACT_BYTES.max(2 * f.size()?);
                            Ok(())
                        })
                    }
                    Ok(_) => Ok(()),
                    Err(e) => Err(e),
                };
                if let Err(e) = compacted {
                    failure = Some(e);
                    halt();
                }
            }
        }
    });
    let interrupted = failure.is_none() && fold.folded < total_units;
    if let Some(f) = &folder {
        if interrupted {
            let partials = partials.into_inner().expect("not poisoned");
            let kept = match f.keep_deals(&partials) {
                Ok(kept) => kept,
                Err(e) => {
                    if let Some(note) = ctx.note {
                        note(&crate::export::kept_lost_note(
                            folder::games_in(partials.values()),
                            &aeroplane_core::excerpt::chain(&e),
                        ));
                    }
                    0
                }
            };
            return Err(f
                .stop(games_kept + kept, None)
                .err()
                .unwrap_or(GradeError::Interrupted));
        }
        if let Some(e) = failure {
            let _ = f.stop(games_kept, Some(&e));
            return Err(e);
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    if interrupted {
        return Err(GradeError::Interrupted);
    }
    let names = [String::new(), loaded.opponent.name.clone()];
    let ratings = job.ratings || matches!(job.reference, Reference::Net(_));
    let mut bots: Vec<BotGrade> = job
        .bots
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let names = [spec.name.clone(), names[1].clone()];
            let b = &fold.bots[i];
            bot_grade(i, 0, spec, &b.sums, &b.tally, &names)
        })
        .collect();
    if ratings {
        bots.iter_mut().for_each(BotGrade::rate);
    }
    let table_dir = job.reference.path().display().to_string();
    let rules_file = loaded.rules_arg.clone();
    if let Reference::Net(_) = &job.reference {
        for (b, spec) in bots.iter_mut().zip(&job.bots) {
            let run = format!(
                "aeroplane run --rules {rules_file} --bots {},{} --rotate-seats --games {} --seed {} --out RUN",
                spec.as_given(),
                loaded.opponent.name,
                job.deals,
                job.seed
            );
            for x in &mut b.blunders {
                x.viewer = Some(format!(
                    "{run}; aeroplane replay --manifest RUN/run.json --game {} --html game-{}.html, open at #turn={}",
                    x.game, x.game, x.turn
                ));
            }
        }
    }
    let report = GradeReport {
        tool: "aeroplane".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        command: "grade".into(),
        table: table_dir.clone(),
        table_checksum: loaded.checksum.clone(),
        rules,
        first_player_win_probability: loaded.first_player,
        seed: job.seed,
        deals: job.deals,
        threshold: job.threshold,
        units: units(loaded.info.as_ref()),
        interval_method: RATIO_METHOD.into(),
        bots,
        reproduce: job
            .bots
            .iter()
            .map(|b| {
                format!(
                    "aeroplane run --rules {rules_file} --bots {},{} --rotate-seats --games {} --seed {}",
                    b.as_given(),
                    loaded.opponent_arg,
                    job.deals,
                    job.seed
                )
            })
            .collect(),
        reference: loaded.info.clone(),
    };
    if let Some(f) = folder {
        f.commit(&report, games_kept)?;
    }
    Ok(report)
}

/// A rate over deals (trials and successes summed per deal) as an [`Estimate`]: see
/// [`crate::stats::clustered_rate`].
fn rate(sums: &ClusterSums) -> Option<Estimate> {
    let r = crate::stats::clustered_rate_of(sums, Z95)?;
    Some(Estimate {
        value: sums.y / sums.x as f64,
        low: r.low,
        high: r.high,
    })
}

/// One bot's grade: `index` in the graded list, `line` its lineup index in `tally` (whose
/// lineup is `names`).
fn bot_grade(
    index: usize,
    line: usize,
    spec: &BotSpec,
    sums: &BotSums,
    tally: &Tally,
    names: &[String],
) -> BotGrade {
    let decisions = sums.errors.x;
    let error_rate = rate(&sums.errors);
    // The losses' allowance, one more error of a typical size: the mean stake (best move's
    // equity minus the worst's) of the decisions that matter, which every decision shows
    // whether or not the bot erred there.
    let allowance = sums.stakes / sums.optimal.x.max(1) as f64;
    // A decision loses at most 2 equity (from a certain win to a certain loss).
    let loss = crate::stats::clustered_loss_mean_of(&sums.loss, 2.0, allowance, Z95)
        .map(|(value, low, high)| scale(Estimate { value, low, high }, 1000.0));
    let optimal = rate(&sums.optimal);
    let games = tally.bots[line].games;
    let per_deal = tally.group_size.max(1) as f64;
    // Loss per game: the per-deal totals over the deal's two games, by the gamma interval of
    // their mean (the t quantile's variance, the same allowance); where that cannot be trusted
    // (fewer than MIN_DEALS deals, no spread), never narrower than the loss per decision's
    // interval times the decisions per game.
    let deals = sums.per_game.clusters;
    let n = deals as f64;
    let mean = sums.per_game.y / n;
    let sd = if deals > 1 {
        (sums.per_game.spread() / (n - 1.0)).sqrt()
    } else {
        f64::NAN
    };
    let q = crate::stats::t_for_z(Z95, n - 1.0) / Z95;
    let (mut low, mut high) = crate::stats::gamma_loss_interval(
        mean,
        q * q * sd * sd / n,
        allowance * 1000.0 / per_deal / n,
        Z95,
    );
    if !(deals >= crate::stats::MIN_DEALS && sd > 0.0) {
        let per_game_decisions = decisions as f64 / games.max(1) as f64;
        match loss {
            Some(l) => {
                let (flo, fhi) = (l.low * per_game_decisions, l.high * per_game_decisions);
                (low, high) = if sd.is_nan() {
                    (flo, fhi)
                } else {
                    (low.min(flo), high.max(fhi))
                };
            }
            // No decision at all: no loss, exactly.
            None => (low, high) = (0.0, 0.0),
        }
    }
    let summary = Summary::new(tally, names);
    let wins = tally.bots[line].wins;
    let line = &summary.bots[line];
    let (lo, hi) = line.interval.unwrap_or((f64::NAN, f64::NAN));
    BotGrade {
        index,
        name: spec.name.clone(),
        kind: spec.kind.clone(),
        params: spec.params.clone(),
        games,
        wins,
        win_rate: Estimate {
            value: line.win_rate,
            low: lo,
            high: hi,
        },
        decisions,
        matters: sums.optimal.x,
        errors: sums.errors.y as u64,
        error_rate,
        optimal_when_matters: optimal,
        loss_mp_per_decision: loss,
        loss_mp_per_game: Estimate {
            value: mean,
            low,
            high,
        },
        loss_points_per_game: mean / 20.0,
        blunders: sums
            .worst
            .iter()
            .enumerate()
            .map(|(k, c)| Blunder {
                rank: k + 1,
                ..c.blunder.clone()
            })
            .collect(),
        rating: None,
    }
}

impl BotGrade {
    /// Gives the bot its rating label by its loss per decision.
    fn rate(&mut self) {
        self.rating = self
            .loss_mp_per_decision
            .map(|l| rating::rate(l.value, l.low, l.high));
    }
}

/// The reference of a grade, loaded and checked: what judges, the rules, the graded bots'
/// opponent, and what the report says of it.
struct Loaded {
    source: Source,
    rules: Rules,
    opponent: BotSpec,
    checksum: String,
    first_player: f64,
    rules_arg: String,
    /// The opponent as `aeroplane run --bots` takes it.
    opponent_arg: String,
    info: Option<ReferenceInfo>,
}

impl Loaded {
    fn new(reference: &Reference) -> Result<Loaded, GradeError> {
        match reference {
            Reference::Table(path) => {
                let table = Table::load(path)?;
                check_table_rules(path, &table)?;
                let table_dir = path.display().to_string();
                Ok(Loaded {
                    rules: *table.rules(),
                    opponent: exact_spec(path)?,
                    checksum: format!("{:016x}", table.checksum()),
                    first_player: (1.0 + table.start_equity()) / 2.0,
                    rules_arg: if path.is_dir() {
                        format!("{table_dir}/rules.toml")
                    } else {
                        "RULES".to_string()
                    },
                    opponent_arg: format!("exact:table={table_dir}"),
                    info: None,
                    source: Source::Table(table),
                })
            }
            Reference::Net(n) => {
                let (loaded, rules) = n.load(None)?;
                if loaded.players != 2 {
                    return Err(GradeError::Job(format!(
                        "net file {} is for {} players: a grade plays each bot against the reference in two-player games; grade a {}-player run's decision log against it instead (the setting `log`)",
                        n.net.display(),
                        loaded.players,
                        loaded.players
                    )));
                }
                let opponent = n.spec()?;
                Ok(Loaded {
                    rules,
                    opponent_arg: opponent.name.clone(),
                    opponent,
                    checksum: net::checksum(&loaded),
                    first_player: net::start_win_probability(&loaded, &rules, 2),
                    rules_arg: net::rules_arg(n, &rules),
                    info: Some(ReferenceInfo {
                        kind: "net".into(),
                        path: n.net.display().to_string(),
                        ply: Some(n.ply),
                        players: 2,
                        log: None,
                    }),
                    source: Source::Net(loaded, n.ply),
                })
            }
        }
    }
}

fn scale(e: Estimate, k: f64) -> Estimate {
    Estimate {
        value: e.value * k,
        low: e.low * k,
        high: e.high * k,
    }
}

/// Refuses more worker threads than the runner allows (0 = one per core).
pub(crate) fn check_threads(threads: usize) -> Result<(), GradeError> {
    crate::runner::check_threads(threads).map_err(|e| GradeError::Job(e.to_string()))
}

/// The grade's pool of `threads` workers (0 = one per core).
pub(crate) fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, GradeError> {
    Ok(crate::runner::worker_pool(threads, "grade")?)
}
