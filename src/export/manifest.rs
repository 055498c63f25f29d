//! `run.json`: one versioned manifest for every job (run, SPRT, sweep, league): everything
//! needed to reproduce it exactly, and its status (running, complete, interrupted, failed) with
//! the games actually played.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::analysis::luck::LuckPly;
use crate::bots::registry::{BotError, resolve};
use crate::runner::RunSpec;
use aeroplane_core::{RulesError, RulesSpec};

/// The manifest's file name in an output directory.
pub const MANIFEST_FILE: &str = "run.json";

/// How game indices are numbered, written into every manifest.
const NUMBERING: &str = "game = deal * games_per_deal + rotation, games_per_deal = players with rotate_seats else 1; deal d uses dice SeededDice(seed, d) and bot seeds bot_stream(seed, d, seat); in rotation r the k-th seat in play holds bot (k + r) mod players";

/// The manifest format this build writes (and the newest it reads). Manifests without a
/// `format` key (format 0, written before jobs had a status) are read too.
pub const MANIFEST_FORMAT: u32 = 1;

/// Where a job stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    /// Started and not finished (or the process was killed).
    Running,
    /// Every planned game was played, or a sequential test decided.
    Complete,
    /// Stopped by a signal before the end.
    Interrupted,
    /// Stopped by an error (see `error`).
    Failed,
    /// Summarised from an incomplete set of shards (`merge --allow-partial`).
    Partial,
}

/// A job's manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The manifest format ([`MANIFEST_FORMAT`]); 0 when absent (older manifests).
    #[serde(default)]
    pub format: u32,
    /// Always `aeroplane`.
    pub tool: String,
    /// The version that wrote it.
    pub version: String,
    /// The job: `run`, `sweep` or `league` (an SPRT is a `run` with an `sprt` section).
    #[serde(default = "default_command")]
    pub command: String,
    /// Where the job stands; absent in format 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<JobStatus>,
    /// Why the job failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
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
    /// Games the job plans to play (all parts); absent in format 0.
    #[serde(default)]
    pub games_planned: u64,
    /// Games played so far (format 0: the games planned).
    pub games_played: u64,
    /// Whether games.csv was written.
    pub per_game: bool,
    /// The decision log the job writes into its folder (`run --log-games NAME`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_games: Option<String>,
    /// With `log_games`: the position is on every `log_positions`-th decision line of a game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_positions: Option<u32>,
    /// The net files every roll's luck was measured with (`--luck`; docs/LUCK.md): one for a
    /// run or a league (written as a string), one or more for a sweep (each variant measured
    /// by the net of its rules; written as a list when more than one).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "one_or_many")]
    pub luck: Vec<String>,
    /// The checksums of the `luck` nets, in the same order (FNV-1a 64 of their tensors, 16 hex
    /// digits, as in a net file's metadata): `resume`, `merge` and `--manifest` refuse a net
    /// file that is no longer the net the job measured with. Absent in manifests written
    /// before it was recorded (their nets are not checked).
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "one_or_many")]
    pub luck_checksum: Vec<String>,
    /// The depth the luck was measured at (`--luck-ply`, 0 to 3; docs/LUCK.md); absent for 0.
    #[serde(default, skip_serializing_if = "LuckPly::is_zero")]
    pub luck_ply: LuckPly,
    /// Whether a failing bot program forfeited its game instead of stopping the job (`run
    /// --recover`; the `forfeits` columns).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recover: bool,
    /// Whether the job writes `report.html` when it is complete (`--report`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub report: bool,
    /// Deals per unit of work: the plan that checkpoints, resumes and shards share (0 in
    /// format 0, where it was not recorded).
    #[serde(default)]
    pub unit_deals: u64,
    /// The shard of the plan this folder holds, if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardSection>,
    /// How games are numbered and seeded.
    pub numbering: String,
    /// A sequential test's settings and outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<SprtSection>,
    /// A sweep's axes and variants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepSection>,
    /// A league's pool schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub league: Option<LeagueSection>,
    /// A tune's parameters, schedules and confirmation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<TuneSection>,
    /// While this folder is the output of a merge that has not finished: the shards it merges,
    /// so `aeroplane resume` can merge them again. Absent once the merge is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<MergeSection>,
}

