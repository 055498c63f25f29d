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
    Evaluator, P_EXPOSURE, P_HANGAR, P_HOME, P_LANE, P_MOVER, P_PROGRESS, P_WIN, Weights,
};
use super::expectimax::Expectimax;
use super::montecarlo::{P_CUTOFF, P_TEMPERATURE};
use super::params::{ParamDef, ParamKind, Params};
use super::search::{MoveValues, Policy, finished_count, rewards, rollout};
use aeroplane_core::Game;
use aeroplane_core::Seat;
use aeroplane_core::splitmix64;
use aeroplane_core::{Move, MoveList};

/// Leaf words of MCTS: `none` (evaluate the leaf), `expectimax` (search `leaf_depth` plies),
/// or a rollout policy.
const POLICY_WORDS: &[&str] = &["none", "expectimax", "random", "greedy"];

/// The parameters of the `mcts` kind.
pub const PARAMS: [ParamDef; 14] = [
    ParamDef {
        name: "iterations",
        kind: ParamKind::Int {
            min: 1,
            max: 10_000_000,
        },
        default: "800",
        help: "iterations (tree descents) per decision; the tree stops growing at 64 MiB",
    },
    ParamDef {
        name: "exploration",
        kind: ParamKind::Float {
            min: 0.0,
            max: 10.0,
        },
        default: "0.2",
        help: "UCT exploration constant (rewards lie in 0..1)",
    },
    ParamDef {
        name: "policy",
        kind: ParamKind::Word(POLICY_WORDS),
        default: "none",
        help: "leaf scoring: a rollout policy, none (the evaluation) or expectimax (leaf_depth plies)",
    },
    ParamDef {
        name: "leaf_depth",
        kind: ParamKind::Int { min: 1, max: 4 },
        default: "1",
        help: "plies of the expectimax search at a leaf (policy = expectimax)",
    },
    ParamDef {
        name: "backup",
        kind: ParamKind::Word(&["mean", "max"]),
        default: "max",
        help: "mean rewards, or max (expectimax values of the visited tree)",
    },
    P_CUTOFF,
    P_TEMPERATURE,
    P_PROGRESS,
    P_HOME,
    P_HANGAR,
    P_LANE,
    P_EXPOSURE,
    P_MOVER,
    P_WIN,
];

