//! Exact solutions of small two-player variants: the value of every position under perfect
//! play, by value iteration, kept as a table that the `exact` bot plays from and `grade`
//! measures other bots against.
//!
//! **What is solved.** Two players (seats 0 and 2) with few planes each (1 or 2: the state
//! space of 3 planes, tens of billions of positions, is refused before anything is
//! allocated). A position's value is its *equity* for the seat to roll: the probability that
//! it wins minus the probability that it loses when both seats play perfectly, so the
//! probability of winning is `(1 + equity) / 2` and the other seat's equity is its negative
//! (the game is zero-sum). Captures, the three-sixes penalty and bounces send planes back, so
//! the positions form cycles and the values are found by value iteration
//! (`solve/iterate.rs`: Gauss-Seidel sweeps ordered by progress) until the largest change of a sweep
//! is below the tolerance (1e-12).
//!
//! **The turn cap.** `max_turns` is not part of the values: the table is the value of the game
//! *without* a cap (otherwise every position's value would depend on the turns left). With the
//! presets' cap of 10,000 turns the difference is far below the tolerance: a perfectly played
//! two-plane game lasts some tens of turns, and every turn has a fair chance to end it. The
//! table records the rules it was solved for, `max_turns` included, and the `exact` bot plays
//! only games of exactly those rules.
//!
//! **The state.** [`space`] describes what a chance node holds (each seat's planes as a sorted
//! multiset of positions, the six streak and the planes it moved as far as the penalty needs
//! them, the seat to roll folded away by symmetry), `solve/model.rs` how the engine moves between
//! them, and [`table`] the file the values are kept in. [`check()`] tests a table against the
//! engine's state API, independently of the solver's model.
//!
//! **The job.** [`solve`] builds the model, finds the reachable chance nodes, iterates, checks
//! and writes `table.bin` and `solve.json` into the output folder. A solve that runs long
//! writes its values to `solve.checkpoint` between sweeps (at most every
//! [`SolveContext::checkpoint_every`], and when interrupted), and a resumed solve goes on from
//! there and ends with the same table, byte for byte.

mod check;
pub(crate) mod iterate;
pub(crate) mod model;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use aeroplane_core::{Game, Rules};

use crate::export::{CannotResume, ExportError, OutputDir};

pub use crate::value_table::{
    CHECKPOINT_FILE, MAGIC, PartialSweep, PositionValue, TABLE_FILE, TABLE_FORMAT, Table,
    TableError, TableHeader, VALUE_MEANING,
};
pub use crate::value_table::{Size, Space, fnv1a_words, space, table};
pub use check::{CheckReport, MAX_CHECK_POSITIONS, check, check_until};
pub use iterate::Counts;

/// The record of a solve in its output folder.
pub const SOLVE_FILE: &str = "solve.json";
/// The largest change of a sweep at which the iteration stops, unless told otherwise.
pub const DEFAULT_TOLERANCE: f64 = 1e-12;
/// The memory a solve may plan to use, unless told otherwise: 8 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 8 << 30;
/// Sweeps before a solve gives up, unless told otherwise.
pub const DEFAULT_MAX_SWEEPS: u32 = 10_000;
/// Chance nodes the state-API check visits, unless told otherwise.
pub const DEFAULT_CHECK_POSITIONS: u64 = 10_000;
/// What the table's values ignore, as `solve.json` says it.
pub const TURN_CAP_NOTE: &str = "ignored: the values are those of the game without a turn cap (max_turns is recorded with the rules, and the exact bot plays only games of exactly these rules)";

