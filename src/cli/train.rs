//! `aeroplane train`: a value net by TD(λ) self-play (the `td` bot's net).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use aeroplane::config::parse_bot;
use aeroplane::train::{
    TRAIN_FILE, TrainContext, TrainEnd, TrainJob, TrainRecord, TrainStatus, train,
};
use aeroplane::{RuleOption, Setting};

use super::common::{
    DEFAULT_BOTS_DIR, check_resumable, cpu_seconds, load_rules, open_out, print_written,
    test_game_hook,
};
use super::progress::Progress;
use super::signals::interrupt_flag;

/// Arguments of `aeroplane train`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane train --rules appfreegame --planes 2 --games 20000 --out results/td/appfreegame-2
  aeroplane train --rules classic --players 4 --games 50000 --hidden 64 --out nets/classic-4p
  aeroplane resume nets/classic-4p                                  (after Ctrl-C)
  aeroplane run --bots td:net=nets/classic-4p/net.safetensors,expectimax --rules classic")]
pub struct TrainArgs {
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// Planes per seat (overrides the rules' `planes`).
    #[arg(long)]
    pub planes: Option<u8>,
    /// Players, 2 to 4.
    #[arg(long, default_value_t = 2)]
    pub players: usize,
    /// Self-play games.
    #[arg(long, default_value_t = 20_000)]
    pub games: u64,
    /// Master seed: the dice, the initial weights, exploration.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Hidden units.
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
    /// λ of TD(λ).
    #[arg(long, default_value_t = 0.7)]
    pub lambda: f32,
    /// Learning rate (per afterstate; a batch's gradients are summed). The default, with
    /// --alpha-end's, learns on every preset at 2, 3 and 4 players (docs/commands/train.md).
    #[arg(long, default_value_t = 0.004)]
    pub alpha: f32,
    /// Learning rate at the last game (linear from --alpha) [default: an eighth of --alpha].
    #[arg(long)]
    pub alpha_end: Option<f32>,
    /// Games per batch, played in parallel with the same weights (part of the job: changes the
    /// net; threads never do).
    #[arg(long, default_value_t = 16)]
    pub batch: usize,
    /// Probability of a uniformly random move at a decision with a choice.
    #[arg(long, default_value_t = 0.0)]
    pub explore: f32,
    /// Evaluate every this many games (and at the end) [default: games / 20].
    #[arg(long)]
    pub eval_every: Option<u64>,
    /// Deals of each evaluation (each played once per seat of the net); 0 = none.
    #[arg(long, default_value_t = 100)]
    pub eval_deals: u64,
    /// The evaluation's opponent (every other seat).
    #[arg(long, default_value = "greedy")]
    pub opponent: String,
    /// No guard: a score clearly below the best so far is reported but not cured (by going
    /// back to the best net at a quarter of the learning rate).
    #[arg(long)]
    pub no_guard: bool,
    /// Directory of bot profiles [default: bots].
    #[arg(long)]
    pub bots_dir: Option<PathBuf>,
    /// Write train.json, net.safetensors, history.csv and report.html here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the results of an earlier job in --out.
    #[arg(long)]
    pub force: bool,
    /// Worker threads; 0 = one per core. Never changes the net.
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Write the checkpoint at most every this many seconds (and when stopped).
    #[arg(long, default_value_t = 30)]
    pub checkpoint_every: u64,
    /// No progress bar and no interim lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs `aeroplane train`.
pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let mut rules = load_rules(&args.rules)?;
    let mut rules_name = args.rules.clone();
    if let Some(p) = args.planes {
        let setting = Setting::integer(RuleOption::Planes, i64::from(p))
            .map_err(|e| anyhow::anyhow!("--planes {p}: {e}"))?;
        rules = rules.with(setting);
        rules_name = format!("{rules_name}:planes={p}");
    }
    let job = TrainJob {
        rules_name,
        rules,
        players: args.players,
        games: args.games,
        seed: args.seed,
        hidden: args.hidden,
        lambda: args.lambda,
        alpha: args.alpha,
        alpha_end: args.alpha_end.unwrap_or(args.alpha / 8.0),
        batch: args.batch,
        explore: args.explore,
        eval_every: args.eval_every.unwrap_or((args.games / 20).max(1)),
        eval_deals: args.eval_deals,
        opponent: args.opponent.clone(),
        guard: !args.no_guard,
    };
    job.check()
        .map_err(|e| anyhow::anyhow!(super::words::as_flags(&e.to_string())))?;
    let bots_dir = args.bots_dir.unwrap_or_else(|| DEFAULT_BOTS_DIR.into());
    let opponent = parse_bot(&args.opponent, &bots_dir).context("--opponent")?;
    // Refused before the folder is made, as `run` refuses it.
    aeroplane::runner::check_threads(args.threads).context("--threads")?;
    let out = open_out(args.out.as_deref(), args.force, false)?;
    execute(
        &job,
        &opponent,
        out,
        false,
        args.quiet,
        args.threads,
        Duration::from_secs(args.checkpoint_every),
    )
}

