//! The luck-adjusted SPRT (`run --sprt ... --luck NET`, docs/LUCK.md "SPRT").
//!
//! **Scores.** A group (a deal played once with bot A in every seat) gives bot A its plain score
//! `x` in `[0, 1]` (the share of [`super::sprt::Field`]: for two players the pair score of the
//! pentanomial, in general the mean over the group's games of `(1 + return) / 2`) and its net
//! luck `l` in the same units (the mean over the games of the seat's score luck,
//! [`super::luck`]). The adjusted score is `x - l`: every roll's luck has mean zero over the six
//! faces whatever the net, so `E[x - l] = E[x]` and the hypotheses keep their expected scores
//! `s0`, `s1` ([`super::sprt::Field::score`]); with a good net the variance is smaller.
//!
//! **LLR.** The adjusted scores are not on a lattice, so the multinomial GSPRT of
//! [`super::Sprt`] does not apply; the test is the generalized likelihood ratio of a normal model
//! with unknown variance, fitted under each hypothesis: with `N` groups, mean `mu` and
//! population variance `var` of the **adjusted** scores, the maximum-likelihood variance under
//! "mean = s" is `var + (mu - s)^2`, and
//!
//! ```text
//! LLR = N/2 ln( (var + (mu - s0)^2) / (var + (mu - s1)^2) )
//! ```
//!
//! For many groups this is the usual `N (s1 - s0) (2 mu - s0 - s1) / (2 var)`; for few groups it
//! is smaller in size (`ln(1 + u) <= u`), so the test does not stop on a lucky start with a
//! variance estimated from a handful of groups. It is 0 below two groups. Wald's bounds decide,
//! as for the plain test.
//!
//! ```
//! use aeroplane::analysis::sprt::Field;
//! use aeroplane::analysis::sprt_adjusted::AdjustedSprt;
//! use aeroplane::analysis::{SprtConfig, Verdict};
//! let config: SprtConfig = "elo0=0,elo1=20".parse().unwrap();
//! let mut test = AdjustedSprt::new(config, Field::HEAD_TO_HEAD);
//! test.add(1.0, 0.4); // won both games, helped by the dice
//! test.add(0.5, -0.1);
//! assert_eq!(test.status(), Verdict::Continue);
//! ```

use serde::Serialize;

use super::elo::EloEstimate;
use super::luck::Moments;
use super::sprt::{Field, SprtConfig, Verdict};
use super::{Z95, normal_cdf};

/// A luck-adjusted sequential test: sums of the plain and the adjusted group scores.
#[derive(Clone, Debug, PartialEq)]
pub struct AdjustedSprt {
    config: SprtConfig,
    field: Field,
    groups: u64,
    /// Σ (x - l), Σ (x - l)².
    sum: f64,
    sum_sq: f64,
    /// Σ x, Σ x².
    plain: f64,
    plain_sq: f64,
}

/// Everything reported about a luck-adjusted test.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdjustedSummary {
    /// Groups counted.
    pub groups: u64,
    /// The mean plain group score.
    pub plain_score: f64,
    /// The mean net luck per group, in score units.
    pub luck: f64,
    /// The mean adjusted group score, `plain_score - luck`.
    pub score: f64,
    /// The population variance of the plain group scores.
    pub plain_variance: f64,
    /// The population variance of the adjusted group scores (the one the LLR uses).
    pub variance: f64,
    /// `plain_variance / variance`: how many times as many groups the plain test needs for the
    /// same drift of its LLR (`None` when the adjusted variance is 0).
    pub variance_ratio: Option<f64>,
    /// The log-likelihood ratio of the adjusted scores.
    pub llr: f64,
    /// The H0 bound.
    pub lower: f64,
    /// The H1 bound.
    pub upper: f64,
    /// Where the test stands.
    pub verdict: Verdict,
    /// Bot A's Elo advantage from the adjusted score (normal 95% interval, mapped by the field).
    pub elo: EloEstimate,
    /// The likelihood that bot A is the stronger, `Phi((mu - 1/2) / sqrt(var / N))`.
    pub los: f64,
}

impl AdjustedSprt {
    /// An empty test.
    pub fn new(config: SprtConfig, field: Field) -> AdjustedSprt {
        AdjustedSprt {
            config,
            field,
            groups: 0,
            sum: 0.0,
            sum_sq: 0.0,
            plain: 0.0,
            plain_sq: 0.0,
        }
    }

    /// Records one group: bot A's plain score and its net luck, both in score units.
    pub fn add(&mut self, plain: f64, luck: f64) {
        let x = plain - luck;
        self.groups += 1;
        self.sum += x;
        self.sum_sq += x * x;
        self.plain += plain;
        self.plain_sq += plain * plain;
    }

