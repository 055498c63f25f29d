//! Rule variants for a sweep: the `--vary` grammar and the Cartesian product of variants.
//!
//! # Grammar
//!
//! ```text
//! vary   := option "=" values
//! values := value ("," value)*          every option except launch_rolls
//!         | set (";" set)*              launch_rolls: sets separated by ";"
//! set    := "[" faces "]" | faces       brackets optional
//! faces  := face ("," face)*            a comma always separates faces within one set
//! ```
//!
//! Spaces around tokens are ignored. Allowed values (RULES.md): `launch_rolls` non-empty sets
//! of faces 1..=6; `home_lane_cells` 3..=8; `max_turns` >= 1; `planes` 1..=4;
//! `flight_optional`, `flight_captures_crossed` `true`/`false`; and the words of each
//! enumerated option (`overshoot=illegal,bounce`, `specials=one,jump_then_flight,both`,
//! `three_sixes=none,last_moved,all_moved`, `stacking=none,move_together`,
//! `end=first_finisher,full_ranking`). The axis `base` is not a rule option: its values are
//! presets (`base=appfreegame,classic,chinese`), and a variant with one starts from that
//! preset's rules instead of the sweep's base rules. Examples:
//!
//! ```text
//! overshoot=illegal,bounce
//! launch_rolls=[6];[5,6];[2,4,6]      the same as  launch_rolls=6;5,6;2,4,6
//! home_lane_cells=4,5,6
//! base=appfreegame,classic,chinese
//! ```
//!
//! Several axes give their Cartesian product, the first axis varying slowest. Each variant is the
//! base rules (or its `base` axis's preset) with the other axes' settings applied, labelled like
//! `overshoot=bounce launch_rolls=[5,6]` (`base` when nothing is varied), the axes in the order
//! given. Values are checked by the same validation as a rules file
//! ([`crate::RulesSpec::validate`]).
//!
//! ```
//! use aeroplane::analysis::{Axis, variants};
//! use aeroplane::{Overshoot, Preset, Rules};
//! let axes: Vec<Axis> = ["overshoot=illegal,bounce", "launch_rolls=[6];[2,4,6]"]
//!     .iter()
//!     .map(|t| t.parse())
//!     .collect::<Result<_, _>>()
//!     .unwrap();
//! let all = variants(Rules::default(), &axes).unwrap();
//! assert_eq!(all.len(), 4);
//! assert_eq!(all[3].label(), "overshoot=bounce launch_rolls=[2,4,6]");
//! // Presets against each other, the other axes on top of each preset's rules.
//! let presets: Axis = "base=classic,chinese".parse().unwrap();
//! let all = variants(Rules::default(), &[presets, axes[0].clone()]).unwrap();
//! assert_eq!(all[3].label(), "base=chinese overshoot=bounce");
//! let bounce = aeroplane::analysis::Setting::from(Overshoot::Bounce);
//! assert_eq!(all[3].rules, Preset::Chinese.rules().with(bounce));
//! let err = "overshoot=sideways".parse::<Axis>().unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "invalid value `sideways` for option `overshoot` in the setting `vary`: allowed is one of illegal, bounce"
//! );
//! ```

use std::str::FromStr;

pub use aeroplane_core::Setting;
use aeroplane_core::{Preset, RuleOption, Rules, RulesError};

/// The name of the axis whose values are presets.
pub const BASE_AXIS: &str = "base";

