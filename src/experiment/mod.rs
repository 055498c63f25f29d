//! Jobs: what an experiment is. Each job is a typed spec that makes a deterministic [`Plan`]
//! of work units (a range of deals of one part: the run, a sweep's variant, a league's table),
//! plays it through [`runner::execute`](crate::runner::execute) into exact integer tallies, and
//! returns a typed report. The job also owns its output directory: the manifest (with its
//! status), `games.csv`, the CSV tables and `summary.json` (the report as JSON, full
//! precision) are written by the library, before anything is printed, so files never depend
//! on stdout. The CLI only parses arguments into a spec and prints the report.
//!
//! | job | spec | parts | report |
//! |-----|------|-------|--------|
//! | run | [`RunJob`] | the run | [`RunReport`] |
//! | run --sprt | [`SprtJob`] | the head-to-head | [`SprtReport`] |
//! | sweep | [`SweepJob`] | one run per variant | [`SweepReport`] |
//! | league | [`LeagueJob`] | one run per table | [`LeagueReport`] |
//!
//! [`replay`] plays one game of a run with its move log; [`bench`] times the published
//! workloads and digests their games.

pub mod bench;
mod league;
pub mod replay;
mod run;
mod sprt;
mod sweep;

pub use league::{LEAGUE_HEADER, LeagueJob, LeagueReport, LeagueRow, PAIRS_HEADER, PairRow};
pub use run::{RunJob, RunReport};
pub use sprt::{SPRT_CHUNK_DEALS, SprtJob, SprtReport};
pub use sweep::{
    COMPARE_HEADER, Comparison, DEFAULT_SORT, SWEEP_HEADER, SweepJob, SweepReport, SweepRow,
    axis_text,
};

use std::sync::atomic::AtomicU64;

use crate::export::{ExportError, JobStatus, MANIFEST_FILE, Manifest, OutputDir};
use crate::runner::{Exec, RunError};

pub use crate::runner::{Plan, Unit};

/// How to execute a job: none of this changes its results.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// Threads and unit size.
    pub exec: Exec,
    /// Where the job's files go, if anywhere.
    pub out: Option<&'a OutputDir>,
    /// Workers add every finished game here (read it on a timer for a progress display).
    pub progress: &'a AtomicU64,
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
}

/// Writes the manifest (status running) before a job starts.
fn start(out: Option<&OutputDir>, manifest: &Manifest) -> Result<(), ExportError> {
    match out {
        Some(dir) => dir.write_json(MANIFEST_FILE, manifest),
        None => Ok(()),
    }
}

/// Records the end of a job in its manifest: complete with the games played, or failed with
/// the error (the error is returned either way).
fn finish<T>(
    out: Option<&OutputDir>,
    manifest: &mut Manifest,
    result: Result<(T, u64), JobError>,
) -> Result<T, JobError> {
    match result {
        Ok((value, games)) => {
            manifest.finish(JobStatus::Complete, games, None);
            if let Some(dir) = out {
                dir.write_json(MANIFEST_FILE, manifest)?;
            }
            Ok(value)
        }
        Err(e) => {
            manifest.finish(JobStatus::Failed, manifest.games_played, Some(chain(&e)));
            if let Some(dir) = out {
                // The job's error matters more than a second failure to write.
                let _ = dir.write_json(MANIFEST_FILE, manifest);
            }
            Err(e)
        }
    }
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
