//! `aeroplane run`: the tournament runner (and `--sprt`, a sequential head-to-head).

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Args;

use aeroplane::Rules;
use aeroplane::analysis::SprtConfig;
use aeroplane::analysis::luck::LuckNet;
use aeroplane::config::RunConfigFile;
use aeroplane::experiment::{
    self, Allowed, Built, InvalidJob, JobError, Lineup, RunSettings, SettingError,
};
use aeroplane::export::Manifest;

use super::common::{JobArgs, Launch, launch, load_lineup, load_rules};
use super::words::refused;

/// Arguments of `aeroplane run`. Without options it plays greedy against three random bots,
/// 100,000 appfreegame games with seed 1.
#[derive(Args, Debug, Default)]
#[command(after_help = "Examples:
  aeroplane run
  aeroplane run --rules classic --bots expectimax,greedy --games 20000 --rotate-seats --out results/classic
  aeroplane run --bots greedy,random --sprt elo0=0,elo1=50 --games 100000
  aeroplane run --manifest results/classic/run.json        (reproduce a run)")]
pub struct RunArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Reproduce the job a run.json describes (rules, bots, seed, deals, rotation, SPRT); the
    /// command line and --config override it.
    #[arg(long)]
    pub manifest: Option<PathBuf>,
    /// Index of the first deal, to split one run into shards whose tallies add up [default: 0].
    #[arg(long)]
    pub first_game: Option<u64>,
    /// Also write games.csv (one row per game, in game order); needs --out.
    #[arg(long, overrides_with = "no_per_game")]
    pub per_game: bool,
    /// Also write a decision log into the output folder: one JSON line per decision of every
    /// game (seat, roll, legal moves, the choice, the bot's values; the position on key lines,
    /// see --log-positions) and one per game's result, in game order; NAME.jsonl.zst is zstd-compressed, NAME.jsonl plain. Needs --out;
    /// schema in docs/LOG.md; read back with `replay --log`.
    #[arg(long, value_name = "NAME")]
    pub log_games: Option<String>,
    /// With --log-games: write the position on every K-th decision line of a game, the first
    /// included (1: on every line; readers replay the others from the rolls and choices)
    /// [default: 32].
    #[arg(long, value_name = "K", requires = "log_games", value_parser = clap::value_parser!(u32).range(1..))]
    pub log_positions: Option<u32>,
    /// Do not write games.csv (overrides a config or manifest).
    #[arg(long, overrides_with = "per_game")]
    pub no_per_game: bool,
    /// Head-to-head of two bots (--bots A,B, or A,B,B / A,B,B,B: A against copies of B) with a
    /// sequential test, e.g. `elo0=0,elo1=20,alpha=0.05,beta=0.05`: seats are rotated, each
    /// deal's games (one per seat of A) are one unit, and the run stops as soon as the test
    /// accepts H0 or H1 (checked after every chunk of deals in deal order; chunks of 16 deals
    /// unless --chunk-size is given). With --luck the test decides on luck-adjusted scores.
    #[arg(long, value_name = "SPEC")]
    pub sprt: Option<String>,
    /// With --sprt: the most deals (pairs of games) to play before calling the test
    /// inconclusive [default: --games].
    #[arg(long)]
    pub max_games: Option<u64>,
    /// A bot program that fails (crashes, hangs, answers nonsense) forfeits the game in
    /// progress, counted in a `forfeits` column of summary.csv and games.csv; its program is
    /// restarted and the run goes on. Without it the run stops with the error.
    #[arg(long)]
    pub recover: bool,
    /// Print interim results on stderr every N seconds while the job runs: the games so far
    /// and each bot's win rate (with --sprt also the LLR and its bounds); 0 = after every unit
    /// of work. Default: every 60 s when stderr is a terminal; never with -q. Never changes
    /// the results.
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,
    /// Measure the luck of every roll with a td net of these rules and players (a
    /// .safetensors file of `aeroplane train`, e.g. bots/nets/td-classic-2p.safetensors) and
    /// report luck-adjusted win rates and scores beside the plain ones (luck.csv,
    /// summary.json's `luck`; docs/LUCK.md); with --sprt the test decides on luck-adjusted
    /// scores. Never changes the games.
    #[arg(long, value_name = "NET")]
    pub luck: Option<PathBuf>,
    /// With --luck: the depth of the measure, 0 (default: each face's afterstate valued by
    /// the net for the roller), 1 to 3 (valued for every seat by an expectation over the next
    /// 1 to 3 rolls: narrower intervals at 3 and 4 players, some 10, 50 or 250 times the
    /// cost; docs/LUCK.md).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub luck_ply: Option<i64>,
}

/// What to run, after layering the command line over a config over a manifest over the
/// defaults.
struct Resolved {
    built: Built,
    quiet: bool,
}

