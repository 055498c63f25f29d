//! A grade's output folder through the states every job's folder goes through (ARCHITECTURE.md,
//! "The output folder's states"): `grade.json` is the grade's status record (as `run.json` is a
//! run's), `grade.checkpoint` its finished units (checkpoint format 2, bound to the job).
//!
//! - start: `grade.json` `running` (with the whole job, written through the folder's spares),
//!   then `grade.checkpoint` with its header;
//! - each unit: its record appended; at most every `SYNC_EVERY` a sync mark and a sync; every
//!   `COMPACT_BYTES` (and twice its size after the last time) the checkpoint is written again whole (`grade.checkpoint.new`,
//!   synced, renamed over it): the header, the sums of the units folded in plan order, and the
//!   records of the units finished after them, so its size never grows with the deals;
//! - a stop: the records synced; at a signal, the deals finished in units not finished go to
//!   `grade.checkpoint.deals` (written whole, its lines bound to the checkpoint like the
//!   records: one record per unit, the unit's first deals); `grade.json` `interrupted` (or
//!   `failed` with the error);
//! - the finish: `grade.csv`, `blunders.csv`, a folder sync, then the commit (`grade.json` with
//!   the results, `"status": "complete"`), `report.html` if asked, the kept deals and then the
//!   checkpoint removed.
//!
//! A resume reads the job from `grade.json` (or, after the commit, from the checkpoint's
//! header), keeps every record that checks, goes on with the kept deals of the units not
//! finished (a file that cannot be used is named in a note, and its deals are played again),
//! and plays the rest: the files end byte for byte those of an uninterrupted grade.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::export::{
    CannotResume, Checkpoint, CheckpointError, JobStatus, OutputDir, kept_unusable_note,
    kept_used_note, read_kept_lines, write_kept_lines,
};
use aeroplane_core::excerpt::chain;

use super::{
    Fold, GRADE_CHECKPOINT, GRADE_FILE, GRADE_KEPT_DEALS, GradeError, GradeRecord, GradeReport,
    UnitResult,
};

/// The compacted checkpoint while it is written, renamed over `grade.checkpoint` when whole.
const NEW_CHECKPOINT: &str = "grade.checkpoint.new";

/// A line of `grade.checkpoint` after its header: the sums of the units folded (only as the
/// first record, after a compaction), or a finished unit.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Record {
    Folded(Fold),
    Unit(Box<UnitResult>),
}

/// The first line of `grade.checkpoint.deals` (its format).
const KEPT_DEALS_HEADER: &str = "{\"kept_deals\":1}";

/// The deals kept at a stop from units not finished, by unit: each record holds its unit's
/// first deals, in order.
pub(super) type Partials = BTreeMap<usize, UnitResult>;

/// `grade.json` while the grade is not complete: where it stands, and the whole job (so that
/// `aeroplane resume` can go on with it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GradeStatus {
    /// Always `aeroplane`.
    pub tool: String,
    /// The version that wrote it.
    pub version: String,
    /// Always `grade`.
    pub command: String,
    /// `running`, `interrupted` or `failed`.
    pub status: JobStatus,
    /// Why it failed.
    pub error: Option<String>,
    /// Games whose records the checkpoint holds.
    pub games_played: u64,
    /// The job.
    pub job: GradeRecord,
}

impl GradeStatus {
    pub(super) fn new(
        job: &GradeRecord,
        status: JobStatus,
        games_played: u64,
        error: Option<String>,
    ) -> Self {
        GradeStatus {
            tool: "aeroplane".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: "grade".into(),
            status,
            error,
            games_played,
            job: job.clone(),
        }
    }
}

/// What a grade's folder says about it, read by `aeroplane resume`.
#[derive(Clone, Debug, PartialEq)]
pub enum FolderState {
    /// Not complete: the job to go on with.
    Unfinished(Box<GradeRecord>),
    /// Committed, its checkpoint not removed yet: finished again (identical files).
    Committed(Box<GradeRecord>),
    /// Complete: nothing to resume.
    Complete,
}

