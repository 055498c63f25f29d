//! `aeroplane replay`: arguments for [`ReplayJob`].

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use aeroplane::decision_log::check::{check_game, check_log};
use aeroplane::decision_log::read::{LogReader, seek_game};
use aeroplane::experiment::replay::{ReplayJob, replay_logged};
use aeroplane::runner::RunSpec;
use aeroplane::trajectory::replay::ReplayReport;
use aeroplane::{parse_dice, read_dice};

use super::common::{DEFAULT_BOTS_DIR, load_lineup, load_rules};

/// Arguments of `aeroplane replay`.
#[derive(Args, Debug)]
#[command(after_help = "Examples:
  aeroplane replay --seed 3 --game 0
  aeroplane replay --dice 6,3,6,6,4 --bots greedy,greedy
  aeroplane replay --manifest results/run/run.json --game 17 --json
  aeroplane replay --seed 3 --game 0 --html game.html   (a board viewer: open game.html)")]
pub struct ReplayArgs {
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// One bot per seat in seat order, comma-separated; their count is the number of players.
    /// The default is `aeroplane run`'s, so `replay --game N` is game N of `run`.
    #[arg(long, default_value = aeroplane::experiment::DEFAULT_RUN_BOTS)]
    pub bots: String,
    /// The rolls in order, comma- or space-separated (e.g. 6,2,5,...). Not with --seed or
    /// --game (bots' own randomness then comes from seed 1, game 0).
    #[arg(long, conflicts_with_all = ["dice_file", "seed", "game"])]
    pub dice: Option<String>,
    /// A file holding the rolls, whitespace- or comma-separated. Not with --seed or --game.
    #[arg(long, conflicts_with_all = ["seed", "game"])]
    pub dice_file: Option<PathBuf>,
    /// Master seed: the dice of game --game of a run with this seed; bots' own randomness
    /// comes from (seed, game, seat). The default is `aeroplane run`'s.
    #[arg(long, default_value_t = aeroplane::experiment::DEFAULT_SEED)]
    pub seed: u64,
    /// Game index within the run of --seed (or of --manifest).
    #[arg(long, default_value_t = 0)]
    pub game: u64,
    /// Print the log and the record as JSON: every roll with the position before it (in the
    /// position notation and as arrays), the legal moves, the one played and the position after.
    #[arg(long)]
    pub json: bool,
    /// Also write the game as a board viewer: one self-contained HTML file (SVG board, controls
    /// to step through it; open it in any browser, no network needed).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Directory of bot profiles.
    #[arg(long, default_value = DEFAULT_BOTS_DIR)]
    pub bots_dir: PathBuf,
    /// Replay game --game of the run this run.json describes (rules, bots, seed and seat
    /// rotation from the manifest), and print its games.csv row.
    #[arg(long, conflicts_with_all = ["dice", "dice_file", "rules", "bots", "seed"])]
    pub manifest: Option<PathBuf>,
    /// Replay game --game of a decision log (`run --log-games`), checking every logged position,
    /// legal move list and the result against the engine.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["dice", "dice_file", "rules", "bots", "seed", "manifest"])]
    pub log: Option<PathBuf>,
    /// With --log: check every game of the log instead of replaying one, and print a summary.
    #[arg(long, requires = "log", conflicts_with_all = ["json", "html", "game"])]
    pub check: bool,
}

