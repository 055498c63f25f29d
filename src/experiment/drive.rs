//! Driving a job's plan: the part every job shares. It plays the units of the plan (or of one
//! shard of it) that are not done yet, folds each finished unit into the job's state in plan
//! order, appends the unit's record to the checkpoint, streams `games.csv`, and stops cleanly
//! on an interrupt. Resume, shards and merge all go through here, so an interrupted and resumed
//! job, or the merge of its shards, folds exactly the records an uninterrupted run folds.

use std::sync::atomic::Ordering;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::decision_log::LogStyle;
use crate::export::{
    Checkpoint, CheckpointError, ExportError, GamesCsv, LogFile, RowsAt, RowsReader, Stored,
};
use crate::runner::{self, Flow, KeptGames, Plan, RunOptions, RunSpec, Unit, UnitResult, Units};

use super::{Context, InvalidJob, JobDef, JobError};

/// A job's state, built from unit records in plan order.
pub(crate) trait Fold {
    /// What the checkpoint keeps of one unit: enough to fold it again without replaying it.
    type Record: Serialize + DeserializeOwned;

    /// The record of a finished unit.
    fn record(&self, unit: &UnitResult) -> Self::Record;

    /// Checks that a record read back (from a checkpoint) can be `unit`'s: its counts are of
    /// that unit's games. A record of another unit or job is refused with what is wrong.
    fn check(&self, unit: &Unit, record: &Self::Record) -> Result<(), String> {
        let _ = (unit, record);
        Ok(())
    }

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
    /// FNV-1a 64 of this unit's rows in `games.csv.partial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows_fnv: Option<u64>,
    /// The length of the decision log (`NAME.partial`) after this unit's games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_end: Option<u64>,
    /// FNV-1a 64 of this unit's bytes in the decision log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_fnv: Option<u64>,
    /// The unit's record.
    pub record: R,
}

impl<R> UnitLine<R> {
    /// Where the unit's rows end and their checksum, if it has rows.
    pub fn rows(&self) -> Option<RowsAt> {
        Some(RowsAt {
            end: self.games_csv_end?,
            fnv: self.rows_fnv?,
        })
    }

    /// Where the unit's decision-log bytes end and their checksum, if the job logs.
    pub fn log(&self) -> Option<RowsAt> {
        Some(RowsAt {
            end: self.log_end?,
            fnv: self.log_fnv?,
        })
    }
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

/// The units of the plan this process plays (its shard's, or all), in plan order.
pub(crate) fn share(plan: &Plan, shard: Option<Shard>) -> Units<'_> {
    match shard {
        Some(s) => plan.every(s.index, s.count),
        None => plan.every(0, 1),
    }
}

/// What folding a checkpoint's records found.
#[derive(Debug, Default)]
pub(crate) struct Kept {
    /// Records folded: the first units of this process's share of the plan.
    pub units: u64,
    /// Games in them.
    pub played: u64,
    /// A sequential test decided on one of them.
    pub decided: bool,
    /// Where the line of the last record folded ends in the checkpoint.
    pub checkpoint_end: Option<u64>,
    /// Where the rows of the last record folded end in `games.csv.partial`.
    pub rows_end: Option<u64>,
    /// Where the decision-log bytes of the last record folded end.
    pub log_end: Option<u64>,
    /// Records after those, not folded: their rows were not on the disk (they were written
    /// after the last sync, before a power cut); their units are played again.
    pub dropped: u64,
}

/// Folds the records a checkpoint kept, in order, each after checking it is the next unit of
/// the job and (with `rows`, the reader of `games.csv.partial` and the file it reads) that its
/// rows are there whole, and (with `log`) that its decision-log bytes are. A record whose
/// rows are missing or differ is the end of what was kept when it was written after the last
/// sync (a power cut lost them); before it, the file was edited or damaged: an error.
pub(crate) fn fold_kept<F: Fold>(
    parts: &[RunSpec],
    units: Units<'_>,
    ctx: &Context<'_>,
    fold: &mut F,
    records: impl Iterator<Item = Result<Stored<UnitLine<F::Record>>, CheckpointError>>,
    mut rows: Option<(&mut RowsReader, &std::path::Path)>,
    mut log: Option<(&mut RowsReader, &std::path::Path)>,
) -> Result<Kept, JobError> {
    let mut kept = Kept::default();
    let games_of = |u: &Unit| u.deals * parts[u.part].games_per_deal();
    let mut total = 0u64;
    for stored in records {
        let stored = stored?;
        total += 1;
        if kept.decided || total > kept.units + 1 {
            // After the decision, or after a record whose rows were lost.
            if !kept.decided {
                kept.dropped += 1;
            }
            continue;
        }
        let line = stored.record;
        let unit = units.get(kept.units).ok_or_else(|| {
            JobError::from(InvalidJob::ForeignCheckpoint {
                what: format!(
                    "holds unit {} beyond the {} units of this job",
                    line.unit,
                    units.len()
                ),
            })
        })?;
        if unit.index != line.unit {
            return Err(InvalidJob::ForeignCheckpoint {
                what: format!(
                    "holds unit {} where unit {} was next",
                    line.unit, unit.index
                ),
            }
            .into());
        }
        fold.check(&unit, &line.record).map_err(|what| {
            JobError::from(InvalidJob::ForeignCheckpoint {
                what: format!("record of unit {}: {what}", unit.index),
            })
        })?;
        if let Some((r, rows_file)) = rows.as_mut() {
            let first_line = r.line();
            let whole = match line.rows() {
                Some(at) => r.next_unit(at)?,
                None => false,
            };
            if !whole {
                if stored.durable {
                    return Err(JobError::Checkpoint(CheckpointError::RowsDamaged {
                        file: aeroplane_core::excerpt::path(rows_file),
                        what: format!(
                            "the rows of unit {} (from line {first_line}, up to byte {}) do not match the checkpoint's record of them",
                            unit.index,
                            line.games_csv_end.unwrap_or(0)
                        ),
                    }));
                }
                kept.dropped += 1;
                continue;
            }
        }
        if let Some((r, file)) = log.as_mut() {
            let from = r.pos();
            let whole = match line.log() {
                Some(at) => r.next_unit(at)?,
                None => false,
            };
            if !whole {
                if stored.durable {
                    return Err(JobError::Checkpoint(CheckpointError::RowsDamaged {
                        file: aeroplane_core::excerpt::path(file),
                        what: format!(
                            "the decision-log bytes of unit {} (bytes {from} to {}) do not match the checkpoint's record of them",
                            unit.index,
                            line.log_end.unwrap_or(0)
                        ),
                    }));
                }
                kept.dropped += 1;
                continue;
            }
            kept.log_end = line.log_end;
        }
        if rows.is_some() {
            kept.rows_end = line.games_csv_end;
        }
        kept.units += 1;
        kept.checkpoint_end = Some(stored.end);
        kept.played += games_of(&unit);
        ctx.progress.fetch_add(games_of(&unit), Ordering::Relaxed);
        // A shard plays all its units: where a sequential test stops depends on every
        // shard's units in plan order, which only the merge sees.
        if fold.fold(&unit, line.record) == Flow::Stop && ctx.shard.is_none() {
            kept.decided = true;
        }
    }
    Ok(kept)
}

