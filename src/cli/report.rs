//! `aeroplane report`: writes report.html from the files of a job's output folder.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::export::OutputDir;

/// Arguments of `aeroplane report`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane run --games 2000 --rotate-seats --out results/r1 && aeroplane report results/r1
  aeroplane sweep --vary overshoot=illegal,bounce --out results/s1 --report   (the same, in one go)
  aeroplane report results/study/ladder/classic-2p   (rewrite report.html of a folder in results/)")]
pub struct ReportArgs {
    /// The --out folder of a run, SPRT, sweep, league, tune or grade (also merged shards and
    /// folders written by older versions).
    pub dir: PathBuf,
}

/// Runs `aeroplane report`.
pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let dir = OutputDir::open_existing(&args.dir)?;
    let (path, problems) = aeroplane::experiment::write_report_page(&dir)
        .with_context(|| format!("writing the report of {}", args.dir.display()))?;
    super::common::warn_problems(&args.dir, &problems);
    writeln!(
        std::io::stdout().lock(),
        "wrote {}",
        aeroplane::excerpt::path(&path)
    )?;
    Ok(ExitCode::SUCCESS)
}
