//! Paired comparison of a metric between two variants played on the same seeds (common random
//! numbers): game `i` of variant A and game `i` of variant B share their dice, so the
//! per-seed differences cancel most of the dice noise.
//!
//! [`PairedSums`] compares an integer metric (turns, rolls, captures, ...): mean difference,
//! its standard error from the paired differences, a two-sided p-value and 95% interval from
//! Student's t with `n - 1` degrees of freedom (the normal above 100 000).
//! [`PairedIndicators`] compares a proportion (e.g. seat 0's win rate) McNemar-style, from the
//! discordant pairs only, with Tango's score interval of the difference: the interval is the
//! set of differences the same test does not reject, so the interval excludes 0 exactly when
//! the test's p is below 0.05, and it never collapses to a point (with no discordant pair at
//! all it is `±z²/(n + z²)`). Both are integer accumulators that merge exactly in any order.
//!
//! **Clusters.** With seats rotated, the games of one deal share its dice and are not
//! independent pairs: the deal is the unit of randomisation. [`PairedSums::clustered`] and
//! [`PairedIndicators::clustered`] take whole deals ([`PairedSums::add_deal`]) and compare by
//! deal: the per-deal sums of the differences are the observations, so the standard errors are
//! cluster-robust (the paired t on deal totals; for proportions the clustered McNemar test of
//! Durkalski et al. (2003), `z = Σ D_g / sqrt(Σ D_g²)` over deals g, which is McNemar's test
//! when every deal is one game). The clustered McNemar test is McNemar's test on the
//! discordant counts divided by the design effect `d = Σ D_g² / (b + c)`, and the interval is
//! Tango's on the same divided counts, so test and interval agree. Where `d` cannot be trusted
//! (fewer than [`MIN_DEALS`] deals, or no discordant game) both use `d = m`, the games per
//! deal: each deal counts as one pair (`d` never exceeds `m`). With deals of one game both are
//! exactly the plain tests.

use serde::Serialize;
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, StudentsT};

use super::Z95;
use crate::stats::{MIN_DEALS, PValue};

/// Degrees of freedom above which the t distribution is replaced by the normal.
const NORMAL_DF: u64 = 100_000;

/// The result of a paired comparison of A against B.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PairedSummary {
    /// Pairs compared: deals (a deal of `group_size` games is one pair of clusters).
    pub n: u64,
    /// Games per deal (1 without rotation).
    pub group_size: u64,
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
    pub p_value: PValue,
    /// Lower end of the 95% interval of the difference.
    pub low: f64,
    /// Upper end of the 95% interval of the difference.
    pub high: f64,
}

/// Exact sums for a paired comparison of an integer metric; exact while the sums fit in 128
/// bits (any game metric).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairedSums {
    n: u64,
    group_size: u64,
    sum_a: i128,
    sum_b: i128,
    sum_d2: u128,
}

impl Default for PairedSums {
    fn default() -> Self {
        Self::new()
    }
}

impl PairedSums {
    /// An empty accumulator of independent pairs.
    pub fn new() -> Self {
        Self::clustered(1)
    }

    /// An empty accumulator of deals of `group_size` paired games each.
    pub fn clustered(group_size: u64) -> Self {
        PairedSums {
            n: 0,
            group_size: group_size.max(1),
            sum_a: 0,
            sum_b: 0,
            sum_d2: 0,
        }
    }

    /// Records one pair: the metric under A and under B for the same seed (deals of one game).
    pub fn add(&mut self, a: i64, b: i64) {
        self.add_deal(&[(a, b)]);
    }

    /// Records one deal: its games' metric under A and under B, game by game.
    pub fn add_deal(&mut self, games: &[(i64, i64)]) {
        debug_assert_eq!(games.len() as u64, self.group_size);
        let a: i128 = games.iter().map(|g| i128::from(g.0)).sum();
        let b: i128 = games.iter().map(|g| i128::from(g.1)).sum();
        self.n += 1;
        self.sum_a += a;
        self.sum_b += b;
        self.sum_d2 += (a - b).unsigned_abs().pow(2);
    }

    /// Adds another accumulator's pairs.
    ///
    /// # Panics
    /// If the group sizes differ.
    pub fn merge(&mut self, other: &PairedSums) {
        assert_eq!(self.group_size, other.group_size, "different group sizes");
        self.n += other.n;
        self.sum_a += other.sum_a;
        self.sum_b += other.sum_b;
        self.sum_d2 += other.sum_d2;
    }

