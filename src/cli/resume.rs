//! `aeroplane resume` and `aeroplane merge`: jobs read back from their folders.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::experiment::{Built, Job, JobEnd};
use aeroplane::export::{CHECKPOINT_FILE, JobStatus, MANIFEST_FILE, Manifest, OutputDir};
use indicatif::HumanCount;

use super::common::{Launch, finish, launch, open_out};
use super::signals::interrupt_flag;

/// Arguments of `aeroplane resume`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane resume results/big-run
  aeroplane resume results/sweep --threads 8")]
pub struct ResumeArgs {
    /// The output folder of a job that did not finish: a run, SPRT, sweep, league or tune
    /// (run.json and checkpoint), a grade (grade.json and grade.checkpoint) or a solve
    /// (solve.json and solve.checkpoint).
    pub dir: PathBuf,
    /// Worker threads; 0 = one per core. Never changes the results.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// No progress bar and no timing line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// As for `aeroplane run`: interim results on stderr every N seconds (0 = after every
    /// unit), counting the units done before the interruption too; a run or SPRT only.
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,
}

/// Arguments of `aeroplane merge`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane merge results/run results/run-shard-*
  aeroplane merge results/partial s0 s2 --allow-partial")]
pub struct MergeArgs {
    /// Where the merged job's files go.
    pub out: PathBuf,
    /// The shards' folders (any order), each from `--shard K/N --out DIR`.
    #[arg(required = true)]
    pub shards: Vec<PathBuf>,
    /// Summarise an incomplete set of shards; the outputs say `partial`.
    #[arg(long)]
    pub allow_partial: bool,
    /// Replace the results of an earlier run in OUT.
    #[arg(long)]
    pub force: bool,
}

fn read_job(dir: &std::path::Path) -> anyhow::Result<(Manifest, Job)> {
    let path = dir.join(MANIFEST_FILE);
    let file = aeroplane::excerpt::path(&path);
    if !dir.is_dir() {
        anyhow::bail!(
            "{} is not a folder: give the --out folder of a job",
            aeroplane::excerpt::path(dir)
        );
    }
    if std::fs::symlink_metadata(&path).is_err() {
        anyhow::bail!(
            "{} holds no job's status record (run.json, solve.json, grade.json or train.json): no job was started there (a job stopped before writing it kept nothing): run its command again",
            aeroplane::excerpt::path(dir)
        );
    }
    let m = Manifest::load(&path)?;
    if m.version != env!("CARGO_PKG_VERSION") {
        anyhow::bail!(
            "{file} was written by aeroplane {}, this is aeroplane {}: resume or merge it with the version that started it",
            m.version,
            env!("CARGO_PKG_VERSION")
        );
    }
    if m.unit_deals == 0 {
        anyhow::bail!(
            "{file} records no unit size: it was written before jobs could be resumed or merged"
        );
    }
    let job = Job::from_manifest(&m, &file)?;
    Ok((m, job))
}

