//! A sequential probability ratio test for a head-to-head between two bots, in the style of
//! chess engine testing (fishtest, fastchess).
//!
//! **Unit.** Games with the seats rotated are correlated, so the unit of the test is the
//! rotation group (a pair of games for two players), not the game. Each group gives bot A a
//! score `k / steps` with `k` in `0..=steps`: for two players with the seats swapped and no
//! draws, `steps = 2` (a trinomial: 0, ½, 1); counting an unfinished game as half a point,
//! `steps = 4` (pentanomial). For `n` seats, use the group's total points normalised to `[0, 1]`.
//! Counts are integers, so accumulators from different threads [`Sprt::merge`] exactly.
//! Suggested scoring: 2 points per game bot A won, 1 per unfinished game, 0 per game lost, and
//! `steps = 2 x games per group`.
//!
//! **Model.** Logistic Elo: a score `s` means an Elo difference `-400 log10(1/s - 1)`. The
//! hypotheses are H0: elo = `elo0` and H1: elo = `elo1`, i.e. expected group scores `s0` and
//! `s1`. [`Sprt::llr`] is the generalized SPRT of fishtest's `LLR_logistic`: the outcome
//! distribution is multinomial over the `steps + 1` group scores, and the LLR compares its
//! maximum-likelihood estimates under the constraints "mean = s1" and "mean = s0"
//! (`p_i = phat_i / (1 + theta (x_i - s))`, `theta` solving fishtest's secular equation). For
//! many groups it approaches the normal approximation [`Sprt::llr_normal`],
//! `N (s1 - s0) (2 mu - s0 - s1) / (2 var)` (`mu`, `var`: mean and population variance of the
//! group scores), but unlike that it stays small after a few groups, so a test never stops on
//! its first results. As in fishtest, empty outcome bins get a count of `1e-3` before either is
//! computed, so a run of identical results still has a finite LLR.
//!
//! **Decision.** Wald's bounds `lower = ln(beta / (1 - alpha))`, `upper = ln((1 - beta) / alpha)`:
//! accept H1 once `LLR >= upper`, H0 once `LLR <= lower`, else continue.
//!
//! ```
//! use aeroplane::analysis::{Sprt, SprtConfig, Verdict};
//! let config: SprtConfig = "elo0=0,elo1=20,alpha=0.05,beta=0.05".parse().unwrap();
//! let mut test = Sprt::new(config, 4); // two-game pairs, half points for unfinished games
//! test.add(4); // bot A won both games of a pair
//! test.add(2); // one game each
//! assert_eq!(test.status(), Verdict::Continue);
//! println!("LLR {:.2} [{:.2}, {:.2}]", test.llr(), test.lower(), test.upper());
//! ```

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

pub use super::elo::EloEstimate;
use super::elo::{Estimate, GroupScores};
use super::normal_cdf;
use super::score_from_elo;

/// The largest |elo0|, |elo1| a test takes: far beyond any real difference, and well inside
/// the range where scores are not 0 or 1 in floating point.
const MAX_ELO: f64 = 1000.0;

/// The smallest `alpha` or `beta` a test takes: its bound is then `ln(1 / 1e-9)`, about 20.7.
/// Smaller rates make the bound huge (and `inf` below about 1e-308), a test that never stops.
pub const MIN_ERROR_RATE: f64 = 1e-9;

/// What the reports say of the Elo printed after a test stopped: the interval is that of a
/// fixed number of pairs, and a sequential stop biases it (the test stops when the results ran
/// high or low). Measured by `examples/sprt_stop_bias.rs` (docs/commands/sprt.md).
pub const STOPPED_ESTIMATE_NOTE: &str = "note: the Elo and its interval are computed as for a fixed number of pairs; after an SPRT stop they are biased (a test stops when its results ran high or low), and the interval covers less than 95% near elo0 and elo1 (guide: docs/commands/sprt.md)";

/// The count given to empty outcome bins before the LLR is computed (fishtest's `regularize`).
const EMPTY_BIN: f64 = 1e-3;

/// The parameters of an SPRT: the Elo hypotheses and the error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtConfig {
    /// The Elo difference of the null hypothesis.
    pub elo0: f64,
    /// The Elo difference of the alternative hypothesis; greater than `elo0`.
    pub elo1: f64,
    /// The false-positive rate (accepting H1 when H0 holds), in `(0, 1)`.
    pub alpha: f64,
    /// The false-negative rate (accepting H0 when H1 holds), in `(0, 1)`.
    pub beta: f64,
}

