//! Elo, normalized Elo and the likelihood of superiority from the scores of rotation groups,
//! as chess engine testers (fastchess, fishtest) compute them from game pairs.
//!
//! **Unit.** A head-to-head with the seats rotated plays every deal once per rotation, so the
//! deal (a pair of games for two players) is the unit: its games share their dice. Each group
//! gives bot A a score `k / steps` (`k` in `0..=steps`); for two players, 2 points per game won
//! and 1 per unfinished game, `steps = 4`: the **pentanomial** model (LL, LD, DD or WL, WD,
//! WW). Only the counts per group score are kept, so the figures are exact functions of them.
//!
//! **Figures** (`N` groups, mean group score `mu`, population variance `var` of the group
//! scores, `z` = [`Z95`], 1.959964):
//! - score interval `mu ± z sqrt(var / N)`; where the variance cannot be trusted (fewer than
//!   [`MIN_DEALS`] informative groups, those not scoring an even 1/2, or every group scored
//!   alike, `var = 0`) it is never narrower than the
//!   Wilson interval of `mu` on the `N` groups (as if each group were one win or loss);
//! - Elo `-400 log10(1 / mu - 1)`, its interval the score interval mapped the same way (a score
//!   of 0 or 1 maps to an infinite Elo: every group lost or won);
//! - normalized Elo `(mu - 1/2) / sqrt(2 var) * 800 / ln 10` (fastchess's pentanomial nElo: the
//!   difference in units of the per-game spread), its interval the score interval mapped
//!   linearly; undefined when `var = 0`;
//! - LOS, the likelihood that bot A is the stronger: `Phi((mu - 1/2) / sqrt(var / N))`, with
//!   `sqrt(1 / (4 N))` (the largest spread a score in `[0, 1]` can have, at 1/2) in place of the
//!   standard error where the variance cannot be trusted.
//!
//! ```
//! use aeroplane::analysis::elo::GroupScores;
//! // Pair scores of bot A in 0, 1/4, 1/2, 3/4, 1: counts 10, 20, 40, 20, 10.
//! let e = GroupScores::new(vec![10, 20, 40, 20, 10]).estimate().unwrap();
//! assert_eq!(e.elo.elo, 0.0);
//! assert!((e.los - 0.5).abs() < 1e-12);
//! ```

use serde::Serialize;

use super::{Z95, elo_from_score, normal_cdf};
use crate::stats::{MIN_DEALS, wilson_rate};

/// A logistic-Elo difference with its 95% interval. A score of 0 or 1 gives an infinite value:
/// JSON writes it as the string `"inf"` or `"-inf"` (JSON has no infinity).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct EloEstimate {
    /// The point estimate.
    #[serde(serialize_with = "number_or_inf")]
    pub elo: f64,
    /// The lower end of the 95% interval.
    #[serde(serialize_with = "number_or_inf")]
    pub low: f64,
    /// The upper end of the 95% interval.
    #[serde(serialize_with = "number_or_inf")]
    pub high: f64,
}

/// A float as JSON: a number, or `"inf"` / `"-inf"` / `"nan"` where JSON has none.
pub fn number_or_inf<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    if x.is_finite() {
        s.serialize_f64(*x)
    } else if x.is_nan() {
        s.serialize_str("nan")
    } else if *x > 0.0 {
        s.serialize_str("inf")
    } else {
        s.serialize_str("-inf")
    }
}

/// An Elo value as text: one decimal with its sign (`+12.3`, `-4.0`, `0.0`), or `+inf`/`-inf`.
pub fn format_elo(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else if x.is_nan() {
        "nan".to_string()
    } else if format!("{:.1}", x.abs()) == "0.0" {
        "0.0".to_string()
    } else {
        format!("{x:+.1}")
    }
}

/// How the score interval of an [`Estimate`] was made. Its JSON form is its CSV name
/// ([`ScoreInterval::name`]), the same in `summary.json`, `sprt.json` and `match.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ScoreInterval {
    /// The normal interval of the mean group score with the observed variance.
    #[serde(rename = "normal_by_pair")]
    Normal,
    /// The variance cannot be trusted (too few groups, or all alike): the normal interval
    /// widened to at least the Wilson interval on the groups.
    #[serde(rename = "wilson_on_pairs")]
    WilsonOnGroups,
}

impl ScoreInterval {
    /// The value written in CSV columns (`interval_method`).
    pub fn name(self) -> &'static str {
        match self {
            ScoreInterval::Normal => "normal_by_pair",
            ScoreInterval::WilsonOnGroups => "wilson_on_pairs",
        }
    }
}

/// Every figure of a head-to-head, from its group scores.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Groups (deals) counted.
    pub groups: u64,
    /// Groups per outcome: index `k` is a group score of `k / steps`.
    pub counts: Vec<u64>,
    /// The mean group score of bot A, in `[0, 1]`.
    pub score: f64,
    /// The population variance of the group scores.
    pub variance: f64,
    /// 95% interval of the score.
    pub score_low: f64,
    /// 95% interval of the score.
    pub score_high: f64,
    /// How the score interval was made.
    pub interval_method: ScoreInterval,
    /// Bot A's logistic-Elo advantage.
    pub elo: EloEstimate,
    /// Normalized Elo (`None` when every group scored alike).
    pub nelo: Option<EloEstimate>,
    /// The likelihood that bot A is the stronger.
    pub los: f64,
}

