//! Flat Monte Carlo: for each legal move, R rollouts; the move with the best mean reward wins.
//!
//! A rollout plays on from the position the move leaves with the rollout policy and dice from
//! the bot's own generator (seeded in [`Bot::new_game`], never the game's dice) until some seat
//! finishes (the reward is 1 for it, 0 for the others), or until `cutoff` turns have begun, when
//! the evaluation's softmax estimate scores it. Rollout `r` of every move uses the same dice
//! stream (common random numbers), so the moves are compared on equal luck.

use rand::Rng as _;
use rand_pcg::Pcg32;

use super::Bot;
use super::eval::{
    Evaluator, P_EXPOSURE, P_HANGAR, P_HOME, P_LANE, P_MOVER, P_PROGRESS, P_WIN, Weights,
};
use super::params::{ParamDef, ParamKind, Params};
use super::search::{MoveValues, Policy, finished_count, rewards, rollout};
use aeroplane_core::Game;
use aeroplane_core::Seat;
use aeroplane_core::splitmix64;
use aeroplane_core::{Move, MoveList};

/// The `rollouts` parameter.
const P_ROLLOUTS: ParamDef = ParamDef {
    name: "rollouts",
    kind: ParamKind::Int {
        min: 1,
        max: 1_000_000,
    },
    default: "32",
    help: "rollouts per legal move",
};

/// The parameters of the `montecarlo` kind.
pub const PARAMS: [ParamDef; 11] = [
    P_ROLLOUTS,
    ParamDef {
        name: "policy",
        kind: ParamKind::Word(Policy::WORDS),
        default: "greedy",
        help: "rollout policy",
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

/// The `cutoff` parameter shared with MCTS.
pub const P_CUTOFF: ParamDef = ParamDef {
    name: "cutoff",
    kind: ParamKind::Int {
        min: 0,
        max: 10_000,
    },
    default: "8",
    help: "turns before a rollout stops and is scored by the evaluation (0: play to a finish)",
};

/// The `temperature` parameter shared with MCTS.
pub const P_TEMPERATURE: ParamDef = ParamDef {
    name: "temperature",
    kind: ParamKind::Float {
        min: 0.01,
        max: 10_000.0,
    },
    default: "25.0",
    help: "softmax temperature turning evaluation scores into win chances",
};

/// Builds a Monte Carlo bot from resolved [`PARAMS`].
pub fn build(name: &str, params: &Params) -> Box<dyn Bot> {
    Box::new(MonteCarlo::new(
        name,
        MonteCarloConfig {
            rollouts: params.int("rollouts") as u32,
            policy: Policy::from_word(params.word("policy")),
            cutoff: params.int("cutoff") as u32,
            temperature: params.float("temperature") as f32,
            weights: Weights::from_params(params),
        },
    ))
}

/// Settings of the Monte Carlo bot.
#[derive(Clone, Copy, Debug)]
pub struct MonteCarloConfig {
    /// Rollouts per legal move.
    pub rollouts: u32,
    /// Rollout policy.
    pub policy: Policy,
    /// Turns before a rollout is cut off and evaluated (0: play to the next finish).
    pub cutoff: u32,
    /// Softmax temperature turning evaluation scores into chances.
    pub temperature: f32,
    /// Evaluation weights for cut-off rollouts.
    pub weights: Weights,
}

/// The flat Monte Carlo bot.
#[derive(Clone, Debug)]
pub struct MonteCarlo {
    name: String,
    config: MonteCarloConfig,
    eval: Evaluator,
    rng: Pcg32,
    moves: MoveList,
    root: MoveValues,
}

impl MonteCarlo {
    /// A Monte Carlo bot with these settings.
    pub fn new(name: &str, config: MonteCarloConfig) -> Self {
        MonteCarlo {
            name: name.to_string(),
            config,
            eval: Evaluator::new(config.weights),
            rng: Pcg32::new(0, 0),
            moves: MoveList::default(),
            root: MoveValues::default(),
        }
    }
}

impl Bot for MonteCarlo {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self, _seat: Seat, seed: u64) {
        self.rng = Pcg32::new(seed, splitmix64(seed ^ 0x4D43));
    }

    fn generator(&mut self) -> Option<&mut Pcg32> {
        Some(&mut self.rng)
    }

    /// The mean reward of each move's rollouts for the bot's seat (0 to 1: its chance of
    /// finishing next).
    fn move_values(&self) -> Option<&[f32]> {
        self.root.get()
    }

    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        if moves.len() == 1 {
            self.root.start(1);
            return 0;
        }
        let me = game.to_move().index();
        let before = finished_count(game);
        let base = u64::from(self.rng.next_u32()) << 32 | u64::from(self.rng.next_u32());
        let mut best = 0;
        let mut best_total = f32::NEG_INFINITY;
        self.root.start(moves.len());
        for (k, &m) in moves.iter().enumerate() {
            let mut total = 0.0f32;
            let mut start = *game;
            start.apply(roll, Some(m));
            for r in 0..self.config.rollouts {
                let key = splitmix64(base ^ u64::from(r));
                let mut rng = Pcg32::new(key, 0x5851_F42D_4C95_7F2D);
                let mut g = start;
                rollout(
                    &mut g,
                    self.config.policy,
                    self.config.cutoff,
                    &mut rng,
                    &mut self.moves,
                );
                total += rewards(&g, before, &self.eval, self.config.temperature)[me];
            }
            self.root.set(k, total / self.config.rollouts as f32);
            if total > best_total {
                best = k;
                best_total = total;
            }
        }
        best
    }
}
