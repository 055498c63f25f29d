//! `aeroplane train`: TD(λ) self-play from a seed, as a job with a folder.
//!
//! **Reproducible for any thread count.** Games are played in batches of `batch`: every game of
//! a batch is played in parallel with the weights frozen at the batch's start, each game `i`
//! from its own dice (`SeededDice::new(seed, i)`) and exploration stream, and each returns its
//! gradient ([`Trace`]); the gradients are then subtracted in game order. The net after game
//! `g` is therefore a function of the job only, and so is everything written.
//!
//! **The folder** (the states of ARCHITECTURE.md, as a solve's): `train.json` is the status
//! record (`running`, `interrupted`, `failed`, `complete`; the job, games played, results),
//! written through the folder's spares; `train.checkpoint` is a net file whose metadata also
//! holds the training state (games done, the history so far, the TD-error sums), written whole
//! under a temporary name and renamed, after a batch at most every `checkpoint_every` and at a
//! stop; the finish writes `net.safetensors`, `history.csv` and `report.html`, syncs, commits
//! (`train.json` complete) and removes the checkpoint. A resume goes on from the checkpoint's
//! games (or from the start without one) to the same bytes.
//!
//! **The guard** ([`guard`]) reads every evaluation: a score clearly below the best so far
//! sends the training back to the best net (kept in `train.best` beside the checkpoint) at a
//! quarter of the learning rate; a score clearly below the opponent after the warm-up is
//! reported. Its alarms are in the interim lines, `history.csv`, `train.json` and the report.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use aeroplane_core::{Bot, BotFault, FaultKind, Game, PlayError, Rules, SeededDice};

pub mod guard;
mod page;

use crate::bots::BotSpec;
use crate::bots::td::TdBot;
use crate::export::{CannotResume, ExportError, OutputDir};
use crate::td::encoding::Encoder;
use crate::td::file::{Net, NetFile};
use crate::td::net::{self, Weights};
use crate::td::selfplay::{SelfPlay, Trace};

/// The status record of a training folder.
pub const TRAIN_FILE: &str = "train.json";
/// Its checkpoint.
pub const CHECKPOINT_FILE: &str = "train.checkpoint";
/// The best net so far, which the guard goes back to (beside the checkpoint while running).
pub const BEST_FILE: &str = "train.best";
/// The trained net.
pub const NET_FILE: &str = "net.safetensors";
/// The learning curve.
pub const HISTORY_FILE: &str = "history.csv";
/// The stream of the initial weights.
const INIT_STREAM: u64 = 0x7464_696e_6974;
/// The stream of the evaluation's dice.
const EVAL_STREAM: u64 = 0x7464_6576_616c;

/// A training: what to learn and how.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainJob {
    /// The rules as named (a preset or a file), for the record.
    pub rules_name: String,
    /// The rules.
    pub rules: Rules,
    /// Players, 2..=4.
    pub players: usize,
    /// Self-play games.
    pub games: u64,
    /// The seed of the dice, the initial weights and exploration.
    pub seed: u64,
    /// Hidden units.
    pub hidden: usize,
    /// λ of TD(λ).
    pub lambda: f32,
    /// The learning rate at the first game.
    pub alpha: f32,
    /// The learning rate at the last game: it goes from `alpha` to this linearly in the games
    /// played.
    pub alpha_end: f32,
    /// Games per batch (played with the same weights).
    pub batch: usize,
    /// Probability of a random move at a decision.
    pub explore: f32,
    /// Evaluate every this many games (and at the end).
    pub eval_every: u64,
    /// Deals of an evaluation (each played once per seat of the net).
    pub eval_deals: u64,
    /// The evaluation's opponent, as a bot name.
    pub opponent: String,
    /// The guard: alarms on the evaluations, and the cure for a learning rate too large
    /// ([`guard`]). Needs an evaluation.
    #[serde(default = "yes")]
    pub guard: bool,
}

fn yes() -> bool {
    true
}

