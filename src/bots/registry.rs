//! Bot kinds, their parameters, and profiles: how a name on the command line becomes a bot.
//! Text only: finding profile files on disk is [`crate::config::profiles`]'s job.
//!
//! A bot is named on the command line in one of three ways:
//! - a profile name: `bots/<name>.toml` in the bots directory, or a profile built into the binary
//!   (every file shipped in `bots/` is);
//! - a path to a profile file (it contains `/` or ends in `.toml`);
//! - a kind or profile name with inline parameters: `expectimax:depth=3:weight_home=2.5`.
//!
//! A profile is TOML: `kind = "..."`, an optional `description`, and a `[params]` table. Every
//! parameter is checked against its kind's [`ParamDef`]s; unknown kinds and parameters, and values
//! out of range, are errors that list what is allowed.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::external::{ExternalBot, ExternalSpec, ProfileKeys};
pub use super::params::{ParamDef, ParamKind, ParamValue, Params};
use super::{Bot, Greedy, RandomBot, exact, expectimax, mcts, montecarlo, td};

/// A kind of bot: its name, its parameters, and how to build one.
pub struct KindDef {
    /// The kind's name.
    pub name: &'static str,
    /// One line describing it.
    pub summary: &'static str,
    /// Its parameters.
    pub params: &'static [ParamDef],
    /// Builds a bot from fully resolved parameters (every parameter present and valid).
    pub build: fn(name: &str, params: &Params) -> Box<dyn Bot>,
}

/// Every bot kind the binary knows.
pub fn kinds() -> &'static [KindDef] {
    &KINDS
}

/// The parameters of a kind (built in or registered); `None` for an unknown kind.
pub fn kind_params(kind: &str) -> Option<&'static [ParamDef]> {
    find_kind(kind).map(|k| k.params)
}

/// The kinds (built in, then registered) that have a parameter called `name`.
pub fn kinds_with_param(name: &str) -> Vec<&'static str> {
    let reg = REGISTERED.read().expect("lock");
    KINDS
        .iter()
        .chain(reg.iter().copied())
        .filter(|k| k.params.iter().any(|p| p.name == name))
        .map(|k| k.name)
        .collect()
}

/// The kind of bot programs (`docs/PROTOCOL.md`): its profile names a command instead of
/// parameters it checks; its `[params]` go to the program as they are.
pub const EXTERNAL: &str = "external";

static KINDS: [KindDef; 8] = [
    KindDef {
        name: "random",
        summary: "uniform among the distinct legal moves",
        params: &[],
        build: |_, _| Box::new(RandomBot::default()),
    },
    KindDef {
        name: "greedy",
        summary: "fixed priority: capture, jump or flight, launch, else any move; furthest plane first",
        params: &[],
        build: |_, _| Box::new(Greedy),
    },
    KindDef {
        name: "expectimax",
        summary: "depth-limited expectimax over the die faces, max-n backup, heuristic evaluation",
        params: &expectimax::PARAMS,
        build: expectimax::build,
    },
    KindDef {
        name: "montecarlo",
        summary: "flat Monte Carlo: rollouts per legal move, best mean reward",
        params: &montecarlo::PARAMS,
        build: montecarlo::build,
    },
    KindDef {
        name: "mcts",
        summary: "UCT tree search with explicit chance nodes and per-seat rewards",
        params: &mcts::PARAMS,
        build: mcts::build,
    },
    KindDef {
        name: "exact",
        summary: "perfect play: the best move by the value table of `aeroplane solve` (small two-player variants)",
        params: &exact::PARAMS,
        build: exact::build,
    },
    KindDef {
        name: "td",
        summary: "a value net trained by `aeroplane train` (TD(lambda) self-play), at ply 0, 1 or 2",
        params: &td::PARAMS,
        build: td::build,
    },
    KindDef {
        name: EXTERNAL,
        summary: "a bot program in any language over the line protocol (profile: command = [...])",
        params: &[],
        build: |name, _| panic!("external bot {name} is built from its profile's command"),
    },
];

static REGISTERED: std::sync::RwLock<Vec<&'static KindDef>> = std::sync::RwLock::new(Vec::new());

