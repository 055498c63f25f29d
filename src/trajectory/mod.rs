//! A game roll by roll: for every roll the position before it, the legal moves, the choice and
//! the values the bot gave the moves, and the position after. Replay's JSON, the board viewer
//! and the checks of a decision log are made from it.
//!
//! Positions are written twice in JSON ([`PositionJson`]): in the core's notation (see
//! `docs/RULES.md`, "Positions in writing") and as arrays (steps per seat, `-1` for the hangar).
//! [`replay`] is a replayed game's move log and report, as `replay` prints it and the viewer
//! draws it.

pub mod replay;

use serde::Serialize;

use crate::bots::external::protocol::MoveJson;
use aeroplane_core::{Action, ActionId, Bot, Game, Move, MoveList, Observer, Outcome, Seat};

/// One roll of a game.
#[derive(Clone, Debug)]
pub struct Step {
    /// The position before the roll (a chance node: no roll waiting).
    pub before: Game,
    /// The die.
    pub roll: u8,
    /// The legal moves for the roll, in the engine's order (empty: a pass or a punished third
    /// six).
    pub legal: MoveList,
    /// The index of the move played in `legal` (`None` when there was none to play).
    pub chosen: Option<usize>,
    /// The values the bot gave the moves, one per legal move, when it was asked (two or more
    /// moves) and reports them ([`Bot::move_values`]).
    pub values: Option<Vec<f32>>,
    /// What the roll did.
    pub outcome: Outcome,
    /// The position after it.
    pub after: Game,
}

impl Step {
    /// The position the seat chose from: the decision node (the roll waiting) when the roll
    /// offered moves, else the position before the roll.
    pub fn decision(&self) -> Game {
        let mut g = self.before;
        if !self.legal.is_empty() {
            // A roll with legal moves makes a decision node (and changes nothing else).
            let _ = g.apply_roll(self.roll);
        }
        g
    }
}

/// Records every roll of a game (an [`Observer`]).
#[derive(Debug, Default)]
pub struct Recorder {
    /// The rolls so far.
    pub steps: Vec<Step>,
    /// The latest bot choice and its values, waiting for its roll.
    choice: Option<(usize, Option<Vec<f32>>)>,
}

impl Observer for Recorder {
    fn sees_choices(&self) -> bool {
        true
    }

    fn on_choice(&mut self, _: &Game, _: u8, _: &[Move], chosen: usize, bot: &dyn Bot) {
        self.choice = Some((chosen, bot.move_values().map(<[f32]>::to_vec)));
    }

    fn on_roll(&mut self, before: &Game, outcome: &Outcome) {
        let legal = before.legal_moves(outcome.roll);
        let played = match outcome.action {
            Action::Move(m) => Some(m),
            Action::Pass | Action::Penalty { .. } => None,
        };
        let (chosen, values) = match self.choice.take() {
            Some((k, values)) => (Some(k), values),
            None => (
                played.and_then(|m| legal.iter().position(|&l| l == m)),
                None,
            ),
        };
        let mut after = *before;
        after.apply(outcome.roll, played);
        self.steps.push(Step {
            before: *before,
            roll: outcome.roll,
            legal,
            chosen,
            values,
            outcome: *outcome,
            after,
        });
    }
}

/// A position as JSON: the notation and the same as arrays.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PositionJson {
    /// The position in the core's notation (`Game`'s `Display`; `Game::from_notation` reads
    /// it back).
    pub notation: String,
    /// The seat to roll, or at a decision node to choose.
    pub to_move: usize,
    /// The roll waiting for a decision, `null` when the die is to be rolled.
    pub roll: Option<u8>,
    /// Per seat (index = seat), its planes' steps in plane order (`-1`: the hangar), as many as
    /// the rules' `planes`; `null` for a seat not in play.
    pub steps: [Option<Vec<i16>>; 4],
    /// Sixes rolled in a row in this turn.
    pub sixes: u8,
    /// Planes of the seat to move moved earlier in this turn.
    pub moved_this_turn: Vec<u8>,
    /// Planes moved by the latest move of this turn.
    pub moved_last: Vec<u8>,
    /// Seats that have finished, in the order they finished.
    pub finished: Vec<usize>,
    /// Turns begun so far.
    pub turns: u32,
}