/// Why an SPRT configuration, or a merge of two accumulators, was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SprtError {
    /// An item is not `key=value`.
    #[error("bad SPRT item `{0}`: expected key=value, e.g. elo0=0,elo1=20,alpha=0.05,beta=0.05")]
    Syntax(String),
    /// An unknown key.
    #[error("unknown SPRT key `{0}`: allowed keys are elo0, elo1, alpha, beta")]
    UnknownKey(String),
    /// A key given twice.
    #[error("SPRT key `{0}` is given twice")]
    Duplicate(String),
    /// A required key is missing.
    #[error(
        "SPRT key `{0}` is missing: elo0 and elo1 are required (alpha and beta default to 0.05)"
    )]
    Missing(&'static str),
    /// A value is not a number, or out of range.
    #[error("invalid SPRT value {value} for `{key}`: allowed is {allowed}")]
    Invalid {
        /// The key.
        key: &'static str,
        /// The value as written.
        value: String,
        /// What is allowed.
        allowed: &'static str,
    },
    /// `elo0 >= elo1`.
    #[error("SPRT needs elo0 < elo1, got elo0={elo0} and elo1={elo1}")]
    EloOrder {
        /// The null hypothesis.
        elo0: f64,
        /// The alternative hypothesis.
        elo1: f64,
    },
    /// `alpha + beta >= 1`, so the bounds do not bracket zero.
    #[error("SPRT needs alpha + beta < 1, got alpha={alpha} and beta={beta}")]
    ErrorSum {
        /// The false-positive rate.
        alpha: f64,
        /// The false-negative rate.
        beta: f64,
    },
    /// Two accumulators with different score resolutions.
    #[error("cannot merge SPRT tallies with {0} and {1} score steps")]
    Steps(u32, u32),
}

impl SprtConfig {
    /// Checks the values: finite Elos with `elo0 < elo1`, `alpha`, `beta` in
    /// `[MIN_ERROR_RATE, 1)` with a sum below 1.
    pub fn new(elo0: f64, elo1: f64, alpha: f64, beta: f64) -> Result<Self, SprtError> {
        for (key, v) in [("elo0", elo0), ("elo1", elo1)] {
            // Beyond about ±2,000 the expected score rounds to 0 or 1 and the LLR is NaN.
            if !(v.is_finite() && v.abs() <= MAX_ELO) {
                return Err(SprtError::Invalid {
                    key,
                    value: short_float(v),
                    allowed: "a number of Elo points from -1000 to 1000",
                });
            }
        }
        for (key, v) in [("alpha", alpha), ("beta", beta)] {
            if !(MIN_ERROR_RATE..1.0).contains(&v) {
                return Err(SprtError::Invalid {
                    key,
                    value: short_float(v),
                    allowed: "a probability from 1e-9 up to (not including) 1",
                });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtError::EloOrder { elo0, elo1 });
        }
        if alpha + beta >= 1.0 {
            return Err(SprtError::ErrorSum { alpha, beta });
        }
        Ok(SprtConfig {
            elo0,
            elo1,
            alpha,
            beta,
        })
    }

    /// The bound at or below which H0 is accepted: `ln(beta / (1 - alpha))`.
    pub fn lower(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// The bound at or above which H1 is accepted: `ln((1 - beta) / alpha)`.
    pub fn upper(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }
}

/// A number as a message shows it: `1e308`, not three hundred digits.
fn short_float(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

impl FromStr for SprtConfig {
    type Err = SprtError;

    /// Parses `elo0=0,elo1=20,alpha=0.05,beta=0.05` (any order; alpha and beta default to 0.05).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        const KEYS: [&str; 4] = ["elo0", "elo1", "alpha", "beta"];
        let mut values: [Option<f64>; 4] = [None; 4];
        for item in s.split(',').map(str::trim) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| SprtError::Syntax(aeroplane_core::excerpt::excerpt(item)))?;
            let (key, value) = (key.trim(), value.trim());
            let slot = KEYS
                .iter()
                .position(|&k| k == key)
                .ok_or_else(|| SprtError::UnknownKey(aeroplane_core::excerpt::excerpt(key)))?;
            if values[slot].is_some() {
                return Err(SprtError::Duplicate(key.to_string()));
            }
            let v = value.parse::<f64>().map_err(|_| SprtError::Invalid {
                key: KEYS[slot],
                value: format!("`{}`", aeroplane_core::excerpt::excerpt(value)),
                allowed: "a number",
            })?;
            values[slot] = Some(v);
        }
        let elo0 = values[0].ok_or(SprtError::Missing("elo0"))?;
        let elo1 = values[1].ok_or(SprtError::Missing("elo1"))?;
        SprtConfig::new(
            elo0,
            elo1,
            values[2].unwrap_or(0.05),
            values[3].unwrap_or(0.05),
        )
    }
}

