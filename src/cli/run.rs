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
use aeroplane::experiment::{self, RunJob, SPRT_CHUNK_DEALS, SprtJob};
use aeroplane::export::Manifest;
use aeroplane::runner::RunSpec;

use super::common::{DEFAULT_BOTS_DIR, JobArgs, Launch, launch, load_lineup, load_rules};

/// The lineup of the default tournament.
/// Deals of the default tournament.
pub const DEFAULT_GAMES: u64 = 100_000;
/// Seed of the default tournament.
pub const DEFAULT_SEED: u64 = 1;

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
    /// the net for the roller), 1 or 2 (valued for every seat by an expectation over the next
    /// 1 or 2 rolls: narrower intervals at 3 and 4 players, some 40 or 300 times the cost;
    /// docs/LUCK.md).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub luck_ply: Option<i64>,
}

/// What to run, after layering the command line over a config over a manifest over the
/// defaults.
enum Job {
    Run(RunJob),
    Sprt(SprtJob),
}

struct Resolved {
    job: Job,
    exec: aeroplane::runner::Exec,
    out: Option<PathBuf>,
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
    let bots_dir = a
        .bots_dir
        .clone()
        .or(cfg.bots_dir.clone())
        .unwrap_or_else(|| PathBuf::from(DEFAULT_BOTS_DIR));

    let (rules, rules_name): (Rules, String) = match (&a.rules, &cfg.rules, &manifest) {
        (Some(r), _, _) => (load_rules(r).context("--rules")?, r.clone()),
        (None, Some(v), _) => (
            cfg.rules(&cfg_file)?.expect("set"),
            match v {
                toml::Value::String(s) => s.clone(),
                _ => format!("inline rules of {cfg_file}"),
            },
        ),
        (None, None, Some((m, s))) => (s.rules, m.rules_name.clone()),
        (None, None, None) => (Rules::default(), "appfreegame".to_string()),
    };
    let lineup = match (&a.bots, &cfg.bots, base) {
        (Some(b), _, _) => load_lineup(b, &bots_dir).context("--bots")?,
        (None, Some(b), _) => {
            load_lineup(&b.to_arg(), &bots_dir).with_context(|| format!("`bots` in {cfg_file}"))?
        }
        (None, None, Some(s)) => s.lineup.clone(),
        (None, None, None) => load_lineup(experiment::DEFAULT_RUN_BOTS, &bots_dir)?,
    };
    let pick = |cli: Option<u64>, cfg: Option<u64>, base: Option<u64>, default: u64| {
        cli.or(cfg).or(base).unwrap_or(default)
    };
    let mut spec = RunSpec {
        rules,
        lineup,
        seed: pick(a.seed, cfg.seed, base.map(|s| s.seed), DEFAULT_SEED),
        first_deal: pick(
            args.first_game,
            cfg.first_game,
            base.map(|s| s.first_deal),
            0,
        ),
        deals: pick(a.games, cfg.games, base.map(|s| s.deals), DEFAULT_GAMES),
        rotate_seats: a
            .rotate()
            .or(cfg.rotate_seats)
            .or(base.map(|s| s.rotate_seats))
            .unwrap_or(false),
    };
    let manifest_sprt = manifest.as_ref().and_then(|(m, _)| m.sprt.clone());
    let sprt_text = args
        .sprt
        .clone()
        .or(manifest_sprt.as_ref().map(|s| s.test.clone()));
    let per_game = if args.per_game {
        true
    } else if args.no_per_game {
        false
    } else {
        cfg.per_game
            .or(manifest.as_ref().map(|(m, _)| m.per_game))
            .unwrap_or(false)
    };
    let out = a.out.clone().or(cfg.out.clone());
    let quiet = a.quiet || cfg.quiet.unwrap_or(false);
    let Some(text) = sprt_text else {
        if args.max_games.is_some() {
            anyhow::bail!("--max-games applies to --sprt only");
        }
        spec.validate()?;
        experiment::attach_logs(&mut spec, out.as_deref());
        let exec = a.exec(cfg.threads, cfg.chunk_size)?;
        let recover = args.recover || manifest.as_ref().is_some_and(|(m, _)| m.recover);
        let log_games = args
            .log_games
            .clone()
            .or(manifest.as_ref().and_then(|(m, _)| m.log_games.clone()));
        let log_positions = args
            .log_positions
            .or(manifest.as_ref().and_then(|(m, _)| m.log_positions))
            .unwrap_or(aeroplane::decision_log::DEFAULT_LOG_POSITIONS);
        let luck = luck_net(args, manifest.as_ref().map(|(m, _)| m), &spec)?;
        return Ok(Resolved {
            job: Job::Run(RunJob {
                spec,
                rules_name,
                per_game,
                log_games,
                log_positions,
                recover,
                luck,
            }),
            exec,
            out,
            quiet,
        });
    };
    let config: SprtConfig = text.parse().with_context(|| format!("--sprt {text}"))?;
    if a.no_rotate_seats || cfg.rotate_seats == Some(false) {
        let what = if a.no_rotate_seats {
            "--no-rotate-seats".to_string()
        } else {
            format!("`rotate_seats = false` in {cfg_file}")
        };
        anyhow::bail!(
            "--sprt always rotates seats (each deal's pair of games, seats swapped, is its unit): \
             {what} does not apply"
        );
    }
    if args.recover {
        anyhow::bail!("--recover applies to plain runs, not to --sprt");
    }
    experiment::attach_logs(&mut spec, out.as_deref());
    if let Some(m) = args.max_games {
        spec.deals = m;
    }
    if args.log_games.is_some() {
        anyhow::bail!("--log-games applies to plain runs, not to --sprt");
    }
    if per_game {
        anyhow::bail!("--per-game cannot be combined with --sprt");
    }
    // The test is checked once per unit: small units stop closer to the bound.
    let chunk = cfg
        .chunk_size
        .or(manifest_sprt.map(|s| s.chunk_deals))
        .or(Some(SPRT_CHUNK_DEALS));
    let exec = a.exec(cfg.threads, chunk)?;
    let luck = luck_net(args, manifest.as_ref().map(|(m, _)| m), &spec)?;
    let job = SprtJob::new(spec, rules_name, config, exec.chunk_deals)?.with_luck(luck);
    Ok(Resolved {
        job: Job::Sprt(job),
        exec,
        out,
        quiet,
    })
}

