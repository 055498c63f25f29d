//! `run.json`: everything needed to reproduce a run exactly.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::bots::registry::{BotError, resolve};
use crate::engine::rules::{RulesError, RulesSpec};
use crate::runner::RunSpec;

/// The manifest's file name in an output directory.
pub const MANIFEST_FILE: &str = "run.json";

/// How game indices are numbered, written into every manifest.
const NUMBERING: &str = "game = deal * games_per_deal + rotation, games_per_deal = players with rotate_seats else 1; deal d uses dice SeededDice(seed, d) and bot seeds bot_stream(seed, d, seat); in rotation r the k-th seat in play holds bot (k + r) mod players";

/// A run's manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always `aeroplane`.
    pub tool: String,
    /// The version that wrote it.
    pub version: String,
    /// The rules as named on the command line or in a config (a preset, a path, ...).
    pub rules_name: String,
    /// Every rule option, resolved.
    pub rules: serde_json::Value,
    /// The lineup in seat order (rotation 0), each with every parameter.
    pub bots: Vec<ManifestBot>,
    /// Number of players.
    pub players: usize,
    /// Master seed.
    pub seed: u64,
    /// First deal index.
    pub first_game: u64,
    /// Number of deals.
    pub games: u64,
    /// Whether every deal is played once per rotation.
    pub rotate_seats: bool,
    /// Games played: `games` times the rotations.
    pub games_played: u64,
    /// Whether games.csv was written.
    pub per_game: bool,
    /// How games are numbered and seeded.
    pub numbering: String,
}

/// One bot of the lineup.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ManifestBot {
    /// Display name.
    pub name: String,
    /// Kind.
    pub kind: String,
    /// Every parameter.
    pub params: BTreeMap<String, serde_json::Value>,
    /// For a bot program: its command, working directory, environment and timeouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<crate::bots::external::ExternalSpec>,
}

/// Why a manifest could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// Unreadable or not a manifest.
    #[error("manifest {file}: {message}")]
    Read {
        /// The path.
        file: String,
        /// What was wrong.
        message: String,
    },
    /// Its rules are invalid.
    #[error("manifest {file}: rules: {source}")]
    Rules {
        /// The path.
        file: String,
        /// What was wrong.
        source: RulesError,
    },
    /// A bot is unknown to this build.
    #[error("manifest {file}: bot {index}: {source}")]
    Bot {
        /// The path.
        file: String,
        /// Lineup index.
        index: usize,
        /// What was wrong.
        source: Box<BotError>,
    },
}

impl Manifest {
    /// The manifest of a run whose rules were given as `rules_name`.
    pub fn new(spec: &RunSpec, rules_name: &str, per_game: bool) -> Manifest {
        Manifest {
            tool: "aeroplane".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            rules_name: rules_name.to_string(),
            rules: serde_json::to_value(spec.rules).expect("rules serialize"),
            bots: spec
                .lineup
                .iter()
                .map(|b| ManifestBot {
                    name: b.name.clone(),
                    kind: b.kind.clone(),
                    params: b
                        .params
                        .iter()
                        .map(|(k, v)| (k.to_string(), serde_json::to_value(v).expect("param")))
                        .collect(),
                    external: b.external.clone(),
                })
                .collect(),
            players: spec.players(),
            seed: spec.seed,
            first_game: spec.first_deal,
            games: spec.deals,
            rotate_seats: spec.rotate_seats,
            games_played: spec.total_games(),
            per_game,
            numbering: NUMBERING.to_string(),
        }
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("manifest serializes");
        s.push('\n');
        s
    }

    /// Reads a manifest file.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let read = |message: String| ManifestError::Read {
            file: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| read(e.to_string()))?;
        serde_json::from_str(&text).map_err(|e| read(e.to_string()))
    }

    /// The run it describes, with rules and bots checked again; `file` names it in errors.
    pub fn spec(&self, file: &str) -> Result<RunSpec, ManifestError> {
        let rules = serde_json::from_value::<RulesSpec>(self.rules.clone())
            .map_err(|e| RulesError::Parse(e.to_string()))
            .and_then(|s| s.validate())
            .map_err(|source| ManifestError::Rules {
                file: file.to_string(),
                source,
            })?;
        let lineup = self
            .bots
            .iter()
            .enumerate()
            .map(|(index, b)| {
                let params = b
                    .params
                    .iter()
                    .map(|(k, v)| (k.clone(), json_to_toml(v)))
                    .collect();
                let err = |source| ManifestError::Bot {
                    file: file.to_string(),
                    index,
                    source: Box::new(source),
                };
                let mut spec = resolve(&b.name, &b.kind, &params, file).map_err(err)?;
                if spec.kind == crate::bots::registry::EXTERNAL {
                    spec.external = Some(b.external.clone().ok_or_else(|| {
                        err(BotError::Profile {
                            origin: file.to_string(),
                            message: format!(
                                "bot {} of kind external has no `external` command",
                                b.name
                            ),
                        })
                    })?);
                }
                Ok(spec)
            })
            .collect::<Result<Vec<_>, _>>()?;
        if lineup.len() != self.players {
            return Err(ManifestError::Read {
                file: file.to_string(),
                message: format!(
                    "{} bots listed but players = {}",
                    lineup.len(),
                    self.players
                ),
            });
        }
        Ok(RunSpec {
            rules,
            lineup,
            seed: self.seed,
            first_deal: self.first_game,
            deals: self.games,
            rotate_seats: self.rotate_seats,
        })
    }
}

fn json_to_toml(v: &serde_json::Value) -> toml::Value {
    match v {
        serde_json::Value::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        serde_json::Value::String(s) => toml::Value::String(s.clone()),
        serde_json::Value::Bool(b) => toml::Value::Boolean(*b),
        other => toml::Value::String(other.to_string()),
    }
}
