//! Confidence intervals and the test of equal seat win rates.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use super::PValue;

/// The two-sided normal quantile for a confidence level, e.g. 1.959964 for 0.95.
pub fn z_for(confidence: f64) -> f64 {
    Normal::standard().inverse_cdf(0.5 + confidence / 2.0)
}

/// The quantile of Student's t with `df` degrees of freedom at the confidence of the normal
/// quantile `z` (1.959964 gives t's 97.5% point): the multiplier of a cluster-robust interval
/// whose variance is estimated from `df + 1` clusters, which the normal quantile makes too
/// narrow at a few dozen clusters. `z` itself when `df` is below 1 or not a number.
pub fn t_for_z(z: f64, df: f64) -> f64 {
    if df.is_nan() || df < 1.0 {
        return z;
    }
    if df > 1e3 {
        // The Cornish-Fisher expansion in 1 / df (within a few 1e-9 here; the numerical
        // inverse is very slow for huge df).
        let (z3, z5) = (z.powi(3), z.powi(5));
        return z + (z3 + z) / (4.0 * df) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df);
    }
    let upper = Normal::standard().cdf(z);
    StudentsT::new(0.0, 1.0, df).map_or(z, |t| t.inverse_cdf(upper))
}

/// The Wilson score interval for `successes` out of `n` trials (`n` may be an effective sample
/// size, see [`design_effect`]); an infinite `n` gives the point `[p, p]`. `None` when `n == 0`.
pub fn wilson(successes: u64, trials: u64, n_eff: f64, z: f64) -> Option<(f64, f64)> {
    if trials == 0 {
        return None;
    }
    Some(wilson_rate(successes as f64 / trials as f64, n_eff, z))
}

/// The Wilson score interval of a rate `p` in `[0, 1]` observed on `n` samples (any positive
/// `n`; an infinite `n` gives `[p, p]`). At `p` of 0 or 1 the bound is exactly 0 or 1.
pub fn wilson_rate(p: f64, n: f64, z: f64) -> (f64, f64) {
    if n.is_infinite() {
        return (p, p);
    }
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt() / denom;
    // At 0 or all successes the bound is exactly 0 or 1 (rounding would leave a speck).
    let lo = if p <= 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let hi = if p >= 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    (lo, hi)
}

/// The design effect (Kish) of counting wins in groups of `m` correlated games (the rotations
/// of one deal): the observed variance of the per-group win counts over its binomial value
/// `m p (1 - p)`. `groups` groups, `wins` = Σ y_g, `wins_sq` = Σ y_g². `None` when it cannot be
/// estimated: fewer than two groups, groups of one game, or no wins or only wins (p of 0 or 1,
/// where the binomial variance is 0); 0 when every group has the same count.
pub fn design_effect(groups: u64, m: u64, wins: u64, wins_sq: u64) -> Option<f64> {
    let total = groups * m;
    if groups < 2 || m < 2 || wins == 0 || wins >= total {
        return None;
    }
    let (g, m, w, q) = (
        u128::from(groups),
        u128::from(m),
        u128::from(wins),
        u128::from(wins_sq),
    );
    // s² / (m p (1-p)) with s² = (gQ - W²) / (g(g-1)) and m p (1-p) = W (gm - W) / (g² m).
    let num = (g * q - w * w) * g * m;
    let den = (g - 1) * w * (g * m - w);
    Some(num as f64 / den as f64)
}

/// Fewer deals than this are too few to trust an interval or a test: the design effect of
/// rotated runs is then a rough estimate, and the normal approximations behind every test are
/// poor. Reports say so.
pub const MIN_DEALS: u64 = 30;

/// How a win-rate interval was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// The Wilson score interval on the games (independent games: no rotation).
    Wilson,
    /// Rotated runs: the Wilson interval on the effective sample size `games / d` (Kish design
    /// effect `d` of the deal, the unit of randomisation): cluster-robust by deal.
    ClusterByDeal,
    /// Rotated runs whose design effect cannot be trusted (fewer than [`MIN_DEALS`] deals,
    /// `d = 0`, or no estimate of `d` at all because the bot or seat never won or always won)
    /// and whose cluster-robust interval is narrower than the Wilson interval on the number of
    /// deals: that Wilson interval (each deal one sample) is reported instead.
    WilsonOnDeals,
}

impl IntervalMethod {
    /// The value written in CSV columns (`interval_method`).
    pub fn name(self) -> &'static str {
        match self {
            IntervalMethod::Wilson => "wilson",
            IntervalMethod::ClusterByDeal => "cluster_by_deal",
            IntervalMethod::WilsonOnDeals => "wilson_on_deals",
        }
    }
}

/// A win rate's interval and how it was computed.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct RateInterval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// The method.
    pub method: IntervalMethod,
    /// The estimated design effect of the deal (rotated runs whose win counts allow an
    /// estimate: not with no wins or only wins).
    pub design_effect: Option<f64>,
}