/// The net of `--luck` (else of the manifest run again), loaded and checked against the
/// rules and players of `spec`.
fn luck_net(
    args: &RunArgs,
    manifest: Option<&Manifest>,
    spec: &RunSpec,
) -> anyhow::Result<Option<LuckNet>> {
    let luck_file = args
        .luck
        .as_ref()
        .map(|p| p.display().to_string())
        .or(manifest.and_then(|m| m.luck.first().cloned()));
    let ply = luck_ply(args.luck_ply, manifest, luck_file.is_some())?;
    let Some(f) = luck_file else {
        return Ok(None);
    };
    let net = LuckNet::load(&f).context("--luck")?.with_ply(ply)?;
    net.meter(&spec.rules, spec.players()).context("--luck")?;
    Ok(Some(net))
}

/// The depth of the luck measure: `--luck-ply` (checked), else the manifest's, else 0;
/// refused without a luck net to measure with.
pub(super) fn luck_ply(
    flag: Option<i64>,
    manifest: Option<&Manifest>,
    has_luck: bool,
) -> anyhow::Result<i64> {
    match flag {
        Some(p) if !has_luck => anyhow::bail!(
            "--luck-ply {p} applies only with --luck NET (the net the luck is measured with)"
        ),
        Some(p) => {
            aeroplane::analysis::luck::check_luck_ply(p).context("--luck-ply")?;
            Ok(p)
        }
        None => Ok(manifest.map_or(0, |m| i64::from(m.luck_ply))),
    }
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
    let job = match r.job {
        Job::Run(j) => experiment::Job::Run(j),
        Job::Sprt(j) => experiment::Job::Sprt(j),
    };
    launch(Launch {
        job,
        exec: r.exec,
        out: r.out,
        force: args.job.force,
        quiet: r.quiet,
        shard: args.job.shard()?,
        resume: false,
        report: args.job.report,
        report_every: report_every(args.report_every),
    })
}
