//! Rule variants: every option of RULES.md, the three presets, and loading them from TOML.
//!
//! A variant file is parsed into the plain [`RulesSpec`] (every field optional, unknown keys
//! rejected), then validated into the compact, `Copy` [`Rules`] that the engine reads.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What happens when a roll would carry a plane past the centre.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Overshoot {
    /// The move is not legal.
    Illegal,
    /// The plane walks back the extra steps from the centre.
    Bounce,
}

/// How jumps and the flight may chain within one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Specials {
    /// At most one jump or one flight per move.
    One,
    /// A jump that lands on the flight cell goes on to fly.
    JumpThenFlight,
    /// That, and a flight ending on step 30 goes on to jump to step 34.
    Both,
}

/// The penalty for the third six in a row within one turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThreeSixes {
    /// No penalty: keep rolling.
    None,
    /// The plane(s) of the most recent move this turn go back to the hangar; the turn ends.
    LastMoved,
    /// Every plane moved by the first two sixes goes back to the hangar; the turn ends.
    AllMoved,
}

/// What own planes sharing a cell means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stacking {
    /// Planes share a cell but move one at a time.
    None,
    /// Planes ending a move on own planes form a stack that moves as one.
    MoveTogether,
}

/// When the game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// The first player with every plane home wins; the game ends.
    FirstFinisher,
    /// The others play on until one player is left; every seat gets a rank.
    FullRanking,
}

/// A named preset of RULES.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// The rules of a popular web version played against bots; the default.
    AppFreeGame,
    /// The rules as the usual encyclopedia description gives them.
    Classic,
    /// Common Chinese home rules.
    Chinese,
}

impl Preset {
    /// Every preset, the default first.
    pub const ALL: [Preset; 3] = [Preset::AppFreeGame, Preset::Classic, Preset::Chinese];

    /// The preset's name as used on the command line and in `base = "..."`.
    pub fn name(self) -> &'static str {
        match self {
            Preset::AppFreeGame => "appfreegame",
            Preset::Classic => "classic",
            Preset::Chinese => "chinese",
        }
    }

    /// The preset's rules, exactly as RULES.md's presets table gives them.
    pub fn rules(self) -> Rules {
        match self {
            Preset::AppFreeGame => Rules {
                launch_rolls: LaunchRolls::from_faces(&[6]).expect("valid"),
                home_lane_cells: 6,
                overshoot: Overshoot::Illegal,
                specials: Specials::One,
                flight_optional: false,
                flight_captures_crossed: false,
                three_sixes: ThreeSixes::LastMoved,
                stacking: Stacking::None,
                end: End::FirstFinisher,
                max_turns: 10_000,
            },
            Preset::Classic => Rules {
                launch_rolls: LaunchRolls::from_faces(&[2, 4, 6]).expect("valid"),
                home_lane_cells: 5,
                overshoot: Overshoot::Illegal,
                specials: Specials::JumpThenFlight,
                flight_optional: true,
                flight_captures_crossed: true,
                three_sixes: ThreeSixes::AllMoved,
                stacking: Stacking::MoveTogether,
                end: End::FullRanking,
                max_turns: 10_000,
            },
            Preset::Chinese => Rules {
                launch_rolls: LaunchRolls::from_faces(&[6]).expect("valid"),
                home_lane_cells: 5,
                overshoot: Overshoot::Bounce,
                specials: Specials::Both,
                flight_optional: false,
                flight_captures_crossed: true,
                three_sixes: ThreeSixes::None,
                stacking: Stacking::None,
                end: End::FullRanking,
                max_turns: 10_000,
            },
        }
    }
}

