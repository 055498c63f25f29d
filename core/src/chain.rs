//! Landing chains: what a plane that lands on a step goes on to do (a jump, the flight, both),
//! worked out once per `specials` x `flight_optional` so that move generation only looks it up.
//!
//! A chain is the same for every seat, because the board is the same from every seat's point
//! of view: it is written in the mover's own steps. Captures are not part of it (they depend
//! on the position); the chain lists the ring steps it lands on, in order and as a set of ring
//! cells per seat, so the caller can test them against the opponents' planes at once.

use crate::board::{
    FLIGHT_FROM, FLIGHT_TO, JUMP, LAST_JUMP_FROM, Seat, on_ring, own_colour, ring_cell,
};
use crate::moves::flag;
use crate::rules::Specials;

/// What landing on one step leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Chain {
    /// The step the plane(s) end on.
    pub to: u8,
    /// [`flag::JUMP`], [`flag::FLIGHT`], [`flag::CHOICE`] and [`flag::STAY`] as the chain takes them.
    pub flags: u8,
    /// The ring steps landed on, in order; 0 ends the list.
    pub landings: [u8; 3],
    /// Per seat, the shared ring cells of `landings` as a bit set (bit = cell index, as in
    /// the game's occupancy sets).
    pub cells: [u64; 4],
}

impl Chain {
    const fn plain(t: u8) -> Chain {
        let mut c = Chain {
            to: t,
            flags: 0,
            landings: [0; 3],
            cells: [0; 4],
        };
        if on_ring(t) {
            c = c.land(t);
        }
        c
    }

    /// Adds a landing on ring step `s` and moves the end there.
    const fn land(mut self, s: u8) -> Chain {
        let mut i = 0;
        while self.landings[i] != 0 {
            i += 1;
        }
        self.landings[i] = s;
        let mut seat = 0;
        while seat < 4 {
            self.cells[seat] |= 1 << ring_cell(Seat::ALL[seat], s);
            seat += 1;
        }
        self.to = s;
        self
    }

    /// The flight from [`FLIGHT_FROM`] (already landed on): on to [`FLIGHT_TO`], and with
    /// `specials = both` when no jump came before, the jump beyond it.
    const fn fly(mut self, specials: Specials, jumped: bool) -> Chain {
        self.flags |= flag::FLIGHT;
        self = self.land(FLIGHT_TO);
        if matches!(specials, Specials::Both) && !jumped {
            self.flags |= flag::JUMP;
            self = self.land(FLIGHT_TO + JUMP);
        }
        self
    }
}

/// The chains of one rule combination, indexed by the step landed on (after any bounce).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChainTable {
    /// The chain taken (for an optional flight: flying).
    pub go: [Chain; 64],
    /// For a landing that offers an optional flight: staying on the flight cell. Unused
    /// elsewhere.
    pub stay: [Chain; 64],
}

const fn build(specials: Specials, optional: bool) -> ChainTable {
    let mut go = [Chain::plain(0); 64];
    let mut stay = [Chain::plain(0); 64];
    let mut t = 0u8;
    while t < 64 {
        let mut c = Chain::plain(t);
        let choice = if optional { flag::CHOICE } else { 0 };
        if t == FLIGHT_FROM {
            c.flags |= choice;
            stay[t as usize] = Chain {
                flags: c.flags | flag::STAY,
                ..c
            };
            c = c.fly(specials, false);
        } else if own_colour(t) && t <= LAST_JUMP_FROM {
            c.flags |= flag::JUMP;
            c = c.land(t + JUMP);
            if t + JUMP == FLIGHT_FROM && !matches!(specials, Specials::One) {
                c.flags |= choice;
                stay[t as usize] = Chain {
                    flags: c.flags | flag::STAY,
                    ..c
                };
                c = c.fly(specials, true);
            }
        }
        go[t as usize] = c;
        t += 1;
    }
    ChainTable { go, stay }
}

/// Every table: `CHAINS[specials][flight_optional]`, specials in declaration order.
static CHAINS: [[ChainTable; 2]; 3] = [
    [build(Specials::One, false), build(Specials::One, true)],
    [
        build(Specials::JumpThenFlight, false),
        build(Specials::JumpThenFlight, true),
    ],
    [build(Specials::Both, false), build(Specials::Both, true)],
];

/// The chain table for `specials` and `flight_optional`.
#[inline]
pub(crate) fn table(specials: Specials, optional: bool) -> &'static ChainTable {
    &CHAINS[specials as usize][optional as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chains_of_the_special_cells() {
        let one = table(Specials::One, false);
        assert_eq!(one.go[5].to, 5);
        assert_eq!(one.go[5].flags, 0);
        assert_eq!(one.go[6].to, 10);
        assert_eq!(one.go[6].flags, flag::JUMP);
        assert_eq!(one.go[6].landings, [6, 10, 0]);
        assert_eq!(
            one.go[14].to, 18,
            "specials = one: a jump onto the flight cell stops"
        );
        assert_eq!(one.go[18].to, 30);
        assert_eq!(one.go[18].flags, flag::FLIGHT);
        assert_eq!(one.go[46].to, 50);
        assert_eq!(one.go[50].to, 50, "50 is own-colour but past the last jump");
        assert_eq!(one.go[53].cells, [0; 4], "lane steps are off the ring");
        assert_eq!(one.go[1].cells, [1 << 0, 1 << 13, 1 << 26, 1 << 39]);

        let both = table(Specials::Both, true);
        assert_eq!(both.go[18].landings, [18, 30, 34]);
        assert_eq!(both.go[18].flags, flag::FLIGHT | flag::JUMP | flag::CHOICE);
        assert_eq!(both.stay[18].to, 18);
        assert_eq!(both.stay[18].flags, flag::CHOICE | flag::STAY);
        assert_eq!(
            both.go[14].landings,
            [14, 18, 30],
            "no jump after a jump-flight"
        );
        assert_eq!(both.stay[14].landings, [14, 18, 0]);
        assert_eq!(both.stay[14].flags, flag::JUMP | flag::CHOICE | flag::STAY);
        assert_eq!(both.go[14].cells[0], 1 << 13 | 1 << 17 | 1 << 29);
        assert_eq!(both.go[14].cells[3], 1 | 1 << 4 | 1 << 16);
    }
}