/// `aeroplane resume DIR` for a folder of `aeroplane train`.
pub fn resume(dir: &Path, quiet: bool, threads: usize) -> anyhow::Result<ExitCode> {
    aeroplane::runner::check_threads(threads).context("--threads")?;
    let record = TrainRecord::load(dir)?;
    if record.status == TrainStatus::Complete
        && std::fs::symlink_metadata(dir.join(aeroplane::train::CHECKPOINT_FILE)).is_err()
    {
        // A stop between the checkpoint's removal and the best net's, after the commit: the
        // best net is no longer needed.
        let best = dir.join(aeroplane::train::BEST_FILE);
        if std::fs::symlink_metadata(&best).is_ok() {
            std::fs::remove_file(&best)
                .with_context(|| format!("cannot remove {}", best.display()))?;
        }
    }
    check_resumable(
        dir,
        TRAIN_FILE,
        aeroplane::train::CHECKPOINT_FILE,
        record.status == TrainStatus::Complete,
        &record.version,
        "training",
    )?;
    let opponent =
        parse_bot(&record.job.opponent, Path::new(DEFAULT_BOTS_DIR)).context("the opponent")?;
    let out = aeroplane::export::OutputDir::reopen(dir)?;
    execute(
        &record.job,
        &opponent,
        Some(out),
        true,
        quiet,
        threads,
        Duration::from_secs(30),
    )
}

fn execute(
    job: &TrainJob,
    opponent: &aeroplane::bots::BotSpec,
    out: Option<aeroplane::export::OutputDir>,
    resume: bool,
    quiet: bool,
    threads: usize,
    checkpoint_every: Duration,
) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let cpu = cpu_seconds();
    let bar = Progress::new(job.games, quiet);
    let progress = |line: &str| {
        // The guard's warnings are shown even when quiet.
        if !quiet || line.starts_with("warning:") {
            bar.println(line);
        }
    };
    let ctx = TrainContext {
        out: out.as_ref(),
        threads,
        opponent: (job.eval_deals > 0).then_some(opponent),
        interrupt: Some(interrupt_flag()),
        resume,
        checkpoint_every,
        counter: Some(bar.counter()),
        on_game: test_game_hook(),
        progress: Some(&progress),
    };
    let end = train(job, &ctx);
    bar.finish();
    let end = end
        .map_err(|e| anyhow::anyhow!(super::words::as_flags(&aeroplane::core::excerpt::chain(&e))))
        .with_context(|| format!("training on {}", job.rules_name))?;
    match end {
        TrainEnd::Complete(record, net, history) => {
            let mut stdout = std::io::stdout().lock();
            writeln!(
                stdout,
                "train: {}, {} players, {} self-play games, {} hidden units (seed {})",
                job.rules_name, job.players, job.games, job.hidden, job.seed
            )?;
            for row in &history {
                writeln!(
                    stdout,
                    "{}",
                    aeroplane::train::history_line(row, &job.opponent)
                )?;
            }
            for e in &record.guard {
                writeln!(
                    stdout,
                    "warning: {}",
                    aeroplane::train::guard::words(e, &job.opponent, job.games)
                )?;
            }
            writeln!(
                stdout,
                "net: {} bytes, checksum {:016x}",
                record.results.as_ref().map_or(0, |r| r.bytes),
                net.checksum()
            )?;
            let wall = start.elapsed().as_secs_f64();
            writeln!(
                stdout,
                "time {wall:.2} s wall, {:.2} s CPU",
                cpu_seconds() - cpu
            )?;
            print_written(&mut stdout, out.as_ref())?;
            stdout.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        TrainEnd::Interrupted { games } => {
            match &out {
                Some(dir) => eprintln!(
                    "interrupted after game {games}; the net and its state are kept in {}.\nTo resume, run: aeroplane resume {}",
                    dir.file(aeroplane::train::CHECKPOINT_FILE).display(),
                    dir.path().display()
                ),
                None => eprintln!(
                    "interrupted after game {games}; nothing was kept (give --out DIR to keep the net and resume)"
                ),
            }
            Ok(ExitCode::from(130))
        }
    }
}
