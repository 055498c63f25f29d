//! Jobs: what an experiment is. Each job is a typed spec that makes a deterministic [`Plan`]
//! of work units (a range of deals of one part: the run, a sweep's variant, a league's table),
//! plays it into exact integer tallies, and returns a typed report. The job also owns its
//! output directory: the manifest (with its status), the checkpoint of finished units,
//! `games.csv`, the CSV tables and `summary.json` (the report as JSON, full precision) are
//! written by the library, before anything is printed, so files never depend on stdout. Both
//! front ends make a job the same way: their flags or keywords become a kind's settings
//! ([`RunSettings`], [`SweepSettings`], [`LeagueSettings`], [`TuneSettings`]), whose `build`
//! adds the defaults and the checks and gives the [`Built`] job; they only print the report.
//!
//! | job | spec | parts | report |
//! |-----|------|-------|--------|
//! | run | [`RunJob`] | the run | [`RunReport`] |
//! | run --sprt | [`SprtJob`] | the head-to-head | [`SprtReport`] |
//! | sweep | [`SweepJob`] | one run per variant | [`SweepReport`] |
//! | league | [`LeagueJob`] | one run per table | [`LeagueReport`] |
//! | tune | [`TuneJob`] | one block of deals per iteration, then the confirmation | [`TuneReport`] |
//!
//! Every job goes through one lifecycle ([`Job::execute`]): a fresh start, a resume from the
//! checkpoint ([`Context::resume`]) or one shard of the plan ([`Context::shard`]); shards
//! combine with [`Job::merge`] into exactly what one uninterrupted run writes. [`replay`]
//! plays one game of a run with its move log; [`mod@bench`] times the published workloads and
//! digests their games.

pub mod bench;
mod builder;
mod drive;
pub mod effects;
pub mod invalid;
mod job;
mod kind;
mod league;
mod merge;
pub mod replay;
mod run;
mod sprt;
mod sweep;
pub mod tune;
mod watch;

pub use builder::{
    Allowed, Axes, Built, DEFAULT_BOTS_DIR, DEFAULT_LEAGUE_GAMES, DEFAULT_LEAGUE_PLAYERS,
    DEFAULT_RULES, DEFAULT_RUN_BOTS, DEFAULT_RUN_GAMES, DEFAULT_SEED, DEFAULT_SWEEP_BOTS,
    DEFAULT_SWEEP_GAMES, DEFAULT_TUNE_ITERATIONS, DEFAULT_TUNE_PAIRS, DEFAULT_TUNE_PLAYERS,
    Execution, LOGS_DIR, LeagueSettings, Lineup, RunSettings, Setting, SettingError, SweepSettings,
    TuneSettings, luck_ply, shadowing_notes,
};
pub use drive::Shard;
pub use effects::Effect;
pub use invalid::InvalidJob;
pub use job::{Job, Report};
pub use kind::{JobKind, JobReport};
pub use league::{
    LEAGUE_HEADER, LeagueJob, LeagueReport, LeagueRow, PAIRS_HEADER, PAIRS_LUCK_HEADER, PairRow,
};
pub use merge::{Shards, Stop};
pub use run::{RunJob, RunReport};
pub use sprt::{SPRT_CHUNK_DEALS, SprtJob, SprtReport};
pub use sweep::{
    COMPARE_HEADER, Comparison, EFFECTS_HEADER, SWEEP_HEADER, SweepJob, SweepReport, SweepRow,
    SweepSpec, axis_text, sweep_header,
};
pub use tune::{TuneError, TuneJob, TuneReport, TuneSpec};
pub use watch::write_report_page;

use std::sync::atomic::{AtomicBool, AtomicU64};

use crate::decision_log::{LogFormat, LogStyle};
use crate::export::LogFile;
use crate::export::{
    CHECKPOINT_FILE, Checkpoint, CheckpointError, ExportError, GamesCsv, JobStatus,
    KEPT_GAMES_FILE, MANIFEST_FILE, Manifest, ManifestError, OutputDir, RowsReader, Scan,
    ShardSection, read_kept_games, write_kept_games,
};
use crate::runner::{Exec, FinishedGame, KeptGames, RunError, RunSpec, Units};