/// The interval of a win rate: `wins` of `games` played in `deals` deals of `group_size`
/// games each; `wins_sq` = Σ over deals of (wins in the deal)². Without rotation
/// (`group_size == 1`) the Wilson interval on the games. With rotation, the cluster-robust
/// (Kish) Wilson interval on `games / d`. When `d` cannot be trusted (fewer than
/// [`MIN_DEALS`] informative deals: for pairs, those not split one win each; `d = 0`: every
/// deal alike, which would make the interval a point; or no estimate of `d` at all, with no
/// wins or only wins, where the plain Wilson interval on the games would pretend the games
/// were independent) the interval is never narrower than the Wilson interval on the number of
/// deals (each deal one sample). That floor is not applied to larger samples: `d` is at most
/// about `m`, so the
/// cluster-robust interval is nearly always the narrower one, and with enough deals it is the
/// right one (rotation genuinely cancels seat luck). `None` without games.
pub fn rate_interval(
    wins: u64,
    games: u64,
    deals: u64,
    group_size: u64,
    wins_sq: u64,
    z: f64,
) -> Option<RateInterval> {
    if group_size <= 1 {
        let (low, high) = wilson(wins, games, games as f64, z)?;
        return Some(RateInterval {
            low,
            high,
            method: IntervalMethod::Wilson,
            design_effect: None,
        });
    }
    let deff = design_effect(deals, group_size, wins, wins_sq);
    let n_eff = match deff {
        Some(d) if d > 0.0 => games as f64 / d,
        Some(_) => f64::INFINITY,
        None => games as f64,
    };
    let (klo, khi) = wilson(wins, games, n_eff, z)?;
    let (flo, fhi) = wilson(wins, games, deals as f64, z)?;
    let trusted = informative_deals(deals, group_size, wins, wins_sq) >= MIN_DEALS
        && deff.is_some_and(|d| d > 0.0);
    let (low, high, method) = if trusted || (klo <= flo && khi >= fhi) {
        (klo, khi, IntervalMethod::ClusterByDeal)
    } else {
        (klo.min(flo), khi.max(fhi), IntervalMethod::WilsonOnDeals)
    };
    Some(RateInterval {
        low,
        high,
        method,
        design_effect: deff,
    })
}

/// The deals from which the spread of a rotated win rate is estimated: for pairs (two games a
/// deal), those not split one win each, as a match score counts its pairs not scoring an even
/// 1/2 (a run of mostly split pairs has its variance estimated from a few pairs: issue 31,
/// item 13); for larger groups every deal (their counts give no such split). The number of
/// split pairs follows from the sums: with `n1` pairs won once and `n2` won twice,
/// `wins = n1 + 2 n2` and `wins_sq = n1 + 4 n2`, so `n1 = 2 wins - wins_sq`.
fn informative_deals(deals: u64, group_size: u64, wins: u64, wins_sq: u64) -> u64 {
    if group_size != 2 {
        return deals;
    }
    let split = (2 * wins).saturating_sub(wins_sq);
    deals.saturating_sub(split)
}

/// Clusters `(x, y)` (a deal's `x` decisions and its total `y`) summed as they come, in
/// constant memory: what the cluster-robust intervals of a ratio `Σ y / Σ x` need
/// ([`clustered_rate_of`], [`clustered_bounded_mean_of`]). The spread about the ratio,
/// `Σ (y - m x)²` with `m = Σ y / Σ x`, is updated at each cluster for the new ratio (the
/// stable one-pass update, as Welford's for a mean), so no cluster is kept; the same clusters
/// added in the same order give the same bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClusterSums {
    /// Clusters added.
    pub clusters: u64,
    /// Clusters with `x > 0`.
    pub informative: u64,
    /// `Σ x`.
    pub x: u64,
    /// `Σ y`.
    pub y: f64,
    /// `Σ x²`.
    pub xx: f64,
    /// `Σ (y - m x)²` for the current ratio `m`.
    pub ss: f64,
    /// `Σ x (y - m x)` for the current ratio `m`.
    pub cross: f64,
}

impl ClusterSums {
    /// The ratio `Σ y / Σ x` (0 before any trial).
    fn ratio(&self) -> f64 {
        if self.x == 0 {
            0.0
        } else {
            self.y / self.x as f64
        }
    }

    /// Adds the cluster `(x, y)`.
    pub fn add(&mut self, x: u64, y: f64) {
        let old = self.ratio();
        self.clusters += 1;
        self.informative += u64::from(x > 0);
        self.x += x;
        self.y += y;
        let new = self.ratio();
        let d = old - new;
        // Σ (y - new x)² = Σ (y - old x)² + 2 d Σ x (y - old x) + d² Σ x², likewise the cross.
        self.ss += 2.0 * d * self.cross + d * d * self.xx;
        self.cross += d * self.xx;
        let xf = x as f64;
        let r = y - new * xf;
        self.ss += r * r;
        self.cross += xf * r;
        self.xx += xf * xf;
    }

