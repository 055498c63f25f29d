//! Why a tune cannot run: each error names the parameter or setting and what is allowed.

use crate::analysis::spsa::SpsaError;
use crate::bots::registry::BotError;

/// Why a tune cannot run.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A range that is not `NAME=LO..HI`.
    #[error("bad parameter range `{0}`: write NAME=LO..HI, e.g. progress=0.5..3")]
    RangeSyntax(String),
    /// An end of a range that is not a number.
    #[error(
        "parameter `{param}`: `{text}` is not a number (write NAME=LO..HI, e.g. progress=0.5..3)"
    )]
    NotANumber {
        /// The parameter.
        param: String,
        /// The text given.
        text: String,
    },
    /// An end of a range that is infinite or NaN.
    #[error("parameter `{param}`: `{text}` is not a finite number: a range must have finite ends")]
    NotFinite {
        /// The parameter.
        param: String,
        /// The text given.
        text: String,
    },
    /// A parameter the bot's kind does not have.
    #[error(
        "bot `{bot}` (kind {kind}) has no parameter `{param}`{}",
        unknown_tail(param, kind, known, elsewhere)
    )]
    UnknownParam {
        /// The bot.
        bot: String,
        /// Its kind.
        kind: String,
        /// The parameter given.
        param: String,
        /// The kind's parameters.
        known: String,
        /// Other kinds that have a parameter of that name.
        elsewhere: String,
    },
    /// A parameter that takes words.
    #[error(
        "parameter `{param}` of {kind} takes words ({allowed}): only numeric parameters can be tuned"
    )]
    WordParam {
        /// The kind.
        kind: String,
        /// The parameter.
        param: String,
        /// Its words.
        allowed: String,
    },
    /// A range beyond what the kind allows.
    #[error("parameter `{param}`: the range {range} goes beyond what {kind} allows ({allowed})")]
    BeyondKind {
        /// The kind.
        kind: String,
        /// The parameter.
        param: String,
        /// The range given.
        range: String,
        /// What the kind allows.
        allowed: String,
    },
    /// The bot's starting value is outside the range.
    #[error(
        "parameter `{param}`: the bot's {param} is {value}, outside the range {range}: widen the range, or give the bot a starting value inside it (inline, e.g. `{bot}:{param}=...`)"
    )]
    StartOutside {
        /// The bot.
        bot: String,
        /// The parameter.
        param: String,
        /// The bot's value.
        value: f64,
        /// The range.
        range: String,
    },
    /// A bot that cannot be tuned.
    #[error("bot `{bot}` cannot be tuned: {why}")]
    NotTunable {
        /// The bot.
        bot: String,
        /// Why.
        why: String,
    },
    /// A player count out of range.
    #[error("a tune plays games of 2, 3 or 4 players, not {0}")]
    Players(usize),
    /// The deals would not fit in 64-bit indices.
    #[error(
        "iterations x pairs per iteration plus the confirmation's pairs is too large: deal indices must fit in 64 bits"
    )]
    TooManyDeals,
    /// A confirmation setting out of range.
    #[error("bad confirmation {what} {value}: allowed is {allowed}")]
    Confirm {
        /// The setting.
        what: &'static str,
        /// The value given.
        value: u64,
        /// What is allowed.
        allowed: &'static str,
    },
    /// A confirmation of a tune that does not move.
    #[error(
        "with step 0 the point never moves (the tune estimates the gradient at the start): there is nothing to confirm"
    )]
    NothingToConfirm,
    /// Tuned values that do not fit the parameters (a confirmation of an earlier tune).
    #[error("the tuned values to confirm do not fit the parameters: {0}")]
    Given(String),
    /// A range or setting of the optimiser.
    #[error(transparent)]
    Spsa(#[from] SpsaError),
    /// A bot at a tuned point.
    #[error(transparent)]
    Bot(#[from] BotError),
}

/// The end of an unknown-parameter message: where the name does belong, or a close name, then
/// the kind's parameters.
fn unknown_tail(param: &str, kind: &str, known: &str, elsewhere: &str) -> String {
    if !elsewhere.is_empty() {
        return format!(
            ": `{param}` is a parameter of {elsewhere}, not of {kind}; {kind}'s parameters are {known}"
        );
    }
    aeroplane_core::suggest::tail(
        param,
        known.split(", "),
        &format!("its parameters are {known}"),
    )
}