/// Why a value of the setting `vary` could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VaryError {
    /// Not `option=values`.
    #[error(
        "bad value `{0}` for the setting `vary`: expected option=value1,value2,... (for launch_rolls, sets separated by `;`, e.g. launch_rolls=[6];[5,6])"
    )]
    Syntax(String),
    /// Not an option of RULES.md.
    #[error(
        "unknown rule option `{0}` in the setting `vary`: allowed options are {names}, or `base` (its values are presets: {presets})",
        names = RuleOption::names(),
        presets = preset_names()
    )]
    UnknownOption(String),
    /// A value the option does not allow.
    #[error(
        "invalid value `{value}` for option `{option}` in the setting `vary`: allowed is {allowed}"
    )]
    Invalid {
        /// The option.
        option: &'static str,
        /// The value as written.
        value: String,
        /// What is allowed.
        allowed: String,
    },
    /// The same value listed twice for one option.
    #[error("the setting `vary` lists `{0}` twice")]
    DuplicateValue(String),
    /// A product of more than [`MAX_VARIANTS`] variants.
    #[error(
        "the sweep would have {count} variants ({sizes}); at most {max} are allowed: vary fewer options or values, or split the sweep",
        max = MAX_VARIANTS
    )]
    TooMany {
        /// The product's size (saturated).
        count: usize,
        /// Values per axis, e.g. `600 max_turns x 600 home_lane_cells`.
        sizes: String,
    },
    /// The same option varied twice.
    #[error("option `{0}` is varied twice: give all its values in one entry of the setting `vary`")]
    DuplicateOption(&'static str),
}

/// Parses one value of `option` as `--vary` writes it (for launch_rolls, one set, brackets
/// optional), checked by the same validation as a rules file.
pub fn parse_setting(option: &str, value: &str) -> Result<Setting, VaryError> {
    let option = find_option(option)?;
    let value = value.trim();
    let invalid = |allowed: String| VaryError::Invalid {
        option: option.name(),
        value: aeroplane_core::excerpt::excerpt(value),
        allowed,
    };
    let checked = |e: RulesError| match e {
        RulesError::Invalid { allowed, .. } => invalid(allowed),
        other => invalid(other.to_string()),
    };
    if option != RuleOption::LaunchRolls {
        return Setting::parse(option, value).map_err(checked);
    }
    const ALLOWED: &str =
        "a non-empty set of die faces within 1..=6, e.g. [6] or [2,4,6] (sets separated by `;`)";
    let inner = match (value.strip_prefix('['), value.strip_suffix(']')) {
        (Some(_), Some(_)) if value.len() >= 2 => &value[1..value.len() - 1],
        (None, None) => value,
        _ => return Err(invalid(ALLOWED.to_string())),
    };
    let faces = inner
        .split(',')
        .map(|f| f.trim().parse::<i64>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| invalid(ALLOWED.to_string()))?;
    Setting::launch_rolls(&faces).map_err(checked)
}

/// The presets' names, comma-separated: what the axis `base` allows.
fn preset_names() -> String {
    Preset::ALL.map(Preset::name).join(", ")
}

/// Parses one value of the axis `base`: a preset's name.
fn parse_preset(value: &str) -> Result<Preset, VaryError> {
    let value = value.trim();
    value.parse::<Preset>().map_err(|_| VaryError::Invalid {
        option: BASE_AXIS,
        value: aeroplane_core::excerpt::excerpt(value),
        allowed: format!("a preset: one of {}", preset_names()),
    })
}

fn find_option(name: &str) -> Result<RuleOption, VaryError> {
    RuleOption::from_name(name)
        .ok_or_else(|| VaryError::UnknownOption(aeroplane_core::excerpt::excerpt(name)))
}

/// One value of an axis: a rule option's setting, or a preset (the axis `base`) whose rules
/// the variant starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// One rule option set to one value.
    Setting(Setting),
    /// A preset's rules, as the variant's base.
    Preset(Preset),
}

impl Level {
    /// The value as `--vary` and sweep.csv write it: `bounce`, `[5,6]`, `classic`.
    pub fn value(&self) -> String {
        match self {
            Level::Setting(s) => {
                let text = s.to_string();
                text.split_once('=')
                    .map_or(text.clone(), |(_, v)| v.to_string())
            }
            Level::Preset(p) => p.name().to_string(),
        }
    }

    /// Whether `rules` already have this value (a preset: are that preset's rules).
    pub fn is_of(&self, rules: Rules) -> bool {
        match *self {
            Level::Setting(s) => rules.with(s) == rules,
            Level::Preset(p) => p.rules() == rules,
        }
    }
}

