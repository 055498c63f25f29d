//! A replayed game as `replay` shows it: the move log, one line per roll ([`LogLine`]), and
//! the game's report ([`ReplayReport`]: its JSON, and its text with the record and, for a
//! game of a run, its `games.csv` row). The board viewer draws it; `experiment::replay` plays
//! the game that fills it.

use std::fmt::Write as _;

use serde::Serialize;

use super::{LegalJson, PositionJson, Step, values_json};
use crate::export::{GAMES_HEADER, NAME_COLUMNS};
use aeroplane_core::step_label;
use aeroplane_core::{Action, Game, Outcome, Seat};
use aeroplane_core::{GameRecord, HANGAR_JSON, RecordJson, step_json};

/// One line of the move log: one roll.
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
    /// The position the roll was played from: the decision node (the roll waiting) when the
    /// roll offered moves, else the position before the roll.
    pub before: PositionJson,
    /// The legal moves for the roll, in the engine's order (empty for a pass or a penalty).
    pub legal: Vec<LegalJson>,
    /// The index in `legal` of the move played (`null` for a pass or a penalty).
    pub chosen: Option<usize>,
    /// The value the bot gave each legal move (`null`: not computed), when the bot was asked
    /// and reports values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Option<f32>>>,
    /// The position after the roll.
    pub after: PositionJson,
}

/// The move log of a recorded game.
pub(crate) fn log_lines(steps: &[Step]) -> Vec<LogLine> {
    let mut turn = 0;
    steps
        .iter()
        .enumerate()
        .map(|(k, step)| {
            let o = &step.outcome;
            if o.new_turn {
                turn += 1;
            }
            let mut line = LogLine {
                roll_no: k as u32 + 1,
                turn,
                seat: o.seat.index(),
                roll: o.roll,
                action: String::new(),
                from: None,
                to: None,
                events: Vec::new(),
                captured: Vec::new(),
                penalised: Vec::new(),
                before: PositionJson::of(&step.decision()),
                legal: step.legal.iter().map(LegalJson::of).collect(),
                chosen: step.chosen,
                values: step.values.as_deref().map(values_json),
                after: PositionJson::of(&step.after),
            };
            describe(&mut line, &step.before, o);
            line
        })
        .collect()
}

/// Fills in the action and events of one roll.
fn describe(line: &mut LogLine, before: &Game, o: &Outcome) {
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
        line.events
            .push(format!("home (rank {})", rank_after(before)));
    }
    if o.roll == 6 && !o.turn_over {
        line.events.push("roll again".into());
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
fn rank_after(before: &Game) -> usize {
    before
        .seats()
        .iter()
        .filter(|&&s| before.has_finished(s))
        .count()
        + 1
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

/// A replayed game.
#[derive(Debug, Serialize)]
pub struct ReplayReport {
    /// The rules.
    pub rules: aeroplane_core::Rules,
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
    /// The game's `games.csv` row, for a game of a run (the bots' names included; not the
    /// forfeit columns of a run with `recover`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games_csv_row: Option<String>,
    #[serde(skip)]
    pub(crate) raw: GameRecord,
    #[serde(skip)]
    pub(crate) final_game: Option<Game>,
    #[serde(skip)]
    pub(crate) start: Game,
}

/// The first line of the text log: what the bracketed lists mean.
pub const LEGEND: &str = "legend: capture N [s.p ...] = N opponent planes sent to the hangar (H), \
as seat.plane; penalty [planes p ...] = own planes sent to the hangar";

impl ReplayReport {
    /// The position the game started from.
    pub fn start(&self) -> Game {
        self.start
    }

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
            writeln!(out, "\ngames.csv row:\n{GAMES_HEADER}{NAME_COLUMNS}\n{row}")?;
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
