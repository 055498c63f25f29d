//! `aeroplane sweep`: arguments for [`SweepJob`].

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::analysis::Axis;
use aeroplane::config::SweepConfigFile;
use aeroplane::experiment::{self, DEFAULT_SORT, SweepJob};
use aeroplane::export::SortKey;

use super::common::{DEFAULT_BOTS_DIR, JobArgs, Launch, launch, load_lineup, load_rules};

/// Arguments of `aeroplane sweep`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane sweep --vary overshoot=illegal,bounce --vary home_lane_cells=5,6 --games 5000
  aeroplane sweep --rules classic --vary 'launch_rolls=[6];[5,6]' --bots greedy,greedy --compare 1,2
  aeroplane sweep --config configs/sweep.toml --out results/sweep --sort -turns_mean")]
pub struct SweepArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// An option to vary, `OPTION=v1,v2,...` (repeatable; the product of all is played).
    /// launch_rolls takes sets separated by `;`: `launch_rolls=[6];[5,6];[2,4,6]`. Options:
    /// launch_rolls, home_lane_cells, overshoot, specials, flight_optional,
    /// flight_captures_crossed, three_sixes, stacking, end, max_turns.
    #[arg(long = "vary", value_name = "OPTION=VALUES")]
    pub vary: Vec<String>,
    /// Sort the table by this sweep.csv column (ascending; prefix `-` for descending)
    /// [default: max_seat_edge, fairest first].
    #[arg(long, allow_hyphen_values = true)]
    pub sort: Option<String>,
    /// Paired comparison of two variants over the shared deals: `I,J` (indices as in the
    /// `index` column); without a value, the first two.
    #[arg(long, num_args = 0..=1, default_missing_value = "1,2", value_name = "I,J")]
    pub compare: Option<String>,
}

fn parse_compare(text: &str, count: usize) -> anyhow::Result<(usize, usize)> {
    let bad = || {
        anyhow::anyhow!(
            "--compare `{text}`: give two different variant indices I,J between 1 and {count}"
        )
    };
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    let a: usize = a.trim().parse().map_err(|_| bad())?;
    let b: usize = b.trim().parse().map_err(|_| bad())?;
    if a == b || !(1..=count).contains(&a) || !(1..=count).contains(&b) {
        return Err(bad());
    }
    Ok((a - 1, b - 1))
}

fn resolve(args: &SweepArgs) -> anyhow::Result<SweepJob> {
    let a = &args.job;
    let mut axes: Vec<Axis> = Vec::new();
    let mut cfg = SweepConfigFile::default();
    if let Some(path) = &a.config {
        cfg = SweepConfigFile::load(path)?;
        axes = cfg.axes(&path.display().to_string())?;
    } else if args.vary.is_empty() {
        anyhow::bail!("nothing to vary: give --vary OPTION=v1,v2 or a [sweep] table in --config");
    }
    let rules_name = a
        .rules
        .clone()
        .or(cfg.rules)
        .unwrap_or_else(|| "appfreegame".to_string());
    let bots = a
        .bots
        .clone()
        .or(cfg.bots)
        .unwrap_or_else(|| "greedy,greedy,greedy,greedy".to_string());
    let base = load_rules(&rules_name).context("--rules")?;
    for t in &args.vary {
        axes.push(
            t.parse::<Axis>()
                .with_context(|| format!("--vary {}", aeroplane::excerpt::excerpt(t)))?,
        );
    }
    if axes.is_empty() {
        anyhow::bail!("nothing to vary: give --vary OPTION=v1,v2 or a [sweep] table in --config");
    }
    let count = aeroplane::analysis::variants(base, &axes)?.len();
    let bots_dir = a
        .bots_dir
        .clone()
        .unwrap_or_else(|| DEFAULT_BOTS_DIR.into());
    let lineup = load_lineup(&bots, &bots_dir).context("--bots")?;
    let compare = args
        .compare
        .as_deref()
        .map(|t| parse_compare(t, count))
        .transpose()?;
    let sort = SortKey::parse(args.sort.as_deref().unwrap_or(DEFAULT_SORT));
    Ok(SweepJob::new(
        rules_name,
        base,
        axes,
        lineup,
        bots,
        a.seed.or(cfg.seed).unwrap_or(1),
        a.games.or(cfg.games).unwrap_or(10_000),
        a.rotate().unwrap_or(false),
        compare,
        sort,
    )?)
}

/// Runs `aeroplane sweep`.
pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    let mut job = experiment::Job::Sweep(resolve(&args)?);
    super::external::attach_job_logs(&mut job, args.job.out.as_deref());
    launch(Launch {
        job,
        exec: args.job.exec(None, None)?,
        out: args.job.out.clone(),
        force: args.job.force,
        quiet: args.job.quiet,
        shard: args.job.shard()?,
        resume: false,
        report: args.job.report,
        report_every: None,
    })
}