/// The shards an unfinished merge reads (`run.json` of its output folder).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MergeSection {
    /// The shards' folders, as absolute paths.
    pub shards: Vec<String>,
    /// Whether an incomplete set was asked for (`--allow-partial`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_partial: bool,
}

/// One shard of a job's plan: units `index`, `index + count`, `index + 2 count`, ... (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardSection {
    /// 0-based shard index.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

fn default_command() -> String {
    "run".to_string()
}

/// `run --sprt`: what reproduces the test's stopping point exactly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprtSection {
    /// The test as `--sprt` takes it.
    pub test: String,
    /// Deals per check of the test (where it can stop).
    pub chunk_deals: u64,
    /// The outcome: `h0`, `h1`, `inconclusive`; absent while running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

/// `sweep`: the varied options; the manifest's `rules` are the base.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSection {
    /// The lineup as the user wrote it (the title shows it).
    pub bots: String,
    /// The axes as `--vary` takes them, in product order.
    pub vary: Vec<String>,
    /// The variants' labels, in product order (sweep.csv's `index` order).
    pub variants: Vec<String>,
    /// The compared variants (1-based), if any.
    pub compare: Option<[usize; 2]>,
    /// The sort of the printed table ([`DEFAULT_SORT`] unless told otherwise).
    pub sort: String,
}

/// A sweep's sort of the printed table unless told otherwise: fairest first.
pub const DEFAULT_SORT: &str = "max_seat_edge";

/// `league`: the manifest's `bots` are the pool, `players` the table size, `games` the deals
/// per table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeagueSection {
    /// Bootstrap resamples of the rating intervals ([`DEFAULT_BOOTSTRAP`] unless told
    /// otherwise).
    pub bootstrap: u32,
    /// Each table's bots in seat order.
    pub tables: Vec<Vec<String>>,
    /// How tables are formed and seeded.
    pub schedule: String,
}

/// A league's bootstrap resamples unless told otherwise.
pub const DEFAULT_BOOTSTRAP: u32 = 200;

/// `tune`: the manifest's `bots` are the bot tuned (at its starting values) and, if any, the
/// fixed opponent; `games` is the deals per iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneSection {
    /// The tuned parameters and their ranges, in order.
    pub params: Vec<TuneParamSection>,
    /// Iterations.
    pub iterations: u64,
    /// Deals per iteration.
    pub pairs_per_iteration: u64,
    /// The exponent of the gain sequence.
    pub alpha: f64,
    /// The exponent of the perturbation sequence.
    pub gamma: f64,
    /// The stability constant `A`.
    pub stability: f64,
    /// The first perturbation, as a share of each range.
    pub perturbation: f64,
    /// The first step of a noise-sized result, as a share of each range.
    pub step: f64,
    /// Whether `bots[1]` is a fixed opponent (else the two perturbed bots play each other).
    pub opponent: bool,
    /// Who sits where and how games score.
    pub design: String,
    /// The confirming SPRT, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<ConfirmSection>,
    /// For a confirmation of an earlier tune only: the tuned values it tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<Vec<f64>>,
}

/// One tuned parameter's range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneParamSection {
    /// The parameter.
    pub name: String,
    /// The smallest value tried.
    pub lo: f64,
    /// The largest value tried.
    pub hi: f64,
}

/// A tune's confirming SPRT: the tuned profile against the start on fresh deals.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfirmSection {
    /// The test as `--sprt` takes it.
    pub test: String,
    /// The most deals before the test is called inconclusive.
    pub max_pairs: u64,
    /// Deals per check of the test.
    pub chunk_deals: u64,
    /// The outcome: `h0`, `h1`, `inconclusive`; absent while running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
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
    /// The bot as the user gave it, where that is not its name (a profile given by its path):
    /// what a printed command names it by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub given: Option<String>,
}

impl From<&crate::bots::registry::BotSpec> for ManifestBot {
    fn from(b: &crate::bots::registry::BotSpec) -> ManifestBot {
        ManifestBot {
            name: b.name.clone(),
            kind: b.kind.clone(),
            params: b
                .params
                .iter()
                .map(|(k, v)| (k.to_string(), serde_json::to_value(v).expect("param")))
                .collect(),
            external: b.external.clone(),
            given: b.given.clone(),
        }
    }
}

impl ManifestBot {
    /// The bot as a command line names it: as the user gave it (a profile's path), else by
    /// its name.
    pub fn as_given(&self) -> &str {
        self.given.as_deref().unwrap_or(&self.name)
    }

