//! Jobs: what an experiment is. Each job is a typed spec that makes a deterministic [`Plan`]
//! of work units (a range of deals of one part: the run, a sweep's variant, a league's table),
//! plays it into exact integer tallies, and returns a typed report. The job also owns its
//! output directory: the manifest (with its status), the checkpoint of finished units,
//! `games.csv`, the CSV tables and `summary.json` (the report as JSON, full precision) are
//! written by the library, before anything is printed, so files never depend on stdout. The
//! CLI only parses arguments into a spec and prints the report.
//!
//! | job | spec | parts | report |
//! |-----|------|-------|--------|
//! | run | [`RunJob`] | the run | [`RunReport`] |
//! | run --sprt | [`SprtJob`] | the head-to-head | [`SprtReport`] |
//! | sweep | [`SweepJob`] | one run per variant | [`SweepReport`] |
//! | league | [`LeagueJob`] | one run per table | [`LeagueReport`] |
//!
//! Every job goes through one lifecycle ([`Job::execute`]): a fresh start, a resume from the
//! checkpoint ([`Context::resume`]) or one shard of the plan ([`Context::shard`]); shards
//! combine with [`Job::merge`] into exactly what one uninterrupted run writes. [`replay`]
//! plays one game of a run with its move log; [`bench`] times the published workloads and
//! digests their games.

pub mod bench;
mod drive;
pub mod effects;
mod job;
mod league;
mod merge;
pub mod replay;
mod run;
mod sprt;
mod sweep;

pub use drive::Shard;
pub use effects::Effect;
pub use job::{Job, Report};
pub use league::{LEAGUE_HEADER, LeagueJob, LeagueReport, LeagueRow, PAIRS_HEADER, PairRow};
pub use run::{RunJob, RunReport};
pub use sprt::{SPRT_CHUNK_DEALS, SprtJob, SprtReport};
pub use sweep::{
    COMPARE_HEADER, Comparison, DEFAULT_SORT, EFFECTS_HEADER, SWEEP_HEADER, SweepJob, SweepReport,
    SweepRow, axis_text, sweep_header,
};

use std::sync::atomic::{AtomicBool, AtomicU64};

use crate::export::{
    CHECKPOINT_FILE, Checkpoint, CheckpointError, ExportError, GamesCsv, JobStatus, MANIFEST_FILE,
    Manifest, ManifestError, OutputDir, ShardSection,
};
use crate::runner::{Exec, RunError, RunSpec};

pub use crate::runner::{Plan, Unit};

use drive::{Ended, Fold, Records, UnitLine, drive};

/// How to execute a job: none of this changes its results.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// Threads and unit size (the unit size is part of the plan: resumes and shards keep it).
    pub exec: Exec,
    /// Where the job's files go, if anywhere.
    pub out: Option<&'a OutputDir>,
    /// Workers add every finished game here (read it on a timer for a progress display).
    pub progress: &'a AtomicU64,
    /// Set by a signal handler: the job stops after the units it has finished.
    pub interrupt: Option<&'a AtomicBool>,
    /// Play only this shard of the plan (needs `out`; combine shards with [`Job::merge`]).
    pub shard: Option<Shard>,
    /// Go on with the job whose checkpoint is in `out`.
    pub resume: bool,
    /// Called after each unit this process plays is folded, with how many it has folded.
    pub unit_done: Option<&'a (dyn Fn(usize) + Sync)>,
    /// Called after each unit this process plays is folded, with a way to get a one-line
    /// summary of the job so far (games, win rates, an SPRT's LLR); the summary is only
    /// computed when the callback asks for it. Never changes the results.
    pub interim: Option<&'a Interim<'a>>,
}

/// The interim-results callback of [`Context::interim`]: it receives the summary, lazily.
pub type Interim<'a> = dyn Fn(&dyn Fn() -> String) + Sync + 'a;

impl<'a> Context<'a> {
    /// A fresh, whole job.
    pub fn new(exec: Exec, out: Option<&'a OutputDir>, progress: &'a AtomicU64) -> Self {
        Context {
            exec,
            out,
            progress,
            interrupt: None,
            shard: None,
            resume: false,
            unit_done: None,
            interim: None,
        }
    }
}

/// How a job ended.
#[derive(Debug)]
pub enum JobEnd<R> {
    /// Every unit was played (or a sequential test decided): the report, its files written.
    Finished(R),
    /// A signal stopped it; the finished units are in the checkpoint.
    Interrupted,
    /// One shard of the plan is done; merge the shards for the report.
    ShardDone(Shard),
}