    /// `Σ (y - m x)²`, never below 0.
    pub fn spread(&self) -> f64 {
        self.ss.max(0.0)
    }
}

/// A rate `Σ y / Σ x` over clustered trials (a grade's errors per decision: `x` decisions and
/// `y` errors in each deal, the cluster) and its interval, the way [`rate_interval`] treats
/// rotated runs: the Wilson interval on the effective number of trials `Σ x / d`, where `d` is
/// the design effect of the clusters (the delta-method variance of the ratio over its binomial
/// value), with Student's t quantile on the informative clusters less one in place of `z`
/// ([`t_for_z`]: the normal quantile covered 0.943 at 30 to 50 deals), and, where `d` cannot be trusted (fewer than [`MIN_DEALS`] informative clusters,
/// those with `x > 0`; `d = 0`; no estimate of `d` because the rate is 0 or 1), never narrower
/// than the Wilson interval on the informative clusters, each one sample. The counts are
/// integers (`y <= x`). `None` when there are no trials at all (`Σ x = 0`).
pub fn clustered_rate(clusters: &[(u64, u64)], z: f64) -> Option<RateInterval> {
    let mut sums = ClusterSums::default();
    for &(x, y) in clusters {
        sums.add(x, y as f64);
    }
    clustered_rate_of(&sums, z)
}

/// [`clustered_rate`] of clusters summed as they came ([`ClusterSums`], whose `y` are the
/// integer successes): in constant memory, however many clusters.
pub fn clustered_rate_of(sums: &ClusterSums, z: f64) -> Option<RateInterval> {
    let trials = sums.x;
    if trials == 0 {
        return None;
    }
    let successes = sums.y as u64;
    let informative = sums.informative;
    let p = successes as f64 / trials as f64;
    let deff = if informative >= 2 && successes > 0 && successes < trials {
        let k = informative as f64;
        let ss = sums.spread();
        let t = trials as f64;
        let var = ss * k / (k - 1.0) / (t * t);
        Some(var / (p * (1.0 - p) / t))
    } else {
        None
    };
    let n_eff = match deff {
        Some(d) if d > 0.0 => trials as f64 / d,
        Some(_) => f64::INFINITY,
        None => trials as f64,
    };
    // The variance comes from the informative clusters: t's quantile on their number less one.
    let zt = t_for_z(z, informative as f64 - 1.0);
    let (klo, khi) = few_events(p, n_eff, zt, wilson_rate(p, n_eff, zt));
    let (flo, fhi) = few_events(
        p,
        informative as f64,
        z,
        wilson_rate(p, informative as f64, z),
    );
    let trusted = informative >= MIN_DEALS && deff.is_some_and(|d| d > 0.0);
    let (low, high, method) = if trusted || (klo <= flo && khi >= fhi) {
        (klo, khi, IntervalMethod::ClusterByDeal)
    } else {
        (klo.min(flo), khi.max(fhi), IntervalMethod::WilsonOnDeals)
    };
    Some(RateInterval {
        low,
        high,
        method,
        design_effect: deff,
    })
}

/// The Wilson interval `(lo, hi)` of a rate `p` on `n` samples, with the modification of Brown,
/// Cai and DasGupta (2001, section 4.1.1) for few successes or few failures: where `n p` (or
/// `n (1 - p)`) is from 0 to 3, the bound near 0 (near 1) is never above the Poisson bound
/// `Γ⁻¹(α/2; n p) / n`. The Wilson lower bound after one success is too high for rare events
/// (one error in 48 decisions excludes every rate below 0.0037), which costs a rare rate's
/// interval several points of coverage.
fn few_events(p: f64, n: f64, z: f64, (lo, hi): (f64, f64)) -> (f64, f64) {
    use statrs::distribution::Gamma;
    if !n.is_finite() || n <= 0.0 {
        return (lo, hi);
    }
    let alpha = 2.0 * (1.0 - Normal::standard().cdf(z));
    let poisson = |count: f64| {
        Gamma::new(count, 1.0)
            .map(|g| g.inverse_cdf(alpha / 2.0) / n)
            .unwrap_or(0.0)
    };
    let (x, f) = (p * n, (1.0 - p) * n);
    let lo = if x > 0.0 && x <= 3.0 {
        lo.min(poisson(x))
    } else {
        lo
    };
    let hi = if f > 0.0 && f <= 3.0 {
        hi.max(1.0 - poisson(f))
    } else {
        hi
    };
    (lo, hi)
}