/// Adds a bot kind defined outside this crate (a Rust plug-in), so that profiles, inline
/// parameters and lineups can name it like a built-in kind. Register before resolving bots;
/// names must be new.
pub fn register_kind(kind: &'static KindDef) -> Result<(), BotError> {
    let mut reg = REGISTERED.write().expect("lock");
    if find_kind_in(&reg, kind.name).is_some() {
        return Err(BotError::KindExists(kind.name));
    }
    reg.push(kind);
    Ok(())
}

fn find_kind_in(reg: &[&'static KindDef], name: &str) -> Option<&'static KindDef> {
    KINDS
        .iter()
        .find(|k| k.name == name)
        .or_else(|| reg.iter().copied().find(|k| k.name == name))
}

/// Every kind's name: built in, then registered.
fn kind_names() -> Vec<&'static str> {
    let reg = REGISTERED.read().expect("lock");
    KINDS
        .iter()
        .chain(reg.iter().copied())
        .map(|k| k.name)
        .collect()
}

/// Profiles built into the binary: every file shipped in `bots/`
/// ([`aeroplane_ai::shipped::PROFILES`]).
pub const BUILTIN_PROFILES: &[(&str, &str)] = &aeroplane_ai::shipped::PROFILES;

/// A fully resolved bot: a display name, a kind and every parameter. Cheap to clone; build as
/// many bots from it as there are workers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BotSpec {
    /// Display name: the profile name, plus any inline parameters.
    pub name: String,
    /// The kind.
    pub kind: String,
    /// Every parameter of the kind.
    pub params: Params,
    /// For an `external` bot: the program to run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalSpec>,
    /// The bot as the user gave it, where that is not its name (a profile given by its path):
    /// what a printed command names it by.
    #[serde(skip)]
    pub given: Option<String>,
}

impl BotSpec {
    /// The bot as a command line names it: as the user gave it (a profile's path), else by
    /// its name.
    pub fn as_given(&self) -> &str {
        self.given.as_deref().unwrap_or(&self.name)
    }

    /// Whether the bot can play games of `rules` with `players` players, checked before any
    /// game is played: an `exact` bot needs a table of exactly these rules.
    pub fn check_fit(&self, rules: &aeroplane_core::Rules, players: usize) -> Result<(), BotError> {
        if self.kind == "exact" {
            exact::check(&self.params, rules, players).map_err(|message| BotError::Unfit {
                bot: self.name.clone(),
                message,
            })?;
        }
        if self.kind == "td" {
            td::check(&self.params, rules, players).map_err(|message| BotError::Unfit {
                bot: self.name.clone(),
                message,
            })?;
        }
        Ok(())
    }

    /// Builds a fresh bot.
    pub fn build(&self) -> Box<dyn Bot> {
        if let Some(ext) = &self.external {
            return Box::new(ExternalBot::new(&self.name, ext.clone(), &self.params));
        }
        let kind = find_kind(&self.kind).expect("spec kinds are validated");
        (kind.build)(&self.name, &self.params)
    }

    /// This bot with some numeric parameters set to new values, each checked against its
    /// kind's [`ParamDef`], and named `name`.
    pub fn with_numbers(&self, name: &str, values: &[(&str, f64)]) -> Result<BotSpec, BotError> {
        check_name(name)?;
        let kind = find_kind(&self.kind).ok_or_else(|| BotError::UnknownKind {
            origin: self.name.clone(),
            kind: aeroplane_core::excerpt::excerpt(&self.kind),
            known: kind_names().join(", "),
        })?;
        let mut spec = self.clone();
        for &(k, x) in values {
            let def = param_def(kind, k, &self.name)?;
            let value = def.number(x).ok_or_else(|| BotError::BadValue {
                origin: self.name.clone(),
                param: k.to_string(),
                value: x.to_string(),
                allowed: def.allowed(),
            })?;
            spec.params.insert(k.to_string(), value);
        }
        spec.name = name.to_string();
        Ok(spec)
    }

    /// The head of a bot's `text` (`head` or `head:key=value:...`): a profile or kind name, or
    /// a profile path.
    pub fn head(text: &str) -> Result<&str, BotError> {
        let head = text.split(':').next().unwrap_or_default().trim();
        if head.is_empty() {
            return Err(BotError::Empty);
        }
        Ok(head)
    }

