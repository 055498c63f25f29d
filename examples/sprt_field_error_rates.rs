//! The error rates of the three- and four-player SPRT (`run --sprt --bots A,B,B,B`): many
//! simulated tests of bot A against copies of B, each stopped by the harness's test (the
//! GSPRT on deal-group scores, [`Field`]), checked every `--check-every` groups, and the share
//! that accepts H1 and H0 at a true Elo of `elo0` (the false-positive rate, nominal alpha) and
//! `elo1` (one minus the power, nominal beta).
//!
//! ```text
//! cargo run --release --example sprt_field_error_rates -- --players 4 --tests 2000
//! cargo run --release --example sprt_field_error_rates -- --players 4 --seat-luck 1.0
//! ```
//!
//! A game ranks its seats by Plackett-Luce: each seat's weight is its bot's strength (A's
//! `10^(elo/400)`, each B's 1) times the seat's luck in that deal, `exp(seat_luck * z)` with
//! `z` standard normal, drawn once per deal and seat and shared by the deal's games (in the
//! harness a deal's dice are the seats' in every game of its group, so a lucky seat is lucky
//! for whoever sits in it). Without seat luck the true expected group score is exactly the
//! hypothesis' ([`Field::score`]); with it the score that a strength gives is lower (luck
//! dilutes skill), so the model's Elo and the test's differ: the program then also measures
//! the true score at each strength and tests at the strength whose true score is the
//! hypothesis', which is what the test's alpha and beta are about. `--winner-only` ranks only
//! the first finisher. Everything is seeded: the figures depend only on the arguments.

use clap::Parser;
use rand::{Rng, RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use aeroplane::analysis::sprt::{Field, field_points};
use aeroplane::analysis::{Sprt, SprtConfig, Verdict};

#[derive(Parser, Debug)]
struct Args {
    /// Players per game (3 or 4; 2 is the pentanomial head-to-head).
    #[arg(long, default_value_t = 4)]
    players: usize,
    /// H0's Elo.
    #[arg(long, default_value_t = 0.0)]
    elo0: f64,
    /// H1's Elo.
    #[arg(long, default_value_t = 10.0)]
    elo1: f64,
    /// Tests per hypothesis.
    #[arg(long, default_value_t = 2_000)]
    tests: u64,
    /// Groups between looks at the LLR (the harness looks after each chunk, 16 deals).
    #[arg(long, default_value_t = 16)]
    check_every: u64,
    /// The most groups of a test (then it is inconclusive).
    #[arg(long, default_value_t = 100_000)]
    max_groups: u64,
    /// The spread of a seat's luck per deal (0: none).
    #[arg(long, default_value_t = 0.0)]
    seat_luck: f64,
    /// Only the winner is ranked (`end = first_finisher`).
    #[arg(long)]
    winner_only: bool,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut impl Rng) -> f64 {
    let u: f64 = rng.random_range(f64::EPSILON..1.0);
    let v: f64 = rng.random();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// One deal group's points for A: A in each seat in turn, the seats' luck shared.
fn group(rng: &mut impl Rng, a: &Args, strength: f64) -> u32 {
    let n = a.players;
    let luck: Vec<f64> = (0..n).map(|_| (a.seat_luck * normal(rng)).exp()).collect();
    let seats: Vec<usize> = (0..n).collect();
    let mut points = 0;
    for a_seat in 0..n {
        // Plackett-Luce: draw the finishing order one rank at a time.
        let mut weight: Vec<f64> = (0..n)
            .map(|s| luck[s] * if s == a_seat { strength } else { 1.0 })
            .collect();
        let mut ranks = vec![0u8; n];
        let ranked = if a.winner_only { 1 } else { n };
        for rank in 1..=ranked {
            let total: f64 = weight.iter().sum();
            let mut x = rng.random::<f64>() * total;
            let mut pick = n - 1;
            for (s, &w) in weight.iter().enumerate() {
                if w > 0.0 && x < w {
                    pick = s;
                    break;
                }
                x -= w;
            }
            while weight[pick] == 0.0 {
                pick -= 1;
            }
            ranks[pick] = rank as u8;
            weight[pick] = 0.0;
        }
        points += field_points(&ranks, &seats, a_seat);
    }
    points
}

/// The true mean group score at `strength`, by simulation.
fn true_score(rng: &mut impl Rng, a: &Args, field: Field, strength: f64, groups: u64) -> f64 {
    let total: u64 = (0..groups)
        .map(|_| u64::from(group(rng, a, strength)))
        .sum();
    total as f64 / (groups as f64 * f64::from(field.steps()))
}

/// The strength whose true score is `target` (bisection on the simulated score, common
/// random numbers: the same seed at every trial strength).
fn strength_for(a: &Args, field: Field, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.5f64, 2.0f64);
    for _ in 0..30 {
        let mid = (lo * hi).sqrt();
        let mut rng = Pcg64Mcg::seed_from_u64(a.seed ^ 0x5eed);
        if true_score(&mut rng, a, field, mid, 200_000) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo * hi).sqrt()
}

fn main() {
    let a = Args::parse();
    let config = SprtConfig::new(a.elo0, a.elo1, 0.05, 0.05).expect("valid hypotheses");
    let field = Field::new(a.players, a.winner_only);
    let probe = Sprt::for_field(config, field);
    let (s0, s1) = probe.hypotheses();
    println!(
        "{} players{}, seat luck {}, SPRT elo0={} elo1={} alpha=beta=0.05 (scores {:.5} and {:.5}), {} tests each, LLR checked every {} groups",
        a.players,
        if a.winner_only { " (winner only)" } else { "" },
        a.seat_luck,
        a.elo0,
        a.elo1,
        s0,
        s1,
        a.tests,
        a.check_every
    );
    println!("truth,strength_elo,true_score,tests,h1,h0,inconclusive,error_rate,mean_groups");
    for (label, target, wrong) in [
        ("elo0", s0, Verdict::AcceptH1),
        ("elo1", s1, Verdict::AcceptH0),
    ] {
        let strength = if a.seat_luck == 0.0 {
            10f64.powf(if label == "elo0" { a.elo0 } else { a.elo1 } / 400.0)
        } else {
            strength_for(&a, field, target)
        };
        let mut check = Pcg64Mcg::seed_from_u64(a.seed ^ 0xc0ffee);
        let measured = true_score(&mut check, &a, field, strength, 400_000);
        let mut rng = Pcg64Mcg::seed_from_u64(a.seed);
        let (mut h1, mut h0, mut open, mut groups) = (0u64, 0u64, 0u64, 0u64);
        for _ in 0..a.tests {
            let mut test = Sprt::for_field(config, field);
            let mut verdict = Verdict::Continue;
            while verdict == Verdict::Continue && test.groups() < a.max_groups {
                for _ in 0..a.check_every {
                    test.add(group(&mut rng, &a, strength));
                }
                verdict = test.status();
            }
            groups += test.groups();
            match verdict {
                Verdict::AcceptH1 => h1 += 1,
                Verdict::AcceptH0 => h0 += 1,
                Verdict::Continue => open += 1,
            }
        }
        let errors = if wrong == Verdict::AcceptH1 { h1 } else { h0 };
        println!(
            "{label},{:.2},{measured:.5},{},{h1},{h0},{open},{:.4},{:.0}",
            400.0 * strength.log10(),
            a.tests,
            errors as f64 / a.tests as f64,
            groups as f64 / a.tests as f64
        );
    }
}
