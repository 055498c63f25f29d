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
//! Scratch: one move list per ply, allocated when the bot is built; a decision allocates nothing.

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
    lists: Vec<MoveList>,
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
            lists: vec![MoveList::default(); depth as usize + 1],
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
        let mut sum = [0.0f32; 4];
        for roll in 1..=6 {
            let v = self.choice(game, roll, plies);
            for (s, x) in sum.iter_mut().zip(v) {
                *s += x;
            }
        }
        sum.map(|s| s * (1.0 / 6.0))
    }

    /// The value of `roll` in `game`: the seat to move picks its best move (max-n).
    fn choice(&mut self, game: &Game, roll: u8, plies: u8) -> [f32; 4] {
        let slot = plies as usize;
        game.legal_moves_into(roll, &mut self.lists[slot]);
        let count = self.lists[slot].len();
        if count == 0 {
            let mut g = *game;
            g.apply(roll, None);
            return self.chance(&g, plies - 1);
        }
        let seat = game.to_move().index();
        let mut best = [f32::NEG_INFINITY; 4];
        for k in 0..count {
            let m = self.lists[slot][k];
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