    /// Resolves the bot `text` names given the profile its head names:
    /// checks the profile's parameters, then the inline ones. With inline parameters the bot's
    /// name is the whole `text`.
    pub fn from_profile(text: &str, profile: &Profile) -> Result<BotSpec, BotError> {
        check_name(text)?;
        let mut overrides = Vec::new();
        for part in text.split(':').skip(1) {
            let (k, v) = part.split_once('=').ok_or_else(|| BotError::Syntax {
                bot: aeroplane_core::excerpt::excerpt(text),
                part: aeroplane_core::excerpt::excerpt(part),
            })?;
            let k = k.trim();
            if overrides.iter().any(|(seen, _)| seen == k) {
                return Err(BotError::Repeated {
                    bot: aeroplane_core::excerpt::excerpt(text),
                    param: aeroplane_core::excerpt::excerpt(k),
                });
            }
            overrides.push((k.to_string(), v.trim().to_string()));
        }
        let mut spec = resolve_partial(
            &profile.name,
            &profile.kind,
            &profile.params,
            &profile.origin,
        )?;
        if spec.kind == EXTERNAL {
            spec.external = Some(profile.external.clone().ok_or_else(|| {
                BotError::Profile {
                    origin: profile.origin.clone(),
                    message:
                        "a bot of kind `external` needs `command = [\"program\", \"arg\", ...]`"
                            .to_string(),
                }
            })?);
        }
        if !overrides.is_empty() {
            let kind = find_kind(&spec.kind).expect("resolved");
            for (k, v) in &overrides {
                let value = if kind.name == EXTERNAL {
                    free_value(v)
                } else {
                    let def = param_def(kind, k, &profile.origin)?;
                    def.parse(v).ok_or_else(|| BotError::BadValue {
                        origin: aeroplane_core::excerpt::excerpt(text),
                        param: k.clone(),
                        value: aeroplane_core::excerpt::excerpt(v),
                        allowed: def.allowed(),
                    })?
                };
                spec.params.insert(k.clone(), value);
            }
            spec.name = text.to_string();
        }
        if spec.name != text {
            spec.given = Some(text.to_string());
        }
        require_all(&spec, &profile.origin)?;
        Ok(spec)
    }
}

/// A profile as found: before its parameters are checked.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The profile's name.
    pub name: String,
    /// Where it came from (a path, or "built-in").
    pub origin: String,
    /// Its kind.
    pub kind: String,
    /// Its description.
    pub description: String,
    /// Its parameters as written.
    pub params: BTreeMap<String, toml::Value>,
    /// For kind `external`: the program to run.
    pub external: Option<ExternalSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    kind: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    params: BTreeMap<String, toml::Value>,
    // Kind `external` only.
    command: Option<Vec<String>>,
    cwd: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    timeout_ms: Option<u64>,
    startup_timeout_ms: Option<u64>,
    // Kind `exact` only: the same as `[params] table`.
    table: Option<String>,
}

/// A parameter of an external bot: an integer, else a number, else a word.
fn free_value(text: &str) -> ParamValue {
    if let Ok(i) = text.parse::<i64>() {
        ParamValue::Int(i)
    } else if let Ok(x) = text.parse::<f64>() {
        ParamValue::Float(x)
    } else {
        ParamValue::Word(text.to_string())
    }
}

impl Profile {
    /// Parses a profile file's text; `name` and `origin` (its path) name it in errors.
    pub fn parse(name: &str, origin: &str, text: &str) -> Result<Profile, BotError> {
        let mut file: ProfileFile = toml::from_str(text).map_err(|e| BotError::Profile {
            origin: origin.to_string(),
            message: aeroplane_core::excerpt::clip_message(e),
        })?;
        if let Some(table) = file.table.take() {
            let bad = |message: &str| BotError::Profile {
                origin: origin.to_string(),
                message: message.to_string(),
            };
            if file.kind != "exact" {
                return Err(bad("`table` is a key of bots of kind `exact` only"));
            }
            if file.params.contains_key("table") {
                return Err(bad(
                    "`table` is given twice (as a key and in [params]): give it once",
                ));
            }
            file.params
                .insert("table".to_string(), toml::Value::String(table));
        }
        let external = ProfileKeys {
            command: file.command,
            cwd: file.cwd,
            env: file.env,
            timeout_ms: file.timeout_ms,
            startup_timeout_ms: file.startup_timeout_ms,
        }
        .resolve(file.kind == EXTERNAL)
        .map_err(|message| BotError::Profile {
            origin: origin.to_string(),
            message,
        })?;
        Ok(Profile {
            name: name.to_string(),
            origin: origin.to_string(),
            kind: file.kind,
            description: file.description,
            params: file.params,
            external,
        })
    }

