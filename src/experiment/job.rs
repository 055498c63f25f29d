//! Any job, as one type: built from a command line or read back from its manifest (to resume
//! it or merge its shards), executed through one lifecycle, reported through one type.
//!
//! A kind of job (run, SPRT, sweep, league, tune) is one [`JobKind`] implementation (`kind.rs`),
//! in its own module, with a [`JobReport`]; [`Job`] and [`Report`] hold any of them and pass
//! each call on.
//! A new kind is a new implementation, a variant of each enum, its command in
//! [`Job::from_manifest`], and its settings in `builder.rs`.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::export::{Manifest, OutputDir};
use crate::runner::RunSpec;

use super::kind::{JobKind, JobReport, manifest_error};
use super::merge::{Shards, Stop};
use super::run::SummaryJson;
use super::{
    Context, JobError, LeagueJob, LeagueReport, Outcome, RunJob, RunReport, Shard, SprtJob,
    SprtReport, SweepJob, SweepReport, TuneJob, TuneReport,
};

/// A job of any kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Job {
    /// `run`.
    Run(RunJob),
    /// `run --sprt`.
    Sprt(SprtJob),
    /// `sweep`.
    Sweep(SweepJob),
    /// `league`.
    League(LeagueJob),
    /// `tune`.
    Tune(Box<TuneJob>),
}

/// The report of a job of any kind.
// One report is made per job: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// Of a run.
    Run(RunReport),
    /// Of a head-to-head.
    Sprt(SprtReport),
    /// Of a sweep.
    Sweep(SweepReport),
    /// Of a league.
    League(LeagueReport),
    /// Of a tune.
    Tune(TuneReport),
}

/// `$body` with `$j` bound to the kind inside a [`Job`] (the one place that lists the kinds).
macro_rules! each_kind {
    ($job:expr, $j:ident => $body:expr) => {
        match $job {
            Job::Run($j) => $body,
            Job::Sprt($j) => $body,
            Job::Sweep($j) => $body,
            Job::League($j) => $body,
            Job::Tune($j) => $body,
        }
    };
}

/// `$body` with `$r` bound to the report inside a [`Report`].
macro_rules! each_report {
    ($report:expr, $r:ident => $body:expr) => {
        match $report {
            Report::Run($r) => $body,
            Report::Sprt($r) => $body,
            Report::Sweep($r) => $body,
            Report::League($r) => $body,
            Report::Tune($r) => $body,
        }
    };
}

macro_rules! report_from {
    ($($variant:ident($ty:ty)),*) => {
        $(impl From<$ty> for Report {
            fn from(r: $ty) -> Report {
                Report::$variant(r)
            }
        })*
    };
}

report_from!(
    Run(RunReport),
    Sprt(SprtReport),
    Sweep(SweepReport),
    League(LeagueReport),
    Tune(TuneReport)
);

impl Report {
    /// The text report, as the job's command prints it.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        each_report!(self, r => r.write_text(w))
    }

    /// The report as the job's `summary.json` holds it (command, tool, version and the typed
    /// report), for scripts and the Python package.
    pub fn summary_json(&self) -> serde_json::Value {
        fn summary<R: JobReport>(r: &R) -> serde_json::Value {
            serde_json::to_value(SummaryJson::new(R::COMMAND, r)).expect("reports serialize")
        }
        each_report!(self, r => summary(r))
    }
}

impl Job {
    /// The job a manifest describes (to resume it, or merge its shards); the bots and rules
    /// are resolved and checked again.
    pub fn from_manifest(m: &Manifest, file: &str) -> Result<Job, JobError> {
        match m.command.as_str() {
            "run" if m.sprt.is_some() => SprtJob::from_manifest(m, file).map(Job::Sprt),
            "run" => RunJob::from_manifest(m, file).map(Job::Run),
            "sweep" => SweepJob::from_manifest(m, file).map(Job::Sweep),
            "league" => LeagueJob::from_manifest(m, file).map(Job::League),
            "tune" => TuneJob::from_manifest(m, file).map(|j| Job::Tune(Box::new(j))),
            other => Err(manifest_error(file, format!("unknown command `{other}`"))),
        }
    }

    /// The job's manifest (`run.json`, status running).
    pub fn manifest(&self) -> Manifest {
        each_kind!(self, j => j.manifest())
    }

    /// Sends the stderr of every bot program the job runs to `dir/<bot>-<n>.log` (not part of
    /// what the job is: its manifest and results do not change).
    pub fn set_bot_log_dir(&mut self, dir: &Path) {
        each_kind!(self, j => j.set_bot_log_dir(dir))
    }

    /// The job's parts: the runs cut into units in advance (none for a tune, whose runs
    /// depend on its results so far).
    pub fn parts(&self) -> &[RunSpec] {
        each_kind!(self, j => j.parts())
    }

    /// Games the whole job plans (an SPRT may stop before).
    pub fn total_games(&self) -> u64 {
        each_kind!(self, j => j.total_games())
    }

    /// Games of the plan with `unit_deals` deals per unit that `shard` (or the whole job)
    /// plays.
    pub fn planned_games(&self, unit_deals: u64, shard: Option<Shard>) -> u64 {
        each_kind!(self, j => j.planned_games(unit_deals, shard))
    }

    /// Runs the job (fresh, resumed or one shard, as `ctx` says).
    pub fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<Report>, JobError> {
        each_kind!(self, j => Ok(j.execute(ctx)?.map(Report::from)))
    }

    /// Merges the job's shards (their folders, any order) into `out`, with the plan of
    /// `unit_deals` deals per unit the shards were run with; stops (status interrupted) soon
    /// after `interrupt` is set. `unit_done` is called after each unit is merged, with how
    /// many are.
    pub fn merge(
        &self,
        out: &mut OutputDir,
        shards: &[PathBuf],
        unit_deals: u64,
        allow_partial: bool,
        interrupt: Option<&AtomicBool>,
        unit_done: Option<&(dyn Fn(usize) + Sync)>,
    ) -> Result<Outcome<Report>, JobError> {
        let stop = Stop {
            interrupt,
            unit_done,
        };
        let group = Shards {
            dirs: shards,
            unit_deals,
            allow_partial,
        };
        each_kind!(self, j => Ok(j.merge_shards(out, group, stop)?.map(Report::from)))
    }
}
