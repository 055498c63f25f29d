//! `aeroplane league`: arguments for [`LeagueJob`].

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::bots::registry::parse_lineup;
use aeroplane::experiment::{self, LeagueJob};

use super::common::{DEFAULT_BOTS_DIR, JobArgs, load_rules, open_out, print_written, write_report};
use super::progress::Progress;

/// Arguments of `aeroplane league`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane league --bots random,greedy,expectimax --games 500
  aeroplane league --bots random,greedy,expectimax,montecarlo --players 2 --games 1000 --out results/league")]
pub struct LeagueArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Players per table (2-4).
    #[arg(long, default_value_t = 4)]
    pub players: usize,
    /// Bootstrap resamples for the rating intervals.
    #[arg(long, default_value_t = 200)]
    pub bootstrap: u32,
}

/// Runs `aeroplane league`.
pub fn run(args: LeagueArgs) -> anyhow::Result<ExitCode> {
    let a = &args.job;
    if a.config.is_some() {
        anyhow::bail!("league takes no --config yet: give its options on the command line");
    }
    if a.no_rotate_seats {
        anyhow::bail!("a league always rotates seats: --no-rotate-seats does not apply");
    }
    let Some(bots) = &a.bots else {
        anyhow::bail!("league needs --bots: the pool, two or more bots, comma-separated");
    };
    let rules_name = a.rules.clone().unwrap_or_else(|| "appfreegame".into());
    let rules = load_rules(&rules_name).with_context(|| format!("--rules {rules_name}"))?;
    let bots_dir = a
        .bots_dir
        .clone()
        .unwrap_or_else(|| DEFAULT_BOTS_DIR.into());
    let pool = parse_lineup(bots, &bots_dir).context("--bots")?;
    let job = LeagueJob::new(
        rules_name,
        rules,
        pool,
        args.players,
        a.games.unwrap_or(1000),
        a.seed.unwrap_or(1),
        args.bootstrap,
    )?;
    let exec = a.exec(None, None)?;
    let out = open_out(a.out.as_deref(), a.force, a.report)?;
    let progress = Progress::new(job.total_games(), a.quiet);
    let ctx = experiment::Context {
        exec,
        out: out.as_ref(),
        progress: progress.counter(),
    };
    let report = job.execute(&ctx);
    progress.finish();
    let report = report?;
    let mut stdout = std::io::stdout().lock();
    report.write_text(&mut stdout)?;
    write_report(out.as_ref(), a.report)?;
    print_written(&mut stdout, out.as_ref())?;
    Ok(ExitCode::SUCCESS)
}