    /// A profile built into the binary, or else a bare kind name as a profile of that kind with
    /// default parameters; `None` for any other name.
    pub fn builtin(name: &str) -> Option<Profile> {
        if let Some((_, text)) = BUILTIN_PROFILES.iter().find(|(n, _)| *n == name) {
            return Some(Profile::parse(name, "built-in", text).expect("built-in profiles parse"));
        }
        find_kind(name).map(|_| Profile {
            name: name.to_string(),
            origin: "built-in kind".to_string(),
            kind: name.to_string(),
            description: String::new(),
            params: BTreeMap::new(),
            external: None,
        })
    }
}

/// Every built-in name: the built-in profiles and the kinds (unsorted, may repeat).
pub fn builtin_names() -> impl Iterator<Item = &'static str> {
    BUILTIN_PROFILES.iter().map(|(n, _)| *n).chain(kind_names())
}

fn find_kind(name: &str) -> Option<&'static KindDef> {
    find_kind_in(&REGISTERED.read().expect("lock"), name)
}

fn param_def<'k>(kind: &'k KindDef, name: &str, origin: &str) -> Result<&'k ParamDef, BotError> {
    kind.params
        .iter()
        .find(|p| p.name == name)
        .ok_or_else(|| BotError::UnknownParam {
            origin: origin.to_string(),
            kind: kind.name,
            param: aeroplane_core::excerpt::excerpt(name),
            known: if kind.params.is_empty() {
                "none".to_string()
            } else {
                kind.params
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            },
        })
}

/// A bot's name is printed in every table: it may not hold control characters (a terminal
/// would obey an escape sequence in it).
fn check_name(name: &str) -> Result<(), BotError> {
    if name.chars().any(char::is_control) {
        return Err(BotError::ControlCharacters(
            aeroplane_core::excerpt::excerpt(name),
        ));
    }
    Ok(())
}

/// Checks a profile's kind and parameters and fills in defaults; a parameter without a default
/// must be given.
pub fn resolve(
    name: &str,
    kind: &str,
    given: &BTreeMap<String, toml::Value>,
    origin: &str,
) -> Result<BotSpec, BotError> {
    let spec = resolve_partial(name, kind, given, origin)?;
    require_all(&spec, origin)?;
    Ok(spec)
}

/// Fails when a parameter without a default is missing from `spec`.
fn require_all(spec: &BotSpec, origin: &str) -> Result<(), BotError> {
    let Some(def) = find_kind(&spec.kind) else {
        return Ok(());
    };
    for p in def.params {
        if p.default.is_empty() && spec.params.iter().all(|(k, _)| k != p.name) {
            return Err(BotError::MissingParam {
                origin: origin.to_string(),
                kind: def.name,
                param: p.name,
                help: p.help,
            });
        }
    }
    Ok(())
}

