//! Rating labels, as gnubg names its players by their error rate: a name for a bot's mean
//! equity loss per decision, in millipoints. The thresholds are this game's own, set from the
//! ladder of bots graded against perfect play on the three solved two-plane variants
//! (results/solve/grades.csv, results/td/grades.csv; docs/ANALYSIS.md says how): each boundary
//! lies between rungs of the ladder, so that the names order the bots as their strength does.

use serde::Serialize;

/// The scale: each name with the largest loss per decision (mp) it covers, best first; a loss
/// above the last bound is [`WORST`].
pub const SCALE: [(&str, f64); 6] = [
    ("supernatural", 1.0),
    ("world class", 2.5),
    ("expert", 5.0),
    ("advanced", 12.0),
    ("intermediate", 22.0),
    ("beginner", 35.0),
];

/// The name of a loss per decision above every bound of [`SCALE`].
pub const WORST: &str = "awful";

/// A bot's rating: the name of its loss per decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// The name on the scale.
    pub label: String,
    /// The names of the interval's ends, where they differ from `label` (the rating is then
    /// not settled by the games graded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub range: Option<(String, String)>,
}

/// The name of a loss of `mp` millipoints per decision.
pub fn label(mp: f64) -> &'static str {
    SCALE
        .iter()
        .find(|(_, bound)| mp <= *bound)
        .map_or(WORST, |(name, _)| name)
}

/// The rating of a loss per decision with its 95% interval.
pub fn rate(value: f64, low: f64, high: f64) -> Rating {
    let (a, b, c) = (label(low), label(value), label(high));
    Rating {
        label: b.to_string(),
        range: (a != b || c != b).then(|| (a.to_string(), c.to_string())),
    }
}

impl Rating {
    /// `expert`, or `expert (world class-advanced)` when the interval spans other names.
    pub fn text(&self) -> String {
        match &self.range {
            None => self.label.clone(),
            Some((a, c)) => format!("{} ({a}-{c})", self.label),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_belong_to_the_better_name() {
        assert_eq!(label(0.0), "supernatural");
        assert_eq!(label(1.0), "supernatural");
        assert_eq!(label(1.0001), "world class");
        assert_eq!(label(35.0), "beginner");
        assert_eq!(label(35.1), WORST);
        assert_eq!(rate(3.0, 2.6, 3.4).text(), "expert");
        assert_eq!(
            rate(2.4, 2.0, 2.8).text(),
            "world class (world class-expert)"
        );
    }
}