pub use crate::runner::{Plan, Unit};

use drive::{Ended, Fold, Sinks, drive};

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
    /// Write `report.html` into `out` when the job is complete (recorded in `run.json`, so a
    /// resume writes it too).
    pub report: bool,
    /// Called once a resume has read its folder, before it plays on: what it restored.
    pub resumed: Option<&'a (dyn Fn(&Resumed<'_>) + Sync)>,
}

/// What a resume restored from its folder (see [`Context::resumed`]).
#[derive(Debug)]
pub struct Resumed<'n> {
    /// Games finished in earlier sessions that are used rather than played again (already
    /// added to [`Context::progress`]).
    pub games: u64,
    /// What the resume found in the folder (a record cut short, kept games used, ...): the
    /// first notes of the job's [`Outcome::notes`].
    pub notes: &'n [String],
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
            report: false,
            resumed: None,
        }
    }

    /// `manifest` as this context runs its job: its unit size and whether it writes a report.
    fn stamp(&self, manifest: &mut Manifest) {
        manifest.unit_deals = self.exec.chunk_deals;
        manifest.report = self.report;
    }

    /// The job's output folder, if it has one; a resume without one is refused.
    fn folder(&self) -> Result<Option<&'a OutputDir>, JobError> {
        if self.out.is_none() && self.resume {
            return Err(InvalidJob::ResumeNeedsOut.into());
        }
        Ok(self.out)
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
    /// The settings are not a job that can run, or a folder's records are not this job's.
    #[error(transparent)]
    Invalid(#[from] InvalidJob),
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
    /// A tune cannot run.
    #[error(transparent)]
    Tune(#[from] TuneError),
    /// A signal stopped the run.
    #[error("interrupted")]
    Interrupted,
    /// The report page could not be made.
    #[error(transparent)]
    Report(#[from] crate::report::ReportError),
    /// The job is complete, but tidying its folder after the commit failed.
    #[error(
        "the job is complete (its run.json says so), but tidying its folder failed: {source}; run `aeroplane resume {dir}` to finish it"
    )]
    Tidy {
        /// The folder.
        dir: String,
        /// What failed.
        source: Box<JobError>,
    },
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
    /// The decision log the job writes, if any.
    pub log: Option<LogDef>,
    /// The nets the job measures every roll's luck with, each part by the first that fits its
    /// rules and players (none: no luck measured).
    pub luck: &'a [crate::analysis::luck::LuckNet],
    /// A league's pool, which its `games.csv` numbers and names the bots by: per part (table),
    /// the pool index of each lineup entry, and the pool's names (none: the rows number the
    /// bots by the part's lineup, as a run's do).
    pub pool: Option<(&'a [Vec<usize>], Vec<String>)>,
}

impl JobDef<'_> {
    /// The names of games.csv's `name_seatJ` columns, by the file's bot index: a league's
    /// pool, else the lineup of the job's one run.
    fn bot_names(&self) -> Vec<String> {
        match &self.pool {
            Some((_, names)) => names.clone(),
            None => self
                .parts
                .first()
                .map_or_else(Vec::new, |p| names(&p.lineup)),
        }
    }

    /// How `games.csv` numbers the bots of `part`'s lineup (see [`JobDef::pool`]).
    fn file_bots(&self, part: usize) -> Option<&[usize]> {
        self.pool
            .as_ref()
            .map(|(tables, _)| tables[part].as_slice())
    }
}

/// A job's decision log: its file name in the output folder, its format and its first bytes.
#[derive(Clone, Debug)]
pub(crate) struct LogDef {
    /// The file name (`NAME.jsonl.zst` or `NAME.jsonl`).
    pub name: String,
    /// How it is stored.
    pub format: LogFormat,
    /// The position is on every `positions`-th decision line of a game.
    pub positions: u32,
    /// The header line, encoded.
    pub header: Vec<u8>,
}

