//! Any job, as one type: built from a command line or read back from its manifest (to resume
//! it or merge its shards), executed through one lifecycle, reported through one type.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use crate::analysis::{Axis, SprtConfig};
use crate::export::{Manifest, OutputDir, SortKey};
use crate::runner::RunSpec;

use super::merge::{Shards, Stop, merge};
use super::run::SummaryJson;
use super::{
    Context, InvalidJob, JobError, LeagueJob, LeagueReport, Outcome, RunJob, RunReport, SprtJob,
    SprtReport, SweepJob, SweepReport, SweepSpec, TuneJob, TuneReport,
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

impl Report {
    /// The text report, as the job's command prints it.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match self {
            Report::Run(r) => r.write_text(w),
            Report::Sprt(r) => r.write_text(w),
            Report::Sweep(r) => r.write_text(w),
            Report::League(r) => r.write_text(w),
            Report::Tune(r) => r.write_text(w),
        }
    }

    /// The report as the job's `summary.json` holds it (command, tool, version and the typed
    /// report), for scripts and the Python package.
    pub fn summary_json(&self) -> serde_json::Value {
        let value = match self {
            Report::Run(r) => serde_json::to_value(SummaryJson::new("run", r)),
            Report::Sprt(r) => serde_json::to_value(SummaryJson::new("sprt", r)),
            Report::Sweep(r) => serde_json::to_value(SummaryJson::new("sweep", r)),
            Report::League(r) => serde_json::to_value(SummaryJson::new("league", r)),
            Report::Tune(r) => serde_json::to_value(SummaryJson::new("tune", r)),
        };
        value.expect("reports serialize")
    }
}

