//! Merging the shards of one job into exactly what one uninterrupted run writes: the shards'
//! unit records are folded in plan order, and `games.csv` is put together from the shards' rows
//! in game order, each unit's rows checked against its record's checksum as they are copied.
//!
//! Every shard is read and checked before anything is written. While the merge runs, the
//! output's `run.json` names the shards (its `merge` section), so a merge stopped by a signal,
//! a crash or a full disk is finished by `aeroplane resume OUT`, which merges them again.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;

use crate::export::{
    CHECKPOINT_FILE, Checkpoint, CheckpointError, ExportError, GamesCsv, JobStatus, LogFile,
    MANIFEST_FILE, Manifest, MergeSection, OutputDir, RowsAt, fnv1a, fnv1a_from,
};
use crate::runner::{Flow, Plan};

use super::drive::{Fold, UnitLine};
use super::{InvalidJob, JobDef, JobEnd, JobError, Outcome, planned_games, write_status};

/// One shard's folder, read.
struct ShardDir {
    dir: PathBuf,
    manifest: Manifest,
}

/// A unit's record and where its rows are.
struct Piece<R> {
    line: UnitLine<R>,
    shard: usize,
    rows: Option<(u64, RowsAt)>,
    /// Where its decision-log bytes are in the shard's log.
    log: Option<(u64, RowsAt)>,
}

/// The identity of a shard's job: without its shard and its own planned games.
fn job_identity(m: &Manifest) -> serde_json::Value {
    let mut v = m.identity();
    let map = v.as_object_mut().expect("an object");
    map.remove("shard");
    map.remove("games_planned");
    map.remove("report");
    v
}

/// Just the unit of a checkpoint record (to count a shard's kept units).
#[derive(Deserialize)]
struct UnitOnly {
    unit: usize,
}

/// What stops a merge, and what it tells as it goes.
#[derive(Clone, Copy)]
pub struct Stop<'a> {
    /// Set by a signal: the merge stops (status interrupted).
    pub interrupt: Option<&'a AtomicBool>,
    /// Called after each unit merged, with how many are.
    pub unit_done: Option<&'a (dyn Fn(usize) + Sync)>,
}

/// The shards a merge reads: their folders (any order), the plan's unit size they were run
/// with, and whether an incomplete set may be merged.
#[derive(Clone, Copy)]
pub struct Shards<'a> {
    /// The shards' folders.
    pub dirs: &'a [PathBuf],
    /// Deals per unit.
    pub unit_deals: u64,
    /// Merge an incomplete set (status partial) instead of refusing it.
    pub allow_partial: bool,
}

