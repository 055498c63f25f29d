//! `aeroplane grade`: bots measured against perfect play.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::grade::{
    DEFAULT_BLUNDERS, DEFAULT_CHUNK_DEALS, DEFAULT_THRESHOLD, FolderState, GRADE_FILE,
    GradeContext, GradeError, GradeJob, LogGradeContext, LogGradeJob, NetReference, Reference,
    folder_state, grade, grade_log_with,
};

use super::common::{DEFAULT_BOTS_DIR, note_shadowing, open_out, print_written};
use super::progress::Progress;
use super::signals::interrupt_flag;

/// Arguments of `aeroplane grade`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane solve --rules classic --planes 2 --out results/solve/classic-2
  aeroplane grade --table results/solve/classic-2 --games 500 --out results/grade/classic-2 --report
  aeroplane grade --table results/solve/classic-2 --bots expectimax:depth=1,expectimax:depth=2,expectimax:depth=3
  aeroplane grade --net bots/nets/td-classic-2p.safetensors --bots greedy,expectimax --games 200
  aeroplane grade --net bots/nets/td-classic-4p.safetensors --log results/m/games.jsonl.zst
(docs/ANALYSIS.md: grading against a net, grading a decision log, rating labels)")]
pub struct GradeArgs {
    /// The --out folder of `aeroplane solve` (or its table.bin): the rules and perfect play.
    #[arg(long, required_unless_present = "net", conflicts_with = "net")]
    pub table: Option<PathBuf>,
    /// Grade against a td net's N-ply evaluation instead (a net of `aeroplane train`, for
    /// the rules and players graded): where no table exists.
    #[arg(long, value_name = "FILE")]
    pub net: Option<PathBuf>,
    /// With --net: die rolls the net's search looks beyond each decision's own (0 to 2; 2,
    /// the depth checked against perfect play, unless told: docs/ANALYSIS.md).
    #[arg(long, requires = "net", default_value_t = 2)]
    pub ply: u8,
    /// With --net: the rules to grade on (a preset or a rules file) [default: the net's own].
    #[arg(long, requires = "net")]
    pub rules: Option<String>,
    /// Grade the decisions of this decision log (`run --log-games`) instead of playing the
    /// bots: every bot of its lineup, against --net or --table.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["bots", "games", "seed", "chunk_size"])]
    pub log: Option<PathBuf>,
    /// Give each bot its rating label by its loss per decision (net grades always do).
    #[arg(long)]
    pub ratings: bool,
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
    /// Deals per unit of work (1 to 65,536). Never changes the results.
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

/// The reference of the arguments.
fn reference(args: &GradeArgs) -> Reference {
    match (&args.table, &args.net) {
        (Some(t), _) => Reference::Table(t.clone()),
        (None, Some(n)) => Reference::Net(NetReference {
            net: n.clone(),
            ply: args.ply,
            rules: args.rules.clone(),
        }),
        (None, None) => unreachable!("clap requires --table or --net"),
    }
}

/// Runs `aeroplane grade`.
pub fn run(args: GradeArgs) -> anyhow::Result<ExitCode> {
    let reference = reference(&args);
    if let Some(log) = &args.log {
        return grade_log_file(&args, log, reference);
    }
    let bots =
        aeroplane::config::parse_lineup(&with_table(&args.bots, reference.path()), &args.bots_dir)?;
    note_shadowing(&args.bots, &args.bots_dir);
    let job = GradeJob {
        reference: reference.clone(),
        bots,
        seed: args.seed,
        deals: args.games,
        threshold: args.threshold,
        blunders: args.blunders,
        chunk_deals: args.chunk_size,
        threads: args.threads,
        report: args.report,
        ratings: args.ratings,
    };
    // The reference is read and checked before the folder is touched.
    match &reference {
        Reference::Table(t) => {
            let table = aeroplane::solve::Table::load(t)?;
            aeroplane::grade::check_table_rules(t, &table)?;
        }
        Reference::Net(n) => {
            n.load(None)?;
        }
    }
    let out = open_out(args.out.as_deref(), args.force, args.report)?;
    execute(&job, out, false, args.quiet)
}

/// `aeroplane grade --log FILE`: the log's decisions judged offline.
fn grade_log_file(
    args: &GradeArgs,
    log: &std::path::Path,
    reference: Reference,
) -> anyhow::Result<ExitCode> {
    let job = LogGradeJob {
        log: log.to_path_buf(),
        reference,
        threshold: args.threshold,
        blunders: args.blunders,
        threads: args.threads,
        ratings: args.ratings,
    };
    // The reference and the log's header are read and checked against each other before the
    // folder is touched: a refused log leaves no folder behind.
    aeroplane::grade::check_log_job(&job)?;
    let out = match &args.out {
        Some(dir) => open_out(Some(dir), args.force, false)?,
        None => None,
    };
    execute_log(&job, out, args.quiet)
}

/// Grades a decision log (with its status and files in `out`, if given).
fn execute_log(
    job: &LogGradeJob,
    out: Option<aeroplane::export::OutputDir>,
    quiet: bool,
) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let ctx = LogGradeContext {
        interrupt: Some(interrupt_flag()),
        out: out.as_ref(),
        game_done: super::common::test_game_hook(),
    };
    let report = match grade_log_with(job, &ctx) {
        Err(GradeError::Interrupted) => {
            match &out {
                Some(dir) => eprintln!(
                    "interrupted: the log's grade is not complete in {}.\nTo resume, run: aeroplane resume {} (it grades the log again from its first game)",
                    aeroplane::excerpt::path(dir.path()),
                    aeroplane::excerpt::path(dir.path())
                ),
                None => eprintln!("interrupted: the log's grade is not complete"),
            }
            return Ok(ExitCode::from(130));
        }
        r => r?,
    };
    let mut stdout = std::io::stdout().lock();
    report.write_text(&mut stdout)?;
    print_written(&mut stdout, out.as_ref())?;
    stdout.flush()?;
    if !quiet {
        eprintln!(
            "graded {} decisions of the log in {:.2} s",
            indicatif::HumanCount(report.bots.iter().map(|b| b.decisions).sum::<u64>()),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `aeroplane resume DIR` for the folder of an `aeroplane grade`: goes on from whatever state a
/// stop left it in (see `aeroplane::grade::folder_state`).
pub fn resume(dir: &std::path::Path, quiet: bool, threads: usize) -> anyhow::Result<ExitCode> {
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
    if let Some(job) = record.log_job(threads) {
        let out = aeroplane::export::OutputDir::reopen(dir)?;
        return execute_log(&job, Some(out), quiet);
    }
    let job = record.job(&file, threads)?;
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
