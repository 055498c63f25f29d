//! Depth-limited expectimax over the six die faces, with max-n backup for any player count.
//!
//! **Plies.** One ply is one die roll and the choice after it. The root ply's roll is given;
//! `depth = 1` scores each move by the evaluation of the position it leaves, `depth = 2` also
//! averages over the next roll (of whoever rolls next: the same seat after a 6) and lets that
//! seat pick its best reply, and so on. The turn structure is the engine's, exactly: a 6 keeps
//! the seat on move, a pass and a punished third six are the empty move list followed by
//! `apply(roll, None)`, optional flights are separate moves.
//!
//! **Max-n backup.** A node's value is a vector with one component per seat (the evaluation's
//! [`Evaluator::values`]: own score minus the mean of the opponents'). At a choice node the seat
//! to move takes the child that maximises *its own* component; a chance node averages its six
//! faces. With two players the components are exactly opposite, so this is expectiminimax;
//! with three or four it is max-n, which, unlike the paranoid assumption (everyone against the
//! root), models opponents who each play for themselves, as the bots in a tournament do.
//!
//! **Speed, with the same results.** A chance node lists the moves of all six faces at once
//! ([`Game::legal_moves_all`]: what the faces share is worked out once). The rolls 1 to 5
//! that pass all lead to the same position (the turn simply goes on to the next seat), so a
//! chance node searches that position once and adds its value once per such roll: the same
//! numbers in the same order, so the same result to the last bit. (Other repeated positions are
//! rare at these depths: a transposition needs one seat to move twice, which takes sixes, so a
//! table of them did not pay for its hashing.)
//!
//! Scratch: the six move lists of each ply, allocated when the bot is built; a decision
//! allocates nothing.

use super::Bot;
use super::eval::{
    Evaluator, P_EXPOSURE, P_HANGAR, P_HOME, P_LANE, P_MOVER, P_PROGRESS, P_WIN, Weights,
};
use super::params::{ParamDef, ParamKind, Params};
use super::search::MoveValues;
use aeroplane_core::Game;
use aeroplane_core::{Move, MoveList};

/// Deepest search a profile may ask for.
pub const MAX_DEPTH: u8 = 6;

/// The parameters of the `expectimax` kind.
pub const PARAMS: [ParamDef; 8] = [
    ParamDef {
        name: "depth",
        kind: ParamKind::Int {
            min: 1,
            max: MAX_DEPTH as i64,
        },
        default: "2",
        help: "plies searched (one ply = one die roll and the choice after it)",
    },
    P_PROGRESS,
    P_HOME,
    P_HANGAR,
    P_LANE,
    P_EXPOSURE,
    P_MOVER,
    P_WIN,
];

/// Builds an expectimax bot from resolved [`PARAMS`].
pub fn build(name: &str, params: &Params) -> Box<dyn Bot> {
    Box::new(Expectimax::new(
        name,
        params.int("depth") as u8,
        Weights::from_params(params),
    ))
}

/// The expectimax bot.
#[derive(Clone, Debug)]
pub struct Expectimax {
    name: String,
    depth: u8,
    eval: Evaluator,
    /// Per ply left, the moves of each face.
    faces: Vec<[MoveList; 6]>,
    nodes: u64,
    root: MoveValues,
}

impl Expectimax {
    /// An expectimax bot searching `depth` plies (1..=[`MAX_DEPTH`]) with `weights`.
    pub fn new(name: &str, depth: u8, weights: Weights) -> Self {
        let depth = depth.clamp(1, MAX_DEPTH);
        Expectimax {
            name: name.to_string(),
            depth,
            eval: Evaluator::new(weights),
            faces: vec![[MoveList::default(); 6]; depth as usize + 1],
            nodes: 0,
            root: MoveValues::default(),
        }
    }

    /// Positions evaluated or expanded so far (for benchmarks).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The max-n value vector of every move of the root, in the order of `moves`, written
    /// into `out` (at least `moves.len()` long).
    pub fn root_values(&mut self, game: &Game, roll: u8, moves: &[Move], out: &mut [[f32; 4]]) {
        for (k, &m) in moves.iter().enumerate() {
            let mut g = *game;
            g.apply(roll, Some(m));
            out[k] = self.chance(&g, self.depth - 1);
        }
    }

    /// The max-n value vector of `game` (before a roll) searched `plies` plies deep
    /// (at most the bot's depth).
    pub fn value(&mut self, game: &Game, plies: u8) -> [f32; 4] {
        self.chance(game, plies.min(self.depth))
    }

    /// The value of a position before a roll, with `plies` plies left to search.
    fn chance(&mut self, game: &Game, plies: u8) -> [f32; 4] {
        self.nodes += 1;
        if plies == 0 || game.is_over() {
            return self.eval.values(game);
        }
        let slot = usize::from(plies);
        game.legal_moves_all(&mut self.faces[slot]);
        let mut sum = [0.0f32; 4];
        // The value of the position after a roll of 1 to 5 that passes (the same for each).
        let mut passed: Option<[f32; 4]> = None;
        for roll in 1..=6u8 {
            let count = self.faces[slot][usize::from(roll - 1)].len();
            let v = if count == 0 {
                match passed {
                    Some(v) if roll != 6 => v,
                    _ => {
                        let mut g = *game;
                        g.apply(roll, None);
                        let v = self.chance(&g, plies - 1);
                        if roll != 6 {
                            passed = Some(v);
                        }
                        v
                    }
                }
            } else {
                self.choice(game, roll, plies, count)
            };
            for (s, x) in sum.iter_mut().zip(v) {
                *s += x;
            }
        }
        sum.map(|s| s * (1.0 / 6.0))
    }

    /// The value of `roll` in `game` with its `count` (at least one) moves in this ply's list:
    /// the seat to move picks its best move (max-n).
    fn choice(&mut self, game: &Game, roll: u8, plies: u8, count: usize) -> [f32; 4] {
        let slot = usize::from(plies);
        let seat = game.to_move().index();
        let mut best = [f32::NEG_INFINITY; 4];
        for k in 0..count {
            let m = self.faces[slot][usize::from(roll - 1)][k];
            let mut g = *game;
            g.apply(roll, Some(m));
            let v = self.chance(&g, plies - 1);
            if v[seat] > best[seat] {
                best = v;
            }
        }
        best
    }
}

impl Bot for Expectimax {
    fn name(&self) -> &str {
        &self.name
    }

    /// The max-n value of each move for the bot's seat (the evaluation's scale).
    fn move_values(&self) -> Option<&[f32]> {
        self.root.get()
    }

    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        if moves.len() == 1 {
            self.root.start(1);
            return 0;
        }
        let me = game.to_move().index();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        self.root.start(moves.len());
        for (k, &m) in moves.iter().enumerate() {
            let mut g = *game;
            g.apply(roll, Some(m));
            let v = self.chance(&g, self.depth - 1)[me];
            self.root.set(k, v);
            if v > best_value {
                best = k;
                best_value = v;
            }
        }
        best
    }
}