impl fmt::Display for SprtConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "elo0={},elo1={},alpha={},beta={}",
            self.elo0, self.elo1, self.alpha, self.beta
        )
    }
}

/// The state of a sequential test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The LLR is between the bounds: play on.
    Continue,
    /// The LLR reached the lower bound: accept H0 (elo = elo0).
    AcceptH0,
    /// The LLR reached the upper bound: accept H1 (elo = elo1).
    AcceptH1,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Continue => "continue",
            Verdict::AcceptH0 => "H0",
            Verdict::AcceptH1 => "H1",
        })
    }
}

/// Whom bot A meets in an SPRT: `players - 1` copies of bot B, and how a game ranks its seats.
///
/// A group (a deal played once with bot A in every seat) scores bot A its share of the
/// pairwise "finished ahead" comparisons with the others: per game and per other seat, 2
/// points where A finished ahead (ranked, and the other behind or unranked), 1 where both are
/// unranked, 0 otherwise, so `steps = 2 (players - 1) players` ([`Field::steps`]; for two
/// players the pentanomial). Under a Plackett-Luce model (bot A's strength `10^(elo/400)`,
/// each copy of B's 1; the league's ratings) the probability that A finishes ahead of a given
/// seat is the logistic `1 / (1 + 10^(-elo/400))` whatever the other seats, so where a game
/// ranks every seat the expected score is the two-player one ([`Field::score`]). Where a game
/// ranks only its winner (`end = first_finisher` with 3 or 4 players), A's score is 1 for a
/// win and `c = (n - 2) / (2 (n - 1))` otherwise, its expectation `p + (1 - p) c` with
/// `p = g / (g + n - 1)`, `g = 10^(elo/400)`. Either way an equal field gives 1/2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Field {
    /// Players per game, 2 to 4.
    pub players: u8,
    /// Whether a game ranks only its winner (then 3 or 4 players).
    pub winner_only: bool,
}

impl Field {
    /// Two bots, one game per seat: the pentanomial head-to-head.
    pub const HEAD_TO_HEAD: Field = Field {
        players: 2,
        winner_only: false,
    };

    /// The field of `players` (2 to 4, clamped) seats; `winner_only` when the game ranks only
    /// its winner (ignored for two players, whose loser is always ranked second).
    pub fn new(players: usize, winner_only: bool) -> Field {
        let players = players.clamp(2, 4) as u8;
        Field {
            players,
            winner_only: winner_only && players > 2,
        }
    }

    /// Whether this is the two-player head-to-head (what reports leave out).
    pub fn is_head_to_head(&self) -> bool {
        *self == Field::HEAD_TO_HEAD
    }

    /// A group's score resolution: `2 (players - 1) players`.
    pub fn steps(&self) -> u32 {
        let n = u32::from(self.players);
        2 * (n - 1) * n
    }

    /// The score share of an A that loses: `(n - 2) / (2 (n - 1))` (winner-only games).
    fn loser_share(&self) -> f64 {
        let n = f64::from(self.players);
        (n - 2.0) / (2.0 * (n - 1.0))
    }

    /// Bot A's expected group score at an Elo advantage `elo` (see the type's docs).
    pub fn score(&self, elo: f64) -> f64 {
        if !self.winner_only {
            return score_from_elo(elo);
        }
        let others = f64::from(self.players) - 1.0;
        let g = 10f64.powf(elo / 400.0);
        let p = g / (g + others);
        p + (1.0 - p) * self.loser_share()
    }

    /// The Elo advantage whose expected score is `score`, the inverse of [`Field::score`]
    /// (infinite where no finite Elo gives it).
    pub fn elo(&self, score: f64) -> f64 {
        if !self.winner_only {
            return super::elo_from_score(score) + 0.0;
        }
        let c = self.loser_share();
        let p = (score - c) / (1.0 - c);
        if p <= 0.0 {
            return f64::NEG_INFINITY;
        }
        if p >= 1.0 {
            return f64::INFINITY;
        }
        let others = f64::from(self.players) - 1.0;
        400.0 * (others * p / (1.0 - p)).log10() + 0.0
    }
}