/// Why a training failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TrainError {
    /// A setting out of range.
    #[error("the setting `{setting}` is {value}: allowed is {allowed}")]
    Setting {
        /// The setting.
        setting: &'static str,
        /// Its value.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// The rules cannot be played with that many players.
    #[error("{0}")]
    Players(String),
    /// The opponent cannot play.
    #[error("the evaluation's opponent: {0}")]
    Opponent(String),
    /// More worker threads than the runner allows.
    #[error(transparent)]
    Threads(#[from] crate::runner::TooManyThreads),
    /// The evaluation's opponent failed (a bot program crashed, hung, could not start, or
    /// answered nonsense). The state before the batch of that evaluation is in the checkpoint.
    #[error(
        "{fault}\n  in the evaluation after game {games} (deal {deal}, seat {seat}); the training stopped ({})",
        kept_words(*.kept)
    )]
    Evaluation {
        /// What went wrong.
        fault: Box<BotFault>,
        /// Games played when the evaluation started.
        games: u64,
        /// The evaluation's deal.
        deal: u64,
        /// The seat of the failing bot.
        seat: usize,
        /// Games of the state kept in the checkpoint (that batch's start); `None` without a
        /// folder.
        kept: Option<u64>,
    },
    /// A file of the folder.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Resuming is not possible.
    #[error(transparent)]
    Resume(#[from] CannotResume),
}

impl TrainJob {
    /// Checks every setting.
    pub fn check(&self) -> Result<(), TrainError> {
        let bad = |setting, value: String, allowed: &str| {
            Err(TrainError::Setting {
                setting,
                value,
                allowed: allowed.into(),
            })
        };
        Game::new(self.rules, self.players).map_err(|e| TrainError::Players(e.to_string()))?;
        if self.games == 0 || self.games > 1 << 40 {
            return bad("games", self.games.to_string(), "1 to 2^40");
        }
        if !(1..=net::MAX_HIDDEN).contains(&self.hidden) {
            return bad(
                "hidden",
                self.hidden.to_string(),
                &format!("1 to {}", net::MAX_HIDDEN),
            );
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return bad("lambda", self.lambda.to_string(), "0 to 1");
        }
        if !(self.alpha > 0.0 && self.alpha <= 10.0) {
            return bad("alpha", self.alpha.to_string(), "above 0, at most 10");
        }
        if !(self.alpha_end > 0.0 && self.alpha_end <= 10.0) {
            return bad(
                "alpha_end",
                self.alpha_end.to_string(),
                "above 0, at most 10",
            );
        }
        if !(1..=4096).contains(&self.batch) {
            return bad("batch", self.batch.to_string(), "1 to 4096");
        }
        if !(0.0..=1.0).contains(&self.explore) {
            return bad("explore", self.explore.to_string(), "0 to 1");
        }
        if self.eval_every == 0 {
            return bad("eval_every", "0".into(), "1 or more games");
        }
        if self.eval_deals > 1_000_000 {
            return bad("eval_deals", self.eval_deals.to_string(), "0 to 1,000,000");
        }
        Ok(())
    }

    /// The learning rate of the batch starting at game `first`.
    pub fn alpha_at(&self, first: u64) -> f32 {
        let f = first as f64 / self.games as f64;
        (f64::from(self.alpha) + (f64::from(self.alpha_end) - f64::from(self.alpha)) * f) as f32
    }

    /// The initial weights.
    pub fn initial(&self) -> Weights {
        use rand::RngExt;
        let enc = Encoder::new(&self.rules, self.players);
        let mut rng = aeroplane_core::stream(self.seed, u64::MAX, INIT_STREAM);
        Weights::random(enc.inputs(), self.hidden, self.players, || {
            rng.random_range(-1.0f32..1.0)
        })
    }

    /// The command that makes this job again.
    pub fn command(&self) -> String {
        format!(
            "aeroplane train --rules {} --players {} --games {} --seed {} --hidden {} --lambda {} --alpha {} --alpha-end {} --batch {} --explore {} --eval-every {} --eval-deals {} --opponent {}",
            shell_word(&self.rules_name),
            self.players,
            self.games,
            self.seed,
            self.hidden,
            self.lambda,
            self.alpha,
            self.alpha_end,
            self.batch,
            self.explore,
            self.eval_every,
            self.eval_deals,
            shell_word(&self.opponent)
        ) + if self.guard { "" } else { " --no-guard" }
    }

