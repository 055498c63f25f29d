//! `aeroplane tune`: arguments for [`TuneJob`] ([`TuneSettings`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::analysis::SprtConfig;
use aeroplane::analysis::spsa::{ALPHA, DEFAULT_PERTURBATION, DEFAULT_STEP, GAMMA};
use aeroplane::config::parse_bot;
use aeroplane::experiment::tune::{
    DEFAULT_CONFIRM_PAIRS, DEFAULT_CONFIRM_TEST, ParamRange, TUNE_CHUNK_DEALS,
};
use aeroplane::experiment::{Built, Execution, JobKind, TuneJob, TuneSettings};
use aeroplane::export::{MANIFEST_FILE, Manifest};

use super::common::{DEFAULT_BOTS_DIR, Launch, launch, load_rules, note_shadowing};
use super::words::refused;

/// Arguments of `aeroplane tune`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane tune --bot expectimax:depth=1 --param progress=0.5..3 --param exposure=0..3 \\
      --rules classic --iterations 300 --pairs-per-iteration 128 --out results/tune-classic --report
  aeroplane tune --bot expectimax:depth=1 --param hangar=0..60 --players 4 --opponent greedy --out t4
  aeroplane tune --confirm results/tune-classic --sprt elo0=0,elo1=10 --out results/confirm
  aeroplane resume results/tune-classic            (after Ctrl-C: goes on from the last iteration)