/// A mean of a quantity bounded in `[0, bound]` over clustered trials (a grade's equity loss
/// per decision: `x` decisions and a total `y` in each cluster), with the delta-method interval
/// clustered by cluster (Student's t quantile on the informative clusters less one), and the same floor as [`clustered_rate`]: where the spread
/// cannot be trusted (fewer than [`MIN_DEALS`] informative clusters, or none at all: every
/// cluster alike, every value 0), never narrower than the Wilson interval of the mean over
/// `bound` on the informative clusters, times `bound`. That floor is sound for any variable
/// in `[0, bound]`: of all such variables with a given mean, the two-point one at 0 and
/// `bound` has the largest variance. Returns `(mean, low, high)`, `None` without trials.
pub fn clustered_bounded_mean(
    clusters: &[(u64, f64)],
    bound: f64,
    z: f64,
) -> Option<(f64, f64, f64)> {
    let mut sums = ClusterSums::default();
    for &(x, y) in clusters {
        sums.add(x, y);
    }
    clustered_bounded_mean_of(&sums, bound, z)
}

/// [`clustered_bounded_mean`] of clusters summed as they came ([`ClusterSums`]): in constant
/// memory, however many clusters.
pub fn clustered_bounded_mean_of(
    sums: &ClusterSums,
    bound: f64,
    z: f64,
) -> Option<(f64, f64, f64)> {
    let trials = sums.x;
    if trials == 0 {
        return None;
    }
    let t = trials as f64;
    let mean = sums.y / t;
    let informative = sums.informative;
    let k = informative as f64;
    let ss = sums.spread();
    let half = if informative >= 2 {
        t_for_z(z, k - 1.0) * (ss * k / (k - 1.0)).sqrt() / t
    } else {
        f64::NAN
    };
    let (lo, hi) = ((mean - half).max(0.0), (mean + half).min(bound));
    Some(floored(mean, (lo, hi), half, informative, bound, z))
}

/// `(mean, low, high)` with the interval `(lo, hi)` of a clustered mean in `[0, bound]` kept
/// only where its `spread` (half-width or variance) can be trusted (at least [`MIN_DEALS`]
/// informative clusters, spread above 0); else never narrower than Wilson's interval of
/// `mean / bound` on the informative clusters, which is all there is where `spread` is NaN.
fn floored(
    mean: f64,
    (lo, hi): (f64, f64),
    spread: f64,
    informative: u64,
    bound: f64,
    z: f64,
) -> (f64, f64, f64) {
    if informative >= MIN_DEALS && spread > 0.0 {
        return (mean, lo, hi);
    }
    let (flo, fhi) = wilson_rate((mean / bound).clamp(0.0, 1.0), informative as f64, z);
    let (flo, fhi) = (flo * bound, fhi * bound);
    if spread.is_nan() {
        return (mean, flo, fhi);
    }
    (mean, lo.min(flo), hi.max(fhi))
}

/// The 95% (at `z`) interval of a mean of rare, heavy-tailed, non-negative losses (a grade's
/// equity loss: a sum of a few errors of very different sizes): `mean` with estimated variance
/// `var`, and `allowance`, the size of one more error as it adds to the mean.
///
/// The interval is Fay and Feuer's gamma interval for a weighted sum of Poisson counts (1997,
/// *Statistics in Medicine* 16, 791-801), with a typical error size in place of their largest
/// weight: the lower bound is the `α/2` quantile of the gamma distribution of mean `mean` and
/// variance `var`, the upper bound the `1 - α/2` quantile of the gamma of mean `mean +
/// allowance` and variance `var + allowance²`. The gamma follows the right skew of such a sum
/// where the normal interval is symmetric, and the allowance is the rule of three's "one
/// more event": with no error seen the upper bound is `ln(1 / (α/2)) * allowance` (3.7 times
/// at 95%), and with a few small errors seen it still reaches the larger ones not seen. With
/// many errors (`mean` far above `allowance`, the shape large) it is the normal interval.
/// `(0, upper)` where `mean` or `var` is 0.
pub fn gamma_loss_interval(mean: f64, var: f64, allowance: f64, z: f64) -> (f64, f64) {
    use statrs::distribution::Gamma;
    let alpha = 2.0 * (1.0 - Normal::standard().cdf(z));
    // The quantile `q` of the gamma of mean `m` and variance `v`; the normal one where the
    // shape is so large that the gamma is normal to many digits (and its inverse slow).
    let quantile = |m: f64, v: f64, q: f64| -> f64 {
        if !(m > 0.0 && v > 0.0 && m.is_finite() && v.is_finite()) {
            return m.max(0.0);
        }
        let shape = m * m / v;
        if shape > 1e6 {
            let zq = Normal::standard().inverse_cdf(q);
            return (m + zq * v.sqrt()).max(0.0);
        }
        Gamma::new(shape, m / v).map_or(m, |g| g.inverse_cdf(q))
    };
    let low = quantile(mean, var, alpha / 2.0).min(mean);
    let a = allowance.max(0.0);
    let high = quantile(mean + a, var + a * a, 1.0 - alpha / 2.0).max(mean);
    (low, high)
}

