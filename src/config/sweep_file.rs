//! Sweep configs: a TOML file with the sweep's base and a `[sweep]` table of varied options.
//!
//! ```toml
//! rules = "classic"
//! bots = "greedy,greedy,greedy,greedy"
//! games = 20000
//! seed = 1
//! [sweep]
//! overshoot = ["illegal", "bounce"]
//! launch_rolls = [[6], [5, 6]]
//! ```
//! The command line overrides `rules`, `bots`, `games` and `seed`; its `--vary` axes come after
//! the file's. A TOML table has no order: the file's axes go in rule-option order.

use std::path::Path;

use serde::Deserialize;

use crate::analysis::{Axis, VaryError};
use aeroplane_core::RuleOption;

/// A sweep config as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepConfigFile {
    /// The base rules: a preset or a variant file.
    pub rules: Option<String>,
    /// The lineup, comma-separated.
    pub bots: Option<String>,
    /// Deals per variant.
    pub games: Option<u64>,
    /// Master seed.
    pub seed: Option<u64>,
    /// `option = [values]`.
    #[serde(default)]
    pub sweep: toml::Table,
}

/// Why a sweep config cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SweepConfigError {
    /// The file cannot be read.
    #[error("cannot read sweep config {file}")]
    Io {
        /// The path.
        file: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Bad TOML or an unknown key.
    #[error("in sweep config {file}: {message}\n(allowed keys: rules, bots, games, seed, [sweep])")]
    Parse {
        /// The path.
        file: String,
        /// What was wrong.
        message: String,
    },
    /// A `[sweep]` entry is invalid.
    #[error("[sweep] in {file}")]
    Axis {
        /// The path.
        file: String,
        /// What was wrong.
        #[source]
        source: VaryError,
    },
}

impl SweepConfigFile {
    /// Reads and parses a sweep config.
    pub fn load(path: &Path) -> Result<SweepConfigFile, SweepConfigError> {
        let file = aeroplane_core::excerpt::path(path);
        let text = crate::files::read_text(path).map_err(|source| SweepConfigError::Io {
            file: file.clone(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| SweepConfigError::Parse {
            file,
            message: aeroplane_core::excerpt::clip_message(e),
        })
    }

    /// The `[sweep]` axes, in rule-option order; `file` names the config in errors.
    pub fn axes(&self, file: &str) -> Result<Vec<Axis>, SweepConfigError> {
        let mut entries: Vec<_> = self.sweep.iter().collect();
        entries.sort_by_key(|(o, _)| RuleOption::from_name(o));
        entries
            .into_iter()
            .map(|(option, values)| {
                Axis::from_toml(option, values).map_err(|source| SweepConfigError::Axis {
                    file: file.to_string(),
                    source,
                })
            })
            .collect()
    }
}
