//! `aeroplane replay`: one game from given dice, or from (seed, game index), with its move log.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use serde::Serialize;

use aeroplane::RecordJson;
use aeroplane::step_label;
use aeroplane::{Action, Bot, Counter, Dice, Game, Observer, Outcome, Seat, play_game};
use aeroplane::{ScriptedDice, SeededDice, bot_stream, parse_dice};

use super::common::{DEFAULT_BOTS_DIR, load_lineup, load_rules};

/// Arguments of `aeroplane replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A preset (appfreegame, classic, chinese) or a rule-variant .toml file.
    #[arg(long, default_value = "appfreegame")]
    pub rules: String,
    /// One bot per seat in seat order, comma-separated; their count is the number of players.
    #[arg(long, default_value = "greedy,greedy,greedy,greedy")]
    pub bots: String,
    /// The rolls in order, comma- or space-separated (e.g. 6,2,5,...).
    #[arg(long, conflicts_with = "dice_file")]
    pub dice: Option<String>,
    /// A file holding the rolls, whitespace- or comma-separated.
    #[arg(long)]
    pub dice_file: Option<PathBuf>,
    /// Master seed: without --dice, the dice of game --game of a run with this seed; bots'
    /// own randomness always comes from (seed, game, seat).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Game index within the run of --seed.
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

/// One line of the move log.
#[derive(Debug, Serialize)]
pub struct LogLine {
    /// 1-based roll number.
    pub roll_no: u32,
    /// 1-based turn number.
    pub turn: u32,
    /// Seat that rolled.
    pub seat: usize,
    /// The die.
    pub roll: u8,
    /// The move's notation (`launch`, `14`, `18:fly`, `18:stay`), or `pass` / `penalty`.
    pub action: String,
    /// Start step of the move (`H` for a launch).
    pub from: Option<String>,
    /// End step of the move.
    pub to: Option<String>,
    /// Events: capture, jump, flight, bounce, finish, home, penalty, pass.
    pub events: Vec<String>,
    /// Captured opponent planes as (seat, plane).
    pub captured: Vec<(usize, usize)>,
    /// Own planes sent back by a penalty.
    pub penalised: Vec<usize>,
}

/// Collects the move log.
#[derive(Default)]
pub struct LogCollector {
    /// Lines so far.
    pub lines: Vec<LogLine>,
    turn: u32,
}

impl Observer for LogCollector {
    fn on_roll(&mut self, before: &Game, o: &Outcome) {
        if o.new_turn {
            self.turn += 1;
        }
        let mut line = LogLine {
            roll_no: self.lines.len() as u32 + 1,
            turn: self.turn,
            seat: o.seat.index(),
            roll: o.roll,
            action: String::new(),
            from: None,
            to: None,
            events: Vec::new(),
            captured: Vec::new(),
            penalised: Vec::new(),
        };
        match o.action {
            Action::Pass => {
                line.action = "pass".into();
                line.events.push("pass".into());
            }
            Action::Penalty { planes } => {
                line.action = "penalty".into();
                line.events.push("penalty".into());
                line.penalised = (0..4).filter(|i| planes & (1 << i) != 0).collect();
            }
            Action::Move(m) => {
                line.action = m.notation();
                line.from = Some(step_label(m.from()));
                line.to = Some(step_label(m.to()));
                if m.is_launch() {
                    line.events.push("launch".into());
                }
                if m.plane_count() > 1 {
                    line.events.push(format!("stack of {}", m.plane_count()));
                }
                if m.jumps() {
                    line.events.push("jump".into());
                }
                if m.flies() {
                    line.events.push("flight".into());
                }
                if m.stays() {
                    line.events.push("stay".into());
                }
                if m.bounces() {
                    line.events.push("bounce".into());
                }
                let cap = m.captured();
                for bit in 0..16 {
                    if cap & (1 << bit) != 0 {
                        line.captured.push((bit / 4, bit % 4));
                    }
                }
                if !line.captured.is_empty() {
                    line.events.push(format!("capture {}", line.captured.len()));
                }
                if m.finishes() {
                    line.events.push("finish".into());
                }
            }
        }
        if o.seat_finished {
            line.events.push(format!(
                "home (rank {})",
                rank_after(before, o.seat, &line).unwrap_or(0)
            ));
        }
        if o.roll == 6 && !o.turn_over {
            line.events.push("roll again".into());
        }
        self.lines.push(line);
    }
}

