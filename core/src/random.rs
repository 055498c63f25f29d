//! The random bot: uniform among the distinct legal moves.

use rand_pcg::Pcg32;

use crate::board::Seat;
use crate::bot::Bot;
use crate::dice::below;
use crate::game::Game;
use crate::moves::Move;

/// Picks uniformly among the distinct legal moves, from its own seeded generator.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: Pcg32,
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot {
            rng: Pcg32::new(0, 0),
        }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    fn new_game(&mut self, _seat: Seat, seed: u64) {
        self.rng = Pcg32::new(seed, crate::dice::splitmix64(seed));
    }

    #[inline]
    fn choose(&mut self, _game: &Game, _roll: u8, moves: &[Move]) -> usize {
        if moves.len() == 1 {
            0
        } else {
            below(&mut self.rng, moves.len() as u32) as usize
        }
    }
}