/// Where a drive writes what it plays, and the games it starts from (none of them for a job
/// without a folder).
#[derive(Default)]
pub(crate) struct Sinks<'a> {
    /// `games.csv.partial`.
    pub games: Option<&'a mut GamesCsv>,
    /// The decision log, and how it is written.
    pub log: Option<(&'a mut LogFile, LogStyle)>,
    /// The checkpoint of folded units.
    pub checkpoint: Option<&'a mut Checkpoint>,
    /// Games finished at an earlier stop.
    pub kept: Option<&'a mut KeptGames>,
}

/// Plays and folds the units of `units` (in order) of `def`'s parts, appending each unit's
/// record to the checkpoint and its rows to `games.csv.partial`, synced together (rows first)
/// at most [`crate::export::SYNC_EVERY`] apart. With `kept`, games finished at an earlier stop
/// are used, not played again, and at a stop the games finished beyond the folded units are
/// added to it (see [`runner::RunOptions::kept`]). `def.rows_for(part)` says which parts'
/// games are kept as rows. `played` counts the games folded before (a resume) and goes up as
/// units are folded, so it is right even when an error ends the drive.
pub(crate) fn drive<F: Fold>(
    def: &JobDef<'_>,
    units: Units<'_>,
    ctx: &Context<'_>,
    fold: &mut F,
    sinks: Sinks<'_>,
    played: &mut u64,
) -> Result<Ended, JobError> {
    let parts = def.parts;
    let Sinks {
        mut games,
        mut log,
        mut checkpoint,
        kept,
    } = sinks;
    let mut ended = Ended::Complete;
    let interrupt = ctx.interrupt;
    let mut folded_here = 0usize;
    let games_of = |u: &Unit| u.deals * parts[u.part].games_per_deal();
    let style = log.as_ref().map(|(_, s)| *s);
    runner::execute(
        parts,
        units,
        RunOptions {
            exec: ctx.exec,
            rows_for: Some(def.rows_for),
            log: style,
            luck: def.luck,
            kept,
            progress: Some(ctx.progress),
            interrupt,
        },
        &mut |result| {
            let rows = match games.as_deref_mut() {
                Some(g) => Some(
                    g.append_of(&result.rows, def.file_bots(result.unit.part))
                        .map_err(sink_error)?,
                ),
                None => None,
            };
            let logged = match log.as_mut() {
                Some((l, _)) => Some(l.append(&result.log).map_err(sink_error)?),
                None => None,
            };
            let line = UnitLine {
                unit: result.unit.index,
                games_csv_end: rows.map(|r| r.end),
                rows_fnv: rows.map(|r| r.fnv),
                log_end: logged.map(|r| r.end),
                log_fnv: logged.map(|r| r.fnv),
                record: fold.record(&result),
            };
            if let Some(c) = checkpoint.as_deref_mut() {
                c.append(&line).map_err(sink_error)?;
                if c.sync_due() {
                    // The rows first: a record after a sync mark has its rows on the disk.
                    if let Some(g) = games.as_deref_mut() {
                        g.sync().map_err(sink_error)?;
                    }
                    if let Some((l, _)) = log.as_mut() {
                        l.sync().map_err(sink_error)?;
                    }
                    c.sync().map_err(sink_error)?;
                }
            }
            *played += games_of(&result.unit);
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
            // After a stop the executor delivers no more units and ends the drive with an
            // interrupt once the workers have handed back their finished games (a stop after
            // the last unit leaves nothing to stop: the job finishes, and a league's rating
            // fit, which checks the flag itself, stops there).
            Ok(Flow::Continue)
        },
    )
    .map_err(|e| match e {
        runner::RunError::Interrupted => JobError::Interrupted,
        runner::RunError::Consumer(e) => match e.downcast::<ExportError>() {
            Ok(e) => JobError::Export(*e),
            Err(e) => JobError::Run(runner::RunError::Consumer(e)),
        },
        e => e.into(),
    })
    .or_else(|e| match e {
        JobError::Interrupted => {
            ended = Ended::Interrupted;
            Ok(())
        }
        e => Err(e),
    })?;
    Ok(ended)
}

fn sink_error(e: ExportError) -> runner::RunError {
    runner::RunError::Consumer(Box::new(e))
}
