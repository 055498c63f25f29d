//! # aeroplane
//!
//! A harness for bot tournaments and AI research on Aeroplane Chess (Flying Chess, 飞行棋):
//! a rules engine that plays every variant of `RULES.md`, pluggable bots, and seeded,
//! reproducible game play.
//!
//! ```
//! use aeroplane::{Game, Rules, Greedy, SeededDice, play_game, Bot};
//! let game = Game::new(Rules::default(), 4).unwrap();
//! let mut bots: Vec<Box<dyn Bot>> = (0..4).map(|_| Box::new(Greedy) as Box<dyn Bot>).collect();
//! let record = play_game(game, &mut bots, &mut SeededDice::new(42, 0), &mut ()).unwrap();
//! assert!(record.winner.is_some());
//! ```

pub mod analysis;
pub mod bots;
pub mod dice;
pub mod driver;
pub mod engine;
pub mod experiment;
pub mod export;
pub mod record;
pub mod report;
pub mod runner;
pub mod stats;
pub mod suggest;

pub use bots::{Bot, Greedy, RandomBot};
pub use dice::{Dice, ScriptedDice, SeededDice};
pub use driver::{Observer, OutOfDice, play_game};
pub use engine::board::{HANGAR, Seat};
pub use engine::game::{Action, Game, IllegalMove, Outcome, SetupError, Status};
pub use engine::moves::{Move, MoveList};
pub use engine::rules::{
    End, LaunchRolls, Overshoot, Preset, Rules, RulesError, RulesSpec, Specials, Stacking,
    ThreeSixes,
};
pub use record::GameRecord;