    /// Pairs recorded.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The comparison per game (deal totals divided by the group size); `None` with fewer
    /// than two deals.
    pub fn summary(&self) -> Option<PairedSummary> {
        if self.n < 2 {
            return None;
        }
        let m = self.group_size as f64;
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
                (0.0, PValue::new(1.0), 0.0)
            } else {
                (diff.signum() * f64::INFINITY, PValue::new(0.0), 0.0)
            }
        } else if df > NORMAL_DF {
            let z = diff / se;
            (z, PValue::normal_two_sided(z), Z95 * se)
        } else {
            let t = StudentsT::new(0.0, 1.0, df as f64).expect("df >= 1");
            let stat = diff / se;
            let p = PValue::student_two_sided(stat, df as f64);
            (stat, p, t.inverse_cdf(0.975) * se)
        };
        Some(PairedSummary {
            n: self.n,
            group_size: self.group_size,
            mean_a: self.sum_a as f64 / n / m,
            mean_b: self.sum_b as f64 / n / m,
            diff: diff / m,
            se: se / m,
            statistic,
            p_value,
            low: (diff - half) / m,
            high: (diff + half) / m,
        })
    }
}

/// Exact counts for a paired comparison of a proportion: how often the event happened under
/// both variants, only under A, only under B, or under neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairedIndicators {
    n: u64,
    group_size: u64,
    both: u64,
    only_a: u64,
    only_b: u64,
    /// Σ over deals of D_g², D_g = (games where only A had it) - (only B) in deal g.
    sum_d2: u64,
}

/// The result of a paired comparison of two proportions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ProportionSummary {
    /// The difference of the rates: `mean_a`, `mean_b` are the rates, `diff = rate_a - rate_b`
    /// with Tango's score interval; `statistic` is McNemar's
    /// `z = (only_a - only_b) / sqrt(d (only_a + only_b))` (`d` the design effect, 1 for deals
    /// of one game) and `p_value` its two-sided normal p-value (McNemar's chi-square without
    /// continuity correction); `se` is the difference's standard error under "no difference",
    /// `sqrt(d (only_a + only_b)) / games`.
    pub test: PairedSummary,
    /// The design effect the test and interval divide the counts by: `Σ D_g² / (b + c)`, or
    /// the games per deal where that cannot be trusted (see `each_deal_one_pair`); 1 for deals
    /// of one game.
    pub design_effect: f64,
    /// The estimate of the design effect was not trusted (fewer than [`MIN_DEALS`] deals or no
    /// discordant game) and each deal counts as one pair.
    pub each_deal_one_pair: bool,
    /// Games where only A had the event.
    pub only_a: u64,
    /// Games where only B had the event.
    pub only_b: u64,
    /// McNemar's exact (binomial) two-sided p-value, for few discordant pairs; only for deals of
    /// one game (there is no exact form for clusters).
    pub p_exact: Option<f64>,
}

impl Default for PairedIndicators {
    fn default() -> Self {
        Self::new()
    }
}

impl PairedIndicators {
    /// An empty accumulator of independent pairs.
    pub fn new() -> Self {
        Self::clustered(1)
    }

    /// An empty accumulator of deals of `group_size` paired games each.
    pub fn clustered(group_size: u64) -> Self {
        PairedIndicators {
            n: 0,
            group_size: group_size.max(1),
            both: 0,
            only_a: 0,
            only_b: 0,
            sum_d2: 0,
        }
    }

    /// Records one pair: whether the event happened under A and under B for the same seed
    /// (deals of one game).
    pub fn add(&mut self, a: bool, b: bool) {
        self.add_deal(&[(a, b)]);
    }

    /// Records one deal: whether the event happened under A and under B, game by game.
    pub fn add_deal(&mut self, games: &[(bool, bool)]) {
        debug_assert_eq!(games.len() as u64, self.group_size);
        self.n += 1;
        let mut d = 0i64;
        for &(a, b) in games {
            match (a, b) {
                (true, true) => self.both += 1,
                (true, false) => {
                    self.only_a += 1;
                    d += 1;
                }
                (false, true) => {
                    self.only_b += 1;
                    d -= 1;
                }
                (false, false) => {}
            }
        }
        self.sum_d2 += d.unsigned_abs().pow(2);
    }

    /// Adds another accumulator's pairs.
    ///
    /// # Panics
    /// If the group sizes differ.
    pub fn merge(&mut self, other: &PairedIndicators) {
        assert_eq!(self.group_size, other.group_size, "different group sizes");
        self.n += other.n;
        self.both += other.both;
        self.only_a += other.only_a;
        self.only_b += other.only_b;
        self.sum_d2 += other.sum_d2;
    }