impl LogDef {
    /// The log `name` of the run `spec`; a name that is not a plain `.jsonl.zst` or `.jsonl`
    /// file name, or that is one of the folder's own files, is refused.
    pub fn new(name: &str, spec: &RunSpec, positions: u32) -> Result<LogDef, JobError> {
        let bad = || InvalidJob::LogName(aeroplane_core::excerpt::excerpt(name));
        let format = LogFormat::of_path(std::path::Path::new(name)).map_err(|_| bad())?;
        if !crate::export::is_log_name(name) {
            return Err(bad().into());
        }
        if positions == 0 {
            return Err(InvalidJob::LogPositions.into());
        }
        Ok(LogDef {
            name: name.to_string(),
            format,
            positions,
            header: crate::decision_log::Header::of(spec, positions).encoded(format),
        })
    }

    /// How it is written.
    pub fn style(&self) -> LogStyle {
        LogStyle {
            format: self.format,
            positions: self.positions,
        }
    }

    /// Its name while the job runs.
    pub fn partial(&self) -> String {
        LogFile::partial(&self.name)
    }
}

/// Games of the units of `plan` that `shard` owns.
fn planned_games(plan: &Plan, shard: Option<Shard>) -> u64 {
    match shard {
        Some(s) => plan.games_of_every(s.count, s.index),
        None => plan.games(),
    }
}

/// The lifecycle every job shares: start (or resume, or one shard), play and fold the plan,
/// then (when whole and done) build the report with `report`, which writes the job's tables
/// (and may add its outcome to the manifest). With an output folder, the folder goes through
/// the states ARCHITECTURE.md describes, and a stop at any point leaves one that resumes.
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
    let mut manifest = def.manifest.clone();
    ctx.stamp(&mut manifest);
    manifest.shard = ctx.shard.map(|s| ShardSection {
        index: s.index,
        count: s.count,
    });
    let planned = planned_games(&plan, ctx.shard);
    manifest.games_planned = planned;
    if let Some(s) = ctx.shard {
        if ctx.out.is_none() {
            return Err(InvalidJob::NeedsOut {
                setting: "shard",
                writes: "keeps its units for a merge",
            }
            .into());
        }
        if s.count == 0 || s.index >= s.count {
            return Err(InvalidJob::Shard {
                index: s.index,
                count: s.count,
            }
            .into());
        }
    }
    let units = drive::share(&plan, ctx.shard);
    let outcome = |ended, played, notes| Outcome {
        ended,
        played,
        planned,
        notes,
    };
    let Some(dir) = ctx.folder()? else {
        let mut played = 0;
        let ended = drive(&def, units, ctx, fold, Sinks::default(), &mut played)?;
        if ended == Ended::Interrupted {
            return Ok(outcome(JobEnd::Interrupted, played, Vec::new()));
        }
        let r = report(fold, None, &mut manifest)?;
        return Ok(outcome(JobEnd::Finished(r), played, Vec::new()));
    };

    let mut notes = Vec::new();
    let opened = if ctx.resume {
        resume_folder(dir, &manifest, &def, units, ctx, fold, &mut notes)
    } else {
        start_folder(dir, &manifest, &def).map_err(Opening::Failed)
    };
    let opened = opened_or_failed(dir, &mut manifest, opened)?;
    tell_resumed(
        ctx,
        opened.kept.played + opened.finished.len() as u64,
        &notes,
    );
    let Opened {
        mut checkpoint,
        mut games,
        mut log,
        kept,
        mut finished,
    } = opened;
    let style = def.log.as_ref().map(LogDef::style);
    let mut played = kept.played;
    let driven = if kept.decided {
        Ok(Ended::Decided)
    } else {
        let sinks = Sinks {
            games: games.as_mut(),
            log: log.as_mut().zip(style),
            checkpoint: Some(&mut checkpoint),
            kept: Some(&mut finished),
        };
        drive(&def, units.skip(kept.units), ctx, fold, sinks, &mut played)
    };
    // Whatever happened, every record written reaches the disk, after its rows.
    let synced = sync_records(&mut checkpoint, games.as_mut(), log.as_mut());
    let ended = match (driven, synced) {
        (Ok(ended), Ok(())) => ended,
        (Err(e), _) | (Ok(_), Err(e)) => return Err(fail(dir, &mut manifest, played, e)),
    };
    match ended {
        Ended::Interrupted => {
            played += keep_finished(dir, &checkpoint, &finished, &mut notes);
            manifest.finish(JobStatus::Interrupted, played, None);
            write_status(dir, &manifest)?;
            return Ok(outcome(JobEnd::Interrupted, played, notes));
        }
        Ended::Complete | Ended::Decided if ctx.shard.is_some() => {
            dir.remove(KEPT_GAMES_FILE)?;
            manifest.finish(JobStatus::Complete, played, None);
            write_status(dir, &manifest)?;
            return Ok(outcome(
                JobEnd::ShardDone(ctx.shard.expect("a shard")),
                played,
                notes,
            ));
        }
        Ended::Complete | Ended::Decided => {}
    }
    drop(checkpoint);
    let r = match finish_files(
        dir,
        fold,
        games,
        log,
        def.log.as_ref(),
        &mut manifest,
        report,
    ) {
        Ok(r) => r,
        Err(JobError::Interrupted) => {
            manifest.finish(JobStatus::Interrupted, played, None);
            write_status(dir, &manifest)?;
            return Ok(outcome(JobEnd::Interrupted, played, notes));
        }
        Err(e) => return Err(fail(dir, &mut manifest, played, e)),
    };
    manifest.finish(JobStatus::Complete, played, None);
    commit(dir, &manifest)?;
    Ok(outcome(JobEnd::Finished(r), played, notes))
}