/// Merges the shards into `out`. Refuses shards of different jobs, a shard given twice,
/// unfinished shards and (unless `allow_partial`) an incomplete set, naming the folder; stops
/// (status interrupted) soon after `interrupt` is set.
pub(crate) fn merge<F: Fold, R>(
    out: &mut OutputDir,
    shards: Shards<'_>,
    def: JobDef<'_>,
    stop: Stop<'_>,
    fold: &mut F,
    report: impl FnOnce(&mut F, Option<&OutputDir>, &mut Manifest) -> Result<R, JobError>,
) -> Result<Outcome<R>, JobError> {
    let Shards {
        dirs,
        unit_deals,
        allow_partial,
    } = shards;
    let stopped = || stop.interrupt.is_some_and(|i| i.load(Ordering::Relaxed));
    let shards = read_shards(dirs)?;
    let count = shards[0].manifest.shard.expect("checked").count;
    let plan = Plan::chunked(def.parts, unit_deals)?;
    let mut manifest = def.manifest.clone();
    manifest.unit_deals = unit_deals;
    manifest.games_planned = planned_games(&plan, None);
    manifest.report = shards[0].manifest.report;
    let want = job_identity(&manifest);
    let mut by_index = std::collections::BTreeMap::new();
    let mut notes = Vec::new();
    for (k, s) in shards.iter().enumerate() {
        if !s.manifest.luck_checksum.is_empty()
            && !manifest.luck_checksum.is_empty()
            && s.manifest.luck_checksum != manifest.luck_checksum
        {
            // The job's nets are the first shard's, loaded and checked against its checksums.
            let nets = |m: &Manifest| {
                m.luck
                    .iter()
                    .zip(&m.luck_checksum)
                    .map(|(f, c)| format!("the net {f} of checksum {c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return Err(InvalidJob::ShardOfAnotherLuckNet {
                dir: aeroplane_core::excerpt::path(&s.dir),
                net: nets(&s.manifest),
                first: aeroplane_core::excerpt::path(&shards[0].dir),
                first_net: nets(&manifest),
            }
            .into());
        }
        let differ = Manifest::differences(&job_identity(&s.manifest), &want);
        if !differ.is_empty() {
            return Err(InvalidJob::ShardOfAnotherJob {
                dir: aeroplane_core::excerpt::path(&s.dir),
                first: aeroplane_core::excerpt::path(&shards[0].dir),
                differ: differ.join(", "),
            }
            .into());
        }
        let shard = s.manifest.shard.expect("checked");
        if shard.count != count {
            return Err(InvalidJob::ShardCount {
                dir: aeroplane_core::excerpt::path(&s.dir),
                index: shard.index,
                count: shard.count,
                first: aeroplane_core::excerpt::path(&shards[0].dir),
                first_count: count,
            }
            .into());
        }
        if let Some(other) = by_index.insert(shard.index, k) {
            return Err(InvalidJob::ShardTwice {
                a: aeroplane_core::excerpt::path(&shards[other].dir),
                b: aeroplane_core::excerpt::path(&s.dir),
                index: shard.index,
                count,
            }
            .into());
        }
        if s.manifest.status != Some(JobStatus::Complete) {
            let kept = kept_games(s, &plan, &def)?;
            let status = s
                .manifest
                .status
                .map(|st| format!("{st:?}").to_lowercase())
                .unwrap_or_else(|| "unknown".into());
            let msg = format!(
                "{} holds shard {}/{count} unfinished (status {status}; its checkpoint keeps {kept} of its {} games): finish it with `aeroplane resume {}`",
                aeroplane_core::excerpt::path(&s.dir),
                shard.index,
                s.manifest.games_planned,
                aeroplane_core::excerpt::path(&s.dir)
            );
            if !allow_partial {
                return Err(InvalidJob::ShardUnfinished(msg).into());
            }
            notes.push(msg);
        }
    }
    let missing: Vec<String> = (0..count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        let msg = format!(
            "the set is incomplete: shard(s) {} of {count} missing",
            missing.join(", ")
        );
        if !allow_partial {
            return Err(InvalidJob::ShardsMissing(msg).into());
        }
        notes.push(msg);
    }

    // Every shard's records, checked (checksums bound to the shard's job, units of its share
    // in order, rows in order) before anything is written.
    let mut pieces: Vec<Piece<F::Record>> = Vec::new();
    for (k, s) in shards.iter().enumerate() {
        let shard = s.manifest.shard.expect("checked");
        let cp = s.dir.join(CHECKPOINT_FILE);
        let scan = Checkpoint::scan(&cp)?;
        let differ = Manifest::differences(&scan.job, &s.manifest.identity());
        if !differ.is_empty() {
            return Err(InvalidJob::CheckpointOfAnotherJob {
                dir: aeroplane_core::excerpt::path(&s.dir),
                differ: differ.join(", "),
            }
            .into());
        }
        let mine = plan.every(shard.index, shard.count);
        let mut start = GamesCsv::header_len(def.recover);
        let mut log_start = def.log.as_ref().map_or(0, |l| l.header.len() as u64);
        for (i, stored) in Checkpoint::records::<UnitLine<F::Record>>(&cp, &scan)?.enumerate() {
            let line = stored?.record;
            let damaged = |what: String| {
                JobError::Checkpoint(CheckpointError::Damaged {
                    file: aeroplane_core::excerpt::path(&cp),
                    line: i as u64 + 2,
                    what,
                })
            };
            let unit = mine
                .get(i as u64)
                .filter(|u| u.index == line.unit)
                .ok_or_else(|| {
                    damaged(format!(
                        "record {} is of unit {}, not of the next unit of shard {}/{}",
                        i + 1,
                        line.unit,
                        shard.index,
                        shard.count
                    ))
                })?;
            fold.check(&unit, &line.record)
                .map_err(|what| damaged(format!("the record of unit {}: {what}", unit.index)))?;
            let rows = match (def.per_game, line.rows()) {
                (false, _) => None,
                (true, Some(at)) if at.end >= start => Some((start, at)),
                (true, _) => {
                    return Err(damaged(format!(
                        "the record of unit {} does not say where its rows are",
                        unit.index
                    )));
                }
            };
            if let Some((_, at)) = rows {
                start = at.end;
            }
            let log = match (&def.log, line.log()) {
                (None, _) => None,
                (Some(_), Some(at)) if at.end >= log_start => Some((log_start, at)),
                (Some(_), _) => {
                    return Err(damaged(format!(
                        "the record of unit {} does not say where its decisions are in the log",
                        unit.index
                    )));
                }
            };
            if let Some((_, at)) = log {
                log_start = at.end;
            }
            pieces.push(Piece {
                line,
                shard: k,
                rows,
                log,
            });
        }
    }
    pieces.sort_by_key(|p| p.line.unit);
    if !allow_partial {
        if let Some((i, _)) = pieces.iter().enumerate().find(|(i, p)| p.line.unit != *i) {
            return Err(InvalidJob::UnitsMissing(format!(
                "the shards hold no record of unit {i}: a checkpoint is missing units"
            ))
            .into());
        }
        if (pieces.len() as u64) < plan.len() {
            return Err(InvalidJob::UnitsMissing(format!(
                "the shards hold {} of the plan's {} units",
                pieces.len(),
                plan.len()
            ))
            .into());
        }
    }

    // Writing starts here.
    if !notes.is_empty() {
        out.mark_partial();
    }
    let out = &*out;
    manifest.status = Some(JobStatus::Running);
    manifest.merge = Some(MergeSection {
        shards: shards
            .iter()
            .map(|s| {
                std::path::absolute(&s.dir)
                    .unwrap_or_else(|_| s.dir.clone())
                    .display()
                    .to_string()
            })
            .collect(),
        allow_partial,
    });
    write_status(out, &manifest)?;
    let mut played = 0u64;
    let result = (|| -> Result<Option<R>, JobError> {
        // What an earlier attempt of this merge left.
        let games_csv = out.table_name("games.csv");
        out.remove(&games_csv)?;
        let partial = out.file(GamesCsv::PARTIAL);
        // Only the header: the shards' rows, names included, are copied as they are.
        let mut games = match (def.per_game, def.recover) {
            (true, false) => Some(GamesCsv::create(&partial, &def.bot_names())?),
            (true, true) => Some(GamesCsv::create_with_forfeits(&partial, &def.bot_names())?),
            (false, _) => None,
        };
        let mut copy = match games {
            Some(_) => Some(RowsCopy::new(out, GamesCsv::PARTIAL)?),
            None => None,
        };
        // The decision log: its header, then every unit's bytes in plan order.
        let log_partial = def.log.as_ref().map(|l| l.partial());
        let log_name = def.log.as_ref().map(|l| out.table_name(&l.name));
        if let Some(n) = &log_name {
            out.remove(n)?;
        }
        let mut log = match (&def.log, &log_partial) {
            (Some(l), Some(p)) => Some(LogFile::create(&out.file(p), &l.header)?),
            _ => None,
        };
        let mut log_copy = match &log_partial {
            Some(p) => Some(RowsCopy::new(out, p)?),
            None => None,
        };
        for (merged, piece) in pieces.into_iter().enumerate() {
            if let Some(f) = stop.unit_done
                && merged > 0
            {
                f(merged);
            }
            if stopped() {
                return Ok(None);
            }
            let unit = plan.unit(piece.line.unit as u64).expect("checked");
            if let (Some(c), Some((from, at))) = (copy.as_mut(), piece.rows) {
                c.copy(&shards[piece.shard].dir, piece.shard, from, at, unit.index)?;
            }
            if let (Some(c), Some((from, at))) = (log_copy.as_mut(), piece.log) {
                c.copy(&shards[piece.shard].dir, piece.shard, from, at, unit.index)?;
            }
            played += unit.deals * def.parts[unit.part].games_per_deal();
            if fold.fold(&unit, piece.line.record) == Flow::Stop {
                break;
            }
        }
        drop(copy);
        drop(log_copy);
        let r = report(fold, Some(out), &mut manifest)?;
        if let Some(g) = games.take() {
            g.finish()?;
            out.finish_stream(GamesCsv::PARTIAL, &games_csv)?;
        }
        if let (Some(l), Some(d), Some(n)) = (log.take(), &def.log, &log_name) {
            l.finish()?;
            out.finish_stream(&d.partial(), n)?;
        }
        out.sync()?;
        Ok(Some(r))
    })();
    let r = match result {
        Ok(Some(r)) => r,
        Ok(None) | Err(JobError::Interrupted) => {
            manifest.finish(JobStatus::Interrupted, played, None);
            write_status(out, &manifest)?;
            return Ok(Outcome {
                ended: JobEnd::Interrupted,
                played,
                planned: manifest.games_planned,
                notes,
            });
        }
        Err(e) => {
            manifest.finish(
                JobStatus::Failed,
                played,
                Some(aeroplane_core::excerpt::chain(&e)),
            );
            let _ = write_status(out, &manifest);
            return Err(e);
        }
    };
    let status = if notes.is_empty() {
        JobStatus::Complete
    } else {
        JobStatus::Partial
    };
    manifest.merge = None;
    manifest.finish(status, played, None);
    write_status(out, &manifest)?;
    if manifest.report {
        super::write_report_page(out).map_err(|e| JobError::Tidy {
            dir: aeroplane_core::excerpt::path(out.path()),
            source: Box::new(e.into()),
        })?;
    }
    Ok(Outcome {
        ended: JobEnd::Finished(r),
        played,
        planned: manifest.games_planned,
        notes,
    })
}

/// Games of the units a shard's checkpoint keeps (for the message about an unfinished shard).
fn kept_games(s: &ShardDir, plan: &Plan, def: &JobDef<'_>) -> Result<u64, JobError> {
    let cp = s.dir.join(CHECKPOINT_FILE);
    if std::fs::symlink_metadata(&cp).is_err() {
        return Ok(0);
    }
    let scan = Checkpoint::scan(&cp)?;
    let mut games = 0u64;
    for stored in Checkpoint::records::<UnitOnly>(&cp, &scan)? {
        if let Some(u) = plan.unit(stored?.record.unit as u64) {
            games += u.deals * def.parts[u.part].games_per_deal();
        }
    }
    Ok(games)
}

/// Copies units' rows from the shards' `games.csv.partial` into the output's, one shard's file
/// open at a time (a merge of thousands of shards must not hold thousands of files open; the
/// usual limit is 1,024).
struct RowsCopy<'a> {
    out: &'a OutputDir,
    /// The file copied, in the shards and in the output.
    name: &'a str,
    to: std::fs::File,
    open: Option<(usize, std::fs::File)>,
    buf: Vec<u8>,
}

