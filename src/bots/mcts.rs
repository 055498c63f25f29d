//! UCT Monte Carlo tree search with explicit chance nodes, for 2 to 4 players.
//!
//! The tree alternates two kinds of node. A *decision* node is a position plus a known roll;
//! its children are one per legal move (a single child for a pass or a punished third six).
//! A *chance* node is the position a move leaves, before the next roll; its six children are
//! the decision nodes of the six faces. The root is the decision node of the roll the bot must
//! play. Positions are not stored: an iteration replays its path from the root on a `Game`
//! copy, so the turn structure is exactly the engine's (a 6 keeps the seat on move).
//!
//! One iteration: at a decision node, UCT picks a child (unvisited children first, in order)
//! using the mean reward *of the seat to move* there (per-seat rewards, so 3 and 4 players
//! work: each seat maximises its own share); at a chance node the least-visited face is taken
//! (stratified, so faces stay balanced and a chance node's mean approximates the expectation).
//! The first visit of a chance node is its leaf: a rollout from there (policy, cutoff) or, with
//! policy `none`, the evaluation alone, gives a reward per seat in 0..=1 (1 to the next seat to
//! finish; else the evaluation's softmax chances), added along the path. The move played is the
//! root child with most visits.
//!
//! Scratch: the node arena (16 nodes per iteration at most) and the path are allocated once
//! when the bot is built and cleared per decision; a decision allocates nothing.

use rand_pcg::Pcg32;

use super::Bot;
use super::eval::{
    Evaluator, P_EXPOSURE, P_HANGAR, P_HOME, P_LANE, P_PROGRESS, P_WIN, Weights,
};
use super::montecarlo::{P_CUTOFF, P_TEMPERATURE};
use super::registry::{ParamDef, ParamKind, Params};
use super::search::{Policy, finished_count, rewards, rollout};
use crate::dice::splitmix64;
use crate::engine::board::Seat;
use crate::engine::game::Game;
use crate::engine::moves::{Move, MoveList};

/// Rollout policy words of MCTS: the rollout policies, and `none` (evaluate the leaf).
const POLICY_WORDS: &[&str] = &["none", "random", "greedy"];

/// The parameters of the `mcts` kind.
pub const PARAMS: [ParamDef; 11] = [
    ParamDef {
        name: "iterations",
        kind: ParamKind::Int {
            min: 1,
            max: 10_000_000,
        },
        default: "400",
        help: "iterations (tree descents) per decision",
    },
    ParamDef {
        name: "exploration",
        kind: ParamKind::Float { min: 0.0, max: 10.0 },
        default: "0.5",
        help: "UCT exploration constant (rewards lie in 0..1)",
    },
    ParamDef {
        name: "policy",
        kind: ParamKind::Word(POLICY_WORDS),
        default: "greedy",
        help: "rollout policy at a new leaf, or none to score the leaf by the evaluation",
    },
    P_CUTOFF,
    P_TEMPERATURE,
    P_PROGRESS,
    P_HOME,
    P_HANGAR,
    P_LANE,
    P_EXPOSURE,
    P_WIN,
];

/// Builds an MCTS bot from resolved [`PARAMS`].
pub fn build(name: &str, params: &Params) -> Box<dyn Bot> {
    let policy = match params.word("policy") {
        "none" => None,
        word => Some(Policy::from_word(word)),
    };
    Box::new(Mcts::new(
        name,
        MctsConfig {
            iterations: params.int("iterations") as u32,
            exploration: params.float("exploration") as f32,
            policy,
            cutoff: params.int("cutoff") as u32,
            temperature: params.float("temperature") as f32,
            weights: Weights::from_params(params),
        },
    ))
}

/// Settings of the MCTS bot.
#[derive(Clone, Copy, Debug)]
pub struct MctsConfig {
    /// Iterations per decision.
    pub iterations: u32,
    /// UCT exploration constant (rewards lie in 0..=1).
    pub exploration: f32,
    /// Rollout policy at a leaf; `None` evaluates the leaf without a rollout.
    pub policy: Option<Policy>,
    /// Turns before a rollout is cut off and evaluated (0: play to the next finish).
    pub cutoff: u32,
    /// Softmax temperature turning evaluation scores into chances.
    pub temperature: f32,
    /// Evaluation weights.
    pub weights: Weights,
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    sum: [f32; 4],
    visits: u32,
    /// First child in the arena, or [`NONE`] before expansion.
    first: u32,
    /// Number of children.
    count: u8,
    /// For a chance node: the move that led to it (`None` for a pass).
    mv: Option<Move>,
}

impl Node {
    const EMPTY: Node = Node {
        sum: [0.0; 4],
        visits: 0,
        first: NONE,
        count: 0,
        mv: None,
    };
}

/// Most nodes one iteration adds: one decision expansion (up to 10 moves) and one chance
/// expansion (6 faces).
const NODES_PER_ITERATION: usize = 16;

/// The MCTS bot.
#[derive(Clone, Debug)]
pub struct Mcts {
    name: String,
    config: MctsConfig,
    eval: Evaluator,
    rng: Pcg32,
    nodes: Vec<Node>,
    path: Vec<u32>,
    moves: MoveList,
}

