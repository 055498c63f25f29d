//! The heuristic evaluation the search bots share: a score per seat from named weights.
//!
//! A seat's score, in units of "cells of progress":
//!
//! ```text
//! progress * Σ(step + 1 over planes out of the hangar; the centre counts centre + 1)
//! + home * (planes at the centre)
//! - hangar * (planes in the hangar)
//! + lane * (planes in the home lane, where nothing can capture them)
//! - exposure * Σ over own ring planes of P(captured on the next opponent roll) * (what it would lose)
//!   (times `mover` for the seat about to roll: it can move a threatened plane first)
//! + win * (n - rank) / (n - 1)   once the seat has a rank (n players)
//! ```
//!
//! The capture probability of a plane is estimated per opponent seat as the share of die faces
//! with which one of that seat's planes (on its take-off cell or the ring, at most 6 cells behind
//! in effect) would land on the plane's cell, directly or by the jump or flight that follows the
//! landing (`specials` decides which chains exist); opponents combine as independent events.
//! What a capture loses is the plane's progress plus the hangar penalty.

use aeroplane_core::Game;
use aeroplane_core::Specials;
use aeroplane_core::board::{
    CELL_OF, FLIGHT_FROM, FLIGHT_TO, HANGAR, JUMP, LAST_JUMP_FROM, Seat, TURN_CELL, own_colour,
    step_of_cell_for,
};

use super::params::{ParamDef, ParamKind, Params};

/// The named weights of the evaluation; profiles set them by these names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Per cell of progress of each plane.
    pub progress: f32,
    /// Bonus per plane at the centre (beyond its progress).
    pub home: f32,
    /// Penalty per plane in the hangar.
    pub hangar: f32,
    /// Bonus per plane in the home lane (safe from capture).
    pub lane: f32,
    /// Weight of the expected loss from captures on the next opponent roll.
    pub exposure: f32,
    /// Factor on `exposure` for the seat about to roll, which can move a threatened plane first.
    pub mover: f32,
    /// Value of first place once a seat has a rank; lower ranks get a linear share.
    pub win: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            progress: 1.0,
            home: 6.0,
            hangar: 20.0,
            lane: 4.0,
            exposure: 1.0,
            mover: 0.5,
            win: 1000.0,
        }
    }
}

/// The `progress` weight parameter.
pub const P_PROGRESS: ParamDef = ParamDef {
    name: "progress",
    kind: ParamKind::Float {
        min: 0.0,
        max: 100.0,
    },
    default: "1.0",
    help: "evaluation: value per cell of progress of each plane",
};
/// The `home` weight parameter.
pub const P_HOME: ParamDef = ParamDef {
    name: "home",
    kind: ParamKind::Float {
        min: 0.0,
        max: 1000.0,
    },
    default: "6.0",
    help: "evaluation: bonus per plane at the centre",
};
/// The `hangar` weight parameter.
pub const P_HANGAR: ParamDef = ParamDef {
    name: "hangar",
    kind: ParamKind::Float {
        min: 0.0,
        max: 1000.0,
    },
    default: "20.0",
    help: "evaluation: penalty per plane in the hangar",
};
/// The `lane` weight parameter.
pub const P_LANE: ParamDef = ParamDef {
    name: "lane",
    kind: ParamKind::Float {
        min: 0.0,
        max: 1000.0,
    },
    default: "4.0",
    help: "evaluation: bonus per plane in the (safe) home lane",
};
/// The `exposure` weight parameter.
pub const P_EXPOSURE: ParamDef = ParamDef {
    name: "exposure",
    kind: ParamKind::Float {
        min: 0.0,
        max: 10.0,
    },
    default: "1.0",
    help: "evaluation: weight of the expected loss to captures on the next opponent roll",
};
/// The `mover` weight parameter.
pub const P_MOVER: ParamDef = ParamDef {
    name: "mover",
    kind: ParamKind::Float { min: 0.0, max: 1.0 },
    default: "0.5",
    help: "evaluation: factor on exposure for the seat about to roll (it can react first)",
};
/// The `win` weight parameter.
pub const P_WIN: ParamDef = ParamDef {
    name: "win",
    kind: ParamKind::Float {
        min: 0.0,
        max: 1.0e6,
    },
    default: "1000.0",
    help: "evaluation: value of first place (lower ranks get a linear share)",
};