impl<'a> RowsCopy<'a> {
    fn new(out: &'a OutputDir, name: &'a str) -> Result<RowsCopy<'a>, ExportError> {
        let to = out.file(name);
        Ok(RowsCopy {
            out,
            name,
            to: crate::files::no_follow::append(&to).map_err(|e| ExportError::new(&to, e))?,
            open: None,
            buf: vec![0; 1 << 16],
        })
    }

    /// Appends bytes `from..at.end` of shard `k`'s rows, checking them against `at.fnv`.
    fn copy(
        &mut self,
        dir: &Path,
        k: usize,
        from: u64,
        at: RowsAt,
        unit: usize,
    ) -> Result<(), JobError> {
        let path = dir.join(self.name);
        if self.open.as_ref().is_none_or(|(open, _)| *open != k) {
            let f =
                crate::files::no_follow::read(&path).map_err(|e| ExportError::read(&path, e))?;
            self.open = Some((k, f));
        }
        let (_, file) = self.open.as_mut().expect("opened above");
        file.seek(SeekFrom::Start(from))
            .map_err(|e| ExportError::read(&path, e))?;
        let to = self.out.file(self.name);
        let mut left = at.end - from;
        let mut fnv = fnv1a(b"");
        while left > 0 {
            let want = self.buf.len().min(left as usize);
            let n = file
                .read(&mut self.buf[..want])
                .map_err(|e| ExportError::read(&path, e))?;
            if n == 0 {
                return Err(rows_damaged(
                    &path,
                    unit,
                    from,
                    at,
                    "the file ends before them",
                ));
            }
            fnv = fnv1a_from(fnv, &self.buf[..n]);
            crate::files::fsops::write_all(&mut self.to, &to, &self.buf[..n])
                .map_err(|e| ExportError::new(&to, e))?;
            left -= n as u64;
        }
        if fnv != at.fnv {
            return Err(rows_damaged(
                &path,
                unit,
                from,
                at,
                "they differ from what its checkpoint recorded (the file was edited or damaged)",
            ));
        }
        Ok(())
    }
}

fn rows_damaged(path: &Path, unit: usize, from: u64, at: RowsAt, what: &str) -> JobError {
    JobError::Checkpoint(CheckpointError::RowsDamaged {
        file: aeroplane_core::excerpt::path(path),
        what: format!(
            "the rows of unit {unit} (bytes {from} to {}): {what}",
            at.end
        ),
    })
}

/// Reads every shard's manifest; each must be a shard.
fn read_shards(dirs: &[PathBuf]) -> Result<Vec<ShardDir>, JobError> {
    if dirs.is_empty() {
        return Err(InvalidJob::NoShards.into());
    }
    dirs.iter()
        .map(|d| {
            let manifest = Manifest::load(&d.join(MANIFEST_FILE))?;
            if manifest.shard.is_none() {
                return Err(InvalidJob::NotAShard(aeroplane_core::excerpt::path(d)).into());
            }
            Ok(ShardDir {
                dir: d.clone(),
                manifest,
            })
        })
        .collect()
}