/// Builds an MCTS bot from resolved [`PARAMS`].
pub fn build(name: &str, params: &Params) -> Box<dyn Bot> {
    let leaf = match params.word("policy") {
        "none" => Leaf::Evaluate,
        "expectimax" => Leaf::Expectimax(params.int("leaf_depth") as u8),
        word => Leaf::Rollout(Policy::from_word(word)),
    };
    Box::new(Mcts::new(
        name,
        MctsConfig {
            iterations: params.int("iterations") as u32,
            exploration: params.float("exploration") as f32,
            leaf,
            cutoff: params.int("cutoff") as u32,
            temperature: params.float("temperature") as f32,
            max_backup: params.word("backup") == "max",
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
    /// How a new leaf is scored.
    pub leaf: Leaf,
    /// Turns before a rollout is cut off and evaluated (0: play to the next finish).
    pub cutoff: u32,
    /// Softmax temperature turning evaluation scores into chances.
    pub temperature: f32,
    /// Back up maxima at decision nodes and face averages at chance nodes (expectimax values
    /// over the visited tree) instead of mean rewards.
    pub max_backup: bool,
    /// Evaluation weights.
    pub weights: Weights,
}

/// How MCTS scores a new leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// The evaluation's chances of the leaf position.
    Evaluate,
    /// An expectimax search this many plies deep from the leaf; its max-n values become
    /// chances by a softmax.
    Expectimax(u8),
    /// A rollout with this policy, cut off after `cutoff` turns.
    Rollout(Policy),
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Node {
    /// Sum of the rewards backed up through the node (mean backup).
    sum: [f32; 4],
    /// The node's value per seat: the mean reward, or with max backup the expectimax value of
    /// its visited subtree.
    value: [f32; 4],
    visits: u32,
    /// Whether it is a chance node (else a decision node).
    chance: bool,
    /// For a decision node, the seat to move.
    seat: u8,
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
        value: [0.0; 4],
        visits: 0,
        chance: false,
        seat: 0,
        first: NONE,
        count: 0,
        mv: None,
    };
}

/// Most nodes one iteration adds: one decision expansion (up to 10 moves) and one chance
/// expansion (6 faces).
const NODES_PER_ITERATION: usize = 16;

/// The most memory one bot's tree takes: 64 MiB (a million nodes). Up to 65,536 iterations
/// the tree never reaches it; past it, the tree stops growing and later iterations refine the
/// values of its frontier (each reaching a leaf there), so `iterations` costs time, never
/// unbounded memory.
pub const MAX_TREE_BYTES: usize = 64 << 20;

/// [`MAX_TREE_BYTES`] in nodes.
const MAX_NODES: usize = MAX_TREE_BYTES / std::mem::size_of::<Node>();

/// The MCTS bot.
#[derive(Clone, Debug)]
pub struct Mcts {
    name: String,
    config: MctsConfig,
    eval: Evaluator,
    rng: Pcg32,
    nodes: Vec<Node>,
    /// The arena's bound ([`MAX_NODES`]; smaller in tests).
    max_nodes: usize,
    path: Vec<u32>,
    moves: MoveList,
    searcher: Expectimax,
    root: MoveValues,
}

/// A softmax of max-n values over the unfinished seats.
fn softmax(game: &Game, values: [f32; 4], temperature: f32) -> [f32; 4] {
    let mut best = f32::NEG_INFINITY;
    for &s in game.seats() {
        if !game.has_finished(s) {
            best = best.max(values[s.index()]);
        }
    }
    let mut out = [0.0; 4];
    let mut sum = 0.0;
    for &s in game.seats() {
        if !game.has_finished(s) {
            let e = crate::math::exp((values[s.index()] - best) / temperature);
            out[s.index()] = e;
            sum += e;
        }
    }
    out.map(|x| x / sum)
}

impl Mcts {
    /// An MCTS bot with these settings; its arena is allocated here, once.
    pub fn new(name: &str, config: MctsConfig) -> Self {
        let capacity =
            (config.iterations as usize * NODES_PER_ITERATION + NODES_PER_ITERATION).min(MAX_NODES);
        Mcts {
            name: name.to_string(),
            config,
            eval: Evaluator::new(config.weights),
            rng: Pcg32::new(0, 0),
            nodes: Vec::with_capacity(capacity),
            max_nodes: MAX_NODES,
            path: Vec::with_capacity((2 * config.iterations as usize + 8).min(MAX_NODES)),
            moves: MoveList::default(),
            searcher: Expectimax::new(
                name,
                match config.leaf {
                    Leaf::Expectimax(depth) => depth,
                    _ => 1,
                },
                config.weights,
            ),
            root: MoveValues::default(),
        }
    }

    /// Expands decision node `d` for `roll` in `game`: one chance child per legal move, or a
    /// single pass child.
    fn expand_decision(&mut self, d: usize, game: &Game, roll: u8) {
        game.legal_moves_into(roll, &mut self.moves);
        let first = self.nodes.len() as u32;
        if self.moves.is_empty() {
            self.nodes.push(Node {
                chance: true,
                ..Node::EMPTY
            });
        } else {
            for &m in self.moves.iter() {
                self.nodes.push(Node {
                    mv: Some(m),
                    chance: true,
                    ..Node::EMPTY
                });
            }
        }
        self.nodes[d].first = first;
        self.nodes[d].seat = game.to_move().index() as u8;
        self.nodes[d].count = self.moves.len().max(1) as u8;
    }

    /// UCT among the children of decision node `d` for `seat`.
    fn select(&self, d: usize, seat: usize) -> usize {
        let node = &self.nodes[d];
        let first = node.first as usize;
        let count = node.count as usize;
        let log_n = crate::math::ln(node.visits.max(1) as f32);
        let mut best = first;
        let mut best_score = f32::NEG_INFINITY;
        for c in first..first + count {
            let child = &self.nodes[c];
            if child.visits == 0 {
                return c;
            }
            let n = child.visits as f32;
            let score = child.value[seat] + self.config.exploration * (log_n / n).sqrt();
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
            // A new node is a leaf; so is any node once the arena is full.
            if self.nodes[c].visits == 0 || self.nodes.len() + NODES_PER_ITERATION > self.max_nodes
            {
                break self.leaf(&mut game, before);
            }
            let (next, face) = self.face(c);
            d = next;
            roll = face;
        };
        for i in (0..self.path.len()).rev() {
            let k = self.path[i] as usize;
            let node = &mut self.nodes[k];
            node.visits += 1;
            for (s, r) in node.sum.iter_mut().zip(reward) {
                *s += r;
            }
            if !self.config.max_backup || node.first == NONE {
                let n = node.visits as f32;
                node.value = node.sum.map(|s| s / n);
            } else {
                self.nodes[k].value = self.backed_up(k);
            }
        }
    }

    /// The expectimax value of expanded node `k` from its visited children: the best child
    /// for the seat to move at a decision node, the mean of the visited faces at a chance node.
    fn backed_up(&self, k: usize) -> [f32; 4] {
        let node = &self.nodes[k];
        let children = &self.nodes[node.first as usize..node.first as usize + node.count as usize];
        if node.chance {
            let mut sum = [0.0f32; 4];
            let mut n = 0.0f32;
            for c in children.iter().filter(|c| c.visits > 0) {
                for (s, v) in sum.iter_mut().zip(c.value) {
                    *s += v;
                }
                n += 1.0;
            }
            sum.map(|s| s / n)
        } else {
            let seat = node.seat as usize;
            let mut best = [f32::NEG_INFINITY; 4];
            for c in children.iter().filter(|c| c.visits > 0) {
                if c.value[seat] > best[seat] {
                    best = c.value;
                }
            }
            best
        }
    }

    /// The reward vector of a new leaf.
    fn leaf(&mut self, game: &mut Game, before: u32) -> [f32; 4] {
        let t = self.config.temperature;
        match self.config.leaf {
            Leaf::Evaluate => {}
            Leaf::Rollout(policy) => {
                rollout(
                    game,
                    policy,
                    self.config.cutoff,
                    &mut self.rng,
                    &mut self.moves,
                );
            }
            Leaf::Expectimax(depth) => {
                let values = self.searcher.value(game, depth);
                return softmax(game, values, t);
            }
        }
        rewards(game, before, &self.eval, t)
    }
}

impl Bot for Mcts {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _seat: Seat, seed: u64) {
        self.rng = Pcg32::new(seed, splitmix64(seed ^ 0x4D43_5453));
    }

    /// Its generator: the tree is built afresh at every choice.
    fn generator(&mut self) -> Option<&mut Pcg32> {
        Some(&mut self.rng)
    }

    /// Each root child's value for the bot's seat (0 to 1: mean reward, or the expectimax
    /// value of its visited subtree with `backup = max`); NaN for a child never visited.
    fn move_values(&self) -> Option<&[f32]> {
        self.root.get()
    }

    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        if moves.len() == 1 {
            self.root.start(1);
            return 0;
        }
        self.nodes.clear();
        self.nodes.push(Node {
            seat: game.to_move().index() as u8,
            first: 1,
            count: moves.len() as u8,
            ..Node::EMPTY
        });
        for &m in moves {
            self.nodes.push(Node {
                mv: Some(m),
                chance: true,
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
        self.root.start(root.count as usize);
        for k in 0..root.count as usize {
            let child = &self.nodes[root.first as usize + k];
            if child.visits == 0 {
                continue;
            }
            self.root.set(k, child.value[me]);
            let key = if self.config.max_backup {
                (0, child.value[me])
            } else {
                (child.visits, child.value[me])
            };
            if key > best_key {
                best = k;
                best_key = key;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::Rules;
    use aeroplane_core::{Dice, SeededDice};

    fn config(iterations: u32) -> MctsConfig {
        MctsConfig {
            iterations,
            exploration: 0.2,
            leaf: Leaf::Evaluate,
            cutoff: 8,
            temperature: 25.0,
            max_backup: true,
            weights: Weights::default(),
        }
    }

    #[test]
    fn the_documented_maximum_reserves_at_most_the_tree_bound() {
        let bot = Mcts::new("m", config(10_000_000));
        let bytes = bot.nodes.capacity() * std::mem::size_of::<Node>();
        assert!(bytes <= MAX_TREE_BYTES, "{bytes}");
        assert!(bot.path.capacity() <= MAX_NODES);
    }

    #[test]
    fn a_full_arena_stops_growing_and_still_plays_legal_games() {
        let mut probe = Mcts::new("m", config(400));
        probe.max_nodes = 64;
        let mut game = Game::new(Rules::default(), 2).unwrap();
        let mut dice = SeededDice::new(5, 0);
        let mut moves = MoveList::default();
        for _ in 0..400 {
            let seat = game.to_move();
            let roll = dice.roll(seat).unwrap();
            game.legal_moves_into(roll, &mut moves);
            let mv = match moves.len() {
                0 => None,
                1 => Some(moves[0]),
                _ => Some(moves[probe.choose(&game, roll, &moves)]),
            };
            // Legal choices (indexing above), and the arena never passed its bound.
            assert!(probe.nodes.len() <= 64);
            game.apply(roll, mv);
            if game.is_over() {
                break;
            }
        }
    }
}
