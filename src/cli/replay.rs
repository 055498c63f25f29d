//! `aeroplane replay`: arguments for [`ReplayJob`].

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::experiment::replay::ReplayJob;
use aeroplane::runner::RunSpec;
use aeroplane::{parse_dice, read_dice};

use super::common::{DEFAULT_BOTS_DIR, load_lineup, load_rules};

/// Arguments of `aeroplane replay`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane replay --seed 3 --game 0
  aeroplane replay --dice 6,3,6,6,4 --bots greedy,greedy
  aeroplane replay --manifest results/run/run.json --game 17 --json")]
pub struct ReplayArgs {
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// One bot per seat in seat order, comma-separated; their count is the number of players.
    #[arg(long, default_value = "greedy,greedy,greedy,greedy")]
    pub bots: String,
    /// The rolls in order, comma- or space-separated (e.g. 6,2,5,...). Not with --seed or
    /// --game (bots' own randomness then comes from seed 0, game 0).
    #[arg(long, conflicts_with_all = ["dice_file", "seed", "game"])]
    pub dice: Option<String>,
    /// A file holding the rolls, whitespace- or comma-separated. Not with --seed or --game.
    #[arg(long, conflicts_with_all = ["seed", "game"])]
    pub dice_file: Option<PathBuf>,
    /// Master seed: the dice of game --game of a run with this seed; bots' own randomness
    /// comes from (seed, game, seat).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Game index within the run of --seed (or of --manifest).
    #[arg(long, default_value_t = 0)]
    pub game: u64,
    /// Print the log and the record as JSON.
    #[arg(long)]
    pub json: bool,
    /// Directory of bot profiles.
    #[arg(long, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
    /// Replay game --game of the run this run.json describes (rules, bots, seed and seat
    /// rotation from the manifest), and print its games.csv row.
    #[arg(long, conflicts_with_all = ["dice", "dice_file", "rules", "bots", "seed"])]
    pub manifest: Option<PathBuf>,
}

/// Runs `aeroplane replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let (spec, with_csv_row) = match &args.manifest {
        Some(path) => {
            let spec =
                aeroplane::export::Manifest::load(path)?.spec(&path.display().to_string())?;
            (spec, true)
        }
        None => (
            RunSpec {
                rules: load_rules(&args.rules).context("--rules")?,
                lineup: load_lineup(&args.bots, &args.bots_dir).context("--bots")?,
                seed: args.seed,
                first_deal: args.game,
                deals: 1,
                rotate_seats: false,
            },
            false,
        ),
    };
    let dice = match (&args.dice, &args.dice_file) {
        (Some(text), _) => Some(parse_dice(text).map_err(|e| anyhow::anyhow!("--dice: {e}"))?),
        (None, Some(path)) => {
            let file = std::fs::File::open(path)
                .with_context(|| format!("cannot read --dice-file {}", path.display()))?;
            if let Some(what) = aeroplane::config::not_a_file(path).filter(|&w| w == "a folder") {
                anyhow::bail!("--dice-file {} is {what}, not a file", path.display());
            }
            Some(
                read_dice(file)
                    .map_err(|e| anyhow::anyhow!("--dice-file {}: {e}", path.display()))?,
            )
        }
        (None, None) => None,
    };
    let job = ReplayJob {
        spec,
        game: args.game,
        dice,
        with_csv_row,
        run_name: match &args.manifest {
            Some(p) => format!("the run of {}", p.display()),
            None => "the run".into(),
        },
    };
    let report = job.play()?;
    let mut out = std::io::stdout().lock();
    if args.json {
        report.write_json(&mut out)?;
    } else {
        report.write_text(&mut out)?;
    }
    out.flush()?;
    if let Some(note) = report.unused_note() {
        say!("note: {note}");
    }
    if let Some(msg) = &report.error {
        say!("error: {msg}; the position reached is printed above");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
