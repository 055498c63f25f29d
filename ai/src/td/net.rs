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

/// The largest magnitude any pre-activation of a net (a hidden unit's sum, an output's logit)
/// may reach, by the bound of [`Weights::check_magnitude`]: far above any trained net's, far
/// below where an `f32` sum overflows (3.4e38), so a forward pass never yields NaN.
pub const MAX_PRE_ACTIVATION: f64 = 1e12;

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
/// outputs side by side, zero beyond the outputs, the output biases, and each rank's
/// [`payoff`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Transposed {
    w2: Vec<[f32; 4]>,
    b2: [f32; 4],
    payoff: [f32; 4],
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
    /// Checks that no position can drive a pre-activation beyond [`MAX_PRE_ACTIVATION`]:
    /// hidden unit `j`'s sum is at most `|b1[j]| + MAX_ACTIVE * max_i |w1[i, j]|` in magnitude
    /// (at most [`MAX_ACTIVE`] inputs are on, each 1), output `r`'s logit at most `|b2[r]| +
    /// sum_j |w2[r, j]| * bound_j`. The error names the tensor (and unit) at fault. One pass
    /// over the weights, in `f64`.
    pub fn check_magnitude(&self) -> Result<(), String> {
        let h = self.hidden;
        let mut bound = vec![0.0f64; h];
        for (j, b) in bound.iter_mut().enumerate() {
            let widest = (0..self.inputs)
                .map(|i| f64::from(self.w1[i * h + j]).abs())
                .fold(0.0, f64::max);
            let (bias, weights) = (f64::from(self.b1[j]).abs(), MAX_ACTIVE as f64 * widest);
            *b = bias + weights;
            if b.is_nan() || *b > MAX_PRE_ACTIVATION {
                return Err(format!(
                    "its tensor `{}` can drive hidden unit {j}'s sum to {:.3e}: a net's sums are at most {MAX_PRE_ACTIVATION:e} in magnitude, so that no position makes its value overflow (docs/NET.md)",
                    if bias >= weights { "b1" } else { "w1" },
                    *b
                ));
            }
        }
        for r in 0..self.outputs {
            let bias = f64::from(self.b2[r]).abs();
            let weights: f64 = self.w2[r * h..][..h]
                .iter()
                .zip(&bound)
                .map(|(&w, &b)| f64::from(w).abs() * b)
                .sum();
            let total = bias + weights;
            if total.is_nan() || total > MAX_PRE_ACTIVATION {
                return Err(format!(
                    "its tensor `{}` can drive output {r}'s logit to {total:.3e}: a net's sums are at most {MAX_PRE_ACTIVATION:e} in magnitude, so that no position makes its value overflow (docs/NET.md)",
                    if bias >= weights { "b2" } else { "w2" },
                ));
            }
        }
        Ok(())
    }

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
        for (j, o) in (whole..h).zip(&mut out[whole..h]) {
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
    /// these weights): the same bits, faster.
    ///
    /// - The outputs' sums are computed side by side in one vector, each in hidden-unit order.
    /// - Only the hidden units that are on (positive) are added: a unit that is off adds
    ///   `w * 0 = ±0`, which leaves a sum unchanged but for the sign of a zero sum, and the
    ///   softmax maps `+0` and `-0` logits to the same probabilities.
    /// - The largest logit's exponential, `exp(0)`, is 1 without calling `exp`.
    #[inline]
    pub fn value_transposed(&self, t: &Transposed, x: &Features, s: &mut Scratch) -> f32 {
        let h = self.hidden;
        assert_eq!(
            t.w2.len(),
            h,
            "the transposed second layer of these weights"
        );
        let active = x.active();
        // Every active input's column is in the first layer (the unchecked reads rely on it).
        assert!(x.bound() <= self.inputs, "features of a larger encoding");
        #[cfg(target_arch = "x86_64")]
        let l = if std::arch::is_x86_feature_detected!("avx") {
            // SAFETY: the CPU has AVX (checked just above); the sizes are checked above.
            unsafe { self.inference_avx(t, active, s) }
        } else {
            self.inference_plain(t, active, s)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let l = self.inference_plain(t, active, s);
        match self.outputs {
            2 => outcome::<2>(&l, &t.payoff, &mut s.probs),
            3 => outcome::<3>(&l, &t.payoff, &mut s.probs),
            _ => outcome::<4>(&l, &t.payoff, &mut s.probs),
        }
    }

    /// The logits of [`Weights::value_transposed`], portably: the hidden layer in blocks of 16
    /// units, then the units that are on.
    fn inference_plain(&self, t: &Transposed, active: &[u16], s: &mut Scratch) -> [f32; 4] {
        let h = self.hidden;
        self.first_layer_blocks::<16>(active, &mut s.hidden[..h]);
        let mut l = t.b2;
        for (&a, w) in s.hidden[..h].iter().zip(&t.w2) {
            if a > 0.0 {
                for r in 0..4 {
                    l[r] += w[r] * a;
                }
            }
        }
        l
    }

    /// The logits of [`Weights::value_transposed`] with AVX: the hidden layer 64 units at a time
    /// in eight registers (then a block of 32 in four, if that many are left; each unit's sum in
    /// the order of [`Weights::first_layer`]), which units are on from the registers' sign
    /// masks, then the second layer over those units only, the outputs side by side in one
    /// register.
    ///
    /// # Safety
    /// The CPU has AVX; every active input is below `inputs`; `t` has `hidden` rows.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn inference_avx(&self, t: &Transposed, active: &[u16], s: &mut Scratch) -> [f32; 4] {
        use std::arch::x86_64::*;
        let h = self.hidden;
        // SAFETY: a 4-float array.
        let mut l = unsafe { _mm_loadu_ps(t.b2.as_ptr()) };
        let mut b = 0;
        while b + 64 <= h {
            // SAFETY: the caller's contract, and `b + 64 <= hidden`.
            l = unsafe { self.block_avx::<8>(t, active, s, b, l) };
            b += 64;
        }
        if b + 32 <= h {
            // SAFETY: the caller's contract, and `b + 32 <= hidden`.
            l = unsafe { self.block_avx::<4>(t, active, s, b, l) };
            b += 32;
        }
        let mut out = [0.0f32; 4];
        // SAFETY: a 4-float array.
        unsafe { _mm_storeu_ps(out.as_mut_ptr(), l) };
        for (j, o) in (b..h).zip(&mut s.hidden[b..h]) {
            let mut a = self.b1[j];
            for &i in active {
                a += self.w1[usize::from(i) * h + j];
            }
            *o = a.max(0.0);
            if *o > 0.0 {
                for (l, w) in out.iter_mut().zip(&t.w2[j]) {
                    *l += w * *o;
                }
            }
        }
        out
    }

    /// One block of `8 * R` hidden units from unit `b` for [`Weights::inference_avx`]: their
    /// sums in `R` registers, stored after ReLU into `s.hidden`, and the units that are on added
    /// to the logits `l` in unit order.
    ///
    /// # Safety
    /// The CPU has AVX; every active input is below `inputs`; `b + 8 * R <= hidden`; `t` has
    /// `hidden` rows.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    #[inline]
    unsafe fn block_avx<const R: usize>(
        &self,
        t: &Transposed,
        active: &[u16],
        s: &mut Scratch,
        b: usize,
        mut l: std::arch::x86_64::__m128,
    ) -> std::arch::x86_64::__m128 {
        use std::arch::x86_64::*;
        let h = self.hidden;
        let w1 = self.w1.as_ptr();
        let zero = _mm256_setzero_ps();
        // SAFETY (the loads and stores below): each reads or writes within a whole block of
        // `8 * R` floats (bounds-checked once) or, for the columns, within the first layer.
        let bias = &self.b1[b..b + 8 * R];
        let hidden = &mut s.hidden[b..b + 8 * R];
        let mut acc = [zero; R];
        for (r, a) in acc.iter_mut().enumerate() {
            *a = unsafe { _mm256_loadu_ps(bias.as_ptr().add(8 * r)) };
        }
        for &i in active {
            // `i < inputs` and `b + 8 * R <= hidden`: within the first layer.
            let col = unsafe { w1.add(usize::from(i) * h + b) };
            for (r, a) in acc.iter_mut().enumerate() {
                *a = _mm256_add_ps(*a, unsafe { _mm256_loadu_ps(col.add(8 * r)) });
            }
        }
        let mut on = 0u64;
        for (r, &a) in acc.iter().enumerate() {
            // `max(a, 0)`: 0 where `a` is not positive, as `f32::max(a, 0.0)` gives.
            let v = _mm256_max_ps(a, zero);
            unsafe { _mm256_storeu_ps(hidden.as_mut_ptr().add(8 * r), v) };
            let gt = _mm256_cmp_ps::<_CMP_GT_OQ>(v, zero);
            on |= u64::from(_mm256_movemask_ps(gt) as u8) << (8 * r);
        }
        let w2 = &t.w2[b..b + 8 * R];
        while on != 0 {
            let j = on.trailing_zeros() as usize;
            on &= on - 1;
            // `j < 8 * R`: within the block.
            let (a, w) = unsafe { (*hidden.get_unchecked(j), w2.get_unchecked(j)) };
            let w = unsafe { _mm_loadu_ps(w.as_ptr()) };
            l = _mm_add_ps(l, _mm_mul_ps(w, _mm_set1_ps(a)));
        }
        l
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
            payoff: std::array::from_fn(|r| if r < n { payoff(r, n) } else { 0.0 }),
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

/// The rank probabilities (into `probs`) and the expected return of the first `N` logits `l`
/// (`N` = the outputs, 2 to 4), as [`softmax`] and [`expected_return`] compute them, bit for
/// bit: the same sums in the same order, and no call of `exp` where a logit minus the largest
/// is zero (the largest logit's), since `exp(±0)` is exactly 1.
#[inline(always)]
fn outcome<const N: usize>(l: &[f32; 4], payoff: &[f32; 4], probs: &mut [f32; 4]) -> f32 {
    let max = l[..N].iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if N == 2 {
        let (d0, d1) = (l[0] - max, l[1] - max);
        if d0 == 0.0 || d1 == 0.0 {
            // One call, the other's exponential 1, without a branch on which logit is the
            // larger (a coin flip to the branch predictor).
            let e = crate::math::exp(if d0 == 0.0 { d1 } else { d0 });
            let (e0, e1) = (
                if d0 == 0.0 { 1.0 } else { e },
                if d1 == 0.0 { 1.0 } else { e },
            );
            let inv = 1.0 / (0.0 + e0 + e1);
            probs[0] = e0 * inv;
            probs[1] = e1 * inv;
            return probs[..2]
                .iter()
                .zip(&payoff[..2])
                .map(|(p, w)| p * w)
                .sum();
        }
    }
    let mut sum = 0.0;
    for (o, &x) in probs[..N].iter_mut().zip(&l[..N]) {
        let d = x - max;
        // `black_box`: the compiler would otherwise call `exp` for every logit and select
        // (the exponential counts as free of side effects).
        *o = if d == 0.0 {
            1.0
        } else {
            crate::math::exp(std::hint::black_box(d))
        };
        sum += *o;
    }
    let inv = 1.0 / sum;
    for o in probs[..N].iter_mut() {
        *o *= inv;
    }
    probs[..N]
        .iter()
        .zip(&payoff[..N])
        .map(|(p, w)| p * w)
        .sum()
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
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};
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

    /// The definition of a net's pass, the slow way: each hidden unit's sum in its order (its
    /// bias, then the active inputs' weights in the encoding's order), every hidden unit in
    /// each output's sum (in unit order), the softmax with `exp` of every logit, and the
    /// expected return. Returns the hidden layer, the probabilities and the value.
    fn reference(w: &Weights, x: &Features) -> (Vec<f32>, Vec<f32>, f32) {
        let (hidden, players) = (w.hidden, w.outputs);
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
        let value = expected_return(&probs);
        (hid, probs, value)
    }

    /// Every way of computing a pass gives the reference's bits at `x`: the training pass
    /// (`forward`, `value`) its hidden layer, probabilities and value; the inference pass
    /// (`value_transposed`, with AVX where the CPU has it, and its portable path) its
    /// probabilities and value.
    fn assert_passes_agree(w: &Weights, t: &Transposed, x: &Features, what: &str) {
        let (hid, probs, want) = reference(w, x);
        let (h, n) = (w.hidden, w.outputs);
        let mut s = Scratch::default();
        let plain = w.value(x, &mut s);
        assert_eq!(
            s.hidden[..h],
            hid[..],
            "{what}: training pass, hidden layer"
        );
        assert_eq!(
            s.probs[..n],
            probs[..],
            "{what}: training pass, probabilities"
        );
        assert_eq!(
            plain.to_bits(),
            want.to_bits(),
            "{what}: training pass, value"
        );
        let fast = w.value_transposed(t, x, &mut s);
        assert_eq!(s.probs[..n], probs[..], "{what}: inference, probabilities");
        assert_eq!(fast.to_bits(), want.to_bits(), "{what}: inference, value");
        let mut s = Scratch::default();
        let l = w.inference_plain(t, x.active(), &mut s);
        let portable = match n {
            2 => outcome::<2>(&l, &t.payoff, &mut s.probs),
            3 => outcome::<3>(&l, &t.payoff, &mut s.probs),
            _ => outcome::<4>(&l, &t.payoff, &mut s.probs),
        };
        assert_eq!(
            s.probs[..n],
            probs[..],
            "{what}: portable inference, probabilities"
        );
        assert_eq!(
            portable.to_bits(),
            want.to_bits(),
            "{what}: portable inference, value"
        );
    }

    /// Plays `rolls` random rolls of a game of `rules` with `players` from `seed` (mostly
    /// captures when there are some) and calls `f` at every position, from every seat.
    fn for_positions(
        rules: aeroplane_core::Rules,
        players: usize,
        seed: u64,
        rolls: usize,
        mut f: impl FnMut(&Game, aeroplane_core::Seat),
    ) {
        let mut game = Game::new(rules, players).expect("a valid setup");
        let mut rng = Pcg32::new(seed, 31);
        for _ in 0..rolls {
            for &seat in game.seats() {
                f(&game, seat);
            }
            if game.is_over() {
                break;
            }
            let roll = rng.random_range(1..=6u8);
            let moves = game.legal_moves(roll);
            let pick = moves
                .iter()
                .position(|m| m.captured() != 0 && rng.random_range(0..3) > 0)
                .or_else(|| (!moves.is_empty()).then(|| rng.random_range(0..moves.len())));
            game.apply(roll, pick.map(|k| moves[k]));
        }
    }

    /// The inference path (blocks, AVX, the transposed second layer) gives the bits of the
    /// plain sums, for nets of any size over positions of random games.
    #[test]
    fn fast_value_is_the_plain_sums() {
        for (players, hidden) in [(2, 64), (3, 20), (4, 64), (2, 100), (4, 7), (3, 130)] {
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
            let mut x = Features::default();
            for_positions(rules, players, hidden as u64, 300, |game, seat| {
                enc.encode(game, seat, &mut x);
                assert_passes_agree(&w, &t, &x, &format!("{players} players, {hidden} units"));
            });
        }
    }

    /// The shipped nets (bots/nets, built in: [`crate::shipped::NETS`]): the inference pass
    /// gives the reference's bits at every position of random games of their rules and player
    /// counts, from every seat.
    #[test]
    fn shipped_nets_infer_the_reference() {
        let shipped = crate::shipped::NETS;
        for (name, bytes) in shipped {
            let net = crate::td::file::Net::from_bytes(bytes).expect("a shipped net reads");
            let (enc, w) = (net.encoder(), &net.weights);
            let t = w.transposed();
            let mut x = Features::default();
            for seed in 0..4 {
                for_positions(net.rules, net.players, seed, 400, |game, seat| {
                    enc.encode(game, seat, &mut x);
                    assert_passes_agree(w, &t, &x, name);
                });
            }
        }
    }

    /// A net whose hidden units are all off and whose output biases are zeros of both signs:
    /// the inference pass skips every unit, so its logits keep the biases' signs where the
    /// reference's sums turn `-0` into `+0`; the probabilities and value are the same bits.
    #[test]
    fn signed_zero_logits_give_the_same_value() {
        for players in 2..=4 {
            let rules = Preset::AppFreeGame.rules();
            let enc = Encoder::new(&rules, players);
            let mut rng = Pcg32::new(5, players as u64);
            let mut w =
                Weights::random(enc.inputs(), 64, players, || rng.random_range(-1.0f32..1.0));
            w.b1.fill(-1000.0);
            for (r, b) in w.b2.iter_mut().enumerate() {
                *b = if r % 2 == 0 { -0.0 } else { 0.0 };
            }
            let t = w.transposed();
            let mut x = Features::default();
            for_positions(rules, players, 9, 50, |game, seat| {
                enc.encode(game, seat, &mut x);
                assert_passes_agree(&w, &t, &x, &format!("{players} players, all units off"));
                let mut s = Scratch::default();
                let v = w.value_transposed(&t, &x, &mut s);
                assert_eq!(s.probs[..players], vec![1.0 / players as f32; players][..]);
                assert_eq!(v.to_bits(), reference(&w, &x).2.to_bits());
            });
        }
    }

    proptest! {
        #![proptest_config(Config {
            cases: 64,
            rng_seed: RngSeed::Fixed(32),
            failure_persistence: None,
            ..Config::default()
        })]

        /// Nets of random sizes (hidden layers of 1 to 200 units, some not a multiple of the
        /// blocks) and weights (some exactly zero, so that sums and units are exactly 0) on
        /// rules of any variant and player count: the inference pass gives the reference's
        /// bits at every position of a random game, from every seat.
        #[test]
        fn inference_is_the_reference(
            rules in crate::td::encoding::tests::any_rules(),
            players in 2usize..=4,
            hidden in prop::sample::select(vec![1usize, 7, 16, 31, 32, 33, 63, 64, 65, 96, 100, 128, 200]),
            seed in any::<u64>(),
        ) {
            let enc = Encoder::new(&rules, players);
            let mut rng = Pcg32::new(seed, 32);
            let zeros = rng.random_range(0.0f32..0.5);
            let mut draw = || {
                if rng.random_range(0.0f32..1.0) < zeros {
                    0.0
                } else {
                    rng.random_range(-1.0f32..1.0)
                }
            };
            let mut w = Weights::random(enc.inputs(), hidden, players, &mut draw);
            for b in w.b1.iter_mut().chain(w.b2.iter_mut()) {
                *b = draw() * 0.5;
            }
            let t = w.transposed();
            let mut x = Features::default();
            for_positions(rules, players, seed, 200, |game, seat| {
                enc.encode(game, seat, &mut x);
                assert_passes_agree(&w, &t, &x, &format!("{players} players, {hidden} units"));
            });
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
