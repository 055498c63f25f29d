//! The Elo estimate and its 95% interval after an SPRT stops (issue 31, item 14): many
//! simulated tests of a match whose true Elo is known, each stopped by the harness's SPRT
//! (the GSPRT on pentanomial pairs, checked every `--check-every` pairs), and the share of the
//! printed intervals that hold the true Elo, with the estimate's mean and median error.
//!
//! ```text
//! cargo run --release --example sprt_stop_bias -- --elo0 0 --elo1 20 --true-elo 0,10,20 \
//!     --tests 10000 --check-every 8
//! ```
//!
//! A pair is two games with the seats swapped, each won by bot A with the probability that the
//! true Elo gives (independent games, no unfinished ones): it scores 0, 2 or 4 of 4 points.
//! Everything is seeded: the figures depend only on the arguments.

use clap::Parser;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use aeroplane::analysis::{Sprt, SprtConfig, Verdict, score_from_elo};

#[derive(Parser, Debug)]
struct Args {
    /// H0's Elo.
    #[arg(long, default_value_t = 0.0)]
    elo0: f64,
    /// H1's Elo.
    #[arg(long, default_value_t = 20.0)]
    elo1: f64,
    /// True Elo differences, comma-separated.
    #[arg(long, default_value = "0,10,20")]
    true_elo: String,
    /// Tests per true Elo.
    #[arg(long, default_value_t = 10_000)]
    tests: u64,
    /// Pairs between looks at the LLR (the harness looks after each unit of work).
    #[arg(long, default_value_t = 8)]
    check_every: u64,
    /// The most pairs of a test (then it is inconclusive).
    #[arg(long, default_value_t = 200_000)]
    max_pairs: u64,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() {
    let a = Args::parse();
    let config: SprtConfig = format!("elo0={},elo1={}", a.elo0, a.elo1).parse().unwrap();
    println!(
        "SPRT elo0={} elo1={} alpha=0.05 beta=0.05, {} tests per true Elo, LLR checked every {} pairs",
        a.elo0, a.elo1, a.tests, a.check_every
    );
    println!(
        "true_elo,tests,h1,h0,inconclusive,coverage,mean_error,median_error,mean_pairs,coverage_fixed_n"
    );
    for t in a
        .true_elo
        .split(',')
        .map(|x| x.trim().parse::<f64>().unwrap())
    {
        let p = score_from_elo(t);
        let mut rng = Pcg64Mcg::seed_from_u64(a.seed ^ t.to_bits());
        let (mut h1, mut h0, mut inc, mut hold, mut pairs_sum) = (0u64, 0u64, 0u64, 0u64, 0u64);
        let mut errors = Vec::with_capacity(a.tests as usize);
        let mut fixed_hold = 0u64;
        for _ in 0..a.tests {
            let mut test = Sprt::new(config, 4);
            let mut pairs = 0;
            let verdict = loop {
                for _ in 0..a.check_every {
                    let wins = u32::from(rng.random_bool(p)) + u32::from(rng.random_bool(p));
                    test.add(2 * wins);
                }
                pairs += a.check_every;
                match test.status() {
                    Verdict::Continue if pairs < a.max_pairs => continue,
                    v => break v,
                }
            };
            match verdict {
                Verdict::AcceptH1 => h1 += 1,
                Verdict::AcceptH0 => h0 += 1,
                Verdict::Continue => inc += 1,
            }
            let e = test.elo();
            hold += u64::from(e.low <= t && t <= e.high);
            errors.push(e.elo - t);
            pairs_sum += pairs;
            // The same number of pairs, not stopped by the test: the interval's own coverage.
            let mut fixed = Sprt::new(config, 4);
            for _ in 0..pairs {
                let wins = u32::from(rng.random_bool(p)) + u32::from(rng.random_bool(p));
                fixed.add(2 * wins);
            }
            let f = fixed.elo();
            fixed_hold += u64::from(f.low <= t && t <= f.high);
        }
        let finite: Vec<f64> = errors.iter().copied().filter(|e| e.is_finite()).collect();
        let mean = finite.iter().sum::<f64>() / finite.len() as f64;
        let mut sorted = finite.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted[sorted.len() / 2];
        let n = a.tests as f64;
        println!(
            "{t},{},{h1},{h0},{inc},{:.4},{mean:+.2},{median:+.2},{:.0},{:.4}",
            a.tests,
            hold as f64 / n,
            pairs_sum as f64 / n,
            fixed_hold as f64 / n
        );
    }
}
