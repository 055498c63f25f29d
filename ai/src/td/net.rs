//! The value net: inputs (0 or 1, see [`super::encoding`]) -> one hidden layer (ReLU) ->
//! `players` logits -> softmax: the probability of each finishing rank of the perspective
//! seat. Hand-written in `f32`.
//!
//! **First layer, sparse.** The hidden layer's pre-activation is the bias plus the weight
//! columns of the active inputs (at most [`MAX_ACTIVE`]), so a forward pass costs
//! `active * hidden + hidden * players` multiply-adds (some 1,700 for 22 active inputs and 64
//! hidden units), and the backward pass writes only those columns. Nothing is allocated: the
//! hidden layer lives in a caller's [`Scratch`].
//!
//! **Value.** A seat's expected return is `sum_r P(rank r) * payoff(r)`, with `payoff(r) =
//! (n + 1 - 2r) / (n - 1)` for `n` players (1 for the first, -1 for the last), the returns of
//! the state API. Under `end = first_finisher` the game ends at the first finisher and the
//! other seats share the ranks left; training targets spread an unranked seat's probability
//! evenly over the ranks left, so the same formula gives the state API's return.

use super::encoding::{Features, MAX_ACTIVE};

/// The most hidden units a net may have.
pub const MAX_HIDDEN: usize = 1024;

/// A net's weights. Layout: `w1[i * hidden + j]` is the weight from input `i` to hidden unit
/// `j` (each input's column contiguous); `w2[r * hidden + j]` from hidden unit `j` to output `r`.
#[derive(Clone, Debug, PartialEq)]
pub struct Weights {
    /// Input units.
    pub inputs: usize,
    /// Hidden units.
    pub hidden: usize,
    /// Outputs: one per finishing rank (the players).
    pub outputs: usize,
    /// First layer, `inputs x hidden`.
    pub w1: Vec<f32>,
    /// Hidden biases.
    pub b1: Vec<f32>,
    /// Second layer, `outputs x hidden`.
    pub w2: Vec<f32>,
    /// Output biases.
    pub b2: Vec<f32>,
}

/// A net's second layer for inference: for each hidden unit its weights to the (up to four)
/// outputs side by side, zero beyond the outputs, and the output biases.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transposed {
    w2: Vec<[f32; 4]>,
    b2: [f32; 4],
}

/// A forward pass's state: the hidden layer and the rank probabilities.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// Hidden activations (after ReLU); the first `hidden` are used.
    pub hidden: [f32; MAX_HIDDEN],
    /// Rank probabilities; the first `outputs` are used.
    pub probs: [f32; 4],
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            hidden: [0.0; MAX_HIDDEN],
            probs: [0.0; 4],
        }
    }
}

/// The return of finishing rank `r` (0-based) of `n` players.
#[inline]
pub fn payoff(r: usize, n: usize) -> f32 {
    (n as f32 - 1.0 - 2.0 * r as f32) / (n as f32 - 1.0)
}

/// The expected return of rank probabilities `probs` (one per rank).
#[inline]
pub fn expected_return(probs: &[f32]) -> f32 {
    let n = probs.len();
    probs
        .iter()
        .enumerate()
        .map(|(r, p)| p * payoff(r, n))
        .sum()
}

impl Weights {
    /// A net of the given sizes, every weight drawn uniformly from `±scale / sqrt(fan-in)` by
    /// `draw` (a uniform number in `[-1, 1)`), biases 0. The first layer's fan-in is taken as
    /// [`MAX_ACTIVE`] (what a position turns on).
    pub fn random(
        inputs: usize,
        hidden: usize,
        outputs: usize,
        mut draw: impl FnMut() -> f32,
    ) -> Weights {
        let s1 = 1.0 / (MAX_ACTIVE as f32).sqrt();
        let s2 = 1.0 / (hidden as f32).sqrt();
        Weights {
            inputs,
            hidden,
            outputs,
            w1: (0..inputs * hidden).map(|_| draw() * s1).collect(),
            b1: vec![0.0; hidden],
            w2: (0..outputs * hidden).map(|_| draw() * s2).collect(),
            b2: vec![0.0; outputs],
        }
    }