/// Why a solve cannot be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SolveError {
    /// Not two players.
    #[error(
        "{0} players: the solver handles two players (seats 0 and 2), where the game is zero-sum and perfect play is well defined"
    )]
    Players(usize),
    /// The state space does not fit.
    #[error(
        "{planes} planes per seat make {states} chance nodes to index ({positions} positions a plane can be on, {configs} configurations per seat); solving needs about {need} of memory, more than the limit of {limit} (the setting `memory_limit`; the presets with 2 planes need at most 640 MiB)"
    )]
    TooLarge {
        /// Planes per seat.
        planes: usize,
        /// Positions per plane.
        positions: usize,
        /// Configurations per seat.
        configs: u64,
        /// Chance nodes indexed.
        states: u64,
        /// Memory needed, in words.
        need: String,
        /// The limit, in words.
        limit: String,
    },
    /// More check positions than [`MAX_CHECK_POSITIONS`].
    #[error(
        "{0} check positions: give at most 100000000 (the check visits about a million a second)"
    )]
    CheckPositions(u64),
    /// A tolerance that is not a small positive number.
    #[error("tolerance {0}: give a number above 0 and below 1 (e.g. 1e-12)")]
    Tolerance(f64),
    /// The iteration did not converge.
    #[error(
        "no convergence after {sweeps} sweeps: the largest change of the last was {change:e}, above the tolerance {tolerance:e}"
    )]
    NotConverged {
        /// Sweeps done.
        sweeps: u32,
        /// The last change.
        change: f64,
        /// The tolerance.
        tolerance: f64,
    },
    /// The state-API check failed.
    #[error(
        "the check through the state API failed: {0} (this is a bug in the solver: please report it with the rules)"
    )]
    Check(String),
    /// A table or checkpoint cannot be used.
    #[error(transparent)]
    Table(#[from] TableError),
    /// Writing failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Resuming is not possible.
    #[error(transparent)]
    Resume(#[from] CannotResume),
}

/// A solve: the rules and how far to iterate.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveJob {
    /// The rules as named (a preset or a file), for the record.
    pub rules_name: String,
    /// The rules (their `planes` is the planes per seat).
    pub rules: Rules,
    /// Players (only 2 is solved).
    pub players: usize,
    /// Stop when the largest change of a sweep is below this.
    pub tolerance: f64,
    /// Give up after this many sweeps.
    pub max_sweeps: u32,
    /// Refuse a state space needing more memory than this, before allocating it.
    pub memory_limit: u64,
    /// Chance nodes the state-API check visits.
    pub check_positions: u64,
    /// The seed of the check's random games.
    pub check_seed: u64,
}

impl SolveJob {
    /// A job with the defaults.
    pub fn new(rules_name: &str, rules: Rules) -> SolveJob {
        SolveJob {
            rules_name: rules_name.to_string(),
            rules,
            players: 2,
            tolerance: DEFAULT_TOLERANCE,
            max_sweeps: DEFAULT_MAX_SWEEPS,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            check_positions: DEFAULT_CHECK_POSITIONS,
            check_seed: 1,
        }
    }

    /// Checks the job and sizes its state space, allocating nothing: refuses other player
    /// counts, bad tolerances and state spaces beyond the memory limit.
    pub fn size(&self) -> Result<Size, SolveError> {
        if self.players != 2 {
            return Err(SolveError::Players(self.players));
        }
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            return Err(SolveError::Tolerance(self.tolerance));
        }
        if self.check_positions > MAX_CHECK_POSITIONS {
            return Err(SolveError::CheckPositions(self.check_positions));
        }
        let size = Size::of(&self.rules);
        let need = size.solve_bytes();
        if need > self.memory_limit {
            return Err(SolveError::TooLarge {
                planes: size.planes,
                positions: size.positions,
                configs: size.configs,
                states: size.states,
                need: human(need),
                limit: human(self.memory_limit),
            });
        }
        Ok(size)
    }
}

/// `4.5 TiB`, `12.3 GiB`, `456 MiB`, `789 KiB`.
pub fn human(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes >= 1 << 40 {
        format!("{:.1} TiB", b / (1u64 << 40) as f64)
    } else if bytes >= 1 << 30 {
        format!("{:.1} GiB", b / f64::from(1u32 << 30))
    } else if bytes >= 1 << 20 {
        format!("{:.0} MiB", b / f64::from(1u32 << 20))
    } else {
        format!("{:.0} KiB", b / 1024.0)
    }
}