    fn net(&self, weights: Weights, games: u64) -> Net {
        let mut info = std::collections::BTreeMap::new();
        info.insert("rules_name".into(), self.rules_name.clone());
        info.insert("seed".into(), self.seed.to_string());
        info.insert("games".into(), games.to_string());
        info.insert("lambda".into(), self.lambda.to_string());
        info.insert("alpha".into(), self.alpha.to_string());
        info.insert("alpha_end".into(), self.alpha_end.to_string());
        info.insert("command".into(), self.command());
        info.insert(
            "trainer".into(),
            format!("aeroplane {}", env!("CARGO_PKG_VERSION")),
        );
        Net {
            weights,
            rules: self.rules,
            players: self.players,
            info,
        }
    }
}

/// A word as a shell reads it.
fn shell_word(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+".contains(c))
    {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// One evaluation: the net at ply 0 against the opponent on fixed dice.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Evaluation {
    /// Deals played (each once per seat of the net).
    pub deals: u64,
    /// The net's mean score, 0..=1 (its return mapped to 0..=1: 1 first, 0 last).
    pub score: f64,
    /// The 95% interval's low end (normal, on the deals' scores).
    pub low: f64,
    /// Its high end.
    pub high: f64,
}

/// One line of the learning curve.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistoryRow {
    /// Games played.
    pub games: u64,
    /// Root mean square of the TD errors (λ-return minus value, in returns) since the last row.
    pub td_error: f64,
    /// Samples (afterstates) since the last row.
    pub samples: u64,
    /// The evaluation, when there is an opponent.
    pub eval: Option<Evaluation>,
    /// The learning rate of the last batch before the row.
    pub alpha: f32,
    /// What the guard noticed at this evaluation, and did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<(guard::Alarm, guard::Action)>,
}

/// The training's state, as the checkpoint keeps it beside the weights.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct State {
    games: u64,
    history: Vec<HistoryRow>,
    td_sq: f64,
    samples: u64,
    /// The best evaluation so far (its net in [`BEST_FILE`]), with the guard on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    best: Option<guard::Best>,
    /// The guard's alarms so far.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    guard: Vec<guard::GuardEvent>,
}

/// Where a training stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrainStatus {
    /// Started and not finished (or killed).
    Running,
    /// Done and written.
    Complete,
    /// Stopped by a signal; its state is in the checkpoint.
    Interrupted,
    /// Stopped by an error.
    Failed,
}

/// `train.json`: the job, where it stands and its results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainRecord {
    /// Always `aeroplane`.
    pub tool: String,
    /// The version that wrote it.
    pub version: String,
    /// Always `train`.
    pub command: String,
    /// Where it stands.
    pub status: TrainStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The job.
    pub job: TrainJob,
    /// The command that makes it again.
    pub reproduce: String,
    /// Games played (as of the latest checkpoint while running).
    pub games_played: u64,
    /// What identifies the evaluation's opponent ([`opponent_checksum`]), when there is an
    /// evaluation: a resume against another opponent is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent_checksum: Option<String>,
    /// The guard's alarms so far, and what it did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guard: Vec<guard::GuardEvent>,
    /// The results, once complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<TrainResults>,
}

/// A complete training's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainResults {
    /// The net's file in the folder.
    pub net: String,
    /// Its size.
    pub bytes: u64,
    /// Its tensors' checksum.
    pub checksum: String,
    /// The last evaluation.
    pub eval: Option<Evaluation>,
    /// Self-play samples (afterstates learned from).
    pub samples: u64,
}

impl TrainRecord {
    fn new(job: &TrainJob, opponent_checksum: Option<String>) -> TrainRecord {
        TrainRecord {
            tool: "aeroplane".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: "train".into(),
            status: TrainStatus::Running,
            error: None,
            job: job.clone(),
            reproduce: job.command(),
            games_played: 0,
            opponent_checksum,
            guard: Vec::new(),
            results: None,
        }
    }

    /// Reads `train.json` of a folder.
    pub fn load(dir: &std::path::Path) -> Result<TrainRecord, TrainError> {
        Ok(CannotResume::read_record(
            dir,
            TRAIN_FILE,
            "a training record",
        )?)
    }
}

