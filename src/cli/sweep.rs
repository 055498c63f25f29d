//! `aeroplane sweep`: plays every rule variant of a Cartesian product with the same seeds
//! (common random numbers) and compares their fairness and length.
//!
//! Each variant is an ordinary run ([`runner::run`]) of the same lineup, seed and deals; only
//! the rules differ. `sweep.csv` has one row per variant in product order (see [`HEADER`]).

use std::cmp::Ordering;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::Counter;
use aeroplane::RuleOption;
use aeroplane::Seat;
use aeroplane::analysis::paired::ProportionSummary;
use aeroplane::analysis::{Axis, PairedIndicators, PairedSummary, PairedSums, Variant, variants};
use aeroplane::export::Manifest;
use aeroplane::runner::{self, Exec, GameRow, GameSink, RunSpec};
use aeroplane::stats::{Summary, Tally};

use super::common::{DEFAULT_BOTS_DIR, load_lineup, load_rules, write_csv};
use super::run::progress_bar;

/// The columns of `sweep.csv`. Seat columns exist for all four seats; those not in play are
/// empty. Rates are fractions; `*_lo95`/`*_hi95` are Wilson 95% bounds; `chi2_p` is the p-value
/// of "all seats win equally often"; `max_seat_edge` is the largest |seat win rate - 1/players|;
/// event columns are means per game.
pub const HEADER: [&str; 33] = [
    "index",
    "variant",
    "players",
    "games",
    "seat0_win",
    "seat0_lo95",
    "seat0_hi95",
    "seat1_win",
    "seat1_lo95",
    "seat1_hi95",
    "seat2_win",
    "seat2_lo95",
    "seat2_hi95",
    "seat3_win",
    "seat3_lo95",
    "seat3_hi95",
    "chi2_p",
    "max_seat_edge",
    "turns_mean",
    "turns_sd",
    "turns_median",
    "turns_p95",
    "rolls_mean",
    "rolls_sd",
    "rolls_median",
    "rolls_p95",
    "moves_per_game",
    "captures_per_game",
    "penalties_per_game",
    "jumps_per_game",
    "flights_per_game",
    "bounces_per_game",
    "unfinished",
];

/// The counters of the `*_per_game` columns, in column order.
const PER_GAME: [Counter; 6] = [
    Counter::Moves,
    Counter::Captures,
    Counter::Penalties,
    Counter::Jumps,
    Counter::Flights,
    Counter::Bounces,
];

/// A sweep config (TOML): optional `rules`, `bots`, `games`, `seed` and a `[sweep]` table of
/// `option = [values]` (launch_rolls sets as arrays: `launch_rolls = [[6], [5, 6]]`), taken in
/// RULES.md option order (launch_rolls first). The
/// command line overrides `rules`, `bots`, `games` and `seed`; its `--vary` axes come after
/// the config's.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepConfig {
    rules: Option<String>,
    bots: Option<String>,
    games: Option<u64>,
    seed: Option<u64>,
    #[serde(default)]
    sweep: toml::Table,
}

/// Arguments of `aeroplane sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// A sweep config (TOML) with rules, bots, games, seed and a `[sweep]` table of
    /// `option = [values]`, e.g. `overshoot = ["illegal", "bounce"]`,
    /// `launch_rolls = [[6], [2, 4, 6]]`.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The base rules: a preset (appfreegame, classic, chinese) or a variant .toml file
    /// [default: appfreegame].
    #[arg(long)]
    pub rules: Option<String>,
    /// An option to vary, `OPTION=v1,v2,...` (repeatable; the product of all is played).
    /// launch_rolls takes sets separated by `;`: `launch_rolls=[6];[5,6];[2,4,6]`. Options:
    /// launch_rolls, home_lane_cells, overshoot, specials, flight_optional,
    /// flight_captures_crossed, three_sixes, stacking, end, max_turns.
    #[arg(
        long = "vary",
        value_name = "OPTION=VALUES",
        required_unless_present = "config"
    )]
    pub vary: Vec<String>,
    /// One bot per seat, comma-separated (2-4) [default: greedy,greedy,greedy,greedy].
    #[arg(long)]
    pub bots: Option<String>,
    /// Deals per variant (every variant plays the same deals) [default: 10000].
    #[arg(long)]
    pub games: Option<u64>,
    /// Master seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Play each deal once per rotation of the lineup.
    #[arg(long)]
    pub rotate_seats: bool,
    /// Worker threads; 0 = one per core. Never changes the results.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write run.json, sweep.csv (and compare.csv with --compare) here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Sort the table by this sweep.csv column (ascending; prefix `-` for descending)
    /// [default: max_seat_edge, fairest first].
    #[arg(long, allow_hyphen_values = true)]
    pub sort: Option<String>,
    /// Paired comparison of two variants over the shared deals: `I,J` (indices as in the
    /// `index` column); without a value, the first two.
    #[arg(long, num_args = 0..=1, default_missing_value = "1,2", value_name = "I,J")]
    pub compare: Option<String>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Directory of bot profiles.
    #[arg(long, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
}

