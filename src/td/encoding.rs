//! The input of a value net: a position as a short list of active input units (the net's
//! inputs are 0 or 1), seen from one seat, the *perspective*.
//!
//! Encoding `tdg-1` (TD-Gammon's raw encoding, adapted): seats are taken in turn order starting
//! at the perspective (relative seat `k` is the `k`-th seat in play after it, so relative seat 0
//! is the perspective). For each relative seat `k < players` and each *position* a plane can
//! stand on (`0` the hangar, `1 + s` for step `s` in `0..=centre`: take-off, the ring, the home
//! lane and the centre), there are `planes` units, a thermometer of the planes there: unit `j`
//! is on when `j + 1` or more of the seat's planes stand there. Then:
//! - `players` units: which relative seat rolls next (one-hot);
//! - 3 units: sixes rolled in a row in the current turn, 0, 1, 2 or more (one-hot);
//! - `players` units: relative seat `k` has finished;
//! - `players * planes` units, per relative seat `k` a thermometer of its *exposed* planes: on
//!   a ring cell 1 to 6 cells ahead of an opponent's plane (on the ring, or on its take-off
//!   cell, which is one cell before its first ring step), that is within one plain roll of a
//!   capture (jumps and flights, which reach further, are left to the net).
//!
//! - `players * 6` units, per relative seat `k` a thermometer of the die faces with which the
//!   seat to roll next can capture one of seat `k`'s planes (from the engine's own moves, so
//!   jumps, flights and stacks count exactly; 0 for the seat to roll itself).
//!
//! At most `2 * players * planes + 2 + players + 6 * (players - 1)` units are on (56 with 4
//! players and 4 planes).
//! What the encoding leaves out: the turn count (so the `max_turns` cap is not seen) and which
//! planes moved earlier in the turn (only the `three_sixes` penalty of some variants reads it).

use aeroplane_core::board::{RING_CELLS, TAKE_OFF, ring_cell};
use aeroplane_core::{Game, HANGAR, MoveList, Rules, Seat};

/// The name of the encoding, as net files record it.
pub const ENCODING: &str = "tdg";
/// Its version, as net files record it.
pub const ENCODING_VERSION: u32 = 1;
/// The most units on at once.
pub const MAX_ACTIVE: usize = 2 * 4 * 4 + 2 + 4 + 6 * 3;

/// The active units of one position: indices into the net's inputs, ascending within each block.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    idx: [u16; MAX_ACTIVE],
    len: u8,
}

impl Default for Features {
    fn default() -> Self {
        Features {
            idx: [0; MAX_ACTIVE],
            len: 0,
        }
    }
}

impl Features {
    /// The active units.
    #[inline]
    pub fn active(&self) -> &[u16] {
        &self.idx[..usize::from(self.len)]
    }

    #[inline]
    fn push(&mut self, i: usize) {
        self.idx[usize::from(self.len)] = i as u16;
        self.len += 1;
    }
}

/// The encoding's sizes for one rule variant and player count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoder {
    players: usize,
    planes: usize,
    positions: usize,
}

impl Encoder {
    /// The encoder of `rules` with `players` players (2..=4).
    pub fn new(rules: &Rules, players: usize) -> Encoder {
        Encoder {
            players,
            planes: usize::from(rules.planes()),
            positions: usize::from(rules.centre()) + 2,
        }
    }

    /// The number of input units.
    pub fn inputs(&self) -> usize {
        self.players * self.positions * self.planes
            + 2 * self.players
            + 3
            + self.players * self.planes
            + 6 * self.players
    }

    /// The players.
    pub fn players(&self) -> usize {
        self.players
    }

    /// The active units of `game` seen from `perspective` (a seat in play).
    #[inline]
    pub fn encode(&self, game: &Game, perspective: Seat, out: &mut Features) {
        out.len = 0;
        let seats = game.seats();
        let me = seats
            .iter()
            .position(|&s| s == perspective)
            .unwrap_or_default();
        let n = self.players;
        let block = self.positions * self.planes;
        for k in 0..n {
            let seat = seats[(me + k) % n];
            let steps = game.steps(seat);
            let steps = &steps[..self.planes];
            let base = k * block;
            // Thermometer: each plane turns on the next unit of its position.
            for (p, &s) in steps.iter().enumerate() {
                let pos = if s == HANGAR { 0 } else { usize::from(s) + 1 };
                let before = steps[..p].iter().filter(|&&t| t == s).count();
                out.push(base + pos * self.planes + before);
            }
        }
        let mut at = n * block;
        let next = game.to_move();
        let rel = seats.iter().position(|&s| s == next).unwrap_or_default();
        out.push(at + (rel + n - me) % n);
        at += n;
        out.push(at + usize::from(game.sixes_this_turn().min(2)));
        at += 3;
        for k in 0..n {
            if game.has_finished(seats[(me + k) % n]) {
                out.push(at + k);
            }
        }
        at += n;
        // Where each seat's planes can capture from: its ring cells, and the cell before its
        // first ring step for a plane on its take-off cell.
        let mut from = [0u64; 4];
        for &seat in seats {
            let mut bits = game.ring_cells(seat);
            if game.steps(seat)[..self.planes].contains(&TAKE_OFF) {
                bits |= 1 << ((u32::from(ring_cell(seat, 1)) + 51) % 52);
            }
            from[seat.index()] = bits;
        }
        for k in 0..n {
            let seat = seats[(me + k) % n];
            let others: u64 = seats
                .iter()
                .filter(|&&o| o != seat)
                .fold(0, |a, &o| a | from[o.index()]);
            let mut exposed = 0;
            for &s in &game.steps(seat)[..self.planes] {
                if (1..=aeroplane_core::board::TURN_CELL).contains(&s) {
                    let c = u32::from(ring_cell(seat, s));
                    let cells = u32::from(RING_CELLS);
                    let behind = (1..=6).fold(0u64, |m, d| m | 1 << ((c + cells - d) % cells));
                    if others & behind != 0 {
                        out.push(at + k * self.planes + exposed);
                        exposed += 1;
                    }
                }
            }
        }
        at += n * self.planes;
        if !game.is_over() {
            let mut lists = [MoveList::default(); 6];
            game.legal_moves_all(&mut lists);
            let mut faces = [0usize; 4];
            for list in &lists {
                let mut hit = 0u16;
                for m in list.iter() {
                    hit |= m.captured();
                }
                for &seat in seats {
                    if (hit >> (4 * seat.index())) & 0xF != 0 {
                        faces[seat.index()] += 1;
                    }
                }
            }
            for k in 0..n {
                let seat = seats[(me + k) % n];
                for j in 0..faces[seat.index()] {
                    out.push(at + 6 * k + j);
                }
            }
        }
    }
}