impl Mcts {
    /// An MCTS bot with these settings; its arena is allocated here, once.
    pub fn new(name: &str, config: MctsConfig) -> Self {
        let capacity = config.iterations as usize * NODES_PER_ITERATION + NODES_PER_ITERATION;
        Mcts {
            name: name.to_string(),
            config,
            eval: Evaluator::new(config.weights),
            rng: Pcg32::new(0, 0),
            nodes: Vec::with_capacity(capacity),
            path: Vec::with_capacity(2 * config.iterations as usize + 8),
            moves: MoveList::default(),
        }
    }

    /// Expands decision node `d` for `roll` in `game`: one chance child per legal move, or a
    /// single pass child.
    fn expand_decision(&mut self, d: usize, game: &Game, roll: u8) {
        game.legal_moves_into(roll, &mut self.moves);
        let first = self.nodes.len() as u32;
        if self.moves.is_empty() {
            self.nodes.push(Node::EMPTY);
        } else {
            for &m in self.moves.iter() {
                self.nodes.push(Node {
                    mv: Some(m),
                    ..Node::EMPTY
                });
            }
        }
        self.nodes[d].first = first;
        self.nodes[d].count = self.moves.len().max(1) as u8;
    }

    /// UCT among the children of decision node `d` for `seat`.
    fn select(&self, d: usize, seat: usize) -> usize {
        let node = &self.nodes[d];
        let first = node.first as usize;
        let count = node.count as usize;
        let log_n = (node.visits.max(1) as f32).ln();
        let mut best = first;
        let mut best_score = f32::NEG_INFINITY;
        for c in first..first + count {
            let child = &self.nodes[c];
            if child.visits == 0 {
                return c;
            }
            let n = child.visits as f32;
            let score =
                child.sum[seat] / n + self.config.exploration * (log_n / n).sqrt();
            if score > best_score {
                best = c;
                best_score = score;
            }
        }
        best
    }

    /// The least-visited face child of chance node `c` (expanding it first if needed).
    fn face(&mut self, c: usize) -> (usize, u8) {
        if self.nodes[c].first == NONE {
            let first = self.nodes.len() as u32;
            for _ in 0..6 {
                self.nodes.push(Node::EMPTY);
            }
            self.nodes[c].first = first;
            self.nodes[c].count = 6;
        }
        let first = self.nodes[c].first as usize;
        let mut best = first;
        for k in first + 1..first + 6 {
            if self.nodes[k].visits < self.nodes[best].visits {
                best = k;
            }
        }
        (best, (best - first) as u8 + 1)
    }

    /// One iteration from the root.
    fn iterate(&mut self, root: &Game, roll: u8, before: u32) {
        self.path.clear();
        let mut game = *root;
        let mut d = 0usize;
        let mut roll = roll;
        let reward = loop {
            self.path.push(d as u32);
            if self.nodes[d].first == NONE {
                self.expand_decision(d, &game, roll);
            }
            let c = self.select(d, game.to_move().index());
            self.path.push(c as u32);
            let outcome = game.apply(roll, self.nodes[c].mv);
            if outcome.seat_finished || game.is_over() {
                break rewards(&game, before, &self.eval, self.config.temperature);
            }
            if self.nodes[c].visits == 0 {
                break self.leaf(&mut game, before);
            }
            let (next, face) = self.face(c);
            d = next;
            roll = face;
        };
        for &k in &self.path {
            let node = &mut self.nodes[k as usize];
            node.visits += 1;
            for (s, r) in node.sum.iter_mut().zip(reward) {
                *s += r;
            }
        }
    }

    /// The reward vector of a new leaf.
    fn leaf(&mut self, game: &mut Game, before: u32) -> [f32; 4] {
        if let Some(policy) = self.config.policy {
            rollout(
                game,
                policy,
                self.config.cutoff,
                &mut self.rng,
                &mut self.moves,
            );
        }
        rewards(game, before, &self.eval, self.config.temperature)
    }
}

impl Bot for Mcts {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _seat: Seat, seed: u64) {
        self.rng = Pcg32::new(seed, splitmix64(seed ^ 0x4D_4354_53));
    }

    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        if moves.len() == 1 {
            return 0;
        }
        self.nodes.clear();
        self.nodes.push(Node {
            first: 1,
            count: moves.len() as u8,
            ..Node::EMPTY
        });
        for &m in moves {
            self.nodes.push(Node {
                mv: Some(m),
                ..Node::EMPTY
            });
        }
        let before = finished_count(game);
        for _ in 0..self.config.iterations {
            self.iterate(game, roll, before);
        }
        // The root's children are the legal moves in the caller's order.
        let root = self.nodes[0];
        let me = game.to_move().index();
        let mut best = 0;
        let mut best_key = (0u32, f32::NEG_INFINITY);
        for k in 0..root.count as usize {
            let child = &self.nodes[root.first as usize + k];
            let mean = if child.visits == 0 {
                f32::NEG_INFINITY
            } else {
                child.sum[me] / child.visits as f32
            };
            if (child.visits, mean) > best_key {
                best = k;
                best_key = (child.visits, mean);
            }
        }
        best
    }
}