/// The rank a seat takes when it finishes: one more than the seats already finished.
fn rank_after(before: &Game, _seat: Seat, _line: &LogLine) -> Option<u8> {
    let done = before
        .seats()
        .iter()
        .filter(|&&s| before.has_finished(s))
        .count();
    Some(done as u8 + 1)
}

impl LogLine {
    /// The line as text.
    pub fn text(&self) -> String {
        let mv = match (&self.from, &self.to) {
            (Some(f), Some(t)) => format!("{:<8} {f:>2}->{t:<2}", self.action),
            _ => format!("{:<8}", self.action),
        };
        let mut s = format!(
            "{:>5}  turn {:>4}  seat {} {:<6}  rolls {}  {:<16}",
            self.roll_no,
            self.turn,
            self.seat,
            Seat::new(self.seat).map(|s| s.colour()).unwrap_or("?"),
            self.roll,
            mv
        );
        if !self.events.is_empty() {
            let _ = write!(s, "  {}", self.events.join(", "));
        }
        if !self.captured.is_empty() {
            let planes: Vec<String> = self
                .captured
                .iter()
                .map(|(seat, p)| format!("{seat}.{p}"))
                .collect();
            let _ = write!(s, " [{}]", planes.join(" "));
        }
        if !self.penalised.is_empty() {
            let planes: Vec<String> = self.penalised.iter().map(|p| p.to_string()).collect();
            let _ = write!(s, " [planes {}]", planes.join(" "));
        }
        s.trim_end().to_string()
    }
}

#[derive(Serialize)]
struct ReplayJson<'a> {
    rules: &'a aeroplane::Rules,
    bots: Vec<String>,
    dice: &'static str,
    seed: u64,
    game: u64,
    complete: bool,
    error: Option<String>,
    log: &'a [LogLine],
    record: RecordJson,
    #[serde(skip_serializing_if = "Option::is_none")]
    games_csv_row: Option<String>,
}

/// A game of a run described by a manifest.
struct FromManifest {
    spec: aeroplane::runner::RunSpec,
    deal: u64,
    rotation: u64,
}

fn load_manifest(path: &std::path::Path, game: u64) -> anyhow::Result<FromManifest> {
    let spec = aeroplane::export::Manifest::load(path)?.spec(&path.display().to_string())?;
    if !spec.contains_game(game) {
        let first = spec.game_index(spec.first_deal, 0);
        anyhow::bail!(
            "--game {game} is not in the run of {}: its games are {first}..{}",
            path.display(),
            first + spec.total_games()
        );
    }
    let (deal, rotation) = spec.locate(game);
    Ok(FromManifest {
        spec,
        deal,
        rotation,
    })
}

