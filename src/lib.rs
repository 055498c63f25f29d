//! # aeroplane
//!
//! A harness for bot tournaments and AI research on Aeroplane Chess (Flying Chess, 飞行棋):
//! a rules engine that plays every variant of `RULES.md`, pluggable bots, and seeded,
//! reproducible game play.
//!
//! The engine itself (rules, game state, dice, the game driver, records, the [`Bot`] trait) is
//! the crate `aeroplane-core`, re-exported here; embed that crate alone to play games without
//! the harness.
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

// Services over the core, each a namespace of its own.
pub mod analysis;
pub mod bots;
pub mod config;
pub mod decision_log;
pub mod experiment;
pub mod export;
pub mod files;
pub mod grade;
pub mod page;
pub mod report;
pub mod runner;
pub mod solve;
pub mod stats;
pub mod td;
pub mod train;
pub mod trajectory;
pub mod value_table;
pub mod viewer;

/// The engine, as its own crate: `aeroplane_core`. Its items are re-exported below, so
/// `aeroplane::Game` and `aeroplane_core::Game` are the same type.
pub use aeroplane_core as core;
/// Board geometry: seats, steps, ring cells and the special cells.
pub use aeroplane_core::board;
pub use aeroplane_core::{excerpt, notation, observation, perft, state, suggest};

pub use aeroplane_core::{
    Action, ActionId, ActionList, Bot, BotFailed, BotFault, Counter, Counters, Dice, DiceError,
    DiceParser, End, Game, GameRecord, Greedy, HANGAR, IllegalMove, LaunchRolls, MAX_DICE_ROLLS,
    MAX_MOVES, Move, MoveList, NUM_ACTIONS, OBSERVATION_LEN, Observer, OutOfDice, Outcome,
    Overshoot, PLANES, PlayError, Player, Preset, RandomBot, RecordJson, RuleOption, Rules,
    RulesBuilder, RulesError, RulesSpec, ScriptedDice, Seat, SeatRank, SeededDice, Setting, Setup,
    SetupError, Specials, Stacking, Status, ThreeSixes, below, bot_stream, mix, move_flags,
    parse_dice, perft_fast, play_game, step_label, stream, try_play_game,
};
pub use analysis::Summary;
pub use bots::BotSpec;
pub use bots::registry::{KindDef, ParamDef, ParamKind, Params, register_kind};
pub use config::{parse_lineup, read_dice};
pub use export::write_report;
pub use files::RulesToml;
pub use runner::{Exec, PlayOptions, RunError, RunOptions, RunSpec, run};
pub use stats::Tally;

/// The Rust code blocks of README.md and of every page under docs/, as doc tests.
#[cfg(doctest)]
mod doc_examples;
