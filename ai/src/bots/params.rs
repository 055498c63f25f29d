//! Bot parameters: what values each takes ([`ParamDef`]) and a bot's resolved values
//! ([`Params`]). A leaf module: the registry and every bot kind use it, it uses neither.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// A parameter's value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// A real number.
    Float(f64),
    /// A word (one of a fixed set).
    Word(String),
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Word(w) => f.write_str(w),
        }
    }
}

/// What values a parameter takes.
#[derive(Clone, Copy, Debug)]
pub enum ParamKind {
    /// An integer within the bounds (inclusive).
    Int {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// A real number within the bounds (inclusive).
    Float {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
    /// One of these words.
    Word(&'static [&'static str]),
    /// A path to a file or folder (free text without control characters, at most
    /// [`MAX_PATH_PARAM`] bytes). A path parameter whose default is empty must be given.
    Path,
}

/// The longest path a path parameter takes.
pub const MAX_PATH_PARAM: usize = 4096;

/// One parameter of a bot kind.
#[derive(Clone, Debug)]
pub struct ParamDef {
    /// The parameter's name.
    pub name: &'static str,
    /// Allowed values.
    pub kind: ParamKind,
    /// The value when not given.
    pub default: &'static str,
    /// One line of help.
    pub help: &'static str,
}

impl ParamDef {
    /// What the parameter allows, as messages say it.
    pub fn allowed(&self) -> String {
        match self.kind {
            ParamKind::Int { min, max } => format!("an integer from {min} to {max}"),
            ParamKind::Float { min, max } => format!("a number from {min} to {max}"),
            ParamKind::Word(words) => format!("one of {}", words.join(", ")),
            ParamKind::Path => format!(
                "a path (a file or folder; at most {MAX_PATH_PARAM} bytes, no control characters)"
            ),
        }
    }

    /// The bounds of a numeric parameter and whether it takes integers; `None` for words and
    /// paths.
    pub fn bounds(&self) -> Option<(f64, f64, bool)> {
        match self.kind {
            ParamKind::Int { min, max } => Some((min as f64, max as f64, true)),
            ParamKind::Float { min, max } => Some((min, max, false)),
            ParamKind::Word(_) | ParamKind::Path => None,
        }
    }

    /// The number `x` as a value of this parameter, if it is one: finite, within the bounds,
    /// and a whole number for an integer parameter.
    pub fn number(&self, x: f64) -> Option<ParamValue> {
        match self.kind {
            ParamKind::Int { min, max } => (x.fract() == 0.0 && x >= min as f64 && x <= max as f64)
                .then_some(ParamValue::Int(x as i64)),
            ParamKind::Float { min, max } => {
                (x.is_finite() && (min..=max).contains(&x)).then_some(ParamValue::Float(x))
            }
            ParamKind::Word(_) | ParamKind::Path => None,
        }
    }

    /// Parses and range-checks a value given as text.
    pub fn parse(&self, text: &str) -> Option<ParamValue> {
        match self.kind {
            ParamKind::Int { min, max } => text
                .parse::<i64>()
                .ok()
                .filter(|v| (min..=max).contains(v))
                .map(ParamValue::Int),
            ParamKind::Float { min, max } => text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && (min..=max).contains(v))
                .map(ParamValue::Float),
            ParamKind::Word(words) => words
                .contains(&text)
                .then(|| ParamValue::Word(text.to_string())),
            ParamKind::Path => (!text.is_empty()
                && text.len() <= MAX_PATH_PARAM
                && !text.chars().any(char::is_control))
            .then(|| ParamValue::Word(text.to_string())),
        }
    }
}

/// Resolved parameters of a bot: every parameter of its kind, with a valid value.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Params(BTreeMap<String, ParamValue>);

impl Params {
    /// An integer parameter.
    ///
    /// # Panics
    /// If the kind does not declare `name` as an integer (a bug in the kind's definition).
    pub fn int(&self, name: &str) -> i64 {
        match self.0.get(name) {
            Some(ParamValue::Int(i)) => *i,
            other => panic!("parameter {name} is not an integer: {other:?}"),
        }
    }
    /// A real parameter (integers convert).
    ///
    /// # Panics
    /// If the kind does not declare `name` as a number.
    pub fn float(&self, name: &str) -> f64 {
        match self.0.get(name) {
            Some(ParamValue::Float(x)) => *x,
            Some(ParamValue::Int(i)) => *i as f64,
            other => panic!("parameter {name} is not a number: {other:?}"),
        }
    }
    /// A word (or path) parameter.
    ///
    /// # Panics
    /// If the kind does not declare `name` as a word.
    pub fn word(&self, name: &str) -> &str {
        match self.0.get(name) {
            Some(ParamValue::Word(w)) => w,
            other => panic!("parameter {name} is not a word: {other:?}"),
        }
    }
    /// Parameters from values already checked against their kind's [`ParamDef`]s (the
    /// harness's registry checks them; a kind's `build` reads them as its `PARAMS` declare).
    pub fn from_map(values: BTreeMap<String, ParamValue>) -> Params {
        Params(values)
    }

    /// Sets `name` to `value`, a value checked against the parameter's [`ParamDef`] (the
    /// registry checks values before it sets them).
    pub fn insert(&mut self, name: String, value: ParamValue) {
        self.0.insert(name, value);
    }

    /// The value of `name`, if the bot has that parameter.
    pub fn get(&self, name: &str) -> Option<&ParamValue> {
        self.0.get(name)
    }

    /// Iterates over (name, value) in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &ParamValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}