    /// Pairs recorded.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The comparison; `None` before any pair. `diff` is per game; the test is McNemar's on the
    /// discordant counts divided by the design effect (the clustered McNemar test
    /// `z = Σ D_g / sqrt(Σ D_g²)` when it is estimated; with one game per deal McNemar's
    /// `(b - c) / sqrt(b + c)`), and the interval Tango's score interval on the same counts, the
    /// differences that test does not reject.
    pub fn summary(&self) -> Option<ProportionSummary> {
        if self.n == 0 {
            return None;
        }
        let n = self.n as f64;
        let m = self.group_size as f64;
        let (b, c) = (self.only_a, self.only_b);
        let games = n * m;
        let diff = (b as f64 - c as f64) / games;
        let discordant = b + c;
        let trusted = self.group_size == 1 || (self.n >= MIN_DEALS && discordant > 0);
        let d = if self.group_size == 1 {
            1.0
        } else if trusted {
            self.sum_d2 as f64 / discordant as f64
        } else {
            m
        };
        let (bd, cd, nd) = (b as f64 / d, c as f64 / d, games / d);
        let (statistic, p_value) = if discordant == 0 {
            (0.0, PValue::new(1.0))
        } else {
            let z = (bd - cd) / (bd + cd).sqrt();
            (z, PValue::normal_two_sided(z))
        };
        let (low, high) = tango_interval(bd, cd, nd, Z95);
        let p_exact = (self.group_size == 1).then(|| {
            if discordant == 0 {
                1.0
            } else {
                let bin = Binomial::new(0.5, discordant).expect("valid binomial");
                (2.0 * bin.cdf(b.min(c))).min(1.0)
            }
        });
        Some(ProportionSummary {
            test: PairedSummary {
                n: self.n,
                group_size: self.group_size,
                mean_a: (self.both + b) as f64 / games,
                mean_b: (self.both + c) as f64 / games,
                diff,
                se: (d * discordant as f64).sqrt() / games,
                statistic,
                p_value,
                low,
                high,
            },
            design_effect: d,
            each_deal_one_pair: !trusted,
            only_a: b,
            only_b: c,
            p_exact,
        })
    }
}

/// Tango's (1998) score interval for the difference `δ = p_b - p_c` of paired proportions, from
/// `b` pairs where only the first had the event and `c` where only the second had it, of `n`
/// pairs (the counts may be fractional: divided by a design effect). It is the set of `δ0` the
/// score test `(b - c - n δ0) / sqrt(n (2 q + δ0 (1 - δ0)))` does not reject at `z`, `q` the
/// maximum-likelihood probability of "only the second" under `δ = δ0`; at `δ0 = 0` that test is
/// McNemar's, so the interval excludes 0 exactly when McNemar's p is below the level. With
/// `b = c = 0` it is `±z²/(n + z²)`.
pub fn tango_interval(b: f64, c: f64, n: f64, z: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (-1.0, 1.0);
    }
    let score = |d0: f64| -> f64 {
        let num = b - c - n * d0;
        // q solves 2n q² - B q - c d0 (1 - d0) = 0, the root in [0, 1].
        let s = n - b - c;
        let big_b = b * (1.0 - d0) + c * (1.0 - 3.0 * d0) - 2.0 * s * d0;
        let disc = (big_b * big_b + 8.0 * n * c * d0 * (1.0 - d0)).max(0.0);
        let q = ((big_b + disc.sqrt()) / (4.0 * n)).max(0.0);
        let var = n * (2.0 * q + d0 - d0 * d0);
        if var <= 0.0 {
            if num > 0.0 {
                f64::INFINITY
            } else if num < 0.0 {
                f64::NEG_INFINITY
            } else {
                0.0
            }
        } else {
            num / var.sqrt()
        }
    };
    let est = ((b - c) / n).clamp(-1.0, 1.0);
    // The statistic falls as d0 rises: bisect each side for where it crosses ±z.
    let bound = |mut inside: f64, mut outside: f64, limit: f64, crossed: &dyn Fn(f64) -> bool| {
        if !crossed(limit) {
            return limit;
        }
        for _ in 0..100 {
            let mid = 0.5 * (inside + outside);
            if crossed(mid) {
                outside = mid;
            } else {
                inside = mid;
            }
        }
        0.5 * (inside + outside)
    };
    let low = bound(est, -1.0, -1.0, &|d0| score(d0) >= z);
    let high = bound(est, 1.0, 1.0, &|d0| score(d0) <= -z);
    (low.min(est), high.max(est))
}