impl FromStr for Preset {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| RulesError::UnknownPreset(s.to_string()))
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The set of die faces that may launch a plane, as a bit set (bit `d` for face `d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchRolls(u8);

impl LaunchRolls {
    /// Builds the set from die faces; `None` if it is empty or a face is outside 1..=6.
    pub fn from_faces(faces: &[u8]) -> Option<Self> {
        let mut bits = 0u8;
        for &f in faces {
            if !(1..=6).contains(&f) {
                return None;
            }
            bits |= 1 << f;
        }
        (bits != 0).then_some(LaunchRolls(bits))
    }

    /// Whether `roll` may launch a plane.
    #[inline]
    pub fn contains(self, roll: u8) -> bool {
        self.0 & (1 << roll) != 0
    }

    /// The faces in ascending order.
    pub fn faces(self) -> Vec<u8> {
        (1..=6).filter(|&d| self.contains(d)).collect()
    }
}

impl Serialize for LaunchRolls {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.faces().serialize(s)
    }
}

/// A validated rule variant: every option of RULES.md. Small and `Copy`; the engine reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Rules {
    /// Die faces that launch a plane from the hangar.
    pub launch_rolls: LaunchRolls,
    /// Cells in each home lane, 3..=8.
    pub home_lane_cells: u8,
    /// Rolls past the centre.
    pub overshoot: Overshoot,
    /// Chaining of jumps and the flight.
    pub specials: Specials,
    /// Whether landing on the flight cell offers the choice to stay.
    pub flight_optional: bool,
    /// Whether the flight captures opponents on the crossed cell.
    pub flight_captures_crossed: bool,
    /// The third-six penalty.
    pub three_sixes: ThreeSixes,
    /// Whether own planes stack.
    pub stacking: Stacking,
    /// When the game ends.
    pub end: End,
    /// Safety cap on turns; a game reaching it is recorded as unfinished.
    pub max_turns: u32,
}

impl Default for Rules {
    fn default() -> Self {
        Preset::AppFreeGame.rules()
    }
}

impl Rules {
    /// The step of the centre: `51 + home_lane_cells`.
    #[inline]
    pub fn centre(&self) -> u8 {
        51 + self.home_lane_cells
    }

    /// Loads a preset name or a TOML variant file path.
    pub fn load(name_or_path: &str) -> Result<Rules, RulesError> {
        if let Ok(preset) = name_or_path.parse::<Preset>() {
            return Ok(preset.rules());
        }
        let path = Path::new(name_or_path);
        let looks_like_file = path.extension().is_some() || name_or_path.contains('/');
        if !looks_like_file && !path.exists() {
            return Err(RulesError::UnknownPreset(name_or_path.to_string()));
        }
        Self::from_file(path)
    }

    /// Reads and validates a TOML variant file.
    pub fn from_file(path: &Path) -> Result<Rules, RulesError> {
        let text = std::fs::read_to_string(path).map_err(|e| RulesError::Io {
            file: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_toml(&text).map_err(|e| e.in_file(path))
    }

    /// Parses and validates a TOML variant text.
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let spec: RulesSpec = toml::from_str(text)
            .map_err(|e| RulesError::Parse(e.to_string().trim().to_string()))?;
        spec.validate()
    }

    /// This variant as TOML text with every option written out.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("rules serialize")
    }
}

/// A rule-variant file as written: every option optional, starting from `base` (default
/// `appfreegame`). Validate it into [`Rules`] with [`RulesSpec::validate`].
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RulesSpec {
    /// The preset the file starts from.
    pub base: Option<String>,
    /// Die faces that launch a plane.
    pub launch_rolls: Option<Vec<i64>>,
    /// Cells in each home lane.
    pub home_lane_cells: Option<i64>,
    /// See [`Overshoot`].
    pub overshoot: Option<Overshoot>,
    /// See [`Specials`].
    pub specials: Option<Specials>,
    /// See [`Rules::flight_optional`].
    pub flight_optional: Option<bool>,
    /// See [`Rules::flight_captures_crossed`].
    pub flight_captures_crossed: Option<bool>,
    /// See [`ThreeSixes`].
    pub three_sixes: Option<ThreeSixes>,
    /// See [`Stacking`].
    pub stacking: Option<Stacking>,
    /// See [`End`].
    pub end: Option<End>,
    /// Safety cap on turns.
    pub max_turns: Option<i64>,
}

impl RulesSpec {
    /// Checks every option against RULES.md's allowed values and builds the [`Rules`].
    pub fn validate(&self) -> Result<Rules, RulesError> {
        let mut rules = match &self.base {
            Some(b) => b.parse::<Preset>()?.rules(),
            None => Rules::default(),
        };
        if let Some(faces) = &self.launch_rolls {
            let bad = || RulesError::Invalid {
                option: "launch_rolls",
                value: format!("{faces:?}"),
                allowed: "a non-empty list of die faces within 1..=6, e.g. [6] or [2, 4, 6]",
            };
            let small: Vec<u8> = faces
                .iter()
                .map(|&f| u8::try_from(f).map_err(|_| bad()))
                .collect::<Result<_, _>>()?;
            rules.launch_rolls = LaunchRolls::from_faces(&small).ok_or_else(bad)?;
        }
        if let Some(l) = self.home_lane_cells {
            if !(3..=8).contains(&l) {
                return Err(RulesError::Invalid {
                    option: "home_lane_cells",
                    value: l.to_string(),
                    allowed: "an integer from 3 to 8",
                });
            }
            rules.home_lane_cells = l as u8;
        }
        if let Some(m) = self.max_turns {
            if !(1..=i64::from(u32::MAX)).contains(&m) {
                return Err(RulesError::Invalid {
                    option: "max_turns",
                    value: m.to_string(),
                    allowed: "an integer from 1 to 4294967295",
                });
            }
            rules.max_turns = m as u32;
        }
        macro_rules! copy {
            ($($field:ident),*) => { $( if let Some(v) = self.$field { rules.$field = v; } )* };
        }
        copy!(
            overshoot,
            specials,
            flight_optional,
            flight_captures_crossed,
            three_sixes,
            stacking,
            end
        );
        Ok(rules)
    }
}

/// Why a rule variant could not be loaded.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum RulesError {
    /// Not a preset name, and not a path to a file.
    #[error("unknown rules preset `{0}`{tail}", tail = crate::suggest::tail(.0, Preset::ALL.map(Preset::name), "allowed presets are appfreegame, classic, chinese (or a path to a .toml variant file)"))]
    UnknownPreset(String),
    /// An option's value is outside what RULES.md allows.
    #[error("invalid value {value} for option `{option}`: allowed is {allowed}")]
    Invalid {
        /// The option's name.
        option: &'static str,
        /// The bad value as written.
        value: String,
        /// What RULES.md allows.
        allowed: &'static str,
    },
    /// TOML syntax, an unknown key, or a wrong type.
    #[error("{0}")]
    Parse(String),
    /// The file could not be read.
    #[error("cannot read rules file {file}: {message}")]
    Io {
        /// The path.
        file: String,
        /// The operating system's message.
        message: String,
    },
    /// Any of the above, in a named file.
    #[error("in rules file {file}: {error}")]
    InFile {
        /// The path.
        file: String,
        /// What was wrong.
        error: Box<RulesError>,
    },
}

impl RulesError {
    fn in_file(self, path: &Path) -> RulesError {
        RulesError::InFile {
            file: path.display().to_string(),
            error: Box::new(self),
        }
    }
}
