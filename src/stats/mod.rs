//! Statistics of a run: exact integer tallies ([`Tally`]), and the methods the figures derived
//! from them at the end use: Wilson intervals (cluster-robust by deal), the chi-square seat
//! test, exact histograms with quantiles, p-values. The figures themselves are
//! [`crate::analysis::Summary`].

mod histogram;
mod interval;
mod percent;
mod pvalue;
mod tally;

pub use histogram::{Histogram, Spread};
pub use interval::{
    ChiSquare, ClusterSums, IntervalMethod, MIN_DEALS, RateInterval, clustered_bounded_mean,
    clustered_bounded_mean_of, clustered_loss_mean, clustered_loss_mean_of, clustered_rate,
    clustered_rate_of, design_effect, equal_rates, gamma_loss_interval, rate_interval, t_for_z,
    wilson, wilson_rate, z_for,
};
pub use percent::{pct, pct_interval, signed_pct};
pub use pvalue::PValue;
pub use tally::{Entrant, NO_BOT, Played, Tally};
