//! The error rates of the luck-adjusted SPRT (`run --sprt --luck NET`, docs/LUCK.md; issue 33)
//! on real games: a pool of `--deals` rotated deals of a real match is played once with the
//! net measuring every roll's luck, and many SPRTs are run on deal groups drawn from it with
//! replacement (a bootstrap: the pool is the population, so its mean is the true score
//! exactly). Each test is set with elo0 (for alpha) or elo1 (for beta) at the pool's own mean,
//! the other hypothesis `--band` Elo away, and stopped by the harness's tests, the LLR looked at
//! every `--check-every` groups: the plain GSPRT on the groups' points and the adjusted test
//! on their scores minus their luck. It prints each test's share of wrong verdicts and its mean
//! number of groups.
//!
//! ```text
//! cargo run --release --example luck_sprt_error_rates -- --rules classic --bots greedy,random \
//!     --net bots/nets/td-classic-2p.safetensors --deals 20000 --tests 2000
//! ```
//!
//! Two players only (a group is a deal's pair of games). Everything is seeded: the figures
//! depend only on the arguments.

use clap::Parser;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

use aeroplane::analysis::luck::{LuckNet, LuckTally};
use aeroplane::analysis::sprt::Field;
use aeroplane::analysis::sprt_adjusted::AdjustedSprt;
use aeroplane::analysis::{Sprt, SprtConfig, Verdict, elo_from_score};
use aeroplane::config::{load_rules, parse_lineup};
use aeroplane::runner::{self, Exec, Flow, Plan, RunOptions, RunSpec};

#[derive(Parser, Debug)]
struct Args {
    /// A preset or rules file.
    #[arg(long, default_value = "classic")]
    rules: String,
    /// The two bots (bot A first).
    #[arg(long, default_value = "greedy,random")]
    bots: String,
    /// The net that measures luck.
    #[arg(long)]
    net: String,
    /// Rotated deals in the pool.
    #[arg(long, default_value_t = 20_000)]
    deals: u64,
    /// Tests per hypothesis and test kind.
    #[arg(long, default_value_t = 2_000)]
    tests: u64,
    /// Elo between the hypotheses.
    #[arg(long, default_value_t = 20.0)]
    band: f64,
    /// Groups between looks at the LLR (the harness looks after each chunk, 16 deals).
    #[arg(long, default_value_t = 16)]
    check_every: u64,
    /// The most groups of a test (then it is inconclusive).
    #[arg(long, default_value_t = 100_000)]
    max_groups: u64,
    /// The match's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// One deal group: bot A's plain score (0, 1/2 or 1 of the pair) and its luck, score units.
#[derive(Clone, Copy)]
struct Group {
    plain: f64,
    luck: f64,
}

/// A test's outcome counts.
#[derive(Default)]
struct Count {
    h1: u64,
    h0: u64,
    open: u64,
    groups: u64,
}

impl Count {
    fn add(&mut self, verdict: Verdict, groups: u64) {
        self.groups += groups;
        match verdict {
            Verdict::AcceptH1 => self.h1 += 1,
            Verdict::AcceptH0 => self.h0 += 1,
            Verdict::Continue => self.open += 1,
        }
    }
}

fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let rules = load_rules(&a.rules)?;
    let lineup = parse_lineup(&a.bots, std::path::Path::new("bots"))?;
    anyhow::ensure!(lineup.len() == 2, "two bots: give --bots as A,B");
    let net = LuckNet::load(&a.net)?;
    let spec = RunSpec {
        rules,
        lineup,
        seed: a.seed,
        first_deal: 0,
        deals: a.deals,
        rotate_seats: true,
    };
    let parts = std::slice::from_ref(&spec);
    // One unit per deal, so that each deal's luck comes on its own.
    let plan = Plan::chunked(parts, 1)?;
    let exec = Exec {
        threads: a.threads,
        chunk_deals: 1,
        ..Exec::default()
    };
    let mut pool: Vec<Group> = Vec::with_capacity(a.deals as usize);
    runner::execute(
        parts,
        plan.every(0, 1),
        RunOptions {
            luck: std::slice::from_ref(&net),
            ..RunOptions::new(exec)
        },
        &mut |u| {
            let t: LuckTally = u.luck.expect("luck measured");
            let g = t.games[0].max(1) as f64;
            pool.push(Group {
                plain: t.score[0].y / g,
                luck: t.score[0].l / g,
            });
            Ok(Flow::Continue)
        },
    )?;
    let n = pool.len() as f64;
    let mean = |f: &dyn Fn(&Group) -> f64| pool.iter().map(f).sum::<f64>() / n;
    let plain_mean = mean(&|g| g.plain);
    let adjusted_mean = mean(&|g| g.plain - g.luck);
    let var = |f: &dyn Fn(&Group) -> f64, m: f64| {
        pool.iter().map(|g| (f(g) - m).powi(2)).sum::<f64>() / (n - 1.0)
    };
    let ratio = var(&|g| g.plain, plain_mean) / var(&|g| g.plain - g.luck, adjusted_mean);
    println!(
        "{} {}, {} deals (pool), net {}: plain score {plain_mean:.5}, adjusted {adjusted_mean:.5}, variance ratio {ratio:.2}; {} tests each, band {} Elo, LLR every {} groups",
        a.rules, a.bots, a.deals, a.net, a.tests, a.band, a.check_every
    );
    println!("test,truth_at,elo0,elo1,tests,h1,h0,inconclusive,error_rate,mean_groups");
    for adjusted in [false, true] {
        let truth = elo_from_score(if adjusted { adjusted_mean } else { plain_mean });
        for at_h0 in [true, false] {
            let (elo0, elo1) = if at_h0 {
                (truth, truth + a.band)
            } else {
                (truth - a.band, truth)
            };
            let config = SprtConfig::new(elo0, elo1, 0.05, 0.05)?;
            let mut rng = Pcg64Mcg::seed_from_u64(a.seed ^ u64::from(adjusted) ^ 0x600d);
            let mut count = Count::default();
            for _ in 0..a.tests {
                let mut plain = Sprt::for_field(config, Field::HEAD_TO_HEAD);
                let mut luck = AdjustedSprt::new(config, Field::HEAD_TO_HEAD);
                let mut verdict = Verdict::Continue;
                let mut groups = 0;
                while verdict == Verdict::Continue && groups < a.max_groups {
                    for _ in 0..a.check_every {
                        let g = pool[rng.random_range(0..pool.len())];
                        if adjusted {
                            luck.add(g.plain, g.luck);
                        } else {
                            // A pair's points out of 4 (2 per game won).
                            plain.add((g.plain * 4.0).round() as u32);
                        }
                    }
                    groups += a.check_every;
                    verdict = if adjusted {
                        luck.status()
                    } else {
                        plain.status()
                    };
                }
                count.add(verdict, groups);
            }
            let wrong = if at_h0 { count.h1 } else { count.h0 };
            println!(
                "{},{},{elo0:.2},{elo1:.2},{},{},{},{},{:.4},{:.0}",
                if adjusted { "adjusted" } else { "plain" },
                if at_h0 { "elo0" } else { "elo1" },
                a.tests,
                count.h1,
                count.h0,
                count.open,
                wrong as f64 / a.tests as f64,
                count.groups as f64 / a.tests as f64
            );
        }
    }
    Ok(())
}