/// The weight parameters every search bot accepts, with [`Weights::default`]'s values.
pub const WEIGHT_PARAMS: [ParamDef; 7] = [
    P_PROGRESS, P_HOME, P_HANGAR, P_LANE, P_EXPOSURE, P_MOVER, P_WIN,
];

impl Weights {
    /// Reads the weights from resolved parameters (the kind must declare [`WEIGHT_PARAMS`]).
    pub fn from_params(p: &Params) -> Weights {
        Weights {
            progress: p.float("progress") as f32,
            home: p.float("home") as f32,
            hangar: p.float("hangar") as f32,
            lane: p.float("lane") as f32,
            exposure: p.float("exposure") as f32,
            mover: p.float("mover") as f32,
            win: p.float("win") as f32,
        }
    }
}

/// Steps from which a plane can land on (or jump/fly to) another ring step: `HITS[u][t]` is
/// the bit set of die faces (bit `r - 1`) with which a plane on step `u` (0..=50) reaches ring
/// step `t` (1..=50) of its own frame, for one `specials` setting.
type HitTable = [[u8; 51]; 51];

/// What a plane of one seat can hit on its next roll, for one `specials` setting: the faces
/// with which each step reaches each other step ([`HitTable`]), and for each step the set of
/// steps any face reaches (bit `t` for step `t`), to rule out most pairs of planes at once.
struct Reach {
    hits: HitTable,
    /// Indexed by any step value (0 beyond the ring: the hangar, the lane, the centre).
    any: [u64; 256],
}

const fn reach(specials: Specials) -> Reach {
    let both = matches!(specials, Specials::Both);
    let one = matches!(specials, Specials::One);
    let mut hits = [[0u8; 51]; 51];
    let mut any = [0u64; 256];
    let mut u = 0;
    while u < 51 {
        let mut r = 1;
        while r <= 6 {
            let bit = 1 << (r - 1);
            let land = u as u8 + r;
            if land <= TURN_CELL {
                let row = &mut hits[u];
                row[land as usize] |= bit;
                if land == FLIGHT_FROM {
                    row[FLIGHT_TO as usize] |= bit;
                    if both {
                        row[(FLIGHT_TO + JUMP) as usize] |= bit;
                    }
                } else if own_colour(land) && land <= LAST_JUMP_FROM {
                    let jump = land + JUMP;
                    row[jump as usize] |= bit;
                    if jump == FLIGHT_FROM && !one {
                        row[FLIGHT_TO as usize] |= bit;
                    }
                }
            }
            r += 1;
        }
        let mut t = 0;
        while t < 51 {
            if hits[u][t] != 0 {
                any[u] |= 1 << t;
            }
            t += 1;
        }
        u += 1;
    }
    Reach { hits, any }
}

/// The three reach tables, one per `specials` setting, built at compile time.
static REACH: [Reach; 3] = [
    reach(Specials::One),
    reach(Specials::JumpThenFlight),
    reach(Specials::Both),
];

fn reach_for(specials: Specials) -> &'static Reach {
    let i = match specials {
        Specials::One => 0,
        Specials::JumpThenFlight => 1,
        Specials::Both => 2,
    };
    &REACH[i]
}

#[cfg(test)]
fn hits_for(specials: Specials) -> &'static HitTable {
    &reach_for(specials).hits
}

/// Per seat, the ring cells (bit = cell index) one of its planes can hit on the seat's next
/// roll: a plane on a cell outside every opponent's set cannot be captured, which settles most
/// planes without looking at the opponents' planes one by one.
#[derive(Clone, Copy, Debug, Default)]
struct Threats {
    cells: [u64; 4],
}