/// Bot A's points in one game (see [`Field`]): per other seat in play, 2 where A finished
/// ahead of it, 1 where neither is ranked, 0 otherwise. `ranks` is indexed by seat (1-based,
/// 0 unranked), `seats` lists the seats in play and `a` is bot A's seat.
pub fn field_points(ranks: &[u8], seats: &[usize], a: usize) -> u32 {
    let ra = ranks[a];
    seats
        .iter()
        .filter(|&&o| o != a)
        .map(|&o| match (ra, ranks[o]) {
            (0, 0) => 1,
            (0, _) => 0,
            (_, 0) => 2,
            (x, y) => 2 * u32::from(x < y),
        })
        .sum()
}

/// Everything a result line or `run.json` reports about an SPRT.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtSummary {
    /// The test's parameters.
    pub config: SprtConfig,
    /// Whom bot A meets (left out of JSON for the two-player head-to-head).
    #[serde(skip_serializing_if = "Field::is_head_to_head")]
    pub field: Field,
    /// Rotation groups played.
    pub groups: u64,
    /// Groups per outcome: index `k` is a group score of `k / steps`.
    pub counts: Vec<u64>,
    /// The mean group score of bot A, in `[0, 1]`.
    pub score: f64,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// The H0 bound.
    pub lower: f64,
    /// The H1 bound.
    pub upper: f64,
    /// Where the test stands.
    pub verdict: Verdict,
    /// Bot A's Elo advantage.
    pub elo: EloEstimate,
    /// The likelihood that bot A is the stronger.
    pub los: f64,
    /// How the interval of the score (and so of the Elo) was made: `normal_by_pair`, or
    /// `wilson_on_pairs` where too few pairs (or all alike) leave the variance untrusted.
    pub interval_method: &'static str,
}

/// An incremental SPRT over rotation groups: integer counts per group outcome plus the config.
#[derive(Clone, Debug, PartialEq)]
pub struct Sprt {
    config: SprtConfig,
    field: Field,
    counts: Vec<u64>,
}

impl Sprt {
    /// An empty test whose groups score `k / steps` for `k` in `0..=steps` (`steps >= 1`; see
    /// the module docs for the usual values).
    pub fn new(config: SprtConfig, steps: u32) -> Self {
        Sprt {
            config,
            field: Field::HEAD_TO_HEAD,
            counts: vec![0; steps.max(1) as usize + 1],
        }
    }

    /// An empty test of bot A against a field (see [`Field`]): groups score `k / steps` with
    /// `steps` = [`Field::steps`], and the hypotheses' expected scores are [`Field::score`]'s.
    pub fn for_field(config: SprtConfig, field: Field) -> Self {
        Sprt {
            field,
            ..Sprt::new(config, field.steps())
        }
    }

    /// Whom bot A meets.
    pub fn field(&self) -> Field {
        self.field
    }

    /// The test's parameters.
    pub fn config(&self) -> &SprtConfig {
        &self.config
    }

    /// The score resolution: a group scores `k / steps`.
    pub fn steps(&self) -> u32 {
        (self.counts.len() - 1) as u32
    }

    /// Records one group in which bot A scored `points / steps`.
    ///
    /// # Panics
    /// If `points > steps`.
    pub fn add(&mut self, points: u32) {
        self.add_count(points, 1);
    }

    /// Records `count` groups in which bot A scored `points / steps`.
    ///
    /// # Panics
    /// If `points > steps`.
    pub fn add_count(&mut self, points: u32, count: u64) {
        assert!(
            points <= self.steps(),
            "group score {points} exceeds {} steps",
            self.steps()
        );
        self.counts[points as usize] += count;
    }