    /// The forward pass: `s.hidden` and `s.probs` for the active inputs `x`.
    ///
    /// Every sum is formed in one fixed order (a hidden unit's: its bias, then the active
    /// inputs' weights in the order of `x`; an output's: its bias, then the hidden units in
    /// index order), so each way of computing it below gives the same bits: the hidden layer
    /// is summed in blocks of units held in registers across all the active columns (with AVX
    /// where the CPU has it), the outputs side by side.
    #[inline]
    pub fn forward(&self, x: &Features, s: &mut Scratch) {
        let h = self.hidden;
        self.first_layer(x.active(), &mut s.hidden[..h]);
        let hid = &s.hidden[..h];
        let n = self.outputs;
        let mut logits = [0.0f32; 4];
        let w2 = &self.w2;
        match n {
            2 => {
                let (a, b) = (&w2[..h], &w2[h..2 * h]);
                let mut l = [self.b2[0], self.b2[1]];
                for ((&x, &wa), &wb) in hid.iter().zip(a).zip(b) {
                    l[0] += wa * x;
                    l[1] += wb * x;
                }
                logits[..2].copy_from_slice(&l);
            }
            3 => {
                let (a, b, c) = (&w2[..h], &w2[h..2 * h], &w2[2 * h..3 * h]);
                let mut l = [self.b2[0], self.b2[1], self.b2[2]];
                for (((&x, &wa), &wb), &wc) in hid.iter().zip(a).zip(b).zip(c) {
                    l[0] += wa * x;
                    l[1] += wb * x;
                    l[2] += wc * x;
                }
                logits[..3].copy_from_slice(&l);
            }
            4 => {
                let (a, b) = (&w2[..h], &w2[h..2 * h]);
                let (c, d) = (&w2[2 * h..3 * h], &w2[3 * h..4 * h]);
                let mut l = [self.b2[0], self.b2[1], self.b2[2], self.b2[3]];
                for ((((&x, &wa), &wb), &wc), &wd) in hid.iter().zip(a).zip(b).zip(c).zip(d) {
                    l[0] += wa * x;
                    l[1] += wb * x;
                    l[2] += wc * x;
                    l[3] += wd * x;
                }
                logits = l;
            }
            _ => {
                for (r, l) in logits[..n].iter_mut().enumerate() {
                    let row = &self.w2[r * h..][..h];
                    *l = row
                        .iter()
                        .zip(hid)
                        .fold(self.b2[r], |sum, (w, a)| sum + w * a);
                }
            }
        }
        softmax(&logits[..n], &mut s.probs[..n]);
    }

