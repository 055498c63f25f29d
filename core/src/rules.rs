//! Rule variants: every option of the rules, the three presets, and their validation.
//!
//! [`Rules`] can only hold a valid variant: its fields are private, and the ways to build one
//! check every value ([`Rules::builder`], [`RulesSpec::validate`], [`Rules::with`] a checked
//! [`Setting`], serde). Parsing variant files (TOML) is the `aeroplane` crate's; here a variant
//! arrives as the plain [`RulesSpec`] or as single settings.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use crate::board::PLANES;

/// Defines an enumerated option's type with the word of each value, once: the words are both
/// the serde names (variant files, `run.json`) and the `--vary` values.
macro_rules! worded_enum {
    ($(#[$meta:meta])* pub enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $word:literal,)+
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        pub enum $name {
            $($(#[$vmeta])* #[cfg_attr(feature = "serde", serde(rename = $word))] $variant,)+
        }

        impl $name {
            /// Every value, in the rules document's order.
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

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.word())
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

/// A named preset of the rules document.
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
    pub const fn name(self) -> &'static str {
        match self {
            Preset::AppFreeGame => "appfreegame",
            Preset::Classic => "classic",
            Preset::Chinese => "chinese",
        }
    }

    /// The preset's rules, exactly as the presets table of the rules document gives them.
    pub const fn rules(self) -> Rules {
        match self {
            Preset::AppFreeGame => Rules {
                launch_rolls: LaunchRolls::SIX,
                home_lane_cells: 6,
                overshoot: Overshoot::Illegal,
                specials: Specials::One,
                flight_optional: false,
                flight_captures_crossed: false,
                three_sixes: ThreeSixes::LastMoved,
                stacking: Stacking::None,
                end: End::FirstFinisher,
                max_turns: 10_000,
                planes: PLANES as u8,
            },
            Preset::Classic => Rules {
                launch_rolls: LaunchRolls::EVEN,
                home_lane_cells: 5,
                overshoot: Overshoot::Illegal,
                specials: Specials::JumpThenFlight,
                flight_optional: true,
                flight_captures_crossed: true,
                three_sixes: ThreeSixes::AllMoved,
                stacking: Stacking::MoveTogether,
                end: End::FullRanking,
                max_turns: 10_000,
                planes: PLANES as u8,
            },
            Preset::Chinese => Rules {
                launch_rolls: LaunchRolls::SIX,
                home_lane_cells: 5,
                overshoot: Overshoot::Bounce,
                specials: Specials::Both,
                flight_optional: false,
                flight_captures_crossed: true,
                three_sixes: ThreeSixes::None,
                stacking: Stacking::None,
                end: End::FullRanking,
                max_turns: 10_000,
                planes: PLANES as u8,
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

/// The set of die faces that may launch a plane: never empty, faces 1..=6 only (bit `d` for
/// face `d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchRolls(u8);

impl LaunchRolls {
    /// Launch on a 6 only.
    pub const SIX: LaunchRolls = LaunchRolls(1 << 6);
    /// Launch on 2, 4 or 6.
    pub const EVEN: LaunchRolls = LaunchRolls(1 << 2 | 1 << 4 | 1 << 6);

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
        self.0 & (1 << (roll & 7)) != 0
    }

    /// The faces in ascending order.
    pub fn faces(self) -> Vec<u8> {
        (1..=6).filter(|&d| self.contains(d)).collect()
    }

    /// The set as a bit mask: bit `d` for face `d`.
    #[inline]
    pub const fn bits(self) -> u8 {
        self.0
    }
}

impl fmt::Display for LaunchRolls {
    /// `[a,b]`, as `--vary` labels write it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let faces: Vec<String> = self.faces().iter().map(u8::to_string).collect();
        write!(f, "[{}]", faces.join(","))
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for LaunchRolls {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.faces().serialize(s)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for LaunchRolls {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let faces = Vec::<i64>::deserialize(d)?;
        match Setting::launch_rolls(&faces) {
            Ok(Setting(Value::LaunchRolls(l))) => Ok(l),
            Ok(_) => unreachable!("launch_rolls builds a launch_rolls setting"),
            Err(e) => Err(serde::de::Error::custom(e)),
        }
    }
}

/// A validated rule variant: every option of the rules document. Small and `Copy`; the engine
/// reads it. The fields are private: build one from a [`Preset`], with [`Rules::builder`],
/// from a [`RulesSpec`], or by applying checked [`Setting`]s, so it always holds allowed values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(try_from = "RulesRepr"))]
pub struct Rules {
    pub(crate) launch_rolls: LaunchRolls,
    pub(crate) home_lane_cells: u8,
    pub(crate) overshoot: Overshoot,
    pub(crate) specials: Specials,
    pub(crate) flight_optional: bool,
    pub(crate) flight_captures_crossed: bool,
    pub(crate) three_sixes: ThreeSixes,
    pub(crate) stacking: Stacking,
    pub(crate) end: End,
    pub(crate) max_turns: u32,
    /// Written only when it differs from the default (4), so that files of variants without
    /// it stay as they were.
    #[cfg_attr(
        feature = "serde",
        serde(skip_serializing_if = "Rules::is_default_planes")
    )]
    pub(crate) planes: u8,
}

impl Default for Rules {
    fn default() -> Self {
        Preset::AppFreeGame.rules()
    }
}

impl Rules {
    /// A builder starting from the default preset (`appfreegame`).
    pub fn builder() -> RulesBuilder {
        RulesBuilder::from(Rules::default())
    }

    /// These rules with one checked setting applied.
    #[must_use]
    pub fn with(mut self, setting: Setting) -> Rules {
        setting.apply(&mut self);
        self
    }

    /// Validates a [`RulesSpec`] (the same as [`RulesSpec::validate`]).
    pub fn from_spec(spec: &RulesSpec) -> Result<Rules, RulesError> {
        spec.validate()
    }

    /// The step of the centre: `51 + home_lane_cells`.
    #[inline]
    pub const fn centre(&self) -> u8 {
        51 + self.home_lane_cells
    }
    /// Die faces that launch a plane from the hangar.
    #[inline]
    pub const fn launch_rolls(&self) -> LaunchRolls {
        self.launch_rolls
    }
    /// Cells in each home lane, 3..=8.
    #[inline]
    pub const fn home_lane_cells(&self) -> u8 {
        self.home_lane_cells
    }
    /// Rolls past the centre.
    #[inline]
    pub const fn overshoot(&self) -> Overshoot {
        self.overshoot
    }
    /// Chaining of jumps and the flight.
    #[inline]
    pub const fn specials(&self) -> Specials {
        self.specials
    }
    /// Whether landing on the flight cell offers the choice to stay.
    #[inline]
    pub const fn flight_optional(&self) -> bool {
        self.flight_optional
    }
    /// Whether the flight captures opponents on the crossed cell.
    #[inline]
    pub const fn flight_captures_crossed(&self) -> bool {
        self.flight_captures_crossed
    }
    /// The third-six penalty.
    #[inline]
    pub const fn three_sixes(&self) -> ThreeSixes {
        self.three_sixes
    }
    /// Whether own planes stack.
    #[inline]
    pub const fn stacking(&self) -> Stacking {
        self.stacking
    }
    /// When the game ends.
    #[inline]
    pub const fn end(&self) -> End {
        self.end
    }
    /// Safety cap on turns, 1 or more; a game reaching it is recorded as unfinished.
    #[inline]
    pub const fn max_turns(&self) -> u32 {
        self.max_turns
    }
    /// Planes per seat, 1..=4. A seat's plane slots from `planes` on are not in the game: they
    /// stand at the centre from the start and never move.
    #[inline]
    pub const fn planes(&self) -> u8 {
        self.planes
    }

    /// The value of `option` in these rules, as a setting.
    pub fn get(&self, option: RuleOption) -> Setting {
        Setting(match option {
            RuleOption::LaunchRolls => Value::LaunchRolls(self.launch_rolls),
            RuleOption::HomeLaneCells => Value::HomeLaneCells(self.home_lane_cells),
            RuleOption::Overshoot => Value::Overshoot(self.overshoot),
            RuleOption::Specials => Value::Specials(self.specials),
            RuleOption::FlightOptional => Value::FlightOptional(self.flight_optional),
            RuleOption::FlightCapturesCrossed => {
                Value::FlightCapturesCrossed(self.flight_captures_crossed)
            }
            RuleOption::ThreeSixes => Value::ThreeSixes(self.three_sixes),
            RuleOption::Stacking => Value::Stacking(self.stacking),
            RuleOption::End => Value::End(self.end),
            RuleOption::MaxTurns => Value::MaxTurns(self.max_turns),
            RuleOption::Planes => Value::Planes(self.planes),
        })
    }

    #[cfg(feature = "serde")]
    fn is_default_planes(planes: &u8) -> bool {
        usize::from(*planes) == PLANES
    }
}

/// Builds [`Rules`] from raw values, checking each when [`RulesBuilder::build`] is called;
/// the first bad value is the error.
///
/// ```
/// use aeroplane_core::{Overshoot, Preset, Rules};
/// let rules = Rules::builder()
///     .base(Preset::Classic)
///     .overshoot(Overshoot::Bounce)
///     .home_lane_cells(6)
///     .build()
///     .unwrap();
/// assert_eq!(rules.centre(), 57);
/// assert!(Rules::builder().home_lane_cells(250).build().is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RulesBuilder {
    base: Option<Rules>,
    spec: RulesSpec,
}

impl From<Rules> for RulesBuilder {
    fn from(rules: Rules) -> Self {
        RulesBuilder {
            base: Some(rules),
            spec: RulesSpec::default(),
        }
    }
}

impl RulesBuilder {
    /// Starts again from `preset` (options set so far are kept).
    pub fn base(mut self, preset: Preset) -> Self {
        self.base = Some(preset.rules());
        self
    }
    /// Die faces that launch a plane (non-empty, each 1..=6).
    pub fn launch_rolls(mut self, faces: &[i64]) -> Self {
        self.spec.launch_rolls = Some(faces.to_vec());
        self
    }
    /// Cells in each home lane (3..=8).
    pub fn home_lane_cells(mut self, cells: i64) -> Self {
        self.spec.home_lane_cells = Some(cells);
        self
    }
    /// See [`Overshoot`].
    pub fn overshoot(mut self, v: Overshoot) -> Self {
        self.spec.overshoot = Some(v);
        self
    }
    /// See [`Specials`].
    pub fn specials(mut self, v: Specials) -> Self {
        self.spec.specials = Some(v);
        self
    }
    /// See [`Rules::flight_optional`].
    pub fn flight_optional(mut self, v: bool) -> Self {
        self.spec.flight_optional = Some(v);
        self
    }
    /// See [`Rules::flight_captures_crossed`].
    pub fn flight_captures_crossed(mut self, v: bool) -> Self {
        self.spec.flight_captures_crossed = Some(v);
        self
    }
    /// See [`ThreeSixes`].
    pub fn three_sixes(mut self, v: ThreeSixes) -> Self {
        self.spec.three_sixes = Some(v);
        self
    }
    /// See [`Stacking`].
    pub fn stacking(mut self, v: Stacking) -> Self {
        self.spec.stacking = Some(v);
        self
    }
    /// See [`End`].
    pub fn end(mut self, v: End) -> Self {
        self.spec.end = Some(v);
        self
    }
    /// The turn cap (1..=4294967295).
    pub fn max_turns(mut self, turns: i64) -> Self {
        self.spec.max_turns = Some(turns);
        self
    }
    /// Planes per seat (1..=4).
    pub fn planes(mut self, planes: i64) -> Self {
        self.spec.planes = Some(planes);
        self
    }
    /// Checks every value given and builds the rules.
    pub fn build(&self) -> Result<Rules, RulesError> {
        self.spec.apply_to(self.base.unwrap_or_default())
    }
}

/// An option of a rule variant, as the rules document, variant files and `--vary` name it.
/// Ordered as the rules document lists them.
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
    /// [`Rules::planes`].
    Planes,
}

/// The words of a boolean option.
const BOOL_WORDS: &[&str] = &["true", "false"];
/// `home_lane_cells` allows this.
const HOME_LANE_CELLS: RangeInclusive<i64> = 3..=8;
/// `max_turns` allows this.
const MAX_TURNS: RangeInclusive<i64> = 1..=u32::MAX as i64;
/// `planes` allows this.
const PLANE_COUNTS: RangeInclusive<i64> = 1..=PLANES as i64;

impl RuleOption {
    /// Every option, in the rules document's order.
    pub const ALL: [RuleOption; 11] = [
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
        RuleOption::Planes,
    ];

    /// The option's name: its key in a variant file.
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
            RuleOption::Planes => "planes",
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
            RuleOption::LaunchRolls
            | RuleOption::HomeLaneCells
            | RuleOption::MaxTurns
            | RuleOption::Planes => {
                return None;
            }
        })
    }

    /// The integers an integer option allows.
    fn range(self) -> Option<RangeInclusive<i64>> {
        match self {
            RuleOption::HomeLaneCells => Some(HOME_LANE_CELLS),
            RuleOption::MaxTurns => Some(MAX_TURNS),
            RuleOption::Planes => Some(PLANE_COUNTS),
            _ => None,
        }
    }

    /// What the option allows, as error messages say it.
    pub fn allowed(self) -> String {
        if let Some(r) = self.range() {
            return format!("an integer from {} to {}", r.start(), r.end());
        }
        match self {
            RuleOption::LaunchRolls => {
                "a non-empty list of die faces within 1..=6, e.g. [6] or [2, 4, 6]".to_string()
            }
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

/// One option set to one value, checked against what the option allows when it is built
/// ([`Setting::parse`], [`Setting::integer`], [`Setting::launch_rolls`], or `From` an
/// enumerated option's value), so applying it keeps [`Rules`] valid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Setting(Value);

/// A checked setting's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Value {
    LaunchRolls(LaunchRolls),
    HomeLaneCells(u8),
    Overshoot(Overshoot),
    Specials(Specials),
    FlightOptional(bool),
    FlightCapturesCrossed(bool),
    ThreeSixes(ThreeSixes),
    Stacking(Stacking),
    End(End),
    MaxTurns(u32),
    Planes(u8),
}

macro_rules! setting_from {
    ($($ty:ident),*) => {$(
        impl From<$ty> for Setting {
            fn from(v: $ty) -> Setting {
                Setting(Value::$ty(v))
            }
        }
    )*};
}
setting_from!(LaunchRolls, Overshoot, Specials, ThreeSixes, Stacking, End);

impl Setting {
    /// The option set.
    pub fn option(&self) -> RuleOption {
        match self.0 {
            Value::LaunchRolls(_) => RuleOption::LaunchRolls,
            Value::HomeLaneCells(_) => RuleOption::HomeLaneCells,
            Value::Overshoot(_) => RuleOption::Overshoot,
            Value::Specials(_) => RuleOption::Specials,
            Value::FlightOptional(_) => RuleOption::FlightOptional,
            Value::FlightCapturesCrossed(_) => RuleOption::FlightCapturesCrossed,
            Value::ThreeSixes(_) => RuleOption::ThreeSixes,
            Value::Stacking(_) => RuleOption::Stacking,
            Value::End(_) => RuleOption::End,
            Value::MaxTurns(_) => RuleOption::MaxTurns,
            Value::Planes(_) => RuleOption::Planes,
        }
    }

    /// Sets the option in `rules`.
    pub fn apply(&self, rules: &mut Rules) {
        match self.0 {
            Value::LaunchRolls(v) => rules.launch_rolls = v,
            Value::HomeLaneCells(v) => rules.home_lane_cells = v,
            Value::Overshoot(v) => rules.overshoot = v,
            Value::Specials(v) => rules.specials = v,
            Value::FlightOptional(v) => rules.flight_optional = v,
            Value::FlightCapturesCrossed(v) => rules.flight_captures_crossed = v,
            Value::ThreeSixes(v) => rules.three_sixes = v,
            Value::Stacking(v) => rules.stacking = v,
            Value::End(v) => rules.end = v,
            Value::MaxTurns(v) => rules.max_turns = v,
            Value::Planes(v) => rules.planes = v,
        }
    }

    /// The launch faces, when this sets `launch_rolls`.
    pub fn launch_faces(&self) -> Option<LaunchRolls> {
        match self.0 {
            Value::LaunchRolls(l) => Some(l),
            _ => None,
        }
    }

    /// `launch_rolls` from die faces as written.
    pub fn launch_rolls(faces: &[i64]) -> Result<Setting, RulesError> {
        let small: Option<Vec<u8>> = faces.iter().map(|&f| u8::try_from(f).ok()).collect();
        small
            .and_then(|f| LaunchRolls::from_faces(&f))
            .map(|l| Setting(Value::LaunchRolls(l)))
            .ok_or_else(|| RuleOption::LaunchRolls.invalid(format!("{faces:?}")))
    }

    /// A boolean option (`flight_optional`, `flight_captures_crossed`).
    pub fn boolean(option: RuleOption, value: bool) -> Result<Setting, RulesError> {
        match option {
            RuleOption::FlightOptional => Ok(Setting(Value::FlightOptional(value))),
            RuleOption::FlightCapturesCrossed => Ok(Setting(Value::FlightCapturesCrossed(value))),
            other => Err(RulesError::WrongType {
                option: other.name(),
                wanted: "a true or false value",
                allowed: other.allowed(),
            }),
        }
    }

    /// An integer option (`home_lane_cells`, `max_turns`, `planes`) from its value as written.
    pub fn integer(option: RuleOption, value: i64) -> Result<Setting, RulesError> {
        let Some(range) = option.range() else {
            return Err(RulesError::WrongType {
                option: option.name(),
                wanted: "an integer",
                allowed: option.allowed(),
            });
        };
        if !range.contains(&value) {
            return Err(option.invalid(value.to_string()));
        }
        Ok(Setting(match option {
            RuleOption::HomeLaneCells => Value::HomeLaneCells(value as u8),
            RuleOption::Planes => Value::Planes(value as u8),
            _ => Value::MaxTurns(value as u32),
        }))
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
            RuleOption::HomeLaneCells | RuleOption::MaxTurns | RuleOption::Planes => {
                let value = text.parse::<i64>().map_err(|_| invalid())?;
                Setting::integer(option, value).map_err(|_| invalid())?
            }
            RuleOption::FlightOptional | RuleOption::FlightCapturesCrossed => {
                Setting::boolean(option, word(BOOL_WORDS)? == 0)?
            }
            RuleOption::Overshoot => Overshoot::ALL[word(Overshoot::WORDS)?].into(),
            RuleOption::Specials => Specials::ALL[word(Specials::WORDS)?].into(),
            RuleOption::ThreeSixes => ThreeSixes::ALL[word(ThreeSixes::WORDS)?].into(),
            RuleOption::Stacking => Stacking::ALL[word(Stacking::WORDS)?].into(),
            RuleOption::End => End::ALL[word(End::WORDS)?].into(),
        })
    }
}