/// A job's end, with its counts.
#[derive(Debug)]
pub struct Outcome<R> {
    /// How it ended.
    pub ended: JobEnd<R>,
    /// Games played (with a resume: in all sessions together).
    pub played: u64,
    /// Games this process's plan (or shard) holds.
    pub planned: u64,
    /// Things the user should know (a damaged last checkpoint record dropped, ...).
    pub notes: Vec<String>,
}

impl<R> Outcome<R> {
    fn map<S>(self, f: impl FnOnce(R) -> S) -> Outcome<S> {
        Outcome {
            ended: match self.ended {
                JobEnd::Finished(r) => JobEnd::Finished(f(r)),
                JobEnd::Interrupted => JobEnd::Interrupted,
                JobEnd::ShardDone(s) => JobEnd::ShardDone(s),
            },
            played: self.played,
            planned: self.planned,
            notes: self.notes,
        }
    }
}

/// Why a job failed.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// The spec is not a job that can run.
    #[error("{0}")]
    Invalid(String),
    /// Playing failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// Writing an output failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// Fitting ratings failed.
    #[error("rating the games: {0}")]
    Ratings(#[from] crate::analysis::ratings::RatingsError),
    /// The checkpoint cannot be used.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A manifest cannot be used.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// A signal stopped the run.
    #[error("interrupted")]
    Interrupted,
}

/// What the lifecycle needs of a job.
pub(crate) struct JobDef<'a> {
    /// The manifest (status running).
    pub manifest: Manifest,
    /// The parts.
    pub parts: &'a [RunSpec],
    /// Which parts' games are kept as rows.
    pub rows_for: &'a (dyn Fn(usize) -> bool + Sync),
    /// Stream `games.csv`.
    pub per_game: bool,
    /// A failing bot program forfeits its game (and `games.csv` has `forfeit_seat`).
    pub recover: bool,
}

/// Games of the units of `plan` that `shard` owns.
fn planned_games(plan: &Plan, parts: &[RunSpec], shard: Option<Shard>) -> u64 {
    plan.units
        .iter()
        .filter(|u| shard.is_none_or(|s| s.owns(u.index)))
        .map(|u| u.deals * parts[u.part].games_per_deal())
        .sum()
}

