//! Rule variants: every option of RULES.md, the three presets, and parsing them from TOML text
//! (reading files is [`crate::config::rules_file`]).
//!
//! A variant file is parsed into the plain [`RulesSpec`] (every field optional, unknown keys
//! rejected), then validated into the compact, `Copy` [`Rules`] that the engine reads.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Defines an enumerated option's type with the word of each value, once: the words are both
/// the serde names (variant files, `run.json`) and the `--vary` values.
macro_rules! worded_enum {
    ($(#[$meta:meta])* pub enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $word:literal,)+
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $word)] $variant,)+
        }

        impl $name {
            /// Every value, in RULES.md's order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// The word of each value of [`Self::ALL`], in the same order.
            pub const WORDS: &'static [&'static str] = &[$($word),+];

            /// The value's word, as written in variant files.
            pub const fn word(self) -> &'static str {
                match self {
                    $($name::$variant => $word,)+
                }
            }

            /// The value a word names.
            pub fn from_word(word: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.word() == word)
            }
        }
    };
}

worded_enum! {
    /// What happens when a roll would carry a plane past the centre.
    pub enum Overshoot {
        /// The move is not legal.
        Illegal = "illegal",
        /// The plane walks back the extra steps from the centre.
        Bounce = "bounce",
    }
}

worded_enum! {
    /// How jumps and the flight may chain within one move.
    pub enum Specials {
        /// At most one jump or one flight per move.
        One = "one",
        /// A jump that lands on the flight cell goes on to fly.
        JumpThenFlight = "jump_then_flight",
        /// That, and a flight ending on step 30 goes on to jump to step 34.
        Both = "both",
    }
}

worded_enum! {
    /// The penalty for the third six in a row within one turn.
    pub enum ThreeSixes {
        /// No penalty: keep rolling.
        None = "none",
        /// The plane(s) of the most recent move this turn go back to the hangar; the turn ends.
        LastMoved = "last_moved",
        /// Every plane moved by the first two sixes goes back to the hangar; the turn ends.
        AllMoved = "all_moved",
    }
}

worded_enum! {
    /// What own planes sharing a cell means.
    pub enum Stacking {
        /// Planes share a cell but move one at a time.
        None = "none",
        /// Planes ending a move on own planes form a stack that moves as one.
        MoveTogether = "move_together",
    }
}

worded_enum! {
    /// When the game ends.
    pub enum End {
        /// The first player with every plane home wins; the game ends.
        FirstFinisher = "first_finisher",
        /// The others play on until one player is left; every seat gets a rank.
        FullRanking = "full_ranking",
    }
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
            .ok_or_else(|| RulesError::UnknownPreset(crate::excerpt::excerpt(s)))
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

    /// Parses and validates a TOML variant text.
    pub fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let spec: RulesSpec =
            toml::from_str(text).map_err(|e| RulesError::Parse(crate::excerpt::clip_message(e)))?;
        if spec == RulesSpec::default() {
            return Err(RulesError::Empty);
        }
        spec.validate()
    }

    /// This variant as TOML text with every option written out.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("rules serialize")
    }
}

/// An option of a rule variant, as RULES.md, variant files and `--vary` name it. Ordered as
/// RULES.md lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuleOption {
    /// [`Rules::launch_rolls`].
    LaunchRolls,
    /// [`Rules::home_lane_cells`].
    HomeLaneCells,
    /// [`Rules::overshoot`].
    Overshoot,
    /// [`Rules::specials`].
    Specials,
    /// [`Rules::flight_optional`].
    FlightOptional,
    /// [`Rules::flight_captures_crossed`].
    FlightCapturesCrossed,
    /// [`Rules::three_sixes`].
    ThreeSixes,
    /// [`Rules::stacking`].
    Stacking,
    /// [`Rules::end`].
    End,
    /// [`Rules::max_turns`].
    MaxTurns,
}

/// The words of a boolean option.
const BOOL_WORDS: &[&str] = &["true", "false"];
/// `home_lane_cells` allows this.
const HOME_LANE_CELLS: RangeInclusive<i64> = 3..=8;
/// `max_turns` allows this.
const MAX_TURNS: RangeInclusive<i64> = 1..=u32::MAX as i64;

impl RuleOption {
    /// Every option, in RULES.md's order.
    pub const ALL: [RuleOption; 10] = [
        RuleOption::LaunchRolls,
        RuleOption::HomeLaneCells,
        RuleOption::Overshoot,
        RuleOption::Specials,
        RuleOption::FlightOptional,
        RuleOption::FlightCapturesCrossed,
        RuleOption::ThreeSixes,
        RuleOption::Stacking,
        RuleOption::End,
        RuleOption::MaxTurns,
    ];

