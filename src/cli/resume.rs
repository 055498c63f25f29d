//! `aeroplane resume` and `aeroplane merge`: jobs read back from their folders.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::experiment::Job;
use aeroplane::export::{MANIFEST_FILE, Manifest, OutputDir};
use aeroplane::runner::Exec;

use super::common::{Launch, finish, launch, open_out};

/// Arguments of `aeroplane resume`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane resume results/big-run
  aeroplane resume results/sweep --threads 8")]
pub struct ResumeArgs {
    /// The output folder of a job that did not finish (it holds run.json and checkpoint).
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
    let file = path.display().to_string();
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

/// Runs `aeroplane resume`.
pub fn resume(args: ResumeArgs) -> anyhow::Result<ExitCode> {
    let (m, mut job) = read_job(&args.dir)?;
    super::external::attach_job_logs(&mut job, Some(&args.dir));
    match m.status {
        Some(aeroplane::export::JobStatus::Complete) if m.shard.is_none() => anyhow::bail!(
            "{} holds a complete job: nothing to resume",
            args.dir.display()
        ),
        _ => {}
    }
    launch(Launch {
        job,
        exec: Exec {
            threads: args.threads,
            chunk_deals: m.unit_deals,
            recover: false,
        },
        out: Some(args.dir),
        force: false,
        quiet: args.quiet,
        shard: m.shard.map(|s| aeroplane::experiment::Shard {
            index: s.index,
            count: s.count,
        }),
        resume: true,
        report: false,
        report_every: super::run::report_every(args.report_every),
    })
}

/// Runs `aeroplane merge`.
pub fn merge(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let (m, job) = read_job(&args.shards[0])?;
    let out: OutputDir = open_out(Some(&args.out), args.force, false)?.expect("a folder");
    let start = Instant::now();
    let outcome = job.merge(&out, &args.shards, m.unit_deals, args.allow_partial)?;
    if !outcome.notes.is_empty() {
        eprintln!(
            "PARTIAL: {} of {} games; run.json says status \"partial\"",
            outcome.played, outcome.planned
        );
    }
    finish(outcome, Some(&out), start, true, false)
}