fn resolve(args: &RunArgs) -> anyhow::Result<Resolved> {
    let a = &args.job;
    let manifest = match &args.manifest {
        Some(path) => {
            let m = Manifest::load(path)?;
            let spec = m.spec(&path.display().to_string())?;
            Some((m, spec))
        }
        None => None,
    };
    let (cfg, cfg_file) = match &a.config {
        Some(path) => (RunConfigFile::load(path)?, path.display().to_string()),
        None => (RunConfigFile::default(), String::new()),
    };
    let base = manifest.as_ref().map(|(_, s)| s);
    let m = manifest.as_ref().map(|(m, _)| m);
    let bots_dir = a
        .bots_dir
        .clone()
        .or(cfg.bots_dir.clone())
        .unwrap_or_else(|| PathBuf::from(experiment::DEFAULT_BOTS_DIR));

    let rules: Option<(Rules, String)> = match (&a.rules, &cfg.rules, &manifest) {
        (Some(r), _, _) => Some((load_rules(r).context("--rules")?, r.clone())),
        (None, Some(v), _) => Some((
            cfg.rules(&cfg_file)?.expect("set"),
            match v {
                toml::Value::String(s) => s.clone(),
                _ => format!("inline rules of {cfg_file}"),
            },
        )),
        (None, None, Some((m, s))) => Some((s.rules, m.rules_name.clone())),
        (None, None, None) => None,
    };
    let lineup = match (&a.bots, &cfg.bots, base) {
        (Some(b), _, _) => load_lineup(b, &bots_dir).context("--bots")?,
        (None, Some(b), _) => {
            load_lineup(&b.to_arg(), &bots_dir).with_context(|| format!("`bots` in {cfg_file}"))?
        }
        (None, None, Some(s)) => Lineup::new(s.lineup.clone())?,
        (None, None, None) => load_lineup(experiment::DEFAULT_RUN_BOTS, &bots_dir)?,
    };
    let sprt = args
        .sprt
        .clone()
        .or(m.and_then(|m| m.sprt.as_ref()).map(|s| s.test.clone()));
    let sprt: Option<SprtConfig> = match sprt {
        Some(text) => Some(text.parse().with_context(|| format!("--sprt {text}"))?),
        None => None,
    };
    let per_game = if args.per_game {
        true
    } else if args.no_per_game {
        false
    } else {
        cfg.per_game.or(m.map(|m| m.per_game)).unwrap_or(false)
    };
    // A manifest's decision log and recovery go with its plain run, not with --sprt.
    let plain = m.filter(|_| sprt.is_none());
    let log_games = args
        .log_games
        .clone()
        .or(plain.and_then(|m| m.log_games.clone()));
    let luck = match args
        .luck
        .clone()
        .or(m.and_then(|m| m.luck.first().map(PathBuf::from)))
    {
        Some(f) => Some(LuckNet::load(&f).context("--luck")?),
        None => None,
    };
    let rotate_seats = match &sprt {
        // An SPRT always rotates: it refuses seats kept still on purpose (flag or config).
        Some(_) => (a.no_rotate_seats || cfg.rotate_seats == Some(false)).then_some(false),
        None => a
            .rotate()
            .or(cfg.rotate_seats)
            .or(base.map(|s| s.rotate_seats)),
    };
    let settings = RunSettings {
        rules,
        seed: a.seed.or(cfg.seed).or(base.map(|s| s.seed)),
        first_game: args
            .first_game
            .or(cfg.first_game)
            .or(base.map(|s| s.first_deal)),
        games: a.games.or(cfg.games).or(base.map(|s| s.deals)),
        rotate_seats,
        per_game,
        // A manifest's key-position interval goes with its decision log.
        log_positions: args.log_positions.or(m
            .and_then(|m| m.log_positions)
            .filter(|_| log_games.is_some())),
        log_games,
        recover: args.recover || plain.is_some_and(|m| m.recover),
        luck,
        luck_ply: super::common::luck_ply(args.luck_ply, m)?,
        sprt,
        max_games: args.max_games,
        exec: a.execution(
            cfg.threads,
            // An SPRT's unit is a check of the test: the manifest's, run again.
            cfg.chunk_size
                .or(m.and_then(|m| m.sprt.as_ref()).map(|s| s.chunk_deals)),
            a.out.clone().or(cfg.out.clone()),
        ),
        ..RunSettings::new(lineup)
    };
    let built = settings.build().map_err(|e| match e {
        // Where the seats were kept still: the flag, or the config.
        JobError::Invalid(InvalidJob::Setting(SettingError {
            allowed: Allowed::FixedBy { why, .. },
            ..
        })) => {
            let what = if a.no_rotate_seats {
                "--no-rotate-seats".to_string()
            } else {
                format!("`rotate_seats = false` in {cfg_file}")
            };
            anyhow::anyhow!("--sprt {why}: {what} does not apply")
        }
        e => refused(e),
    })?;
    Ok(Resolved {
        built,
        quiet: a.quiet || cfg.quiet.unwrap_or(false),
    })
}

/// How often to print interim results: `--report-every N` seconds, else every 60 s when stderr
/// is a terminal, else never (`-q` turns them off in [`launch`]).
pub(super) fn report_every(flag: Option<u64>) -> Option<Duration> {
    match flag {
        Some(n) => Some(Duration::from_secs(n)),
        None if std::io::stderr().is_terminal() => Some(Duration::from_secs(60)),
        None => None,
    }
}

/// Runs `aeroplane run`.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let r = resolve(&args)?;
    launch(Launch {
        built: r.built,
        force: args.job.force,
        quiet: r.quiet,
        shard: args.job.shard()?,
        resume: false,
        report_every: report_every(args.report_every),
    })
}