/// Reads the state of the grade in `dir`.
pub fn folder_state(dir: &Path) -> Result<FolderState, GradeError> {
    let file = dir.join(GRADE_FILE);
    let bad = |why: String| {
        GradeError::from(CannotResume {
            dir: aeroplane_core::excerpt::path(dir),
            why,
        })
    };
    let text = crate::files::read_text(&file).map_err(|e| {
        bad(format!(
            "cannot read {}: {e}",
            aeroplane_core::excerpt::path(&file)
        ))
    })?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "{} is not JSON: {}",
            aeroplane_core::excerpt::path(&file),
            aeroplane_core::excerpt::clip_message(e)
        ))
    })?;
    let complete = value
        .get("status")
        .is_none_or(|s| s.as_str() == Some("complete"));
    if !complete {
        let status: GradeStatus = serde_json::from_value(value).map_err(|e| {
            bad(format!(
                "{} is not the status of a grade: {}",
                aeroplane_core::excerpt::path(&file),
                aeroplane_core::excerpt::clip_message(e)
            ))
        })?;
        return Ok(FolderState::Unfinished(Box::new(status.job)));
    }
    let cp = dir.join(GRADE_CHECKPOINT);
    if std::fs::symlink_metadata(&cp).is_err() {
        return Ok(FolderState::Complete);
    }
    let scan = Checkpoint::scan(&cp)?;
    let job: GradeRecord = serde_json::from_value(scan.job).map_err(|e| {
        bad(format!(
            "the header of {} is not a grade's: {}",
            aeroplane_core::excerpt::path(&cp),
            aeroplane_core::excerpt::clip_message(e)
        ))
    })?;
    Ok(FolderState::Committed(Box::new(job)))
}

/// A grade's folder, open while its units are played.
pub(super) struct Folder<'a> {
    dir: &'a OutputDir,
    job: &'a GradeRecord,
    checkpoint: Mutex<Checkpoint>,
}