/// The lifecycle every job shares: start (or resume, or one shard), play and fold the plan,
/// then (when whole and done) build the report with `report`, which writes the job's tables
/// (and may add its outcome to the manifest).
pub(crate) fn conduct<F: Fold, R>(
    ctx: &Context<'_>,
    def: JobDef<'_>,
    fold: &mut F,
    report: impl FnOnce(&mut F, Option<&OutputDir>, &mut Manifest) -> Result<R, JobError>,
) -> Result<Outcome<R>, JobError> {
    let plan = Plan::chunked(def.parts, ctx.exec.chunk_deals)?;
    let ctx = &Context {
        exec: Exec {
            recover: def.recover,
            ..ctx.exec
        },
        ..*ctx
    };
    let mut manifest = def.manifest;
    manifest.unit_deals = ctx.exec.chunk_deals;
    manifest.shard = ctx.shard.map(|s| ShardSection {
        index: s.index,
        count: s.count,
    });
    let planned = planned_games(&plan, def.parts, ctx.shard);
    manifest.games_planned = planned;
    if let Some(s) = ctx.shard {
        if ctx.out.is_none() {
            return Err(JobError::Invalid(
                "--shard keeps its units for `aeroplane merge`: give --out DIR".into(),
            ));
        }
        if s.count == 0 || s.index >= s.count {
            return Err(JobError::Invalid(format!(
                "--shard {}/{}: the index must be below the count (0-based)",
                s.index, s.count
            )));
        }
    }
    let mut notes = Vec::new();
    let partial = ctx.out.map(|d| d.file(GamesCsv::PARTIAL));
    let (mut checkpoint, mut games, done) = match ctx.out {
        None if ctx.resume => {
            return Err(JobError::Invalid(
                "a resume needs the job's output directory".into(),
            ));
        }
        None => (None, None, Vec::new()),
        Some(dir) if ctx.resume => {
            let (c, loaded) = Checkpoint::open::<serde_json::Value, UnitLine<F::Record>>(
                &dir.file(CHECKPOINT_FILE),
            )?;
            let differ = Manifest::differences(&loaded.header, &manifest.identity());
            if !differ.is_empty() {
                return Err(JobError::Invalid(format!(
                    "the checkpoint in {} belongs to another job: {} differ from run.json (was run.json edited?); start again with --force",
                    dir.path().display(),
                    differ.join(", ")
                )));
            }
            if loaded.dropped_partial {
                notes.push(format!(
                    "the checkpoint's last record was cut short (the job was killed while writing it): its unit is played again ({} units kept)",
                    loaded.records.len()
                ));
            }
            let end = loaded
                .records
                .iter()
                .rev()
                .find_map(|l| l.games_csv_end)
                .unwrap_or(GamesCsv::header_len(def.recover));
            let games = match def.per_game {
                true => Some(GamesCsv::reopen(
                    partial.as_ref().expect("out"),
                    end,
                    def.recover,
                )?),
                false => None,
            };
            dir.write_json(MANIFEST_FILE, &manifest)?;
            (Some(c), games, loaded.records)
        }
        Some(dir) => {
            dir.write_json(MANIFEST_FILE, &manifest)?;
            let c = Checkpoint::create(&dir.file(CHECKPOINT_FILE), &manifest.identity())?;
            let games = match (def.per_game, def.recover) {
                (true, false) => Some(GamesCsv::create(partial.as_ref().expect("out"))?),
                (true, true) => Some(GamesCsv::create_with_forfeits(
                    partial.as_ref().expect("out"),
                )?),
                (false, _) => None,
            };
            (Some(c), games, Vec::new())
        }
    };
    let driven = drive(
        def.parts,
        &plan,
        ctx,
        fold,
        def.rows_for,
        games.as_mut(),
        Records {
            checkpoint: checkpoint.as_mut(),
            done,
        },
    );
    if let Some(c) = checkpoint.as_mut()
        && let Err(e) = c.sync()
        && driven.is_ok()
    {
        manifest.finish(JobStatus::Failed, 0, Some(chain(&e)));
        if let Some(dir) = ctx.out {
            let _ = dir.write_json(MANIFEST_FILE, &manifest);
        }
        return Err(e.into());
    }
    let write_manifest = |m: &Manifest| match ctx.out {
        Some(dir) => dir.write_json(MANIFEST_FILE, m),
        None => Ok(()),
    };
    let (ended, played) = match driven {
        Ok(d) => d,
        Err(e) => {
            manifest.finish(JobStatus::Failed, 0, Some(chain(&e)));
            // The job's error matters more than a second failure to write.
            let _ = write_manifest(&manifest);
            return Err(e);
        }
    };
    let outcome = |ended| Outcome {
        ended,
        played,
        planned,
        notes: notes.clone(),
    };
    match ended {
        Ended::Interrupted => {
            manifest.finish(JobStatus::Interrupted, played, None);
            write_manifest(&manifest)?;
            return Ok(outcome(JobEnd::Interrupted));
        }
        Ended::Complete | Ended::Decided if ctx.shard.is_some() => {
            if let Some(g) = games {
                finish_games(g, partial.as_ref().expect("out"))?;
            }
            manifest.finish(JobStatus::Complete, played, None);
            write_manifest(&manifest)?;
            return Ok(outcome(JobEnd::ShardDone(ctx.shard.expect("a shard"))));
        }
        Ended::Complete | Ended::Decided => {}
    }
    let result = (|| {
        if let (Some(g), Some(dir)) = (games, ctx.out) {
            finish_games(g, partial.as_ref().expect("out"))?;
            dir.finish_stream(GamesCsv::PARTIAL, "games.csv")?;
        }
        let r = report(fold, ctx.out, &mut manifest)?;
        if let Some(dir) = ctx.out {
            dir.remove(CHECKPOINT_FILE)?;
        }
        Ok(r)
    })();
    match result {
        Ok(r) => {
            manifest.finish(JobStatus::Complete, played, None);
            write_manifest(&manifest)?;
            Ok(outcome(JobEnd::Finished(r)))
        }
        Err(e) => {
            manifest.finish(JobStatus::Failed, played, Some(chain(&e)));
            let _ = write_manifest(&manifest);
            Err(e)
        }
    }
}

fn finish_games(g: GamesCsv, path: &std::path::Path) -> Result<(), ExportError> {
    g.finish().map_err(|e| ExportError::new(path, e))
}

/// The names of a lineup.
fn names(lineup: &[crate::bots::registry::BotSpec]) -> Vec<String> {
    lineup.iter().map(|b| b.name.clone()).collect()
}

/// An error with its causes, as one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let c_text = c.to_string();
        if !text.contains(&c_text) {
            text.push_str(": ");
            text.push_str(&c_text);
        }
        cause = c.source();
    }
    text
}