    /// The option's name: its key in a variant file and its field in [`Rules`].
    pub const fn name(self) -> &'static str {
        match self {
            RuleOption::LaunchRolls => "launch_rolls",
            RuleOption::HomeLaneCells => "home_lane_cells",
            RuleOption::Overshoot => "overshoot",
            RuleOption::Specials => "specials",
            RuleOption::FlightOptional => "flight_optional",
            RuleOption::FlightCapturesCrossed => "flight_captures_crossed",
            RuleOption::ThreeSixes => "three_sixes",
            RuleOption::Stacking => "stacking",
            RuleOption::End => "end",
            RuleOption::MaxTurns => "max_turns",
        }
    }

    /// The option called `name`.
    pub fn from_name(name: &str) -> Option<RuleOption> {
        RuleOption::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Every option's name, in order, comma-separated (for messages).
    pub fn names() -> String {
        let names: Vec<&str> = RuleOption::ALL.iter().map(|o| o.name()).collect();
        names.join(", ")
    }

    /// The words of an option that takes one of a fixed set (booleans included).
    pub fn words(self) -> Option<&'static [&'static str]> {
        Some(match self {
            RuleOption::Overshoot => Overshoot::WORDS,
            RuleOption::Specials => Specials::WORDS,
            RuleOption::FlightOptional | RuleOption::FlightCapturesCrossed => BOOL_WORDS,
            RuleOption::ThreeSixes => ThreeSixes::WORDS,
            RuleOption::Stacking => Stacking::WORDS,
            RuleOption::End => End::WORDS,
            RuleOption::LaunchRolls | RuleOption::HomeLaneCells | RuleOption::MaxTurns => {
                return None;
            }
        })
    }

    /// What the option allows, as error messages say it.
    pub fn allowed(self) -> String {
        let integer =
            |r: RangeInclusive<i64>| format!("an integer from {} to {}", r.start(), r.end());
        match self {
            RuleOption::LaunchRolls => {
                "a non-empty list of die faces within 1..=6, e.g. [6] or [2, 4, 6]".to_string()
            }
            RuleOption::HomeLaneCells => integer(HOME_LANE_CELLS),
            RuleOption::MaxTurns => integer(MAX_TURNS),
            _ => format!("one of {}", self.words().expect("worded").join(", ")),
        }
    }

    /// The error for a value this option does not allow.
    fn invalid(self, value: String) -> RulesError {
        RulesError::Invalid {
            option: self.name(),
            value: crate::excerpt::excerpt(&value),
            allowed: self.allowed(),
        }
    }
}

impl fmt::Display for RuleOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One option set to one value: checked against what the option allows when it is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Setting {
    /// `launch_rolls`.
    LaunchRolls(LaunchRolls),
    /// `home_lane_cells`.
    HomeLaneCells(u8),
    /// `overshoot`.
    Overshoot(Overshoot),
    /// `specials`.
    Specials(Specials),
    /// `flight_optional`.
    FlightOptional(bool),
    /// `flight_captures_crossed`.
    FlightCapturesCrossed(bool),
    /// `three_sixes`.
    ThreeSixes(ThreeSixes),
    /// `stacking`.
    Stacking(Stacking),
    /// `end`.
    End(End),
    /// `max_turns`.
    MaxTurns(u32),
}

impl Setting {
    /// The option set.
    pub fn option(&self) -> RuleOption {
        match self {
            Setting::LaunchRolls(_) => RuleOption::LaunchRolls,
            Setting::HomeLaneCells(_) => RuleOption::HomeLaneCells,
            Setting::Overshoot(_) => RuleOption::Overshoot,
            Setting::Specials(_) => RuleOption::Specials,
            Setting::FlightOptional(_) => RuleOption::FlightOptional,
            Setting::FlightCapturesCrossed(_) => RuleOption::FlightCapturesCrossed,
            Setting::ThreeSixes(_) => RuleOption::ThreeSixes,
            Setting::Stacking(_) => RuleOption::Stacking,
            Setting::End(_) => RuleOption::End,
            Setting::MaxTurns(_) => RuleOption::MaxTurns,
        }
    }

    /// Sets the option in `rules`.
    pub fn apply(&self, rules: &mut Rules) {
        match *self {
            Setting::LaunchRolls(v) => rules.launch_rolls = v,
            Setting::HomeLaneCells(v) => rules.home_lane_cells = v,
            Setting::Overshoot(v) => rules.overshoot = v,
            Setting::Specials(v) => rules.specials = v,
            Setting::FlightOptional(v) => rules.flight_optional = v,
            Setting::FlightCapturesCrossed(v) => rules.flight_captures_crossed = v,
            Setting::ThreeSixes(v) => rules.three_sixes = v,
            Setting::Stacking(v) => rules.stacking = v,
            Setting::End(v) => rules.end = v,
            Setting::MaxTurns(v) => rules.max_turns = v,
        }
    }

