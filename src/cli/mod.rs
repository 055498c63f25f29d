//! Command-line parsing and the subcommands.

/// Writes a line to stderr, ignoring a failure: after SIGHUP the terminal is gone, and a
/// message that cannot be shown must not turn a clean stop into a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod bench;
mod bots;
mod common;
mod grade;
mod league;
mod page;
mod perft;
mod play;
mod play_screen;
mod progress;
mod replay;
mod report;
mod resume;
mod run;
mod signals;
mod solve;
mod sweep;
mod train;
mod tune;
pub mod words;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Bot tournaments and AI research on Aeroplane Chess (Flying Chess, 飞行棋).
#[derive(Parser, Debug)]
#[command(name = "aeroplane", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Play a tournament: many seeded games in parallel, with statistics and CSV output.
    Run(Box<run::RunArgs>),
    /// Play every combination of varied rule options on the same seeds and compare them.
    Sweep(Box<sweep::SweepArgs>),
    /// Rate a pool of bots from balanced mixed tables (Plackett-Luce, bootstrap intervals).
    League(Box<league::LeagueArgs>),
    /// Tune a bot's parameters by SPSA on paired games, then confirm the result by an SPRT.
    Tune(Box<tune::TuneArgs>),
    /// Write report.html (charts and tables, one self-contained page) from a job's --out folder.
    Report(report::ReportArgs),
    /// Time a fixed workload and print a digest of every game's outcome.
    Bench(bench::BenchArgs),
    /// Finish a job that was interrupted (or a shard), from its output folder.
    Resume(resume::ResumeArgs),
    /// Combine the folders of a job's shards into what one run writes.
    Merge(resume::MergeArgs),
    /// Play a game in the terminal: you against the bots, bots watched, or persons in turn.
    Play(Box<play::PlayArgs>),
    /// Play one game from given dice (or from a seed and game index) and print its move log.
    Replay(replay::ReplayArgs),
    /// List the bot profiles (kind, description, parameters) and the bot kinds.
    Bots(bots::BotsArgs),
    /// Print a rule variant (a preset or a file) with every option resolved.
    Rules(common::RulesArgs),
    /// Count the leaves of the game tree to a depth (a check of the move generator).
    Perft(perft::PerftArgs),
    /// Solve a small two-player variant exactly: every position's value under perfect play.
    Solve(Box<solve::SolveArgs>),
    /// Measure bots against perfect play: error rates and equity lost at every decision.
    Grade(Box<grade::GradeArgs>),
    /// Train a value net by TD(lambda) self-play, for the `td` bot.
    Train(Box<train::TrainArgs>),
}

/// Parses the command line and runs the subcommand.
pub fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run(args) => run::run(*args),
        Command::Sweep(args) => sweep::run(*args),
        Command::League(args) => league::run(*args),
        Command::Tune(args) => tune::run(*args),
        Command::Report(args) => report::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Play(args) => play::run(*args),
        Command::Resume(args) => resume::resume(args),
        Command::Merge(args) => resume::merge(args),
        Command::Rules(args) => common::print_rules(args),
        Command::Bots(args) => bots::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Solve(args) => solve::run(*args),
        Command::Grade(args) => grade::run(*args),
        Command::Train(args) => train::run(*args),
    }
}