/// A job's folder, open to go on: its checkpoint, its `games.csv.partial`, and what the
/// checkpoint had kept (nothing, for a fresh start).
struct Opened {
    checkpoint: Checkpoint,
    games: Option<GamesCsv>,
    log: Option<LogFile>,
    kept: drive::Kept,
    /// Games finished at the last stop beyond the units kept, to use rather than play.
    finished: KeptGames,
}

/// Why a folder could not be opened for a job.
enum Opening {
    /// Refused before anything was written (a checkpoint of another job, damaged rows, ...).
    Refused(JobError),
    /// Writing failed.
    Failed(JobError),
}

impl<E: Into<JobError>> From<E> for Opening {
    fn from(e: E) -> Self {
        Opening::Refused(e.into())
    }
}

/// The folder a job opened, or why not: a refusal leaves the folder as it was, a failure once
/// writing had begun is recorded in its `run.json`.
fn opened_or_failed<T>(
    dir: &OutputDir,
    manifest: &mut Manifest,
    opened: Result<T, Opening>,
) -> Result<T, JobError> {
    opened.map_err(|e| match e {
        Opening::Refused(e) => e,
        Opening::Failed(e) => fail(dir, manifest, 0, e),
    })
}

/// The checkpoint of a folder to resume, scanned and checked against its manifest (a note if
/// its last record was cut short); `None`, with a note, if the job stopped before making it
/// (it starts again).
fn scan_checkpoint(
    dir: &OutputDir,
    manifest: &Manifest,
    notes: &mut Vec<String>,
) -> Result<Option<Scan>, Opening> {
    let cp = dir.file(CHECKPOINT_FILE);
    if std::fs::symlink_metadata(&cp).is_err() {
        notes.push(
            "the folder holds no checkpoint (the job stopped before keeping its first unit): it starts again from the first unit".into(),
        );
        return Ok(None);
    }
    let scan = Checkpoint::scan(&cp)?;
    let differ = Manifest::differences(&scan.job, &manifest.identity());
    if !differ.is_empty() {
        return Err(Opening::Refused(
            InvalidJob::CheckpointOfAnotherJob {
                dir: aeroplane_core::excerpt::path(dir.path()),
                differ: differ.join(", "),
            }
            .into(),
        ));
    }
    if scan.dropped_partial {
        notes.push(format!(
            "the checkpoint's last record was cut short (the job stopped while writing it: a kill, a crash, a power cut or a full disk): its unit is played again ({} units kept)",
            scan.records
        ));
    }
    Ok(Some(scan))
}

