//! `aeroplane run`: the tournament runner.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use aeroplane::Rules;
use aeroplane::export::{GamesCsv, MANIFEST_FILE, Manifest, Report, write_report, write_table};
use aeroplane::runner::{self, DEFAULT_CHUNK_DEALS, Exec, GameSink, RunConfigFile, RunSpec};
use aeroplane::stats::Summary;

use super::common::{DEFAULT_BOTS_DIR, load_lineup, load_rules};

/// The lineup of the default tournament.
pub const DEFAULT_BOTS: &str = "greedy,random,random,random";
/// Deals of the default tournament.
pub const DEFAULT_GAMES: u64 = 100_000;
/// Deals per chunk with --sprt (the test is checked after each chunk) unless --chunk-size is
/// given.
pub const SPRT_CHUNK_DEALS: u64 = 16;
/// Seed of the default tournament.
pub const DEFAULT_SEED: u64 = 1;

/// Arguments of `aeroplane run`. Without options it plays greedy against three random bots,
/// 100,000 appfreegame games with seed 1.
#[derive(Args, Debug, Default)]
pub struct RunArgs {
    /// A run config (TOML) setting any of the options below; the command line overrides it.
    #[arg(long, conflicts_with = "manifest")]
    pub config: Option<PathBuf>,
    /// Reproduce the run a run.json describes; the command line overrides it.
    #[arg(long)]
    pub manifest: Option<PathBuf>,
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file [default: appfreegame].
    #[arg(long)]
    pub rules: Option<String>,
    /// One bot per seat in seat order, comma-separated; their count (2-4) is the number of
    /// players [default: greedy,random,random,random].
    #[arg(long)]
    pub bots: Option<String>,
    /// Number of deals; with --rotate-seats each is played once per rotation [default: 100000].
    #[arg(long)]
    pub games: Option<u64>,
    /// Master seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Index of the first deal, to split one run into shards whose tallies add up [default: 0].
    #[arg(long)]
    pub first_game: Option<u64>,
    /// Worker threads; 0 = one per core. Never changes the results [default: 0].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Deals per unit of work. Never changes the results [default: 256].
    #[arg(long)]
    pub chunk_size: Option<u64>,
    /// Write run.json, summary.csv, seats.csv, lengths.csv, length_stats.csv, events.csv here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also write games.csv (one row per game, in game order); needs --out.
    #[arg(long)]
    pub per_game: bool,
    /// Play each deal once per rotation of the lineup around the seats, the dice staying with
    /// the seats.
    #[arg(long)]
    pub rotate_seats: bool,
    /// No progress bar and no timing line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Directory of bot profiles [default: bots].
    #[arg(long)]
    pub bots_dir: Option<PathBuf>,
    /// Head-to-head of two bots (--bots A,B) with a sequential test, e.g.
    /// `elo0=0,elo1=20,alpha=0.05,beta=0.05`: seats are rotated, each deal's pair of games is
    /// one unit, and the run stops as soon as the test accepts H0 or H1 (checked after every
    /// chunk of deals in deal order; chunks of 16 deals unless --chunk-size is given).
    #[arg(long, value_name = "SPEC")]
    pub sprt: Option<String>,
    /// With --sprt: the most deals (pairs of games) to play before calling the test
    /// inconclusive [default: --games].
    #[arg(long, requires = "sprt")]
    pub max_games: Option<u64>,
    /// A bot program that fails (crashes, hangs, answers nonsense) forfeits the game in
    /// progress, counted in a `forfeits` column of summary.csv and games.csv; its program is
    /// restarted and the run goes on. Without it the run stops with the error.
    #[arg(long)]
    pub recover: bool,
}

/// Options after merging the command line over a config or manifest over the defaults.
struct Resolved {
    spec: RunSpec,
    rules_label: String,
    exec: Exec,
    out: Option<PathBuf>,
    per_game: bool,
    quiet: bool,
}