    /// `launch_rolls` from die faces as written.
    pub fn launch_rolls(faces: &[i64]) -> Result<Setting, RulesError> {
        let small: Option<Vec<u8>> = faces.iter().map(|&f| u8::try_from(f).ok()).collect();
        small
            .and_then(|f| LaunchRolls::from_faces(&f))
            .map(Setting::LaunchRolls)
            .ok_or_else(|| RuleOption::LaunchRolls.invalid(format!("{faces:?}")))
    }

    /// An integer option (`home_lane_cells`, `max_turns`) from its value as written.
    ///
    /// # Panics
    /// If `option` does not take an integer.
    pub fn integer(option: RuleOption, value: i64) -> Result<Setting, RulesError> {
        let range = match option {
            RuleOption::HomeLaneCells => HOME_LANE_CELLS,
            RuleOption::MaxTurns => MAX_TURNS,
            other => panic!("option `{other}` does not take an integer"),
        };
        if !range.contains(&value) {
            return Err(option.invalid(value.to_string()));
        }
        Ok(match option {
            RuleOption::HomeLaneCells => Setting::HomeLaneCells(value as u8),
            _ => Setting::MaxTurns(value as u32),
        })
    }

    /// An option's value from text: a word, `true`/`false`, an integer, or for `launch_rolls`
    /// comma-separated faces (`2,4,6`).
    pub fn parse(option: RuleOption, text: &str) -> Result<Setting, RulesError> {
        let text = text.trim();
        let invalid = || option.invalid(text.to_string());
        let word = |words: &[&str]| words.iter().position(|w| *w == text).ok_or_else(invalid);
        Ok(match option {
            RuleOption::LaunchRolls => {
                let faces = text
                    .split(',')
                    .map(|f| f.trim().parse::<i64>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| invalid())?;
                Setting::launch_rolls(&faces).map_err(|_| invalid())?
            }
            RuleOption::HomeLaneCells | RuleOption::MaxTurns => {
                let value = text.parse::<i64>().map_err(|_| invalid())?;
                Setting::integer(option, value).map_err(|_| invalid())?
            }
            RuleOption::FlightOptional => Setting::FlightOptional(word(BOOL_WORDS)? == 0),
            RuleOption::FlightCapturesCrossed => {
                Setting::FlightCapturesCrossed(word(BOOL_WORDS)? == 0)
            }
            RuleOption::Overshoot => Setting::Overshoot(Overshoot::ALL[word(Overshoot::WORDS)?]),
            RuleOption::Specials => Setting::Specials(Specials::ALL[word(Specials::WORDS)?]),
            RuleOption::ThreeSixes => {
                Setting::ThreeSixes(ThreeSixes::ALL[word(ThreeSixes::WORDS)?])
            }
            RuleOption::Stacking => Setting::Stacking(Stacking::ALL[word(Stacking::WORDS)?]),
            RuleOption::End => Setting::End(End::ALL[word(End::WORDS)?]),
        })
    }
}