impl fmt::Display for Setting {
    /// `option=value`, with launch_rolls as `[a,b]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}=", self.option())?;
        match self.0 {
            Value::LaunchRolls(v) => write!(f, "{v}"),
            Value::HomeLaneCells(v) | Value::Planes(v) => write!(f, "{v}"),
            Value::MaxTurns(v) => write!(f, "{v}"),
            Value::Overshoot(v) => write!(f, "{v}"),
            Value::Specials(v) => write!(f, "{v}"),
            Value::FlightOptional(v) | Value::FlightCapturesCrossed(v) => write!(f, "{v}"),
            Value::ThreeSixes(v) => write!(f, "{v}"),
            Value::Stacking(v) => write!(f, "{v}"),
            Value::End(v) => write!(f, "{v}"),
        }
    }
}

/// A rule variant as written: every option optional, starting from `base` (default
/// `appfreegame`). Plain data; validate it into [`Rules`] with [`RulesSpec::validate`].
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct RulesSpec {
    /// The preset the variant starts from.
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
    /// Planes per seat.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub planes: Option<i64>,
}

impl RulesSpec {
    /// Checks every option against the allowed values and builds the [`Rules`].
    pub fn validate(&self) -> Result<Rules, RulesError> {
        let base = match &self.base {
            Some(b) => b
                .parse::<Preset>()
                .map_err(|_| RulesError::UnknownBase(crate::excerpt::excerpt(b)))?
                .rules(),
            None => Rules::default(),
        };
        self.apply_to(base)
    }