impl std::fmt::Display for Level {
    /// `overshoot=bounce`, `base=classic`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Level::Setting(s) => write!(f, "{s}"),
            Level::Preset(p) => write!(f, "{BASE_AXIS}={p}"),
        }
    }
}

/// One varied option (or the axis `base` of presets) with its values, in the order given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    /// `None` for the axis `base`.
    option: Option<RuleOption>,
    levels: Vec<Level>,
}

impl Axis {
    /// An axis from one option and its values as text (for launch_rolls, one set per value).
    pub fn from_values<S: AsRef<str>>(option: &str, values: &[S]) -> Result<Axis, VaryError> {
        if values.len() > MAX_VARIANTS {
            return Err(VaryError::TooMany {
                count: values.len(),
                sizes: format!(
                    "{} {}",
                    values.len(),
                    aeroplane_core::excerpt::excerpt(option)
                ),
            });
        }
        let base = option.trim() == BASE_AXIS;
        let mut levels: Vec<Level> = Vec::with_capacity(values.len());
        let mut seen = std::collections::HashSet::with_capacity(values.len());
        for v in values {
            let l = if base {
                Level::Preset(parse_preset(v.as_ref())?)
            } else {
                Level::Setting(parse_setting(option, v.as_ref())?)
            };
            if !seen.insert(l) {
                return Err(VaryError::DuplicateValue(l.to_string()));
            }
            levels.push(l);
        }
        let option = if base {
            None
        } else {
            Some(find_option(option)?)
        };
        if levels.is_empty() {
            return Err(VaryError::Syntax(format!(
                "{}=",
                option.map_or(BASE_AXIS, RuleOption::name)
            )));
        }
        Ok(Axis { option, levels })
    }

