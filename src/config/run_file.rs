//! Run configs: a TOML file setting what `aeroplane run` takes on the command line.
//!
//! ```toml
//! rules = "classic"            # a preset, a variant file, or an inline [rules] table
//! bots = ["greedy", "random", "random", "random"]   # or "greedy,random,random,random"
//! games = 100000
//! seed = 1
//! rotate_seats = true
//! out = "results/classic"
//! ```
//! Every key is optional; unknown keys are errors. Paths are relative to the directory
//! `aeroplane` runs in, as on the command line.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use aeroplane_core::{Rules, RulesError, RulesSpec};

use super::rules_file::{RulesFileError, load_rules};

/// A run config as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunConfigFile {
    /// A preset name or variant file (string), or an inline variant (table).
    pub rules: Option<toml::Value>,
    /// The lineup: a list of bots or one comma-separated string.
    pub bots: Option<Lineup>,
    /// Number of deals (games without rotation).
    pub games: Option<u64>,
    /// Master seed.
    pub seed: Option<u64>,
    /// First deal index (for shards).
    pub first_game: Option<u64>,
    /// Worker threads (0 = one per core).
    pub threads: Option<usize>,
    /// Deals per chunk.
    pub chunk_size: Option<u64>,
    /// Output directory.
    pub out: Option<PathBuf>,
    /// Write games.csv.
    pub per_game: Option<bool>,
    /// Play every deal once per rotation of the lineup.
    pub rotate_seats: Option<bool>,
    /// No progress bar or timing line.
    pub quiet: Option<bool>,
    /// Directory of bot profiles.
    pub bots_dir: Option<PathBuf>,
}

/// A lineup as written in a config.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Lineup {
    /// `["greedy", "random"]`
    List(Vec<String>),
    /// `"greedy,random"`
    Text(String),
}

impl Lineup {
    /// The lineup as the command line writes it: comma-separated.
    pub fn to_arg(&self) -> String {
        match self {
            Lineup::List(v) => v.join(","),
            Lineup::Text(s) => s.clone(),
        }
    }
}

/// Why a run config could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read run config {file}")]
    Read {
        /// The path.
        file: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// Bad TOML, an unknown key or a wrong type.
    #[error(
        "in run config {file}: {message}\n(allowed keys: rules, bots, games, seed, first_game, threads, chunk_size, out, per_game, rotate_seats, quiet, bots_dir)"
    )]
    Parse {
        /// The path.
        file: String,
        /// What was wrong.
        message: String,
    },
    /// The `rules` entry is invalid.
    #[error("in run config {file}, `rules`")]
    Rules {
        /// The path.
        file: String,
        /// What was wrong.
        #[source]
        source: RulesFileError,
    },
}

impl RunConfigFile {
    /// Reads and parses a run config file.
    pub fn load(path: &Path) -> Result<RunConfigFile, ConfigError> {
        let file = aeroplane_core::excerpt::path(path);
        let text = crate::files::read_text(path).map_err(|source| ConfigError::Read {
            file: file.clone(),
            source,
        })?;
        Self::parse(&text, &file)
    }

    /// Parses run config text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<RunConfigFile, ConfigError> {
        let cfg: RunConfigFile = toml::from_str(text).map_err(|e| ConfigError::Parse {
            file: file.to_string(),
            message: aeroplane_core::excerpt::clip_message(e),
        })?;
        if let Some(v) = &cfg.rules {
            cfg.resolve_rules(v, file)?;
        }
        Ok(cfg)
    }

    /// The config's rules, if it sets them: a preset, a variant file, or an inline table.
    pub fn rules(&self, file: &str) -> Result<Option<Rules>, ConfigError> {
        self.rules
            .as_ref()
            .map(|v| self.resolve_rules(v, file))
            .transpose()
    }

    fn resolve_rules(&self, v: &toml::Value, file: &str) -> Result<Rules, ConfigError> {
        let wrap = |source: RulesFileError| ConfigError::Rules {
            file: file.to_string(),
            source,
        };
        match v {
            toml::Value::String(name) => load_rules(name).map_err(wrap),
            toml::Value::Table(t) => {
                let spec = RulesSpec::deserialize(toml::Value::Table(t.clone())).map_err(|e| {
                    wrap(RulesError::Parse(aeroplane_core::excerpt::clip_message(e)).into())
                })?;
                spec.validate().map_err(|e| wrap(e.into()))
            }
            other => Err(ConfigError::Parse {
                file: file.to_string(),
                message: format!(
                    "`rules` must be a preset name, a variant file path or a table, not {}",
                    other.type_str()
                ),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::Preset;
    use aeroplane_core::excerpt::chain as error_chain;

    #[test]
    fn a_full_config_parses() {
        let cfg = RunConfigFile::parse(
            "rules = \"classic\"\nbots = [\"greedy\", \"random\"]\ngames = 10\nseed = 3\nrotate_seats = true\n",
            "x.toml",
        )
        .unwrap();
        assert_eq!(cfg.rules("x").unwrap(), Some(Preset::Classic.rules()));
        assert_eq!(cfg.bots.unwrap().to_arg(), "greedy,random");
        assert_eq!(
            (cfg.games, cfg.seed, cfg.rotate_seats),
            (Some(10), Some(3), Some(true))
        );
    }

    #[test]
    fn inline_rules_tables_validate() {
        let cfg = RunConfigFile::parse("[rules]\nbase = \"chinese\"\nhome_lane_cells = 4\n", "x")
            .unwrap();
        let r = cfg.rules("x").unwrap().unwrap();
        assert_eq!(r.home_lane_cells(), 4);
        let bad = RunConfigFile::parse("[rules]\nhome_lane_cells = 9\n", "x").unwrap_err();
        let bad = error_chain(&bad);
        assert!(bad.contains("home_lane_cells"), "{bad}");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let e = RunConfigFile::parse("gamez = 3\n", "c.toml").unwrap_err();
        assert!(
            e.to_string().contains("gamez") && e.to_string().contains("allowed keys"),
            "{e}"
        );
        let e = RunConfigFile::parse("games = -3\n", "c.toml").unwrap_err();
        assert!(e.to_string().contains("c.toml"), "{e}");
        let e = RunConfigFile::parse("rules = \"nope\"\n", "c.toml").unwrap_err();
        let e = error_chain(&e);
        assert!(e.starts_with("in run config c.toml, `rules`: "), "{e}");
        assert_eq!(e.matches("nope").count(), 1, "{e}");
    }
}