    /// Whether it sets nothing at all (not even `base`).
    pub fn is_empty(&self) -> bool {
        *self == RulesSpec::default()
    }

    /// `base` overridden by every option this sets (its own `base` ignored).
    fn apply_to(&self, mut rules: Rules) -> Result<Rules, RulesError> {
        if let Some(faces) = &self.launch_rolls {
            Setting::launch_rolls(faces)?.apply(&mut rules);
        }
        for (option, value) in [
            (RuleOption::HomeLaneCells, self.home_lane_cells),
            (RuleOption::MaxTurns, self.max_turns),
            (RuleOption::Planes, self.planes),
        ] {
            if let Some(v) = value {
                Setting::integer(option, v)?.apply(&mut rules);
            }
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

/// The serde form of [`Rules`]: every option written out (`planes` may be left out, meaning
/// 4), checked on the way in.
#[cfg(feature = "serde")]
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesRepr {
    launch_rolls: Vec<i64>,
    home_lane_cells: i64,
    overshoot: Overshoot,
    specials: Specials,
    flight_optional: bool,
    flight_captures_crossed: bool,
    three_sixes: ThreeSixes,
    stacking: Stacking,
    end: End,
    max_turns: i64,
    planes: Option<i64>,
}

#[cfg(feature = "serde")]
impl TryFrom<RulesRepr> for Rules {
    type Error = RulesError;
    fn try_from(r: RulesRepr) -> Result<Rules, RulesError> {
        RulesSpec {
            base: None,
            launch_rolls: Some(r.launch_rolls),
            home_lane_cells: Some(r.home_lane_cells),
            overshoot: Some(r.overshoot),
            specials: Some(r.specials),
            flight_optional: Some(r.flight_optional),
            flight_captures_crossed: Some(r.flight_captures_crossed),
            three_sixes: Some(r.three_sixes),
            stacking: Some(r.stacking),
            end: Some(r.end),
            max_turns: Some(r.max_turns),
            planes: r.planes,
        }
        .validate()
    }
}

/// Why a rule variant is not valid.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RulesError {
    /// Not a preset name (and, where a path is allowed, not a path to a file).
    UnknownPreset(String),
    /// A `base` that is not a preset (`base` takes only a preset's name).
    UnknownBase(String),
    /// An option's value is outside what the rules allow.
    Invalid {
        /// The option's name.
        option: &'static str,
        /// The bad value as written.
        value: String,
        /// What the option allows ([`RuleOption::allowed`]).
        allowed: String,
    },
    /// A value of the wrong type for an option (an integer for a word option, ...).
    WrongType {
        /// The option's name.
        option: &'static str,
        /// The type that was offered.
        wanted: &'static str,
        /// What the option allows.
        allowed: String,
    },
    /// The text that held the variant could not be parsed (syntax, an unknown key, a wrong
    /// type), with the parser's message.
    Parse(String),
    /// A variant that sets nothing (an empty file, or only comments).
    Empty,
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let presets = Preset::ALL.map(Preset::name);
        match self {
            RulesError::UnknownPreset(name) => write!(
                f,
                "unknown rules preset `{name}`{}",
                crate::suggest::tail(
                    name,
                    presets,
                    "allowed presets are appfreegame, classic, chinese (or a path to a .toml variant file)"
                )
            ),
            RulesError::UnknownBase(name) => write!(
                f,
                "unknown `base` `{name}`{}",
                crate::suggest::tail(
                    name,
                    presets,
                    "`base` is one of the presets appfreegame, classic, chinese"
                )
            ),
            RulesError::Invalid {
                option,
                value,
                allowed,
            } => write!(
                f,
                "invalid value {value} for option `{option}`: allowed is {allowed}"
            ),
            RulesError::WrongType {
                option,
                wanted,
                allowed,
            } => write!(
                f,
                "option `{option}` does not take {wanted}: allowed is {allowed}"
            ),
            RulesError::Parse(message) => f.write_str(message),
            RulesError::Empty => f.write_str(
                "it sets no option: write `base = \"appfreegame\"` (or classic, chinese) and the options that differ",
            ),
        }
    }
}

impl std::error::Error for RulesError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_values_as_messages_say_them() {
        let allowed = |o: RuleOption| o.allowed();
        assert_eq!(allowed(RuleOption::HomeLaneCells), "an integer from 3 to 8");
        assert_eq!(
            allowed(RuleOption::MaxTurns),
            "an integer from 1 to 4294967295"
        );
        assert_eq!(allowed(RuleOption::Planes), "an integer from 1 to 4");
        assert_eq!(allowed(RuleOption::Overshoot), "one of illegal, bounce");
        assert_eq!(
            allowed(RuleOption::Specials),
            "one of one, jump_then_flight, both"
        );
        assert_eq!(allowed(RuleOption::FlightOptional), "one of true, false");
        assert!(allowed(RuleOption::LaunchRolls).contains("within 1..=6"));
        for o in RuleOption::ALL {
            assert_eq!(RuleOption::from_name(o.name()), Some(o));
        }
        assert_eq!(RuleOption::from_name("overshot"), None);
    }

