//! # aeroplane-core
//!
//! The rules engine of Aeroplane Chess (Flying Chess, 飞行棋) as a library: every rule variant,
//! a validated game state with a fast move generator, seeded dice, a game driver, the game
//! record and its counters, and the [`Bot`] trait. No IO, no threads, no command line; its only
//! dependencies are `rand`, `rand_pcg` and (with the `serde` feature) `serde`.
//!
//! Two ways to drive a game:
//!
//! - **The fast path** the tournament runner uses: the die is an argument.
//!   [`Game::legal_moves`] lists the distinct moves for a roll, [`Game::apply`] plays one (or a
//!   pass), and [`play_game`] runs a whole game between [`Bot`]s from a [`Dice`] source.
//! - **The state API** in the shape of OpenSpiel's ([`state`]): the roll is part of
//!   the state, so a position is a chance node, a decision node with small integer action ids,
//!   or terminal; with returns and observation vectors for game-AI frameworks.
//!
//! ```
//! use aeroplane_core::{Game, Player, Preset, Rules};
//!
//! let rules = Rules::builder().base(Preset::Classic).planes(2).build()?;
//! let mut game = Game::new(rules, 2)?;
//! let mut turn = 0u64;
//! while game.current_player() != Player::Terminal {
//!     match game.current_player() {
//!         Player::Chance => {
//!             game.apply_roll((turn % 6) as u8 + 1)?; // scripted dice, 1 2 3 4 5 6 1 ...
//!             turn += 1;
//!         }
//!         Player::Seat(_) => {
//!             let first = game.legal_actions().iter().next().unwrap();
//!             game.apply_action(first.index() as u32)?;
//!         }
//!         Player::Terminal => unreachable!(),
//!     }
//! }
//! assert_eq!(game.returns().iter().sum::<f64>(), 0.0);
//! println!("{game}"); // the position notation
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Positions are built only through checks: [`Rules`] from a [`Preset`], a [`RulesBuilder`] or
//! a [`RulesSpec`]; a [`Game`] from [`Game::new`], from a [`Setup`] (plain data) by
//! [`Setup::into_game`], or from its text notation ([`Game::from_notation`], see
//! [`notation`]). Each refusal is a typed error naming the field at fault.

#![warn(missing_docs)]

pub mod board;
mod bot;
mod chain;
mod counters;
mod dice;
mod driver;
pub mod excerpt;
mod game;
mod greedy;
mod kernel;
mod moves;
pub mod notation;
pub mod observation;
pub mod perft;
mod random;
mod record;
mod rules;
mod setup;
mod setup_error;
pub mod state;
pub mod suggest;

pub use board::{HANGAR, PLANES, Seat, step_label};
pub use bot::{Bot, BotFault, FaultKind, Inline};
pub use counters::{Counter, Counters};
pub use dice::{
    Dice, DiceError, DiceParser, MAX_DICE_ROLLS, ScriptedDice, SeededDice, below, bot_stream, mix,
    parse_dice, splitmix64, stream,
};
pub use driver::{BotFailed, Observer, OutOfDice, PlayError, play_game, try_play_game};
pub use game::{Action, Game, IllegalMove, Outcome, Status};
pub use greedy::Greedy;
pub use moves::{MAX_MOVES, Move, MoveList, flag as move_flags};
pub use observation::{OBSERVATION_LEN, PLANE_FEATURES};
pub use perft::{perft, perft_fast};
pub use random::RandomBot;
pub use record::{GameRecord, HANGAR_JSON, RecordJson, SeatRank, step_json};
pub use rules::{
    End, LaunchRolls, Overshoot, Preset, RuleOption, Rules, RulesBuilder, RulesError, RulesSpec,
    Setting, Specials, Stacking, ThreeSixes,
};
pub use setup::{Setup, resting_steps};
pub use setup_error::{SetupError, StepProblem};
pub use state::{ActionId, ActionList, NUM_ACTIONS, Player};

/// The examples of the crate's README, compiled and run by `cargo test`.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