/// How to run a solve: none of this changes the table.
#[derive(Clone, Copy)]
pub struct SolveContext<'a> {
    /// Where `solve.json`, `table.bin` and the checkpoint go, if anywhere.
    pub out: Option<&'a OutputDir>,
    /// Set by a signal handler: the solve stops after the sweep in hand and keeps its values.
    pub interrupt: Option<&'a AtomicBool>,
    /// Go on from the checkpoint in `out`.
    pub resume: bool,
    /// Write the values to the checkpoint between sweeps at most this often.
    pub checkpoint_every: Duration,
    /// Called after each step and each sweep, with a line saying what was done.
    pub progress: Option<&'a (dyn Fn(&str) + Sync)>,
}

/// How a solve ended.
#[derive(Debug)]
pub enum SolveEnd {
    /// Solved: the record (also in `solve.json`) and the table.
    Complete(Box<SolveRecord>, Box<Table>),
    /// Stopped by a signal after `sweeps` sweeps, with its values in the checkpoint (if there
    /// is an output folder).
    Interrupted {
        /// Sweeps done.
        sweeps: u32,
    },
}

/// Where a solve stands, as `solve.json` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SolveStatus {
    /// Started and not finished (or killed).
    Running,
    /// Solved and written.
    Complete,
    /// Stopped by a signal; its values are in the checkpoint.
    Interrupted,
    /// Stopped by an error.
    Failed,
}

/// `solve.json`: what was solved, how, and the results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveRecord {
    /// Always `aeroplane`.
    pub tool: String,
    /// The version that wrote it.
    pub version: String,
    /// Always `solve`.
    pub command: String,
    /// Where the solve stands.
    pub status: SolveStatus,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The rules as named.
    pub rules_name: String,
    /// Every rule option.
    pub rules: Rules,
    /// Players: 2.
    pub players: usize,
    /// Planes per seat.
    pub planes: u8,
    /// What the values ignore.
    pub turn_cap: String,
    /// What a value is.
    pub value: String,
    /// The tolerance.
    pub tolerance: f64,
    /// The most sweeps allowed.
    pub max_sweeps: u32,
    /// Chance nodes of the state-API check.
    pub check_positions: u64,
    /// Seed of the check's games.
    pub check_seed: u64,
    /// The sizes of the state space.
    pub states: StateCounts,
    /// Sweeps done so far.
    pub sweeps: u32,
    /// The largest change of each sweep.
    pub changes: Vec<f64>,
    /// The results, once complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<SolveResults>,
}

/// The sizes of a solve's state space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateCounts {
    /// Positions a plane can be on (the hangar and every step it can rest on).
    pub positions: u64,
    /// Configurations of one seat's planes (multisets of positions).
    pub configurations: u64,
    /// Chance nodes indexed (mover states times configurations).
    pub indexed: u64,
    /// Chance nodes reachable from the start (0 until counted).
    pub chance: u64,
    /// Decision nodes reachable: (chance node, roll) with at least one legal move.
    pub decision: u64,
    /// Decision nodes with two or more moves.
    pub choice: u64,
}

/// A complete solve's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveResults {
    /// The largest change of the last sweep.
    pub last_change: f64,
    /// The largest Bellman residual over the reachable chance nodes after the last sweep.
    pub residual: f64,
    /// Seat 0's equity at the start.
    pub first_player_equity: f64,
    /// Seat 0's probability of winning at the start, `(1 + equity) / 2`.
    pub first_player_win_probability: f64,
    /// The state-API check.
    pub check: CheckRecord,
    /// The table file.
    pub table: TableRecord,
    /// Wall-clock seconds of this process, by step.
    pub seconds: Seconds,
    /// Peak resident memory of the process in bytes (Linux), if known.
    pub peak_memory_bytes: Option<u64>,
    /// The sweep this process started from (0 unless resumed).
    pub resumed_from_sweep: u32,
}

/// The state-API check as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckRecord {
    /// Chance nodes of random games checked.
    pub positions: u64,
    /// The largest difference between a node's equity and its backup through the state API.
    pub largest_residual: f64,
    /// The seed of the random games.
    pub seed: u64,
}

/// The table file as recorded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableRecord {
    /// Its name in the folder.
    pub file: String,
    /// Its size.
    pub bytes: u64,
    /// Its checksum (FNV-1a 64 over words), hex.
    pub checksum: String,
}

