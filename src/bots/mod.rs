//! Bot strategies behind one trait, and the profiles that name and configure them.
//!
//! The trait ([`Bot`]) and the two plain bots ([`Greedy`], [`RandomBot`]) live in
//! `aeroplane-core`; the search bots, the bot programs and the registry of names live here.

pub mod eval;
pub mod exact;
pub mod expectimax;
pub mod external;
pub mod mcts;
pub mod montecarlo;
pub mod params;
pub mod registry;
pub mod search;
pub mod td;

pub use aeroplane_core::{Bot, BotFault, FaultKind, Greedy, RandomBot};
pub use registry::{BotError, BotSpec};

use aeroplane_core::{Game, Move};

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
