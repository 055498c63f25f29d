//! `aeroplane league`: arguments for [`LeagueJob`].

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::config::{RunConfigFile, parse_lineup};
use aeroplane::experiment::{self, LeagueJob};

use super::common::{DEFAULT_BOTS_DIR, JobArgs, Launch, launch, load_rules};

/// Arguments of `aeroplane league`.
#[derive(Args, Debug)]
#[command(
    mut_arg("no_rotate_seats", |a| a.hide(true)),
    mut_arg("rotate_seats", |a| a.hide(true))
)]
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

/// Runs `aeroplane league`. A `--config` is a run config (its `bots` are the pool); the
/// command line overrides it.
pub fn run(args: LeagueArgs) -> anyhow::Result<ExitCode> {
    let a = &args.job;
    if a.no_rotate_seats {
        anyhow::bail!("a league always rotates seats: --no-rotate-seats does not apply");
    }
    let (cfg, file) = match &a.config {
        Some(p) => (RunConfigFile::load(p)?, p.display().to_string()),
        None => (RunConfigFile::default(), String::new()),
    };
    for (key, set) in [
        ("first_game", cfg.first_game.is_some()),
        ("per_game", cfg.per_game.is_some()),
        ("rotate_seats", cfg.rotate_seats == Some(false)),
    ] {
        if set {
            anyhow::bail!("`{key}` in {file} does not apply to a league");
        }
    }
    let bots_dir = a
        .bots_dir
        .clone()
        .or(cfg.bots_dir.clone())
        .unwrap_or_else(|| DEFAULT_BOTS_DIR.into());
    let bots = match (&a.bots, &cfg.bots) {
        (Some(b), _) => b.clone(),
        (None, Some(b)) => b.to_arg(),
        (None, None) => {
            anyhow::bail!("league needs --bots: the pool, two or more bots, comma-separated")
        }
    };
    let (rules_name, rules) = match (&a.rules, &cfg.rules) {
        (Some(r), _) => (r.clone(), load_rules(r).context("--rules")?),
        (None, Some(v)) => (
            match v {
                toml::Value::String(s) => s.clone(),
                _ => format!("inline rules of {file}"),
            },
            cfg.rules(&file)?.expect("set"),
        ),
        (None, None) => ("appfreegame".into(), load_rules("appfreegame")?),
    };
    let pool = parse_lineup(&bots, &bots_dir).context("--bots")?;
    super::common::note_shadowing(&bots, &bots_dir);
    let job = LeagueJob::new(
        rules_name,
        rules,
        pool,
        args.players,
        a.games.or(cfg.games).unwrap_or(1000),
        a.seed.or(cfg.seed).unwrap_or(1),
        args.bootstrap,
    )?;
    let out = a.out.clone().or(cfg.out.clone());
    let mut job = experiment::Job::League(job);
    super::external::attach_job_logs(&mut job, out.as_deref());
    launch(Launch {
        job,
        exec: a.exec(cfg.threads, cfg.chunk_size)?,
        out,
        force: a.force,
        quiet: a.quiet || cfg.quiet.unwrap_or(false),
        shard: a.shard()?,
        resume: false,
        report: a.report,
        report_every: None,
    })
}
