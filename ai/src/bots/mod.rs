//! The search bots and the learned player's bot, each a [`Bot`] with its parameters
//! ([`params`]): what the harness's registry names `expectimax`, `montecarlo`, `mcts` and `td`.
//!
//! - [`eval`]: the heuristic evaluation with named weights, shared by the search bots;
//! - [`search`]: what the search bots share (rollouts, their policies, the move values kept);
//! - [`expectimax`], [`montecarlo`], [`mcts`]: the search bots;
//! - [`td`]: the bot that plays by a value net ([`crate::td`]).

pub mod eval;
pub mod expectimax;
pub mod mcts;
pub mod montecarlo;
pub mod params;
pub mod search;
pub mod td;

use aeroplane_core::{Bot, BotFault, Game, Greedy, Move};

/// [`Bot::choose`] for a bot that can fail (one that implements [`Bot::try_choose`]): its
/// choice, or a panic with its fault. Callers that can handle a fault call `try_choose`, as
/// the runner and [`aeroplane_core::try_play_game`] do.
///
/// # Panics
/// If the bot fails.
#[track_caller]
pub fn choose_or_panic<B: Bot + ?Sized>(
    bot: &mut B,
    game: &Game,
    roll: u8,
    moves: &[Move],
) -> usize {
    match bot.try_choose(game, roll, moves) {
        Ok(k) => k,
        Err(fault) => panic!("{fault}"),
    }
}
