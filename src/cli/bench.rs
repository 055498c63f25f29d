//! `aeroplane bench`: times the published workloads ([`aeroplane::experiment::bench`]) and
//! prints games per second with each workload's digest.
//!
//! Each workload is timed `--runs` times and the median is reported with the fastest and the
//! slowest run, because a shared machine's noise is large and one-sided (it only slows runs).
//! A timed run plays the games as `aeroplane run` does (tallies, no per-game rows); the digest
//! comes from one more run that hashes every game's row. Each timing also gives the process's
//! CPU time (all threads), the figure that a busy machine disturbs least.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::Preset;
use aeroplane::experiment::bench::{
    BENCH_SEED, Digest, WORKLOAD_NAMES, WORKLOADS, digest_bare, digest_run, tally_run, workload,
};
use aeroplane::runner::Exec;

use super::common::cpu_seconds;

/// Arguments of `aeroplane bench`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane bench
  aeroplane bench --games 100000 --baseline --runs 5
  aeroplane bench --workload appfreegame-greedy --games 1000000 --threads 1,2 --runs 5")]
pub struct BenchArgs {
    /// Games per workload.
    #[arg(long, default_value_t = 50_000)]
    pub games: u64,
    /// Worker threads (0 = one per core), or a comma-separated list to time each workload
    /// with each count in turn (e.g. `1,2`). The digest never depends on it.
    #[arg(long, default_value = "1", value_delimiter = ',', num_args = 1)]
    pub threads: Vec<usize>,
    /// Only these workloads (comma-separated): appfreegame-greedy, appfreegame-random,
    /// classic-mixed, chinese-mixed. The total line needs all four.
    #[arg(long, value_delimiter = ',', num_args = 1, value_parser = clap::builder::PossibleValuesParser::new(WORKLOAD_NAMES))]
    pub workload: Vec<String>,
    /// Also time a bare single-threaded loop of the same games (no runner) and check that it
    /// gives the same digest.
    #[arg(long)]
    pub baseline: bool,
    /// Timed runs per workload: the median is reported, with the fastest and slowest run.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Time this lineup (one bot per seat, comma-separated) instead of the published
    /// workloads, e.g. a search bot's cost: `--bots td-appfreegame-2p,greedy --games 2000`.
    #[arg(long)]
    pub bots: Option<String>,
    /// The preset of a `--bots` workload.
    #[arg(long, default_value = "appfreegame", requires = "bots")]
    pub rules: String,
}

/// One timed run: wall-clock and CPU seconds.
#[derive(Clone, Copy)]
struct Timing {
    wall: f64,
    cpu: f64,
}

/// Times `work` `runs` times; returns each run's timing, sorted by wall-clock time, and the
/// value `work` returns, which every run must agree on.
fn timed(
    runs: usize,
    mut work: impl FnMut() -> anyhow::Result<u64>,
) -> anyhow::Result<(Vec<Timing>, u64)> {
    let mut times = Vec::with_capacity(runs);
    let mut value = None;
    for _ in 0..runs {
        let (cpu, start) = (cpu_seconds(), Instant::now());
        let v = work()?;
        times.push(Timing {
            wall: start.elapsed().as_secs_f64(),
            cpu: cpu_seconds() - cpu,
        });
        if value.is_some_and(|d| d != v) {
            anyhow::bail!(
                "two runs of one workload gave different results: the engine is not deterministic"
            );
        }
        value = Some(v);
    }
    times.sort_by(|a, b| a.wall.total_cmp(&b.wall));
    Ok((times, value.expect("at least one run")))
}

