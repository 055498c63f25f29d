//! `aeroplane sweep`: arguments for [`aeroplane::experiment::SweepJob`].

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::Rules;
use aeroplane::analysis::luck::LuckNet;
use aeroplane::analysis::{Axis, BASE_AXIS};
use aeroplane::config::SweepConfigFile;
use aeroplane::experiment::{self, Axes, Lineup, SweepSettings};
use aeroplane::export::{Manifest, SortKey};

use super::common::{DEFAULT_BOTS_DIR, JobArgs, Launch, launch, load_lineup, load_rules};
use super::words::refused;

/// Arguments of `aeroplane sweep`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane sweep --vary base=appfreegame,classic,chinese --vary overshoot=illegal,bounce --games 5000
  aeroplane sweep --rules classic --vary 'launch_rolls=[6];[5,6]' --bots greedy,greedy --compare 1,2
  aeroplane sweep --config configs/sweep.toml --out results/sweep --sort -turns_mean
  aeroplane sweep --manifest results/sweep/run.json --out results/sweep-again   (reproduce a sweep)")]
pub struct SweepArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// An option to vary, `OPTION=v1,v2,...` (repeatable; the product of all is played).
    /// launch_rolls takes sets separated by `;`: `launch_rolls=[6];[5,6];[2,4,6]`. Options:
    /// launch_rolls, home_lane_cells, overshoot, specials, flight_optional,
    /// flight_captures_crossed, three_sixes, stacking, end, max_turns, planes; and `base`,
    /// whose values are presets (`base=appfreegame,classic,chinese`: each variant starts from
    /// its preset's rules, the other axes apply on top; not with --rules).
    #[arg(long = "vary", value_name = "OPTION=VALUES")]
    pub vary: Vec<String>,
    /// Sort the table by this sweep.csv column (ascending; prefix `-` for descending)
    /// [default: max_seat_edge, fairest first].
    #[arg(long, allow_hyphen_values = true)]
    pub sort: Option<String>,
    /// Paired comparison of two variants over the shared deals: `I,J`, each a variant's number
    /// (the `#` column, sweep.csv's `index`: counting from 1) or its label
    /// (`overshoot=bounce`); without a value, the first two.
    #[arg(long, num_args = 0..=1, default_missing_value = "1,2", value_name = "I,J")]
    pub compare: Option<String>,
    /// Reproduce the sweep a run.json describes (rules, bots, axes, seed, deals, rotation,
    /// comparison, order); the command line and --config override it.
    #[arg(long)]
    pub manifest: Option<std::path::PathBuf>,
    /// Measure the luck of every roll with td nets (.safetensors files of `aeroplane train`)
    /// and report luck-adjusted win rates and scores per variant beside the plain ones
    /// (luck.csv, summary.json's rows' `luck`; docs/LUCK.md). Repeatable: each variant is
    /// measured by the first net of its own rules and players (a sweep over `base` takes one
    /// per preset), and a variant no net fits is refused. Never changes the games.
    #[arg(long, value_name = "NET")]
    pub luck: Vec<std::path::PathBuf>,
    /// With --luck: the depth of the measure, 0 (default: each face's afterstate valued by
    /// the net for the roller), 1 to 3 (valued for every seat by an expectation over the next
    /// 1 to 3 rolls: narrower intervals at 3 and 4 players, some 10, 50 or 250 times the
    /// cost; docs/LUCK.md).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub luck_ply: Option<i64>,
}

/// `I,J`: two variants, each by its number (the `#` column and sweep.csv's `index`, which
/// count from 1) or by its label (`overshoot=bounce`, or `overshoot=bounce launch_rolls=[5,6]`
/// for several axes, the settings in axis order). A label may hold commas: the split is the
/// one comma that leaves two variants.
fn parse_compare(text: &str, labels: &[String]) -> anyhow::Result<(usize, usize)> {
    let count = labels.len();
    let one = |part: &str| -> Option<usize> {
        let part = part.split_whitespace().collect::<Vec<_>>().join(" ");
        match part.parse::<usize>() {
            Ok(i) => (1..=count).contains(&i).then(|| i - 1),
            Err(_) => labels.iter().position(|l| *l == part),
        }
    };
    let found: Vec<(usize, usize)> = text
        .match_indices(',')
        .filter_map(|(at, _)| Some((one(&text[..at])?, one(&text[at + 1..])?)))
        .collect();
    match found[..] {
        [(a, b)] if a != b => Ok((a, b)),
        _ => {
            let zero = if text.split(',').any(|p| p.trim() == "0") {
                " (variants count from 1, as the `#` column: the first is 1)"
            } else {
                ""
            };
            let sample = labels
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("`, `");
            Err(anyhow::anyhow!(
                "--compare `{text}`: give two different variants I,J, each a number from 1 to {count}{zero} or a label (e.g. `{sample}`)"
            ))
        }
    }
}