impl Threats {
    fn of(game: &Game, reach: &Reach) -> Threats {
        let mut cells = [0u64; 4];
        for &seat in game.seats() {
            if game.has_finished(seat) {
                continue;
            }
            let steps = game
                .steps(seat)
                .iter()
                .fold(0u64, |m, &u| m | reach.any[usize::from(u)]);
            cells[seat.index()] = steps_to_cells(seat, steps);
        }
        Threats { cells }
    }

    /// The cells the opponents of `seat` can hit.
    #[inline]
    fn against(&self, seat: Seat) -> u64 {
        let i = seat.index();
        self.cells[(i + 1) & 3] | self.cells[(i + 2) & 3] | self.cells[(i + 3) & 3]
    }
}

/// A set of `seat`'s ring steps (bit `t`, 1..=50) as the ring cells they are (bit = cell).
fn steps_to_cells(seat: Seat, steps: u64) -> u64 {
    const RING: u64 = (1 << 52) - 1;
    // Step t is cell (13 * seat + t - 1) mod 52: shift down by one, then rotate the 52 cells.
    let x = (steps >> 1) & RING;
    let k = 13 * seat.index() as u32;
    (x << k | x >> (52 - k)) & RING
}

/// What every seat's score of one position reads: the game, its rules' tables, and each seat's
/// threats (computed once per position, not per seat).
struct View<'a> {
    game: &'a Game,
    reach: &'static Reach,
    threats: Threats,
    planes: usize,
    centre: u8,
    players: f32,
}

impl<'a> View<'a> {
    #[inline(always)]
    fn of(game: &'a Game, w: &Weights) -> View<'a> {
        let rules = game.rules();
        let reach = reach_for(rules.specials());
        View {
            game,
            reach,
            threats: if w.exposure == 0.0 {
                Threats::default()
            } else {
                Threats::of(game, reach)
            },
            planes: usize::from(rules.planes()),
            centre: rules.centre(),
            players: game.players() as f32,
        }
    }

    #[inline(always)]
    fn counts(&self, steps: [u8; 4]) -> (u32, u32, u32, u32) {
        counts(steps, self.planes, self.centre)
    }
}

/// What one plane on a step adds to its seat's counts, packed in one word so that a seat's
/// counts are four table loads and three additions: bits 0..10 the plane's `step + 1` (0 in
/// the hangar), then one bit each (in a field of its own, so sums of four never carry over)
/// for the hangar, the centre, the home lane. `PLANE_COUNTS[centre - 54][step]` (the centre is
/// step 54..=59).
static PLANE_COUNTS: [[u32; 256]; 6] = {
    let mut t = [[0u32; 256]; 6];
    let mut c = 0;
    while c < 6 {
        let centre = 54 + c as u32;
        let mut s = 0u32;
        while s < 256 {
            t[c][s as usize] = if s == HANGAR as u32 {
                1 << HANGAR_SHIFT
            } else if s > centre {
                0 // no plane stands there
            } else {
                (s + 1)
                    | ((s == centre) as u32) << HOME_SHIFT
                    | ((s > TURN_CELL as u32 && s < centre) as u32) << LANE_SHIFT
            };
            s += 1;
        }
        c += 1;
    }
    t
};
const HANGAR_SHIFT: u32 = 10;
const HOME_SHIFT: u32 = 14;
const LANE_SHIFT: u32 = 18;

/// Of the first `planes` planes of `steps`: the sum of `step + 1` over those out of the hangar,
/// and how many are in the hangar, at the centre, in the home lane.
#[inline]
fn counts(steps: [u8; 4], planes: usize, centre: u8) -> (u32, u32, u32, u32) {
    let table = &PLANE_COUNTS[usize::from(centre - 54) % 6];
    let all: u32 = steps.iter().map(|&s| table[usize::from(s)]).sum();
    // The slots past `planes` stand at the centre: take them out again.
    let packed = all - (4 - planes as u32) * table[usize::from(centre)];
    (
        packed & 0x3FF,
        packed >> HANGAR_SHIFT & 0xF,
        packed >> HOME_SHIFT & 0xF,
        packed >> LANE_SHIFT & 0xF,
    )
}

/// The share of die faces (out of 6) in each popcount of a 6-bit face set.
const FACE_SHARE: [f32; 7] = [
    0.0,
    1.0 / 6.0,
    2.0 / 6.0,
    3.0 / 6.0,
    4.0 / 6.0,
    5.0 / 6.0,
    1.0,
];

/// Scores positions with a set of [`Weights`].
#[derive(Clone, Copy, Debug)]
pub struct Evaluator {
    /// The weights in use.
    pub weights: Weights,
}

impl Evaluator {
    /// An evaluator with these weights.
    pub fn new(weights: Weights) -> Self {
        Evaluator { weights }
    }