/// A fresh start: `run.json` (running), then the checkpoint with its header, then
/// `games.csv.partial` with its header.
fn start_folder(
    dir: &OutputDir,
    manifest: &Manifest,
    def: &JobDef<'_>,
) -> Result<Opened, JobError> {
    write_status(dir, manifest)?;
    let checkpoint = Checkpoint::create(&dir.file(CHECKPOINT_FILE), &manifest.identity())?;
    let partial = dir.file(GamesCsv::PARTIAL);
    let games = match (def.per_game, def.recover) {
        (true, false) => Some(GamesCsv::create(&partial, &def.bot_names())?),
        (true, true) => Some(GamesCsv::create_with_forfeits(&partial, &def.bot_names())?),
        (false, _) => None,
    };
    let log = match &def.log {
        Some(l) => Some(LogFile::create(&dir.file(&l.partial()), &l.header)?),
        None => None,
    };
    Ok(Opened {
        checkpoint,
        games,
        log,
        kept: drive::Kept::default(),
        finished: KeptGames::new(),
    })
}

/// A resume, from any state a stop can leave: no checkpoint (stopped before it was made:
/// start again), a checkpoint with or without a last line cut short, `games.csv.partial`
/// longer than its records (rows after the last record are cut off) or shorter (records after
/// the last sync whose rows were lost are dropped), `games.csv` already renamed into place by
/// a finish that did not reach its commit (renamed back), tables already written (written
/// again), or a committed job whose checkpoint was not removed yet (finished again).
fn resume_folder<F: Fold>(
    dir: &OutputDir,
    manifest: &Manifest,
    def: &JobDef<'_>,
    units: Units<'_>,
    ctx: &Context<'_>,
    fold: &mut F,
    notes: &mut Vec<String>,
) -> Result<Opened, Opening> {
    let cp = dir.file(CHECKPOINT_FILE);
    let Some(scan) = scan_checkpoint(dir, manifest, notes)? else {
        return start_folder(dir, manifest, def).map_err(Opening::Failed);
    };
    let partial = dir.file(GamesCsv::PARTIAL);
    let done = dir.file("games.csv");
    let exists = |p: &std::path::Path| std::fs::symlink_metadata(p).is_ok();
    // A finish that did not reach its commit may have renamed games.csv into place: its rows
    // are read from there, and it is renamed back below.
    let rows_file = match (def.per_game, exists(&partial), exists(&done)) {
        (true, false, true) => Some(&done),
        (true, true, _) => Some(&partial),
        _ => None,
    };
    let mut rows = match rows_file {
        Some(f) => RowsReader::open(f, def.recover)?,
        None => None,
    };
    if def.per_game && rows.is_none() && scan.durable > 0 {
        return Err(Opening::Refused(JobError::Checkpoint(
            CheckpointError::Damaged {
                file: aeroplane_core::excerpt::path(&partial),
                line: 1,
                what: format!(
                    "missing, or its header damaged, but the checkpoint holds {} units whose rows were synced to it",
                    scan.durable
                ),
            },
        )));
    }
    // The decision log, read back the same way (from its final name if a finish renamed it).
    let log_files = def
        .log
        .as_ref()
        .map(|l| (dir.file(&l.partial()), dir.file(&l.name)));
    let log_file = match &log_files {
        Some((partial, _)) if exists(partial) => Some(partial.clone()),
        Some((_, done)) if exists(done) => Some(done.clone()),
        _ => None,
    };
    let mut log_rows = match (&log_file, &def.log) {
        (Some(f), Some(l)) => RowsReader::open_with_header(f, &l.header)?,
        _ => None,
    };
    if def.log.is_some() && log_rows.is_none() && scan.durable > 0 {
        let (partial, _) = log_files.as_ref().expect("a log");
        return Err(Opening::Refused(JobError::Checkpoint(
            CheckpointError::Damaged {
                file: aeroplane_core::excerpt::path(partial),
                line: 1,
                what: format!(
                    "missing, or its header damaged, but the checkpoint holds {} units whose decisions were synced to it",
                    scan.durable
                ),
            },
        )));
    }
    let kept = if (def.per_game && rows.is_none()) || (def.log.is_some() && log_rows.is_none()) {
        // The rows file (or the log) was lost before its first sync: no record can be kept.
        drive::Kept {
            dropped: scan.records,
            ..Default::default()
        }
    } else {
        let records = Checkpoint::records(&cp, &scan)?;
        let rows_file = rows_file.cloned().unwrap_or_else(|| partial.clone());
        drive::fold_kept(
            def.parts,
            units,
            ctx,
            fold,
            records,
            rows.as_mut().map(|r| (r, rows_file.as_path())),
            log_rows.as_mut().zip(log_file.as_deref()),
        )?
    };
    drop(rows);
    drop(log_rows);
    let finished = if kept.decided {
        KeptGames::new()
    } else {
        let rest = units.skip(kept.units);
        let finished = read_finished(dir, &scan, ctx, notes, |g| rest.hold_game(g.part, g.game));
        if !def.luck.is_empty() && !finished.is_empty() {
            // A kept game carries no luck: it is played again (the same game) to measure it,
            // so it is neither restored nor counted as progress.
            notes.pop();
            ctx.progress
                .fetch_sub(finished.len() as u64, std::sync::atomic::Ordering::Relaxed);
            notes.push(crate::export::kept_replayed_for_luck_note(
                finished.len() as u64
            ));
            KeptGames::new()
        } else {
            finished
        }
    };
    // Checked: from here on, the folder is changed.
    let open = || -> Result<Opened, JobError> {
        if def.per_game && exists(&done) {
            if exists(&partial) {
                dir.remove("games.csv")?;
            } else {
                crate::files::fsops::rename(&done, &partial)
                    .map_err(|e| ExportError::doing("rename", &done, e))?;
            }
        }
        let checkpoint = Checkpoint::open(
            &cp,
            &scan,
            (kept.dropped > 0).then(|| kept.checkpoint_end.unwrap_or_else(|| scan.header_end())),
        )?;
        let games = match (def.per_game, exists(&partial) && kept.units > 0) {
            (false, _) => None,
            (true, true) => Some(GamesCsv::reopen(
                &partial,
                kept.rows_end
                    .unwrap_or_else(|| GamesCsv::header_len(def.recover)),
                def.recover,
                &def.bot_names(),
            )?),
            (true, false) if def.recover => {
                Some(GamesCsv::create_with_forfeits(&partial, &def.bot_names())?)
            }
            (true, false) => Some(GamesCsv::create(&partial, &def.bot_names())?),
        };
        let log = match (&def.log, &log_files) {
            (Some(l), Some((partial, done))) => {
                if exists(done) {
                    if exists(partial) {
                        dir.remove(&l.name)?;
                    } else {
                        crate::files::fsops::rename(done, partial)
                            .map_err(|e| ExportError::doing("rename", done, e))?;
                    }
                }
                Some(if exists(partial) && kept.units > 0 {
                    LogFile::reopen(partial, kept.log_end.unwrap_or(l.header.len() as u64))?
                } else {
                    LogFile::create(partial, &l.header)?
                })
            }
            _ => None,
        };
        let mut running = manifest.clone();
        running.finish(
            JobStatus::Running,
            kept.played + finished.len() as u64,
            None,
        );
        write_status(dir, &running)?;
        Ok(Opened {
            checkpoint,
            games,
            log,
            kept,
            finished,
        })
    };
    let opened = open().map_err(Opening::Failed)?;
    if opened.kept.dropped > 0 {
        notes.push(format!(
            "{} units of the checkpoint had no rows on the disk (they were written after its last sync, before a power cut or a crash): they are played again",
            opened.kept.dropped
        ));
    }
    Ok(opened)
}