/// Counts of rotation groups per score `k / steps`, `k` in `0..=steps`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupScores {
    counts: Vec<u64>,
}

impl GroupScores {
    /// Counts per score `k / (counts.len() - 1)`; at least two bins.
    ///
    /// # Panics
    /// With fewer than two bins.
    pub fn new(counts: Vec<u64>) -> GroupScores {
        assert!(counts.len() >= 2, "a group score needs at least two values");
        GroupScores { counts }
    }

    /// Groups counted.
    pub fn groups(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Groups that score other than an even 1/2 (a WL or DD pair): the ones from which the
    /// variance of the score is estimated. A match of mostly even pairs has a variance
    /// estimated from a few pairs, so the interval is trusted only from [`MIN_DEALS`] of them.
    pub fn informative(&self) -> u64 {
        let steps = self.counts.len() - 1;
        self.counts
            .iter()
            .enumerate()
            .filter(|&(k, _)| 2 * k != steps)
            .map(|(_, &c)| c)
            .sum()
    }

    /// Mean and population variance of the group scores (`None` before any group).
    pub fn moments(&self) -> Option<(f64, f64)> {
        let n = self.groups();
        if n == 0 {
            return None;
        }
        let steps = (self.counts.len() - 1) as f64;
        let n = n as f64;
        let value = |k: usize| k as f64 / steps;
        let mean = self
            .counts
            .iter()
            .enumerate()
            .map(|(k, &c)| c as f64 * value(k))
            .sum::<f64>()
            / n;
        let var = self
            .counts
            .iter()
            .enumerate()
            .map(|(k, &c)| c as f64 * (value(k) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some((mean, var))
    }

    /// Every figure (see the module docs); `None` before any group.
    pub fn estimate(&self) -> Option<Estimate> {
        let (mu, var) = self.moments()?;
        let n = self.groups() as f64;
        let se = (var / n).sqrt();
        let trusted = self.informative() >= MIN_DEALS && var > 0.0;
        let (mut lo, mut hi) = ((mu - Z95 * se).max(0.0), (mu + Z95 * se).min(1.0));
        if !trusted {
            let (wlo, whi) = wilson_rate(mu, n, Z95);
            (lo, hi) = (lo.min(wlo), hi.max(whi));
        }
        let elo = EloEstimate {
            elo: elo(mu),
            low: elo(lo),
            high: elo(hi),
        };
        let nelo = (var > 0.0).then(|| {
            let k = 800.0 / std::f64::consts::LN_10 / (2.0 * var).sqrt();
            EloEstimate {
                elo: zero_signless(k * (mu - 0.5)),
                low: zero_signless(k * (lo - 0.5)),
                high: zero_signless(k * (hi - 0.5)),
            }
        });
        let los_se = if trusted { se } else { (0.25 / n).sqrt() };
        let los = if mu == 0.5 {
            0.5
        } else {
            normal_cdf((mu - 0.5) / los_se)
        };
        Some(Estimate {
            groups: self.groups(),
            counts: self.counts.clone(),
            score: mu,
            variance: var,
            score_low: lo,
            score_high: hi,
            interval_method: if trusted {
                ScoreInterval::Normal
            } else {
                ScoreInterval::WilsonOnGroups
            },
            elo,
            nelo,
            los,
        })
    }
}

/// `x`, with -0.0 written as 0.0.
fn zero_signless(x: f64) -> f64 {
    x + 0.0
}

/// The Elo of a score, without a negative zero.
fn elo(score: f64) -> f64 {
    zero_signless(elo_from_score(score))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    /// Issue 22: the figures of a fixed match, computed by hand.
    ///
    /// 100 pairs of games with pair scores (bot A's points of 4) 0: 5, 1: 10, 2: 40, 3: 25,
    /// 4: 20. Mean score: mu = (0*5 + .25*10 + .5*40 + .75*25 + 1*20) / 100, that is
    /// (2.5 + 20 + 18.75 + 20) / 100 = 0.6125. Variance: E[x²] - mu², that is
    /// (.0625*10 + .25*40 + .5625*25 + 20) / 100 - 0.6125², that is
    /// 0.446875 - 0.37515625 = 0.07171875. Standard error: sqrt(0.07171875 / 100) = 0.02678...
    #[test]
    fn figures_of_a_fixed_match_match_a_hand_computation() {
        let e = GroupScores::new(vec![5, 10, 40, 25, 20])
            .estimate()
            .unwrap();
        assert_eq!(e.groups, 100);
        close(e.score, 0.6125, 1e-15);
        close(e.variance, 0.071_718_75, 1e-14);
        let se = 0.071_718_75f64.sqrt() / 10.0;
        close(se, 0.026_780_356_607_035_68, 1e-15);
        assert_eq!(e.interval_method, ScoreInterval::Normal);
        close(e.score_low, 0.6125 - 1.959_963_984_540_054 * se, 1e-15);
        close(e.score_high, 0.6125 + 1.959_963_984_540_054 * se, 1e-15);
        // Elo = -400 log10(1/0.6125 - 1) = -400 log10(0.6326530...) = 79.5337...
        close(e.elo.elo, 79.533_754_477_696_43, 1e-9);
        // Score bounds 0.6125 ± 1.96 se = 0.560012..., 0.664988...: Elo 41.90..., 119.10...
        close(e.elo.low, -400.0 * (1.0 / e.score_low - 1.0).log10(), 1e-12);
        close(
            e.elo.high,
            -400.0 * (1.0 / e.score_high - 1.0).log10(),
            1e-12,
        );
        close(e.elo.low, 41.902_223_717_860_71, 1e-9);
        close(e.elo.high, 119.101_794_651_791_7, 1e-9);
        // nElo = (0.6125 - 0.5) / sqrt(2 * 0.07171875) * 800 / ln 10 = 103.2037...
        close(
            e.nelo.unwrap().elo,
            0.1125 / 0.143_437_5f64.sqrt() * 347.435_585_522_601_46,
            1e-9,
        );
        close(e.nelo.unwrap().elo, 103.203_747_404_359_87, 1e-9);
        // LOS = Phi(0.1125 / 0.0267803...) = Phi(4.2008...) = 0.99998670...
        close(e.los, normal_cdf(0.1125 / se), 1e-15);
        close(e.los, 0.999_986_703_690_724_6, 1e-12);
    }

    /// Issue 22, item 3: three won pairs gave `Elo inf [inf, inf]`; identical bots `-0.0
    /// [-0.0, -0.0]`.
    #[test]
    fn degenerate_samples_get_honest_intervals() {
        let won = GroupScores::new(vec![0, 0, 0, 0, 3]).estimate().unwrap();
        assert_eq!(won.elo.elo, f64::INFINITY);
        assert_eq!(won.elo.high, f64::INFINITY);
        // Wilson on 3 pairs: the score is at least 3 / (3 + z²) = 0.4385: Elo -42.95.
        assert_eq!(won.interval_method, ScoreInterval::WilsonOnGroups);
        close(won.score_low, 3.0 / (3.0 + Z95 * Z95), 1e-12);
        close(won.elo.low, -42.949_970_928_244_07, 1e-9);
        assert!(won.nelo.is_none());
        close(won.los, normal_cdf(0.5 / (0.25f64 / 3.0).sqrt()), 1e-12);
        assert!(won.los < 0.99);
        let json = serde_json::to_string(&won.elo).unwrap();
        assert!(json.contains("\"elo\":\"inf\""), "{json}");
        assert_eq!(format_elo(won.elo.elo), "+inf");
        // Identical bots: every pair 1/2; 0, never -0, and an interval of the deals' width.
        let even = GroupScores::new(vec![0, 0, 500, 0, 0]).estimate().unwrap();
        assert_eq!(even.elo.elo.to_bits(), 0.0f64.to_bits());
        assert_eq!(format_elo(even.elo.elo), "0.0");
        assert!(even.elo.low < -10.0 && even.elo.high > 10.0, "{even:?}");
        close(even.elo.low, -even.elo.high, 1e-9);
        assert_eq!(even.los, 0.5);
        assert!(GroupScores::new(vec![0, 0, 0]).estimate().is_none());
    }

    #[test]
    fn elo_text_has_a_sign_and_no_negative_zero() {
        assert_eq!(format_elo(12.34), "+12.3");
        assert_eq!(format_elo(-4.0), "-4.0");
        assert_eq!(format_elo(-0.04), "0.0");
        assert_eq!(format_elo(f64::NEG_INFINITY), "-inf");
    }

    /// Issue 31, item 15: summary.json names the interval as match.csv and sprt.json do.
    #[test]
    fn the_json_name_of_an_interval_method_is_its_csv_name() {
        for m in [ScoreInterval::Normal, ScoreInterval::WilsonOnGroups] {
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.name())
            );
        }
    }

    /// Issue 31, item 13: 30 pairs of which 28 are even (WL or DD) estimate the variance from
    /// two pairs: the interval keeps the Wilson floor until 30 pairs are informative.
    #[test]
    fn the_floor_holds_until_thirty_pairs_are_informative() {
        let e = GroupScores::new(vec![1, 0, 28, 0, 1]).estimate().unwrap();
        assert_eq!(e.interval_method, ScoreInterval::WilsonOnGroups);
        let (lo, hi) = wilson_rate(0.5, 30.0, Z95);
        assert!(e.score_low <= lo && e.score_high >= hi, "{e:?}");
        let e = GroupScores::new(vec![15, 0, 28, 0, 15]).estimate().unwrap();
        assert_eq!(e.interval_method, ScoreInterval::Normal);
    }
}