SPSA (Spall; fishtest's schedules): iteration k perturbs every parameter by +-c_k (c_k = c / (k+1)^0.101,
c = perturbation x range), plays theta+ against theta- on M deals with the seats rotated (shared dice),
and moves theta by a_k x result / (2 c_k) (a_k = a / (A+k+1)^0.602; a set so a noise-sized first result
moves a parameter by step x its range). The guide page docs/commands/tune.md has the details.")]
pub struct TuneArgs {
    /// The bot to tune, at its starting values: a profile or kind with inline parameters, e.g.
    /// expectimax:depth=1.
    #[arg(long, required_unless_present = "confirm")]
    pub bot: Option<String>,
    /// A parameter to tune and its range, NAME=LO..HI (repeat for each), e.g. progress=0.5..3.
    #[arg(long = "param", value_name = "NAME=LO..HI")]
    pub params: Vec<String>,
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file [default:
    /// appfreegame].
    #[arg(long)]
    pub rules: Option<String>,
    /// Players per game (2-4): with more than two, the two perturbed bots fill the seats
    /// alternately (or, with --opponent, one seat each in turn) [default: 2].
    #[arg(long)]
    pub players: Option<usize>,
    /// Tune against this fixed bot in the other seats instead of self-play.
    #[arg(long, value_name = "BOT")]
    pub opponent: Option<String>,
    /// SPSA iterations [default: 200].
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Deals per iteration, each played in every seating (a game pair with two players)
    /// [default: 64].
    #[arg(long, value_name = "M")]
    pub pairs_per_iteration: Option<u64>,
    /// Master seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// The first perturbation c, as a share of each parameter's range.
    #[arg(long, default_value_t = DEFAULT_PERTURBATION, allow_negative_numbers = true)]
    pub perturbation: f64,
    /// The step a noise-sized first result makes, as a share of each parameter's range (0:
    /// hold the start and estimate the gradient there; with --no-confirm).
    #[arg(long, default_value_t = DEFAULT_STEP, allow_negative_numbers = true)]
    pub step: f64,
    /// The exponent of the gain sequence a_k.
    #[arg(long, default_value_t = ALPHA, allow_negative_numbers = true)]
    pub alpha: f64,
    /// The exponent of the perturbation sequence c_k.
    #[arg(long, default_value_t = GAMMA, allow_negative_numbers = true)]
    pub gamma: f64,
    /// The stability constant A [default: 10% of the iterations].
    #[arg(long, allow_negative_numbers = true)]
    pub stability: Option<f64>,
    /// The confirming SPRT of the tuned profile against the start, on fresh deals
    /// [default: elo0=0,elo1=5,alpha=0.05,beta=0.05].
    #[arg(long, value_name = "SPEC")]
    pub sprt: Option<String>,
    /// The most deals of the confirming SPRT before it is called inconclusive [default:
    /// 100000].
    #[arg(long, value_name = "N")]
    pub confirm_pairs: Option<u64>,
    /// Skip the confirming SPRT.
    #[arg(long, conflicts_with_all = ["sprt", "confirm_pairs", "confirm"])]
    pub no_confirm: bool,
    /// Confirm an earlier tune instead of tuning: the SPRT of the tuned profile in DIR against
    /// its start, with the tune's rules, players and opponent (needs --out for a new folder).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["bot", "params", "rules", "players", "opponent", "iterations", "pairs_per_iteration"])]
    pub confirm: Option<PathBuf>,
    /// Write the tune's files here (run.json, history.csv, tuned.toml, sprt.json,
    /// summary.json); needed to resume.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the results of an earlier job in --out.
    #[arg(long)]
    pub force: bool,
    /// Worker threads; 0 = one per core. Never changes the results.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Deals per unit of work within an iteration (never changes the results), and per check
    /// of the confirming SPRT (where it can stop).
    #[arg(long, default_value_t = TUNE_CHUNK_DEALS)]
    pub chunk_size: u64,
    /// Directory of bot profiles [default: bots].
    #[arg(long)]
    pub bots_dir: Option<PathBuf>,
    /// No progress bar and no timing line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also write report.html into --out (a chart of each parameter over the iterations).
    #[arg(long)]
    pub report: bool,
    /// A line on stderr every N seconds with the current values and the recent results (0 =
    /// after every iteration) [default: every 10 s when stderr is a terminal].
    #[arg(long, value_name = "N")]
    pub report_every: Option<u64>,
}

/// Runs `aeroplane tune`.
pub fn run(args: TuneArgs) -> anyhow::Result<ExitCode> {
    let confirm = if args.no_confirm {
        None
    } else {
        let text = args.sprt.as_deref().unwrap_or(DEFAULT_CONFIRM_TEST);
        let test: SprtConfig = text.parse().with_context(|| format!("--sprt {text}"))?;
        Some((test, args.confirm_pairs.unwrap_or(DEFAULT_CONFIRM_PAIRS)))
    };
    let exec = Execution {
        threads: Some(args.threads),
        chunk_size: Some(args.chunk_size),
        out: args.out.clone(),
        report: args.report,
    };
    let built = match &args.confirm {
        Some(dir) => confirm_job(&args, dir, confirm, exec)?,
        None => tune_job(&args, confirm, exec)?,
    };
    let every = match args.report_every {
        Some(n) => Some(std::time::Duration::from_secs(n)),
        None if std::io::IsTerminal::is_terminal(&std::io::stderr()) => {
            Some(std::time::Duration::from_secs(10))
        }
        None => None,
    };
    launch(Launch {
        built,
        force: args.force,
        quiet: args.quiet,
        shard: None,
        resume: false,
        report_every: every,
    })
}

/// The tune the arguments describe.
fn tune_job(
    args: &TuneArgs,
    confirm: Option<(SprtConfig, u64)>,
    exec: Execution,
) -> anyhow::Result<Built> {
    let bots_dir = args
        .bots_dir
        .clone()
        .unwrap_or_else(|| DEFAULT_BOTS_DIR.into());
    let text = args.bot.as_deref().expect("clap requires --bot");
    let bot = parse_bot(text, &bots_dir).context("--bot")?;
    note_shadowing(text, &bots_dir);
    let opponent = match &args.opponent {
        Some(o) => {
            let spec = parse_bot(o, &bots_dir).context("--opponent")?;
            note_shadowing(o, &bots_dir);
            Some(spec)
        }
        None => None,
    };
    if args.params.is_empty() {
        anyhow::bail!(
            "nothing to tune: give --param NAME=LO..HI for each parameter, e.g. --param progress=0.5..3"
        );
    }
    let ranges = args
        .params
        .iter()
        .map(|p| p.parse::<ParamRange>())
        .collect::<Result<Vec<_>, _>>()
        .context("--param")?;
    let rules = match &args.rules {
        Some(r) => Some((load_rules(r).context("--rules")?, r.clone())),
        None => None,
    };
    if args.step == 0.0 && confirm.is_some() {
        anyhow::bail!(
            "--step 0 holds the start to estimate the gradient there: there is nothing to confirm; add --no-confirm"
        );
    }
    let settings = TuneSettings {
        opponent,
        rules,
        players: args.players,
        iterations: args.iterations,
        pairs_per_iteration: args.pairs_per_iteration,
        seed: args.seed,
        perturbation: Some(args.perturbation),
        step: Some(args.step),
        alpha: Some(args.alpha),
        gamma: Some(args.gamma),
        stability: args.stability,
        confirm,
        exec,
        ..TuneSettings::new(bot, ranges)
    };
    settings.build().map_err(refused)
}

/// The confirmation of the finished tune in `dir`.
fn confirm_job(
    args: &TuneArgs,
    dir: &std::path::Path,
    confirm: Option<(SprtConfig, u64)>,
    exec: Execution,
) -> anyhow::Result<Built> {
    if args.out.is_none() {
        anyhow::bail!(
            "--confirm writes a new folder: give --out DIR (the tune in {} is left as it is)",
            dir.display()
        );
    }
    let path = dir.join(MANIFEST_FILE);
    let file = path.display().to_string();
    let m = Manifest::load(&path)?;
    if m.command != "tune" {
        anyhow::bail!(
            "{file} describes a {}, not a tune: --confirm takes the folder of an `aeroplane tune`",
            m.command
        );
    }
    if m.status != Some(aeroplane::export::JobStatus::Complete) {
        anyhow::bail!(
            "{file}: the tune is not complete (status {:?}): finish it first with `aeroplane resume {}`",
            m.status,
            dir.display()
        );
    }
    let earlier = TuneJob::from_manifest(&m, &file)?;
    let summary = dir.join("summary.json");
    let text = aeroplane::files::read_text(&summary)
        .with_context(|| format!("reading the tuned values of {}", dir.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", summary.display()))?;
    let params = json
        .pointer("/report/params")
        .and_then(|p| p.as_array())
        .ok_or_else(|| anyhow::anyhow!("{}: no report.params", summary.display()))?;
    let mut given = Vec::new();
    for d in earlier.dimensions() {
        let value = params
            .iter()
            .find(|p| p.get("name").and_then(|n| n.as_str()) == Some(d.name.as_str()))
            .and_then(|p| p.get("tuned"))
            .and_then(|t| t.as_f64())
            .ok_or_else(|| {
                anyhow::anyhow!("{}: no tuned value of `{}`", summary.display(), d.name)
            })?;
        given.push(value);
    }
    let mut spec = earlier.spec().clone();
    let confirm = confirm.ok_or_else(|| {
        anyhow::anyhow!("--confirm runs the SPRT: it cannot be combined with --no-confirm")
    })?;
    if let Some(s) = args.seed {
        spec.seed = s;
    }
    TuneSettings::confirming(spec, given, confirm, exec).map_err(refused)
}
