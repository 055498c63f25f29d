//! `replay`: one game, from a run's (seed, game index) or from given dice, with its move log.

use std::fmt::Write as _;

use serde::Serialize;

use crate::export::{GAMES_HEADER, write_game_row};
use crate::runner::{GameRow, RunError, RunSpec};
use crate::{Bot, Counter, Observer, Seat};
use aeroplane_core::ScriptedDice;
use aeroplane_core::step_label;
use aeroplane_core::{Action, Game, Outcome};
use aeroplane_core::{GameRecord, HANGAR_JSON, RecordJson, step_json};

use super::{InvalidJob, JobError};

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
    /// Start step of the move ([`HANGAR_JSON`] (-1), the hangar, for a launch).
    pub from: Option<i16>,
    /// End step of the move.
    pub to: Option<i16>,
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
                line.from = Some(step_json(m.from()));
                line.to = Some(step_json(m.to()));
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

/// A JSON step as the text log prints it (`H` for the hangar).
fn json_step_label(s: i16) -> String {
    if s == HANGAR_JSON {
        "H".to_string()
    } else {
        s.to_string()
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
            (Some(f), Some(t)) => {
                let (f, t) = (json_step_label(*f), json_step_label(*t));
                format!("{:<8} {f:>2}->{t:<2}", self.action)
            }
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

/// One game to replay: game `game` of `spec` (its seating, bot seeds and, unless `dice` is
/// given, its dice).
#[derive(Clone, Debug, PartialEq)]
pub struct ReplayJob {
    /// The run the game belongs to.
    pub spec: RunSpec,
    /// The game index within the run.
    pub game: u64,
    /// Scripted rolls instead of the run's dice.
    pub dice: Option<Vec<u8>>,
    /// Print the game's `games.csv` row (a game of a real run).
    pub with_csv_row: bool,
    /// The run as errors name it, e.g. `the run of results/x/run.json`.
    pub run_name: String,
}

/// A replayed game.
#[derive(Debug, Serialize)]
pub struct ReplayReport {
    /// The rules.
    pub rules: crate::Rules,
    /// The bots in seat order.
    pub bots: Vec<String>,
    /// `seeded` or `scripted`.
    pub dice: &'static str,
    /// Master seed.
    pub seed: u64,
    /// Game index.
    pub game: u64,
    /// Whether the game reached its end.
    pub complete: bool,
    /// With scripted dice: how many of the rolls given were left when the game ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unused_rolls: Option<usize>,
    /// Why it did not.
    pub error: Option<String>,
    /// The move log.
    pub log: Vec<LogLine>,
    /// The record.
    pub record: RecordJson,
    /// The game's `games.csv` row, for a game of a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games_csv_row: Option<String>,
    #[serde(skip)]
    raw: GameRecord,
    #[serde(skip)]
    final_game: Option<Game>,
}

impl ReplayJob {
    /// Plays the game with its move log.
    pub fn play(&self) -> Result<ReplayReport, JobError> {
        let spec = &self.spec;
        spec.validate()?;
        if !spec.contains_game(self.game) {
            let first = spec.game_index(spec.first_deal, 0);
            return Err(InvalidJob::NoSuchGame {
                game: self.game,
                run: self.run_name.clone(),
                first,
                end: first.saturating_add(spec.total_games()),
            }
            .into());
        }
        let (deal, rotation) = spec.locate(self.game);
        let start = Game::new(spec.rules, spec.players()).map_err(RunError::from)?;
        let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(|s| s.build()).collect();
        let mut log = LogCollector::default();
        let mut unused_rolls = None;
        let (kind, result) = match &self.dice {
            Some(rolls) => {
                let mut dice = ScriptedDice::new(rolls.clone());
                let result = spec.play_dice(&start, self.game, &mut bots, &mut dice, &mut log);
                unused_rolls = Some(dice.remaining());
                ("scripted", result)
            }
            None => (
                "seeded",
                spec.play_from(&start, self.game, &mut bots, &mut log, false)
                    .map(|p| p.record),
            ),
        };
        let (record, final_game, error) = match result {
            Ok(r) => (r, None, None),
            Err(RunError::OutOfDice(e)) => {
                let msg = format!(
                    "the dice ran out after {} rolls, before the game ended (turn {}, seat {} to roll)",
                    e.record.counters[Counter::Rolls],
                    e.game.turns(),
                    e.game.to_move()
                );
                (e.record, Some(e.game), Some(msg))
            }
            Err(e) => return Err(e.into()),
        };
        let n = spec.players();
        let names: Vec<String> = (0..n)
            .map(|k| spec.lineup[(k + rotation as usize) % n].name.clone())
            .collect();
        let games_csv_row = (self.with_csv_row && error.is_none()).then(|| {
            let row = GameRow {
                game: self.game,
                deal,
                rotation,
                played: crate::stats::Played {
                    record,
                    bot_at_seat: spec.bot_at_seat(rotation),
                },
                forfeit_cause: None,
            };
            let mut line = Vec::new();
            write_game_row(&mut line, &row).expect("writing to memory");
            String::from_utf8(line)
                .expect("ASCII")
                .trim_end()
                .to_string()
        });
        let end = final_game.unwrap_or(start);
        Ok(ReplayReport {
            rules: spec.rules,
            bots: names,
            dice: kind,
            seed: spec.seed,
            game: self.game,
            complete: error.is_none(),
            unused_rolls,
            error,
            log: log.lines,
            record: record.to_json_value(&end),
            games_csv_row,
            raw: record,
            final_game: Some(end),
        })
    }
}

/// The first line of the text log: what the bracketed lists mean.
pub const LEGEND: &str = "legend: capture N [s.p ...] = N opponent planes sent to the hangar (H), \
as seat.plane; penalty [planes p ...] = own planes sent to the hangar";

impl ReplayReport {
    /// The move log, the record and (for a game of a run) its games.csv row, as text.
    pub fn write_text(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(out, "{LEGEND}")?;
        for line in &self.log {
            writeln!(out, "{}", line.text())?;
        }
        writeln!(out)?;
        let game = self.final_game.expect("set by play");
        write_record(out, &self.raw, &game, &self.bots, self.complete)?;
        if let Some(row) = &self.games_csv_row {
            writeln!(out, "\ngames.csv row:\n{GAMES_HEADER}\n{row}")?;
        }
        Ok(())
    }

    /// A note when scripted dice were left over: `none` if every roll was used.
    pub fn unused_note(&self) -> Option<String> {
        match self.unused_rolls {
            Some(n) if n > 0 => Some(format!(
                "the game ended after {} of the {} rolls given; the last {n} were not used",
                self.log.len(),
                self.log.len() + n
            )),
            _ => None,
        }
    }

    /// The report as pretty JSON with a final newline.
    pub fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer_pretty(&mut *out, self)?;
        writeln!(out)
    }
}

fn write_record(
    out: &mut dyn std::io::Write,
    r: &GameRecord,
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
