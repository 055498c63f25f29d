//! `aeroplane bots`: every bot profile with its kind, description and parameters, then every
//! kind with the parameters it accepts.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use aeroplane::bots::registry::{ParamKind, kinds};
use aeroplane::config::{known_names, load_profile, parse_bot};

use super::common::DEFAULT_BOTS_DIR;

/// Arguments of `aeroplane bots`.
#[derive(Args, Debug)]
pub struct BotsArgs {
    /// Directory of bot profiles (in addition to the built-in ones).
    #[arg(long, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
}

/// Prints the profiles and the kinds.
pub fn run(args: BotsArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Profiles (use a name with --bots; override with name:key=value):"
    )?;
    let kind_names: Vec<&str> = kinds().iter().map(|k| k.name).collect();
    for name in known_names(&args.bots_dir) {
        let profile = load_profile(&name, &args.bots_dir)?;
        // Bare kinds without a profile file are listed under the kinds below.
        if profile.origin == "built-in kind" && kind_names.contains(&name.as_str()) {
            continue;
        }
        // An invalid profile is an error naming its file, the parameter and what is allowed.
        let spec = parse_bot(&name, &args.bots_dir)?;
        writeln!(
            out,
            "  {name}  [kind {}]  {}",
            spec.kind, profile.description
        )?;
        let params: Vec<String> = spec
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !params.is_empty() {
            writeln!(out, "      {}", params.join(" "))?;
        }
    }
    writeln!(out)?;
    writeln!(out, "Kinds and their parameters:")?;
    for kind in kinds() {
        writeln!(out, "  {}: {}", kind.name, kind.summary)?;
        for p in kind.params {
            let allowed = match p.kind {
                ParamKind::Int { min, max } => format!("integer {min}..={max}"),
                ParamKind::Float { min, max } => format!("number {min}..={max}"),
                ParamKind::Word(words) => words.join("|"),
            };
            writeln!(
                out,
                "      {:<12} {:<22} default {:<8} {}",
                p.name, allowed, p.default, p.help
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