fn resolve(args: &RunArgs) -> anyhow::Result<Resolved> {
    let (cfg, base_spec, base_per_game, base_label) = if let Some(path) = &args.manifest {
        let m = Manifest::load(path)?;
        let spec = m.spec(&path.display().to_string())?;
        (
            RunConfigFile::default(),
            Some(spec),
            m.per_game,
            m.rules_name,
        )
    } else if let Some(path) = &args.config {
        (RunConfigFile::load(path)?, None, false, String::new())
    } else {
        (RunConfigFile::default(), None, false, String::new())
    };
    let cfg_file = args
        .config
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let bots_dir = args
        .bots_dir
        .clone()
        .or(cfg.bots_dir.clone())
        .unwrap_or_else(|| PathBuf::from(DEFAULT_BOTS_DIR));

    let (rules, rules_label): (Rules, String) = match (&args.rules, &cfg.rules) {
        (Some(r), _) => (
            load_rules(r).with_context(|| format!("--rules {r}"))?,
            r.clone(),
        ),
        (None, Some(v)) => (
            cfg.rules(&cfg_file)?.expect("set"),
            match v {
                toml::Value::String(s) => s.clone(),
                _ => format!("inline rules of {cfg_file}"),
            },
        ),
        (None, None) => match &base_spec {
            Some(s) => (s.rules, base_label),
            None => (Rules::default(), "appfreegame".to_string()),
        },
    };
    let lineup = match (&args.bots, &cfg.bots, &base_spec) {
        (Some(b), _, _) => load_lineup(b, &bots_dir).context("--bots")?,
        (None, Some(b), _) => {
            load_lineup(&b.to_arg(), &bots_dir).with_context(|| format!("`bots` in {cfg_file}"))?
        }
        (None, None, Some(s)) => s.lineup.clone(),
        (None, None, None) => load_lineup(DEFAULT_BOTS, &bots_dir)?,
    };
    let pick = |cli: Option<u64>, cfg: Option<u64>, base: Option<u64>, default: u64| {
        cli.or(cfg).or(base).unwrap_or(default)
    };
    let spec = RunSpec {
        rules,
        lineup,
        seed: pick(
            args.seed,
            cfg.seed,
            base_spec.as_ref().map(|s| s.seed),
            DEFAULT_SEED,
        ),
        first_deal: pick(
            args.first_game,
            cfg.first_game,
            base_spec.as_ref().map(|s| s.first_deal),
            0,
        ),
        deals: pick(
            args.games,
            cfg.games,
            base_spec.as_ref().map(|s| s.deals),
            DEFAULT_GAMES,
        ),
        rotate_seats: args.rotate_seats
            || cfg.rotate_seats.unwrap_or(false)
            || base_spec.as_ref().is_some_and(|s| s.rotate_seats),
    };
    spec.validate()?;
    let out = args.out.clone().or(cfg.out.clone());
    let per_game = args.per_game || cfg.per_game.unwrap_or(base_per_game);
    if per_game && out.is_none() {
        anyhow::bail!("--per-game writes games.csv into the output directory: give --out DIR");
    }
    let exec = Exec {
        threads: args.threads.or(cfg.threads).unwrap_or(0),
        chunk_deals: args
            .chunk_size
            .or(cfg.chunk_size)
            .unwrap_or(DEFAULT_CHUNK_DEALS),
    };
    if exec.chunk_deals == 0 {
        anyhow::bail!("--chunk-size must be at least 1 deal");
    }
    Ok(Resolved {
        spec,
        rules_label,
        exec,
        out,
        per_game,
        quiet: args.quiet || cfg.quiet.unwrap_or(false),
    })
}

fn prepare_out(dir: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create output directory {}", dir.display()))?;
    let path = dir.join(MANIFEST_FILE);
    std::fs::write(&path, manifest.to_json())
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

pub(super) fn progress_bar(total: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {human_pos}/{human_len} games  {rate}  ETA {eta}")
            .expect("valid template")
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0} games/s", s.per_sec());
            }),
    );
    bar
}

/// Runs `aeroplane run`.
pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let mut r = resolve(&args)?;
    let sprt = match &args.sprt {
        Some(text) => {
            let config: aeroplane::analysis::SprtConfig =
                text.parse().with_context(|| format!("--sprt {text}"))?;
            super::sprt::check(&mut r.spec)?;
            if let Some(m) = args.max_games {
                r.spec.deals = m;
                r.spec.validate()?;
            }
            if r.per_game {
                anyhow::bail!("--per-game cannot be combined with --sprt");
            }
            // The test is checked once per chunk: small chunks stop closer to the bound.
            if args.chunk_size.is_none() && args.config.is_none() {
                r.exec.chunk_deals = SPRT_CHUNK_DEALS;
            }
            Some(config)
        }
        None => None,
    };
    super::external::attach_logs(&mut r.spec, r.out.as_deref());
    let spec = &r.spec;
    let manifest = Manifest::new(spec, &r.rules_label, r.per_game);
    if let Some(dir) = &r.out {
        prepare_out(dir, &manifest)?;
    }
    let mut games_csv = match (&r.out, r.per_game, args.recover) {
        (Some(dir), true, false) => Some(GamesCsv::create(&dir.join("games.csv"))?),
        (Some(dir), true, true) => Some(GamesCsv::create_with_forfeits(&dir.join("games.csv"))?),
        _ => None,
    };
    let bar = progress_bar(spec.total_games(), r.quiet);
    let start = Instant::now();
    if let Some(config) = sprt {
        let title = format!(
            "aeroplane run --sprt: rules {}, seed {}, seats rotated",
            r.rules_label, spec.seed
        );
        let games = super::sprt::run(spec, config, r.exec, r.out.as_deref(), &title, &|n| {
            bar.inc(n)
        })?;
        bar.finish_and_clear();
        if !r.quiet {
            let secs = start.elapsed().as_secs_f64();
            eprintln!("played {games} games in {secs:.2} s");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let tally = runner::run_with(
        spec,
        r.exec,
        runner::RunOptions::recover(args.recover),
        games_csv.as_mut().map(|g| g as &mut dyn GameSink),
        &|n| bar.inc(n),
    )?;
    let secs = start.elapsed().as_secs_f64();
    bar.finish_and_clear();

    let names: Vec<String> = spec.lineup.iter().map(|b| b.name.clone()).collect();
    let summary = Summary::new(&tally, &names);
    let title = format!(
        "aeroplane run: rules {}, {} players, seed {}, deals {}..{}{}",
        r.rules_label,
        spec.players(),
        spec.seed,
        spec.first_deal,
        spec.first_deal + spec.deals,
        if spec.rotate_seats {
            ", seats rotated"
        } else {
            ""
        }
    );
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    write_report(&mut out, &title, &summary)?;
    super::external::write_forfeits(&mut out, args.recover, spec, &tally)?;
    if let Some(dir) = &r.out {
        let report = Report {
            tally: &tally,
            summary: &summary,
        };
        for table in super::external::tables(args.recover) {
            write_table(dir, table, &report)?;
        }
    }
    if !r.quiet {
        eprintln!(
            "played {} games in {secs:.2} s ({:.0} games/s)",
            tally.games,
            tally.games as f64 / secs.max(1e-9)
        );
    }
    Ok(ExitCode::SUCCESS)
}