/// Tells [`Context::resumed`] (on a resume) what the folder gave back.
pub(crate) fn tell_resumed(ctx: &Context<'_>, games: u64, notes: &[String]) {
    if let (true, Some(told)) = (ctx.resume, ctx.resumed) {
        told(&Resumed { games, notes });
    }
}

/// The games a stop kept beside the checkpoint (`checkpoint.games`) that `unfolded` says belong
/// to units not folded yet, counted as progress; none, with a note, when the file cannot be
/// used (its games are played again).
pub(crate) fn read_finished(
    dir: &OutputDir,
    scan: &Scan,
    ctx: &Context<'_>,
    notes: &mut Vec<String>,
    unfolded: impl Fn(&FinishedGame) -> bool,
) -> KeptGames {
    let file = dir.file(KEPT_GAMES_FILE);
    match read_kept_games(&file, scan.key()) {
        Ok(None) => KeptGames::new(),
        Ok(Some(mut games)) => {
            games.retain(unfolded);
            if !games.is_empty() {
                ctx.progress
                    .fetch_add(games.len() as u64, std::sync::atomic::Ordering::Relaxed);
                notes.push(crate::export::kept_used_note(games.len() as u64));
            }
            games
        }
        Err(why) => {
            notes.push(crate::export::kept_unusable_note(&file, &why));
            KeptGames::new()
        }
    }
}