    /// An axis from a TOML sweep entry `option = [values]`: words as strings, integers,
    /// booleans, and launch_rolls sets as arrays of faces (`launch_rolls = [[6], [5, 6]]`).
    pub fn from_toml(option: &str, value: &toml::Value) -> Result<Axis, VaryError> {
        let bad = |v: &toml::Value| {
            VaryError::Syntax(aeroplane_core::excerpt::excerpt(&format!("{option} = {v}")))
        };
        let items = value.as_array().ok_or_else(|| bad(value))?;
        let texts = items
            .iter()
            .map(|item| match item {
                toml::Value::String(s) => Ok(s.clone()),
                toml::Value::Integer(i) => Ok(i.to_string()),
                toml::Value::Boolean(b) => Ok(b.to_string()),
                toml::Value::Array(faces) => faces
                    .iter()
                    .map(|f| {
                        f.as_integer()
                            .map(|i| i.to_string())
                            .ok_or_else(|| bad(item))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(|f| f.join(",")),
                other => Err(bad(other)),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Axis::from_values(option, &texts)
    }

    /// The option varied (`base` for the axis of presets).
    pub fn option(&self) -> &'static str {
        self.option.map_or(BASE_AXIS, RuleOption::name)
    }

    /// Its values, in the order given.
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// Its values as `--vary` writes them (`bounce`, `[5,6]`, `classic`), in the order given.
    pub fn values(&self) -> Vec<String> {
        self.levels.iter().map(Level::value).collect()
    }

    /// The axis as `--vary` text: `overshoot=illegal,bounce`, `launch_rolls=[6];[2,4,6]`,
    /// `base=classic,chinese`; it parses back to the same axis.
    pub fn text(&self) -> String {
        let sep = if self.option == Some(RuleOption::LaunchRolls) {
            ";"
        } else {
            ","
        };
        format!("{}={}", self.option(), self.values().join(sep))
    }
}

impl FromStr for Axis {
    type Err = VaryError;

    /// Parses `option=v1,v2,...` (see the module docs).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (option, values) = text
            .split_once('=')
            .ok_or_else(|| VaryError::Syntax(aeroplane_core::excerpt::excerpt(text)))?;
        let option = option.trim();
        if option.is_empty() {
            return Err(VaryError::Syntax(aeroplane_core::excerpt::excerpt(text)));
        }
        let separator = if option == "launch_rolls" { ';' } else { ',' };
        let values: Vec<&str> = values.split(separator).collect();
        Axis::from_values(option, &values)
    }
}

/// One rule variant of a sweep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The base rules (or the variant's preset) with the settings applied.
    pub rules: Rules,
    /// The variant's value of each axis, in axis order.
    pub levels: Vec<Level>,
}

impl Variant {
    /// A stable label like `overshoot=bounce launch_rolls=[5,6]` or `base=classic
    /// overshoot=bounce` (`base` when nothing is varied).
    pub fn label(&self) -> String {
        if self.levels.is_empty() {
            return "base".to_string();
        }
        let parts: Vec<String> = self.levels.iter().map(Level::to_string).collect();
        parts.join(" ")
    }
}

/// The most variants one sweep may have: each is a full run's tallies in memory and a row of
/// every table, and a sweep of more is almost always a mistake in its `--vary` lists.
pub const MAX_VARIANTS: usize = 10_000;

/// The Cartesian product of the axes over `base`, the first axis varying slowest; at most
/// [`MAX_VARIANTS`] of them. A variant with a preset (the axis `base`) starts from the preset's
/// rules instead of `base`, wherever that axis stands; the settings apply on top.
pub fn variants(base: Rules, axes: &[Axis]) -> Result<Vec<Variant>, VaryError> {
    for (i, a) in axes.iter().enumerate() {
        if axes[..i].iter().any(|b| b.option == a.option) {
            return Err(VaryError::DuplicateOption(a.option()));
        }
    }
    let count = axes
        .iter()
        .fold(1usize, |n, a| n.saturating_mul(a.levels.len()));
    if count > MAX_VARIANTS {
        let sizes: Vec<String> = axes
            .iter()
            .map(|a| format!("{} {}", a.levels.len(), a.option()))
            .collect();
        return Err(VaryError::TooMany {
            count,
            sizes: sizes.join(" x "),
        });
    }
    let mut out = vec![Vec::new()];
    for axis in axes {
        out = out
            .iter()
            .flat_map(|levels: &Vec<Level>| {
                axis.levels.iter().map(move |l| {
                    let mut next = levels.clone();
                    next.push(*l);
                    next
                })
            })
            .collect();
    }
    Ok(out
        .into_iter()
        .map(|levels| {
            let mut rules = levels
                .iter()
                .find_map(|l| match l {
                    Level::Preset(p) => Some(p.rules()),
                    Level::Setting(_) => None,
                })
                .unwrap_or(base);
            for l in &levels {
                if let Level::Setting(s) = l {
                    s.apply(&mut rules);
                }
            }
            Variant { rules, levels }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::RulesToml;
    use aeroplane_core::{End, Overshoot, Preset, Specials, Stacking, ThreeSixes};

    fn axis(text: &str) -> Axis {
        text.parse().unwrap()
    }

    fn err(text: &str) -> VaryError {
        text.parse::<Axis>().unwrap_err()
    }

    #[test]
    fn launch_rolls_sets_with_and_without_brackets() {
        let a = axis("launch_rolls=[6];[5,6];[2,4,6]");
        assert_eq!(a, axis("launch_rolls=6;5,6;2,4,6"));
        assert_eq!(a, axis(" launch_rolls = [ 6 ] ; 6 , 5 ; [2, 4,6] "));
        let faces: Vec<Vec<u8>> = a
            .levels()
            .iter()
            .map(|l| match l {
                Level::Setting(s) => s.launch_faces().unwrap().faces(),
                Level::Preset(p) => panic!("{p}"),
            })
            .collect();
        assert_eq!(faces, [vec![6], vec![5, 6], vec![2, 4, 6]]);
        assert_eq!(a.levels()[2].to_string(), "launch_rolls=[2,4,6]");
        assert_eq!(a.text(), "launch_rolls=[6];[5,6];[2,4,6]");
        // A comma separates faces: this is one set.
        assert_eq!(axis("launch_rolls=5,6").levels().len(), 1);
    }

    #[test]
    fn every_option_parses() {
        let cases = [
            (
                "home_lane_cells=3,8",
                Setting::integer(RuleOption::HomeLaneCells, 8).unwrap(),
            ),
            ("overshoot=illegal,bounce", Setting::from(Overshoot::Bounce)),
            (
                "specials=one,jump_then_flight,both",
                Setting::from(Specials::Both),
            ),
            (
                "flight_optional=false,true",
                Setting::boolean(RuleOption::FlightOptional, true).unwrap(),
            ),
            (
                "flight_captures_crossed=true,false",
                Setting::boolean(RuleOption::FlightCapturesCrossed, false).unwrap(),
            ),
            (
                "three_sixes=none,last_moved,all_moved",
                Setting::from(ThreeSixes::AllMoved),
            ),
            (
                "stacking=none,move_together",
                Setting::from(Stacking::MoveTogether),
            ),
            (
                "end=first_finisher,full_ranking",
                Setting::from(End::FullRanking),
            ),
            (
                "max_turns=1,4294967295",
                Setting::integer(RuleOption::MaxTurns, u32::MAX.into()).unwrap(),
            ),
            (
                "planes=1,2,3",
                Setting::integer(RuleOption::Planes, 3).unwrap(),
            ),
        ];
        for (text, last) in cases {
            let a = axis(text);
            assert_eq!(a.levels().last(), Some(&Level::Setting(last)), "{text}");
            // Labels read back as the same value.
            let labels: Vec<String> = a
                .levels()
                .iter()
                .map(|s| s.to_string().split_once('=').unwrap().1.to_string())
                .collect();
            assert_eq!(labels, a.values());
            assert_eq!(axis(&format!("{}={}", a.option(), labels.join(","))), a);
            assert_eq!(axis(&a.text()), a);
        }
        assert_eq!(cases.len() + 1, RuleOption::ALL.len());
    }

    #[test]
    fn words_agree_with_the_rules_file_format() {
        // Every word accepted here is the word a rules TOML file uses for the same value, and
        // every value of each worded option has a word.
        let mut seen = 0;
        for option in RuleOption::ALL {
            let Some(words) = option.words() else {
                continue;
            };
            let mut values = Vec::new();
            for w in words {
                let toml_value = if option.words() == Some(&["true", "false"][..]) {
                    w.to_string()
                } else {
                    format!("\"{w}\"")
                };
                let from_file = Rules::from_toml(&format!("{option} = {toml_value}")).unwrap();
                let mut ours = Rules::default();
                let setting = parse_setting(option.name(), w).unwrap();
                setting.apply(&mut ours);
                assert_eq!(ours, from_file, "{option}={w}");
                assert!(!values.contains(&setting), "{option}={w}");
                values.push(setting);
            }
            seen += 1;
        }
        assert_eq!(seen, 7);
    }

    #[test]
    fn product_order_and_labels() {
        let base = Preset::Classic.rules();
        let vs = variants(
            base,
            &[
                axis("overshoot=illegal,bounce"),
                axis("launch_rolls=[6];[5,6]"),
            ],
        )
        .unwrap();
        let labels: Vec<String> = vs.iter().map(Variant::label).collect();
        assert_eq!(
            labels,
            [
                "overshoot=illegal launch_rolls=[6]",
                "overshoot=illegal launch_rolls=[5,6]",
                "overshoot=bounce launch_rolls=[6]",
                "overshoot=bounce launch_rolls=[5,6]",
            ]
        );
        let last = vs[3].rules;
        assert_eq!(last.overshoot(), Overshoot::Bounce);
        assert_eq!(last.launch_rolls().faces(), [5, 6]);
        // Everything not varied comes from the base.
        assert_eq!(last.home_lane_cells(), 5);
        assert_eq!(last.stacking(), Stacking::MoveTogether);
        let none = variants(base, &[]).unwrap();
        assert_eq!(none.len(), 1);
        assert_eq!((none[0].rules, none[0].label()), (base, "base".to_string()));
    }

    #[test]
    fn presets_swept_against_each_other() {
        let a = axis("base= appfreegame, classic ,chinese");
        assert_eq!(a.option(), "base");
        assert_eq!(a.values(), ["appfreegame", "classic", "chinese"]);
        assert_eq!(a.text(), "base=appfreegame,classic,chinese");
        assert_eq!(axis(&a.text()), a);
        // Alone: each variant is its preset's rules, whatever the sweep's base.
        let vs = variants(Preset::Chinese.rules(), std::slice::from_ref(&a)).unwrap();
        let labels: Vec<String> = vs.iter().map(Variant::label).collect();
        assert_eq!(labels, ["base=appfreegame", "base=classic", "base=chinese"]);
        for (v, p) in vs.iter().zip(Preset::ALL) {
            assert_eq!(v.rules, p.rules(), "{p}");
        }
        // With another axis, on either side: the setting applies on top of the preset.
        for presets_first in [true, false] {
            let other = axis("overshoot=illegal,bounce");
            let axes = if presets_first {
                vec![a.clone(), other]
            } else {
                vec![other, a.clone()]
            };
            let vs = variants(Rules::default(), &axes).unwrap();
            assert_eq!(vs.len(), 6);
            for v in &vs {
                let preset = v.levels.iter().find_map(|l| match l {
                    Level::Preset(p) => Some(*p),
                    Level::Setting(_) => None,
                });
                let bounce = v.label().contains("overshoot=bounce");
                let mut want = preset.unwrap().rules();
                want = want.with(Setting::from(if bounce {
                    Overshoot::Bounce
                } else {
                    Overshoot::Illegal
                }));
                assert_eq!(v.rules, want, "{}", v.label());
            }
            let first = if presets_first {
                "base=appfreegame overshoot=illegal"
            } else {
                "overshoot=illegal base=appfreegame"
            };
            assert_eq!(vs[0].label(), first);
        }
        // Classic's own stacking is kept under a varied overshoot.
        let vs = variants(
            Rules::default(),
            &[axis("base=classic"), axis("overshoot=bounce")],
        )
        .unwrap();
        assert_eq!(vs[0].rules.stacking(), Stacking::MoveTogether);
        assert!(Level::Preset(Preset::Classic).is_of(Preset::Classic.rules()));
        assert!(!Level::Preset(Preset::Classic).is_of(Rules::default()));
    }

    #[test]
    fn bad_presets_name_the_allowed_ones() {
        let e = err("base=classic,chess");
        assert_eq!(
            e,
            VaryError::Invalid {
                option: "base",
                value: "chess".into(),
                allowed: "a preset: one of appfreegame, classic, chinese".into(),
            }
        );
        assert_eq!(
            e.to_string(),
            "invalid value `chess` for option `base` in the setting `vary`: allowed is a preset: one of appfreegame, classic, chinese"
        );
        assert_eq!(
            err("base=classic,classic"),
            VaryError::DuplicateValue("base=classic".into())
        );
        assert_eq!(err("base="), err("base=,"));
        assert_eq!(
            variants(
                Rules::default(),
                &[axis("base=classic"), axis("base=chinese")]
            ),
            Err(VaryError::DuplicateOption("base"))
        );
        // An unknown option's message offers `base` too.
        let msg = err("bases=classic").to_string();
        assert!(msg.contains("`base`") && msg.contains("appfreegame, classic, chinese"));
    }

    #[test]
    fn syntax_errors() {
        assert_eq!(err("overshoot"), VaryError::Syntax("overshoot".into()));
        assert_eq!(err("=bounce"), VaryError::Syntax("=bounce".into()));
        assert!(
            err("overshoot")
                .to_string()
                .contains("option=value1,value2")
        );
    }

    #[test]
    fn unknown_option_lists_the_allowed_ones() {
        assert_eq!(
            err("overshot=bounce"),
            VaryError::UnknownOption("overshot".into())
        );
        let msg = err("overshot=bounce").to_string();
        assert!(msg.contains("overshot") && msg.contains("three_sixes"));
    }

    #[test]
    fn bad_values_name_option_value_and_allowed() {
        let check = |text: &str, option: &str, value: &str, allowed: &str| match err(text) {
            VaryError::Invalid {
                option: o,
                value: v,
                allowed: a,
            } => {
                assert_eq!((o, v.as_str()), (option, value), "{text}");
                assert!(a.contains(allowed), "{text}: {a}");
            }
            other => panic!("{text}: {other:?}"),
        };
        check(
            "overshoot=illegal,bouncy",
            "overshoot",
            "bouncy",
            "illegal, bounce",
        );
        check("end=last", "end", "last", "first_finisher, full_ranking");
        check(
            "flight_optional=yes",
            "flight_optional",
            "yes",
            "true, false",
        );
        check("stacking=", "stacking", "", "none, move_together");
        check("home_lane_cells=5,9", "home_lane_cells", "9", "3 to 8");
        check("home_lane_cells=five", "home_lane_cells", "five", "3 to 8");
        check("max_turns=0", "max_turns", "0", "1 to 4294967295");
        check(
            "launch_rolls=[6];[0,6]",
            "launch_rolls",
            "[0,6]",
            "within 1..=6",
        );
        check("launch_rolls=[6];[]", "launch_rolls", "[]", "within 1..=6");
        check("launch_rolls=[5,6", "launch_rolls", "[5,6", "within 1..=6");
        check("launch_rolls=6;x", "launch_rolls", "x", "within 1..=6");
        check(
            "overshoot=illegal;bounce",
            "overshoot",
            "illegal;bounce",
            "illegal, bounce",
        );
        let msg = err("home_lane_cells=9").to_string();
        assert!(msg.contains("home_lane_cells") && msg.contains('9') && msg.contains("3 to 8"));
    }

    #[test]
    fn duplicates_are_errors() {
        assert_eq!(
            err("launch_rolls=5,6;6,5"),
            VaryError::DuplicateValue("launch_rolls=[5,6]".into())
        );
        assert_eq!(
            err("overshoot=bounce,bounce"),
            VaryError::DuplicateValue("overshoot=bounce".into())
        );
        assert_eq!(
            variants(
                Rules::default(),
                &[axis("end=full_ranking"), axis("end=first_finisher")]
            ),
            Err(VaryError::DuplicateOption("end"))
        );
    }

    #[test]
    fn toml_sweep_entries() {
        let table: toml::Table = toml::from_str(
            "launch_rolls = [[6], [5, 6]]\nhome_lane_cells = [5, 6]\nflight_optional = [true]\novershoot = [\"bounce\"]",
        )
        .unwrap();
        let get = |k: &str| Axis::from_toml(k, &table[k]).unwrap();
        let presets: toml::Table = toml::from_str("base = [\"classic\", \"chinese\"]").unwrap();
        assert_eq!(
            Axis::from_toml("base", &presets["base"]).unwrap(),
            axis("base=classic,chinese")
        );
        assert_eq!(get("launch_rolls"), axis("launch_rolls=[6];[5,6]"));
        assert_eq!(get("home_lane_cells"), axis("home_lane_cells=5,6"));
        assert_eq!(get("flight_optional"), axis("flight_optional=true"));
        assert_eq!(get("overshoot"), axis("overshoot=bounce"));
        assert!(matches!(
            Axis::from_toml("overshoot", &toml::Value::String("bounce".into())),
            Err(VaryError::Syntax(_))
        ));
        assert!(matches!(
            Axis::from_toml("stacking", &toml::Value::Array(vec![])),
            Err(VaryError::Syntax(_))
        ));
    }
}
