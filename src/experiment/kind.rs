//! What every kind of job is and does ([`JobKind`]) and reports ([`JobReport`]); each kind
//! (run, SPRT, sweep, league, tune) implements them in its own module, and `job.rs` holds any of
//! them as a [`super::Job`].

use std::path::Path;

use serde::Serialize;

use crate::export::{Manifest, OutputDir};
use crate::runner::{Plan, RunSpec};

use super::merge::{Shards, Stop};
use super::{Context, InvalidJob, JobError, Outcome, Shard};

/// What a kind of job is and does: read back from its manifest, its parts and planned games,
/// played, and merged from shards.
pub trait JobKind: Sized {
    /// What the job reports.
    type Report: JobReport;

    /// The job a manifest of this kind describes (to resume it, or merge its shards); the bots
    /// and rules are resolved and checked again.
    fn from_manifest(m: &Manifest, file: &str) -> Result<Self, JobError>;

    /// The job's manifest (`run.json`, status running): what makes the job again, read back by
    /// [`JobKind::from_manifest`] (and by `export::Manifest::reproduction`, its command line).
    fn manifest(&self) -> Manifest;

    /// The job's parts: the runs cut into units in advance (none for a tune, whose runs
    /// depend on its results so far).
    fn parts(&self) -> &[RunSpec];

    /// The parts, to change what does not define the job (where bot programs log).
    fn parts_mut(&mut self) -> &mut [RunSpec];

    /// Sends the stderr of every bot program the job runs to `dir/<bot>-<n>.log` (not part of
    /// what the job is: its manifest and results do not change).
    fn set_bot_log_dir(&mut self, dir: &Path) {
        for spec in self.parts_mut() {
            for bot in &mut spec.lineup {
                if let Some(ext) = &mut bot.external {
                    ext.log_dir = Some(dir.to_path_buf());
                }
            }
        }
    }

    /// Games the whole job plans (an SPRT may stop before).
    fn total_games(&self) -> u64 {
        self.parts().iter().map(RunSpec::total_games).sum()
    }

    /// Games of the plan with `unit_deals` deals per unit that `shard` (or the whole job)
    /// plays.
    fn planned_games(&self, unit_deals: u64, shard: Option<Shard>) -> u64 {
        match Plan::chunked(self.parts(), unit_deals) {
            Ok(plan) => super::planned_games(&plan, shard),
            Err(_) => self.total_games(),
        }
    }

    /// Runs the job (fresh, resumed or one shard, as `ctx` says).
    fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<Self::Report>, JobError>;

    /// Merges the job's shards into `out` (see [`super::Job::merge`]).
    fn merge_shards(
        &self,
        out: &mut OutputDir,
        shards: Shards<'_>,
        stop: Stop<'_>,
    ) -> Result<Outcome<Self::Report>, JobError>;
}

/// What a kind of job reports: a text for the terminal and a typed record for `summary.json`.
pub trait JobReport: Serialize {
    /// The command `summary.json` names (`sprt` for a run's SPRT).
    const COMMAND: &'static str;

    /// The text report, as the job's command prints it.
    fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()>;
}

/// An [`InvalidJob::Manifest`] error of `file`.
pub(crate) fn manifest_error(file: &str, what: String) -> JobError {
    InvalidJob::Manifest {
        file: file.to_string(),
        what,
    }
    .into()
}

/// The luck nets a manifest names, loaded (a sweep's, one per rule variant or more).
pub(super) fn luck_nets(
    m: &Manifest,
    file: &str,
) -> Result<Vec<crate::analysis::luck::LuckNet>, JobError> {
    m.luck
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let net = crate::analysis::luck::LuckNet::load(n)
                .map_err(|e| manifest_error(file, format!("luck: {e}")))?;
            if let Some(want) = m.luck_checksum.get(i)
                && *want != net.checksum()
            {
                return Err(manifest_error(
                    file,
                    format!(
                        "luck: the job measured its luck with the net {n} of checksum {want}, but {n} is now another net, of checksum {}: put the job's net back at {n} (its figures would mix two nets' luck)",
                        net.checksum()
                    ),
                ));
            }
            Ok(net.with_ply(m.luck_ply))
        })
        .collect()
}

/// The one luck net of a run's or a league's manifest, loaded, if it names one.
pub(super) fn one_luck_net(
    m: &Manifest,
    file: &str,
) -> Result<Option<crate::analysis::luck::LuckNet>, JobError> {
    if m.luck.len() > 1 {
        return Err(manifest_error(
            file,
            format!(
                "luck names {} nets; a {} measures luck with one (only a sweep takes one per rule variant)",
                m.luck.len(),
                m.command
            ),
        ));
    }
    Ok(luck_nets(m, file)?.pop())
}