    /// Records `deals` groups at once from bot A's per-deal score moments (a
    /// [`super::luck::LuckTally`]'s `score[0]`: sums over the deals of the deal's summed game
    /// scores `y` and luck `l`), bot A playing `games_per_deal` games per deal.
    pub fn add_moments(&mut self, m: &Moments, deals: u64, games_per_deal: u64) {
        let g = games_per_deal.max(1) as f64;
        self.groups += deals;
        self.sum += (m.y - m.l) / g;
        self.sum_sq += (m.yy - 2.0 * m.yl + m.ll) / (g * g);
        self.plain += m.y / g;
        self.plain_sq += m.yy / (g * g);
    }

    /// The test's parameters.
    pub fn config(&self) -> &SprtConfig {
        &self.config
    }

    /// Groups recorded.
    pub fn groups(&self) -> u64 {
        self.groups
    }

    fn moments(sum: f64, sum_sq: f64, n: u64) -> (f64, f64) {
        if n == 0 {
            return (f64::NAN, f64::NAN);
        }
        let n = n as f64;
        let mean = sum / n;
        (mean, (sum_sq / n - mean * mean).max(0.0))
    }

    /// Mean and population variance of the adjusted group scores (NaN before any group).
    pub fn adjusted(&self) -> (f64, f64) {
        Self::moments(self.sum, self.sum_sq, self.groups)
    }

    /// Mean and population variance of the plain group scores (NaN before any group).
    pub fn plain(&self) -> (f64, f64) {
        Self::moments(self.plain, self.plain_sq, self.groups)
    }

    /// The log-likelihood ratio (see the module docs; 0 below two groups).
    pub fn llr(&self) -> f64 {
        if self.groups < 2 {
            return 0.0;
        }
        let (mu, var) = self.adjusted();
        let s0 = self.field.score(self.config.elo0);
        let s1 = self.field.score(self.config.elo1);
        // A floor far below any real variance keeps a run of identical scores finite.
        let v = var.max(1e-12);
        0.5 * self.groups as f64 * ((v + (mu - s0).powi(2)) / (v + (mu - s1).powi(2))).ln()
    }