/// How to run a training: none of this changes the net.
#[derive(Clone, Copy)]
pub struct TrainContext<'a> {
    /// Where the files go, if anywhere.
    pub out: Option<&'a OutputDir>,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// The evaluation's opponent, resolved (`None`: no evaluation).
    pub opponent: Option<&'a BotSpec>,
    /// Set by a signal handler: the training stops after the batch in hand.
    pub interrupt: Option<&'a AtomicBool>,
    /// Go on from the checkpoint in `out`.
    pub resume: bool,
    /// Write the checkpoint at most this often.
    pub checkpoint_every: Duration,
    /// Games played so far, for a progress bar.
    pub counter: Option<&'a AtomicU64>,
    /// Called with each game's number (from 1) as its batch ends.
    pub on_game: Option<fn(u64)>,
    /// Called with a line after each evaluation and at a resume.
    pub progress: Option<&'a (dyn Fn(&str) + Sync)>,
}

/// How a training ended.
#[derive(Debug)]
pub enum TrainEnd {
    /// Trained: the record (also in `train.json`), the net and the learning curve.
    Complete(Box<TrainRecord>, Box<Net>, Vec<HistoryRow>),
    /// Stopped by a signal after `games` games, its state in the checkpoint.
    Interrupted {
        /// Games done.
        games: u64,
    },
}

fn write_status(out: &OutputDir, record: &TrainRecord) -> Result<(), ExportError> {
    let mut text = serde_json::to_string_pretty(record).expect("records serialize");
    text.push('\n');
    out.write_manifest(TRAIN_FILE, text.as_bytes())
}

/// What a failed evaluation left for a resume.
fn kept_words(kept: Option<u64>) -> String {
    match kept {
        Some(g) => format!("its state after game {g} is kept: a resume plays on from there"),
        None => "nothing was kept: it has no folder".into(),
    }
}

