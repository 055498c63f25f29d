//! `aeroplane perft`: counts the leaves of the game tree (rolls and moves) to a depth and
//! prints them with the leaves per second, from the starting position or a position in the
//! notation of docs/RULES.md.

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;

use aeroplane::config::load_rules;
use aeroplane::{Game, perft, perft_fast};

/// Arguments of `aeroplane perft`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane perft --depth 5
  aeroplane perft --rules classic --players 2 --position '56,55,56,33/-/56,54,30,56/- 0 - 0 - - - 106' --depth 4
  aeroplane perft --positions")]
pub struct PerftArgs {
    /// A preset (appfreegame, classic, chinese) or a variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// Players (2, 3 or 4; default 4, or as many as the position has).
    #[arg(long)]
    pub players: Option<usize>,
    /// The position to start from, in the notation of docs/RULES.md (default: the start).
    #[arg(long)]
    pub position: Option<String>,
    /// Plies to count (a ply is a roll and the move it allows).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=12))]
    pub depth: u32,
    /// Walk the tree through the state API (chance nodes, action ids) instead of the fast path.
    #[arg(long)]
    pub api: bool,
    /// Count the documented middle-game positions (all presets, 2 and 4 players) instead.
    #[arg(long, conflicts_with_all = ["position", "rules", "players"])]
    pub positions: bool,
}

/// Runs `aeroplane perft`.
pub fn run(args: PerftArgs) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    let starts: Vec<(String, Game)> = if args.positions {
        aeroplane::perft::POSITIONS
            .iter()
            .map(|&(preset, players, text)| {
                let game = Game::from_notation(preset.rules(), text)?;
                Ok((format!("{preset} {players}p {text}"), game))
            })
            .collect::<anyhow::Result<_>>()?
    } else {
        let rules = load_rules(&args.rules)?;
        let game = match &args.position {
            Some(text) => {
                let game = Game::from_notation(rules, text)?;
                if let Some(p) = args.players.filter(|&p| p != game.players()) {
                    anyhow::bail!(
                        "the position has {} players but --players says {p}",
                        game.players()
                    );
                }
                game
            }
            None => Game::new(rules, args.players.unwrap_or(4))?,
        };
        vec![(format!("{} {}p {game}", args.rules, game.players()), game)]
    };
    for (label, game) in starts {
        writeln!(out, "{label}")?;
        let api = args.api || game.pending_roll().is_some();
        for depth in 1..=args.depth {
            let start = Instant::now();
            let leaves = if api {
                perft(&game, depth)
            } else {
                perft_fast(&game, depth)
            };
            let secs = start.elapsed().as_secs_f64();
            writeln!(
                out,
                "depth {depth:>2}  {leaves:>16} leaves  {secs:>9.3} s  {:>13.0} leaves/s",
                leaves as f64 / secs.max(1e-9)
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
