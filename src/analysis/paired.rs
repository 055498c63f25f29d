//! Paired comparison of a metric between two variants played on the same seeds (common random
//! numbers): game `i` of variant A and game `i` of variant B share their dice, so the
//! per-seed differences cancel most of the dice noise.
//!
//! [`PairedSums`] compares an integer metric (turns, rolls, captures, ...): mean difference,
//! its standard error from the paired differences, a two-sided p-value and 95% interval from
//! Student's t with `n - 1` degrees of freedom (the normal above 100 000).
//! [`PairedIndicators`] compares a proportion (e.g. seat 0's win rate) McNemar-style, from the
//! discordant pairs only. Both are integer accumulators that merge exactly in any order.

use serde::Serialize;
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, StudentsT};

use super::{Z95, normal_two_sided_p};

/// Degrees of freedom above which the t distribution is replaced by the normal.
const NORMAL_DF: u64 = 100_000;

/// The result of a paired comparison of A against B.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PairedSummary {
    /// Pairs compared.
    pub n: u64,
    /// Mean of A.
    pub mean_a: f64,
    /// Mean of B.
    pub mean_b: f64,
    /// Mean difference A - B.
    pub diff: f64,
    /// Standard error of the mean difference.
    pub se: f64,
    /// The test statistic, `diff / se` (t, or z for proportions).
    pub statistic: f64,
    /// Two-sided p-value for "no difference".
    pub p_value: f64,
    /// Lower end of the 95% interval of the difference.
    pub low: f64,
    /// Upper end of the 95% interval of the difference.
    pub high: f64,
}

/// Exact sums for a paired comparison of an integer metric; exact while the sums fit in 128
/// bits (any game metric).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairedSums {
    n: u64,
    sum_a: i128,
    sum_b: i128,
    sum_d2: u128,
}

impl PairedSums {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one pair: the metric under A and under B for the same seed.
    pub fn add(&mut self, a: i64, b: i64) {
        let d = i128::from(a) - i128::from(b);
        self.n += 1;
        self.sum_a += i128::from(a);
        self.sum_b += i128::from(b);
        self.sum_d2 += d.unsigned_abs().pow(2);
    }

    /// Adds another accumulator's pairs.
    pub fn merge(&mut self, other: &PairedSums) {
        self.n += other.n;
        self.sum_a += other.sum_a;
        self.sum_b += other.sum_b;
        self.sum_d2 += other.sum_d2;
    }

    /// Pairs recorded.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The comparison; `None` with fewer than two pairs.
    pub fn summary(&self) -> Option<PairedSummary> {
        if self.n < 2 {
            return None;
        }
        let n = self.n as f64;
        let sum_d = self.sum_a - self.sum_b;
        // n * sum(d^2) - sum(d)^2, exactly when it fits.
        let spread = u128::from(self.n)
            .checked_mul(self.sum_d2)
            .zip(sum_d.unsigned_abs().checked_pow(2))
            .map(|(x, y)| (x - y) as f64)
            .unwrap_or_else(|| n * self.sum_d2 as f64 - (sum_d as f64).powi(2));
        let var = spread.max(0.0) / (n * (n - 1.0));
        let diff = sum_d as f64 / n;
        let se = (var / n).sqrt();
        let df = self.n - 1;
        let (statistic, p_value, half) = if se == 0.0 {
            // Every pair differs by the same amount: no noise at all.
            if diff == 0.0 {
                (0.0, 1.0, 0.0)
            } else {
                (diff.signum() * f64::INFINITY, 0.0, 0.0)
            }
        } else if df > NORMAL_DF {
            let z = diff / se;
            (z, normal_two_sided_p(z), Z95 * se)
        } else {
            let t = StudentsT::new(0.0, 1.0, df as f64).expect("df >= 1");
            let stat = diff / se;
            let p = (2.0 * t.cdf(-stat.abs())).min(1.0);
            (stat, p, t.inverse_cdf(0.975) * se)
        };
        Some(PairedSummary {
            n: self.n,
            mean_a: self.sum_a as f64 / n,
            mean_b: self.sum_b as f64 / n,
            diff,
            se,
            statistic,
            p_value,
            low: diff - half,
            high: diff + half,
        })
    }
}

/// Exact counts for a paired comparison of a proportion: how often the event happened under
/// both variants, only under A, only under B, or under neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairedIndicators {
    n: u64,
    both: u64,
    only_a: u64,
    only_b: u64,
}

/// The result of a paired comparison of two proportions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ProportionSummary {
    /// The difference of the rates: `mean_a`, `mean_b` are the rates, `diff = rate_a - rate_b`
    /// with its Wald standard error and interval; `statistic` is McNemar's
    /// `z = (only_a - only_b) / sqrt(only_a + only_b)` and `p_value` its two-sided normal
    /// p-value (McNemar's chi-square without continuity correction).
    pub test: PairedSummary,
    /// Pairs where only A had the event.
    pub only_a: u64,
    /// Pairs where only B had the event.
    pub only_b: u64,
    /// McNemar's exact (binomial) two-sided p-value, for few discordant pairs.
    pub p_exact: f64,
}

impl PairedIndicators {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one pair: whether the event happened under A and under B for the same seed.
    pub fn add(&mut self, a: bool, b: bool) {
        self.n += 1;
        match (a, b) {
            (true, true) => self.both += 1,
            (true, false) => self.only_a += 1,
            (false, true) => self.only_b += 1,
            (false, false) => {}
        }
    }