    /// The absolute score of every seat (seats not in play score 0).
    pub fn scores(&self, game: &Game) -> [f32; 4] {
        let view = View::of(game, &self.weights);
        let mut out = [0.0; 4];
        for &seat in game.seats() {
            out[seat.index()] = self.score_in(&view, seat);
        }
        out
    }

    /// The absolute score of `seat` (see the module docs).
    pub fn score(&self, game: &Game, seat: Seat) -> f32 {
        self.score_in(&View::of(game, &self.weights), seat)
    }

    #[inline(always)]
    fn score_in(&self, view: &View, seat: Seat) -> f32 {
        let w = &self.weights;
        let game = view.game;
        let mut total = 0.0;
        if let Some(rank) = game.rank(seat) {
            total += w.win * (view.players - rank as f32) / (view.players - 1.0);
        }
        let steps = game.steps(seat);
        let (progress, hangar, home, lane) = view.counts(steps);
        let mut exposure = 0.0f32;
        // The cells some opponent can hit (none when `exposure` is 0): a plane on none of
        // them has capture chance 0, and most seats have no plane on any.
        let danger = view.threats.against(seat);
        if danger & game.ring_cells(seat) != 0 {
            let cells = &CELL_OF[seat.index()];
            for &s in &steps[..view.planes] {
                if danger >> cells[usize::from(s)] & 1 != 0 {
                    let p = capture_chance(game, seat, s, view.reach, &view.threats);
                    if p > 0.0 {
                        exposure += p * (w.progress * (f32::from(s) + 1.0) + w.hangar);
                    }
                }
            }
        }
        if seat == game.to_move() && !game.is_over() {
            exposure *= w.mover;
        }
        total + w.progress * progress as f32 + w.home * home as f32 - w.hangar * hangar as f32
            + w.lane * lane as f32
            - w.exposure * exposure
    }

    /// Max-n values: each seat's score minus the mean score of the other seats in play. With
    /// two players this is zero-sum; with more it values hurting any opponent.
    pub fn values(&self, game: &Game) -> [f32; 4] {
        relative(game, self.scores(game))
    }

