//! One self-play game of TD(λ) training with frozen weights, and what it teaches.
//!
//! Every seat plays the same net greedily at ply 0 (the move whose afterstate the net values
//! best for the mover; with probability `explore` a uniformly random move instead). Each
//! afterstate of a seat's move is a sample of that seat's chain (from its perspective); a chain
//! ends with the seat's true outcome (its rank one-hot, or for a seat left unranked, the ranks
//! left shared evenly). An afterstate that is already decided for the mover (the game over, or
//! the mover finished) is not a sample: its value is exact.
//!
//! **The update is offline TD(λ).** With the weights frozen for the whole game, the sum over a
//! chain of `δ_t e_t` (TD errors times eligibility traces) equals the sum of `(G_t - y_t) ∇y_t`
//! with `G_t` the λ-return, computed backwards: `G_T = z`, `G_t = (1 - λ) y_{t+1} + λ G_{t+1}`.
//! The net's outputs are rank probabilities, so each sample is moved towards its λ-return by
//! the cross-entropy's gradient (logits' gradient `y_t - G_t`). The game returns its gradient:
//! the second layer's, summed, and each sample's hidden-layer gradient (applied to the columns
//! of its active inputs only); [`Trace::apply`] subtracts them, times `alpha`.

use rand_pcg::Pcg32;

use aeroplane_core::{Dice, Game, MoveList, Seat, SeededDice, below};

use super::encoding::{Encoder, Features};
use super::net::{Scratch, Weights, expected_return, payoff};

/// The random stream of exploration moves (beside the dice).
pub const EXPLORE_STREAM: u64 = 0x7464_6578_706c_6f72;

/// The settings of self-play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlay {
    /// λ of TD(λ), 0..=1.
    pub lambda: f32,
    /// Probability of a uniformly random move at a decision with a choice.
    pub explore: f32,
}

/// A game's samples and gradient; kept and reused from game to game (it allocates only while
/// growing to the longest game).
#[derive(Clone, Debug, Default)]
pub struct Trace {
    feats: Vec<Features>,
    seat: Vec<u8>,
    /// Per sample: the hidden activations, then (after [`Trace::learn`]) its gradient.
    hidden: Vec<f32>,
    probs: Vec<[f32; 4]>,
    g2: Vec<f32>,
    /// Sum of squared TD errors (λ-return minus value, in returns) and their count.
    pub td_sq: f64,
    /// Samples.
    pub samples: u64,
}

/// The outcome distribution of each seat (index: position in `game.seats()`), by rank.
fn outcome(game: &Game) -> [[f32; 4]; 4] {
    let seats = game.seats();
    let n = seats.len();
    let mut out = [[0.0; 4]; 4];
    let mut taken = [false; 4];
    let mut unranked = 0;
    for (k, &s) in seats.iter().enumerate() {
        match game.rank(s) {
            Some(r) if r >= 1 => {
                out[k][usize::from(r) - 1] = 1.0;
                taken[usize::from(r) - 1] = true;
            }
            _ => unranked += 1,
        }
    }
    if unranked > 0 {
        let free = (0..n).filter(|&r| !taken[r]).count() as f32;
        for (k, &s) in seats.iter().enumerate() {
            if game.rank(s).is_none_or(|r| r == 0) {
                for r in 0..n {
                    if !taken[r] {
                        out[k][r] = 1.0 / free;
                    }
                }
            }
        }
    }
    out
}

/// The exact value for `seat` of an afterstate decided for it (the game over, or the seat
/// finished); `None` while it is not.
#[inline]
pub fn decided_value(game: &Game, seat: Seat) -> Option<f32> {
    if game.is_over() {
        return Some(game.returns()[seat.index()] as f32);
    }
    if game.has_finished(seat) {
        let r = game.rank(seat)?;
        return Some(payoff(usize::from(r) - 1, game.players()));
    }
    None
}

