//! Unbiasedness and coverage of the luck-adjusted win rate (`run --luck`, docs/LUCK.md; issue
//! 33, item 1): `--seeds` matches of `--deals` rotated deals each (seeds 1, 2, ...), the plain
//! and the luck-adjusted win rate of the first bot in each, with their 95% intervals (normal,
//! clustered by deal, as `luck.csv` gives them).
//!
//! ```text
//! aeroplane train --rules classic --players 2 --games 300 --eval-deals 0 --seed 3 --out /tmp/bad
//! cargo run --release --example luck_coverage -- --rules classic --bots greedy,expectimax \
//!     --net bots/nets/td-classic-2p.safetensors --net /tmp/bad/net.safetensors
//! ```
//!
//! `--ply N` measures the luck at ply N (`run --luck-ply`).
//!
//! Per net it prints: the mean over the seeds of the plain and of the adjusted estimate, the
//! difference of the two means with its standard error (from the seeds' paired differences:
//! unbiasedness says it is 0 within about two errors), the variance ratio over the seeds
//! (plain / adjusted: the games saved), and the coverage of each interval: the share of seeds
//! whose interval holds the truth, taken as the plain estimate pooled over every seed's games
//! (its own error is `1/sqrt(seeds)` of one seed's).

use clap::Parser;

use aeroplane::analysis::luck::{Adjusted, LuckNet, LuckTally};
use aeroplane::config::{load_rules, parse_lineup};
use aeroplane::runner::{self, Exec, Flow, Plan, RunOptions, RunSpec};

#[derive(Parser, Debug)]
struct Args {
    /// A preset or rules file.
    #[arg(long, default_value = "classic")]
    rules: String,
    /// The lineup (the first bot's win rate is estimated).
    #[arg(long, default_value = "greedy,expectimax")]
    bots: String,
    /// Net files to measure luck with (one study per net).
    #[arg(long, required = true)]
    net: Vec<String>,
    /// Matches (seeds 1..=N).
    #[arg(long, default_value_t = 1000)]
    seeds: u64,
    /// Rotated deals per match.
    #[arg(long, default_value_t = 50)]
    deals: u64,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// The depth of the luck measure (`--luck-ply`: 0 to 3).
    #[arg(long, default_value_t = 0)]
    ply: i64,
}

fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let rules = load_rules(&a.rules)?;
    let lineup = parse_lineup(&a.bots, std::path::Path::new("bots"))?;
    println!(
        "net,seeds,deals,mean_plain,mean_adjusted,diff,diff_se,variance_ratio,coverage_plain,coverage_adjusted"
    );
    for file in &a.net {
        let net = LuckNet::load(file)?.with_ply(aeroplane::analysis::luck::LuckPly::new(a.ply)?);
        let mut est: Vec<(Adjusted, Adjusted)> = Vec::new();
        let parts: Vec<RunSpec> = (1..=a.seeds)
            .map(|seed| RunSpec {
                rules,
                lineup: lineup.clone(),
                seed,
                first_deal: 0,
                deals: a.deals,
                rotate_seats: true,
            })
            .collect();
        // One unit per match: each part's deals in one unit, delivered in seed order.
        let plan = Plan::chunked(&parts, a.deals)?;
        let exec = Exec {
            threads: a.threads,
            chunk_deals: a.deals,
            ..Exec::default()
        };
        runner::execute(
            &parts,
            plan.every(0, 1),
            RunOptions {
                luck: std::slice::from_ref(&net),
                ..RunOptions::new(exec)
            },
            &mut |u| {
                let t: LuckTally = u.luck.expect("luck measured");
                let z = aeroplane::stats::z_for(0.95);
                let g = t.games[0];
                let w = Adjusted::new(&t.win[0], t.deals, g, z);
                est.push((w, Adjusted::new(&t.score[0], t.deals, g, z)));
                Ok(Flow::Continue)
            },
        )?;
        let n = est.len() as f64;
        let plain: Vec<f64> = est.iter().map(|e| e.0.plain).collect();
        let adj: Vec<f64> = est.iter().map(|e| e.0.adjusted).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let var = |v: &[f64]| {
            let m = mean(v);
            v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0)
        };
        let diffs: Vec<f64> = plain.iter().zip(&adj).map(|(p, q)| q - p).collect();
        let truth = mean(&plain);
        let covers = |f: &dyn Fn(&Adjusted) -> Option<(f64, f64)>| {
            est.iter()
                .filter(|e| f(&e.0).is_some_and(|(lo, hi)| lo <= truth && truth <= hi))
                .count() as f64
                / n
        };
        println!(
            "{file},{},{},{:.5},{:.5},{:+.5},{:.5},{:.2},{:.4},{:.4}",
            a.seeds,
            a.deals,
            truth,
            mean(&adj),
            mean(&diffs),
            (var(&diffs) / n).sqrt(),
            var(&plain) / var(&adj),
            covers(&|e| e.plain_interval),
            covers(&|e| e.interval),
        );
    }
    Ok(())
}
