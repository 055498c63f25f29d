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
    FLIGHT_FROM, FLIGHT_TO, HANGAR, JUMP, LAST_JUMP_FROM, Seat, TURN_CELL, own_colour,
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

fn hit_table(specials: Specials) -> HitTable {
    let mut t = [[0u8; 51]; 51];
    for (u, row) in t.iter_mut().enumerate() {
        for r in 1..=6u8 {
            let bit = 1 << (r - 1);
            let land = u as u8 + r;
            if land > TURN_CELL {
                continue;
            }
            row[land as usize] |= bit;
            if land == FLIGHT_FROM {
                row[FLIGHT_TO as usize] |= bit;
                if specials == Specials::Both {
                    row[(FLIGHT_TO + JUMP) as usize] |= bit;
                }
            } else if own_colour(land) && land <= LAST_JUMP_FROM {
                let jump = land + JUMP;
                row[jump as usize] |= bit;
                if jump == FLIGHT_FROM && specials != Specials::One {
                    row[FLIGHT_TO as usize] |= bit;
                }
            }
        }
    }
    t
}

/// The three hit tables, one per `specials` setting, built once.
static HIT_TABLES: std::sync::LazyLock<[HitTable; 3]> = std::sync::LazyLock::new(|| {
    [
        hit_table(Specials::One),
        hit_table(Specials::JumpThenFlight),
        hit_table(Specials::Both),
    ]
});

fn hits_for(specials: Specials) -> &'static HitTable {
    let i = match specials {
        Specials::One => 0,
        Specials::JumpThenFlight => 1,
        Specials::Both => 2,
    };
    &HIT_TABLES[i]
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
        let mut out = [0.0; 4];
        for &seat in game.seats() {
            out[seat.index()] = self.score(game, seat);
        }
        out
    }

    /// The absolute score of `seat` (see the module docs).
    pub fn score(&self, game: &Game, seat: Seat) -> f32 {
        let w = &self.weights;
        let centre = game.rules().centre();
        let n = game.players() as f32;
        let mut total = 0.0;
        if let Some(rank) = game.rank(seat) {
            total += w.win * (n - rank as f32) / (n - 1.0);
        }
        let hits = hits_for(game.rules().specials());
        let mut progress = 0u32;
        let mut hangar = 0u32;
        let mut home = 0u32;
        let mut lane = 0u32;
        let mut exposure = 0.0f32;
        let planes = usize::from(game.rules().planes());
        for &s in &game.steps(seat)[..planes] {
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
                let p = capture_chance(game, seat, s, hits);
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
                let e = ((scores[s.index()] - best) / temperature).exp();
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
#[inline]
fn capture_chance(game: &Game, seat: Seat, s: u8, hits: &HitTable) -> f32 {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::{Rules, Setup};

    #[test]
    fn a_plane_three_cells_ahead_of_an_opponent_is_hit_by_one_face() {
        let rules = Rules::default();
        let mut setup = Setup::start(&rules, 2).unwrap();
        // Seat 0's step 30 is seat 2's step 4 (ring cell 29).
        setup.steps[0] = [30, HANGAR, HANGAR, HANGAR];
        setup.steps[2] = [1, HANGAR, HANGAR, HANGAR];
        setup.turns = 2;
        let g = setup.into_game(rules).unwrap();
        let hits = hits_for(Specials::One);
        // From seat 2's step 1 only a 3 reaches its step 4 (a 1 lands on 2 and jumps to 6).
        let p = capture_chance(&g, Seat::ALL[0], 30, hits);
        assert!((p - 1.0 / 6.0).abs() < 1e-6, "{p}");
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
