//! `aeroplane solve`: the exact value of every position of a small two-player variant.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;

use aeroplane::solve::{
    DEFAULT_CHECK_POSITIONS, DEFAULT_MAX_SWEEPS, DEFAULT_TOLERANCE, SOLVE_FILE, SolveContext,
    SolveEnd, SolveJob, SolveRecord, SolveStatus, solve,
};
use aeroplane::{RuleOption, Setting};

use super::common::{check_resumable, load_rules, open_out, print_written};
use super::signals::interrupt_flag;

/// Arguments of `aeroplane solve`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane solve --rules appfreegame --planes 1 --out results/solve/appfreegame-1   (a second)
  aeroplane solve --rules classic --planes 2 --out results/solve/classic-2           (minutes)
  aeroplane resume results/solve/classic-2                                          (after Ctrl-C)
  aeroplane run --rules results/solve/classic-2/rules.toml --bots exact:table=results/solve/classic-2,greedy
  aeroplane grade --table results/solve/classic-2 --bots greedy,expectimax --games 500")]
pub struct SolveArgs {
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// Players: only 2 (seats 0 and 2) is solved.
    #[arg(long, default_value_t = 2)]
    pub players: usize,
    /// Planes per seat (overrides the rules' `planes`): 1 or 2 fit in memory.
    #[arg(long)]
    pub planes: Option<u8>,
    /// Write solve.json, table.bin (the values) and rules.toml here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the results of an earlier job in --out.
    #[arg(long)]
    pub force: bool,
    /// Stop when the largest change of a sweep is below this.
    #[arg(long, default_value_t = DEFAULT_TOLERANCE)]
    pub tolerance: f64,
    /// Give up after this many sweeps.
    #[arg(long, default_value_t = DEFAULT_MAX_SWEEPS)]
    pub max_sweeps: u32,
    /// Refuse a variant whose solve would need more memory than this (e.g. 8GiB, 512MiB),
    /// before allocating it.
    #[arg(long, default_value = "8GiB", value_parser = parse_bytes)]
    pub memory_limit: u64,
    /// Chance nodes of random games at which the table is checked through the state API.
    #[arg(long, default_value_t = DEFAULT_CHECK_POSITIONS)]
    pub check_positions: u64,
    /// Write the values to solve.checkpoint between sweeps at most every this many seconds
    /// (and when interrupted), so a stopped solve resumes.
    #[arg(long, default_value_t = 30)]
    pub checkpoint_every: u64,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Solve nothing: print the value of this position (the notation; with its roll waiting,
    /// every legal move's value) from the table of --table.
    #[arg(long, value_name = "POSITION", requires = "table")]
    pub value: Option<String>,
    /// With --value: the --out folder of an earlier solve (or its table.bin).
    #[arg(long, value_name = "DIR", requires = "value")]
    pub table: Option<PathBuf>,
}

/// `aeroplane solve --value POSITION --table DIR`: a position's value from a solved table.
fn value(position: &str, table: &Path) -> anyhow::Result<ExitCode> {
    let t = aeroplane::solve::Table::load(table)?;
    let game = aeroplane::Game::from_notation(*t.rules(), position)
        .map_err(|e| anyhow::anyhow!("--value `{position}`: {e}"))?;
    let v = t.position_value(&game)?;
    let seat = game.to_move().index();
    match v.roll {
        None => println!(
            "seat {seat} to roll: equity {:+.12}, P(win) {:.12} under perfect play",
            v.equity,
            v.win_probability()
        ),
        Some(r) => {
            println!(
                "seat {seat} to move with a roll of {r}: equity {:+.12}, P(win) {:.12} under perfect play (the best move's)",
                v.equity,
                v.win_probability()
            );
            if v.moves.is_empty() {
                println!("  no legal move: the roll passes");
            }
            for (m, e) in &v.moves {
                let mark = if *e == v.equity { "  best" } else { "" };
                println!("  {m:<12} equity {e:+.12}{mark}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `8GiB`, `512 MiB`, `100M`, `1000000`: a number of bytes.
fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let num: f64 = num
        .parse()
        .map_err(|_| format!("`{t}` is not a size: give e.g. 8GiB, 512MiB or a number of bytes"))?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" | "kb" => 1 << 10,
        "m" | "mib" | "mb" => 1 << 20,
        "g" | "gib" | "gb" => 1 << 30,
        "t" | "tib" | "tb" => 1 << 40,
        u => return Err(format!("unknown unit `{u}`: use KiB, MiB, GiB or TiB")),
    };
    Ok((num * scale as f64) as u64)
}

/// Runs `aeroplane solve`.
pub fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    if let (Some(position), Some(table)) = (&args.value, &args.table) {
        return value(position, table);
    }
    let mut rules = load_rules(&args.rules)?;
    let mut rules_name = args.rules.clone();
    if let Some(p) = args.planes {
        let setting = Setting::integer(RuleOption::Planes, i64::from(p))
            .map_err(|e| anyhow::anyhow!("--planes {p}: {e}"))?;
        rules = rules.with(setting);
        rules_name = format!("{rules_name}, planes = {p}");
    }
    let job = SolveJob {
        players: args.players,
        tolerance: args.tolerance,
        max_sweeps: args.max_sweeps,
        memory_limit: args.memory_limit,
        check_positions: args.check_positions,
        ..SolveJob::new(&rules_name, rules)
    };
    // Refused before the folder is touched or anything allocated.
    job.size()?;
    let out = open_out(args.out.as_deref(), args.force, false)?;
    execute(
        &job,
        out,
        false,
        args.quiet,
        Duration::from_secs(args.checkpoint_every),
    )
}

/// `aeroplane resume DIR` for a folder of `aeroplane solve`.
pub fn resume(dir: &Path, quiet: bool) -> anyhow::Result<ExitCode> {
    let record = SolveRecord::load(dir)?;
    check_resumable(
        dir,
        SOLVE_FILE,
        aeroplane::solve::CHECKPOINT_FILE,
        record.status == SolveStatus::Complete,
        &record.version,
        "solve",
    )?;
    let out = aeroplane::export::OutputDir::reopen(dir)?;
    execute(
        &record.job(),
        Some(out),
        true,
        quiet,
        Duration::from_secs(30),
    )
}

fn execute(
    job: &SolveJob,
    out: Option<aeroplane::export::OutputDir>,
    resume: bool,
    quiet: bool,
    checkpoint_every: Duration,
) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let progress = |line: &str| {
        // Short solves (1 plane: milliseconds) print nothing on the way.
        if !quiet && (terminal || start.elapsed() > Duration::from_secs(2)) {
            eprintln!("{line}");
        }
    };
    let ctx = SolveContext {
        out: out.as_ref(),
        interrupt: Some(interrupt_flag()),
        resume,
        checkpoint_every,
        progress: Some(&progress),
    };
    let end = solve(job, &ctx).with_context(|| format!("solving {}", job.rules_name))?;
    match end {
        SolveEnd::Complete(record, _) => {
            let mut stdout = std::io::stdout().lock();
            record.write_text(&mut stdout)?;
            print_written(&mut stdout, out.as_ref())?;
            stdout.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        SolveEnd::Interrupted { sweeps } => {
            match &out {
                Some(dir) if dir.file(aeroplane::solve::CHECKPOINT_FILE).exists() => eprintln!(
                    "interrupted after sweep {sweeps}; the values are kept in {}.\nTo resume, run: aeroplane resume {}",
                    dir.file(aeroplane::solve::CHECKPOINT_FILE).display(),
                    dir.path().display()
                ),
                Some(dir) => eprintln!(
                    "interrupted before any values were kept; {} records the stop.\nTo resume (from the first sweep), run: aeroplane resume {}",
                    dir.file(aeroplane::solve::SOLVE_FILE).display(),
                    dir.path().display()
                ),
                None => eprintln!(
                    "interrupted after sweep {sweeps}; nothing was kept (give --out DIR to keep the values and resume)"
                ),
            }
            Ok(ExitCode::from(130))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_units() {
        assert_eq!(parse_bytes("8GiB"), Ok(8 << 30));
        assert_eq!(parse_bytes("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1000"), Ok(1000));
        assert_eq!(parse_bytes("1.5G"), Ok(3 << 29));
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("5 parsecs").is_err());
    }
}