impl<'a> Folder<'a> {
    /// A fresh start: `grade.json` `running`, then the checkpoint with its header.
    pub fn start(dir: &'a OutputDir, job: &'a GradeRecord) -> Result<Folder<'a>, GradeError> {
        write_status(dir, &GradeStatus::new(job, JobStatus::Running, 0, None))?;
        // Deals kept by an earlier start of this job, if any, are not this checkpoint's.
        dir.remove(GRADE_KEPT_DEALS)
            .and_then(|()| dir.remove(NEW_CHECKPOINT))
            .map_err(|e| failed(dir, job, 0, e.into()))?;
        let checkpoint = Checkpoint::create(&dir.file(GRADE_CHECKPOINT), job)
            .map_err(|e| failed(dir, job, 0, e.into()))?;
        Ok(Folder {
            dir,
            job,
            checkpoint: Mutex::new(checkpoint),
        })
    }

    /// A resume: the records kept (each checked against the plan, which gives each unit's bot
    /// and number of deals), the deals kept from units not finished, and the folder open to go
    /// on. A missing checkpoint (a stop before it was made) starts again; a checkpoint of
    /// another job is refused.
    pub fn resume(
        dir: &'a OutputDir,
        job: &'a GradeRecord,
        plan: &dyn Fn(usize) -> Option<(usize, u64)>,
        notes: &mut Vec<String>,
    ) -> Result<(Folder<'a>, Option<Fold>, Vec<UnitResult>, Partials), GradeError> {
        let cp = dir.file(GRADE_CHECKPOINT);
        // A compacted checkpoint not renamed into place: the one in place is whole.
        dir.remove(NEW_CHECKPOINT)?;
        if std::fs::symlink_metadata(&cp).is_err() {
            notes.push(
                "the folder holds no grade.checkpoint (the grade stopped before keeping its first unit): it starts again from the first unit".into(),
            );
            return Ok((Folder::start(dir, job)?, None, Vec::new(), Partials::new()));
        }
        let scan = Checkpoint::scan(&cp)?;
        let want = serde_json::to_value(job).expect("records serialize");
        let differ = crate::export::Manifest::differences(&scan.job, &want);
        if !differ.is_empty() {
            return Err(CannotResume {
                dir: aeroplane_core::excerpt::path(dir.path()),
                why: format!(
                    "{} belongs to another grade: grade.json differs from it in {} (or the table changed); start again, replacing the folder (the setting `force`)",
                    aeroplane_core::excerpt::path(&cp),
                    differ.join(", ")
                ),
            }.into());
        }
        if scan.dropped_partial {
            notes.push(format!(
                "the checkpoint's last record was cut short (the grade stopped while writing it): its unit is played again ({} units kept)",
                scan.records
            ));
        }
        let mut kept = Vec::new();
        let mut seen = BTreeSet::new();
        let mut fold: Option<Fold> = None;
        for (line, stored) in Checkpoint::records::<Record>(&cp, &scan)?.enumerate() {
            let damaged = |what: String| {
                GradeError::Checkpoint(CheckpointError::Damaged {
                    file: aeroplane_core::excerpt::path(&cp),
                    line: line as u64 + 2,
                    what,
                })
            };
            let r = match stored?.record {
                Record::Folded(f) => {
                    let fits = line == 0
                        && f.bots.len() == job.bots.len()
                        && (f.folded == 0 || plan(f.folded - 1).is_some());
                    if !fits {
                        return Err(damaged(format!(
                            "the sums of {} units of {} bots are not those of this grade's plan, or not the first record",
                            f.folded,
                            f.bots.len()
                        )));
                    }
                    fold = Some(f);
                    continue;
                }
                Record::Unit(r) => *r,
            };
            let folded = fold.as_ref().map_or(0, |f| f.folded);
            let fits = plan(r.unit).map(|(bot, _)| bot) == Some(r.bot)
                && r.unit >= folded
                && seen.insert(r.unit);
            if !fits {
                return Err(damaged(format!(
                    "unit {} of bot {} is not a unit of this grade's plan, or is there twice",
                    r.unit, r.bot
                )));
            }
            kept.push(r);
        }
        let folded = fold.as_ref().map_or(0, |f| f.folded);
        let done = |unit: usize| unit < folded || seen.contains(&unit);
        let partials = kept_deals(dir, scan.key(), plan, &done, notes);
        // Checked: from here on, the folder is changed.
        let played =
            fold.as_ref().map_or(0, |f| f.games) + games(&kept) + games_in(partials.values());
        let checkpoint =
            Checkpoint::open(&cp, &scan, None).map_err(|e| failed(dir, job, played, e.into()))?;
        write_status(
            dir,
            &GradeStatus::new(job, JobStatus::Running, played, None),
        )
        .map_err(|e| failed(dir, job, played, e))?;
        Ok((
            Folder {
                dir,
                job,
                checkpoint: Mutex::new(checkpoint),
            },
            fold,
            kept,
            partials,
        ))
    }

    /// Keeps the deals finished in units not finished beside the checkpoint (replacing what
    /// was kept before; none removes the file); how many games they hold.
    pub fn keep_deals(&self, partials: &Partials) -> Result<u64, GradeError> {
        let key = self.checkpoint.lock().expect("not poisoned").key();
        let lines = partials
            .values()
            .map(|r| serde_json::to_string(r).expect("records serialize"));
        write_kept_lines(
            &self.dir.file(GRADE_KEPT_DEALS),
            key,
            KEPT_DEALS_HEADER,
            lines,
        )?;
        Ok(games_in(partials.values()))
    }

    /// Keeps a finished unit (and syncs the records when a sync is due).
    pub fn keep(&self, r: &UnitResult) -> Result<(), GradeError> {
        let mut cp = self.checkpoint.lock().expect("not poisoned");
        cp.append(r)?;
        if cp.sync_due() {
            cp.sync()?;
        }
        Ok(())
    }

    /// Writes the checkpoint again whole: its header, `fold` (the units folded) and the
    /// records of `pending` (units finished after them), under `grade.checkpoint.new`, synced
    /// and renamed over `grade.checkpoint`; the grade appends to it from then on.
    pub fn compact<'r>(
        &self,
        fold: &Fold,
        pending: impl Iterator<Item = &'r UnitResult>,
    ) -> Result<(), GradeError> {
        let mut cp = self.checkpoint.lock().expect("not poisoned");
        let path = self.dir.file(NEW_CHECKPOINT);
        let mut new = Checkpoint::create(&path, self.job)?;
        new.append(&Record::Folded(fold.clone()))?;
        for r in pending {
            new.append(r)?;
        }
        new.sync()?;
        // The rename need not be synced: should it be lost, the checkpoint before it is whole
        // and its records after it are played again.
        new.rename(&self.dir.file(GRADE_CHECKPOINT))?;
        *cp = new;
        Ok(())
    }

    /// The checkpoint's length in bytes.
    pub fn size(&self) -> Result<u64, GradeError> {
        Ok(self.checkpoint.lock().expect("not poisoned").size()?)
    }

    /// Syncs every record written.
    pub fn sync(&self) -> Result<(), GradeError> {
        self.checkpoint.lock().expect("not poisoned").sync()?;
        Ok(())
    }

    /// Records a stop: the records synced (best effort after an error), then `grade.json`
    /// `interrupted` or `failed`.
    pub fn stop(&self, played: u64, error: Option<&GradeError>) -> Result<(), GradeError> {
        let synced = self.sync();
        let (status, text) = match error {
            None => (JobStatus::Interrupted, None),
            Some(e) => (JobStatus::Failed, Some(chain(e))),
        };
        write_status(self.dir, &GradeStatus::new(self.job, status, played, text))?;
        synced
    }

    /// The finish: the tables, a folder sync, the commit (`grade.json` complete), the report
    /// page if the job asks for one, the checkpoint removed.
    pub fn commit(self, report: &GradeReport, played: u64) -> Result<(), GradeError> {
        let before = || -> Result<(), GradeError> {
            self.sync()?;
            for table in report.tables() {
                self.dir.write_table(&table)?;
            }
            self.dir.sync()?;
            Ok(())
        };
        before().map_err(|e| failed(self.dir, self.job, played, e))?;
        drop(self.checkpoint);
        let mut text = serde_json::to_string_pretty(report).expect("reports serialize");
        text.push('\n');
        self.dir.write_manifest(GRADE_FILE, text.as_bytes())?;
        // Complete from here on: a failure leaves a committed grade that `aeroplane resume`
        // finishes again.
        if self.job.report {
            crate::experiment::write_report_page(self.dir)?;
        }
        self.dir.remove(GRADE_KEPT_DEALS)?;
        self.dir.remove(GRADE_CHECKPOINT)?;
        self.dir.sync()?;
        Ok(())
    }
}