    /// Whether to continue, or which hypothesis to accept.
    pub fn status(&self) -> Verdict {
        let llr = self.llr();
        if llr >= self.config.upper() {
            Verdict::AcceptH1
        } else if llr <= self.config.lower() {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }

    /// Every reported figure.
    pub fn summary(&self) -> AdjustedSummary {
        let (mu, var) = self.adjusted();
        let (pmu, pvar) = self.plain();
        let n = self.groups as f64;
        let se = (var / n).sqrt();
        let map = |s: f64| self.field.elo(s.clamp(0.0, 1.0));
        let elo = if self.groups == 0 {
            EloEstimate {
                elo: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
            }
        } else {
            EloEstimate {
                elo: map(mu),
                low: map(mu - Z95 * se),
                high: map(mu + Z95 * se),
            }
        };
        let los = if self.groups == 0 || mu == 0.5 {
            0.5
        } else if se > 0.0 {
            normal_cdf((mu - 0.5) / se)
        } else if mu > 0.5 {
            1.0
        } else {
            0.0
        };
        AdjustedSummary {
            groups: self.groups,
            plain_score: pmu,
            luck: pmu - mu,
            score: mu,
            plain_variance: pvar,
            variance: var,
            variance_ratio: (var > 0.0).then(|| pvar / var),
            llr: self.llr(),
            lower: self.config.lower(),
            upper: self.config.upper(),
            verdict: self.status(),
            elo,
            los,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Sprt;
    use crate::analysis::score_from_elo;
    use rand::RngExt as _;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn llr_matches_hand_computation() {
        // Adjusted scores 0.4, 0.6, 0.8 (plain 0.5, 0.5, 1 with luck 0.1, -0.1, 0.2).
        let config: SprtConfig = "elo0=0,elo1=20".parse().unwrap();
        let mut t = AdjustedSprt::new(config, Field::HEAD_TO_HEAD);
        assert_eq!(t.llr(), 0.0);
        t.add(0.5, 0.1);
        assert_eq!(t.llr(), 0.0);
        t.add(0.5, -0.1);
        t.add(1.0, 0.2);
        let (mu, var) = t.adjusted();
        close(mu, 0.6, 1e-12);
        close(var, 0.08 / 3.0, 1e-12);
        let s1 = score_from_elo(20.0);
        let expected = 1.5 * ((var + 0.01) / (var + (0.6 - s1).powi(2))).ln();
        close(t.llr(), expected, 1e-12);
        // Evaluated independently (Python): 1.5 ln((v + 0.01) / (v + (0.6 - s1)^2)).
        close(t.llr(), 0.216_286_740_763, 1e-9);
        let s = t.summary();
        close(s.luck, 2.0 / 3.0 - 0.6, 1e-12);
        close(s.variance_ratio.unwrap(), (1.0 / 18.0) / (0.08 / 3.0), 1e-9);
    }

    #[test]
    fn moments_give_the_same_test_as_groups() {
        let config: SprtConfig = "elo0=0,elo1=10".parse().unwrap();
        let field = Field::new(4, false);
        let mut one = AdjustedSprt::new(config, field);
        let mut m = Moments::default();
        // Three deals of four games: summed game scores y and luck l per deal.
        for (y, l) in [(2.0, 0.3), (3.0, -0.2), (1.5, 0.1)] {
            one.add(y / 4.0, l / 4.0);
            m.y += y;
            m.l += l;
            m.yy += y * y;
            m.ll += l * l;
            m.yl += y * l;
        }
        let mut all = AdjustedSprt::new(config, field);
        all.add_moments(&m, 3, 4);
        close(one.llr(), all.llr(), 1e-12);
        assert_eq!(all.groups(), 3);
    }

    #[test]
    fn without_luck_it_is_near_the_plain_test() {
        // The same pair scores, no luck: the normal GLR is close to the multinomial GSPRT.
        let config: SprtConfig = "elo0=0,elo1=20".parse().unwrap();
        let mut plain = Sprt::new(config, 4);
        let mut adj = AdjustedSprt::new(config, Field::HEAD_TO_HEAD);
        for (k, c) in [(0u32, 30u64), (1, 80), (2, 200), (3, 110), (4, 60)] {
            plain.add_count(k, c);
            for _ in 0..c {
                adj.add(f64::from(k) / 4.0, 0.0);
            }
        }
        close(adj.llr(), plain.llr(), 0.02 * plain.llr().abs());
        close(adj.summary().variance_ratio.unwrap(), 1.0, 1e-9);
    }

    /// A synthetic match: per game a luck `u` uniform in ±0.3, bot A wins with probability
    /// `p + u`; a good net measures `u`, a bad one an independent uniform of the same size
    /// (mean zero, useless). Pairs of two games, `elo0 = 0`, `elo1 = 40`, alpha = beta = 0.1.
    fn simulate(elo: f64, good: bool, runs: u64) -> (u32, u32, f64) {
        let config = SprtConfig::new(0.0, 40.0, 0.1, 0.1).unwrap();
        let p = score_from_elo(elo);
        let (mut h0, mut h1, mut groups) = (0, 0, 0u64);
        for run in 0..runs {
            let mut rng = aeroplane_core::stream(7, run, u64::from(good) + 2 * elo as u64);
            let mut t = AdjustedSprt::new(config, Field::HEAD_TO_HEAD);
            while t.status() == Verdict::Continue {
                // Checked every 8 pairs, as a run checks after every unit.
                for _ in 0..8 {
                    let (mut x, mut l) = (0.0, 0.0);
                    for _ in 0..2 {
                        let u = 0.6 * (rng.random::<f64>() - 0.5);
                        let win = f64::from(u8::from(rng.random::<f64>() < p + u));
                        let seen = if good {
                            u
                        } else {
                            0.6 * (rng.random::<f64>() - 0.5)
                        };
                        x += win / 2.0;
                        l += seen / 2.0;
                    }
                    t.add(x, l);
                }
            }
            groups += t.groups();
            match t.status() {
                Verdict::AcceptH0 => h0 += 1,
                _ => h1 += 1,
            }
        }
        (h0, h1, groups as f64 / runs as f64)
    }

    #[test]
    fn error_rates_hold_with_a_good_and_a_bad_net() {
        // 300 tests each; nominal errors 10% (30 of 300), Wald's bounds are conservative.
        let runs = 300;
        let (_, false_h1_good, n0_good) = simulate(0.0, true, runs);
        let (_, false_h1_bad, n0_bad) = simulate(0.0, false, runs);
        let (false_h0_good, _, n1_good) = simulate(40.0, true, runs);
        let (false_h0_bad, _, n1_bad) = simulate(40.0, false, runs);
        for e in [false_h1_good, false_h1_bad, false_h0_good, false_h0_bad] {
            assert!(e <= 45, "errors {e} of {runs}");
        }
        // The good net saves groups, the bad one costs some.
        assert!(n0_good < 0.8 * n0_bad, "{n0_good} vs {n0_bad}");
        assert!(n1_good < 0.8 * n1_bad, "{n1_good} vs {n1_bad}");
    }
}