    /// The bot, its kind and parameters checked again; `file` and `index` name it in errors.
    pub fn spec(
        &self,
        file: &str,
        index: usize,
    ) -> Result<crate::bots::registry::BotSpec, ManifestError> {
        let params = self
            .params
            .iter()
            .map(|(k, v)| (k.clone(), json_to_toml(v)))
            .collect();
        let err = |source| ManifestError::Bot {
            file: file.to_string(),
            index,
            source: Box::new(source),
        };
        let mut spec = resolve(&self.name, &self.kind, &params, file).map_err(err)?;
        spec.given.clone_from(&self.given);
        if spec.kind == crate::bots::registry::EXTERNAL {
            spec.external = Some(self.external.clone().ok_or_else(|| {
                err(BotError::Profile {
                    origin: file.to_string(),
                    message: format!(
                        "bot {} of kind external has no `external` command",
                        self.name
                    ),
                })
            })?);
        }
        Ok(spec)
    }
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
    /// The depth the luck was measured at when not 0 (the setting `luck_ply` as given).
    pub fn given_luck_ply(&self) -> Option<LuckPly> {
        (!self.luck_ply.is_zero()).then_some(self.luck_ply)
    }

    /// The manifest of a run whose rules were given as `rules_name`, status running.
    pub fn new(spec: &RunSpec, rules_name: &str, per_game: bool) -> Manifest {
        Manifest {
            format: MANIFEST_FORMAT,
            tool: "aeroplane".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            command: default_command(),
            status: Some(JobStatus::Running),
            error: None,
            rules_name: rules_name.to_string(),
            rules: serde_json::to_value(spec.rules).expect("rules serialize"),
            bots: spec.lineup.iter().map(ManifestBot::from).collect(),
            players: spec.players(),
            seed: spec.seed,
            first_game: spec.first_deal,
            games: spec.deals,
            rotate_seats: spec.rotate_seats,
            games_planned: spec.total_games(),
            games_played: 0,
            per_game,
            log_games: None,
            log_positions: None,
            luck: Vec::new(),
            luck_checksum: Vec::new(),
            luck_ply: LuckPly::ZERO,
            recover: false,
            report: false,
            unit_deals: 0,
            shard: None,
            numbering: NUMBERING.to_string(),
            sprt: None,
            sweep: None,
            league: None,
            tune: None,
            merge: None,
        }
    }

