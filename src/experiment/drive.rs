//! Driving a job's plan: the part every job shares. It plays the units of the plan (or of one
//! shard of it) that are not done yet, folds each finished unit into the job's state in plan
//! order, appends the unit's record to the checkpoint, streams `games.csv`, and stops cleanly
//! on an interrupt. Resume, shards and merge all go through here, so an interrupted and resumed
//! job, or the merge of its shards, folds exactly the records an uninterrupted run folds.

use std::sync::atomic::Ordering;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::export::{Checkpoint, ExportError, GamesCsv};
use crate::runner::{self, Flow, Plan, RunSpec, Unit, UnitResult};

use super::{Context, JobError};

/// A job's state, built from unit records in plan order.
pub(crate) trait Fold {
    /// What the checkpoint keeps of one unit: enough to fold it again without replaying it.
    type Record: Serialize + DeserializeOwned;

    /// The record of a finished unit.
    fn record(&self, unit: &UnitResult) -> Self::Record;

    /// Folds a unit's record; [`Flow::Stop`] ends the job (a sequential test decided).
    fn fold(&mut self, unit: &Unit, record: Self::Record) -> Flow;

    /// A one-line summary of the state so far (games, each bot's win rate, ...), for interim
    /// results on stderr; empty where the job has none.
    fn interim(&self) -> String {
        String::new()
    }
}

/// Each bot's win rate so far, as `0 greedy 41.20%, 1 random 8.30%` (lineup order).
pub(crate) fn win_rates(tally: &crate::stats::Tally, names: &[String]) -> String {
    names
        .iter()
        .zip(&tally.bots)
        .enumerate()
        .map(|(i, (name, e))| {
            let rate = if e.games == 0 {
                0.0
            } else {
                100.0 * e.wins as f64 / e.games as f64
            };
            format!("{i} {name} {rate:.2}%")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line of the checkpoint.
#[derive(Serialize, Deserialize)]
pub(crate) struct UnitLine<R> {
    /// The unit's index in the plan.
    pub unit: usize,
    /// The length of `games.csv.partial` after this unit's rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub games_csv_end: Option<u64>,
    /// The unit's record.
    pub record: R,
}

/// How a drive ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Every unit of the plan (or shard) was folded.
    Complete,
    /// The fold stopped the job (a sequential test decided).
    Decided,
    /// An interrupt stopped it; the finished units are in the checkpoint.
    Interrupted,
}

/// Where unit records go and come from.
pub(crate) struct Records<'a, R> {
    /// The checkpoint to append to, if the job has an output directory.
    pub checkpoint: Option<&'a mut Checkpoint>,
    /// Records of units already done (a resume), in plan order.
    pub done: Vec<UnitLine<R>>,
}

/// Which of the plan's units this process plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 0-based shard index.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

impl Shard {
    /// Whether a unit (by plan index) belongs to this shard: units are dealt round-robin, so
    /// every shard gets a mix of the plan (of every variant or table).
    pub fn owns(&self, unit: usize) -> bool {
        unit as u64 % self.count == self.index
    }
}

/// Plays and folds the plan. `rows_for(part)` says which parts' games are kept as rows;
/// `games` streams rows (in unit order) into `games.csv.partial`.
pub(crate) fn drive<F: Fold>(
    parts: &[RunSpec],
    plan: &Plan,
    ctx: &Context<'_>,
    fold: &mut F,
    rows_for: &(dyn Fn(usize) -> bool + Sync),
    mut games: Option<&mut GamesCsv>,
    records: Records<'_, F::Record>,
) -> Result<(Ended, u64), JobError> {
    let mine: Vec<Unit> = plan
        .units
        .iter()
        .copied()
        .filter(|u| ctx.shard.is_none_or(|s| s.owns(u.index)))
        .collect();
    let Records {
        mut checkpoint,
        done,
    } = records;
    let mut next = 0usize;
    let mut played = 0u64;
    let games_of = |u: &Unit| u.deals * parts[u.part].games_per_deal();
    for line in done {
        let unit = mine.get(next).ok_or_else(|| {
            JobError::Invalid(format!(
                "the checkpoint holds unit {} beyond the {} units of this job",
                line.unit,
                mine.len()
            ))
        })?;
        if unit.index != line.unit {
            return Err(JobError::Invalid(format!(
                "the checkpoint holds unit {} where unit {} was next: it does not belong to this job",
                line.unit, unit.index
            )));
        }
        next += 1;
        played += games_of(unit);
        ctx.progress.fetch_add(games_of(unit), Ordering::Relaxed);
        // A shard plays all its units: where a sequential test stops depends on every
        // shard's units in plan order, which only the merge sees.
        if fold.fold(unit, line.record) == Flow::Stop && ctx.shard.is_none() {
            return Ok((Ended::Decided, played));
        }
    }
    let mut ended = Ended::Complete;
    let interrupt = ctx.interrupt;
    let mut folded_here = 0usize;
    runner::execute_until(
        parts,
        &mine[next..],
        ctx.exec,
        rows_for,
        &mut |result| {
            let games_csv_end = match games.as_deref_mut() {
                Some(g) => Some(g.append(&result.rows).map_err(sink_error)?),
                None => None,
            };
            let line = UnitLine {
                unit: result.unit.index,
                games_csv_end,
                record: fold.record(&result),
            };
            if let Some(c) = checkpoint.as_deref_mut() {
                c.append(&line).map_err(sink_error)?;
            }
            played += games_of(&result.unit);
            let flow = fold.fold(&result.unit, line.record);
            folded_here += 1;
            if let Some(f) = ctx.unit_done {
                f(folded_here);
            }
            if let Some(f) = ctx.interim {
                f(&|| fold.interim());
            }
            if flow == Flow::Stop && ctx.shard.is_none() {
                ended = Ended::Decided;
                return Ok(Flow::Stop);
            }
            if interrupt.is_some_and(|i| i.load(Ordering::Relaxed)) {
                ended = Ended::Interrupted;
                return Ok(Flow::Stop);
            }
            Ok(Flow::Continue)
        },
        ctx.progress,
        interrupt,
    )
    .map_err(|e| match e {
        runner::RunError::Interrupted => JobError::Interrupted,
        e => e.into(),
    })
    .or_else(|e| match e {
        JobError::Interrupted => {
            ended = Ended::Interrupted;
            Ok(())
        }
        e => Err(e),
    })?;
    Ok((ended, played))
}

fn sink_error(e: ExportError) -> runner::RunError {
    runner::RunError::Consumer(Box::new(e))
}
