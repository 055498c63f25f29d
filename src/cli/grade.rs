//! `aeroplane grade`: bots measured against perfect play.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::grade::{
    DEFAULT_BLUNDERS, DEFAULT_CHUNK_DEALS, DEFAULT_THRESHOLD, FolderState, GRADE_FILE,
    GradeContext, GradeError, GradeJob, folder_state, grade,
};

use super::common::{DEFAULT_BOTS_DIR, note_shadowing, open_out, print_written};
use super::progress::Progress;
use super::signals::interrupt_flag;

/// Arguments of `aeroplane grade`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane solve --rules classic --planes 2 --out results/solve/classic-2
  aeroplane grade --table results/solve/classic-2 --games 500 --out results/grade/classic-2 --report
  aeroplane grade --table results/solve/classic-2 --bots expectimax:depth=1,expectimax:depth=2,expectimax:depth=3")]
pub struct GradeArgs {
    /// The --out folder of `aeroplane solve` (or its table.bin): the rules and perfect play.
    #[arg(long)]
    pub table: PathBuf,
    /// The bots to grade, comma-separated; each plays the exact bot (`exact` alone plays from
    /// --table).
    #[arg(long, default_value = "random,greedy,expectimax,montecarlo,mcts")]
    pub bots: String,
    /// Deals per bot; each is played with both seatings (the same deals for every bot).
    #[arg(long, default_value_t = 500)]
    pub games: u64,
    /// Master seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A decision losing more than this equity against the best move is an error.
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    pub threshold: f64,
    /// The worst decisions kept per bot (all in blunders.csv, three on stdout).
    #[arg(long, default_value_t = DEFAULT_BLUNDERS)]
    pub blunders: usize,
    /// Worker threads; 0 = one per core. Never changes the results.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Deals per unit of work. Never changes the results.
    #[arg(long, default_value_t = DEFAULT_CHUNK_DEALS)]
    pub chunk_size: u64,
    /// Write grade.json, grade.csv and blunders.csv here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the results of an earlier job in --out.
    #[arg(long)]
    pub force: bool,
    /// Also write report.html into --out (with the error charts).
    #[arg(long)]
    pub report: bool,
    /// No progress bar on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Directory of bot profiles.
    #[arg(long, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
}

/// The bots with `exact` (no table given) playing from the graded table: grading perfect play
/// itself is the check that it makes no error.
fn with_table(bots: &str, table: &std::path::Path) -> String {
    bots.split(',')
        .map(|b| {
            let t = b.trim();
            if t == "exact" {
                format!("exact:table={}", table.display())
            } else {
                t.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Runs `aeroplane grade`.
pub fn run(args: GradeArgs) -> anyhow::Result<ExitCode> {
    let bots =
        aeroplane::config::parse_lineup(&with_table(&args.bots, &args.table), &args.bots_dir)?;
    note_shadowing(&args.bots, &args.bots_dir);
    let job = GradeJob {
        table: args.table.clone(),
        bots,
        seed: args.seed,
        deals: args.games,
        threshold: args.threshold,
        blunders: args.blunders,
        chunk_deals: args.chunk_size,
        threads: args.threads,
        report: args.report,
    };
    // The table is read and checked before the folder is touched.
    let table = aeroplane::solve::Table::load(&args.table)?;
    aeroplane::grade::check_table_rules(&args.table, &table)?;
    let out = open_out(args.out.as_deref(), args.force, args.report)?;
    execute(&job, out, false, args.quiet)
}

/// `aeroplane resume DIR` for the folder of an `aeroplane grade`: goes on from whatever state a
/// stop left it in (see `aeroplane::grade::folder_state`).
pub fn resume(dir: &std::path::Path, quiet: bool) -> anyhow::Result<ExitCode> {
    let record = match folder_state(dir)? {
        FolderState::Complete => {
            // Taken and let go: what a stop after the commit left (a lock file, spares) goes.
            drop(aeroplane::export::OutputDir::reopen(dir)?);
            anyhow::bail!(
                "{} holds a complete grade: nothing to resume",
                aeroplane::excerpt::path(dir)
            )
        }
        FolderState::Unfinished(r) | FolderState::Committed(r) => r,
    };
    let file = aeroplane::excerpt::path(&dir.join(GRADE_FILE));
    if record.version != env!("CARGO_PKG_VERSION") {
        anyhow::bail!(
            "{file} was written by aeroplane {}, this is aeroplane {}: resume it with the version that started it",
            record.version,
            env!("CARGO_PKG_VERSION")
        );
    }
    let job = record.job(&file, 0)?;
    let out = aeroplane::export::OutputDir::reopen(dir)?;
    execute(&job, Some(out), true, quiet)
}

fn execute(
    job: &GradeJob,
    out: Option<aeroplane::export::OutputDir>,
    resume: bool,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    let total = job.deals.saturating_mul(2 * job.bots.len() as u64);
    let progress = Progress::new(total, quiet);
    let start = Instant::now();
    let restored = std::sync::atomic::AtomicU64::new(0);
    let resumed = |games: u64| {
        progress.restored(games);
        restored.store(games, std::sync::atomic::Ordering::Relaxed);
        progress.println(&super::common::restored_line(games, total));
    };
    let ctx = GradeContext {
        progress: progress.counter(),
        interrupt: Some(interrupt_flag()),
        out: out.as_ref(),
        resume,
        unit_done: Some(&super::common::test_signal_hook),
        game_done: super::common::test_game_hook(),
        note: Some(&|n: &str| eprintln!("note: {n}")),
        resumed: Some(&resumed),
    };
    let result = grade(job, &ctx);
    let played = progress
        .counter()
        .load(std::sync::atomic::Ordering::Relaxed);
    progress.finish();
    let report_text = match result {
        Err(GradeError::Interrupted) => {
            match &out {
                Some(dir) => eprintln!(
                    "interrupted after {} of {} games; every finished game is kept in {}.\nTo resume, run: aeroplane resume {}",
                    indicatif::HumanCount(played),
                    indicatif::HumanCount(total),
                    dir.path().display(),
                    dir.path().display()
                ),
                None => eprintln!(
                    "interrupted; nothing was kept (give --out DIR to keep finished units and resume)"
                ),
            }
            return Ok(ExitCode::from(130));
        }
        r => r?,
    };
    let mut stdout = std::io::stdout().lock();
    report_text.write_text(&mut stdout)?;
    print_written(&mut stdout, out.as_ref())?;
    stdout.flush()?;
    if !quiet {
        let restored = restored
            .load(std::sync::atomic::Ordering::Relaxed)
            .min(total);
        let mut line = format!(
            "graded {} games in {:.2} s",
            indicatif::HumanCount(total - restored),
            start.elapsed().as_secs_f64()
        );
        if restored > 0 {
            line += &super::common::restored_tail(restored);
        }
        eprintln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}
