//! Coverage of the match score's 95% interval (`match.csv`, `sprt.json`; issue 31, item 13) at
//! small numbers of pairs: pairs drawn from a fixed pentanomial distribution, the interval of
//! [`GroupScores::estimate`], and the share of intervals that hold the true mean score.
//!
//! ```text
//! cargo run --release --example match_coverage -- --pairs 20,29,30,31,50,100 --trials 20000
//! ```
//!
//! Two distributions: `typical` (pair scores 0, 1/4, 1/2, 3/4, 1 with probabilities
//! 0.10, 0.05, 0.45, 0.05, 0.35: a stronger bot A, as greedy against random plays) and
//! `mostly_even` (95% of the pairs WL, scoring 1/2, the rest split 0 and 1 as 0.01 and 0.04).
//! Everything is seeded: the figures depend only on the arguments.

use clap::Parser;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use aeroplane::analysis::elo::GroupScores;

#[derive(Parser, Debug)]
struct Args {
    /// Pairs per match, comma-separated.
    #[arg(long, default_value = "20,29,30,31,50,100")]
    pairs: String,
    /// Matches per number of pairs and distribution.
    #[arg(long, default_value_t = 20_000)]
    trials: u64,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() {
    let a = Args::parse();
    let dists: [(&str, [f64; 5]); 2] = [
        ("typical", [0.10, 0.05, 0.45, 0.05, 0.35]),
        ("mostly_even", [0.01, 0.0, 0.95, 0.0, 0.04]),
    ];
    println!("distribution,pairs,trials,coverage,wilson_floor_share");
    for (name, p) in dists {
        let truth: f64 = p.iter().enumerate().map(|(k, q)| q * k as f64 / 4.0).sum();
        for n in a.pairs.split(',').map(|x| x.trim().parse::<u64>().unwrap()) {
            let mut rng = Pcg64Mcg::seed_from_u64(a.seed ^ n ^ (name.len() as u64) << 32);
            let (mut hold, mut floored) = (0u64, 0u64);
            for _ in 0..a.trials {
                let mut counts = vec![0u64; 5];
                for _ in 0..n {
                    let u: f64 = rng.random();
                    let mut acc = 0.0;
                    let mut k = 4;
                    for (i, q) in p.iter().enumerate() {
                        acc += q;
                        if u < acc {
                            k = i;
                            break;
                        }
                    }
                    counts[k] += 1;
                }
                let e = GroupScores::new(counts).estimate().unwrap();
                hold += u64::from(e.score_low <= truth && truth <= e.score_high);
                floored += u64::from(e.interval_method.name() == "wilson_on_pairs");
            }
            let t = a.trials as f64;
            println!(
                "{name},{n},{},{:.4},{:.4}",
                a.trials,
                hold as f64 / t,
                floored as f64 / t
            );
        }
    }
}
