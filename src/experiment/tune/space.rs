//! The parameters a tune moves: `NAME=LO..HI` ranges checked against the bot's kind, and the
//! bots at given points of that space.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::analysis::spsa::{Dimension, check_dimensions};
use crate::bots::registry::{
    BotSpec, EXTERNAL, ParamDef, ParamValue, kind_params, kinds_with_param,
};
use aeroplane_core::excerpt::excerpt;

use super::TuneError;

/// A parameter to tune and its range, as written: `NAME=LO..HI` (e.g. `progress=0.5..3`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamRange {
    /// The parameter.
    pub name: String,
    /// The smallest value tried.
    pub lo: f64,
    /// The largest value tried.
    pub hi: f64,
}

impl fmt::Display for ParamRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}..{}", self.name, self.lo, self.hi)
    }
}

impl FromStr for ParamRange {
    type Err = TuneError;

    /// Parses `NAME=LO..HI`; the numbers must be finite (the order is checked later, with the
    /// bot's kind).
    fn from_str(text: &str) -> Result<ParamRange, TuneError> {
        let syntax = || TuneError::RangeSyntax(excerpt(text));
        let (name, range) = text.split_once('=').ok_or_else(syntax)?;
        let name = name.trim();
        let (lo, hi) = range.split_once("..").ok_or_else(syntax)?;
        if name.is_empty() {
            return Err(syntax());
        }
        let number = |t: &str| -> Result<f64, TuneError> {
            let t = t.trim();
            let x: f64 = t.parse().map_err(|_| TuneError::NotANumber {
                param: excerpt(name),
                text: excerpt(t),
            })?;
            if !x.is_finite() {
                return Err(TuneError::NotFinite {
                    param: excerpt(name),
                    text: excerpt(t),
                });
            }
            Ok(x)
        };
        Ok(ParamRange {
            name: name.to_string(),
            lo: number(lo)?,
            hi: number(hi)?,
        })
    }
}

/// The dimensions of a tune of `bot` over `ranges`, and its starting point (the bot's own
/// values). Every parameter must be a numeric parameter of the bot's kind, each range inside
/// what the kind allows, not empty or inverted, and holding the bot's value.
pub fn dimensions(
    bot: &BotSpec,
    ranges: &[ParamRange],
) -> Result<(Vec<Dimension>, Vec<f64>), TuneError> {
    let defs = tunable_defs(bot)?;
    let mut dims = Vec::with_capacity(ranges.len());
    let mut start = Vec::with_capacity(ranges.len());
    for r in ranges {
        let def = defs.iter().find(|d| d.name == r.name).ok_or_else(|| {
            let name = r.name.as_str();
            TuneError::UnknownParam {
                bot: bot.name.clone(),
                kind: bot.kind.clone(),
                param: excerpt(name),
                known: defs.iter().map(|d| d.name).collect::<Vec<_>>().join(", "),
                elsewhere: kinds_with_param(name)
                    .into_iter()
                    .filter(|k| *k != bot.kind)
                    .collect::<Vec<_>>()
                    .join(", "),
            }
        })?;
        let Some((min, max, integer)) = def.bounds() else {
            return Err(TuneError::WordParam {
                kind: bot.kind.clone(),
                param: r.name.clone(),
                allowed: def.allowed(),
            });
        };
        let dim = Dimension {
            name: r.name.clone(),
            lo: r.lo,
            hi: r.hi,
            integer,
        };
        check_dimensions(std::slice::from_ref(&dim))?;
        if r.lo < min || r.hi > max {
            return Err(TuneError::BeyondKind {
                kind: bot.kind.clone(),
                param: r.name.clone(),
                range: format!("{}..{}", r.lo, r.hi),
                allowed: def.allowed(),
            });
        }
        let value = match bot.params.get(&r.name) {
            Some(ParamValue::Int(i)) => *i as f64,
            Some(ParamValue::Float(x)) => *x,
            _ => unreachable!("a numeric parameter of the kind has a numeric value"),
        };
        dims.push(dim);
        start.push(value);
    }
    check_dimensions(&dims)?;
    for (d, &s) in dims.iter().zip(&start) {
        if s < d.lo || s > d.hi {
            return Err(TuneError::StartOutside {
                bot: bot.name.clone(),
                param: d.name.clone(),
                value: s,
                range: format!("{}..{}", d.lo, d.hi),
            });
        }
    }
    Ok((dims, start))
}

/// The parameters of `bot`'s kind, if the kind can be tuned (it declares a numeric parameter).
fn tunable_defs(bot: &BotSpec) -> Result<&'static [ParamDef], TuneError> {
    if bot.kind == EXTERNAL {
        return Err(TuneError::NotTunable {
            bot: bot.name.clone(),
            why: "a bot program's parameters are not declared to this tool, so they have no ranges to check".into(),
        });
    }
    let defs = kind_params(&bot.kind).unwrap_or(&[]);
    if !defs.iter().any(|d| d.bounds().is_some()) {
        return Err(TuneError::NotTunable {
            bot: bot.name.clone(),
            why: format!("its kind `{}` has no numeric parameters", bot.kind),
        });
    }
    Ok(defs)
}

