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

pub mod analysis;
pub mod bots;
pub mod dice;
pub mod driver;
pub mod engine;
pub mod export;
pub mod record;
pub mod runner;
pub mod stats;

pub use bots::registry::{
    BotSpec, KindDef, ParamDef, ParamKind, Params, parse_lineup, register_kind,
};
pub use bots::{Bot, BotFault, Greedy, RandomBot};
pub use dice::{Dice, ScriptedDice, SeededDice};
pub use driver::{Observer, OutOfDice, PlayError, play_game, try_play_game};
pub use engine::board::{HANGAR, Seat};
pub use engine::game::{Action, Game, IllegalMove, Outcome, SetupError, Status};
pub use engine::moves::{Move, MoveList};
pub use engine::rules::{
    End, LaunchRolls, Overshoot, Preset, Rules, RulesError, RulesSpec, Specials, Stacking,
    ThreeSixes,
};
pub use export::write_report;
pub use record::GameRecord;
pub use runner::{Exec, RunError, RunOptions, RunSpec, run, run_with};
pub use stats::{Summary, Tally};