    #[test]
    fn words_round_trip() {
        for (&v, &w) in ThreeSixes::ALL.iter().zip(ThreeSixes::WORDS) {
            assert_eq!((v.word(), ThreeSixes::from_word(w)), (w, Some(v)));
            assert_eq!(v.to_string(), w);
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
            Setting::integer(RuleOption::MaxTurns, 1)
                .unwrap()
                .to_string(),
            "max_turns=1"
        );
        assert!(Setting::integer(RuleOption::Planes, 0).is_err());
        assert!(Setting::integer(RuleOption::Planes, 5).is_err());
        assert_eq!(
            Setting::integer(RuleOption::Overshoot, 1)
                .unwrap_err()
                .to_string(),
            "option `overshoot` does not take an integer: allowed is one of illegal, bounce"
        );
        assert!(Setting::boolean(RuleOption::Planes, true).is_err());
        assert!(Setting::launch_rolls(&[0, 6]).is_err());
        assert!(Setting::launch_rolls(&[]).is_err());
        let mut rules = Rules::default();
        for (option, text) in [
            (RuleOption::LaunchRolls, "2, 4,6"),
            (RuleOption::FlightOptional, "true"),
            (RuleOption::Stacking, "move_together"),
            (RuleOption::MaxTurns, "77"),
            (RuleOption::Planes, "2"),
        ] {
            let s = Setting::parse(option, text).unwrap();
            assert_eq!(s.option(), option);
            assert_eq!(rules.with(s).get(option), s);
            s.apply(&mut rules);
        }
        assert_eq!(rules.launch_rolls().faces(), [2, 4, 6]);
        assert!(rules.flight_optional());
        assert_eq!(
            (rules.stacking(), rules.max_turns(), rules.planes()),
            (Stacking::MoveTogether, 77, 2)
        );
        assert!(Setting::parse(RuleOption::End, "last").is_err());
        assert!(Setting::parse(RuleOption::HomeLaneCells, "five").is_err());
    }

    #[test]
    fn the_builder_checks_every_value() {
        let ok = Rules::builder()
            .base(Preset::Chinese)
            .planes(2)
            .max_turns(300)
            .build()
            .unwrap();
        assert_eq!((ok.planes(), ok.max_turns()), (2, 300));
        assert_eq!(ok.overshoot(), Overshoot::Bounce);
        for bad in [
            Rules::builder().home_lane_cells(2),
            Rules::builder().home_lane_cells(250),
            Rules::builder().max_turns(0),
            Rules::builder().max_turns(1 << 40),
            Rules::builder().planes(0),
            Rules::builder().launch_rolls(&[7]),
            Rules::builder().launch_rolls(&[]),
        ] {
            assert!(matches!(bad.build(), Err(RulesError::Invalid { .. })));
        }
    }
}
