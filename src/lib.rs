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
//!
//! ## Your own bot
//!
//! In Rust, as a plug-in: implement [`Bot`] (`choose` picks an index into the legal moves;
//! `new_game` gives a seed for any randomness), describe it as a [`KindDef`] with
//! range-checked [`ParamDef`]s, [`register_kind`] it, and it can be named in a lineup like a
//! built-in bot ([`parse_lineup`]); [`run`] plays a [`RunSpec`] on all cores and returns a
//! [`Tally`], [`Summary`] and [`write_report`] show it. `examples/custom_bot.rs` is a whole
//! program that does this.
//!
//! In any other language: a program that speaks the line protocol of `docs/PROTOCOL.md`,
//! named by a profile of kind `external` ([`bots::external`]).

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
pub mod excerpt;
pub mod experiment;
pub mod export;
pub mod report;
pub mod runner;
pub mod stats;
pub mod suggest;

/// Board geometry: seats, steps, ring cells and the special cells.
pub use engine::board;

pub use bots::registry::{KindDef, ParamDef, ParamKind, Params, register_kind};
pub use bots::{Bot, BotFault, BotSpec, Greedy, RandomBot};
pub use config::parse_lineup;
pub use counters::{Counter, Counters};
pub use dice::{
    Dice, MAX_DICE_ROLLS, ScriptedDice, SeededDice, below, bot_stream, mix, parse_dice, read_dice,
    stream,
};
pub use driver::{Observer, OutOfDice, PlayError, play_game, try_play_game};
pub use engine::board::{HANGAR, PLANES, Seat, step_label};
pub use engine::game::{Action, Game, IllegalMove, Outcome, SetupError, Status};
pub use engine::moves::{MAX_MOVES, Move, MoveList, flag as move_flags};
pub use engine::rules::{
    End, LaunchRolls, Overshoot, Preset, RuleOption, Rules, RulesError, RulesSpec, Setting,
    Specials, Stacking, ThreeSixes,
};
pub use export::write_report;
pub use record::{GameRecord, RecordJson, SeatRank};
pub use runner::{Exec, RunError, RunOptions, RunSpec, run, run_with};
pub use stats::{Summary, Tally};

/// README.md's and docs/*.md's Rust code blocks, as doc tests.
#[cfg(doctest)]
mod doc_examples;