/// `base` with the dimensions set to `values` (as the kind takes them), named `name`.
pub fn bot_at(
    base: &BotSpec,
    name: &str,
    dims: &[Dimension],
    values: &[f64],
) -> Result<BotSpec, TuneError> {
    let pairs: Vec<(&str, f64)> = dims
        .iter()
        .zip(values)
        .map(|(d, &v)| (d.name.as_str(), v))
        .collect();
    Ok(base.with_numbers(name, &pairs)?)
}

/// A tuned value as written to a profile: integers exact; real numbers rounded to about five
/// significant digits of the range (`decimals` places), so the profile reads well and plays
/// exactly what the confirmation tested.
pub fn rounded(d: &Dimension, x: f64) -> f64 {
    if d.integer {
        return d.clip(x.round());
    }
    let text = format!("{x:.*}", decimals(d));
    d.clip(text.parse().expect("a formatted number parses"))
}

/// Decimal places of a real parameter's tuned value: five significant digits of its range,
/// at least one.
pub fn decimals(d: &Dimension) -> usize {
    let magnitude = d.width().log10().floor() as i64;
    (4 - magnitude).clamp(1, 12) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_lineup;

    fn bot(text: &str) -> BotSpec {
        parse_lineup(text, "bots".as_ref()).unwrap().remove(0)
    }

    fn ranges(texts: &[&str]) -> Vec<ParamRange> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    #[test]
    fn ranges_parse_and_bad_ones_are_named() {
        let r: ParamRange = " progress = 0.5 .. 3".parse().unwrap();
        assert_eq!((r.name.as_str(), r.lo, r.hi), ("progress", 0.5, 3.0));
        let e = |t: &str| t.parse::<ParamRange>().unwrap_err().to_string();
        assert!(e("progress").contains("NAME=LO..HI"), "{}", e("progress"));
        assert!(e("progress=1-3").contains("NAME=LO..HI"));
        assert!(e("=1..3").contains("NAME=LO..HI"));
        assert!(e("progress=a..3").contains("`a` is not a number"));
        assert!(e("progress=nan..3").contains("not a finite number"));
        assert!(e("progress=0..inf").contains("`inf`"));
    }

    #[test]
    fn dimensions_come_from_the_kind_and_the_start_from_the_bot() {
        let b = bot("expectimax:depth=1:exposure=1.5");
        let (dims, start) =
            dimensions(&b, &ranges(&["exposure=0..3", "depth=1..3", "mover=0..1"])).unwrap();
        assert_eq!(start, [1.5, 1.0, 0.5]);
        assert!(!dims[0].integer && dims[1].integer);
    }

    #[test]
    fn bad_parameters_are_named_with_what_is_allowed() {
        let b = bot("expectimax:depth=1");
        let e = |t: &[&str]| dimensions(&b, &ranges(t)).unwrap_err().to_string();
        let unknown = e(&["progres=0..2"]);
        assert!(
            unknown.contains("has no parameter `progres`")
                && unknown.contains("did you mean `progress`"),
            "{unknown}"
        );
        let other = e(&["iterations=10..100"]);
        assert!(other.contains("a parameter of mcts"), "{other}");
        assert!(e(&["mover=0..2"]).contains("a number from 0 to 1"));
        assert!(e(&["progress=2..1"]).contains("inverted"));
        assert!(e(&["progress=1..1"]).contains("empty"));
        assert!(e(&["depth=1.5..3"]).contains("integer ends"));
        assert!(e(&["progress=2..3"]).contains("the bot's progress is 1"));
        assert!(e(&["progress=0..3", "progress=0..2"]).contains("given twice"));
        let mcts = bot("mcts");
        let word = dimensions(&mcts, &ranges(&["policy=0..1"]))
            .unwrap_err()
            .to_string();
        assert!(word.contains("takes words"), "{word}");
        let greedy = dimensions(&bot("greedy"), &ranges(&["x=0..1"]))
            .unwrap_err()
            .to_string();
        assert!(greedy.contains("no numeric parameters"), "{greedy}");
    }

    #[test]
    fn tuned_values_are_rounded_to_the_range() {
        let d = Dimension {
            name: "x".into(),
            lo: 0.5,
            hi: 3.0,
            integer: false,
        };
        assert_eq!(decimals(&d), 4);
        assert_eq!(rounded(&d, 1.234_567), 1.2346);
        let wide = Dimension {
            lo: 0.0,
            hi: 1000.0,
            ..d.clone()
        };
        assert_eq!(rounded(&wide, 123.456), 123.5);
        let int = Dimension {
            integer: true,
            lo: 1.0,
            hi: 6.0,
            ..d
        };
        assert_eq!(rounded(&int, 2.5), 3.0);
    }
}