    /// What defines the job and its results: every field but its status, error, games
    /// played and the merge in progress. Two folders of one job (a run and its resume, or
    /// shards, with `shard` cleared) have equal identities.
    pub fn identity(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).expect("manifest serializes");
        let map = v.as_object_mut().expect("an object");
        for k in ["status", "error", "games_played", "merge"] {
            map.remove(k);
        }
        v
    }

    /// The keys in which two identities differ, e.g. `rules, seed`. A `luck_checksum` only
    /// one of them has is no difference: folders written before it was recorded still resume
    /// and merge.
    pub fn differences(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
        let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
            return vec!["everything".into()];
        };
        let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .filter(|k| {
                *k != "luck_checksum" || (a.contains_key(k.as_str()) && b.contains_key(k.as_str()))
            })
            .filter(|k| a.get(*k) != b.get(*k))
            .cloned()
            .collect()
    }

    /// Records the end of the job: its status, the games played and any error.
    pub fn finish(&mut self, status: JobStatus, games_played: u64, error: Option<String>) {
        self.status = Some(status);
        self.games_played = games_played;
        self.error = error;
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
            file: aeroplane_core::excerpt::path(path),
            message,
        };
        let text = crate::files::read_text(path).map_err(|e| read(e.to_string()))?;
        let m: Manifest = serde_json::from_str(&text)
            .map_err(|e| read(aeroplane_core::excerpt::clip_message(e)))?;
        m.check(&aeroplane_core::excerpt::path(path))?;
        Ok(m)
    }

    /// Checks what a manifest claims about itself: its tool, its format, a luck ply other
    /// than 0 only with a luck net (0 to 3 is checked as it is read), complete rules, and a `rules_name` that does not
    /// contradict them.
    pub fn check(&self, file: &str) -> Result<(), ManifestError> {
        let read = |message: String| ManifestError::Read {
            file: file.to_string(),
            message,
        };
        if self.tool != "aeroplane" {
            return Err(read(format!(
                "written by `{}`, not by aeroplane",
                self.tool
            )));
        }
        if self.format > MANIFEST_FORMAT {
            return Err(read(format!(
                "manifest format {} (written by aeroplane {}) is newer than this build reads (format {MANIFEST_FORMAT}, aeroplane {}): use a newer aeroplane",
                self.format,
                self.version,
                env!("CARGO_PKG_VERSION")
            )));
        }
        if !matches!(self.command.as_str(), "run" | "sweep" | "league" | "tune") {
            return Err(read(format!(
                "unknown command `{}` (allowed: run, sweep, league, tune)",
                self.command
            )));
        }
        let full = serde_json::to_value(aeroplane_core::Rules::default()).expect("rules");
        let (Some(want), Some(have)) = (full.as_object(), self.rules.as_object()) else {
            return Err(read(
                "`rules` must be an object of every rule option".into(),
            ));
        };
        let missing: Vec<&str> = want
            .keys()
            .filter(|k| !have.contains_key(*k))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(read(format!(
                "`rules` lacks {}: a manifest spells out every rule option",
                missing.join(", ")
            )));
        }
        if !self.luck_checksum.is_empty() && self.luck_checksum.len() != self.luck.len() {
            return Err(read(format!(
                "`luck_checksum` holds {} checksum(s) for the {} net(s) of `luck`: one per net",
                self.luck_checksum.len(),
                self.luck.len()
            )));
        }
        if let Some(bad) = self.luck_checksum.iter().find(|c| {
            c.len() != 16
                || !c
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        }) {
            return Err(read(format!(
                "`luck_checksum` `{}` is not a net checksum (16 lowercase hex digits)",
                aeroplane_core::excerpt::excerpt(bad)
            )));
        }
        if !self.luck_ply.is_zero() && self.luck.is_empty() {
            return Err(read(format!(
                "`luck_ply` is {} but `luck` names no net to measure with",
                self.luck_ply
            )));
        }
        let rules = self.rules(file)?;
        if let Ok(preset) = self.rules_name.parse::<aeroplane_core::Preset>()
            && preset.rules() != rules
        {
            return Err(read(format!(
                "`rules_name` says the preset {} but `rules` differ from it",
                preset.name()
            )));
        }
        Ok(())
    }

    /// The manifest's rules, validated.
    pub fn rules(&self, file: &str) -> Result<aeroplane_core::Rules, ManifestError> {
        serde_json::from_value::<RulesSpec>(self.rules.clone())
            .map_err(|e| RulesError::Parse(e.to_string()))
            .and_then(|s| s.validate())
            .map_err(|source| ManifestError::Rules {
                file: file.to_string(),
                source,
            })
    }

    /// The bots it lists, resolved again (the lineup of a run, the pool of a league).
    pub fn bot_specs(
        &self,
        file: &str,
    ) -> Result<Vec<crate::bots::registry::BotSpec>, ManifestError> {
        self.bots
            .iter()
            .enumerate()
            .map(|(index, b)| b.spec(file, index))
            .collect::<Result<Vec<_>, _>>()
    }

    /// The run it describes, with rules and bots checked again; `file` names it in errors.
    pub fn spec(&self, file: &str) -> Result<RunSpec, ManifestError> {
        if self.command != "run" {
            return Err(ManifestError::Read {
                file: file.to_string(),
                message: format!(
                    "it describes a {}, not a run: give the run.json of an `aeroplane run`",
                    self.command
                ),
            });
        }
        let rules = self.rules(file)?;
        let lineup = self.bot_specs(file)?;
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
        let spec = RunSpec {
            rules,
            lineup,
            seed: self.seed,
            first_deal: self.first_game,
            deals: self.games,
            rotate_seats: self.rotate_seats,
        };
        spec.validate().map_err(|e| ManifestError::Read {
            file: file.to_string(),
            message: e.to_string(),
        })?;
        Ok(spec)
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

/// A list of strings written as one string when it holds one, as a list otherwise (the
/// manifest's `luck`: a run's one net stays a string); either is read.
mod one_or_many {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }

    pub fn serialize<S: Serializer>(v: &[String], s: S) -> Result<S::Ok, S::Error> {
        match v {
            [one] => one.serialize(s),
            many => many.serialize(s),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        Ok(match OneOrMany::deserialize(d)? {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        })
    }
}