    /// Adds another accumulator's counts (its config is ignored); exact in any order.
    pub fn merge(&mut self, other: &Sprt) -> Result<(), SprtError> {
        if other.steps() != self.steps() {
            return Err(SprtError::Steps(self.steps(), other.steps()));
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        Ok(())
    }

    /// Groups per outcome: index `k` is a group score of `k / steps`.
    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Rotation groups recorded.
    pub fn groups(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Mean and population variance of the group scores under the given per-bin counts.
    fn moments(&self, counts: impl Iterator<Item = f64> + Clone) -> (f64, f64, f64) {
        let steps = f64::from(self.steps());
        let n: f64 = counts.clone().sum();
        let mean = counts
            .clone()
            .enumerate()
            .map(|(k, c)| c * k as f64 / steps)
            .sum::<f64>()
            / n;
        let var = counts
            .enumerate()
            .map(|(k, c)| c * (k as f64 / steps - mean).powi(2))
            .sum::<f64>()
            / n;
        (n, mean, var)
    }

    /// The mean group score of bot A (NaN before any group).
    pub fn score(&self) -> f64 {
        self.moments(self.counts.iter().map(|&c| c as f64)).1
    }

    /// The regularised counts as a distribution: total, values `k / steps`, probabilities.
    fn regularised(&self) -> (f64, Vec<f64>, Vec<f64>) {
        let steps = f64::from(self.steps());
        let counts: Vec<f64> = self
            .counts
            .iter()
            .map(|&c| if c == 0 { EMPTY_BIN } else { c as f64 })
            .collect();
        let n: f64 = counts.iter().sum();
        let values = (0..counts.len()).map(|k| k as f64 / steps).collect();
        (n, values, counts.iter().map(|c| c / n).collect())
    }

    /// The generalized log-likelihood ratio of H1 against H0 (0 before any group).
    pub fn llr(&self) -> f64 {
        if self.groups() == 0 {
            return 0.0;
        }
        let (n, x, p) = self.regularised();
        let (s0, s1) = self.hypotheses();
        let (t0, t1) = (secular_root(&x, &p, s0), secular_root(&x, &p, s1));
        n * x
            .iter()
            .zip(&p)
            .map(|(&xi, &pi)| pi * ((1.0 + t0 * (xi - s0)).ln() - (1.0 + t1 * (xi - s1)).ln()))
            .sum::<f64>()
    }

    /// The normal approximation of the LLR, `N (s1 - s0) (2 mu - s0 - s1) / (2 var)` over the
    /// regularised counts (0 before any group). Close to [`Sprt::llr`] after many groups.
    pub fn llr_normal(&self) -> f64 {
        if self.groups() == 0 {
            return 0.0;
        }
        let (n, x, p) = self.regularised();
        let mu: f64 = x.iter().zip(&p).map(|(x, p)| x * p).sum();
        let var: f64 = x.iter().zip(&p).map(|(x, p)| p * (x - mu).powi(2)).sum();
        let (s0, s1) = self.hypotheses();
        n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
    }

    /// The expected group scores under H0 and H1.
    pub fn hypotheses(&self) -> (f64, f64) {
        (
            self.field.score(self.config.elo0),
            self.field.score(self.config.elo1),
        )
    }

    /// The H0 bound, `ln(beta / (1 - alpha))`.
    pub fn lower(&self) -> f64 {
        self.config.lower()
    }

    /// The H1 bound, `ln((1 - beta) / alpha)`.
    pub fn upper(&self) -> f64 {
        self.config.upper()
    }

    /// Whether to continue, or which hypothesis to accept.
    pub fn status(&self) -> Verdict {
        let llr = self.llr();
        if llr >= self.upper() {
            Verdict::AcceptH1
        } else if llr <= self.lower() {
            Verdict::AcceptH0
        } else {
            Verdict::Continue
        }
    }

    /// The head-to-head's figures from the same group scores (see [`super::elo`]); `None`
    /// before any group.
    pub fn estimate(&self) -> Option<Estimate> {
        GroupScores::new(self.counts.clone()).estimate()
    }

    /// Bot A's logistic-Elo advantage with a 95% interval (see [`super::elo`]: the normal
    /// interval of the mean group score, never narrower than the Wilson interval on the groups
    /// where the variance cannot be trusted; NaN before any group).
    /// For a winner-only field the score and its interval are mapped by [`Field::elo`].
    pub fn elo(&self) -> EloEstimate {
        self.estimate().map_or(
            EloEstimate {
                elo: f64::NAN,
                low: f64::NAN,
                high: f64::NAN,
            },
            |e| {
                if self.field.winner_only {
                    EloEstimate {
                        elo: self.field.elo(e.score),
                        low: self.field.elo(e.score_low),
                        high: self.field.elo(e.score_high),
                    }
                } else {
                    e.elo
                }
            },
        )
    }

    /// The likelihood of superiority: `Phi((mu - 1/2) / se)` over group scores (see
    /// [`super::elo`]; 0.5 before any group).
    pub fn los(&self) -> f64 {
        self.estimate().map_or(0.5, |e| e.los)
    }

    /// Every reported figure at once.
    pub fn summary(&self) -> SprtSummary {
        SprtSummary {
            config: self.config,
            field: self.field,
            groups: self.groups(),
            counts: self.counts.clone(),
            score: self.score(),
            llr: self.llr(),
            lower: self.lower(),
            upper: self.upper(),
            verdict: self.status(),
            elo: self.elo(),
            los: self.los(),
            interval_method: self.estimate().map_or("", |e| e.interval_method.name()),
        }
    }
}

/// The `theta` of the maximum-likelihood distribution with mean `s` near the empirical one `p`
/// over values `x`: the root of `sum p_i (x_i - s) / (1 + theta (x_i - s)) = 0`, which is
/// decreasing in `theta` on the interval where every `1 + theta (x_i - s) > 0`. Needs
/// `min x < s < max x` and every `p_i > 0`.
fn secular_root(x: &[f64], p: &[f64], s: f64) -> f64 {
    let f = |t: f64| -> f64 {
        x.iter()
            .zip(p)
            .map(|(&xi, &pi)| pi * (xi - s) / (1.0 + t * (xi - s)))
            .sum()
    };
    let lo_x = x.iter().copied().fold(f64::INFINITY, f64::min);
    let hi_x = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (mut lo, mut hi) = (-1.0 / (hi_x - s), 1.0 / (s - lo_x));
    // Bisection: exact enough after 200 halvings, and cannot leave the interval.
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The classic likelihood of superiority from decisive games only:
/// `(1 + erf((wins - losses) / sqrt(2 (wins + losses)))) / 2` (0.5 with no decisive game).
pub fn los_from_wins_losses(wins: u64, losses: u64) -> f64 {
    if wins + losses == 0 {
        return 0.5;
    }
    let (w, l) = (wins as f64, losses as f64);
    normal_cdf((w - l) / (w + l).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Z95, elo_from_score};
    use rand::Rng;

    fn config() -> SprtConfig {
        "elo0=0,elo1=20,alpha=0.05,beta=0.05".parse().unwrap()
    }

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn parses_config_and_defaults() {
        let c = config();
        assert_eq!((c.elo0, c.elo1, c.alpha, c.beta), (0.0, 20.0, 0.05, 0.05));
        let d: SprtConfig = " elo1 = 5 , elo0=-5 ".parse().unwrap();
        assert_eq!((d.elo0, d.elo1, d.alpha, d.beta), (-5.0, 5.0, 0.05, 0.05));
        assert_eq!(c.to_string().parse::<SprtConfig>().unwrap(), c);
    }

    #[test]
    fn config_errors_name_the_problem() {
        let err = |s: &str| s.parse::<SprtConfig>().unwrap_err();
        assert_eq!(err("elo0=0,elo1"), SprtError::Syntax("elo1".into()));
        assert_eq!(err("elo0=0,elo2=3"), SprtError::UnknownKey("elo2".into()));
        assert_eq!(err("elo0=0,elo0=3"), SprtError::Duplicate("elo0".into()));
        assert_eq!(err("elo1=20"), SprtError::Missing("elo0"));
        assert_eq!(err("elo0=0"), SprtError::Missing("elo1"));
        assert!(matches!(
            err("elo0=0,elo1=x"),
            SprtError::Invalid { key: "elo1", .. }
        ));
        assert!(matches!(
            err("elo0=0,elo1=5,alpha=1.5"),
            SprtError::Invalid { key: "alpha", .. }
        ));
        assert!(matches!(
            err("elo0=0,elo1=5,beta=0"),
            SprtError::Invalid { key: "beta", .. }
        ));
        // Issue 22, item 3: a rate that makes a bound infinite.
        for tiny in ["alpha=1e-320", "beta=1e-10", "alpha=0"] {
            let e = err(&format!("elo0=0,elo1=5,{tiny}"));
            assert!(e.to_string().contains("from 1e-9"), "{e}");
        }
        let edge: SprtConfig = "elo0=0,elo1=5,alpha=1e-9".parse().unwrap();
        assert!(edge.upper().is_finite());
        assert!(matches!(
            err("elo0=0,elo1=inf"),
            SprtError::Invalid { key: "elo1", .. }
        ));
        assert!(matches!(err("elo0=5,elo1=5"), SprtError::EloOrder { .. }));
        assert!(matches!(
            err("elo0=0,elo1=5,alpha=0.6,beta=0.5"),
            SprtError::ErrorSum { .. }
        ));
        let msg = err("elo0=0,elo2=3").to_string();
        assert!(msg.contains("elo2") && msg.contains("elo0, elo1, alpha, beta"));
    }

    #[test]
    fn bounds_are_walds() {
        let c = config();
        close(c.lower(), -2.944_438_979_166_440_5, 1e-12);
        close(c.upper(), 2.944_438_979_166_440_5, 1e-12);
        let d = SprtConfig::new(0.0, 5.0, 0.05, 0.1).unwrap();
        close(d.lower(), (0.1f64 / 0.95).ln(), 1e-15);
        close(d.upper(), (0.9f64 / 0.05).ln(), 1e-15);
    }

    #[test]
    fn llr_matches_hand_computation() {
        // Pairs scoring 0, 1/2, 1 seen 10, 20, 30 times: mu = 2/3, var = 5/36.
        let mut t = Sprt::new(config(), 2);
        t.add_count(0, 10);
        t.add_count(1, 20);
        t.add_count(2, 30);
        close(t.score(), 2.0 / 3.0, 1e-15);
        let s1 = 1.0 / (1.0 + 10f64.powf(-0.05));
        let expected = 60.0 * (s1 - 0.5) * (4.0 / 3.0 - 0.5 - s1) / (2.0 * 5.0 / 36.0);
        close(t.llr_normal(), expected, 1e-12);
        close(t.llr_normal(), 1.891_53, 1e-4);
        // The exact GSPRT, cross-checked with an independent script.
        close(t.llr(), 1.588_871_176_466_580_8, 1e-9);
        assert_eq!(t.status(), Verdict::Continue);
        assert_eq!(Sprt::new(config(), 2).llr(), 0.0);
    }

    #[test]
    fn constrained_fit_has_the_hypothesis_mean() {
        let (x, p) = ([0.0, 0.25, 0.5, 0.75, 1.0], [0.1, 0.2, 0.3, 0.25, 0.15]);
        for s in [0.3, 0.5, 0.528_75, 0.7] {
            let t = secular_root(&x, &p, s);
            let q: Vec<f64> = x
                .iter()
                .zip(&p)
                .map(|(xi, pi)| pi / (1.0 + t * (xi - s)))
                .collect();
            close(q.iter().sum(), 1.0, 1e-12);
            close(q.iter().zip(&x).map(|(q, x)| q * x).sum(), s, 1e-12);
            assert!(q.iter().all(|&q| q > 0.0));
        }
    }

    #[test]
    fn one_result_moves_the_llr_a_little() {
        // A lone lost pair: the fit moves the missing mass onto the best outcome, so the LLR is
        // about ln((1 - s1) / (1 - s0)), not the huge value of the normal approximation.
        let mut t = Sprt::new(config(), 2);
        t.add(0);
        let s1 = score_from_elo(20.0);
        close(t.llr(), ((1.0 - s1) / 0.5).ln(), 1e-5);
        assert_eq!(t.status(), Verdict::Continue);
        assert!(t.llr_normal() < t.lower());
    }

    /// Feeds the pair scores in a cycle until the test stops; returns the verdict and pairs used.
    fn run(pattern: &[u32]) -> (Verdict, u64, Sprt) {
        let mut t = Sprt::new(config(), 2);
        for &p in pattern.iter().cycle().take(1_000_000) {
            t.add(p);
            if t.status() != Verdict::Continue {
                break;
            }
        }
        (t.status(), t.groups(), t)
    }

    #[test]
    fn strong_stream_accepts_h1() {
        // Won pair, won pair, split pair, repeated: mean 5/6, far above elo1.
        let (verdict, pairs, t) = run(&[2, 2, 1]);
        assert_eq!(verdict, Verdict::AcceptH1);
        assert_eq!(pairs, 53);
        assert!(t.llr() >= t.upper());
        assert!(t.los() > 0.99);
        assert!(t.elo().low > 0.0);
    }

    #[test]
    fn even_stream_accepts_h0() {
        let (verdict, pairs, t) = run(&[0, 1, 2, 1, 2, 0]);
        assert_eq!(verdict, Verdict::AcceptH0);
        assert_eq!(pairs, 1153);
        assert!(t.llr() <= t.lower());
        // With mu = 1/2 and var = 1/6 the normal approximation falls by a fixed amount per
        // pair; the exact LLR needs about as many pairs.
        let s1 = score_from_elo(20.0);
        let per_pair = (s1 - 0.5) * (0.5 - s1) / (2.0 / 6.0);
        let needed = t.lower() / per_pair;
        assert!(
            (pairs as f64 / needed - 1.0).abs() < 0.03,
            "{pairs} vs {needed}"
        );
        close(t.llr_normal(), t.llr(), 0.05);
        // 1153 pairs = 192 cycles and one lost pair: just below even.
        close(t.elo().elo, 0.0, 0.5);
        assert!(t.elo().low < -10.0 && t.elo().high > 10.0);
    }

    #[test]
    fn error_rates_hold_on_simulated_matches() {
        // 300 tests with the truth at elo0 and 300 at elo1; alpha = beta = 0.1.
        let config = SprtConfig::new(0.0, 60.0, 0.1, 0.1).unwrap();
        let mut accepted_true = [0; 2];
        for (h, elo) in [0.0, 60.0].into_iter().enumerate() {
            let win = (score_from_elo(elo) * f64::from(u32::MAX)) as u32;
            for run in 0..300 {
                let mut rng = aeroplane_core::stream(99, run, h as u64);
                let mut t = Sprt::new(config, 2);
                while t.status() == Verdict::Continue {
                    let wins = (0..2).filter(|_| rng.next_u32() < win).count();
                    t.add(wins as u32);
                }
                let right = [Verdict::AcceptH0, Verdict::AcceptH1][h];
                accepted_true[h] += usize::from(t.status() == right);
            }
        }
        // Nominal error 10% (30 of 300); Wald's bounds are conservative.
        assert!(accepted_true.iter().all(|&a| a >= 255), "{accepted_true:?}");
    }

    #[test]
    fn single_outcome_stream_is_finite_thanks_to_regularisation() {
        let mut t = Sprt::new(config(), 2);
        t.add_count(2, 60);
        assert!(t.llr().is_finite());
        assert_eq!(t.status(), Verdict::AcceptH1);
        assert_eq!(t.elo().elo, f64::INFINITY);
        // All alike: the interval and the LOS use the widest spread a score can have.
        assert!(
            t.elo().low.is_finite() && t.elo().low > 0.0,
            "{:?}",
            t.elo()
        );
        assert!(t.los() > 1.0 - 1e-12 && t.los() < 1.0);
        let mut h0 = Sprt::new(config(), 2);
        h0.add_count(0, 60);
        assert_eq!(h0.status(), Verdict::AcceptH0);
        assert!(h0.los() < 1e-12);
    }

    #[test]
    fn elo_and_interval_from_pair_scores() {
        // Pentanomial: 3/4 mean score, i.e. +190.85 Elo.
        let mut t = Sprt::new(config(), 4);
        t.add_count(2, 50);
        t.add_count(4, 50);
        close(t.score(), 0.75, 1e-15);
        let e = t.elo();
        close(e.elo, 190.848_501_887_864_8, 1e-9);
        // var = 1/16, N = 100: se = 0.025.
        close(e.low, elo_from_score(0.75 - Z95 * 0.025), 1e-9);
        close(e.high, elo_from_score(0.75 + Z95 * 0.025), 1e-9);
        assert!(e.low < e.elo && e.elo < e.high);
        close(t.los(), normal_cdf(10.0), 1e-12);
    }

    #[test]
    fn los_from_decisive_games() {
        close(los_from_wins_losses(60, 40), 0.977_249_868_051_820_8, 1e-9);
        close(los_from_wins_losses(40, 60), 0.022_750_131_948_179_2, 1e-9);
        close(los_from_wins_losses(7, 7), 0.5, 1e-15);
        close(los_from_wins_losses(0, 0), 0.5, 1e-15);
    }

    #[test]
    fn merge_is_exact_and_checks_steps() {
        let mut a = Sprt::new(config(), 2);
        let mut b = Sprt::new(config(), 2);
        let mut all = Sprt::new(config(), 2);
        for (i, p) in [0u32, 2, 1, 2, 2, 0, 1].into_iter().enumerate() {
            if i % 2 == 0 {
                a.add(p)
            } else {
                b.add(p)
            }
            all.add(p);
        }
        a.merge(&b).unwrap();
        assert_eq!(a, all);
        assert_eq!(a.summary(), all.summary());
        assert_eq!(
            a.merge(&Sprt::new(config(), 4)),
            Err(SprtError::Steps(2, 4))
        );
    }
}
