//! `aeroplane bench`: times the published workloads ([`aeroplane::experiment::bench`]) and
//! prints games per second with each workload's digest.
//!
//! Each workload is timed `--runs` times and the median is reported with the fastest and the
//! slowest run, because a shared machine's noise is large and one-sided (it only slows runs).

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::experiment::bench::{
    BENCH_SEED, Digest, WORKLOADS, digest_bare, digest_run, workload,
};
use aeroplane::runner::Exec;

/// Arguments of `aeroplane bench`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane bench
  aeroplane bench --games 100000 --baseline --runs 5")]
pub struct BenchArgs {
    /// Games per workload.
    #[arg(long, default_value_t = 50_000)]
    pub games: u64,
    /// Worker threads (0 = one per core). The digest never depends on it.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Also time a bare single-threaded loop of the same games (no runner) and check that it
    /// gives the same digest.
    #[arg(long)]
    pub baseline: bool,
    /// Timed runs per workload: the median is reported, with the fastest and slowest run. Every
    /// run must give the same digest.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
}

/// Times `work` `runs` times; returns the seconds of each run, sorted, and the digest, which
/// every run must agree on.
fn timed(
    runs: usize,
    mut work: impl FnMut() -> anyhow::Result<u64>,
) -> anyhow::Result<(Vec<f64>, u64)> {
    let mut secs = Vec::with_capacity(runs);
    let mut digest = None;
    for _ in 0..runs {
        let start = Instant::now();
        let hash = work()?;
        secs.push(start.elapsed().as_secs_f64());
        if digest.is_some_and(|d| d != hash) {
            anyhow::bail!(
                "two runs of one workload gave different digests: the engine is not deterministic"
            );
        }
        digest = Some(hash);
    }
    secs.sort_by(f64::total_cmp);
    Ok((secs, digest.expect("at least one run")))
}

/// `median games/s (fastest-slowest, median seconds)` for `games` games timed as `secs`.
fn speed(games: u64, secs: &[f64]) -> String {
    let median = secs[secs.len() / 2];
    let rate = |s: f64| games as f64 / s;
    if secs.len() == 1 {
        format!("{:>9.0} games/s  ({median:.2} s)", rate(median))
    } else {
        format!(
            "{:>9.0} games/s  (runs {:.0}-{:.0}, median {median:.2} s)",
            rate(median),
            rate(secs[secs.len() - 1]),
            rate(secs[0])
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
    let exec = Exec {
        threads: args.threads,
        ..Exec::default()
    };
    writeln!(
        out,
        "aeroplane bench: seed {BENCH_SEED}, {} games per workload, {} thread(s), median of {} run(s)",
        args.games,
        if args.threads == 0 {
            "all".to_string()
        } else {
            args.threads.to_string()
        },
        args.runs
    )?;
    let mut all = Digest::new();
    let (mut total_games, mut total_secs) = (0u64, 0f64);
    for (preset, bots) in WORKLOADS {
        let spec = workload(preset, bots, args.games)?;
        let (secs, hash) = timed(args.runs, || Ok(digest_run(&spec, exec)?))?;
        let median = secs[secs.len() / 2];
        total_games += args.games;
        total_secs += median;
        writeln!(
            out,
            "{:<12} {:<28} {}  digest {hash:016x}",
            preset.name(),
            bots,
            speed(args.games, &secs)
        )?;
        if args.baseline {
            let (secs, bare_hash) = timed(args.runs, || Ok(digest_bare(&spec)?))?;
            writeln!(
                out,
                "{:<12} {:<28} {}  bare loop, 1 thread{}",
                "",
                "",
                speed(args.games, &secs),
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
        all.add_bytes(&hash.to_le_bytes());
    }
    writeln!(
        out,
        "total        {:<28} {:>9.0} games/s  ({:.2} s, medians)  digest {:016x}",
        "",
        total_games as f64 / total_secs,
        total_secs,
        all.value()
    )?;
    Ok(ExitCode::SUCCESS)
}
