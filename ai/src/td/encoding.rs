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

use aeroplane_core::board::{CELL_OF, OFF_RING, PLANES, RING_CELLS, TAKE_OFF, ring_cell};
use aeroplane_core::{Game, Rules, Seat};

/// The name of the encoding, as net files record it.
pub const ENCODING: &str = "tdg";
/// Its version, as net files record it.
pub const ENCODING_VERSION: u32 = 1;
/// The most units on at once.
pub const MAX_ACTIVE: usize = 2 * 4 * 4 + 2 + 4 + 6 * 3;

/// The active units of one position: indices into the net's inputs, ascending within each block.
///
/// Encoding into the same `Features` again is cheaper when seats' planes stand where they stood
/// before: each relative seat's plane units are kept with the steps and sizes they came from
/// and copied when those are the same (the units are a function of them alone).
#[derive(Clone, Copy, Debug)]
pub struct Features {
    idx: [u16; MAX_ACTIVE],
    len: u8,
    /// The encoding's input units: every active unit is below.
    bound: u16,
    /// Per relative seat, the plane units of the last encoding and what they came from
    /// ([`thermometer_key`]; 0 for none).
    memo: [(u64, [u16; PLANES]); 4],
}

impl Default for Features {
    fn default() -> Self {
        Features {
            idx: [0; MAX_ACTIVE],
            len: 0,
            bound: 0,
            memo: [(0, [0; PLANES]); 4],
        }
    }
}

/// What the plane units of relative seat `k` depend on: its planes' `steps`, `k`, the planes
/// and the positions (never 0).
#[inline(always)]
fn thermometer_key(steps: [u8; PLANES], k: usize, planes: usize, positions: usize) -> u64 {
    u64::from(u32::from_le_bytes(steps))
        | (k as u64) << 32
        | (planes as u64) << 36
        | (positions as u64) << 40
        | 1 << 63
}

impl Features {
    /// The active units.
    #[inline]
    pub fn active(&self) -> &[u16] {
        &self.idx[..usize::from(self.len)]
    }

    /// The number of input units of the encoding that produced these features: every active
    /// unit is below it.
    #[inline]
    pub fn bound(&self) -> usize {
        usize::from(self.bound)
    }
}

/// The encoding's sizes for one rule variant and player count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoder {
    players: usize,
    planes: usize,
    positions: usize,
    /// `rel[m][k]`: the `k`-th seat in play after the seat at position `m` of the seats in play.
    rel: [[Seat; 4]; 4],
    /// The position of each seat (by index) among the seats in play (0 for a seat not in play).
    slot: [u8; 4],
    /// [`Encoder::inputs`].
    inputs: u16,
}

impl Encoder {
    /// The encoder of `rules` with `players` players (2..=4).
    pub fn new(rules: &Rules, players: usize) -> Encoder {
        let seats = Seat::in_play(players);
        let n = seats.len();
        let mut rel = [[Seat::ALL[0]; 4]; 4];
        let mut slot = [0; 4];
        for (m, &seat) in seats.iter().enumerate() {
            slot[seat.index()] = m as u8;
            for (k, r) in rel[m][..n].iter_mut().enumerate() {
                *r = seats[(m + k) % n];
            }
        }
        let planes = usize::from(rules.planes()).min(PLANES);
        let positions = usize::from(rules.centre()) + 2;
        let inputs =
            players * positions * planes + 2 * players + 3 + players * planes + 6 * players;
        Encoder {
            players,
            planes,
            positions,
            rel,
            slot,
            inputs: u16::try_from(inputs).expect("at most 4 players, 4 planes, 60 positions"),
        }
    }

    /// The number of input units.
    pub fn inputs(&self) -> usize {
        usize::from(self.inputs)
    }

    /// The players.
    pub fn players(&self) -> usize {
        self.players
    }

    /// The active units of `game` seen from `perspective` (a seat in play).
    ///
    /// The units come in the order the module's documentation lists them (blocks in turn,
    /// ascending within each): a net's first layer adds their weights in this order, so the
    /// order is part of the encoding (`tests::reference` is the definition, computed the slow
    /// way; a property test holds this one to it).
    #[inline]
    pub fn encode(&self, game: &Game, perspective: Seat, out: &mut Features) {
        match self.planes {
            4 => self.encode_planes::<4>(game, perspective, out),
            3 => self.encode_planes::<3>(game, perspective, out),
            2 => self.encode_planes::<2>(game, perspective, out),
            _ => self.encode_planes::<1>(game, perspective, out),
        }
    }

