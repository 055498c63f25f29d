//! Pieces shared by the subcommands: the shared options, loading rules and bots, the output
//! directory and the report's last line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::Rules;
use aeroplane::bots::registry::{BotSpec, parse_lineup};
use aeroplane::export::OutputDir;
use aeroplane::runner::{DEFAULT_CHUNK_DEALS, Exec};

/// The default directory of bot profiles.
pub const DEFAULT_BOTS_DIR: &str = "bots";

/// Options every job takes. Each is optional here: a job fills what is not given from its
/// config file, then a manifest, then its own defaults.
#[derive(Args, Debug, Default, Clone)]
pub struct JobArgs {
    /// A config (TOML) setting any of these options; the command line overrides it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file [default:
    /// appfreegame].
    #[arg(long)]
    pub rules: Option<String>,
    /// The bots, comma-separated: one per seat in seat order (run, sweep), or the pool (league).
    #[arg(long)]
    pub bots: Option<String>,
    /// Number of deals (per variant for sweep, per table for league); with seat rotation each
    /// is played once per rotation.
    #[arg(long)]
    pub games: Option<u64>,
    /// Master seed [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads; 0 = one per core. Never changes the results [default: 0].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Deals per unit of work. Never changes the results (except where an SPRT may stop)
    /// [default: 256; 16 with --sprt].
    #[arg(long)]
    pub chunk_size: Option<u64>,
    /// Write the job's files here: run.json (the manifest, with the job's status),
    /// summary.json and the CSV tables.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Replace the results of an earlier run in --out (only the files this tool writes).
    #[arg(long)]
    pub force: bool,
    /// Play each deal once per rotation of the lineup around the seats, the dice staying with
    /// the seats.
    #[arg(long, overrides_with = "no_rotate_seats")]
    pub rotate_seats: bool,
    /// Do not rotate seats (overrides a config or manifest).
    #[arg(long, overrides_with = "rotate_seats")]
    pub no_rotate_seats: bool,
    /// No progress bar and no timing line on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Directory of bot profiles [default: bots].
    #[arg(long)]
    pub bots_dir: Option<PathBuf>,
    /// After the job, also write report.html into --out (charts and tables; see `aeroplane
    /// report`).
    #[arg(long)]
    pub report: bool,
}

impl JobArgs {
    /// `--rotate-seats` / `--no-rotate-seats`, if either was given.
    pub fn rotate(&self) -> Option<bool> {
        if self.rotate_seats {
            Some(true)
        } else if self.no_rotate_seats {
            Some(false)
        } else {
            None
        }
    }

    /// The execution settings: threads and unit size, each from the command line, else the
    /// fallback.
    pub fn exec(&self, threads: Option<usize>, chunk: Option<u64>) -> anyhow::Result<Exec> {
        let exec = Exec {
            threads: self.threads.or(threads).unwrap_or(0),
            chunk_deals: self.chunk_size.or(chunk).unwrap_or(DEFAULT_CHUNK_DEALS),
        };
        if exec.chunk_deals == 0 {
            anyhow::bail!("--chunk-size must be at least 1 deal");
        }
        Ok(exec)
    }
}

/// Loads a preset name or a variant file.
pub fn load_rules(name_or_path: &str) -> anyhow::Result<Rules> {
    Ok(Rules::load(name_or_path)?)
}

/// Resolves a comma-separated lineup and checks the player count.
pub fn load_lineup(text: &str, bots_dir: &Path) -> anyhow::Result<Vec<BotSpec>> {
    let specs = parse_lineup(text, bots_dir)?;
    if !(2..=4).contains(&specs.len()) {
        anyhow::bail!(
            "--bots lists {} bot(s): give one bot per seat, 2, 3 or 4 of them, comma-separated (e.g. greedy,random,random,random)",
            specs.len()
        );
    }
    Ok(specs)
}

/// Opens the output directory, if one is asked for; `--report` needs one.
pub fn open_out(
    out: Option<&Path>,
    force: bool,
    report: bool,
) -> anyhow::Result<Option<OutputDir>> {
    if report && out.is_none() {
        anyhow::bail!("--report writes report.html into the output directory: give --out DIR");
    }
    out.map(|p| OutputDir::create(p, force).map_err(anyhow::Error::from))
        .transpose()
}

/// With `--report`, writes report.html into the output directory (after the job's files).
pub fn write_report(out: Option<&OutputDir>, report: bool) -> anyhow::Result<()> {
    if let (Some(dir), true) = (out, report) {
        aeroplane::report::write(dir)
            .with_context(|| format!("writing the report of {}", dir.path().display()))?;
    }
    Ok(())
}

/// The report's last line: where the files are.
pub fn print_written(w: &mut dyn Write, out: Option<&OutputDir>) -> std::io::Result<()> {
    if let Some(dir) = out {
        let files = dir.written();
        writeln!(w, "\nwrote {}: {}", dir.path().display(), files.join(", "))?;
    }
    Ok(())
}

/// Arguments of `aeroplane rules`.
#[derive(Args, Debug)]
pub struct RulesArgs {
    /// A preset (appfreegame, classic, chinese) or a variant .toml file.
    #[arg(default_value = "appfreegame")]
    pub rules: String,
    /// Directory of bot profiles (unused; accepted for symmetry).
    #[arg(long, hide = true, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
}

/// `aeroplane rules`: prints the resolved variant as TOML.
pub fn print_rules(args: RulesArgs) -> anyhow::Result<ExitCode> {
    let rules =
        load_rules(&args.rules).with_context(|| format!("loading rules `{}`", args.rules))?;
    std::io::stdout()
        .lock()
        .write_all(rules.to_toml().as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