    /// Each unfinished seat's estimated chance to be the next to finish, as a softmax of the
    /// scores with the given temperature (in score units); finished seats get 0.
    pub fn chances(&self, game: &Game, temperature: f32) -> [f32; 4] {
        let scores = self.scores(game);
        let mut best = f32::NEG_INFINITY;
        for &s in game.seats() {
            if !game.has_finished(s) {
                best = best.max(scores[s.index()]);
            }
        }
        let mut out = [0.0; 4];
        let mut sum = 0.0;
        for &s in game.seats() {
            if !game.has_finished(s) {
                let e = crate::math::exp((scores[s.index()] - best) / temperature);
                out[s.index()] = e;
                sum += e;
            }
        }
        if sum > 0.0 {
            for v in &mut out {
                *v /= sum;
            }
        }
        out
    }
}

/// Each seat's score minus the mean of the other in-play seats' scores.
#[inline]
pub fn relative(game: &Game, scores: [f32; 4]) -> [f32; 4] {
    let seats = game.seats();
    let total: f32 = seats.iter().map(|s| scores[s.index()]).sum();
    let others = (seats.len() - 1) as f32;
    let mut out = [0.0; 4];
    for &s in seats {
        let me = scores[s.index()];
        out[s.index()] = me - (total - me) / others;
    }
    out
}

/// The chance that `seat`'s plane on ring step `s` is captured on the next roll of some
/// opponent, treating opponents as independent.
///
/// The opponents whose [`Threats`] miss the plane's cell are skipped: their factor in the
/// product would be exactly 1.0, so the result is the same to the last bit.
#[inline]
fn capture_chance(game: &Game, seat: Seat, s: u8, reach: &Reach, threats: &Threats) -> f32 {
    let cell = 1u64 << CELL_OF[seat.index()][usize::from(s)];
    let mut safe = 1.0f32;
    for &other in game.seats() {
        if other == seat || threats.cells[other.index()] & cell == 0 {
            continue;
        }
        let Some(t) = step_of_cell_for(seat, s, other) else {
            continue;
        };
        let mut faces = 0u8;
        for u in game.steps(other) {
            if u <= TURN_CELL {
                faces |= reach.hits[u as usize][t as usize];
            }
        }
        safe *= 1.0 - FACE_SHARE[faces.count_ones() as usize];
    }
    1.0 - safe
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::{Bot, Rules, Setup};

    #[test]
    fn a_plane_three_cells_ahead_of_an_opponent_is_hit_by_one_face() {
        let rules = Rules::default();
        let mut setup = Setup::start(&rules, 2).unwrap();
        // Seat 0's step 30 is seat 2's step 4 (ring cell 29).
        setup.steps[0] = [30, HANGAR, HANGAR, HANGAR];
        setup.steps[2] = [1, HANGAR, HANGAR, HANGAR];
        setup.turns = 2;
        let g = setup.into_game(rules).unwrap();
        let reach = reach_for(Specials::One);
        // From seat 2's step 1 only a 3 reaches its step 4 (a 1 lands on 2 and jumps to 6).
        let p = capture_chance(&g, Seat::ALL[0], 30, reach, &Threats::of(&g, reach));
        assert!((p - 1.0 / 6.0).abs() < 1e-6, "{p}");
    }

    /// The evaluation as first written (one seat at a time, every opponent plane looked at):
    /// the fast one must give the same numbers to the last bit.
    fn reference_score(w: &Weights, game: &Game, seat: Seat) -> f32 {
        let hits = hits_for(game.rules().specials());
        let capture_chance = |s: u8| {
            let mut safe = 1.0f32;
            for &other in game.seats() {
                if other == seat || game.has_finished(other) {
                    continue;
                }
                let Some(t) = step_of_cell_for(seat, s, other) else {
                    continue;
                };
                let mut faces = 0u8;
                for u in game.steps(other) {
                    if u <= TURN_CELL {
                        faces |= hits[u as usize][t as usize];
                    }
                }
                safe *= 1.0 - FACE_SHARE[faces.count_ones() as usize];
            }
            1.0 - safe
        };
        let centre = game.rules().centre();
        let n = game.players() as f32;
        let mut total = 0.0;
        if let Some(rank) = game.rank(seat) {
            total += w.win * (n - rank as f32) / (n - 1.0);
        }
        let (mut progress, mut hangar, mut home, mut lane) = (0u32, 0u32, 0u32, 0u32);
        let mut exposure = 0.0f32;
        for &s in &game.steps(seat)[..usize::from(game.rules().planes())] {
            if s == HANGAR {
                hangar += 1;
                continue;
            }
            progress += u32::from(s) + 1;
            if s == centre {
                home += 1;
            } else if s > TURN_CELL {
                lane += 1;
            } else if s >= 1 && w.exposure != 0.0 {
                let p = capture_chance(s);
                if p > 0.0 {
                    exposure += p * (w.progress * (f32::from(s) + 1.0) + w.hangar);
                }
            }
        }
        if seat == game.to_move() && !game.is_over() {
            exposure *= w.mover;
        }
        total + w.progress * progress as f32 + w.home * home as f32 - w.hangar * hangar as f32
            + w.lane * lane as f32
            - w.exposure * exposure
    }

    #[test]
    fn scores_are_those_of_the_reference_to_the_last_bit() {
        use aeroplane_core::{Dice, Greedy, Preset, RandomBot, SeededDice};
        let weights = [
            Weights::default(),
            Weights {
                exposure: 0.0,
                ..Weights::default()
            },
            Weights {
                exposure: 3.5,
                mover: 1.0,
                lane: 0.0,
                ..Weights::default()
            },
        ];
        let mut positions = 0;
        for preset in Preset::ALL {
            for players in [2, 3, 4] {
                for planes in [4, 1] {
                    let rules = Rules::builder()
                        .base(preset)
                        .planes(planes)
                        .build()
                        .unwrap();
                    for deal in 0..6 {
                        let mut game = Game::new(rules, players).unwrap();
                        let mut dice = SeededDice::new(9, deal);
                        let mut random = RandomBot::default();
                        random.new_game(game.to_move(), deal);
                        while !game.is_over() {
                            for w in &weights {
                                let eval = Evaluator::new(*w);
                                let fast = eval.scores(&game);
                                for &seat in game.seats() {
                                    let want = reference_score(w, &game, seat);
                                    assert_eq!(fast[seat.index()].to_bits(), want.to_bits());
                                    assert_eq!(eval.score(&game, seat).to_bits(), want.to_bits());
                                }
                            }
                            positions += 1;
                            let roll = dice.roll(game.to_move()).unwrap();
                            let moves = game.legal_moves(roll);
                            let choice = match moves.len() {
                                0 => None,
                                _ if deal % 2 == 0 => Some(moves[Greedy::pick(&moves)]),
                                n => Some(moves[random.choose(&game, roll, &moves) % n]),
                            };
                            game.apply(roll, choice);
                        }
                    }
                }
            }
        }
        assert!(positions > 10_000, "{positions}");
    }

    #[test]
    fn counts_agree_with_a_plain_loop() {
        let values = [0u8, 1, 17, 50, 51, 53, 55, 56, 57, 59, HANGAR];
        for centre in [54u8, 56, 57, 59] {
            for planes in 1..=4 {
                for &a in &values {
                    for &b in &values {
                        for &c in &values {
                            for &d in &values {
                                // A step past the centre is no step: use the centre; slots past
                                // `planes` hold the centre (as in every game).
                                let mut steps = [a, b, c, d]
                                    .map(|s| if s > centre && s != HANGAR { centre } else { s });
                                steps[planes..].fill(centre);
                                let mut plain = (0, 0, 0, 0);
                                for &s in &steps[..planes] {
                                    if s == HANGAR {
                                        plain.1 += 1;
                                        continue;
                                    }
                                    plain.0 += u32::from(s) + 1;
                                    if s == centre {
                                        plain.2 += 1;
                                    } else if s > TURN_CELL {
                                        plain.3 += 1;
                                    }
                                }
                                assert_eq!(
                                    counts(steps, planes, centre),
                                    plain,
                                    "{steps:?} {planes} {centre}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn jumps_and_flights_extend_the_reach() {
        let t = hits_for(Specials::One);
        // From 0, a 2 lands on 2 and jumps to 6: both are hit by face 2.
        assert_eq!(t[0][2], 1 << 1);
        assert_eq!(t[0][6] & (1 << 1), 1 << 1);
        // From 14, a 4 lands on 18 and flies to 30.
        assert_eq!(t[14][30], 1 << 3);
        let both = hits_for(Specials::Both);
        assert_eq!(both[14][34], 1 << 3);
        assert_eq!(t[14][34], 0);
    }
}