/// What identifies a resolved opponent: a checksum (16 hex digits) of its kind, parameters
/// and, for a bot program, its command, working directory and environment, as a run's
/// manifest records them (not its timeouts, which change no move: raising one after a timeout
/// is how a failed training is fixed); for a `td` bot also its net's checksum. A profile edited
/// otherwise, or a net replaced, gives another checksum.
pub fn opponent_checksum(spec: &BotSpec) -> String {
    let mut bot = crate::export::ManifestBot::from(spec);
    if let Some(ext) = &mut bot.external {
        ext.timeout_ms = 0;
        ext.startup_timeout_ms = 0;
    }
    let mut text = serde_json::to_string(&bot).expect("bots serialize");
    if spec.kind == "td"
        && let Some(crate::bots::registry::ParamValue::Word(path)) = spec.params.get("net")
        && let Ok(net) = crate::bots::nets::load_net(std::path::Path::new(path))
    {
        text.push_str(&format!("\nnet {:016x}", net.checksum()));
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Why an evaluation did not finish: a bot failed (or, [`FaultKind::Stopped`], a bot program
/// gave up because the job is stopping).
#[derive(Debug)]
pub struct EvalFault {
    /// What went wrong.
    pub fault: Box<BotFault>,
    /// The deal.
    pub deal: u64,
    /// The seat of the failing bot.
    pub seat: usize,
}

/// Plays `deals` deals of the net at ply 0 against `opponent` (every other seat), each deal
/// once per seat of the net, on dice fixed by the job's seed. A bot that fails (a bot program
/// that crashes, hangs, cannot start or answers nonsense, or gives up as the job stops) ends
/// the evaluation: the fault of the lowest deal that failed is returned.
pub fn evaluate(
    net: &std::sync::Arc<Net>,
    opponent: &BotSpec,
    seed: u64,
    deals: u64,
) -> Result<Evaluation, EvalFault> {
    let rules = net.rules;
    let n = net.players;
    let eval_seed = aeroplane_core::mix(seed, u64::MAX, EVAL_STREAM);
    // Set at the first fault: the deals not yet started are skipped.
    let failed = AtomicBool::new(false);
    let results: Vec<Result<f64, Option<EvalFault>>> = (0..deals)
        .into_par_iter()
        .map_init(
            || {
                let td: Box<dyn Bot> = Box::new(TdBot::with_net("td", net.clone(), 0));
                let others: Vec<Box<dyn Bot>> = (1..n).map(|_| opponent.build()).collect();
                (Some(td), others)
            },
            |(td, others), d| {
                if failed.load(Ordering::Relaxed) {
                    return Err(None);
                }
                let start = Game::new(rules, n).expect("checked");
                let mut total = 0.0;
                for r in 0..n {
                    let mut bots: Vec<Box<dyn Bot>> = Vec::with_capacity(n);
                    let mut rest = std::mem::take(others).into_iter();
                    for k in 0..n {
                        bots.push(if k == r {
                            td.take().expect("one td bot")
                        } else {
                            rest.next().expect("n - 1 opponents")
                        });
                    }
                    let game_index = d * n as u64 + r as u64;
                    let mut played = Ok(());
                    for (k, b) in bots.iter_mut().enumerate() {
                        let seat = start.seats()[k];
                        let bot_seed = aeroplane_core::bot_stream(eval_seed, game_index, seat);
                        if let Err(fault) = b.try_new_game(&start, seat, bot_seed, game_index) {
                            played = Err((fault, seat));
                            break;
                        }
                    }
                    let record = played.and_then(|()| {
                        let mut dice = SeededDice::new(eval_seed, d);
                        match aeroplane_core::try_play_game(start, &mut bots, &mut dice, &mut ()) {
                            Ok(record) => Ok(record),
                            Err(PlayError::Bot(b)) => Err((b.fault, b.seat)),
                            Err(PlayError::OutOfDice(_)) => {
                                unreachable!("seeded dice never run out")
                            }
                        }
                    });
                    // The bots go back whatever happened (a failed program is restarted by
                    // its next game, were there one).
                    for (k, b) in bots.into_iter().enumerate() {
                        if k == r {
                            *td = Some(b);
                        } else {
                            others.push(b);
                        }
                    }
                    match record {
                        Ok(record) => {
                            let seat = start.seats()[r];
                            total += (f64::from(record_return(&record, seat.index())) + 1.0) / 2.0;
                        }
                        Err((fault, seat)) => {
                            failed.store(true, Ordering::Relaxed);
                            return Err(Some(EvalFault {
                                fault,
                                deal: d,
                                seat: seat.index(),
                            }));
                        }
                    }
                }
                Ok(total / n as f64)
            },
        )
        .collect();
    let mut scores = Vec::with_capacity(results.len());
    let mut first_fault = None;
    for r in results {
        match r {
            Ok(s) => scores.push(s),
            Err(Some(f)) => {
                first_fault.get_or_insert(f);
            }
            Err(None) => {}
        }
    }
    if let Some(f) = first_fault {
        return Err(f);
    }
    let d = scores.len().max(1) as f64;
    let mean = scores.iter().sum::<f64>() / d;
    let var = if scores.len() > 1 {
        scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (d - 1.0)
    } else {
        0.0
    };
    let half = 1.96 * (var / d).sqrt();
    Ok(Evaluation {
        deals,
        score: mean,
        low: (mean - half).max(0.0),
        high: (mean + half).min(1.0),
    })
}

/// A seat's return in a finished game's record: by its rank, or for an unranked seat the mean
/// of the ranks left (as the state API's returns).
fn record_return(record: &aeroplane_core::GameRecord, seat: usize) -> f32 {
    let n = usize::from(record.players);
    let rank = record.ranks[seat];
    if rank > 0 {
        return net::payoff(usize::from(rank) - 1, n);
    }
    let taken: Vec<usize> = record
        .ranks
        .iter()
        .filter(|&&r| r > 0)
        .map(|&r| usize::from(r) - 1)
        .collect();
    let free: Vec<usize> = (0..n).filter(|r| !taken.contains(r)).collect();
    free.iter().map(|&r| net::payoff(r, n)).sum::<f32>() / free.len().max(1) as f32
}

/// Trains `job`: see the module documentation.
pub fn train(job: &TrainJob, ctx: &TrainContext) -> Result<TrainEnd, TrainError> {
    job.check()?;
    crate::runner::check_threads(ctx.threads)?;
    let opponent = ctx.opponent.filter(|_| job.eval_deals > 0);
    if let Some(o) = opponent {
        o.check_fit(&job.rules, job.players)
            .map_err(|e| TrainError::Opponent(e.to_string()))?;
    }
    let checksum = opponent.map(opponent_checksum);
    if ctx.resume
        && let Some(out) = ctx.out
    {
        // Refused before anything is written: the folder's record stays as it was.
        let before = TrainRecord::load(out.path())?;
        if let (Some(then), Some(now)) = (&before.opponent_checksum, &checksum)
            && then != now
        {
            return Err(CannotResume {
                dir: out.path().display().to_string(),
                why: format!(
                    "the evaluation's opponent `{}` is not the one this training started against: it has the checksum {now} now, {then} in {TRAIN_FILE} (its profile, program settings or net changed); restore it to resume, or train again in another folder",
                    job.opponent
                ),
            }
            .into());
        }
    }
    let mut record = TrainRecord::new(job, checksum);
    let result = run(job, ctx, &mut record);
    if let (Err(e), Some(out)) = (&result, ctx.out) {
        record.status = TrainStatus::Failed;
        record.error = Some(e.to_string());
        let _ = write_status(out, &record);
    }
    result
}

fn run(
    job: &TrainJob,
    ctx: &TrainContext,
    record: &mut TrainRecord,
) -> Result<TrainEnd, TrainError> {
    let say = |line: &str| {
        if let Some(p) = ctx.progress {
            p(line);
        }
    };
    let mut weights = job.initial();
    let mut state = State::default();
    // The best net so far (the guard's), and the games of the one in `BEST_FILE`.
    let mut best_weights: Option<Weights> = None;
    let mut best_saved: Option<u64> = None;
    if ctx.resume {
        let out = ctx.out.expect("a resume has its folder");
        let file = out.file(CHECKPOINT_FILE);
        if std::fs::symlink_metadata(&file).is_err() {
            say(
                "the folder holds no train.checkpoint (the training stopped before its first): it starts again from the first game",
            );
        } else {
            let bad = |why: String| {
                TrainError::from(CannotResume {
                    dir: out.path().display().to_string(),
                    why,
                })
            };
            let net = Net::load(&file).map_err(|e| bad(e.to_string()))?;
            let saved: State = net
                .info
                .get("train_state")
                .and_then(|s| serde_json::from_str(s).ok())
                .ok_or_else(|| bad(format!("{} holds no training state", file.display())))?;
            if net.rules != job.rules
                || net.players != job.players
                || net.weights.hidden != job.hidden
                || net.info.get("command") != Some(&job.command())
                || saved.games > job.games
            {
                return Err(bad(format!(
                    "{} does not belong to the training in {TRAIN_FILE}",
                    file.display()
                )));
            }
            weights = net.weights;
            state = saved;
            if let Some(b) = state.best {
                best_weights = Some(load_best(out, job, b.games).map_err(bad)?);
                best_saved = Some(b.games);
            }
            say(&format!("resumed after game {}", state.games));
        }
    }
    record.status = TrainStatus::Running;
    record.games_played = state.games;
    record.guard = state.guard.clone();
    if let Some(out) = ctx.out {
        write_status(out, record)?;
    }
    let pool =
        crate::runner::worker_pool(ctx.threads, "train").map_err(|e| TrainError::Setting {
            setting: "threads",
            value: ctx.threads.to_string(),
            allowed: format!("a number of threads this system can start ({})", e.message),
        })?;
    let enc = Encoder::new(&job.rules, job.players);
    let start = Game::new(job.rules, job.players).expect("checked");
    let settings = SelfPlay {
        lambda: job.lambda,
        explore: job.explore,
    };
    let mut traces = vec![Trace::default(); job.batch];
    let save = |weights: &Weights,
                state: &State,
                best: (&Option<Weights>, &mut Option<u64>),
                record: &mut TrainRecord|
     -> Result<(), TrainError> {
        if let Some(out) = ctx.out {
            // The best net first: the checkpoint that names it is written after it.
            if let (Some(b), Some(w)) = (state.best, best.0)
                && *best.1 != Some(b.games)
            {
                let mut net = job.net(w.clone(), b.games);
                net.info.insert("train_best".into(), b.games.to_string());
                out.write(BEST_FILE, &net.to_bytes())?;
                *best.1 = Some(b.games);
            }
            let mut net = job.net(weights.clone(), state.games);
            net.info.insert(
                "train_state".into(),
                serde_json::to_string(state).expect("state serializes"),
            );
            out.write(CHECKPOINT_FILE, &net.to_bytes())?;
            record.games_played = state.games;
            write_status(out, record)?;
        }
        Ok(())
    };
    let mut last_checkpoint = Instant::now();
    if let Some(c) = ctx.counter {
        c.store(state.games, Ordering::Relaxed);
    }
    let opponent = ctx.opponent.filter(|_| job.eval_deals > 0);
    // A baseline every learning net beats within a few thousand games (the guard's restart).
    let baseline = opponent.is_some_and(|o| matches!(o.kind.as_str(), "random" | "greedy"));
    while state.games < job.games {
        let first = state.games;
        let b = job.batch.min((job.games - first) as usize);
        let last = first + b as u64;
        let evaluate_now = last / job.eval_every != first / job.eval_every || last == job.games;
        // The state before a batch with an evaluation, kept should the opponent fail or give
        // up as the job stops: the checkpoint then holds it, and a resume plays the batch and
        // its evaluation again.
        let before = (evaluate_now && opponent.is_some()).then(|| (weights.clone(), state.clone()));
        pool.install(|| {
            traces[..b].par_iter_mut().enumerate().for_each(|(i, t)| {
                t.play(&weights, &enc, &start, settings, job.seed, first + i as u64)
            });
        });
        let alpha = (f64::from(job.alpha_at(first))
            * guard::alpha_scale(guard::cures(&state.guard))) as f32;
        for t in &traces[..b] {
            t.apply(&mut weights, alpha);
            state.td_sq += t.td_sq;
            state.samples += t.samples;
        }
        state.games += b as u64;
        if let Some(c) = ctx.counter {
            c.store(state.games, Ordering::Relaxed);
        }
        if let Some(hook) = ctx.on_game {
            (first + 1..=state.games).for_each(hook);
        }
        if evaluate_now {
            let eval = match opponent {
                None => None,
                Some(o) => {
                    let net = std::sync::Arc::new(job.net(weights.clone(), state.games));
                    match pool.install(|| evaluate(&net, o, job.seed, job.eval_deals)) {
                        Ok(e) => Some(e),
                        Err(f) => {
                            let (w, s) = before.expect("kept before an evaluation");
                            if f.fault.kind == FaultKind::Stopped {
                                record.status = TrainStatus::Interrupted;
                                save(&w, &s, (&best_weights, &mut best_saved), record)?;
                                return Ok(TrainEnd::Interrupted { games: s.games });
                            }
                            save(&w, &s, (&best_weights, &mut best_saved), record)?;
                            return Err(TrainError::Evaluation {
                                fault: f.fault,
                                games: state.games,
                                deal: f.deal,
                                seat: f.seat,
                                kept: ctx.out.map(|_| s.games),
                            });
                        }
                    }
                }
            };
            let mut row = HistoryRow {
                games: state.games,
                td_error: if state.samples > 0 {
                    (state.td_sq / state.samples as f64).sqrt()
                } else {
                    0.0
                },
                samples: state.samples,
                eval,
                alpha,
                guard: None,
            };
            let mut alarm = None;
            if let Some(e) = eval {
                alarm = state.best.and_then(|b| {
                    guard::check(
                        &b,
                        &e,
                        state.games,
                        job.games,
                        baseline,
                        job.guard,
                        &state.guard,
                    )
                });
                if let Some(a) = alarm {
                    row.guard = Some((a.alarm, a.action));
                    state.guard.push(a);
                    record.guard = state.guard.clone();
                    match a.action {
                        guard::Action::Revert { .. } => {
                            weights = best_weights
                                .clone()
                                .expect("the best net is kept with its evaluation");
                        }
                        guard::Action::Restart => {
                            // The broken run's best is no longer the mark.
                            weights = job.initial();
                            state.best = None;
                            best_weights = None;
                        }
                        guard::Action::Report => {}
                    }
                }
                // (Not after a restart: this evaluation was of the net left behind.)
                let restarted = alarm.is_some_and(|a| a.action == guard::Action::Restart);
                if !restarted && state.best.is_none_or(|b| e.score > b.eval.score) {
                    state.best = Some(guard::Best {
                        games: state.games,
                        eval: e,
                    });
                    best_weights = job.guard.then(|| weights.clone());
                }
            }
            state.history.push(row);
            state.td_sq = 0.0;
            state.samples = 0;
            say(&history_line(&row, &job.opponent));
            if let Some(a) = alarm {
                say(&format!(
                    "warning: {}",
                    guard::words(&a, &job.opponent, job.games)
                ));
            }
        }
        if ctx.interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
            record.status = TrainStatus::Interrupted;
            save(&weights, &state, (&best_weights, &mut best_saved), record)?;
            return Ok(TrainEnd::Interrupted { games: state.games });
        }
        let due =
            last_checkpoint.elapsed() >= ctx.checkpoint_every || crate::files::fsops::testing();
        if due && state.games < job.games {
            save(&weights, &state, (&best_weights, &mut best_saved), record)?;
            last_checkpoint = Instant::now();
        }
    }
    let net = job.net(weights, state.games);
    let bytes = net.to_bytes();
    let history = state.history.clone();
    record.status = TrainStatus::Complete;
    record.games_played = state.games;
    record.results = Some(TrainResults {
        net: NET_FILE.into(),
        bytes: bytes.len() as u64,
        checksum: format!("{:016x}", net.checksum()),
        eval: history.last().and_then(|r| r.eval),
        samples: history.iter().map(|r| r.samples).sum(),
    });
    if let Some(out) = ctx.out {
        out.write(NET_FILE, &bytes)?;
        out.write(HISTORY_FILE, history_csv(&history).as_bytes())?;
        // The page has only numbers the training computed: a chart that fails is left out.
        let page = page::render(record, &history).unwrap_or_else(|e| format!("report failed: {e}"));
        out.write(crate::report::REPORT_FILE, page.as_bytes())?;
        out.sync()?;
        write_status(out, record)?;
        out.remove(CHECKPOINT_FILE)?;
        out.remove(BEST_FILE)?;
        out.sync()?;
    }
    Ok(TrainEnd::Complete(
        Box::new(record.clone()),
        Box::new(net),
        history,
    ))
}

/// The best net of a training stopped at `games` from `out`'s [`BEST_FILE`]: the net of the
/// job's game `games`, or why not.
fn load_best(out: &OutputDir, job: &TrainJob, games: u64) -> Result<Weights, String> {
    let file = out.file(BEST_FILE);
    let net = Net::load(&file).map_err(|e| e.to_string())?;
    if net.rules != job.rules
        || net.players != job.players
        || net.weights.hidden != job.hidden
        || net.info.get("command") != Some(&job.command())
        || net.info.get("train_best") != Some(&games.to_string())
    {
        return Err(format!(
            "{} is not the best net of game {games} of the training in {TRAIN_FILE}",
            file.display()
        ));
    }
    Ok(net.weights)
}

/// The interim line of a history row.
pub fn history_line(row: &HistoryRow, opponent: &str) -> String {
    let mut line = format!(
        "games {}: TD error {:.4} (rms, {} afterstates)",
        row.games, row.td_error, row.samples
    );
    if let Some(e) = row.eval {
        line.push_str(&format!(
            "; score against {opponent} {:.1}% [{:.1}%, {:.1}%] ({} deals)",
            100.0 * e.score,
            100.0 * e.low,
            100.0 * e.high,
            e.deals
        ));
    }
    if row.guard.is_some() {
        line.push_str(&format!("; guard: {}", guard_cell(row.guard)));
    }
    line
}

/// `history.csv`: one line per evaluation.
pub fn history_csv(rows: &[HistoryRow]) -> String {
    let mut s = String::from(
        "games,td_error,samples,eval_deals,eval_score,eval_low,eval_high,alpha,guard\n",
    );
    for r in rows {
        s.push_str(&format!("{},{:.6},{}", r.games, r.td_error, r.samples));
        match r.eval {
            Some(e) => s.push_str(&format!(
                ",{},{:.6},{:.6},{:.6}",
                e.deals, e.score, e.low, e.high
            )),
            None => s.push_str(",0,,,"),
        }
        s.push_str(&format!(",{},{}\n", r.alpha, guard_cell(r.guard)));
    }
    s
}

/// The `guard` cell of a history row: the alarm, and `reverted to G` for a cure.
fn guard_cell(g: Option<(guard::Alarm, guard::Action)>) -> String {
    match g {
        None => String::new(),
        Some((alarm, guard::Action::Report)) => alarm.name().into(),
        Some((alarm, guard::Action::Restart)) => format!("{} restarted", alarm.name()),
        Some((alarm, guard::Action::Revert { to_games })) => {
            format!("{} reverted to {to_games}", alarm.name())
        }
    }
}