#[cfg(test)]
mod tests {
    use super::*;

    use rand::Rng;

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
        close(r.p_value.value(), 0.074_179_900_227_448_58, 1e-9);
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
        close(
            r.p_value.value(),
            crate::analysis::normal_two_sided_p(r.statistic),
            1e-15,
        );
        close(r.high - r.diff, Z95 * r.se, 1e-12);
    }

    #[test]
    fn identical_variants_show_no_difference() {
        let mut s = PairedSums::new();
        for v in [10, 20, 30] {
            s.add(v, v);
        }
        let r = s.summary().unwrap();
        assert_eq!((r.diff, r.se, r.p_value.value()), (0.0, 0.0, 1.0));
        assert!(PairedSums::new().summary().is_none());
        let mut shifted = PairedSums::new();
        for v in [10, 20, 30] {
            shifted.add(v + 1, v);
        }
        let r = shifted.summary().unwrap();
        assert_eq!((r.diff, r.se, r.p_value.value()), (1.0, 0.0, 0.0));
        assert_eq!((r.statistic, r.low, r.high), (f64::INFINITY, 1.0, 1.0));
        // The same above the t range.
        let mut big = PairedSums::new();
        for _ in 0..200_002 {
            big.add(5, 5);
        }
        let r = big.summary().unwrap();
        assert_eq!(
            (r.statistic, r.p_value.value(), r.low, r.high),
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
        close(r.test.se, 20f64.sqrt() / 100.0, 1e-15);
        // Tango's interval, checked against an independent script that maximises the
        // constrained likelihood numerically instead of using the closed form (to its precision,
        // about 1e-8).
        close(r.test.low, 0.013_446_762_493_994_27, 1e-7);
        close(r.test.high, 0.192_396_505_239_003_4, 1e-7);
        close(r.test.statistic, 10.0 / 20f64.sqrt(), 1e-12);
        close(r.test.p_value.value(), 0.025_347_318_677_468_27, 1e-9);
        close(r.p_exact.unwrap(), 0.041_389_465_332_031_25, 1e-12);
    }

    /// Issue 22, item 2: the interval and the test agree (the interval excludes 0 exactly when
    /// p < 0.05), and the interval never collapses to a point.
    #[test]
    fn the_interval_inverts_the_test_and_never_collapses() {
        let z = Z95;
        // No discordant pair among 10: ±z²/(n + z²), not [0, 0].
        let (lo, hi) = tango_interval(0.0, 0.0, 10.0, z);
        close(hi, z * z / (10.0 + z * z), 1e-9);
        close(lo, -hi, 1e-9);
        close(hi, 0.277_54, 1e-4);
        // Few pairs: the independent script's values.
        let (lo, hi) = tango_interval(2.0, 1.0, 10.0, z);
        close(lo, -0.280_052_855_128_785_75, 1e-7);
        close(hi, 0.453_544_332_973_217_06, 1e-7);
        // Every split of 40 discordant pairs: p < 0.05 exactly when 0 is outside.
        for b in 0..=40u64 {
            let mut s = PairedIndicators::new();
            for i in 0..200u64 {
                s.add(i < b, (b..40).contains(&i));
            }
            let r = s.summary().unwrap().test;
            let excluded = r.low > 0.0 || r.high < 0.0;
            assert_eq!(excluded, r.p_value.value() < 0.05, "b = {b}: {r:?}");
            assert!(r.low <= r.diff && r.diff <= r.high && r.high - r.low > 0.05);
        }
    }

    /// The clustered form: with deals of identical games (greedy x4 rotated, where a rule change
    /// flips whole deals), `d = m`, and the comparison equals the one over the deals.
    #[test]
    fn too_few_deals_count_each_deal_as_one_pair() {
        // 10 deals of 4 games, seat 0 won 3 deals under each rule, the same deals: nothing
        // discordant. The old interval was [0, 0].
        let mut s = PairedIndicators::clustered(4);
        for g in 0..10 {
            s.add_deal(&[(g < 3, g < 3); 4]);
        }
        let r = s.summary().unwrap();
        assert!(r.each_deal_one_pair);
        assert_eq!((r.design_effect, r.test.p_value.value()), (4.0, 1.0));
        let (lo, hi) = tango_interval(0.0, 0.0, 10.0, Z95);
        assert_eq!((r.test.low, r.test.high), (lo, hi));
        // 30 deals, one game of each deal discordant: the deals are trusted, d = 1.
        let mut s = PairedIndicators::clustered(4);
        for g in 0..30 {
            let a = g % 3 != 0;
            s.add_deal(&[(a, !a), (true, true), (false, false), (true, true)]);
        }
        let r = s.summary().unwrap();
        assert!(!r.each_deal_one_pair);
        close(r.design_effect, 1.0, 1e-15);
        close(r.test.statistic, 10.0 / 30f64.sqrt(), 1e-12);
    }

    /// Coverage of the 95% interval of a rotated comparison on simulated deals: the old Wald
    /// interval covered 0.87-0.89 at 10 deals and 0.92 at 30.
    #[test]
    fn clustered_intervals_cover_at_small_samples() {
        // Each deal is "sharp" (probability 1/2; every game: only A 0.2, only B 0.05) or
        // "flat" (only A 0.05, only B 0.05), 4 games per deal independent given the deal's
        // kind: true difference 0.5 * 0.15 = 0.075, games of a deal correlated.
        let truth = 0.075;
        for (deals, runs) in [(10u64, 2000u64), (30, 1000)] {
            let mut covered = 0;
            for run in 0..runs {
                let mut rng = aeroplane_core::stream(22, run, deals);
                let mut s = PairedIndicators::clustered(4);
                for _ in 0..deals {
                    let sharp = rng.next_u32() < u32::MAX / 2;
                    let (pa, pb) = if sharp { (0.2, 0.05) } else { (0.05, 0.05) };
                    let games: Vec<(bool, bool)> = (0..4)
                        .map(|_| {
                            let u = f64::from(rng.next_u32()) / f64::from(u32::MAX);
                            (u < pa, (pa..pa + pb).contains(&u))
                        })
                        .collect();
                    s.add_deal(&games);
                }
                let r = s.summary().unwrap().test;
                covered += u64::from(r.low <= truth && truth <= r.high);
            }
            let coverage = covered as f64 / runs as f64;
            assert!(coverage >= 0.93, "{deals} deals: coverage {coverage}");
        }
    }

    #[test]
    fn proportions_without_discordant_pairs() {
        let mut s = PairedIndicators::new();
        s.add(true, true);
        s.add(false, false);
        let r = s.summary().unwrap();
        assert_eq!(
            (r.test.diff, r.test.p_value.value(), r.p_exact),
            (0.0, 1.0, Some(1.0))
        );
        assert!(PairedIndicators::new().summary().is_none());
        let mut m = PairedIndicators::new();
        m.merge(&s);
        m.merge(&s);
        assert_eq!(m.n(), 4);
    }

    #[test]
    fn deals_of_identical_games_count_once() {
        // Each deal's 4 games are one game repeated: the clustered comparison must equal the
        // plain one over the deals (the same mean, the same standard error, the same test).
        let deals: Vec<(bool, bool, i64, i64)> = (0..400)
            .map(|i| (i % 3 == 0, i % 5 == 0, 100 + i % 7, 98 + i % 11))
            .collect();
        let (mut plain_p, mut plain_t) = (PairedIndicators::new(), PairedSums::new());
        let (mut all_p, mut all_t) = (PairedIndicators::new(), PairedSums::new());
        let (mut dp, mut dt) = (PairedIndicators::clustered(4), PairedSums::clustered(4));
        for &(a, b, x, y) in &deals {
            plain_p.add(a, b);
            plain_t.add(x, y);
            dp.add_deal(&[(a, b); 4]);
            dt.add_deal(&[(x, y); 4]);
            for _ in 0..4 {
                all_p.add(a, b);
                all_t.add(x, y);
            }
        }
        let (p, q, naive) = (
            plain_p.summary().unwrap(),
            dp.summary().unwrap(),
            all_p.summary().unwrap(),
        );
        close(q.test.diff, p.test.diff, 1e-15);
        close(q.test.se, p.test.se, 1e-15);
        close(q.test.p_value.value(), p.test.p_value.value(), 1e-12);
        assert_eq!((q.test.n, q.only_a, q.p_exact), (400, 4 * p.only_a, None));
        // Treating the 1600 games as independent pairs halves the standard error.
        close(naive.test.se * 2.0, q.test.se, 1e-12);
        let (p, q, naive) = (
            plain_t.summary().unwrap(),
            dt.summary().unwrap(),
            all_t.summary().unwrap(),
        );
        close(q.diff, p.diff, 1e-12);
        close(q.se, p.se, 1e-12);
        close(q.high - q.low, p.high - p.low, 1e-9);
        close(q.p_value.value(), p.p_value.value(), 1e-12);
        assert!(naive.se * 1.9 < q.se, "{} vs {}", naive.se, q.se);
    }
}