impl fmt::Display for Setting {
    /// `option=value`, with launch_rolls as `[a,b]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=", self.option())?;
        match *self {
            Setting::LaunchRolls(v) => {
                let faces: Vec<String> = v.faces().iter().map(u8::to_string).collect();
                write!(f, "[{}]", faces.join(","))
            }
            Setting::HomeLaneCells(v) => write!(f, "{v}"),
            Setting::MaxTurns(v) => write!(f, "{v}"),
            Setting::Overshoot(v) => f.write_str(v.word()),
            Setting::Specials(v) => f.write_str(v.word()),
            Setting::FlightOptional(v) | Setting::FlightCapturesCrossed(v) => write!(f, "{v}"),
            Setting::ThreeSixes(v) => f.write_str(v.word()),
            Setting::Stacking(v) => f.write_str(v.word()),
            Setting::End(v) => f.write_str(v.word()),
        }
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
            Some(b) => b
                .parse::<Preset>()
                .map_err(|_| RulesError::UnknownBase(crate::excerpt::excerpt(b)))?
                .rules(),
            None => Rules::default(),
        };
        if let Some(faces) = &self.launch_rolls {
            Setting::launch_rolls(faces)?.apply(&mut rules);
        }
        if let Some(l) = self.home_lane_cells {
            Setting::integer(RuleOption::HomeLaneCells, l)?.apply(&mut rules);
        }
        if let Some(m) = self.max_turns {
            Setting::integer(RuleOption::MaxTurns, m)?.apply(&mut rules);
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

/// Why a rule variant is not valid.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum RulesError {
    /// Not a preset name, and not a path to a file.
    #[error("unknown rules preset `{0}`{tail}", tail = crate::suggest::tail(.0, Preset::ALL.map(Preset::name), "allowed presets are appfreegame, classic, chinese (or a path to a .toml variant file)"))]
    UnknownPreset(String),
    /// A `base` that is not a preset (`base` takes only a preset's name).
    #[error("unknown `base` `{0}`{tail}", tail = crate::suggest::tail(.0, Preset::ALL.map(Preset::name), "`base` is one of the presets appfreegame, classic, chinese"))]
    UnknownBase(String),
    /// An option's value is outside what RULES.md allows.
    #[error("invalid value {value} for option `{option}`: allowed is {allowed}")]
    Invalid {
        /// The option's name.
        option: &'static str,
        /// The bad value as written.
        value: String,
        /// What RULES.md allows ([`RuleOption::allowed`]).
        allowed: String,
    },
    /// TOML syntax, an unknown key, or a wrong type.
    #[error("{0}")]
    Parse(String),
    /// A variant file that sets nothing (empty, or only comments).
    #[error(
        "it sets no option: write `base = \"appfreegame\"` (or classic, chinese) and the options that differ"
    )]
    Empty,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_names_are_the_variant_file_keys_in_order() {
        let text = Rules::default().to_toml();
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|kv| kv.0))
            .collect();
        assert_eq!(keys, RuleOption::ALL.map(RuleOption::name));
        for o in RuleOption::ALL {
            assert_eq!(RuleOption::from_name(o.name()), Some(o));
        }
        assert_eq!(RuleOption::from_name("overshot"), None);
        assert!(RuleOption::names().starts_with("launch_rolls, home_lane_cells, overshoot"));
    }

    #[test]
    fn allowed_values_as_messages_say_them() {
        let allowed = |o: RuleOption| o.allowed();
        assert_eq!(allowed(RuleOption::HomeLaneCells), "an integer from 3 to 8");
        assert_eq!(
            allowed(RuleOption::MaxTurns),
            "an integer from 1 to 4294967295"
        );
        assert_eq!(allowed(RuleOption::Overshoot), "one of illegal, bounce");
        assert_eq!(
            allowed(RuleOption::Specials),
            "one of one, jump_then_flight, both"
        );
        assert_eq!(allowed(RuleOption::FlightOptional), "one of true, false");
        assert!(allowed(RuleOption::LaunchRolls).contains("within 1..=6"));
    }

    #[test]
    fn words_are_the_serde_names() {
        for (&v, &w) in ThreeSixes::ALL.iter().zip(ThreeSixes::WORDS) {
            let rules = Rules {
                three_sixes: v,
                ..Rules::default()
            };
            assert!(rules.to_toml().contains(&format!("three_sixes = \"{w}\"")));
            assert_eq!((v.word(), ThreeSixes::from_word(w)), (w, Some(v)));
        }
        assert_eq!(
            Specials::from_word("jump_then_flight"),
            Some(Specials::JumpThenFlight)
        );
        assert_eq!(End::from_word("full"), None);
    }

    #[test]
    fn settings_are_checked_when_built() {
        let err = Setting::integer(RuleOption::HomeLaneCells, 9).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid value 9 for option `home_lane_cells`: allowed is an integer from 3 to 8"
        );
        assert_eq!(
            Setting::integer(RuleOption::MaxTurns, 1),
            Ok(Setting::MaxTurns(1))
        );
        assert!(Setting::launch_rolls(&[0, 6]).is_err());
        assert!(Setting::launch_rolls(&[]).is_err());
        let mut rules = Rules::default();
        for (option, text) in [
            (RuleOption::LaunchRolls, "2, 4,6"),
            (RuleOption::FlightOptional, "true"),
            (RuleOption::Stacking, "move_together"),
            (RuleOption::MaxTurns, "77"),
        ] {
            let s = Setting::parse(option, text).unwrap();
            assert_eq!(s.option(), option);
            s.apply(&mut rules);
        }
        assert_eq!(rules.launch_rolls.faces(), [2, 4, 6]);
        assert!(rules.flight_optional);
        assert_eq!(
            (rules.stacking, rules.max_turns),
            (Stacking::MoveTogether, 77)
        );
        assert!(Setting::parse(RuleOption::End, "last").is_err());
        assert!(Setting::parse(RuleOption::HomeLaneCells, "five").is_err());
    }
}
