//! The greedy bot: the fixed priority of docs/RULES.md ("The greedy bot"), with its tie-breaks.

use crate::bot::Bot;
use crate::game::Game;
use crate::moves::{Move, flag};

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
        // Branch-free: category 0 for a capture, else 3 less 2 for a jump or flight and 1
        // for a launch (a launch never jumps or flies).
        let flags = u32::from(m.flags());
        let special = u32::from(flags & u32::from(flag::JUMP | flag::FLIGHT) != 0);
        let launch = u32::from(flags & u32::from(flag::LAUNCH) != 0);
        let category = u32::from(m.captured() == 0) * (3 - 2 * special - launch);
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
