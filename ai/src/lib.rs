//! # aeroplane-ai
//!
//! The bots of Aeroplane Chess that think: the search bots (expectimax, flat Monte Carlo,
//! MCTS) with the heuristic evaluation they share, and the learned player (a value net trained
//! by TD(λ) self-play: its input encoding, forward and backward passes, the net file format
//! read from and written to bytes, one self-play game, and the `td` bot).
//!
//! Over [`aeroplane_core`] only, and like it the crate does no IO, starts no thread and reads
//! no clock: a bot's search is bounded by its parameters (depth, iterations, rollouts), so its
//! choice is a pure function of the position, the roll and its seed. It builds for
//! `wasm32-unknown-unknown` (the browser page, `aeroplane-web`). The harness (`aeroplane`)
//! names these bots, reads net files from disk and trains nets; it re-exports this crate's
//! modules where they have always been (`aeroplane::bots::expectimax`, `aeroplane::td::net`).
//!
//! ```
//! use aeroplane_ai::bots::expectimax::Expectimax;
//! use aeroplane_core::{Bot, Game, Rules, Seat};
//! let game = Game::new(Rules::default(), 4).unwrap();
//! let mut bot = Expectimax::new("expectimax", 2, Default::default());
//! bot.new_game(Seat::ALL[0], 7);
//! let moves = game.legal_moves(6);
//! let k = bot.choose(&game, 6, &moves);
//! assert!(k < moves.len());
//! ```

#![warn(missing_docs)]

pub mod bots;
pub mod math;
pub mod shipped;
pub mod td;