    /// The hidden layer (after ReLU) of the active inputs `active` into `out` (`hidden` long).
    #[inline]
    fn first_layer(&self, active: &[u16], out: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU has AVX (checked just above).
            return unsafe { self.first_layer_avx(active, out) };
        }
        self.first_layer_blocks::<16>(active, out);
    }

    /// [`Weights::first_layer`] compiled for AVX: 64 units (eight registers) at once.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn first_layer_avx(&self, active: &[u16], out: &mut [f32]) {
        self.first_layer_blocks::<64>(active, out);
    }

    /// [`Weights::first_layer`] in blocks of `B` hidden units, each block's sums kept in
    /// registers over all the active columns; the units beyond the last whole block one by one.
    #[inline(always)]
    fn first_layer_blocks<const B: usize>(&self, active: &[u16], out: &mut [f32]) {
        let h = self.hidden;
        let whole = h / B * B;
        let mut b = 0;
        while b < whole {
            let mut acc: [f32; B] = self.b1[b..b + B].try_into().expect("a whole block");
            for &i in active {
                let col: &[f32; B] = self.w1[usize::from(i) * h + b..][..B]
                    .try_into()
                    .expect("a whole block");
                for k in 0..B {
                    acc[k] += col[k];
                }
            }
            for (o, a) in out[b..b + B].iter_mut().zip(acc) {
                *o = a.max(0.0);
            }
            b += B;
        }
        for (j, o) in out.iter_mut().enumerate().take(h).skip(whole) {
            let mut a = self.b1[j];
            for &i in active {
                a += self.w1[usize::from(i) * h + j];
            }
            *o = a.max(0.0);
        }
    }

    /// The expected return of the perspective seat at the position `x` encodes.
    #[inline]
    pub fn value(&self, x: &Features, s: &mut Scratch) -> f32 {
        self.forward(x, s);
        expected_return(&s.probs[..self.outputs])
    }

    /// [`Weights::value`] with the second layer read from `t` ([`Weights::transposed`] of
    /// these weights): the same bits, the outputs' sums computed side by side in one vector.
    #[inline]
    pub fn value_transposed(&self, t: &Transposed, x: &Features, s: &mut Scratch) -> f32 {
        let h = self.hidden;
        debug_assert_eq!(t.w2.len(), h);
        self.first_layer(x.active(), &mut s.hidden[..h]);
        let mut l = t.b2;
        for (&a, w) in s.hidden[..h].iter().zip(&t.w2) {
            for r in 0..4 {
                l[r] += w[r] * a;
            }
        }
        let n = self.outputs;
        softmax(&l[..n], &mut s.probs[..n]);
        expected_return(&s.probs[..n])
    }

    /// The second layer laid out for [`Weights::value_transposed`].
    pub fn transposed(&self) -> Transposed {
        let (h, n) = (self.hidden, self.outputs.min(4));
        let mut b2 = [0.0; 4];
        b2[..n].copy_from_slice(&self.b2[..n]);
        Transposed {
            w2: (0..h)
                .map(|j| std::array::from_fn(|r| if r < n { self.w2[r * h + j] } else { 0.0 }))
                .collect(),
            b2,
        }
    }

    /// The backward pass of the cross-entropy between `target` and the probabilities of a
    /// forward pass (`s`): its gradient with respect to the logits is `probs - target`. Adds
    /// the second layer's gradient to `g2` (`outputs x hidden`, then `outputs` biases) and
    /// writes the gradient of the hidden pre-activations into `dh` (the first layer's gradient
    /// is `dh` for the hidden biases and for the column of each active input).
    #[inline]
    pub fn backward(&self, s: &Scratch, target: &[f32], g2: &mut [f32], dh: &mut [f32]) {
        let h = self.hidden;
        let n = self.outputs;
        let hid = &s.hidden[..h];
        dh[..h].fill(0.0);
        for r in 0..n {
            let g = s.probs[r] - target[r];
            let row = &self.w2[r * h..][..h];
            let grow = &mut g2[r * h..][..h];
            for j in 0..h {
                grow[j] += g * hid[j];
                dh[j] += g * row[j];
            }
            g2[n * h + r] += g;
        }
        for j in 0..h {
            if hid[j] <= 0.0 {
                dh[j] = 0.0;
            }
        }
    }

    /// Subtracts `alpha` times the first-layer gradient `dh` of one position (its active
    /// inputs `x`).
    #[inline]
    pub fn step_first(&mut self, x: &Features, dh: &[f32], alpha: f32) {
        let h = self.hidden;
        for (b, d) in self.b1.iter_mut().zip(dh) {
            *b -= alpha * d;
        }
        for &i in x.active() {
            let col = &mut self.w1[usize::from(i) * h..][..h];
            for (w, d) in col.iter_mut().zip(dh) {
                *w -= alpha * d;
            }
        }
    }

    /// Subtracts `alpha` times a second-layer gradient `g2` (as [`Weights::backward`] adds it).
    pub fn step_second(&mut self, g2: &[f32], alpha: f32) {
        let (w, b) = g2.split_at(self.w2.len());
        for (x, d) in self.w2.iter_mut().zip(w) {
            *x -= alpha * d;
        }
        for (x, d) in self.b2.iter_mut().zip(b) {
            *x -= alpha * d;
        }
    }

    /// The length of a second-layer gradient buffer.
    pub fn second_len(&self) -> usize {
        self.outputs * self.hidden + self.outputs
    }
}