fn resolve(args: &SweepArgs) -> anyhow::Result<SweepSettings> {
    let a = &args.job;
    let manifest = match &args.manifest {
        Some(path) => {
            let file = path.display().to_string();
            let m = Manifest::load(path)?;
            if m.command != "sweep" {
                anyhow::bail!(
                    "{file}: it describes a {}, not a sweep: give the run.json of an `aeroplane sweep`",
                    m.command
                );
            }
            let section = m.sweep.clone().ok_or_else(|| {
                anyhow::anyhow!("{file}: a sweep's manifest needs its `sweep` section")
            })?;
            Some((m, section, file))
        }
        None => None,
    };
    let mut axes: Vec<Axis> = Vec::new();
    let mut cfg = SweepConfigFile::default();
    if let Some(path) = &a.config {
        cfg = SweepConfigFile::load(path)?;
        axes = cfg.axes(&path.display().to_string())?;
    }
    for t in &args.vary {
        axes.push(
            t.parse::<Axis>()
                .with_context(|| format!("--vary {}", aeroplane::excerpt::excerpt(t)))?,
        );
    }
    // The manifest's axes (and its comparison and order, which name its variants and columns)
    // unless the command line or config vary something.
    let from_manifest = axes.is_empty();
    if let (true, Some((_, section, file))) = (from_manifest, &manifest) {
        for t in &section.vary {
            axes.push(
                t.parse::<Axis>()
                    .with_context(|| format!("{file}: sweep.vary `{t}`"))?,
            );
        }
    }
    let axes = Axes::new(axes).map_err(|e| refused(e.into()))?;
    // The axis `base` chooses each variant's rules: a base from --rules would be unused.
    if let (Some(presets), Some(r)) = (
        axes.axes().iter().find(|x| x.option() == BASE_AXIS),
        a.rules.as_ref().or(cfg.rules.as_ref()),
    ) {
        anyhow::bail!(
            "--rules {} and --vary {} both choose the rules: with the axis `base` each variant starts from its preset (allowed: appfreegame, classic, chinese), so drop --rules (or the config's `rules`); the other --vary axes apply on top of each preset",
            aeroplane::excerpt::excerpt(r),
            presets.text()
        );
    }
    let rules = match (&a.rules, &cfg.rules, &manifest) {
        (Some(r), _, _) | (None, Some(r), _) => {
            Some((load_rules(r).context("--rules")?, r.clone()))
        }
        (None, None, Some((m, _, file))) => Some((m.rules(file)?, m.rules_name.clone())),
        (None, None, None) => None,
    };
    let bots_dir = a
        .bots_dir
        .clone()
        .unwrap_or_else(|| DEFAULT_BOTS_DIR.into());
    let (lineup, bots) = match (&a.bots, &cfg.bots, &manifest) {
        (Some(b), _, _) | (None, Some(b), _) => {
            (load_lineup(b, &bots_dir).context("--bots")?, b.clone())
        }
        (None, None, Some((m, section, file))) => {
            (Lineup::new(m.bot_specs(file)?)?, section.bots.clone())
        }
        (None, None, None) => {
            let b = experiment::DEFAULT_SWEEP_BOTS.to_string();
            (load_lineup(&b, &bots_dir)?, b)
        }
    };
    let base = rules.as_ref().map_or_else(Rules::default, |(r, _)| *r);
    let labels: Vec<String> = aeroplane::analysis::variants(base, axes.axes())?
        .iter()
        .map(|v| v.label())
        .collect();
    let kept = manifest
        .as_ref()
        .filter(|_| from_manifest)
        .map(|(_, s, _)| s);
    let compare = match (&args.compare, kept.and_then(|s| s.compare)) {
        (Some(t), _) => Some(parse_compare(t, &labels)?),
        (None, Some([i, j])) => Some((i.saturating_sub(1), j.saturating_sub(1))),
        (None, None) => None,
    };
    let sort = args
        .sort
        .as_deref()
        .or(kept.map(|s| s.sort.as_str()))
        .map(SortKey::parse);
    let m = manifest.as_ref().map(|(m, _, _)| m);
    let luck_files: Vec<std::path::PathBuf> = if args.luck.is_empty() {
        m.map(|m| m.luck.iter().map(Into::into).collect())
            .unwrap_or_default()
    } else {
        args.luck.clone()
    };
    let luck = luck_files
        .iter()
        .map(|f| LuckNet::load(f).context("--luck"))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(SweepSettings {
        rules,
        seed: a.seed.or(cfg.seed).or(m.map(|m| m.seed)),
        games: a.games.or(cfg.games).or(m.map(|m| m.games)),
        rotate_seats: a.rotate().or(m.map(|m| m.rotate_seats)),
        compare,
        sort,
        luck,
        luck_ply: super::common::luck_ply(args.luck_ply, m)?,
        exec: a.execution(None, None, a.out.clone()),
        ..SweepSettings::new(axes, lineup, bots)
    })
}

/// Runs `aeroplane sweep`.
pub fn run(args: SweepArgs) -> anyhow::Result<ExitCode> {
    launch(Launch {
        built: resolve(&args)?.build().map_err(refused)?,
        force: args.job.force,
        quiet: args.job.quiet,
        shard: args.job.shard()?,
        resume: false,
        report_every: None,
    })
}
