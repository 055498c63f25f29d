//! Board geometry: seats, steps and the special cells of RULES.md.

use std::fmt;

/// A seat (colour), in clockwise order: 0 red, 1 yellow, 2 blue, 3 green.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(u8);

#[cfg(feature = "serde")]
impl serde::Serialize for Seat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.0)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Seat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let i = u8::deserialize(d)?;
        Seat::new(usize::from(i))
            .ok_or_else(|| serde::de::Error::custom(format!("seat {i}: a seat is 0, 1, 2 or 3")))
    }
}

impl Seat {
    /// All four seats in turn order.
    pub const ALL: [Seat; 4] = [Seat(0), Seat(1), Seat(2), Seat(3)];

    /// The seat with index `i`, if `i < 4`.
    pub const fn new(i: usize) -> Option<Seat> {
        if i < 4 { Some(Seat(i as u8)) } else { None }
    }

    /// The seat's index 0..4.
    #[inline]
    pub const fn index(self) -> usize {
        // A seat is always 0..4; the mask tells the compiler so, which drops the bounds
        // checks of every per-seat array access.
        (self.0 & 3) as usize
    }

    /// The colour's name.
    pub const fn colour(self) -> &'static str {
        match self.0 {
            0 => "red",
            1 => "yellow",
            2 => "blue",
            _ => "green",
        }
    }

    /// The seats in play for a game of `players` (2: 0 and 2; 3: 0, 1, 2; 4: all).
    pub fn in_play(players: usize) -> &'static [Seat] {
        match players {
            2 => &[Seat(0), Seat(2)],
            3 => &[Seat(0), Seat(1), Seat(2)],
            _ => &Seat::ALL,
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The step value of a plane in its hangar.
pub const HANGAR: u8 = u8::MAX;
/// The take-off cell's step.
pub const TAKE_OFF: u8 = 0;
/// The last ring step (the turn cell).
pub const TURN_CELL: u8 = 50;
/// Cells on the shared ring.
pub const RING_CELLS: u8 = 52;
/// The flight cell's step.
pub const FLIGHT_FROM: u8 = 18;
/// The step where the flight lands.
pub const FLIGHT_TO: u8 = 30;
/// The opponent's step of the crossed cell: lane cell 3 of the opposite colour.
pub const CROSSED_STEP: u8 = 53;
/// Highest own-colour step from which a plane jumps.
pub const LAST_JUMP_FROM: u8 = 46;
/// How far a jump carries a plane.
pub const JUMP: u8 = 4;
/// Planes per seat.
pub const PLANES: usize = 4;

/// Whether step `s` is a ring cell (1..=50).
#[inline]
pub const fn on_ring(s: u8) -> bool {
    s >= 1 && s <= TURN_CELL
}

/// Whether ring step `s` is an own-colour cell (s mod 4 == 2).
#[inline]
pub const fn own_colour(s: u8) -> bool {
    on_ring(s) && s % 4 == 2
}

/// The shared ring cell index of `seat`'s ring step `s` (1..=50): `(13*seat + s - 1) mod 52`.
#[inline]
pub const fn ring_cell(seat: Seat, s: u8) -> u8 {
    ((13 * seat.0 as u16 + s as u16 - 1) % RING_CELLS as u16) as u8
}

/// [`ring_cell`] as a table for any step value: `CELL_OF[seat][s]` is the ring cell, or
/// [`OFF_RING`] when `s` is not a ring step (hangar, take-off cell, lane, centre).
pub static CELL_OF: [[u8; 256]; 4] = {
    let mut t = [[OFF_RING; 256]; 4];
    let mut seat = 0;
    while seat < 4 {
        let mut s = 1;
        while s <= TURN_CELL {
            t[seat][s as usize] = ring_cell(Seat(seat as u8), s);
            s += 1;
        }
        seat += 1;
    }
    t
};

/// The entry of [`CELL_OF`] for a step that is not on the ring (a bit index past the ring).
pub const OFF_RING: u8 = 63;

/// The ring step at which `other` would stand on the cell that is `seat`'s ring step `s`, or
/// `None` when that cell is not on `other`'s path (its steps 51 and 52 would be lane cells).
#[inline]
pub const fn step_of_cell_for(seat: Seat, s: u8, other: Seat) -> Option<u8> {
    let delta = (seat.0 as u16 + 4 - other.0 as u16) % 4;
    let t = ((s as u16 - 1 + 13 * delta) % RING_CELLS as u16) as u8 + 1;
    if t <= TURN_CELL { Some(t) } else { None }
}

/// The colour of ring cell `index` (a seat): `(index + 3) mod 4`.
#[inline]
pub const fn cell_colour(index: u8) -> Seat {
    Seat((index + 3) % 4)
}

/// Formats a step the way logs and JSON show it: `H` for the hangar, else the number.
pub fn step_label(s: u8) -> String {
    if s == HANGAR {
        "H".to_string()
    } else {
        s.to_string()
    }
}
