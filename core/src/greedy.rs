//! The greedy bot: the fixed priority of docs/RULES.md ("The greedy bot"), with its tie-breaks.

use crate::board::{HANGAR, PLANES, TAKE_OFF};
use crate::bot::{Bot, Inline};
use crate::game::{Game, match_mask, movable_steps};
use crate::kernel::Kernel;
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

    fn inline(&mut self) -> Option<Inline<'_>> {
        Some(Inline::Greedy)
    }

    #[inline]
    fn choose(&mut self, _game: &Game, _roll: u8, moves: &[Move]) -> usize {
        Self::pick(moves)
    }
}

impl Game {
    /// The move [`Greedy`] picks for `roll` (`None` for a pass), found without listing the
    /// moves: the driver's loop plays a greedy seat this way.
    ///
    /// Greedy's key is a category and then the starting step, so it is enough to know, for
    /// every plane at once, which categories its move falls in; those are bit sets over the
    /// starting steps (bit `s` for step `s`), each a few operations on 64-bit words:
    /// - `at`: the steps holding the seat's movable planes; `forward`: those the roll does not
    ///   carry past the centre (the others bounce or have no move);
    /// - captures: `O` is the steps of the seat's path holding opponents; a chain landing on
    ///   `t` captures when it lands on a step of `O`, and the chain table's `reach` sets name
    ///   the landings that land again 4, 12 or 16 steps on, so `land = O | (O >> 4) & reach[0]
    ///   | ...` is every landing whose chain captures (with the crossed cell, every flight when
    ///   the opposite seat stands there), and `forward & (land >> roll)` every plane whose
    ///   move captures;
    /// - jumps and the flight: `forward & (special >> roll)` likewise;
    /// - a bouncing plane lands on `2 * centre - s - roll`, a reflection rather than a shift:
    ///   those few planes are looked up one by one.
    ///
    /// The best category's highest bit is the plane furthest along. An optional flight offers
    /// fly and stay from one step; greedy always flies (flying lands everywhere staying does
    /// and more, so its category is never worse, and it wins the tie), so stays are not
    /// looked at. Debug builds check every answer against [`Greedy::pick`] over the list.
    #[inline(always)]
    pub(crate) fn greedy_move<K: Kernel>(&self, roll: u8) -> Option<Move> {
        let choice = self.greedy_move_unchecked::<K>(roll);
        #[cfg(debug_assertions)]
        {
            let moves = self.legal_moves(roll);
            let listed = (!moves.is_empty()).then(|| moves[Greedy::pick(&moves)]);
            debug_assert_eq!(choice, listed, "greedy's move for roll {roll} in {self:?}");
        }
        choice
    }

    /// The launch of the lowest-numbered plane in the hangar.
    #[inline(always)]
    fn launch_move(mine: [u8; PLANES]) -> Move {
        let in_hangar = match_mask(mine, HANGAR);
        Move::new(
            HANGAR,
            TAKE_OFF,
            in_hangar & in_hangar.wrapping_neg(),
            flag::LAUNCH,
            0,
        )
    }

    #[inline(always)]
    fn greedy_move_unchecked<K: Kernel>(&self, roll: u8) -> Option<Move> {
        if self.punished::<K>(roll) {
            return None;
        }
        let rules = &self.rules;
        let seat = self.to_move;
        let mine = self.steps[seat.index()];
        let centre = rules.centre();
        let chains = K::chains(rules);
        let at = movable_steps(mine, centre);
        let launch = rules.launch_rolls.contains(roll) && match_mask(mine, HANGAR) != 0;
        if at == 0 {
            // Every plane in the hangar or home (a fifth of all rolls): launch or pass.
            return launch.then(|| Self::launch_move(mine));
        }
        let land = self.capturing_landings::<K>(seat, chains);
        // Steps s with s + roll <= centre.
        let forward = at & ((2u64 << (centre - roll)) - 1);
        let mut capture = forward & (land >> roll);
        let mut special = forward & (chains.special >> roll);
        let mut other = forward;
        if K::bounces(rules) {
            let mut over = at & !forward;
            while over != 0 {
                let s = over.trailing_zeros() as u8;
                let bit = over & over.wrapping_neg();
                over &= over - 1;
                let t = 2 * centre - s - roll;
                capture |= bit & (land >> t & 1).wrapping_neg();
                special |= bit & (chains.special >> t & 1).wrapping_neg();
                other |= bit;
            }
        }
        // The best non-empty category, a launch ranking between jumps and the rest.
        let best = if capture != 0 { capture } else { special };
        let best = if best != 0 || launch { best } else { other };
        if best == 0 {
            return launch.then(|| Self::launch_move(mine));
        }
        let s = 63 - best.leading_zeros() as u8;
        let reach = s + roll;
        let over = reach > centre;
        let t = if over { 2 * centre - reach } else { reach };
        let chain = &chains.go[usize::from(t & 63)];
        let extra =
            if over { flag::BOUNCE } else { 0 } | if t == centre { flag::FINISH } else { 0 };
        let m = Move::along(s, self.planes_at::<K>(seat, s), chain.word, extra);
        // (A capture is the best category whenever there is one, so its step is `s`.)
        Some(if capture >> s & 1 != 0 {
            m.with_captured(self.chain_captures::<K>(seat, chain))
        } else {
            m
        })
    }
}