/// A stable softmax of `logits` into `out`.
#[inline]
fn softmax(logits: &[f32], out: &mut [f32]) {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for (o, &l) in out.iter_mut().zip(logits) {
        *o = crate::math::exp(l - max);
        sum += *o;
    }
    let inv = 1.0 / sum;
    for o in out.iter_mut() {
        *o *= inv;
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    use super::*;
    use crate::td::encoding::Encoder;
    use aeroplane_core::{Game, Preset};
    use rand::RngExt;
    use rand_pcg::Pcg32;

    fn loss(w: &Weights, x: &Features, target: &[f32]) -> f64 {
        let mut s = Scratch::default();
        w.forward(x, &mut s);
        -target
            .iter()
            .zip(&s.probs)
            .map(|(t, p)| f64::from(*t) * f64::from(*p).ln())
            .sum::<f64>()
    }

    /// Every gradient of the backward pass against central differences of the loss.
    #[test]
    fn backward_agrees_with_finite_differences() {
        for players in [2, 3, 4] {
            let rules = Preset::Classic.rules();
            let enc = Encoder::new(&rules, players);
            let mut rng = Pcg32::new(7, players as u64);
            let mut w =
                Weights::random(enc.inputs(), 12, players, || rng.random_range(-1.0f32..1.0));
            // Biases away from 0 so that most hidden units are active.
            for (j, b) in w.b1.iter_mut().enumerate() {
                *b = 0.5 + 0.01 * j as f32;
            }
            let mut game = Game::new(rules, players).unwrap();
            let mut r = Pcg32::new(3, 9);
            for _ in 0..40 {
                let roll = r.random_range(1..=6u8);
                let m = game.legal_moves(roll);
                let c = (!m.is_empty()).then(|| m[0]);
                game.apply(roll, c);
            }
            let mut x = Features::default();
            enc.encode(&game, game.seats()[1], &mut x);
            let target: Vec<f32> = (0..players).map(|r| (r + 1) as f32).collect();
            let total: f32 = target.iter().sum();
            let target: Vec<f32> = target.iter().map(|t| t / total).collect();
            let mut s = Scratch::default();
            w.forward(&x, &mut s);
            let mut g2 = vec![0.0; w.second_len()];
            let mut dh = vec![0.0; w.hidden];
            w.backward(&s, &target, &mut g2, &mut dh);
            let eps = 1e-2f32;
            let close = |analytic: f32, numeric: f64, what: &str| {
                assert!(
                    (f64::from(analytic) - numeric).abs() < 2e-3 + 2e-2 * numeric.abs(),
                    "{players} players, {what}: backward {analytic}, finite differences {numeric}"
                );
            };
            let h = w.hidden;
            for k in 0..w.w2.len() {
                let mut a = w.clone();
                a.w2[k] += eps;
                let mut b = w.clone();
                b.w2[k] -= eps;
                let fd = (loss(&a, &x, &target) - loss(&b, &x, &target)) / f64::from(2.0 * eps);
                close(g2[k], fd, &format!("w2[{k}]"));
            }
            for r in 0..players {
                let mut a = w.clone();
                a.b2[r] += eps;
                let mut b = w.clone();
                b.b2[r] -= eps;
                let fd = (loss(&a, &x, &target) - loss(&b, &x, &target)) / f64::from(2.0 * eps);
                close(g2[players * h + r], fd, &format!("b2[{r}]"));
            }
            for &i in x.active() {
                for j in 0..h {
                    // A unit near its kink (or off) has no finite difference to compare
                    // with: an off unit passes no gradient.
                    if s.hidden[j] < 0.1 {
                        if s.hidden[j] == 0.0 {
                            assert_eq!(dh[j], 0.0, "an off unit passes no gradient");
                        }
                        continue;
                    }
                    let k = usize::from(i) * h + j;
                    let mut a = w.clone();
                    a.w1[k] += eps;
                    let mut b = w.clone();
                    b.w1[k] -= eps;
                    let fd = (loss(&a, &x, &target) - loss(&b, &x, &target)) / f64::from(2.0 * eps);
                    close(dh[j], fd, &format!("w1[{i}, {j}]"));
                }
            }
            for j in (0..h).filter(|&j| s.hidden[j] >= 0.1) {
                let mut a = w.clone();
                a.b1[j] += eps;
                let mut b = w.clone();
                b.b1[j] -= eps;
                let fd = (loss(&a, &x, &target) - loss(&b, &x, &target)) / f64::from(2.0 * eps);
                close(dh[j], fd, &format!("b1[{j}]"));
            }
            // A step against the gradient lowers the loss.
            let before = loss(&w, &x, &target);
            let mut stepped = w.clone();
            stepped.step_second(&g2, 0.05);
            stepped.step_first(&x, &dh, 0.05);
            assert!(loss(&stepped, &x, &target) < before);
        }
    }

    /// The inference path (blocks, AVX, the transposed second layer) gives the bits of the
    /// plain sums, for nets of any size over positions of random games.
    #[test]
    fn fast_value_is_the_plain_sums() {
        for (players, hidden) in [(2, 64), (3, 20), (4, 64), (2, 100), (4, 7)] {
            let rules = Preset::Chinese.rules();
            let enc = Encoder::new(&rules, players);
            let mut rng = Pcg32::new(11, hidden as u64);
            let mut w = Weights::random(enc.inputs(), hidden, players, || {
                rng.random_range(-1.0f32..1.0)
            });
            for b in w.b1.iter_mut().chain(w.b2.iter_mut()) {
                *b = rng.random_range(-0.5f32..0.5);
            }
            let t = w.transposed();
            let mut game = Game::new(rules, players).unwrap();
            let (mut x, mut s) = (Features::default(), Scratch::default());
            for _ in 0..300 {
                if game.is_over() {
                    break;
                }
                let seat = game.to_move();
                enc.encode(&game, seat, &mut x);
                // The definition: each sum in its order, one unit at a time.
                let mut hid = vec![0.0f32; hidden];
                for (j, a) in hid.iter_mut().enumerate() {
                    *a = w.b1[j];
                    for &i in x.active() {
                        *a += w.w1[usize::from(i) * hidden + j];
                    }
                    *a = a.max(0.0);
                }
                let logits: Vec<f32> = (0..players)
                    .map(|r| {
                        let mut l = w.b2[r];
                        for j in 0..hidden {
                            l += w.w2[r * hidden + j] * hid[j];
                        }
                        l
                    })
                    .collect();
                let mut probs = vec![0.0; players];
                softmax(&logits, &mut probs);
                let want = expected_return(&probs);
                let plain = w.value(&x, &mut s);
                assert_eq!(s.hidden[..hidden], hid[..]);
                assert_eq!(s.probs[..players], probs[..]);
                let fast = w.value_transposed(&t, &x, &mut s);
                assert_eq!(s.probs[..players], probs[..]);
                assert_eq!(
                    (plain.to_bits(), fast.to_bits()),
                    (want.to_bits(), want.to_bits())
                );
                let roll = rng.random_range(1..=6u8);
                let m = game.legal_moves(roll);
                let c = (!m.is_empty()).then(|| m[rng.random_range(0..m.len())]);
                game.apply(roll, c);
            }
        }
    }

    #[test]
    fn expected_return_is_the_state_api_payoff() {
        assert_eq!(expected_return(&[1.0, 0.0]), 1.0);
        assert_eq!(expected_return(&[0.0, 1.0]), -1.0);
        assert_eq!(expected_return(&[0.0, 1.0, 0.0, 0.0]), 1.0 / 3.0);
        assert!((expected_return(&[0.25; 4])).abs() < 1e-7);
    }
}