impl PositionJson {
    /// The JSON form of `game`.
    pub fn of(game: &Game) -> PositionJson {
        let planes = usize::from(game.rules().planes());
        let mut steps: [Option<Vec<i16>>; 4] = Default::default();
        for s in Seat::ALL.into_iter().filter(|&s| game.in_play(s)) {
            steps[s.index()] = Some(
                game.steps(s)[..planes]
                    .iter()
                    .map(|&x| aeroplane_core::step_json(x))
                    .collect(),
            );
        }
        let mut finished: Vec<(u8, usize)> = Seat::ALL
            .into_iter()
            .filter_map(|s| game.rank(s).map(|r| (r, s.index())))
            .collect();
        finished.sort_unstable();
        PositionJson {
            notation: game.to_string(),
            to_move: game.to_move().index(),
            roll: game.pending_roll(),
            steps,
            sixes: game.sixes_this_turn(),
            moved_this_turn: plane_list(game.planes_moved_this_turn()),
            moved_last: plane_list(game.planes_moved_last()),
            finished: finished.into_iter().map(|(_, s)| s).collect(),
            turns: game.turns(),
        }
    }
}

fn plane_list(bits: u8) -> Vec<u8> {
    (0..8).filter(|p| bits & (1 << p) != 0).collect()
}

/// A legal move as JSON: its action id (the state API's) and the move as the bot protocol
/// describes it.
#[derive(Debug, Serialize)]
pub struct LegalJson {
    /// The action id: the lowest plane it moves, plus 4 when it stays on the flight cell.
    pub action: u8,
    /// The move.
    #[serde(flatten)]
    pub mv: MoveJson,
}

impl LegalJson {
    /// The JSON form of `m`.
    pub fn of(m: &Move) -> LegalJson {
        LegalJson {
            action: ActionId::of_move(m).index() as u8,
            mv: MoveJson::of(m),
        }
    }
}

/// Values as JSON numbers, `null` for a value the bot never computed (NaN).
pub fn values_json(values: &[f32]) -> Vec<Option<f32>> {
    values.iter().map(|v| v.is_finite().then_some(*v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_lineup;
    use crate::runner::RunSpec;
    use aeroplane_core::Preset;

    #[test]
    fn every_step_follows_from_the_one_before() {
        let spec = RunSpec {
            rules: Preset::Classic.rules(),
            lineup: parse_lineup("greedy,random,expectimax:depth=1", "bots".as_ref()).unwrap(),
            seed: 5,
            first_deal: 0,
            deals: 3,
            rotate_seats: true,
        };
        for game in 0..9 {
            let mut rec = Recorder::default();
            let played = spec.play(game, &mut rec, Default::default()).unwrap();
            let mut g = Game::new(spec.rules, 3).unwrap();
            for step in &rec.steps {
                assert_eq!(step.before, g);
                assert_eq!(step.legal.as_slice(), g.legal_moves(step.roll).as_slice());
                match step.chosen {
                    Some(k) => assert_eq!(step.outcome.action, Action::Move(step.legal[k])),
                    None => assert!(step.legal.is_empty()),
                }
                if let Some(v) = &step.values {
                    assert_eq!(v.len(), step.legal.len());
                }
                let d = step.decision();
                assert_eq!(Game::from_notation(spec.rules, &d.to_string()).unwrap(), d);
                g = step.after;
            }
            assert!(g.is_over());
            let mut record = aeroplane_core::GameRecord::new(3);
            for step in &rec.steps {
                record.count(&step.outcome);
            }
            record.close(&g);
            assert_eq!(record, played.record);
        }
    }

    #[test]
    fn search_bots_report_a_value_for_every_move_and_plain_bots_none() {
        let spec = RunSpec {
            rules: Preset::AppFreeGame.rules(),
            lineup: parse_lineup(
                "expectimax:depth=1,montecarlo:rollouts=2,mcts:iterations=20,greedy",
                "bots".as_ref(),
            )
            .unwrap(),
            seed: 1,
            first_deal: 0,
            deals: 1,
            rotate_seats: false,
        };
        let mut rec = Recorder::default();
        spec.play(0, &mut rec, Default::default()).unwrap();
        let asked: Vec<&Step> = rec.steps.iter().filter(|s| s.legal.len() > 1).collect();
        for seat in 0..4 {
            let mine: Vec<&&Step> = asked
                .iter()
                .filter(|s| s.outcome.seat.index() == seat)
                .collect();
            assert!(!mine.is_empty());
            for s in mine {
                match seat {
                    3 => assert!(s.values.is_none()),
                    _ => assert_eq!(s.values.as_ref().unwrap().len(), s.legal.len()),
                }
                // Expectimax and Monte Carlo play the move they value most (the first best).
                if seat < 2 {
                    let v = s.values.as_ref().unwrap();
                    let best = v.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                    assert_eq!(v.iter().position(|&x| x == best), s.chosen);
                }
            }
        }
    }
}