/// Runs `aeroplane replay`.
pub fn run(args: ReplayArgs) -> anyhow::Result<ExitCode> {
    let from_run = match &args.manifest {
        Some(path) => Some(load_manifest(path, args.game)?),
        None => None,
    };
    // The dice and bot seeds of a run's game come from (seed, deal); the k-th seat holds
    // lineup entry (k + rotation) mod n.
    let (rules, specs, seed, deal) = match &from_run {
        Some(m) => {
            let n = m.spec.players();
            let specs = (0..n)
                .map(|k| m.spec.lineup[(k + m.rotation as usize) % n].clone())
                .collect::<Vec<_>>();
            (m.spec.rules, specs, m.spec.seed, m.deal)
        }
        None => (
            load_rules(&args.rules)?,
            load_lineup(&args.bots, &args.bots_dir)?,
            args.seed,
            args.game,
        ),
    };
    let scripted = match (&args.dice, &args.dice_file) {
        (Some(text), _) => Some(parse_dice(text).map_err(|e| anyhow::anyhow!("--dice: {e}"))?),
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read --dice-file {}", path.display()))?;
            Some(
                parse_dice(&text)
                    .map_err(|e| anyhow::anyhow!("--dice-file {}: {e}", path.display()))?,
            )
        }
        (None, None) => None,
    };
    let game = Game::new(rules, specs.len())?;
    let mut bots: Vec<Box<dyn Bot>> = specs.iter().map(|s| s.build()).collect();
    for (bot, &seat) in bots.iter_mut().zip(game.seats()) {
        bot.new_game(seat, bot_stream(seed, deal, seat));
    }
    let mut log = LogCollector::default();
    let (dice_kind, mut dice): (&'static str, Box<dyn Dice>) = match scripted {
        Some(rolls) => ("scripted", Box::new(ScriptedDice::new(rolls))),
        None => ("seeded", Box::new(SeededDice::new(seed, deal))),
    };
    let result = play_game(game, &mut bots, dice.as_mut(), &mut log);
    let (record, end, error) = match result {
        Ok(r) => (r, None, None),
        Err(e) => {
            let msg = format!(
                "the dice ran out after {} rolls, before the game ended (turn {}, seat {} to roll)",
                e.record.counters[Counter::Rolls],
                e.game.turns(),
                e.game.to_move()
            );
            (e.record, Some(e.game), Some(msg))
        }
    };
    let final_game = end.unwrap_or(game);
    let names: Vec<String> = specs.iter().map(|s| s.name.clone()).collect();
    let csv_row = from_run.as_ref().filter(|_| error.is_none()).map(|m| {
        let row = aeroplane::runner::GameRow {
            game: args.game,
            deal: m.deal,
            rotation: m.rotation,
            played: aeroplane::stats::Played {
                record,
                bot_at_seat: m.spec.bot_at_seat(m.rotation),
            },
        };
        let mut line = Vec::new();
        aeroplane::export::write_game_row(&mut line, &row).expect("writing to memory");
        String::from_utf8(line)
            .expect("ASCII")
            .trim_end()
            .to_string()
    });
    let out = std::io::stdout();
    let mut out = out.lock();
    if args.json {
        let doc = ReplayJson {
            rules: &rules,
            bots: names,
            dice: dice_kind,
            seed,
            game: args.game,
            complete: error.is_none(),
            error: error.clone(),
            log: &log.lines,
            record: record.to_json_value(&final_game),
            games_csv_row: csv_row,
        };
        serde_json::to_writer_pretty(&mut out, &doc)?;
        writeln!(out)?;
    } else {
        for line in &log.lines {
            writeln!(out, "{}", line.text())?;
        }
        writeln!(out)?;
        write_record(&mut out, &record, &final_game, &names, error.is_none())?;
        if let Some(row) = &csv_row {
            writeln!(
                out,
                "\ngames.csv row:\n{}\n{row}",
                aeroplane::export::GAMES_HEADER
            )?;
        }
    }
    out.flush()?;
    if let Some(msg) = error {
        eprintln!("error: {msg}; the position reached is printed above");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn write_record(
    out: &mut impl std::io::Write,
    r: &aeroplane::GameRecord,
    game: &Game,
    names: &[String],
    complete: bool,
) -> std::io::Result<()> {
    let status = if !complete {
        "incomplete (dice ran out)"
    } else if r.unfinished {
        "unfinished (max_turns reached)"
    } else {
        "finished"
    };
    writeln!(out, "game {status}")?;
    match r.winner {
        Some(w) => writeln!(out, "winner: seat {w} ({})", w.colour())?,
        None => writeln!(out, "winner: none")?,
    }
    for (k, &seat) in game.seats().iter().enumerate() {
        let steps: Vec<String> = r.final_steps[seat.index()]
            .iter()
            .map(|&s| step_label(s))
            .collect();
        let rank = match r.ranks[seat.index()] {
            0 => "-".to_string(),
            x => x.to_string(),
        };
        writeln!(
            out,
            "seat {seat} {:<6} {:<12} rank {rank:<2} steps [{}]",
            seat.colour(),
            names.get(k).map(String::as_str).unwrap_or("?"),
            steps.join(", ")
        )?;
    }
    let counts: Vec<String> = r
        .counters
        .iter()
        .map(|(c, n)| format!("{} {n}", c.name()))
        .collect();
    writeln!(out, "{}", counts.join("  "))
}