/// `median games/s (fastest-slowest, median seconds, CPU seconds)` for `games` games.
fn speed(games: u64, times: &[Timing]) -> String {
    let median = times[times.len() / 2];
    let rate = |s: f64| games as f64 / s;
    let mut cpu: Vec<f64> = times.iter().map(|t| t.cpu).collect();
    cpu.sort_by(f64::total_cmp);
    let cpu = cpu[cpu.len() / 2];
    if times.len() == 1 {
        format!(
            "{:>9.0} games/s  ({:.2} s, {cpu:.2} s CPU)",
            rate(median.wall),
            median.wall
        )
    } else {
        format!(
            "{:>9.0} games/s  (runs {:.0}-{:.0}, median {:.2} s, {cpu:.2} s CPU)",
            rate(median.wall),
            rate(times[times.len() - 1].wall),
            rate(times[0].wall),
            median.wall
        )
    }
}

/// Runs `aeroplane bench`.
pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if args.games == 0 {
        anyhow::bail!("--games must be at least 1");
    }
    if args.runs == 0 {
        anyhow::bail!("--runs must be at least 1");
    }
    let threads: Vec<String> = args
        .threads
        .iter()
        .map(|&t| {
            if t == 0 {
                "all".to_string()
            } else {
                t.to_string()
            }
        })
        .collect();
    writeln!(
        out,
        "aeroplane bench: seed {BENCH_SEED}, {} games per workload, {} thread(s), median of {} run(s)",
        args.games,
        threads.join(","),
        args.runs
    )?;
    let custom: Vec<((Preset, &str), &str)> = match &args.bots {
        Some(bots) => {
            let preset = args.rules.parse::<Preset>().map_err(|_| {
                anyhow::anyhow!(
                    "--rules {}: a --bots workload takes a preset (appfreegame, classic, chinese)",
                    aeroplane::excerpt::excerpt(&args.rules)
                )
            })?;
            vec![((preset, bots.as_str()), "custom")]
        }
        None => WORKLOADS.into_iter().zip(WORKLOAD_NAMES).collect(),
    };
    let all = args.workload.is_empty() && args.bots.is_none();
    let mut total = Digest::new();
    let (mut total_games, mut total_secs) = (0u64, 0f64);
    for ((preset, bots), name) in custom {
        if !args.workload.is_empty() && !args.workload.iter().any(|w| w == name) {
            continue;
        }
        let spec = workload(preset, bots, args.games)?;
        let exec = |threads| Exec {
            threads,
            ..Exec::default()
        };
        // The digest: one run that hashes every game's row.
        let hash = digest_run(&spec, exec(args.threads[0]))?;
        for (k, &t) in args.threads.iter().enumerate() {
            let (times, games) = timed(args.runs, || Ok(tally_run(&spec, exec(t))?))?;
            debug_assert_eq!(games, args.games);
            if k == 0 {
                total_games += args.games;
                total_secs += times[times.len() / 2].wall;
            }
            if args.threads.len() > 1 {
                let label = format!("{bots}, {} thread(s)", threads[k]);
                writeln!(
                    out,
                    "{:<12} {label:<41} {}  digest {hash:016x}",
                    preset.name(),
                    speed(args.games, &times)
                )?;
            } else {
                writeln!(
                    out,
                    "{:<12} {bots:<28} {}  digest {hash:016x}",
                    preset.name(),
                    speed(args.games, &times)
                )?;
            }
        }
        if args.baseline {
            let (times, bare_hash) = timed(args.runs, || Ok(digest_bare(&spec)?))?;
            writeln!(
                out,
                "{:<12} {:<28} {}  bare loop, 1 thread{}",
                "",
                "",
                speed(args.games, &times),
                if bare_hash == hash {
                    ", same digest"
                } else {
                    ""
                }
            )?;
            if bare_hash != hash {
                anyhow::bail!(
                    "the bare loop's digest {bare_hash:016x} differs from the runner's {hash:016x}"
                );
            }
        }
        total.add_bytes(&hash.to_le_bytes());
    }
    if all {
        writeln!(
            out,
            "total        {:<28} {:>9.0} games/s  ({:.2} s, medians)  digest {:016x}",
            "",
            total_games as f64 / total_secs,
            total_secs,
            total.value()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