/// Where a solve's time went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seconds {
    /// The transition model.
    pub model: f64,
    /// Finding the reachable chance nodes.
    pub reachable: f64,
    /// The sweeps (of this process).
    pub sweeps: f64,
    /// The check and writing the table.
    pub check_and_write: f64,
    /// All of it.
    pub total: f64,
}

impl SolveRecord {
    fn new(job: &SolveJob, size: &Size) -> SolveRecord {
        SolveRecord {
            tool: "aeroplane".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: "solve".into(),
            status: SolveStatus::Running,
            error: None,
            rules_name: job.rules_name.clone(),
            rules: job.rules,
            players: job.players,
            planes: job.rules.planes(),
            turn_cap: TURN_CAP_NOTE.into(),
            value: VALUE_MEANING.into(),
            tolerance: job.tolerance,
            max_sweeps: job.max_sweeps,
            check_positions: job.check_positions,
            check_seed: job.check_seed,
            states: StateCounts {
                positions: size.positions as u64,
                configurations: size.configs,
                indexed: size.states,
                ..StateCounts::default()
            },
            sweeps: 0,
            changes: Vec::new(),
            results: None,
        }
    }

    /// Reads `solve.json` of a folder.
    pub fn load(dir: &std::path::Path) -> Result<SolveRecord, SolveError> {
        Ok(CannotResume::read_record(
            dir,
            SOLVE_FILE,
            "a solve record",
        )?)
    }

    /// The job that wrote this record.
    pub fn job(&self) -> SolveJob {
        SolveJob {
            rules_name: self.rules_name.clone(),
            rules: self.rules,
            players: self.players,
            tolerance: self.tolerance,
            max_sweeps: self.max_sweeps,
            memory_limit: u64::MAX,
            check_positions: self.check_positions,
            check_seed: self.check_seed,
        }
    }

    /// The report printed at the end: what was solved, the sizes, the iteration, the check,
    /// the first player's chances, time and memory.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let n = |x: u64| indicatif::HumanCount(x).to_string();
        writeln!(
            w,
            "solve: {}, {} players, {} plane{} per seat (turn cap ignored: the values are those of the game without max_turns)",
            self.rules_name,
            self.players,
            self.planes,
            if self.planes == 1 { "" } else { "s" }
        )?;
        let s = &self.states;
        writeln!(
            w,
            "states: {} chance nodes reachable ({} indexed: {} positions per plane, {} configurations per seat); {} decision nodes, {} of them with a choice",
            n(s.chance),
            n(s.indexed),
            s.positions,
            n(s.configurations),
            n(s.decision),
            n(s.choice)
        )?;
        let Some(r) = &self.results else {
            return writeln!(w, "not solved yet: {} sweeps done", self.sweeps);
        };
        writeln!(
            w,
            "value iteration: {} Gauss-Seidel sweeps, largest change of the last {:.2e} (tolerance {:.0e}), Bellman residual {:.2e}",
            self.sweeps, r.last_change, self.tolerance, r.residual
        )?;
        writeln!(
            w,
            "check: {} chance nodes of random games through the state API, largest residual {:.2e}",
            n(r.check.positions),
            r.check.largest_residual
        )?;
        writeln!(
            w,
            "first player (seat 0) wins with probability {:.12} (equity {:+.12}); second player {:.12}",
            r.first_player_win_probability,
            r.first_player_equity,
            1.0 - r.first_player_win_probability
        )?;
        let memory = r
            .peak_memory_bytes
            .map(|b| format!(", peak memory {}", human(b)))
            .unwrap_or_default();
        writeln!(
            w,
            "time {:.2} s (model {:.2} s, reachable {:.2} s, sweeps {:.2} s, check and write {:.2} s){memory}{}",
            r.seconds.total,
            r.seconds.model,
            r.seconds.reachable,
            r.seconds.sweeps,
            r.seconds.check_and_write,
            if r.resumed_from_sweep > 0 {
                format!("; resumed after sweep {}", r.resumed_from_sweep)
            } else {
                String::new()
            }
        )?;
        writeln!(
            w,
            "table: {} bytes, checksum {}",
            n(r.table.bytes),
            r.table.checksum
        )
    }
}

