//! Pieces shared by the subcommands: loading rules and bots.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::Rules;
use aeroplane::bots::registry::BotSpec;
use aeroplane::config::parse_lineup;

/// The default directory of bot profiles.
pub const DEFAULT_BOTS_DIR: &str = "bots";

/// Loads a preset name or a variant file.
pub fn load_rules(name_or_path: &str) -> anyhow::Result<Rules> {
    Ok(aeroplane::config::load_rules(name_or_path)?)
}

/// Resolves a comma-separated lineup and checks the player count.
pub fn load_lineup(text: &str, bots_dir: &std::path::Path) -> anyhow::Result<Vec<BotSpec>> {
    let specs = parse_lineup(text, bots_dir)?;
    if !(2..=4).contains(&specs.len()) {
        anyhow::bail!(
            "--bots lists {} bot(s): give one bot per seat, 2, 3 or 4 of them, comma-separated (e.g. greedy,random,random,random)",
            specs.len()
        );
    }
    Ok(specs)
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
    std::io::Write::write_all(&mut std::io::stdout().lock(), rules.to_toml().as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Writes a CSV file: the header, then the rows; errors name the file.
pub fn write_csv(path: &Path, header: &[&str], rows: &[Vec<String>]) -> anyhow::Result<()> {
    let mut w =
        csv::Writer::from_path(path).with_context(|| format!("cannot write {}", path.display()))?;
    w.write_record(header)?;
    for r in rows {
        w.write_record(r)?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