/// [`resolve`] that leaves parameters without a default unset when they are not given (inline
/// parameters may give them).
fn resolve_partial(
    name: &str,
    kind: &str,
    given: &BTreeMap<String, toml::Value>,
    origin: &str,
) -> Result<BotSpec, BotError> {
    check_name(name)?;
    let def = find_kind(kind).ok_or_else(|| BotError::UnknownKind {
        origin: origin.to_string(),
        kind: aeroplane_core::excerpt::excerpt(kind),
        known: kind_names().join(", "),
    })?;
    let mut params = BTreeMap::new();
    if def.name == EXTERNAL {
        for (k, v) in given {
            let value = match v {
                toml::Value::Integer(i) => ParamValue::Int(*i),
                toml::Value::Float(x) => ParamValue::Float(*x),
                toml::Value::String(s) => ParamValue::Word(s.clone()),
                other => {
                    return Err(BotError::BadValue {
                        origin: origin.to_string(),
                        param: k.clone(),
                        value: other.to_string(),
                        allowed: "an integer, a number or a string (for an external bot)".into(),
                    });
                }
            };
            params.insert(k.clone(), value);
        }
        return Ok(BotSpec {
            name: name.to_string(),
            kind: kind.to_string(),
            params: Params::from_map(params),
            external: None,
            given: None,
        });
    }
    for (k, v) in given {
        let p = param_def(def, k, origin)?;
        // A profile's values have TOML types: a number is not written as a string, nor a
        // word as a bare key.
        let typed = matches!(
            (p.kind, v),
            (ParamKind::Int { .. }, toml::Value::Integer(_))
                | (
                    ParamKind::Float { .. },
                    toml::Value::Integer(_) | toml::Value::Float(_)
                )
                | (ParamKind::Word(_) | ParamKind::Path, toml::Value::String(_))
        );
        let text = match v {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let bad = || BotError::BadValue {
            origin: origin.to_string(),
            param: k.clone(),
            value: aeroplane_core::excerpt::excerpt(&v.to_string()),
            allowed: p.allowed(),
        };
        if !typed {
            return Err(bad());
        }
        let value = p.parse(&text).ok_or_else(bad)?;
        params.insert(k.clone(), value);
    }
    for p in def.params {
        if !params.contains_key(p.name) && !p.default.is_empty() {
            let v = p.parse(p.default).expect("defaults are valid");
            params.insert(p.name.to_string(), v);
        }
    }
    Ok(BotSpec {
        name: name.to_string(),
        kind: kind.to_string(),
        params: Params::from_map(params),
        external: None,
        given: None,
    })
}

/// Why a bot could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// An empty bot name.
    #[error("empty bot name")]
    Empty,
    /// No profile, file or kind of that name.
    #[error(
        "unknown bot `{name}`{}",
        tail(name, known, "known bots are", " (or give a path to a profile .toml)")
    )]
    Unknown {
        /// The name given.
        name: String,
        /// What exists.
        known: String,
    },
    /// A profile names a kind that does not exist.
    #[error(
        "{origin}: unknown bot kind `{kind}`{}",
        tail(kind, known, "known kinds are", "")
    )]
    UnknownKind {
        /// Where.
        origin: String,
        /// The kind given.
        kind: String,
        /// What exists.
        known: String,
    },
    /// A parameter the kind does not have.
    #[error(
        "{origin}: bot kind `{kind}` has no parameter `{param}`{}",
        tail(param, known, "its parameters are", "")
    )]
    UnknownParam {
        /// Where.
        origin: String,
        /// The kind.
        kind: &'static str,
        /// The parameter given.
        param: String,
        /// What exists.
        known: String,
    },
    /// A value out of range or of the wrong type.
    #[error("{origin}: bad value `{value}` for parameter `{param}`: allowed is {allowed}")]
    BadValue {
        /// Where.
        origin: String,
        /// The parameter.
        param: String,
        /// The value given.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// An inline parameter without `=`.
    #[error(
        "bad bot `{bot}`: parameter `{part}` must be written key=value (e.g. expectimax:depth=3)"
    )]
    Syntax {
        /// The whole bot text.
        bot: String,
        /// The bad part.
        part: String,
    },
    /// A name with control characters.
    #[error("bad bot name `{0}`: a name may not contain control characters")]
    ControlCharacters(String),
    /// An inline parameter given twice.
    #[error("bad bot `{bot}`: parameter `{param}` is given twice; give each parameter once")]
    Repeated {
        /// The whole bot text.
        bot: String,
        /// The repeated parameter.
        param: String,
    },
    /// A parameter without a default that was not given.
    #[error(
        "{origin}: bot kind `{kind}` needs parameter `{param}`: {help} (e.g. {kind}:{param}=...)"
    )]
    MissingParam {
        /// Where.
        origin: String,
        /// The kind.
        kind: &'static str,
        /// The parameter.
        param: &'static str,
        /// What it is.
        help: &'static str,
    },
    /// A bot that cannot play the run's rules.
    #[error("bot `{bot}` cannot play these rules: {message}")]
    Unfit {
        /// The bot.
        bot: String,
        /// Why not.
        message: String,
    },
    /// A plug-in kind whose name is taken.
    #[error("a bot kind named `{0}` exists already")]
    KindExists(&'static str),
    /// A profile file that cannot be parsed.
    #[error("bot profile {origin}: {message}")]
    Profile {
        /// The path.
        origin: String,
        /// What was wrong.
        message: String,
    },
}

/// The end of an "unknown name" message: a suggestion if a name of the comma-separated `known`
/// is close, then "{lead} {known}{after}".
fn tail(given: &str, known: &str, lead: &str, after: &str) -> String {
    let rest = format!("{lead} {known}{after}");
    // A kind without parameters lists "none", which is not a name to suggest.
    let names = known.split(", ").filter(|&n| n != "none");
    aeroplane_core::suggest::tail(given, names, &rest)
}