/// Writes `solve.json`, the solve's status record, through the folder's spare space (so a
/// full disk can still record a failure), as `run.json` is written for the other jobs.
fn write_status(out: &OutputDir, record: &SolveRecord) -> Result<(), ExportError> {
    let mut text = serde_json::to_string_pretty(record).expect("records serialize");
    text.push('\n');
    out.write_manifest(SOLVE_FILE, text.as_bytes())
}

/// The variant file written beside the table.
pub const RULES_FILE: &str = "rules.toml";

/// `rules.toml` beside the table: the variant with every option written out, to pass to
/// `--rules`.
fn write_rules(out: &OutputDir, rules: &Rules) -> Result<(), ExportError> {
    use crate::files::RulesToml;
    let text = format!(
        "# The rules of this folder's table.bin: pass this file to --rules to play them.\n{}",
        rules.to_toml()
    );
    out.write(RULES_FILE, text.as_bytes())
}

/// Peak resident memory of this process (Linux: `VmHWM` of `/proc/self/status`).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A test hook: with `AEROPLANE_TEST_SOLVE_SIGNAL=PHASE` or `PHASE@N` (`model`, `reachable`,
/// `sweep`, `residual`, `check`) the process sends itself SIGINT at the `N`-th (default first)
/// time that phase asks whether to stop, so tests stop a solve inside a phase through the
/// real signal path.
fn test_signal(phase: &str) {
    use std::sync::OnceLock;
    use std::sync::atomic::AtomicU64;
    static AT: OnceLock<Option<(String, u64)>> = OnceLock::new();
    static ASKED: AtomicU64 = AtomicU64::new(0);
    let Some((at, n)) = AT.get_or_init(|| {
        let spec = std::env::var("AEROPLANE_TEST_SOLVE_SIGNAL").ok()?;
        let (name, n) = spec.split_once('@').unwrap_or((&spec, "1"));
        Some((name.to_string(), n.parse().ok()?))
    }) else {
        return;
    };
    if phase == at && ASKED.fetch_add(1, Ordering::SeqCst) + 1 == *n {
        // SAFETY: raise has no memory effects; the program's handler runs before it returns.
        unsafe {
            libc::raise(libc::SIGINT);
        }
    }
}

/// Solves `job`: see the module documentation.
pub fn solve(job: &SolveJob, ctx: &SolveContext) -> Result<SolveEnd, SolveError> {
    let size = job.size()?;
    let mut record = SolveRecord::new(job, &size);
    let say = |line: &str| {
        if let Some(p) = ctx.progress {
            p(line);
        }
    };
    let result = run(job, ctx, &size, &mut record, &say);
    if let (Err(e), Some(out)) = (&result, ctx.out) {
        // Best effort: the error matters more than a second failure to write (solve.json is
        // written into space set aside, so a full disk still records it).
        record.status = SolveStatus::Failed;
        record.error = Some(e.to_string());
        let _ = write_status(out, &record);
    }
    result
}

