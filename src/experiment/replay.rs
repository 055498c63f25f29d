//! `replay`: one game, from a run's (seed, game index) or from given dice, with its move log.

use crate::decision_log::Header;
use crate::decision_log::check::CheckedGame;
use crate::export::write_game_row_with_names;
use crate::runner::{GameRow, PlayOptions, RunError, RunSpec};
use crate::trajectory::Recorder;
use crate::trajectory::replay::{ReplayReport, log_lines};
use aeroplane_core::ScriptedDice;
use aeroplane_core::{ActionId, Game};
use aeroplane_core::{Bot, Counter, Seat};

use super::{InvalidJob, JobError};

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
