//! Coverage of `aeroplane grade`'s 95% intervals (issue 31, item 11): many independent grades
//! of one bot (seeds 1..=R) at a small number of deals each, against the "truth" of one large
//! grade (seed 0), and the share of intervals that hold it, for the error rate, the optimal
//! share, the loss per decision and the loss per game.
//!
//! ```text
//! aeroplane solve --rules classic --planes 1 --out /tmp/classic-1
//! cargo run --release --example grade_coverage -- --table /tmp/classic-1 --bot greedy \
//!     --deals 50,300 --replicates 1000 --truth-deals 200000
//! ```
//!
//! Issue 48, item 10: the loss intervals on a variant of rare, heavy errors (appfreegame with one
//! plane and the flight optional, `p1f.toml`) and on the two-plane presets, 300 deals:
//!
//! ```text
//! aeroplane solve --rules p1f.toml --players 2 --out /tmp/p1f
//! cargo run --release --example grade_coverage -- --table /tmp/p1f --bot greedy \
//!     --deals 300 --replicates 1000 --truth-deals 200000 --threads 1
//! ```
//!
//! (docs/guide/statistics.md, Grading, has the table.) Every grade is seeded, so the figures depend only on the arguments. A 95% interval should
//! hold the truth in about 95% of the grades (the standard error of a coverage estimated from
//! 1,000 grades is about 0.007); the truth itself carries the error of its own grade, which at
//! 200,000 deals is a tenth of the half-width at 300 deals or less.

use std::path::PathBuf;
use std::sync::atomic::AtomicU64;

use clap::Parser;

use aeroplane::grade::{BotGrade, Estimate, GradeContext, GradeJob, grade};

#[derive(Parser, Debug)]
struct Args {
    /// The solve's folder.
    #[arg(long)]
    table: PathBuf,
    /// The graded bot.
    #[arg(long, default_value = "greedy")]
    bot: String,
    /// Deals per grade, comma-separated.
    #[arg(long, default_value = "50,300")]
    deals: String,
    /// Grades per number of deals.
    #[arg(long, default_value_t = 1000)]
    replicates: u64,
    /// Deals of the grade that stands for the truth.
    #[arg(long, default_value_t = 200_000)]
    truth_deals: u64,
    /// Worker threads (never changes the figures).
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

fn one(args: &Args, seed: u64, deals: u64) -> BotGrade {
    let bots = aeroplane::config::parse_lineup(&args.bot, std::path::Path::new("bots"))
        .expect("a bot the harness knows");
    let job = GradeJob {
        reference: aeroplane::grade::Reference::Table(args.table.clone()),
        bots,
        seed,
        deals,
        threshold: aeroplane::grade::DEFAULT_THRESHOLD,
        blunders: 0,
        chunk_deals: 64,
        threads: args.threads,
        report: false,
        ratings: false,
    };
    let progress = AtomicU64::new(0);
    let ctx = GradeContext {
        progress: &progress,
        interrupt: None,
        out: None,
        resume: false,
        unit_done: None,
        game_done: None,
        note: None,
        resumed: None,
    };
    grade(&job, &ctx).expect("the grade runs").bots.remove(0)
}

type Pick = fn(&BotGrade) -> Option<Estimate>;

fn main() {
    let args = Args::parse();
    let truth = one(&args, 0, args.truth_deals);
    let figures: [(&str, Pick); 4] = [
        ("error rate", |b| b.error_rate),
        ("optimal when it matters", |b| b.optimal_when_matters),
        ("loss mp/decision", |b| b.loss_mp_per_decision),
        ("loss mp/game", |b| Some(b.loss_mp_per_game)),
    ];
    println!(
        "bot {} on {}: truth from {} deals (seed 0)",
        args.bot,
        args.table.display(),
        args.truth_deals
    );
    for (name, pick) in figures {
        match pick(&truth) {
            Some(t) => println!("  {name}: {:.6}", t.value),
            None => println!("  {name}: none (no decisions)"),
        }
    }
    println!("deals,figure,replicates,coverage,below,above,no_estimate,mean_width");
    for deals in args
        .deals
        .split(',')
        .map(|d| d.trim().parse::<u64>().unwrap())
    {
        let grades: Vec<BotGrade> = (1..=args.replicates)
            .map(|seed| one(&args, seed, deals))
            .collect();
        for (name, pick) in figures {
            let Some(t) = pick(&truth).map(|e| e.value) else {
                continue;
            };
            let (mut hold, mut below, mut above, mut none, mut width) = (0, 0, 0, 0, 0.0);
            for g in &grades {
                match pick(g) {
                    Some(e) if e.low <= t && t <= e.high => hold += 1,
                    Some(e) if t < e.low => below += 1,
                    Some(e) if t > e.high => above += 1,
                    _ => none += 1,
                }
                if let Some(e) = pick(g) {
                    width += e.high - e.low;
                }
            }
            let r = args.replicates as f64;
            println!(
                "{deals},{name},{},{:.4},{below},{above},{none},{:.6}",
                args.replicates,
                f64::from(hold) / r,
                width / r
            );
        }
    }
}
