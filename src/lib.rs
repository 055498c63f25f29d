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

#![warn(missing_docs)]

// The core: private, its types re-exported below.
mod counters;
mod dice;
mod driver;
mod engine;
mod record;

// Services over the core, each a namespace of its own.
pub mod analysis;
pub mod bots;
pub mod config;
pub mod experiment;
pub mod export;
pub mod runner;
pub mod stats;
pub mod suggest;

/// Board geometry: seats, steps, ring cells and the special cells.
pub use engine::board;

pub use bots::{Bot, BotSpec, Greedy, RandomBot};
pub use counters::{Counter, Counters};
pub use dice::{Dice, ScriptedDice, SeededDice, below, bot_stream, mix, parse_dice, stream};
pub use driver::{Observer, OutOfDice, play_game};
pub use engine::board::{HANGAR, PLANES, Seat, step_label};
pub use engine::game::{Action, Game, IllegalMove, Outcome, SetupError, Status};
pub use engine::moves::{MAX_MOVES, Move, MoveList, flag as move_flags};
pub use engine::rules::{
    End, LaunchRolls, Overshoot, Preset, RuleOption, Rules, RulesError, RulesSpec, Setting,
    Specials, Stacking, ThreeSixes,
};
pub use record::{GameRecord, RecordJson, SeatRank};