    /// [`Encoder::encode`] for `P` planes (`P == self.planes`), written for speed (a ply-0
    /// decision encodes every afterstate): the loops over the planes unrolled, the seats'
    /// relative order from tables, the units counted in a register, each seat's plane units
    /// copied from `out`'s memo when its planes have not moved, the exposure test one shift
    /// of a 64-bit window per plane.
    #[inline(always)]
    fn encode_planes<const P: usize>(&self, game: &Game, perspective: Seat, out: &mut Features) {
        debug_assert_eq!(P, self.planes);
        let n = self.players;
        let block = self.positions * P;
        let idx = &mut out.idx;
        let mut len = 0;
        let me = usize::from(self.slot[perspective.index()]);
        let rel = &self.rel[me][..n];
        for (k, &seat) in rel.iter().enumerate() {
            let st = game.steps(seat);
            let key = thermometer_key(st, k, P, self.positions);
            let memo = &mut out.memo[k];
            if memo.0 != key {
                let base = k * block;
                // Thermometer: each plane turns on the next unit of its position (the unit
                // after those of the planes before it on the same step).
                let eq = |p: usize, q: usize| u16::from(st[p] == st[q]);
                let before = [
                    0,
                    eq(1, 0),
                    eq(2, 0) + eq(2, 1),
                    eq(3, 0) + eq(3, 1) + eq(3, 2),
                ];
                for p in 0..P {
                    // The hangar (`u8::MAX`) is position 0, step `s` position `s + 1`.
                    let pos = usize::from(st[p].wrapping_add(1));
                    memo.1[p] = (base + pos * P) as u16 + before[p];
                }
                memo.0 = key;
            }
            idx[len..len + P].copy_from_slice(&memo.1[..P]);
            len += P;
        }
        let mut push = |i: usize| {
            idx[len] = i as u16;
            len += 1;
        };
        let mut at = n * block;
        let to_roll = usize::from(self.slot[game.to_move().index()]);
        push(
            at + if to_roll >= me {
                to_roll - me
            } else {
                to_roll + n - me
            },
        );
        at += n;
        push(at + usize::from(game.sixes_this_turn().min(2)));
        at += 3;
        for (k, &seat) in rel.iter().enumerate() {
            if game.has_finished(seat) {
                push(at + k);
            }
        }
        at += n;
        // Where each seat's planes can capture from: its ring cells, and the cell before its
        // first ring step for a plane on its take-off cell (0 for a seat not in play).
        let mut from = [0u64; 4];
        for &seat in rel {
            let st = game.steps(seat);
            let mut bits = game.ring_cells(seat);
            // Not `contains`, which calls `memchr` for bytes.
            #[allow(clippy::manual_contains)]
            let on_take_off = st[..P].iter().any(|&s| s == TAKE_OFF);
            if on_take_off {
                bits |= BEHIND_TAKE_OFF[seat.index()];
            }
            from[seat.index()] = bits;
        }
        if from != [0; 4] {
            for (k, &seat) in rel.iter().enumerate() {
                let i = seat.index();
                let others = from[(i + 1) & 3] | from[(i + 2) & 3] | from[(i + 3) & 3];
                // Bit `j` of `window` is cell `j - 6` mod 52 of the others (`j < 58`), so the
                // six cells behind cell `c`, `c - 6 ..= c - 1` mod 52, are bits `c ..= c + 5`
                // of the window, and cell `c` is within one plain roll of an opponent's plane
                // exactly when bit `c` of `threat` is set.
                let window = others << 6 | others >> (u32::from(RING_CELLS) - 6);
                if window == 0 {
                    continue;
                }
                let w2 = window | window >> 1;
                let threat = w2 | w2 >> 2 | window >> 4 | window >> 5;
                let cell_of = &CELL_OF[i];
                let st = game.steps(seat);
                // A step off the ring has cell `OFF_RING` (63): bit 63 of `threat` is 0 (it
                // has 58 bits), so it is never exposed.
                let exposed: usize = st[..P]
                    .iter()
                    .map(|&s| ((threat >> cell_of[usize::from(s)]) & 1) as usize)
                    .sum();
                for j in 0..exposed {
                    push(at + k * P + j);
                }
            }
        }
        at += n * P;
        let hits = game.face_captures();
        if hits != [0; 6] {
            for (k, &seat) in rel.iter().enumerate() {
                let nibble = 0xFu16 << (4 * seat.index());
                let faces = hits.iter().filter(|&&h| h & nibble != 0).count();
                for j in 0..faces {
                    push(at + 6 * k + j);
                }
            }
        }
        out.len = len as u8;
        out.bound = self.inputs;
    }
}

/// Per seat, the bit of the ring cell one before its first ring step (where a plane on its
/// take-off cell captures from).
const BEHIND_TAKE_OFF: [u64; 4] = {
    let mut t = [0; 4];
    let mut k = 0;
    while k < 4 {
        t[k] = 1 << ((ring_cell(Seat::ALL[k], 1) as u32 + 51) % 52);
        k += 1;
    }
    t
};