/// Keeps the games finished beyond the folded units beside the checkpoint at a stop; how many
/// were kept (none, with a note, when the file cannot be written: the resume plays them again).
pub(crate) fn keep_finished(
    dir: &OutputDir,
    checkpoint: &Checkpoint,
    finished: &KeptGames,
    notes: &mut Vec<String>,
) -> u64 {
    match write_kept_games(&dir.file(KEPT_GAMES_FILE), checkpoint.key(), finished) {
        Ok(()) => finished.len() as u64,
        Err(e) => {
            notes.push(crate::export::kept_lost_note(
                finished.len() as u64,
                &aeroplane_core::excerpt::chain(&e),
            ));
            0
        }
    }
}

/// Syncs the rows, then marks and syncs the checkpoint's records.
fn sync_records(
    checkpoint: &mut Checkpoint,
    games: Option<&mut GamesCsv>,
    log: Option<&mut LogFile>,
) -> Result<(), JobError> {
    if let Some(g) = games {
        g.sync()?;
    }
    if let Some(l) = log {
        l.sync()?;
    }
    checkpoint.sync()?;
    Ok(())
}

/// Writes the job's result files (the tables and summary.json, through `report`), then
/// renames games.csv into place and syncs the folder: everything before the commit.
fn finish_files<F, R>(
    dir: &OutputDir,
    fold: &mut F,
    games: Option<GamesCsv>,
    log: Option<LogFile>,
    log_def: Option<&LogDef>,
    manifest: &mut Manifest,
    report: impl FnOnce(&mut F, Option<&OutputDir>, &mut Manifest) -> Result<R, JobError>,
) -> Result<R, JobError> {
    let r = report(fold, Some(dir), manifest)?;
    if let Some(g) = games {
        g.finish()?;
        dir.finish_stream(GamesCsv::PARTIAL, "games.csv")?;
    }
    if let (Some(l), Some(d)) = (log, log_def) {
        l.finish()?;
        dir.finish_stream(&d.partial(), &d.name)?;
    }
    dir.sync()?;
    Ok(r)
}

/// The commit: `run.json` says complete (or partial). After it, the report page if the job
/// asks for one, then the checkpoint goes: a stop in between leaves a complete job that
/// `resume` finishes tidying.
fn commit(dir: &OutputDir, manifest: &Manifest) -> Result<(), JobError> {
    write_status(dir, manifest)?;
    let tidy = || -> Result<(), JobError> {
        if manifest.report {
            write_report_page(dir)?;
        }
        dir.remove(KEPT_GAMES_FILE)?;
        dir.remove(CHECKPOINT_FILE)?;
        dir.sync()?;
        Ok(())
    };
    tidy().map_err(|e| JobError::Tidy {
        dir: aeroplane_core::excerpt::path(dir.path()),
        source: Box::new(e),
    })
}

/// Writes `run.json` (through its spare space, so a full disk does not stop it).
fn write_status(dir: &OutputDir, manifest: &Manifest) -> Result<(), ExportError> {
    dir.write_manifest(MANIFEST_FILE, manifest.to_json().as_bytes())
}

/// Records that the job failed with `e` in `run.json` (best effort: the error matters more
/// than a second failure to write), and returns `e`.
fn fail(dir: &OutputDir, manifest: &mut Manifest, played: u64, e: JobError) -> JobError {
    manifest.finish(
        JobStatus::Failed,
        played,
        Some(aeroplane_core::excerpt::chain(&e)),
    );
    let _ = write_status(dir, manifest);
    e
}

/// The names of a lineup.
fn names(lineup: &[crate::bots::registry::BotSpec]) -> Vec<String> {
    lineup.iter().map(|b| b.name.clone()).collect()
}