/// Runs `aeroplane replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    if let Some(log) = &args.log {
        return replay_log(&args, log);
    }
    let (spec, with_csv_row) = match &args.manifest {
        Some(path) => {
            let spec =
                aeroplane::export::Manifest::load(path)?.spec(&path.display().to_string())?;
            (spec, true)
        }
        None => (
            RunSpec {
                rules: load_rules(&args.rules).context("--rules")?,
                lineup: load_lineup(&args.bots, &args.bots_dir)
                    .context("--bots")?
                    .into_bots(),
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
            // Never blocks on a fifo; a folder, fifo or socket is refused.
            let file = aeroplane::files::open_input(path)
                .with_context(|| format!("cannot read --dice-file {}", path.display()))?;
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
    let source = match &args.manifest {
        Some(p) => format!("game {} of the run of {}", args.game, p.display()),
        None if job.dice.is_some() => "scripted dice".to_string(),
        None => format!("seed {}, game {}", args.seed, args.game),
    };
    show(&args, &report, &source)
}

/// Whether `--html` names this process's standard output (`/dev/stdout`, `/dev/fd/1`, following
/// links, even when stdout is redirected to a file): the user asked for the page there, on
/// purpose. The rules for output files (never through a link planted in a results folder,
/// never onto a fifo or device) guard against a path that leads somewhere else; this one leads
/// to the process's own output. Anything else is written as a whole regular file.
fn html_to_stdout(path: &std::path::Path) -> bool {
    use std::os::fd::AsFd as _;
    use std::os::unix::fs::MetadataExt as _;
    let Ok(target) = std::fs::metadata(path) else {
        return false;
    };
    std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| std::fs::File::from(fd).metadata().ok())
        .is_some_and(|o| (o.dev(), o.ino()) == (target.dev(), target.ino()))
}

/// Prints a replayed game (text or JSON) and writes its viewer if asked.
fn show(args: &ReplayArgs, report: &ReplayReport, source: &str) -> anyhow::Result<ExitCode> {
    let mut page_on_stdout = false;
    if let Some(path) = &args.html {
        let html = aeroplane::viewer::page(report, source);
        let cannot = || format!("cannot write --html {}", path.display());
        if html_to_stdout(path) {
            // The page is the output: the text report would corrupt it.
            page_on_stdout = true;
            let mut out = std::io::stdout().lock();
            out.write_all(html.as_bytes())
                .and_then(|()| out.flush())
                .with_context(cannot)?;
        } else {
            aeroplane::export::write_whole(path, html.as_bytes()).with_context(cannot)?;
        }
        eprintln!("wrote {}", path.display());
    }
    let mut out = std::io::stdout().lock();
    if page_on_stdout {
        // Only the page: notes and errors below go to stderr as ever.
    } else if args.json {
        report.write_json(&mut out)?;
    } else {
        report.write_text(&mut out)?;
    }
    out.flush()?;
    if let Some(note) = report.unused_note() {
        say!("note: {note}");
    }
    if let Some(msg) = &report.error {
        let shown = if page_on_stdout {
            "in the page"
        } else {
            "printed above"
        };
        say!("error: {msg}; the position reached is {shown}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// `replay --log FILE`: one game of a decision log, checked and replayed; or, with `--check`,
/// every game checked.
fn replay_log(args: &ReplayArgs, path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let mut reader = LogReader::open(path)?;
    let file = reader.file().to_string();
    if args.check {
        let s = check_log(&mut reader)?;
        let range = s
            .span
            .map_or("none".to_string(), |(a, b)| format!("{a}..={b}"));
        writeln!(
            std::io::stdout().lock(),
            "{file}: {} games ({range}), {} decisions: every game its header promises is there, each rolled the seeded dice of its index, replays with the engine, and every seat, bot, legal move list, logged position and result agrees with it (not checked: that each bot would choose as logged; replay --manifest plays a game again with its bots)",
            s.games,
            s.decisions
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    // A compressed log's game is found by skipping whole frames; when that cannot be sure or
    // the game does not check, the log is read from its start (which names the line of any
    // problem).
    if let Some((header, game)) = seek_game(path, args.game)
        && let Ok(checked) = check_game(&file, &header, &game)
    {
        let report = replay_logged(&header, &checked)?;
        let source = format!("game {} of the decision log {file}", args.game);
        return show(args, &report, &source);
    }
    let game = reader.find_game(args.game)?;
    let checked = check_game(&file, reader.header(), &game)?;
    let report = replay_logged(reader.header(), &checked)?;
    let source = format!("game {} of the decision log {file}", args.game);
    show(args, &report, &source)
}
