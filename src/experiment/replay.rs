//! `replay`: one game, from a run's (seed, game index) or from given dice, with its move log.

use std::fmt::Write as _;

use serde::Serialize;

use crate::decision_log::Header;
use crate::decision_log::check::CheckedGame;
use crate::export::{GAMES_HEADER, NAME_COLUMNS, write_game_row_with_names};
use crate::runner::{GameRow, PlayOptions, RunError, RunSpec};
use crate::trajectory::{LegalJson, PositionJson, Recorder, Step, values_json};
use crate::{Bot, Counter, Seat};
use aeroplane_core::ScriptedDice;
use aeroplane_core::step_label;
use aeroplane_core::{Action, ActionId, Game, Outcome};
use aeroplane_core::{GameRecord, HANGAR_JSON, RecordJson, step_json};

use super::{InvalidJob, JobError};

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
fn log_lines(steps: &[Step]) -> Vec<LogLine> {
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
    /// The game's `games.csv` row, for a game of a run (the bots' names included; not the
    /// forfeit columns of a run with `recover`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub games_csv_row: Option<String>,
    #[serde(skip)]
    raw: GameRecord,
    #[serde(skip)]
    final_game: Option<Game>,
    #[serde(skip)]
    start: Game,
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
        let mut log = Recorder::default();
        let mut unused_rolls = None;
        let (kind, result) = match &self.dice {
            Some(rolls) => {
                let mut dice = ScriptedDice::new(rolls.clone());
                let with = PlayOptions {
                    start: Some(&start),
                    bots: Some(&mut bots),
                    dice: Some(&mut dice),
                    recover: false,
                };
                let result = spec.play(self.game, &mut log, with).map(|p| p.record);
                unused_rolls = Some(dice.remaining());
                ("scripted", result)
            }
            None => (
                "seeded",
                spec.play(
                    self.game,
                    &mut log,
                    PlayOptions {
                        start: Some(&start),
                        bots: Some(&mut bots),
                        ..PlayOptions::default()
                    },
                )
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
            write_game_row_with_names(&mut line, &row, &super::names(&spec.lineup))
                .expect("writing to memory");
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
            log: log_lines(&log.steps),
            record: record.to_json_value(&end),
            games_csv_row,
            raw: record,
            final_game: Some(end),
            start,
        })
    }
}

/// A bot that plays the choices of a decision log, and reports the values logged with them.
struct LoggedBot {
    name: String,
    choices: std::collections::VecDeque<(ActionId, Option<Vec<Option<f32>>>)>,
    values: Vec<f32>,
}

impl Bot for LoggedBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, _: &Game, _: u8, moves: &[aeroplane_core::Move]) -> usize {
        let (id, values) = self
            .choices
            .pop_front()
            .expect("check_game matched every decision with a line");
        self.values.clear();
        if let Some(values) = values {
            // Logged in ascending action ids; the driver's moves are in the engine's order.
            let mut ids: Vec<ActionId> = moves.iter().map(ActionId::of_move).collect();
            ids.sort_unstable();
            self.values.extend(moves.iter().map(|m| {
                let k = ids.binary_search(&ActionId::of_move(m)).expect("an id");
                values.get(k).copied().flatten().unwrap_or(f32::NAN)
            }));
        }
        moves
            .iter()
            .position(|m| ActionId::of_move(m) == id)
            .expect("check_game found the action legal")
    }

    fn move_values(&self) -> Option<&[f32]> {
        (!self.values.is_empty()).then_some(&self.values[..])
    }
}

/// Replays a logged game that [`check_game`](crate::decision_log::check::check_game)
/// accepted: its rolls and its bots' logged choices (and values) through the game driver, as
/// `replay` shows any game.
pub fn replay_logged(header: &Header, checked: &CheckedGame) -> Result<ReplayReport, JobError> {
    let start = Game::new(header.rules, header.players).map_err(RunError::from)?;
    let name_of = |seat: Seat| {
        checked.bots[seat.index()]
            .and_then(|b| header.bots.get(usize::from(b)))
            .map_or_else(|| "?".to_string(), |b| b.name.clone())
    };
    let names: Vec<String> = start.seats().iter().map(|&s| name_of(s)).collect();
    let mut bots: Vec<Box<dyn Bot>> = start
        .seats()
        .iter()
        .map(|&seat| {
            let mine = checked
                .decisions
                .iter()
                .filter(|d| d.seat == seat.index())
                .map(|d| (d.action, d.values.clone()))
                .collect();
            Box::new(LoggedBot {
                name: name_of(seat),
                choices: mine,
                values: Vec::new(),
            }) as Box<dyn Bot>
        })
        .collect();
    let mut dice = ScriptedDice::new(checked.rolls.clone());
    let mut log = Recorder::default();
    let (record, error) = match aeroplane_core::try_play_game(start, &mut bots, &mut dice, &mut log)
    {
        Ok(r) => (r, None),
        Err(aeroplane_core::PlayError::OutOfDice(e)) => {
            let why = match checked.forfeit {
                Some(s) => format!(
                    "seat {s}'s bot failed here and forfeited the game (the run used --recover)"
                ),
                None => "the log ends here".to_string(),
            };
            (e.record, Some(why))
        }
        Err(aeroplane_core::PlayError::Bot(e)) => {
            return Err(InvalidJob::LoggedChoice(e.to_string()).into());
        }
    };
    Ok(ReplayReport {
        rules: header.rules,
        bots: names,
        dice: "logged",
        seed: header.seed,
        game: checked.game,
        complete: error.is_none(),
        unused_rolls: None,
        error,
        log: log_lines(&log.steps),
        record: checked.record.to_json_value(&start),
        games_csv_row: None,
        raw: if checked.forfeit.is_some() {
            checked.record
        } else {
            record
        },
        final_game: Some(start),
        start,
    })
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
