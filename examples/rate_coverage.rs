//! Coverage of a rotated run's win-rate interval (`summary.csv`, a grade's win rate; issue 31,
//! item 13) at small numbers of deals: two-player pairs drawn from a fixed distribution of the
//! bot's wins per pair (0, 1 or 2), the interval of [`rate_interval`], and the share of
//! intervals that hold the true win rate.
//!
//! ```text
//! cargo run --release --example rate_coverage -- --deals 20,29,30,31,50,100,300 --trials 20000
//! ```
//!
//! Two distributions: `typical` (0, 1, 2 wins with probabilities 0.15, 0.40, 0.45: a stronger
//! bot, as greedy against random plays) and `mostly_split` (95% of the pairs split one win
//! each, the rest 0.01 lost twice and 0.04 won twice). Everything is seeded: the figures depend
//! only on the arguments.

use clap::Parser;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use aeroplane::analysis::Z95;
use aeroplane::stats::{IntervalMethod, rate_interval};

#[derive(Parser, Debug)]
struct Args {
    /// Deals (pairs) per run, comma-separated.
    #[arg(long, default_value = "20,29,30,31,50,100,300")]
    deals: String,
    /// Runs per number of deals and distribution.
    #[arg(long, default_value_t = 20_000)]
    trials: u64,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() {
    let a = Args::parse();
    let dists: [(&str, [f64; 3]); 2] = [
        ("typical", [0.15, 0.40, 0.45]),
        ("mostly_split", [0.01, 0.95, 0.04]),
    ];
    println!("distribution,deals,trials,coverage,wilson_floor_share");
    for (name, p) in dists {
        let truth = (p[1] + 2.0 * p[2]) / 2.0;
        for n in a.deals.split(',').map(|x| x.trim().parse::<u64>().unwrap()) {
            let mut rng = Pcg64Mcg::seed_from_u64(a.seed ^ n ^ ((name.len() as u64) << 32));
            let (mut hold, mut floored) = (0u64, 0u64);
            for _ in 0..a.trials {
                let (mut wins, mut wins_sq) = (0u64, 0u64);
                for _ in 0..n {
                    let u: f64 = rng.random();
                    let y = if u < p[0] {
                        0
                    } else if u < p[0] + p[1] {
                        1
                    } else {
                        2
                    };
                    wins += y;
                    wins_sq += y * y;
                }
                let i = rate_interval(wins, 2 * n, n, 2, wins_sq, Z95).unwrap();
                hold += u64::from(i.low <= truth && truth <= i.high);
                floored += u64::from(i.method == IntervalMethod::WilsonOnDeals);
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
