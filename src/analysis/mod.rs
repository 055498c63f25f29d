//! Statistics for balancing rule variants and comparing bots.
//!
//! Pure library code, no IO and no game play: the `sweep`, `run --sprt` and `league` commands
//! feed it integer tallies and print what it derives.
//!
//! - [`sprt`]: sequential probability ratio test for a head-to-head over rotation groups, Elo
//!   difference with its interval, likelihood of superiority.
//! - [`sprt_adjusted`]: the luck-adjusted SPRT (normal GLR on luck-adjusted group scores).
//! - [`elo`]: Elo, normalized Elo and LOS of a head-to-head from its pair scores (pentanomial).
//! - [`ratings`]: Plackett-Luce / Bradley-Terry ratings from finishing orders (Hunter's MM
//!   algorithm), bootstrap intervals, and a pairwise win matrix.
//! - [`paired`]: paired comparison of a metric between two variants over shared seeds (by deal,
//!   cluster-robust, when seats are rotated).
//! - [`multiple`]: Holm and Benjamini-Hochberg adjustments of a sweep's p-values.
//! - [`spsa`]: simultaneous perturbation stochastic approximation (Spall; fishtest's schedules),
//!   the optimiser of `aeroplane tune`.
//! - [`luck`]: the luck of each roll by a value net, and luck-adjusted results (docs/LUCK.md).
//! - [`summary`]: the figures of a run's [`Tally`](crate::stats::Tally) at its end ([`Summary`]):
//!   win rates with intervals, the seat test, game lengths, a head-to-head's Elo.
//! - [`vary`]: the `--vary option=v1,v2,...` grammar and the Cartesian product of rule variants.

pub mod elo;
pub mod luck;
pub mod multiple;
pub mod paired;
pub mod ratings;
pub mod sprt;
pub mod sprt_adjusted;
pub mod spsa;
pub mod summary;
pub mod vary;

pub use paired::{PairedIndicators, PairedSummary, PairedSums};
pub use ratings::{Anchor, Finish, FinishTally, Fit, FitOptions, PairMatrix, RatingsError};
pub use sprt::{Sprt, SprtConfig, SprtError, Verdict};
pub use spsa::{Dimension, Spsa, SpsaError, SpsaSettings};
pub use summary::{BotLine, LengthLine, SeatLine, Summary};
pub use vary::{Axis, BASE_AXIS, Level, Setting, Variant, VaryError, variants};

/// The two-sided 95% quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The standard normal cumulative distribution function.
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(-x / std::f64::consts::SQRT_2)
}

/// The two-sided p-value of a standard normal statistic `z`.
pub fn normal_two_sided_p(z: f64) -> f64 {
    (2.0 * normal_cdf(-z.abs())).min(1.0)
}

/// The expected score of a player `elo` logistic-Elo points stronger: `1 / (1 + 10^(-elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The logistic-Elo difference of an expected score in `[0, 1]`: `-400 log10(1/score - 1)`
/// (infinite at 0 and 1).
pub fn elo_from_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-15);
        assert!((normal_cdf(Z95) - 0.975).abs() < 1e-9);
        assert!((normal_cdf(2.0) - 0.977_249_868_051_820_8).abs() < 1e-9);
        assert!((normal_two_sided_p(1.0) - 0.317_310_507_862_914).abs() < 1e-9);
    }

    #[test]
    fn elo_score_round_trip() {
        assert!((elo_from_score(0.75) - 190.848_501_887_864_8).abs() < 1e-9);
        assert!((elo_from_score(0.5)).abs() < 1e-12);
        assert!((score_from_elo(190.848_501_887_864_8) - 0.75).abs() < 1e-12);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }
}
