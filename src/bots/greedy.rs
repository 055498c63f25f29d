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
    /// The priority key of a move: smaller is better. Category (capture 0, jump or flight 1,
    /// launch 2, other 3), then the larger starting step, then flying before staying.
    #[inline]
    pub fn key(m: &Move) -> u32 {
        let category: u32 = if m.captures() > 0 {
            0
        } else if m.jumps() || m.flies() {
            1
        } else if m.is_launch() {
            2
        } else {
            3
        };
        // Launches come only in their own category, so the hangar's step value never competes.
        (category << 9) | (u32::from(u8::MAX - m.from()) << 1) | u32::from(m.stays())
    }

    /// The index of the greedy choice among `moves` (not empty).
    #[inline]
    pub fn pick(moves: &[Move]) -> usize {
        // Keys are distinct among distinct moves; the index rides in the low bits.
        moves
            .iter()
            .enumerate()
            .map(|(i, m)| (Self::key(m) << 4) | i as u32)
            .min()
            .map_or(0, |k| (k & 0xF) as usize)
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
