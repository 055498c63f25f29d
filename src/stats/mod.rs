//! Statistics of a run: exact integer tallies ([`Tally`]), and the figures derived from them at
//! the end ([`Summary`]): win rates with Wilson intervals, the seat-equality test, game-length
//! quantiles.

mod histogram;
mod interval;
mod pvalue;
mod summary;
mod tally;

pub use histogram::{Histogram, Spread};
pub use interval::{
    ChiSquare, IntervalMethod, MIN_DEALS, RateInterval, clustered_bounded_mean, clustered_rate,
    design_effect, equal_rates, rate_interval, t_for_z, wilson, wilson_rate, z_for,
};
pub use pvalue::PValue;
pub use summary::{BotLine, LengthLine, SeatLine, Summary};
pub use tally::{Entrant, NO_BOT, Played, Tally};