    /// Adds another accumulator's pairs.
    pub fn merge(&mut self, other: &PairedIndicators) {
        self.n += other.n;
        self.both += other.both;
        self.only_a += other.only_a;
        self.only_b += other.only_b;
    }

    /// Pairs recorded.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The comparison; `None` before any pair.
    pub fn summary(&self) -> Option<ProportionSummary> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let (b, c) = (self.only_a, self.only_b);
        let diff = (b as f64 - c as f64) / n;
        let discordant = b + c;
        let se = ((discordant as f64) - n * diff * diff).max(0.0).sqrt() / n;
        let (statistic, p_value, p_exact) = if discordant == 0 {
            (0.0, 1.0, 1.0)
        } else {
            let z = (b as f64 - c as f64) / (discordant as f64).sqrt();
            let bin = Binomial::new(0.5, discordant).expect("valid binomial");
            let exact = (2.0 * bin.cdf(b.min(c))).min(1.0);
            (z, normal_two_sided_p(z), exact)
        };
        Some(ProportionSummary {
            test: PairedSummary {
                n: self.n,
                mean_a: (self.both + b) as f64 / n,
                mean_b: (self.both + c) as f64 / n,
                diff,
                se,
                statistic,
                p_value,
                low: diff - Z95 * se,
                high: diff + Z95 * se,
            },
            only_a: b,
            only_b: c,
            p_exact,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn paired_t_matches_hand_values() {
        // Differences 1, 2, 3: mean 2, sd 1, se 1/sqrt(3), t = 2 sqrt(3) with 2 df.
        let mut s = PairedSums::new();
        for (a, b) in [(3, 2), (5, 3), (4, 1)] {
            s.add(a, b);
        }
        let r = s.summary().unwrap();
        assert_eq!(r.n, 3);
        close(r.mean_a, 4.0, 1e-15);
        close(r.mean_b, 2.0, 1e-15);
        close(r.diff, 2.0, 1e-15);
        close(r.se, 1.0 / 3f64.sqrt(), 1e-15);
        close(r.statistic, 2.0 * 3f64.sqrt(), 1e-12);
        close(r.p_value, 0.074_179_900_227_448_58, 1e-9);
        close(r.low, -0.484_137_711_750_330_3, 1e-7);
        close(r.high, 4.484_137_711_750_33, 1e-7);
    }

    #[test]
    fn large_samples_use_the_normal_and_merge_exactly() {
        let mut parts = [PairedSums::new(), PairedSums::new()];
        let mut all = PairedSums::new();
        for i in 0..200_001i64 {
            let (a, b) = (100 + i % 7, 100 + i % 5);
            parts[(i % 2) as usize].add(a, b);
            all.add(a, b);
        }
        let [mut x, y] = parts;
        x.merge(&y);
        assert_eq!(x, all);
        let r = all.summary().unwrap();
        close(r.p_value, normal_two_sided_p(r.statistic), 1e-15);
        close(r.high - r.diff, Z95 * r.se, 1e-12);
    }

    #[test]
    fn identical_variants_show_no_difference() {
        let mut s = PairedSums::new();
        for v in [10, 20, 30] {
            s.add(v, v);
        }
        let r = s.summary().unwrap();
        assert_eq!((r.diff, r.se, r.p_value), (0.0, 0.0, 1.0));
        assert!(PairedSums::new().summary().is_none());
        let mut shifted = PairedSums::new();
        for v in [10, 20, 30] {
            shifted.add(v + 1, v);
        }
        let r = shifted.summary().unwrap();
        assert_eq!((r.diff, r.se, r.p_value), (1.0, 0.0, 0.0));
        assert_eq!((r.statistic, r.low, r.high), (f64::INFINITY, 1.0, 1.0));
        // The same above the t range.
        let mut big = PairedSums::new();
        for _ in 0..200_002 {
            big.add(5, 5);
        }
        let r = big.summary().unwrap();
        assert_eq!(
            (r.statistic, r.p_value, r.low, r.high),
            (0.0, 1.0, 0.0, 0.0)
        );
    }

    #[test]
    fn mcnemar_matches_hand_values() {
        // 100 pairs: 15 only under A, 5 only under B, 30 under both.
        let mut s = PairedIndicators::new();
        for i in 0..100 {
            s.add(i < 45, (i < 30) || (45..50).contains(&i));
        }
        let r = s.summary().unwrap();
        assert_eq!((r.only_a, r.only_b), (15, 5));
        close(r.test.mean_a, 0.45, 1e-15);
        close(r.test.mean_b, 0.35, 1e-15);
        close(r.test.diff, 0.1, 1e-15);
        close(r.test.se, 19f64.sqrt() / 100.0, 1e-15);
        close(r.test.low, 0.014_567_150_584_105_89, 1e-12);
        close(r.test.high, 0.185_432_849_415_894_1, 1e-12);
        close(r.test.statistic, 10.0 / 20f64.sqrt(), 1e-12);
        close(r.test.p_value, 0.025_347_318_677_468_27, 1e-9);
        close(r.p_exact, 0.041_389_465_332_031_25, 1e-12);
    }

    #[test]
    fn proportions_without_discordant_pairs() {
        let mut s = PairedIndicators::new();
        s.add(true, true);
        s.add(false, false);
        let r = s.summary().unwrap();
        assert_eq!((r.test.diff, r.test.p_value, r.p_exact), (0.0, 1.0, 1.0));
        assert!(PairedIndicators::new().summary().is_none());
        let mut m = PairedIndicators::new();
        m.merge(&s);
        m.merge(&s);
        assert_eq!(m.n(), 4);
    }
}
