//! `aeroplane league`: arguments for [`aeroplane::experiment::LeagueJob`].

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::analysis::luck::LuckNet;
use aeroplane::config::{RunConfigFile, parse_lineup};
use aeroplane::experiment::LeagueSettings;
use aeroplane::export::Manifest;

use super::common::{DEFAULT_BOTS_DIR, JobArgs, Launch, launch, load_rules};
use super::words::refused;

/// Arguments of `aeroplane league`.
#[derive(Args, Debug)]
#[command(
    mut_arg("no_rotate_seats", |a| a.hide(true)),
    mut_arg("rotate_seats", |a| a.hide(true)),
    mut_arg("bots", |a| a.help("The pool of bots, comma-separated: each table seats them in turn"))
)]
#[command(after_help = "Examples:
  aeroplane league --bots random,greedy,expectimax --games 500
  aeroplane league --bots random,greedy,expectimax,montecarlo --players 2 --games 1000 --out results/league
  aeroplane league --bots greedy,expectimax,td-classic-2p --rules classic --players 2 --luck bots/nets/td-classic-2p.safetensors
  aeroplane league --manifest results/league/run.json --out results/league-again   (reproduce a league)")]
pub struct LeagueArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Players per table (2-4) [default: 4].
    #[arg(long)]
    pub players: Option<usize>,
    /// Bootstrap resamples (of the deals) for the rating intervals, 100 to 10,000 [default:
    /// 200].
    #[arg(long)]
    pub bootstrap: Option<u32>,
    /// Reproduce the league a run.json describes (rules, pool, players, deals, seed,
    /// bootstrap); the command line and --config override it.
    #[arg(long)]
    pub manifest: Option<std::path::PathBuf>,
    /// Measure the luck of every roll with a td net of these rules and players (a
    /// .safetensors file of `aeroplane train`, e.g. bots/nets/td-classic-2p.safetensors) and
    /// report luck-adjusted win rates and scores per bot and head-to-head scores per pair
    /// beside the plain ones (luck.csv, pairs_luck.csv, summary.json's `luck` and
    /// `pair_luck`; docs/LUCK.md). The ratings are not adjusted. Never changes the games.
    #[arg(long, value_name = "NET")]
    pub luck: Option<std::path::PathBuf>,
    /// With --luck: the depth of the measure, 0 (default: each face's afterstate valued by
    /// the net for the roller), 1 to 3 (valued for every seat by an expectation over the next
    /// 1 to 3 rolls: narrower intervals at 3 and 4 players, some 10, 50 or 250 times the
    /// cost; docs/LUCK.md).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub luck_ply: Option<i64>,
    /// Also write games.csv (one row per game, in game order: table 0's deals, then table 1's,
    /// ...; `bot_seatJ` and `winner_bot` are pool indices: positions in --bots from 0);
    /// needs --out.
    #[arg(long, overrides_with = "no_per_game")]
    pub per_game: bool,
    /// Do not write games.csv (overrides a config or manifest).
    #[arg(long, overrides_with = "per_game")]
    pub no_per_game: bool,
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
        ("rotate_seats", cfg.rotate_seats == Some(false)),
    ] {
        if set {
            anyhow::bail!("`{key}` in {file} does not apply to a league");
        }
    }
    let manifest = match &args.manifest {
        Some(path) => {
            let file = path.display().to_string();
            let m = Manifest::load(path)?;
            if m.command != "league" {
                anyhow::bail!(
                    "{file}: it describes a {}, not a league: give the run.json of an `aeroplane league`",
                    m.command
                );
            }
            let section = m.league.clone().ok_or_else(|| {
                anyhow::anyhow!("{file}: a league's manifest needs its `league` section")
            })?;
            Some((m, section, file))
        }
        None => None,
    };
    let bots_dir = a
        .bots_dir
        .clone()
        .or(cfg.bots_dir.clone())
        .unwrap_or_else(|| DEFAULT_BOTS_DIR.into());
    let bots = a.bots.clone().or(cfg.bots.as_ref().map(|b| b.to_arg()));
    let pool = match (&bots, &manifest) {
        (Some(b), _) => {
            let pool = parse_lineup(b, &bots_dir).context("--bots")?;
            super::common::note_shadowing(b, &bots_dir);
            pool
        }
        (None, Some((m, _, file))) => m.bot_specs(file)?,
        (None, None) => anyhow::bail!(
            "league needs --bots: the pool, two or more bots, comma-separated (or --manifest)"
        ),
    };
    let rules = match (&a.rules, &cfg.rules, &manifest) {
        (Some(r), _, _) => Some((load_rules(r).context("--rules")?, r.clone())),
        (None, Some(v), _) => Some((
            cfg.rules(&file)?.expect("set"),
            match v {
                toml::Value::String(s) => s.clone(),
                _ => format!("inline rules of {file}"),
            },
        )),
        (None, None, Some((m, _, mfile))) => Some((m.rules(mfile)?, m.rules_name.clone())),
        (None, None, None) => None,
    };
    let m = manifest.as_ref().map(|(m, _, _)| m);
    let luck_file = match (&args.luck, m) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(m)) if m.luck.len() > 1 => anyhow::bail!(
            "{}: its `luck` names {} nets; a league measures luck with one",
            manifest.as_ref().map_or("", |(_, _, f)| f.as_str()),
            m.luck.len()
        ),
        (None, Some(m)) => m.luck.first().map(std::path::PathBuf::from),
        (None, None) => None,
    };
    let luck = match luck_file {
        Some(f) => Some(LuckNet::load(&f).context("--luck")?),
        None => None,
    };
    let settings = LeagueSettings {
        rules,
        players: args.players.or(m.map(|m| m.players)),
        games: a.games.or(cfg.games).or(m.map(|m| m.games)),
        seed: a.seed.or(cfg.seed).or(m.map(|m| m.seed)),
        bootstrap: args
            .bootstrap
            .or(manifest.as_ref().map(|(_, l, _)| l.bootstrap)),
        luck,
        luck_ply: super::common::luck_ply(args.luck_ply, m)?,
        per_game: if args.per_game {
            true
        } else if args.no_per_game {
            false
        } else {
            cfg.per_game.or(m.map(|m| m.per_game)).unwrap_or(false)
        },
        exec: a.execution(
            cfg.threads,
            cfg.chunk_size,
            a.out.clone().or(cfg.out.clone()),
        ),
        ..LeagueSettings::new(pool)
    };
    launch(Launch {
        built: settings.build().map_err(refused)?,
        force: a.force,
        quiet: a.quiet || cfg.quiet.unwrap_or(false),
        shard: a.shard()?,
        resume: false,
        report_every: None,
    })
}