/// Runs `aeroplane resume`: finishes the job in a folder from whatever state a stop left.
pub fn resume(args: ResumeArgs) -> anyhow::Result<ExitCode> {
    if args.dir.join(aeroplane::solve::SOLVE_FILE).is_file()
        && !args.dir.join(MANIFEST_FILE).exists()
    {
        return super::solve::resume(&args.dir, args.quiet);
    }
    if args.dir.join(aeroplane::grade::GRADE_FILE).is_file()
        && !args.dir.join(MANIFEST_FILE).exists()
    {
        return super::grade::resume(&args.dir, args.quiet, args.threads);
    }
    if args.dir.join(aeroplane::train::TRAIN_FILE).is_file()
        && !args.dir.join(MANIFEST_FILE).exists()
    {
        return super::train::resume(&args.dir, args.quiet, args.threads);
    }
    let (m, job) = read_job(&args.dir)?;
    let has_checkpoint = std::fs::symlink_metadata(args.dir.join(CHECKPOINT_FILE)).is_ok();
    if let Some(merge) = &m.merge {
        // An unfinished merge: merge the same shards again.
        let shards: Vec<PathBuf> = merge.shards.iter().map(PathBuf::from).collect();
        let (_, shard_job) =
            read_job(shards.first().ok_or_else(|| {
                anyhow::anyhow!("{}: the merge names no shard", args.dir.display())
            })?)?;
        let mut out = OutputDir::reopen(&args.dir)?;
        return run_merge(
            shard_job,
            &mut out,
            &shards,
            m.unit_deals,
            merge.allow_partial,
        );
    }
    match m.status {
        // A complete job, or a complete shard (which keeps its checkpoint for the merge): the
        // same exit 2 for both, as for every other folder with nothing to resume.
        Some(JobStatus::Complete) if m.shard.is_some() || !has_checkpoint => {
            // Taken and let go: what a stop after the commit left (a lock file, the spares of
            // run.json, temporary names) goes.
            drop(OutputDir::reopen(&args.dir)?);
            match m.shard {
                Some(s) => anyhow::bail!(
                    "{} holds a complete shard ({}/{}): nothing to resume; when every shard is done, combine them: aeroplane merge OUT SHARD_DIR...",
                    aeroplane::excerpt::path(&args.dir),
                    s.index,
                    s.count
                ),
                None => anyhow::bail!(
                    "{} holds a complete job: nothing to resume",
                    aeroplane::excerpt::path(&args.dir)
                ),
            }
        }
        Some(JobStatus::Partial) => anyhow::bail!(
            "{} holds a summary of an incomplete set of shards (merge --allow-partial): nothing to resume; merge again when every shard is done",
            aeroplane::excerpt::path(&args.dir)
        ),
        _ => {}
    }
    launch(Launch {
        built: Built::resumed(job, &args.dir, args.threads, m.unit_deals, m.report),
        force: false,
        quiet: args.quiet,
        shard: m.shard.map(|s| aeroplane::experiment::Shard {
            index: s.index,
            count: s.count,
        }),
        resume: true,
        report_every: super::run::report_every(args.report_every),
    })
}

/// Runs `aeroplane merge`.
pub fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    // OUT must not be one of the shards: --force would delete the shard it reads.
    if let Ok(out) = std::fs::metadata(&args.out) {
        use std::os::unix::fs::MetadataExt;
        for s in &args.shards {
            if let Ok(shard) = std::fs::metadata(s)
                && (shard.dev(), shard.ino()) == (out.dev(), out.ino())
            {
                anyhow::bail!(
                    "the merge's output folder {} is one of its shards ({}): give an output folder of its own",
                    aeroplane::excerpt::path(&args.out),
                    aeroplane::excerpt::path(s)
                );
            }
        }
    }
    let (m, job) = read_job(&args.shards[0])?;
    let mut out: OutputDir = open_out(Some(&args.out), args.force, false)?.expect("a folder");
    run_merge(
        job,
        &mut out,
        &args.shards,
        m.unit_deals,
        args.allow_partial,
    )
}

fn run_merge(
    job: Job,
    out: &mut OutputDir,
    shards: &[PathBuf],
    unit_deals: u64,
    allow_partial: bool,
) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let outcome = job.merge(
        out,
        shards,
        unit_deals,
        allow_partial,
        Some(interrupt_flag()),
        Some(&super::common::test_signal_hook),
    )?;
    if let JobEnd::Interrupted = outcome.ended {
        say!(
            "interrupted after merging {} of {} games; nothing is lost: the shards are untouched.\nTo finish the merge, run: aeroplane resume {}",
            HumanCount(outcome.played),
            HumanCount(outcome.planned),
            aeroplane::excerpt::path(out.path())
        );
        return Ok(ExitCode::from(130));
    }
    if !outcome.notes.is_empty() {
        let line = format!(
            "PARTIAL: {} of {} games; run.json says status \"partial\", summary.json `\"status\": \"partial\"`, and every table is named PARTIAL-<name>.csv",
            HumanCount(outcome.played),
            HumanCount(outcome.planned)
        );
        say!("{line}");
        use std::io::Write as _;
        writeln!(std::io::stdout(), "{line}")?;
    }
    finish(outcome, Some(out), start, true, &Default::default())
}