/// [`clustered_bounded_mean`] for a mean of rare, heavy-tailed losses: the same clustered
/// variance (times `(t / z)²`, Student's t on the informative clusters less one) and the same
/// floor where the spread cannot be trusted, but the [`gamma_loss_interval`] with
/// `allowance` (one more error's size, in the units of `y`; spread over the trials) in place
/// of the symmetric interval. Returns `(mean, low, high)`, `None` without trials.
pub fn clustered_loss_mean(
    clusters: &[(u64, f64)],
    bound: f64,
    allowance: f64,
    z: f64,
) -> Option<(f64, f64, f64)> {
    let mut sums = ClusterSums::default();
    for &(x, y) in clusters {
        sums.add(x, y);
    }
    clustered_loss_mean_of(&sums, bound, allowance, z)
}

/// [`clustered_loss_mean`] from the clusters' running sums.
pub fn clustered_loss_mean_of(
    sums: &ClusterSums,
    bound: f64,
    allowance: f64,
    z: f64,
) -> Option<(f64, f64, f64)> {
    let trials = sums.x;
    if trials == 0 {
        return None;
    }
    let t = trials as f64;
    let mean = sums.y / t;
    let informative = sums.informative;
    let k = informative as f64;
    let ss = sums.spread();
    let var = if informative >= 2 {
        let q = t_for_z(z, k - 1.0) / z;
        q * q * ss * k / (k - 1.0) / (t * t)
    } else {
        f64::NAN
    };
    let (lo, hi) = gamma_loss_interval(mean, var, allowance / t, z);
    let (lo, hi) = (lo.max(0.0), hi.min(bound));
    Some(floored(mean, (lo, hi), var, informative, bound, z))
}

/// The result of the chi-square test that every seat wins equally often.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ChiSquare {
    /// The statistic (after any design-effect correction).
    pub statistic: f64,
    /// Degrees of freedom: seats - 1.
    pub df: u32,
    /// P-value: the chance of a statistic at least this large if all seats were equal.
    pub p_value: PValue,
}