/// The arguments with the config and defaults applied.
struct Resolved {
    rules: String,
    bots: String,
    games: u64,
    seed: u64,
    args: SweepArgs,
}

impl std::ops::Deref for Resolved {
    type Target = SweepArgs;
    fn deref(&self) -> &SweepArgs {
        &self.args
    }
}

/// Per-game outcomes kept for a paired comparison: seat 0 won, turns.
#[derive(Default)]
struct Outcomes(Vec<(bool, u32)>);

impl GameSink for Outcomes {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        self.0.extend(rows.iter().map(|r| {
            let rec = &r.played.record;
            (rec.winner == Seat::new(0), rec.counters[Counter::Turns])
        }));
        Ok(())
    }
}

/// The result of a paired comparison between two variants.
struct Comparison {
    a: usize,
    b: usize,
    seat0: Option<ProportionSummary>,
    turns: Option<PairedSummary>,
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

/// An axis as `--vary` text: `overshoot=illegal,bounce`, `launch_rolls=[6];[2,4,6]`.
fn axis_text(a: &Axis) -> String {
    let values: Vec<String> = a
        .settings()
        .iter()
        .map(|s| {
            let text = s.to_string();
            text.split_once('=')
                .map_or(text.clone(), |(_, v)| v.to_string())
        })
        .collect();
    let sep = if a.option() == "launch_rolls" {
        ";"
    } else {
        ","
    };
    format!("{}={}", a.option(), values.join(sep))
}

/// One variant's row of `sweep.csv`, as text cells.
fn row(index: usize, v: &Variant, s: &Summary) -> Vec<String> {
    let f = |x: Option<f64>| match x {
        Some(v) if v.is_finite() => format!("{v:.6}"),
        _ => String::new(),
    };
    let mut cells = vec![
        (index + 1).to_string(),
        v.label(),
        s.players.to_string(),
        s.games.to_string(),
    ];
    for seat in Seat::ALL {
        match s.seats.iter().find(|l| l.seat == seat) {
            Some(l) => {
                cells.push(f(Some(l.win_rate)));
                cells.push(f(l.interval.map(|i| i.0)));
                cells.push(f(l.interval.map(|i| i.1)));
            }
            None => cells.extend([String::new(), String::new(), String::new()]),
        }
    }
    cells.push(
        s.seat_test
            .map(|c| format!("{:.3e}", c.p_value))
            .unwrap_or_default(),
    );
    cells.push(f(Some(max_edge(s))));
    for l in &s.lengths {
        match l.spread {
            Some(sp) => cells.extend([
                f(Some(sp.mean)),
                f(Some(sp.sd)),
                sp.median.to_string(),
                sp.p95.to_string(),
            ]),
            None => cells.extend([String::new(), String::new(), String::new(), String::new()]),
        }
    }
    let per = |n: u64| f((s.games > 0).then(|| n as f64 / s.games as f64));
    for c in PER_GAME {
        cells.push(per(s.counters[c]));
    }
    cells.push(s.unfinished.to_string());
    debug_assert_eq!(cells.len(), HEADER.len());
    cells
}

/// The largest |seat win rate - 1/players|.
fn max_edge(s: &Summary) -> f64 {
    let fair = 1.0 / s.players as f64;
    s.seats
        .iter()
        .map(|l| (l.win_rate - fair).abs())
        .fold(0.0, f64::max)
}

/// Orders rows by `column` (numeric when both cells parse, else text; empty cells last).
fn sort_rows(rows: &mut [Vec<String>], column: &str) -> anyhow::Result<()> {
    let (desc, name) = match column.strip_prefix('-') {
        Some(n) => (true, n),
        None => (false, column),
    };
    let k = HEADER.iter().position(|&h| h == name).ok_or_else(|| {
        anyhow::anyhow!(
            "--sort `{name}` is not a sweep.csv column; allowed: {}",
            HEADER.join(", ")
        )
    })?;
    rows.sort_by(|x, y| {
        let (a, b) = (&x[k], &y[k]);
        let ord = match (a.is_empty(), b.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(p), Ok(q)) => p.total_cmp(&q),
                _ => a.cmp(b),
            },
        };
        if desc { ord.reverse() } else { ord }
    });
    Ok(())
}