// The encoding reads the hangar as position 0 by wrapping `HANGAR + 1`, and a step off the ring
// as never exposed by its cell `OFF_RING` falling past the exposure window's 58 bits.
const _: () = assert!(aeroplane_core::HANGAR == u8::MAX && OFF_RING >= 58 && RING_CELLS == 52);

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use aeroplane_core::board::TURN_CELL;
    use aeroplane_core::{
        End, HANGAR, MoveList, Overshoot, Preset, Specials, Stacking, ThreeSixes,
    };
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};
    use rand::RngExt;
    use rand_pcg::Pcg32;

    /// The encoding's definition, computed the slow way: [`Encoder::encode`] as the shipped
    /// nets were trained with (capture faces from the engine's move lists of every face).
    pub(super) fn reference(enc: &Encoder, game: &Game, perspective: Seat) -> Vec<u16> {
        let mut out = Vec::new();
        let seats = game.seats();
        let me = seats
            .iter()
            .position(|&s| s == perspective)
            .unwrap_or_default();
        let n = enc.players;
        let block = enc.positions * enc.planes;
        for k in 0..n {
            let seat = seats[(me + k) % n];
            let steps = game.steps(seat);
            let steps = &steps[..enc.planes];
            let base = k * block;
            for (p, &s) in steps.iter().enumerate() {
                let pos = if s == HANGAR { 0 } else { usize::from(s) + 1 };
                let before = steps[..p].iter().filter(|&&t| t == s).count();
                out.push(base + pos * enc.planes + before);
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
        let mut from = [0u64; 4];
        for &seat in seats {
            let mut bits = game.ring_cells(seat);
            if game.steps(seat)[..enc.planes].contains(&TAKE_OFF) {
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
            for &s in &game.steps(seat)[..enc.planes] {
                if (1..=TURN_CELL).contains(&s) {
                    let c = u32::from(ring_cell(seat, s));
                    let cells = u32::from(RING_CELLS);
                    let behind = (1..=6).fold(0u64, |m, d| m | 1 << ((c + cells - d) % cells));
                    if others & behind != 0 {
                        out.push(at + k * enc.planes + exposed);
                        exposed += 1;
                    }
                }
            }
        }
        at += n * enc.planes;
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
        out.into_iter().map(|i| i as u16).collect()
    }

    /// Rules of any variant: a preset with every option drawn.
    pub(crate) fn any_rules() -> impl Strategy<Value = Rules> {
        (
            0usize..3,
            (0usize..2, 0usize..3, any::<bool>(), any::<bool>()),
            (0usize..3, 0usize..2, 0usize..2),
            (
                1i64..=4,
                prop::sample::select(vec![vec![6], vec![5, 6], vec![2, 4, 6]]),
                3i64..=8,
            ),
        )
            .prop_map(
                |(
                    preset,
                    (over, spec, optional, crossed),
                    (sixes, stack, end),
                    (planes, launch, lane),
                )| {
                    Rules::builder()
                        .base([Preset::AppFreeGame, Preset::Classic, Preset::Chinese][preset])
                        .overshoot(Overshoot::ALL[over])
                        .specials(Specials::ALL[spec])
                        .flight_optional(optional)
                        .flight_captures_crossed(crossed)
                        .three_sixes(ThreeSixes::ALL[sixes])
                        .stacking(Stacking::ALL[stack])
                        .end(End::ALL[end])
                        .planes(planes)
                        .launch_rolls(&launch)
                        .home_lane_cells(lane)
                        .build()
                        .expect("valid rules")
                },
            )
    }

    proptest! {
        #![proptest_config(Config {
            cases: 300,
            rng_seed: RngSeed::Fixed(30),
            failure_persistence: None,
            ..Config::default()
        })]

        /// The fast encoding gives the reference's units in the reference's order at every
        /// position of random games of any variant and player count, from every perspective;
        /// the engine's capture faces are the union of the listed moves' captures.
        #[test]
        fn encode_is_the_reference(rules in any_rules(), players in 2usize..=4, seed in any::<u64>()) {
            let enc = Encoder::new(&rules, players);
            let mut game = Game::new(rules, players).expect("valid setup");
            let mut rng = Pcg32::new(seed, 30);
            let mut fx = Features::default();
            let mut lists = [MoveList::default(); 6];
            for _ in 0..400 {
                for &seat in game.seats() {
                    enc.encode(&game, seat, &mut fx);
                    let want = reference(&enc, &game, seat);
                    prop_assert_eq!(fx.active(), &want[..], "{:?}", game);
                    prop_assert!(fx.active().iter().all(|&i| usize::from(i) < enc.inputs()));
                }
                game.legal_moves_all(&mut lists);
                let union = lists.map(|l| l.iter().fold(0u16, |a, m| a | m.captured()));
                prop_assert_eq!(game.face_captures(), union);
                if game.is_over() {
                    break;
                }
                let roll = rng.random_range(1..=6u8);
                let moves = &lists[usize::from(roll - 1)];
                // Mostly captures when there are some, so that capture positions are common.
                let pick = moves
                    .iter()
                    .position(|m| m.captured() != 0 && rng.random_range(0..3) > 0)
                    .or_else(|| (!moves.is_empty()).then(|| rng.random_range(0..moves.len())));
                game.apply(roll, pick.map(|k| moves[k]));
            }
        }
    }
}
