//! Moves: small `Copy` values carrying the whole effect of a legal choice, and a fixed-size list.

use std::fmt;

use crate::board::{HANGAR, Seat};

/// Flags describing what a move does.
pub mod flag {
    /// Takes a plane from the hangar to its take-off cell.
    pub const LAUNCH: u8 = 1;
    /// Takes a colour jump.
    pub const JUMP: u8 = 2;
    /// Takes the flight.
    pub const FLIGHT: u8 = 4;
    /// Bounces back from the centre.
    pub const BOUNCE: u8 = 8;
    /// Declines an optional flight and stays on the flight cell.
    pub const STAY: u8 = 16;
    /// Brings the plane(s) to the centre.
    pub const FINISH: u8 = 32;
    /// One of two choices (fly or stay) that an optional flight offers from the same step.
    pub const CHOICE: u8 = 64;
}

/// A legal move, with its whole effect worked out when it was generated: which own planes move,
/// where they end, which opponent planes it sends home and which specials it takes.
///
/// Two moves of one position are the same choice exactly when their [`from`](Move::from) and
/// [`stays`](Move::stays) agree (RULES.md: "moves are distinct choices").
///
/// Packed into one machine word (from, to, planes, flags: a byte each; then the captures), so
/// that it is built in a register and stored and loaded whole: a move written field by field
/// and read back as a word stalls the CPU's store forwarding, on every roll.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move(u64);

impl Move {
    /// A move from its parts (see the accessors).
    #[inline(always)]
    pub(crate) const fn new(from: u8, to: u8, planes: u8, flags: u8, captured: u16) -> Move {
        Move(
            from as u64
                | (to as u64) << 8
                | (planes as u64) << 16
                | (flags as u64) << 24
                | (captured as u64) << 32,
        )
    }

    /// The same move capturing `captured` (replacing any captures).
    #[inline(always)]
    pub(crate) const fn with_captured(self, captured: u16) -> Move {
        Move(self.0 & 0xFFFF_FFFF | (captured as u64) << 32)
    }

    /// The same move ending on `to` with `flags` (replacing both).
    #[inline(always)]
    pub(crate) const fn with_end(self, to: u8, flags: u8) -> Move {
        Move(self.0 & !0xFF00_FF00 | (to as u64) << 8 | (flags as u64) << 24)
    }

    /// The step the plane(s) start from; [`HANGAR`] for a launch.
    #[inline]
    pub fn from(&self) -> u8 {
        self.0 as u8
    }
    /// The step the plane(s) end on.
    #[inline]
    pub fn to(&self) -> u8 {
        (self.0 >> 8) as u8
    }
    /// Bit set of the mover's planes (bit `i` for plane `i`) that move.
    #[inline]
    pub fn planes(&self) -> u8 {
        (self.0 >> 16) as u8
    }
    /// How many own planes move (more than one for a stack).
    #[inline]
    pub fn plane_count(&self) -> u32 {
        self.planes().count_ones()
    }
    /// Bit set of captured opponent planes: bit `4 * seat + plane`.
    #[inline]
    pub fn captured(&self) -> u16 {
        (self.0 >> 32) as u16
    }
    /// How many opponent planes the move sends to their hangars.
    #[inline]
    pub fn captures(&self) -> u32 {
        self.captured().count_ones()
    }
    /// Whether the move captures planes of `seat`.
    #[inline]
    pub fn captures_seat(&self, seat: Seat) -> u32 {
        ((self.captured() >> (4 * seat.index())) & 0xF).count_ones()
    }
    /// The raw flags, see [`flag`].
    #[inline]
    pub fn flags(&self) -> u8 {
        (self.0 >> 24) as u8
    }
    /// A launch from the hangar.
    #[inline]
    pub fn is_launch(&self) -> bool {
        self.flags() & flag::LAUNCH != 0
    }
    /// Takes a colour jump.
    #[inline]
    pub fn jumps(&self) -> bool {
        self.flags() & flag::JUMP != 0
    }
    /// Takes the flight.
    #[inline]
    pub fn flies(&self) -> bool {
        self.flags() & flag::FLIGHT != 0
    }
    /// Bounces at the centre.
    #[inline]
    pub fn bounces(&self) -> bool {
        self.flags() & flag::BOUNCE != 0
    }
    /// Declines an optional flight.
    #[inline]
    pub fn stays(&self) -> bool {
        self.flags() & flag::STAY != 0
    }
    /// Reaches the centre.
    #[inline]
    pub fn finishes(&self) -> bool {
        self.flags() & flag::FINISH != 0
    }