/// Runs `aeroplane sweep`.
pub fn run(mut args: SweepArgs) -> anyhow::Result<ExitCode> {
    let mut axes: Vec<Axis> = Vec::new();
    if let Some(path) = &args.config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read sweep config {}", path.display()))?;
        let cfg: SweepConfig = toml::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "in sweep config {}: {}\n(allowed keys: rules, bots, games, seed, [sweep])",
                path.display(),
                e.to_string().trim()
            )
        })?;
        // A TOML table has no order: its axes go in RULES.md option order.
        let mut entries: Vec<_> = cfg.sweep.iter().collect();
        entries.sort_by_key(|(o, _)| RuleOption::from_name(o));
        for (option, values) in entries {
            axes.push(
                Axis::from_toml(option, values)
                    .with_context(|| format!("[sweep] in {}", path.display()))?,
            );
        }
        args.rules = args.rules.or(cfg.rules);
        args.bots = args.bots.or(cfg.bots);
        args.games = args.games.or(cfg.games);
        args.seed = args.seed.or(cfg.seed);
    }
    let args = Resolved {
        rules: args
            .rules
            .take()
            .unwrap_or_else(|| "appfreegame".to_string()),
        bots: args
            .bots
            .take()
            .unwrap_or_else(|| "greedy,greedy,greedy,greedy".to_string()),
        games: args.games.unwrap_or(10_000),
        seed: args.seed.unwrap_or(1),
        args,
    };
    let base = load_rules(&args.rules).with_context(|| format!("--rules {}", args.rules))?;
    for t in &args.vary {
        axes.push(t.parse::<Axis>().with_context(|| format!("--vary {t}"))?);
    }
    if axes.is_empty() {
        anyhow::bail!("nothing to vary: give --vary OPTION=v1,v2 or a [sweep] table in --config");
    }
    let all = variants(base, &axes)?;
    let lineup = load_lineup(&args.bots, &args.bots_dir).context("--bots")?;
    let specs: Vec<RunSpec> = all
        .iter()
        .map(|v| RunSpec {
            rules: v.rules,
            lineup: lineup.clone(),
            seed: args.seed,
            first_deal: 0,
            deals: args.games,
            rotate_seats: args.rotate_seats,
        })
        .collect();
    specs[0].validate()?;
    let compare = args
        .compare
        .as_deref()
        .map(|t| parse_compare(t, all.len()))
        .transpose()?;
    if let Some(sort) = &args.sort {
        sort_rows(&mut [], sort)?;
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {}", dir.display()))?;
        let manifest = Manifest::new(&specs[0], &args.rules, false);
        let json = serde_json::json!({
            "command": "sweep",
            "base": manifest,
            "vary": axes.iter().map(axis_text).collect::<Vec<_>>(),
            "variants": all.iter().map(Variant::label).collect::<Vec<_>>(),
            "compare": compare.map(|(a, b)| [a + 1, b + 1]),
        });
        let path = dir.join("run.json");
        let mut text = serde_json::to_string_pretty(&json)?;
        text.push('\n');
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }

    let exec = Exec {
        threads: args.threads,
        ..Exec::default()
    };
    let bar = progress_bar(specs[0].total_games() * specs.len() as u64, args.quiet);
    let mut rows = Vec::with_capacity(specs.len());
    let mut kept: Vec<Outcomes> = Vec::new();
    let names: Vec<String> = lineup.iter().map(|b| b.name.clone()).collect();
    for (i, (spec, v)) in specs.iter().zip(&all).enumerate() {
        let keep = compare.is_some_and(|(a, b)| i == a || i == b);
        let mut sink = Outcomes::default();
        let tally: Tally = runner::run(
            spec,
            exec,
            keep.then_some(&mut sink as &mut dyn GameSink),
            &|n| bar.inc(n),
        )
        .with_context(|| format!("variant {}", v.label()))?;
        if keep {
            kept.push(sink);
        }
        rows.push(row(i, v, &Summary::new(&tally, &names)));
    }
    bar.finish_and_clear();
    let comparison = compare.map(|(a, b)| {
        // `kept` holds the two variants in product order.
        let (ka, kb) = if a < b {
            (&kept[0], &kept[1])
        } else {
            (&kept[1], &kept[0])
        };
        let mut seat0 = PairedIndicators::new();
        let mut turns = PairedSums::new();
        for (x, y) in ka.0.iter().zip(&kb.0) {
            seat0.add(x.0, y.0);
            turns.add(i64::from(x.1), i64::from(y.1));
        }
        Comparison {
            a,
            b,
            seat0: seat0.summary(),
            turns: turns.summary(),
        }
    });

    if let Some(dir) = &args.out {
        write_csv(&dir.join("sweep.csv"), &HEADER, &rows)?;
        if let Some(c) = &comparison {
            write_csv(
                &dir.join("compare.csv"),
                &COMPARE_HEADER,
                &compare_rows(c, &all),
            )?;
        }
    }
    let mut sorted = rows.clone();
    sort_rows(&mut sorted, args.sort.as_deref().unwrap_or("max_seat_edge"))?;
    print_table(&args, &sorted, lineup.len());
    if let Some(c) = &comparison {
        println!();
        println!(
            "paired comparison over {} shared games: A = #{} {}, B = #{} {}",
            args.games * specs[0].games_per_deal(),
            c.a + 1,
            all[c.a].label(),
            c.b + 1,
            all[c.b].label()
        );
        for r in compare_rows(c, &all) {
            println!(
                "  {:<14} A {:>10}  B {:>10}  A-B {:>10}  95% [{}, {}]  p {}",
                r[2], r[3], r[4], r[5], r[6], r[7], r[8]
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The columns of `compare.csv`: one row per compared metric (`seat0_win`, `turns`); `p` is
/// McNemar's test for the win rate and the paired t-test for turns.
pub const COMPARE_HEADER: [&str; 9] = [
    "a",
    "b",
    "metric",
    "mean_a",
    "mean_b",
    "diff",
    "diff_lo95",
    "diff_hi95",
    "p",
];

fn compare_rows(c: &Comparison, all: &[Variant]) -> Vec<Vec<String>> {
    let line = |metric: &str, s: Option<PairedSummary>| {
        let mut r = vec![all[c.a].label(), all[c.b].label(), metric.to_string()];
        match s {
            Some(s) => r.extend([
                format!("{:.6}", s.mean_a),
                format!("{:.6}", s.mean_b),
                format!("{:.6}", s.diff),
                format!("{:.6}", s.low),
                format!("{:.6}", s.high),
                format!("{:.3e}", s.p_value),
            ]),
            None => r.extend(std::iter::repeat_n(String::new(), 6)),
        }
        r
    };
    vec![
        line("seat0_win", c.seat0.map(|p| p.test)),
        line("turns", c.turns),
    ]
}

fn print_table(args: &Resolved, rows: &[Vec<String>], players: usize) {
    let seats = Seat::in_play(players);
    println!(
        "aeroplane sweep: rules {} ({} variants), bots {}, seed {}, {} deals each{}",
        args.rules,
        rows.len(),
        args.bots,
        args.seed,
        args.games,
        if args.rotate_seats {
            ", seats rotated"
        } else {
            ""
        }
    );
    let width = rows.iter().map(|r| r[1].len()).max().unwrap_or(7).max(7);
    let mut head = format!("{:>3}  {:<width$}", "#", "variant");
    for s in seats {
        head.push_str(&format!("  {:>7}", format!("seat{}", s.index())));
    }
    head.push_str(&format!(
        "  {:>9}  {:>6}  {:>7}  {:>5}  {:>5}  {:>10}",
        "chi2_p", "edge", "turns", "med", "p95", "unfinished"
    ));
    println!("{head}");
    let short = |x: &str| {
        x.parse::<f64>()
            .map(|v| format!("{v:.4}"))
            .unwrap_or_default()
    };
    for r in rows {
        let mut line = format!("{:>3}  {:<width$}", r[0], r[1]);
        for s in seats {
            line.push_str(&format!("  {:>7}", short(&r[4 + 3 * s.index()])));
        }
        line.push_str(&format!(
            "  {:>9}  {:>6}  {:>7}  {:>5}  {:>5}  {:>10}",
            r[16],
            short(&r[17]),
            r[18]
                .parse::<f64>()
                .map(|v| format!("{v:.1}"))
                .unwrap_or_default(),
            r[20],
            r[21],
            r[32]
        ));
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_game_columns_are_named_after_their_counters() {
        let names: Vec<String> = PER_GAME
            .iter()
            .map(|c| format!("{}_per_game", c.name()))
            .collect();
        let columns: Vec<&str> = HEADER
            .iter()
            .copied()
            .filter(|h| h.ends_with("_per_game"))
            .collect();
        assert_eq!(columns, names);
    }
}
