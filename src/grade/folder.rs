//! A grade's output folder through the states every job's folder goes through (ARCHITECTURE.md,
//! "The output folder's states"): `grade.json` is the grade's status record (as `run.json` is a
//! run's), `grade.checkpoint` its finished units (checkpoint format 2, bound to the job).
//!
//! - start: `grade.json` `running` (with the whole job, written through the folder's spares),
//!   then `grade.checkpoint` with its header;
//! - each unit: its record appended; at most every `SYNC_EVERY` a sync mark and a sync;
//! - a stop: the records synced, `grade.json` `interrupted` (or `failed` with the error);
//! - the finish: `grade.csv`, `blunders.csv`, a folder sync, then the commit (`grade.json` with
//!   the results, `"status": "complete"`), `report.html` if asked, the checkpoint removed.
//!
//! A resume reads the job from `grade.json` (or, after the commit, from the checkpoint's
//! header), keeps every record that checks, and plays the rest: the files end byte for byte
//! those of an uninterrupted grade.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::experiment::chain;
use crate::export::{Checkpoint, CheckpointError, JobStatus, OutputDir};

use super::{GRADE_CHECKPOINT, GRADE_FILE, GradeError, GradeRecord, GradeReport, UnitResult};

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
    fn new(job: &GradeRecord, status: JobStatus, games_played: u64, error: Option<String>) -> Self {
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
    let bad = |why: String| GradeError::Resume {
        dir: crate::excerpt::path(dir),
        why,
    };
    let text = crate::config::read_text(&file)
        .map_err(|e| bad(format!("cannot read {}: {e}", crate::excerpt::path(&file))))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        bad(format!(
            "{} is not JSON: {}",
            crate::excerpt::path(&file),
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
                crate::excerpt::path(&file),
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
            crate::excerpt::path(&cp),
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
        let checkpoint = Checkpoint::create(&dir.file(GRADE_CHECKPOINT), job)
            .map_err(|e| failed(dir, job, 0, e.into()))?;
        Ok(Folder {
            dir,
            job,
            checkpoint: Mutex::new(checkpoint),
        })
    }

    /// A resume: the records kept (each checked against the plan of `units` units, whose
    /// `bot_of` each belongs to), and the folder open to go on. A missing checkpoint (a stop
    /// before it was made) starts again; a checkpoint of another job is refused.
    pub fn resume(
        dir: &'a OutputDir,
        job: &'a GradeRecord,
        bot_of: &dyn Fn(usize) -> Option<usize>,
        notes: &mut Vec<String>,
    ) -> Result<(Folder<'a>, Vec<UnitResult>), GradeError> {
        let cp = dir.file(GRADE_CHECKPOINT);
        if std::fs::symlink_metadata(&cp).is_err() {
            notes.push(
                "the folder holds no grade.checkpoint (the grade stopped before keeping its first unit): it starts again from the first unit".into(),
            );
            return Ok((Folder::start(dir, job)?, Vec::new()));
        }
        let scan = Checkpoint::scan(&cp)?;
        let want = serde_json::to_value(job).expect("records serialize");
        let differ = crate::export::Manifest::differences(&scan.job, &want);
        if !differ.is_empty() {
            return Err(GradeError::Resume {
                dir: crate::excerpt::path(dir.path()),
                why: format!(
                    "{} belongs to another grade: {} differ from grade.json (or the table changed); start again, replacing the folder (the setting `force`)",
                    crate::excerpt::path(&cp),
                    differ.join(", ")
                ),
            });
        }
        if scan.dropped_partial {
            notes.push(format!(
                "the checkpoint's last record was cut short (the grade stopped while writing it): its unit is played again ({} units kept)",
                scan.records
            ));
        }
        let mut kept = Vec::new();
        let mut seen = BTreeSet::new();
        for (line, stored) in Checkpoint::records::<UnitResult>(&cp, &scan)?.enumerate() {
            let r = stored?.record;
            let fits = bot_of(r.unit) == Some(r.bot) && seen.insert(r.unit);
            if !fits {
                return Err(GradeError::Checkpoint(CheckpointError::Damaged {
                    file: crate::excerpt::path(&cp),
                    line: line as u64 + 2,
                    what: format!(
                        "unit {} of bot {} is not a unit of this grade's plan, or is there twice",
                        r.unit, r.bot
                    ),
                }));
            }
            kept.push(r);
        }
        // Checked: from here on, the folder is changed.
        let played = games(&kept);
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
            kept,
        ))
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
            crate::report::write(self.dir)?;
        }
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

/// Games in a set of records.
pub(super) fn games(records: &[UnitResult]) -> u64 {
    records.iter().map(|r| 2 * r.deals.len() as u64).sum()
}

fn write_status(dir: &OutputDir, status: &GradeStatus) -> Result<(), GradeError> {
    let mut text = serde_json::to_string_pretty(status).expect("statuses serialize");
    text.push('\n');
    dir.write_manifest(GRADE_FILE, text.as_bytes())?;
    Ok(())
}
