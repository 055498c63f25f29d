//! Bot strategies behind one trait, and the profiles that name and configure them.

pub mod eval;
pub mod expectimax;
mod greedy;
pub mod mcts;
pub mod montecarlo;
mod random;
pub mod registry;
pub mod search;

pub use greedy::Greedy;
pub use random::RandomBot;
pub use registry::{BotError, BotSpec};

use crate::engine::board::Seat;
use crate::engine::game::Game;
use crate::engine::moves::Move;

/// A strategy that picks one legal move. One value plays one seat of one game at a time; the
/// runner builds one per worker and seat and calls [`Bot::new_game`] before every game.
///
/// The interface is deliberately small and data-only (a position, a roll, the legal moves, an
/// index back) so that an out-of-process bot speaking a line protocol can implement it too.
pub trait Bot: Send {
    /// The bot's display name (its profile name).
    fn name(&self) -> &str;

    /// Called before each game with the bot's seat and its own random seed, independent of the
    /// dice. Bots without randomness or per-game state ignore it.
    fn new_game(&mut self, seat: Seat, seed: u64) {
        let _ = (seat, seed);
    }

    /// Picks one of `moves` (never empty; the driver asks only when there are two or more) for
    /// `roll` in `game`, where the bot's seat is to move;
    /// returns its index into `moves`.
    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize;
}
