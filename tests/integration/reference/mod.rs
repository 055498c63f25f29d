//! An independent, deliberately plain model of RULES.md's move generation, written from the
//! text (not from the engine), to compare the engine against roll by roll.

#![allow(dead_code)]

use aeroplane::{Game, HANGAR, Move, Overshoot, Seat, Specials, Stacking, ThreeSixes};

/// What a legal move does, in the reference model's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefMove {
    /// Start step, `HANGAR` for a launch.
    pub from: u8,
    /// Declines an optional flight.
    pub stays: bool,
    /// End step.
    pub to: u8,
    /// How many own planes move.
    pub planes: u32,
    /// Captured opponents: bit 4*seat + plane.
    pub captured: u16,
    /// Took a jump.
    pub jumps: bool,
    /// Took the flight.
    pub flies: bool,
    /// Bounced at the centre.
    pub bounces: bool,
    /// Reached the centre.
    pub finishes: bool,
}

impl RefMove {
    /// The engine's move in the same terms.
    pub fn of(m: &Move) -> RefMove {
        RefMove {
            from: m.from(),
            stays: m.stays(),
            to: m.to(),
            planes: m.plane_count(),
            captured: m.captured(),
            jumps: m.jumps(),
            flies: m.flies(),
            bounces: m.bounces(),
            finishes: m.finishes(),
        }
    }
}

/// Shared ring cell of `seat`'s ring step `s` (1..=50): `(13*seat + s - 1) mod 52`.
fn cell(seat: usize, s: u8) -> usize {
    (13 * seat + s as usize - 1) % 52
}

/// Opponent planes of `seat` standing on the ring cell that is `seat`'s step `t`.
fn opponents_at(game: &Game, seat: usize, t: u8) -> u16 {
    let mut bits = 0;
    for &other in game.seats() {
        let o = other.index();
        if o == seat {
            continue;
        }
        for (p, &u) in game.steps(other).iter().enumerate() {
            if (1..=50).contains(&u) && cell(o, u) == cell(seat, t) {
                bits |= 1 << (4 * o + p);
            }
        }
    }
    bits
}

/// Planes of the opposite colour on its step 53 (only if that seat is in play).
fn crossed(game: &Game, seat: usize) -> u16 {
    let o = (seat + 2) % 4;
    if !game.in_play(Seat::ALL[o]) {
        return 0;
    }
    let mut bits = 0;
    for (p, &u) in game.steps(Seat::ALL[o]).iter().enumerate() {
        if u == 53 {
            bits |= 1 << (4 * o + p);
        }
    }
    bits
}

/// The legal moves of the seat to move for `roll`, in RULES.md's canonical order.
pub fn legal_moves(game: &Game, roll: u8) -> Vec<RefMove> {
    let r = *game.rules();
    let seat = game.to_move().index();
    let mine = game.steps(game.to_move());
    let centre = r.centre();
    let mut out = Vec::new();
    if game.is_over() {
        return out;
    }
    if roll == 6 && game.sixes_this_turn() >= 2 && r.three_sixes() != ThreeSixes::None {
        return out;
    }
    if r.launch_rolls().contains(roll) && mine.contains(&HANGAR) {
        out.push(RefMove {
            from: HANGAR,
            stays: false,
            to: 0,
            planes: 1,
            captured: 0,
            jumps: false,
            flies: false,
            bounces: false,
            finishes: false,
        });
    }
    let mut starts: Vec<u8> = mine
        .iter()
        .copied()
        .filter(|&s| s != HANGAR && s < centre)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    for s in starts {
        let planes = match r.stacking() {
            Stacking::None => 1,
            Stacking::MoveTogether => mine.iter().filter(|&&x| x == s).count() as u32,
        };
        let mut t = s + roll;
        let mut bounces = false;
        if t > centre {
            if r.overshoot() == Overshoot::Illegal {
                continue;
            }
            t = 2 * centre - t;
            bounces = true;
        }
        let base = RefMove {
            from: s,
            stays: false,
            to: t,
            planes,
            captured: 0,
            jumps: false,
            flies: false,
            bounces,
            finishes: t == centre,
        };
        if !(1..=50).contains(&t) {
            out.push(base);
            continue;
        }
        // Landing on the ring.
        let mut m = RefMove {
            captured: opponents_at(game, seat, t),
            ..base
        };
        let fly = |mut m: RefMove, jumped: bool| {
            m.flies = true;
            if r.flight_captures_crossed() {
                m.captured |= crossed(game, seat);
            }
            m.to = 30;
            m.captured |= opponents_at(game, seat, 30);
            if r.specials() == Specials::Both && !jumped {
                m.jumps = true;
                m.to = 34;
                m.captured |= opponents_at(game, seat, 34);
            }
            m
        };
        if t == 18 {
            out.push(fly(m.clone(), false));
            if r.flight_optional() {
                out.push(RefMove { stays: true, ..m });
            }
        } else if t % 4 == 2 && t <= 46 {
            m.jumps = true;
            m.to = t + 4;
            m.captured |= opponents_at(game, seat, t + 4);
            if m.to == 18 && r.specials() != Specials::One {
                out.push(fly(m.clone(), true));
                if r.flight_optional() {
                    out.push(RefMove { stays: true, ..m });
                }
            } else {
                out.push(m);
            }
        } else {
            out.push(m);
        }
    }
    out
}