/// Pearson's goodness-of-fit test of equal win counts across seats (every seat plays every
/// game, so each expects `Σ wins / seats`), with the statistic divided by `deff` (a first-order
/// Rao–Scott correction for correlated games; pass 1 for independent games). `None` with fewer
/// than two seats or no wins.
pub fn equal_rates(wins: &[u64], deff: f64) -> Option<ChiSquare> {
    let k = wins.len();
    let total: u64 = wins.iter().sum();
    if k < 2 || total == 0 {
        return None;
    }
    let expected = total as f64 / k as f64;
    let raw: f64 = wins
        .iter()
        .map(|&w| (w as f64 - expected).powi(2) / expected)
        .sum();
    let df = (k - 1) as u32;
    let statistic = if deff > 0.0 {
        raw / deff
    } else if raw > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    let p_value = PValue::chi_square(statistic, df);
    Some(ChiSquare {
        statistic,
        df,
        p_value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_is_the_familiar_constant() {
        assert!((z_for(0.95) - 1.959_963_985).abs() < 1e-6);
    }

    #[test]
    fn wilson_matches_a_worked_example() {
        // 81 of 263 at 95%: the interval is [0.2553, 0.3662] (Newcombe 1998, Wilson).
        let (lo, hi) = wilson(81, 263, 263.0, z_for(0.95)).unwrap();
        assert!((lo - 0.2553).abs() < 5e-4, "{lo}");
        assert!((hi - 0.3662).abs() < 5e-4, "{hi}");
        let (lo, hi) = wilson(0, 10, 10.0, z_for(0.95)).unwrap();
        assert_eq!(lo, 0.0);
        assert!(hi > 0.2 && hi < 0.35);
        assert_eq!(wilson(3, 4, f64::INFINITY, 2.0), Some((0.75, 0.75)));
        assert_eq!(wilson(0, 0, 0.0, 2.0), None);
    }

    #[test]
    fn design_effect_of_identical_groups_is_zero_and_of_binomial_like_groups_near_one() {
        // Every group of 4 has exactly one win: no spread at all.
        assert_eq!(design_effect(100, 4, 100, 100), Some(0.0));
        // Groups all-or-nothing: maximal correlation, deff = m.
        let d = design_effect(100, 4, 200, 50 * 16).unwrap();
        assert!((d - 4.0 * 100.0 / 99.0).abs() < 1e-9, "{d}");
        // No estimate: one group, no wins, only wins.
        assert_eq!(design_effect(1, 4, 2, 4), None);
        assert_eq!(design_effect(50, 4, 0, 0), None);
        assert_eq!(design_effect(50, 4, 200, 50 * 16), None);
    }

    #[test]
    fn chi_square_of_equal_and_unequal_counts() {
        let eq = equal_rates(&[250, 250, 250, 250], 1.0).unwrap();
        assert_eq!((eq.statistic, eq.df), (0.0, 3));
        assert!((eq.p_value.value() - 1.0).abs() < 1e-12);
        // (30-25)² / 25 * 2 = 2 with 1 df: p = 0.1573.
        let t = equal_rates(&[30, 20], 1.0).unwrap();
        assert!((t.statistic - 2.0).abs() < 1e-12);
        assert!(
            (t.p_value.value() - 0.157_299).abs() < 1e-5,
            "{:?}",
            t.p_value
        );
        let halved = equal_rates(&[30, 20], 2.0).unwrap();
        assert!((halved.statistic - 1.0).abs() < 1e-12);
        assert!(equal_rates(&[0, 0], 1.0).is_none());
    }

    #[test]
    fn rotated_intervals_floor_at_wilson_on_the_deals_where_d_is_not_trusted() {
        let z = z_for(0.95);
        // 4 deals of 2 rotations, one win in each deal: d = 0, which alone gives a point.
        let r = rate_interval(4, 8, 4, 2, 4, z).unwrap();
        assert_eq!(r.design_effect, Some(0.0));
        assert_eq!(r.method, IntervalMethod::WilsonOnDeals);
        assert_eq!((r.low, r.high), wilson(4, 8, 4.0, z).unwrap());
        assert!(r.high - r.low > 0.5, "{r:?}");
        // Enough deals and d > 0: the cluster-robust interval, even when it is the narrower.
        let r = rate_interval(300, 400, 200, 2, 100 * 4 + 100, z).unwrap();
        assert_eq!(r.method, IntervalMethod::ClusterByDeal);
        let d = r.design_effect.unwrap();
        assert!(d > 0.0 && d < 1.0, "{d}");
        assert_eq!((r.low, r.high), wilson(300, 400, 400.0 / d, z).unwrap());
        // Every deal alike (d = 0) with many deals: still the floor, not a point.
        let r = rate_interval(100, 400, 100, 4, 100, z).unwrap();
        assert_eq!(r.method, IntervalMethod::WilsonOnDeals);
        assert_eq!((r.low, r.high), wilson(100, 400, 100.0, z).unwrap());
        // All-or-nothing deals (d > m): the cluster-robust interval is the wider one.
        let r = rate_interval(200, 400, 100, 4, 50 * 16, z).unwrap();
        assert_eq!(r.method, IntervalMethod::ClusterByDeal);
        let (lo, hi) = wilson(200, 400, 400.0 / (4.0 * 100.0 / 99.0), z).unwrap();
        assert_eq!((r.low, r.high), (lo, hi));
        // Without rotation: plain Wilson on the games.
        let r = rate_interval(81, 263, 263, 1, 81, z).unwrap();
        assert_eq!((r.low, r.high), wilson(81, 263, 263.0, z).unwrap());
        assert_eq!((r.method, r.design_effect), (IntervalMethod::Wilson, None));
    }

    /// Issue 22, item 1: a seat that never won (or always won) in 50 rotated deals has no
    /// estimate of its design effect; the interval is the Wilson interval on the deals, not the
    /// plain Wilson interval on the games that treating `d` as 1 gave ([0, 0.0188] for 0 of 200
    /// games in 50 deals, where Wilson on the deals is [0, 0.0713]).
    #[test]
    fn no_wins_or_only_wins_floor_at_wilson_on_the_deals_at_any_sample_size() {
        let z = z_for(0.95);
        let r = rate_interval(0, 200, 50, 4, 0, z).unwrap();
        assert_eq!(r.method, IntervalMethod::WilsonOnDeals);
        assert_eq!(r.design_effect, None);
        assert_eq!((r.low, r.high), wilson(0, 200, 50.0, z).unwrap());
        assert!((r.high - 0.0713).abs() < 5e-4, "{r:?}");
        let all = rate_interval(200, 200, 50, 4, 50 * 16, z).unwrap();
        assert_eq!(all.method, IntervalMethod::WilsonOnDeals);
        assert_eq!((all.low, all.high), wilson(200, 200, 50.0, z).unwrap());
        // Ten thousand deals: still the floor, never the games' interval.
        let big = rate_interval(0, 40_000, 10_000, 4, 0, z).unwrap();
        assert_eq!((big.low, big.high), wilson(0, 40_000, 10_000.0, z).unwrap());
    }

    /// Issue 31, item 11: a grade's rates over decisions never collapse to a point; 0 errors
    /// in 20 decisions is not [0, 0].
    /// Issue 48, item 5: the one-pass sums give the two-pass spread about the ratio (to the
    /// rounding), so a grade need not keep its deals.
    #[test]
    fn cluster_sums_give_the_two_pass_spread() {
        let mut h = 0x9e37_79b9_7f4a_7c15u64;
        let mut clusters = Vec::new();
        for _ in 0..5000 {
            h = h
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = h >> 59;
            let y = if x == 0 {
                0.0
            } else {
                ((h >> 20) % 1000) as f64 / 1000.0 * x as f64 * 0.3
            };
            clusters.push((x, y));
        }
        let mut sums = ClusterSums::default();
        clusters.iter().for_each(|&(x, y)| sums.add(x, y));
        let t: u64 = clusters.iter().map(|c| c.0).sum();
        let m = clusters.iter().map(|c| c.1).sum::<f64>() / t as f64;
        let ss: f64 = clusters
            .iter()
            .map(|&(x, y)| (y - m * x as f64).powi(2))
            .sum();
        assert_eq!(sums.x, t);
        assert_eq!(sums.clusters, 5000);
        assert_eq!(
            sums.informative,
            clusters.iter().filter(|c| c.0 > 0).count() as u64
        );
        assert!(
            (sums.spread() - ss).abs() <= 1e-11 * ss,
            "{} {ss}",
            sums.spread()
        );
        // Equal clusters have no spread.
        let mut equal = ClusterSums::default();
        (0..100).for_each(|_| equal.add(4, 0.0));
        assert_eq!(equal.spread(), 0.0);
    }

    #[test]
    fn clustered_rates_floor_at_wilson_on_the_informative_clusters() {
        let z = z_for(0.95);
        // 0 errors in 20 decisions over 10 deals (and 5 deals without a decision).
        let mut deals = vec![(2u64, 0u64); 10];
        deals.extend([(0, 0); 5]);
        let r = clustered_rate(&deals, z).unwrap();
        assert_eq!((r.low, r.method), (0.0, IntervalMethod::WilsonOnDeals));
        assert_eq!(r.high, wilson_rate(0.0, 10.0, z).1);
        assert!(r.high > 0.16, "{r:?}");
        // 2 of 18, few deals: never narrower than Wilson on the deals.
        let deals = [
            (2, 1),
            (2, 0),
            (2, 1),
            (2, 0),
            (2, 0),
            (2, 0),
            (2, 0),
            (2, 0),
            (2, 0),
        ];
        let r = clustered_rate(&deals, z).unwrap();
        let (flo, fhi) = wilson_rate(2.0 / 18.0, 9.0, z);
        assert!(r.low <= flo && r.high >= fhi && r.low > 0.0, "{r:?}");
        // Many informative deals with spread: the Kish interval, inside [0, 1].
        let deals: Vec<(u64, u64)> = (0..200).map(|i| (3, i % 3)).collect();
        let r = clustered_rate(&deals, z).unwrap();
        assert_eq!(r.method, IntervalMethod::ClusterByDeal);
        assert!(0.0 < r.low && r.low < 1.0 / 3.0 && 1.0 / 3.0 < r.high && r.high < 1.0);
        // No decisions at all: no rate.
        assert_eq!(clustered_rate(&[(0, 0); 4], z), None);
        // Bounded means: every loss 0 over few deals is not [0, 0].
        let (m, lo, hi) = clustered_bounded_mean(&[(2, 0.0); 10], 2.0, z).unwrap();
        assert_eq!((m, lo), (0.0, 0.0));
        assert!((hi - 2.0 * wilson_rate(0.0, 10.0, z).1).abs() < 1e-12);
        // Enough deals with spread: the delta-method interval.
        let deals: Vec<(u64, f64)> = (0..100).map(|i| (2, (i % 4) as f64 * 0.01)).collect();
        let (m, lo, hi) = clustered_bounded_mean(&deals, 2.0, z).unwrap();
        assert!(lo < m && m < hi && hi < 0.02, "{m} {lo} {hi}");
    }

    /// Issue 31, item 13: a rotated two-player win rate trusts its design effect from 30
    /// informative pairs (not split one win each), not 30 pairs: 50 pairs of which 47 are split
    /// keep the Wilson floor on the pairs (the Kish interval on three informative pairs was
    /// far too narrow); 50 pairs of which 30 are won twice or lost twice are trusted.
    #[test]
    fn pairs_trust_the_design_effect_from_thirty_informative_pairs() {
        let z = z_for(0.95);
        // 47 pairs split (1 win), 2 won twice, 1 lost twice: wins 51, wins_sq 47 + 8.
        assert_eq!(informative_deals(50, 2, 51, 55), 3);
        let r = rate_interval(51, 100, 50, 2, 55, z).unwrap();
        assert_eq!(r.method, IntervalMethod::WilsonOnDeals, "{r:?}");
        assert_eq!((r.low, r.high), wilson(51, 100, 50.0, z).unwrap());
        // 20 split, 15 won twice, 15 lost twice: wins 50, wins_sq 20 + 60.
        assert_eq!(informative_deals(50, 2, 50, 80), 30);
        let r = rate_interval(50, 100, 50, 2, 80, z).unwrap();
        assert_eq!(r.method, IntervalMethod::ClusterByDeal, "{r:?}");
        // Larger groups count every deal.
        assert_eq!(informative_deals(50, 4, 100, 250), 50);
    }

    /// Issue 31, item 11: the cluster-robust grade intervals use t's quantile on the
    /// informative clusters less one (the normal quantile covered 0.943 at 30 to 50 deals).
    #[test]
    fn clustered_intervals_use_t_on_the_informative_clusters() {
        let z = z_for(0.95);
        assert!((t_for_z(z, 29.0) - 2.045_230).abs() < 1e-5);
        assert!((t_for_z(z, 1e9) - z).abs() < 1e-8);
        // Either side of the switch to the expansion.
        let (a, b) = (t_for_z(z, 1e3), t_for_z(z, 1.000_01e3));
        // t itself falls by about 2.4e-8 over that step.
        assert!((a - b - 2.4e-8).abs() < 5e-9, "{a} {b}");
        assert_eq!(t_for_z(z, 0.0), z);
        // 40 deals of 5 decisions, errors 0..=4 in turn: the interval is Wilson on the
        // effective decisions at t(39), wider than at z.
        let deals: Vec<(u64, u64)> = (0..40).map(|i| (5, i % 5)).collect();
        let r = clustered_rate(&deals, z).unwrap();
        assert_eq!(r.method, IntervalMethod::ClusterByDeal);
        let n_eff = 200.0 / r.design_effect.unwrap();
        let (lo, hi) = wilson_rate(0.4, n_eff, t_for_z(z, 39.0));
        assert!(
            (r.low - lo).abs() < 1e-12 && (r.high - hi).abs() < 1e-12,
            "{r:?}"
        );
        let (zlo, zhi) = wilson_rate(0.4, n_eff, z);
        assert!(r.low < zlo && r.high > zhi);
        // The bounded mean likewise.
        let deals: Vec<(u64, f64)> = (0..40).map(|i| (2, (i % 4) as f64 * 0.01)).collect();
        let (m, lo, hi) = clustered_bounded_mean(&deals, 2.0, z).unwrap();
        let ss: f64 = deals.iter().map(|&(x, y)| (y - m * x as f64).powi(2)).sum();
        let half = t_for_z(z, 39.0) * (ss * 40.0 / 39.0).sqrt() / 80.0;
        assert!((lo - (m - half)).abs() < 1e-12 && (hi - (m + half)).abs() < 1e-12);
    }

    /// Issue 48, item 10: two errors of 3.7 mp in 144 decisions over 300 deals (greedy on
    /// appfreegame with one plane and the flight optional, seed 510002), decisions risking
    /// 195 mp on average: the normal interval, 0.05 [0.00, 0.13], excludes the truth (0.34);
    /// the gamma interval with one more error of the typical stake holds it. Without any error
    /// the upper bound is ln(40) = 3.69 such errors (the rule of three at 95%, two-sided), and
    /// with many errors it is the normal interval.
    #[test]
    fn rare_heavy_losses_reach_the_errors_not_seen() {
        let z = z_for(0.95);
        let mut deals = vec![(0u64, 0.0f64); 300];
        for (d, c) in deals.iter_mut().enumerate().take(144) {
            c.0 = 1;
            if d == 7 || d == 90 {
                c.1 = 0.0037;
            }
        }
        let (m, lo, hi) = clustered_loss_mean(&deals, 2.0, 0.195, z).unwrap();
        assert!((m * 1000.0 - 0.0514).abs() < 1e-3, "{m}");
        assert!(lo > 0.0 && lo < m && hi * 1000.0 > 0.34, "[{lo}, {hi}]");
        let normal = clustered_bounded_mean(&deals, 2.0, z).unwrap();
        assert!(normal.2 * 1000.0 < 0.34, "{normal:?}");
        let (lo, hi) = gamma_loss_interval(0.0, 0.0, 1.0, z);
        assert_eq!(lo, 0.0);
        assert!((hi - 40f64.ln()).abs() < 1e-4, "{hi}");
        let (lo, hi) = gamma_loss_interval(1000.0, 4.0, 0.01, z);
        assert!(
            (lo - (1000.0 - 2.0 * z)).abs() < 0.02 && (hi - (1000.0 + 2.0 * z)).abs() < 0.02,
            "[{lo}, {hi}]"
        );
    }
}