impl Trace {
    /// Plays game `index` of a training under `seed` with `w` for every seat, and computes
    /// its gradient (see the module documentation).
    pub fn play(
        &mut self,
        w: &Weights,
        enc: &Encoder,
        start: &Game,
        settings: SelfPlay,
        seed: u64,
        index: u64,
    ) {
        self.feats.clear();
        self.seat.clear();
        self.hidden.clear();
        self.probs.clear();
        let h = w.hidden;
        let mut dice = SeededDice::new(seed, index);
        let mut rng: Pcg32 = aeroplane_core::stream(seed, index, EXPLORE_STREAM);
        let explore_below = (f64::from(settings.explore) * f64::from(u32::MAX)) as u32;
        let mut game = *start;
        let mut moves = MoveList::default();
        let mut best = Scratch::default();
        let mut cand = Scratch::default();
        let mut fx = Features::default();
        let mut best_fx = Features::default();
        while !game.is_over() {
            let seat = game.to_move();
            let roll = dice.roll(seat).expect("seeded dice never run out");
            game.legal_moves_into(roll, &mut moves);
            if moves.is_empty() {
                game.apply(roll, None);
                continue;
            }
            let k = game.seats().iter().position(|&s| s == seat).unwrap_or(0);
            let forced = settings.explore > 0.0
                && moves.len() > 1
                && rand::Rng::next_u32(&mut rng) < explore_below;
            let pick = if forced {
                Some(below(&mut rng, moves.len() as u32) as usize)
            } else {
                None
            };
            let mut chosen = 0;
            let mut chosen_value = f32::NEG_INFINITY;
            let mut chosen_sample = false;
            for (i, &m) in moves.iter().enumerate() {
                if pick.is_some_and(|p| p != i) {
                    continue;
                }
                let mut g = game;
                g.apply(roll, Some(m));
                let (v, sample) = match decided_value(&g, seat) {
                    Some(v) => (v, false),
                    None => {
                        enc.encode(&g, seat, &mut fx);
                        (w.value(&fx, &mut cand), true)
                    }
                };
                if v > chosen_value {
                    chosen = i;
                    chosen_value = v;
                    chosen_sample = sample;
                    if sample {
                        std::mem::swap(&mut best, &mut cand);
                        best_fx = fx;
                    }
                }
            }
            if chosen_sample {
                self.feats.push(best_fx);
                self.seat.push(k as u8);
                self.hidden.extend_from_slice(&best.hidden[..h]);
                self.probs.push(best.probs);
            }
            game.apply(roll, Some(moves[chosen]));
        }
        self.learn(w, &outcome(&game), settings.lambda, game.players());
    }

    /// The λ-returns of every chain, backwards, and the gradient towards them.
    fn learn(&mut self, w: &Weights, z: &[[f32; 4]; 4], lambda: f32, n: usize) {
        let h = w.hidden;
        self.g2.clear();
        self.g2.resize(w.second_len(), 0.0);
        self.td_sq = 0.0;
        self.samples = self.feats.len() as u64;
        let mut next_g = [[0.0f32; 4]; 4];
        let mut next_y = [[0.0f32; 4]; 4];
        let mut has = [false; 4];
        let mut s = Scratch::default();
        let mut dh = [0.0f32; super::net::MAX_HIDDEN];
        for t in (0..self.feats.len()).rev() {
            let k = usize::from(self.seat[t]);
            let y = self.probs[t];
            let mut g = [0.0f32; 4];
            for r in 0..n {
                g[r] = if has[k] {
                    (1.0 - lambda) * next_y[k][r] + lambda * next_g[k][r]
                } else {
                    z[k][r]
                };
            }
            let d = f64::from(expected_return(&g[..n]) - expected_return(&y[..n]));
            self.td_sq += d * d;
            next_g[k] = g;
            next_y[k] = y;
            has[k] = true;
            let hid = &mut self.hidden[t * h..][..h];
            s.hidden[..h].copy_from_slice(hid);
            s.probs = y;
            w.backward(&s, &g[..n], &mut self.g2, &mut dh);
            hid.copy_from_slice(&dh[..h]);
        }
    }

    /// Subtracts `alpha` times this game's gradient from `w`.
    pub fn apply(&self, w: &mut Weights, alpha: f32) {
        let h = w.hidden;
        w.step_second(&self.g2, alpha);
        for (t, fx) in self.feats.iter().enumerate() {
            w.step_first(fx, &self.hidden[t * h..][..h], alpha);
        }
    }
}
