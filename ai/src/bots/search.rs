//! Turn-structure helpers shared by the search bots: rolling the bot's own die, rollouts with a
//! simple policy, and the rewards a finished or cut-off rollout gives each seat.
//!
//! The turn structure is the engine's: after [`Game::apply`], the same seat rolls again unless
//! `turn_over`; a pass and a punished third six are `apply(roll, None)` on an empty move list.

use rand_pcg::Pcg32;

use super::Greedy;
use super::eval::Evaluator;
use aeroplane_core::Game;
use aeroplane_core::below;
use aeroplane_core::{MAX_MOVES, MoveList};

/// The values a search bot gave the moves of its latest decision ([`super::Bot::move_values`]):
/// a fixed array, so keeping them allocates nothing and costs a store per root move.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveValues {
    values: [f32; MAX_MOVES],
    len: u8,
}

impl MoveValues {
    /// Starts a decision among `moves` moves, every value not yet known (NaN).
    #[inline]
    pub fn start(&mut self, moves: usize) {
        self.len = moves.min(MAX_MOVES) as u8;
        self.values = [f32::NAN; MAX_MOVES];
    }

    /// Sets the value of move `k`.
    #[inline]
    pub fn set(&mut self, k: usize, value: f32) {
        if let Some(v) = self.values.get_mut(k) {
            *v = value;
        }
    }

    /// The values of the latest decision, `None` before the first.
    pub fn get(&self) -> Option<&[f32]> {
        (self.len > 0).then(|| &self.values[..usize::from(self.len)])
    }
}

/// How a rollout picks moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Uniform among the legal moves.
    Random,
    /// The greedy bot's priority.
    Greedy,
}

impl Policy {
    /// The words a profile may use.
    pub const WORDS: &'static [&'static str] = &["random", "greedy"];

    /// Parses one of [`Policy::WORDS`].
    pub fn from_word(word: &str) -> Policy {
        match word {
            "random" => Policy::Random,
            _ => Policy::Greedy,
        }
    }

    /// Picks an index into `moves` (not empty).
    #[inline]
    pub fn pick(self, moves: &MoveList, rng: &mut Pcg32) -> usize {
        if moves.len() == 1 {
            return 0;
        }
        match self {
            Policy::Random => below(rng, moves.len() as u32) as usize,
            Policy::Greedy => Greedy::pick(moves),
        }
    }
}

/// A die face from the bot's own generator.
#[inline]
pub fn roll_die(rng: &mut Pcg32) -> u8 {
    below(rng, 6) as u8 + 1
}

/// Why a rollout stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A seat finished (or the game ended): the race the search cares about is decided.
    Decided,
    /// The turn budget ran out.
    Cutoff,
}

/// Plays `game` on with `policy` and dice from `rng` until a seat finishes that had not
/// finished when the rollout began, the game ends, or `cutoff` more turns have begun
/// (`cutoff == 0`: no limit).
pub fn rollout(
    game: &mut Game,
    policy: Policy,
    cutoff: u32,
    rng: &mut Pcg32,
    moves: &mut MoveList,
) -> Stop {
    let limit = if cutoff == 0 {
        u32::MAX
    } else {
        game.turns().saturating_add(cutoff)
    };
    loop {
        if game.is_over() {
            return Stop::Decided;
        }
        if game.turns() >= limit {
            return Stop::Cutoff;
        }
        let roll = roll_die(rng);
        game.legal_moves_into(roll, moves);
        let choice = if moves.is_empty() {
            None
        } else {
            Some(moves[policy.pick(moves, rng)])
        };
        let outcome = game.apply(roll, choice);
        if outcome.seat_finished {
            return Stop::Decided;
        }
    }
}

/// Per-seat rewards in 0..=1 for a position where search stops: a seat that has newly finished
/// (ranked beyond `finished_before` seats) scores by its rank among them, the first 1;
/// otherwise each unfinished seat gets its chance from [`Evaluator::chances`].
#[inline]
pub fn rewards(game: &Game, finished_before: u32, eval: &Evaluator, temperature: f32) -> [f32; 4] {
    let mut out = [0.0; 4];
    let mut decided = false;
    for &s in game.seats() {
        if let Some(rank) = game.rank(s)
            && u32::from(rank) == finished_before + 1
            && game.has_finished(s)
        {
            out[s.index()] = 1.0;
            decided = true;
        }
    }
    if decided {
        return out;
    }
    if game.is_over() {
        // Ended without a new finisher: max_turns. Nobody gains.
        return out;
    }
    eval.chances(game, temperature)
}

/// Seats that have finished, counted.
#[inline]
pub fn finished_count(game: &Game) -> u32 {
    game.seats()
        .iter()
        .filter(|&&s| game.has_finished(s))
        .count() as u32
}
