//! The greedy bot: seed 004's documented priority, with RULES.md's tie-breaks.

use super::Bot;
use crate::engine::game::Game;
use crate::engine::moves::Move;

/// Captures first, then a jump or the flight, then a launch, then anything else; within a
/// category the plane furthest along (largest step before the move); a flight before staying.
/// Deterministic: greedy-only games are a pure function of the dice.
#[derive(Clone, Copy, Debug, Default)]
pub struct Greedy;

impl Greedy {
    /// The priority key of a move: smaller is better.
    #[inline]
    pub fn key(m: &Move) -> (u8, u8, bool) {
        let category = if m.captures() > 0 {
            0
        } else if m.jumps() || m.flies() {
            1
        } else if m.is_launch() {
            2
        } else {
            3
        };
        // Launches come only in their own category, so the hangar's step value never competes.
        (category, u8::MAX - m.from(), m.stays())
    }

    /// The index of the greedy choice among `moves` (not empty).
    #[inline]
    pub fn pick(moves: &[Move]) -> usize {
        let mut best = 0;
        let mut best_key = Self::key(&moves[0]);
        for (i, m) in moves.iter().enumerate().skip(1) {
            let k = Self::key(m);
            if k < best_key {
                best = i;
                best_key = k;
            }
        }
        best
    }
}

impl Bot for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }

    #[inline]
    fn choose(&mut self, _game: &Game, _roll: u8, moves: &[Move]) -> usize {
        Self::pick(moves)
    }
}