impl Job {
    /// The job a manifest describes (to resume it, or merge its shards); the bots and rules
    /// are resolved and checked again.
    pub fn from_manifest(m: &Manifest, file: &str) -> Result<Job, JobError> {
        let invalid = |what: String| {
            JobError::from(InvalidJob::Manifest {
                file: file.to_string(),
                what,
            })
        };
        match m.command.as_str() {
            "run" => {
                let spec = m.spec(file)?;
                match &m.sprt {
                    Some(s) => {
                        let config: SprtConfig = s
                            .test
                            .parse()
                            .map_err(|e| invalid(format!("sprt.test: {e}")))?;
                        let luck = one_luck_net(m, file)?;
                        Ok(Job::Sprt(
                            SprtJob::new(spec, m.rules_name.clone(), config, s.chunk_deals)?
                                .with_luck(luck),
                        ))
                    }
                    None => Ok(Job::Run(RunJob {
                        spec,
                        rules_name: m.rules_name.clone(),
                        per_game: m.per_game,
                        log_games: m.log_games.clone(),
                        log_positions: m
                            .log_positions
                            .unwrap_or(crate::decision_log::DEFAULT_LOG_POSITIONS),
                        recover: m.recover,
                        luck: one_luck_net(m, file)?,
                    })),
                }
            }
            "sweep" => {
                let s = m.sweep.as_ref().ok_or_else(|| {
                    invalid("a sweep's manifest needs its `sweep` section".into())
                })?;
                let axes = s
                    .vary
                    .iter()
                    .map(|t| {
                        t.parse::<Axis>()
                            .map_err(|e| invalid(format!("sweep.vary `{t}`: {e}")))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Job::Sweep(
                    SweepJob::new(SweepSpec {
                        rules_name: m.rules_name.clone(),
                        base: m.rules(file)?,
                        axes,
                        lineup: m.bot_specs(file)?,
                        bots_label: s.bots.clone(),
                        seed: m.seed,
                        deals: m.games,
                        rotate_seats: m.rotate_seats,
                        compare: s
                            .compare
                            .map(|[a, b]| (a.saturating_sub(1), b.saturating_sub(1))),
                        sort: SortKey::parse(&s.sort),
                    })?
                    .with_luck(luck_nets(m, file)?)?,
                ))
            }
            "league" => {
                let l = m.league.as_ref().ok_or_else(|| {
                    invalid("a league's manifest needs its `league` section".into())
                })?;
                Ok(Job::League(
                    LeagueJob::new(
                        m.rules_name.clone(),
                        m.rules(file)?,
                        m.bot_specs(file)?,
                        m.players,
                        m.games,
                        m.seed,
                        l.bootstrap,
                    )?
                    .with_luck(one_luck_net(m, file)?)?,
                ))
            }
            "tune" => Ok(Job::Tune(Box::new(TuneJob::from_manifest(m, file)?))),
            other => Err(invalid(format!("unknown command `{other}`"))),
        }
    }

    /// Sends the stderr of every bot program the job runs to `dir/<bot>-<n>.log` (not part of
    /// what the job is: its manifest and results do not change).
    pub fn set_bot_log_dir(&mut self, dir: &std::path::Path) {
        let specs: Vec<&mut RunSpec> = match self {
            Job::Tune(j) => return j.set_bot_log_dir(dir),
            Job::Run(j) => vec![&mut j.spec],
            Job::Sprt(j) => vec![&mut j.spec],
            Job::Sweep(j) => j.parts_mut().iter_mut().collect(),
            Job::League(j) => j.parts_mut().iter_mut().collect(),
        };
        for spec in specs {
            for bot in &mut spec.lineup {
                if let Some(ext) = &mut bot.external {
                    ext.log_dir = Some(dir.to_path_buf());
                }
            }
        }
    }

    /// The job's parts: the runs cut into units in advance (none for a tune, whose runs
    /// depend on its results so far).
    pub fn parts(&self) -> &[RunSpec] {
        match self {
            Job::Run(j) => std::slice::from_ref(&j.spec),
            Job::Sprt(j) => std::slice::from_ref(&j.spec),
            Job::Sweep(j) => j.parts(),
            Job::League(j) => j.parts(),
            Job::Tune(_) => &[],
        }
    }

    /// Games the whole job plans (an SPRT may stop before).
    pub fn total_games(&self) -> u64 {
        match self {
            Job::Tune(j) => j.planned_games(),
            _ => self.parts().iter().map(RunSpec::total_games).sum(),
        }
    }

    /// Games of the plan with `unit_deals` deals per unit that `shard` (or the whole job)
    /// plays.
    pub fn planned_games(&self, unit_deals: u64, shard: Option<super::Shard>) -> u64 {
        if let Job::Tune(j) = self {
            return j.planned_games();
        }
        match crate::runner::Plan::chunked(self.parts(), unit_deals) {
            Ok(plan) => super::planned_games(&plan, shard),
            Err(_) => self.total_games(),
        }
    }

    /// Runs the job (fresh, resumed or one shard, as `ctx` says).
    pub fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<Report>, JobError> {
        Ok(match self {
            Job::Run(j) => j.execute(ctx)?.map(Report::Run),
            Job::Sprt(j) => j.execute(ctx)?.map(Report::Sprt),
            Job::Sweep(j) => j.execute(ctx)?.map(Report::Sweep),
            Job::League(j) => j.execute(ctx)?.map(Report::League),
            Job::Tune(j) => j.execute(ctx)?.map(Report::Tune),
        })
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
        Ok(match self {
            Job::Tune(_) => {
                return Err(InvalidJob::TuneSequential("has no shards to merge").into());
            }
            Job::Run(j) => {
                let mut f = j.new_fold();
                let outcome = merge(out, group, j.def()?, stop, &mut f, |f, o, _| j.report(f, o))?;
                let mut outcome = outcome;
                if let super::JobEnd::Finished(r) = &outcome.ended {
                    outcome.notes.extend(r.forfeit_notes());
                }
                outcome.map(Report::Run)
            }
            Job::Sprt(j) => {
                let mut f = j.new_fold();
                merge(out, group, j.def(), stop, &mut f, |f, o, m| {
                    j.report(f, o, m)
                })?
                .map(Report::Sprt)
            }
            Job::Sweep(j) => {
                let mut f = j.new_fold();
                let kept = |part: usize| j.keeps(part);
                merge(out, group, j.def(&kept), stop, &mut f, |f, o, _| {
                    j.report(f, o)
                })?
                .map(Report::Sweep)
            }
            Job::League(j) => {
                let mut f = j.new_fold();
                merge(out, group, j.def(), stop, &mut f, |f, o, _| {
                    j.report(f, o, interrupt)
                })?
                .map(Report::League)
            }
        })
    }
}

/// The luck nets a manifest names, loaded (a sweep's, one per rule variant or more).
fn luck_nets(m: &Manifest, file: &str) -> Result<Vec<crate::analysis::luck::LuckNet>, JobError> {
    m.luck
        .iter()
        .map(|n| {
            crate::analysis::luck::LuckNet::load(n).map_err(|e| {
                JobError::from(InvalidJob::Manifest {
                    file: file.to_string(),
                    what: format!("luck: {e}"),
                })
            })
        })
        .collect()
}

/// The one luck net of a run's or a league's manifest, loaded, if it names one.
fn one_luck_net(
    m: &Manifest,
    file: &str,
) -> Result<Option<crate::analysis::luck::LuckNet>, JobError> {
    if m.luck.len() > 1 {
        return Err(InvalidJob::Manifest {
            file: file.to_string(),
            what: format!(
                "luck names {} nets; a {} measures luck with one (only a sweep takes one per rule variant)",
                m.luck.len(),
                m.command
            ),
        }
        .into());
    }
    Ok(luck_nets(m, file)?.pop())
}