/// Records that the grade failed with `e` in `grade.json` (best effort: the error matters more
/// than a second failure to write), and returns `e`.
fn failed(dir: &OutputDir, job: &GradeRecord, played: u64, e: GradeError) -> GradeError {
    let status = GradeStatus::new(job, JobStatus::Failed, played, Some(chain(&e)));
    let _ = write_status(dir, &status);
    e
}

/// The deals kept beside the checkpoint whose header checksum is `key`, of the units not in
/// `done`, each checked against the `plan`; none, with a note, when the file cannot be used
/// (its deals are played again).
fn kept_deals(
    dir: &OutputDir,
    key: u64,
    plan: &dyn Fn(usize) -> Option<(usize, u64)>,
    done: &dyn Fn(usize) -> bool,
    notes: &mut Vec<String>,
) -> Partials {
    let path = dir.file(GRADE_KEPT_DEALS);
    let mut partials = Partials::new();
    let read = read_kept_lines(&path, key, KEPT_DEALS_HEADER, |json| {
        let r: UnitResult = serde_json::from_str(json).map_err(|e| e.to_string())?;
        let fits = plan(r.unit).is_some_and(|(bot, deals)| {
            bot == r.bot && !r.deals.is_empty() && (r.deals.len() as u64) < deals
        }) && r.tally.deals == r.deals.len() as u64
            && !partials.contains_key(&r.unit);
        if !fits {
            return Err(format!(
                "unit {} of bot {} with {} deals is not part of a unit of this grade's plan, or is there twice",
                r.unit,
                r.bot,
                r.deals.len()
            ));
        }
        if !done(r.unit) {
            partials.insert(r.unit, r);
        }
        Ok(())
    });
    match read {
        Ok(_) if partials.is_empty() => {}
        Ok(_) => notes.push(kept_used_note(games_in(partials.values()))),
        Err(why) => {
            partials.clear();
            notes.push(kept_unusable_note(&path, &why));
        }
    }
    partials
}

/// Games in a set of records.
pub(super) fn games(records: &[UnitResult]) -> u64 {
    games_in(records.iter())
}

/// Games in the records of `records`.
pub(super) fn games_in<'r>(records: impl Iterator<Item = &'r UnitResult>) -> u64 {
    records.map(|r| 2 * r.deals.len() as u64).sum()
}

pub(super) fn write_status(dir: &OutputDir, status: &GradeStatus) -> Result<(), GradeError> {
    let mut text = serde_json::to_string_pretty(status).expect("statuses serialize");
    text.push('\n');
    dir.write_manifest(GRADE_FILE, text.as_bytes())?;
    Ok(())
}