fn run(
    job: &SolveJob,
    ctx: &SolveContext,
    size: &Size,
    record: &mut SolveRecord,
    say: &dyn Fn(&str),
) -> Result<SolveEnd, SolveError> {
    let started = Instant::now();
    let mut seconds = Seconds::default();
    let stop_in = |phase: &'static str| {
        move || {
            test_signal(phase);
            ctx.interrupt.is_some_and(|i| i.load(Ordering::Relaxed))
        }
    };
    let stop = stop_in("");
    // The sweeps and changes the values in the checkpoint hold: what a stop that cannot keep
    // the values in hand (during the set-up, part-way through a sweep, during the check)
    // records, since a resume goes on from that checkpoint.
    let mut kept: (u32, Vec<f64>) = (0, Vec::new());
    if ctx.resume
        && let Some(out) = ctx.out
        && let Ok(earlier) = SolveRecord::load(out.path())
    {
        record.sweeps = earlier.sweeps;
        record.changes = earlier.changes;
        kept = (record.sweeps, record.changes.clone());
    }
    // The status first: a stop or a failure from here on is recorded, and resumes.
    record.status = SolveStatus::Running;
    if let Some(out) = ctx.out {
        write_status(out, record)?;
    }
    let stopped = |record: &mut SolveRecord, kept: &(u32, Vec<f64>)| {
        record.status = SolveStatus::Interrupted;
        record.sweeps = kept.0;
        record.changes = kept.1.clone();
        if let Some(out) = ctx.out {
            write_status(out, record)?;
        }
        Ok::<_, SolveError>(SolveEnd::Interrupted { sweeps: kept.0 })
    };
    let space = Space::new(&job.rules);
    let Some(model) = model::Model::build(&space, &stop_in("model")) else {
        return stopped(record, &kept);
    };
    seconds.model = started.elapsed().as_secs_f64();
    say(&format!(
        "model: {} mover states x 6 rolls ({:.2} s)",
        indicatif::HumanCount(size.movers),
        seconds.model
    ));
    let t = Instant::now();
    let Some((reach, counts)) = iterate::reachable(&space, &model, &stop_in("reachable")) else {
        return stopped(record, &kept);
    };
    seconds.reachable = t.elapsed().as_secs_f64();
    record.states.chance = counts.chance;
    record.states.decision = counts.decision;
    record.states.choice = counts.choice;
    say(&format!(
        "reachable: {} chance nodes of {} indexed ({:.2} s)",
        indicatif::HumanCount(counts.chance),
        indicatif::HumanCount(size.states),
        seconds.reachable
    ));
    if stop() {
        return stopped(record, &kept);
    }
    let mut solver = iterate::Solver::new(&space, &model, &reach);
    let mut resumed_from = 0;
    let mut partial = None;
    if ctx.resume {
        let out = ctx.out.expect("a resume has its folder");
        let file = out.file(CHECKPOINT_FILE);
        if std::fs::symlink_metadata(&file).is_err() {
            say(
                "the folder holds no solve.checkpoint (the solve stopped before keeping its first values): it starts again from the first sweep",
            );
            record.sweeps = 0;
            record.changes.clear();
            kept = (0, Vec::new());
        } else {
            let saved = Table::read(&file)?;
            let h = saved.header();
            if h.kind != "checkpoint" || h.rules != job.rules || *saved.reach() != reach {
                return Err(CannotResume {
                    dir: out.path().display().to_string(),
                    why: format!(
                        "{} does not belong to the solve in {SOLVE_FILE}",
                        file.display()
                    ),
                }
                .into());
            }
            solver.values = saved.dense();
            record.sweeps = h.sweeps;
            record.changes = h.changes.clone();
            kept = (record.sweeps, record.changes.clone());
            resumed_from = h.sweeps;
            partial = h.partial;
            match partial {
                Some(p) => say(&format!(
                    "resumed in sweep {}, after its step {}",
                    h.sweeps + 1,
                    p.step
                )),
                None => say(&format!("resumed after sweep {}", h.sweeps)),
            }
        }
    }
    let t = Instant::now();
    let mut last_checkpoint = Instant::now();
    let header = |record: &SolveRecord, kind: &str, partial: Option<PartialSweep>| TableHeader {
        kind: kind.into(),
        tool: "aeroplane".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        rules: job.rules,
        players: 2,
        index: table::INDEX_LAYOUT.into(),
        positions: size.positions as u64,
        configurations: size.configs,
        mover_states: size.movers,
        states: size.states,
        reachable: counts.chance,
        value: VALUE_MEANING.into(),
        tolerance: job.tolerance,
        sweeps: record.sweeps,
        changes: record.changes.clone(),
        partial,
    };
    let save = |record: &SolveRecord,
                values: &[f64],
                partial: Option<PartialSweep>|
     -> Result<(), SolveError> {
        if let Some(out) = ctx.out {
            let mut table = Table::new(
                out.file(CHECKPOINT_FILE).display().to_string(),
                header(record, "checkpoint", partial),
                space.clone(),
                reach.clone(),
                values,
            );
            out.write(CHECKPOINT_FILE, &table.encode())?;
            write_status(out, record)?;
        }
        Ok(())
    };
    loop {
        if partial.is_none() && record.changes.last().is_some_and(|&c| c < job.tolerance) {
            break;
        }
        if partial.is_none() && record.sweeps >= job.max_sweeps {
            return Err(SolveError::NotConverged {
                sweeps: record.sweeps,
                change: record.changes.last().copied().unwrap_or(f64::INFINITY),
                tolerance: job.tolerance,
            });
        }
        let sweep_started = Instant::now();
        let change = match solver.sweep(partial.take(), &stop_in("sweep")) {
            Ok(change) => change,
            Err(at) => {
                // Part-way through a sweep: the values and the position in the sweep are kept,
                // and a resume goes on from there to the same values.
                record.status = SolveStatus::Interrupted;
                save(record, &solver.values, Some(at))?;
                return Ok(SolveEnd::Interrupted {
                    sweeps: record.sweeps,
                });
            }
        };
        record.sweeps += 1;
        record.changes.push(change);
        say(&format!(
            "sweep {}: largest change {change:.3e}, first player's equity {:+.15} ({:.2} s)",
            record.sweeps,
            solver.values[0],
            sweep_started.elapsed().as_secs_f64()
        ));
        if stop() {
            record.status = SolveStatus::Interrupted;
            save(record, &solver.values, None)?;
            return Ok(SolveEnd::Interrupted {
                sweeps: record.sweeps,
            });
        }
        // Under the crash-point test hook, after every sweep: the same steps in every run.
        let due =
            last_checkpoint.elapsed() >= ctx.checkpoint_every || crate::files::fsops::testing();
        if change >= job.tolerance && due {
            save(record, &solver.values, None)?;
            kept = (record.sweeps, record.changes.clone());
            last_checkpoint = Instant::now();
        }
    }
    seconds.sweeps = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let Some(residual) = solver.residual(&stop_in("residual")) else {
        return stopped(record, &kept);
    };
    let path = ctx
        .out
        .map(|o| o.file(TABLE_FILE).display().to_string())
        .unwrap_or_else(|| "(in memory)".into());
    let mut table = Table::new(
        path,
        header(record, "table", None),
        space.clone(),
        reach.clone(),
        &solver.values,
    );
    drop(solver);
    let bytes = table.encode();
    let Some(checked) = check::check_until(
        &table,
        job.check_positions,
        job.check_seed,
        &stop_in("check"),
    )
    .map_err(SolveError::Check)?
    else {
        return stopped(record, &kept);
    };
    if checked.largest_residual > 1e3 * job.tolerance.max(1e-15) {
        return Err(SolveError::Check(format!(
            "the largest residual at {} positions is {:e}",
            checked.positions, checked.largest_residual
        )));
    }
    if let Some(out) = ctx.out {
        out.write(TABLE_FILE, &bytes)?;
        write_rules(out, &job.rules)?;
        // The table and rules.toml are on the disk, under their names, before the commit.
        out.sync()?;
    }
    seconds.check_and_write = t.elapsed().as_secs_f64();
    seconds.total = started.elapsed().as_secs_f64();
    let equity = table.start_equity();
    debug_assert_eq!(
        Some(equity),
        table.equity(&Game::new(job.rules, 2).expect("two players"))
    );
    record.status = SolveStatus::Complete;
    record.results = Some(SolveResults {
        last_change: record.changes.last().copied().unwrap_or(0.0),
        residual,
        first_player_equity: equity,
        first_player_win_probability: (1.0 + equity) / 2.0,
        check: CheckRecord {
            positions: checked.positions,
            largest_residual: checked.largest_residual,
            seed: checked.seed,
        },
        table: TableRecord {
            file: TABLE_FILE.into(),
            bytes: bytes.len() as u64,
            checksum: format!("{:016x}", table.checksum()),
        },
        seconds,
        peak_memory_bytes: peak_memory(),
        resumed_from_sweep: resumed_from,
    });
    if let Some(out) = ctx.out {
        // The commit; then the checkpoint goes (a stop in between leaves a complete solve
        // that `aeroplane resume` finishes again, to identical files).
        write_status(out, record)?;
        out.remove(CHECKPOINT_FILE)?;
        out.sync()?;
    }
    Ok(SolveEnd::Complete(
        Box::new(record.clone()),
        Box::new(table),
    ))
}
