//! `aeroplane bots`: every bot profile with its kind, description and parameters, then every
//! kind with the parameters it accepts.
//!
//! A `.toml` file in the bots directory that does not load as a profile (another kind of TOML
//! file, or a profile with a mistake in it) does not stop the listing: it is listed apart, with
//! the reason.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use aeroplane::bots::registry::{ParamKind, Profile, kinds};
use aeroplane::config::{known_names, load_profile, parse_bot, shadowing_note};
use aeroplane::excerpt::{clip_lines, excerpt};

use super::common::DEFAULT_BOTS_DIR;

/// Arguments of `aeroplane bots`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane bots                                (the built-in profiles and those in bots/)
  aeroplane bots --bots-dir bots/examples       (adds the example bot programs)
  aeroplane run --bots expectimax:depth=3,greedy   (a listed parameter, given inline)")]
pub struct BotsArgs {
    /// Directory of bot profiles (in addition to the built-in ones).
    #[arg(long, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
}

/// One profile as listed.
struct Listed {
    name: String,
    kind: String,
    description: String,
    params: String,
}

/// Prints the profiles and the kinds.
pub fn run(args: BotsArgs) -> anyhow::Result<ExitCode> {
    let kind_names: Vec<&str> = kinds().iter().map(|k| k.name).collect();
    let mut listed = Vec::new();
    let mut not_loadable = Vec::new();
    for name in known_names(&args.bots_dir) {
        // A bare kind without a profile file is listed under the kinds below, also when it
        // cannot be loaded without parameters (`exact` needs its table).
        if kind_names.contains(&name.as_str())
            && Profile::builtin(&name).is_none_or(|p| p.origin == "built-in kind")
            && !args.bots_dir.join(format!("{name}.toml")).exists()
        {
            continue;
        }
        let loaded = load_profile(&name, &args.bots_dir)
            .and_then(|profile| Ok((parse_bot(&name, &args.bots_dir)?, profile)));
        match loaded {
            // Bare kinds without a profile file are listed under the kinds below.
            Ok((_, profile))
                if profile.origin == "built-in kind" && kind_names.contains(&name.as_str()) => {}
            Ok((spec, profile)) => listed.push(Listed {
                kind: spec.kind,
                // A profile's text is shown, never obeyed: escape sequences are printed escaped.
                description: {
                    let shown = clip_lines(&profile.description.replace('\n', " "), 200);
                    match shadowing_note(&name, &args.bots_dir) {
                        Some(_) => format!(
                            "{shown} (shadows the built-in {name}, kind {})",
                            Profile::builtin(&name).map(|p| p.kind).unwrap_or_default()
                        )
                        .trim_start()
                        .to_string(),
                        None => shown,
                    }
                },
                params: spec
                    .params
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                name: excerpt(&name),
            }),
            Err(e) => not_loadable.push((excerpt(&name), one_line(&e.to_string()))),
        }
    }

    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Profiles (use a name with --bots; override with name:key=value):"
    )?;
    let name_w = width(listed.iter().map(|p| p.name.len()));
    let kind_w = width(listed.iter().map(|p| p.kind.len() + "[kind ]".len()));
    for p in &listed {
        let kind = format!("[kind {}]", p.kind);
        let line = format!("  {:<name_w$}  {kind:<kind_w$}  {}", p.name, p.description);
        writeln!(out, "{}", line.trim_end())?;
        if !p.params.is_empty() {
            writeln!(out, "  {:<name_w$}  {}", "", p.params)?;
        }
    }
    if !not_loadable.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Not loadable as profiles (files in {}):",
            aeroplane::excerpt::path(&args.bots_dir)
        )?;
        let w = width(not_loadable.iter().map(|(n, _)| n.len()));
        for (name, reason) in &not_loadable {
            writeln!(out, "  {name:<w$}  {reason}")?;
        }
    }

    writeln!(out)?;
    writeln!(
        out,
        "Strongest bot per preset and player count (measured in results/td/README.md: fixed-sample \
         matches, SPRTs and leagues):"
    )?;
    let preset_w = width(STRONGEST.iter().map(|s| s.0.len()));
    let bot_w = width(STRONGEST.iter().map(|s| s.2.len()));
    for (preset, players, bot, evidence) in STRONGEST {
        writeln!(
            out,
            "  {preset:<preset_w$}  {players}p  {bot:<bot_w$}  {evidence}"
        )?;
    }
    writeln!(out, "  {STRONGEST_NOTE}")?;

    writeln!(out)?;
    writeln!(out, "Kinds and their parameters:")?;
    let rows: Vec<Vec<(&str, String, &str, &str)>> = kinds()
        .iter()
        .map(|kind| {
            kind.params
                .iter()
                .map(|p| {
                    let default = if p.default.is_empty() {
                        "none"
                    } else {
                        p.default
                    };
                    (p.name, allowed(p.kind), default, p.help)
                })
                .collect()
        })
        .collect();
    let all = || rows.iter().flatten();
    let param_w = width(all().map(|r| r.0.len()));
    let allowed_w = width(all().map(|r| r.1.len()));
    let default_w = width(all().map(|r| r.2.len()));
    for (kind, rows) in kinds().iter().zip(&rows) {
        writeln!(out, "  {}: {}", kind.name, kind.summary)?;
        for (name, allowed, default, help) in rows {
            let line = format!(
                "      {name:<param_w$}  {allowed:<allowed_w$}  default {default:<default_w$}  {help}"
            );
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The strongest bot measured for each preset and player count, and the evidence
/// (results/td/README.md; `fixed2.csv`, `fixed4.csv`, `matches.csv`, `sprts-4p.csv` and the
/// leagues there). A test holds the figures to those files.
pub const STRONGEST: [(&str, u8, &str, &str); 6] = [
    (
        "appfreegame",
        2,
        "td-appfreegame-2p:ply=1",
        "fixed-sample Elo +29.1 [+20.2, +38.0] vs expectimax-deep, +38.5 [+29.5, +47.6] vs mcts (2,000 pairs each); SPRT accepts h1 over both",
    ),
    (
        "appfreegame",
        4,
        "td-appfreegame-4p:ply=1",
        "fixed-sample Elo +33.6 [+22.5, +44.4] vs expectimax-deep (1,000 deals), +22.4 [-3.5, +46.8] vs mcts (200 deals: not shown); SPRT accepts h1 over both",
    ),
    (
        "classic",
        2,
        "td-classic-2p:ply=1",
        "fixed-sample Elo +43.8 [+34.0, +53.8] vs expectimax-deep, +58.7 [+48.9, +68.7] vs mcts (2,000 pairs each); SPRT accepts h1 over both",
    ),
    (
        "classic",
        4,
        "td-classic-4p:ply=1",
        "fixed-sample Elo +30.1 [+22.4, +37.9] vs expectimax-deep (1,000 deals), +67.4 [+50.2, +85.0] vs mcts (200 deals); SPRT accepts h1 over both",
    ),
    (
        "chinese",
        2,
        "td-chinese-2p:ply=1",
        "fixed-sample Elo +32.4 [+23.4, +41.4] vs expectimax-deep, +47.9 [+39.0, +56.9] vs mcts (2,000 pairs each); SPRT accepts h1 over both",
    ),
    (
        "chinese",
        4,
        "td-chinese-4p:ply=1",
        "fixed-sample Elo +24.4 [+17.4, +31.3] vs expectimax-deep (1,000 deals), +24.7 [+9.1, +40.3] vs mcts (200 deals); SPRT accepts h1 over both",
    ),
];

/// What the table's figures are.
const STRONGEST_NOTE: &str = "(fixed samples: fresh dice, seats rotated; at 4 players td in one seat against three copies, scored by its pairwise finishes ahead. SPRT: elo0=0, elo1=10. In the leagues td at ply 0, ten or more times cheaper, and ply 2 are not separated from ply 1.)";

/// What a parameter accepts, in a few characters.
fn allowed(kind: ParamKind) -> String {
    match kind {
        ParamKind::Int { min, max } => format!("integer {min}..={max}"),
        ParamKind::Float { min, max } => format!("number {min}..={max}"),
        ParamKind::Word(words) => words.join("|"),
        ParamKind::Path => "path".to_string(),
    }
}

/// The widest of some column entries.
fn width(lengths: impl Iterator<Item = usize>) -> usize {
    lengths.max().unwrap_or(0)
}

/// An error message on one line: a TOML error's source excerpt (the lines that start with a
/// space or a line number) is left out, the other lines are joined with ": ".
fn one_line(message: &str) -> String {
    message
        .lines()
        .filter(|l| {
            let l = l.trim_end();
            !l.is_empty() && !l.starts_with(' ') && !l.starts_with(|c: char| c.is_ascii_digit())
        })
        .collect::<Vec<_>>()
        .join(": ")
}