    /// The move's notation: `launch`, `14` (move the plane(s) at step 14), `18:fly` or
    /// `18:stay` where an optional flight makes two choices from one step.
    pub fn notation(&self) -> String {
        self.to_string()
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Move")
            .field("from", &self.from())
            .field("to", &self.to())
            .field("planes", &self.planes())
            .field("flags", &self.flags())
            .field("captured", &self.captured())
            .finish()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.from() == HANGAR {
            return f.write_str("launch");
        }
        write!(f, "{}", self.from())?;
        match (self.flags() & flag::CHOICE != 0, self.stays()) {
            (false, _) => Ok(()),
            (true, true) => f.write_str(":stay"),
            (true, false) => f.write_str(":fly"),
        }
    }
}

/// Most distinct moves one roll can offer: a launch plus up to four steps, two of which could
/// have a fly/stay choice.
pub const MAX_MOVES: usize = 10;

/// The legal moves of one roll, in a fixed-size array: building it allocates nothing.
#[derive(Clone, Copy, Debug)]
pub struct MoveList {
    len: u8,
    moves: [Move; MAX_MOVES],
}

const NO_MOVE: Move = Move::new(0, 0, 0, 0, 0);

impl Default for MoveList {
    fn default() -> Self {
        MoveList {
            len: 0,
            moves: [NO_MOVE; MAX_MOVES],
        }
    }
}

impl MoveList {
    /// Empties the list.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        debug_assert!((self.len as usize) < MAX_MOVES);
        self.moves[self.len as usize] = m;
        self.len += 1;
    }

    /// Appends `m` when `keep` holds; without a branch (the slot after the last is spare).
    #[inline]
    pub(crate) fn push_if(&mut self, m: Move, keep: bool) {
        debug_assert!((self.len as usize) < MAX_MOVES);
        self.moves[self.len as usize] = m;
        self.len += u8::from(keep);
    }

    /// The moves as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    #[inline]
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packed_move_gives_back_its_parts_and_edits_touch_only_theirs() {
        let m = Move::new(HANGAR, 0xA5, 0b1010, flag::LAUNCH | flag::CHOICE, 0xBEEF);
        assert_eq!(
            (m.from(), m.to(), m.planes(), m.flags(), m.captured()),
            (HANGAR, 0xA5, 0b1010, flag::LAUNCH | flag::CHOICE, 0xBEEF)
        );
        let e = m.with_end(18, flag::STAY);
        assert_eq!(
            (e.from(), e.to(), e.planes(), e.flags(), e.captured()),
            (HANGAR, 18, 0b1010, flag::STAY, 0xBEEF)
        );
        let c = m.with_captured(0x0001);
        assert_eq!(
            (c.from(), c.to(), c.planes(), c.flags(), c.captured()),
            (HANGAR, 0xA5, 0b1010, flag::LAUNCH | flag::CHOICE, 1)
        );
        assert_eq!(c.with_captured(0xBEEF), m);
        assert_eq!(m.captures(), 0xBEEFu16.count_ones());
        assert_eq!(m.captures_seat(Seat::ALL[3]), 0xBu16.count_ones());
    }

    #[test]
    fn push_if_keeps_only_what_it_is_told_to() {
        let mut list = MoveList::default();
        for i in 0..MAX_MOVES as u8 - 1 {
            list.push_if(Move::new(i, i, 1, 0, 0), i % 2 == 0);
        }
        let kept: Vec<u8> = list.iter().map(Move::from).collect();
        assert_eq!(kept, [0, 2, 4, 6, 8]);
    }
}
