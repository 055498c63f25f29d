//! Rule variants as TOML text: the form of variant files and of `aeroplane rules`. The engine
//! (`aeroplane-core`) knows no TOML; this adds it to [`Rules`].

use aeroplane_core::{Rules, RulesError, RulesSpec};

/// [`Rules`] to and from TOML text.
pub trait RulesToml: Sized {
    /// Parses and validates a TOML variant text (`base = "<preset>"` and the options that
    /// differ; unknown keys refused).
    fn from_toml(text: &str) -> Result<Self, RulesError>;
    /// The variant as TOML text with every option written out.
    fn to_toml(&self) -> String;
}

impl RulesToml for Rules {
    fn from_toml(text: &str) -> Result<Rules, RulesError> {
        let spec: RulesSpec = toml::from_str(text)
            .map_err(|e| RulesError::Parse(aeroplane_core::excerpt::clip_message(e)))?;
        if spec.is_empty() {
            return Err(RulesError::Empty);
        }
        spec.validate()
    }

    fn to_toml(&self) -> String {
        toml::to_string(self).expect("rules serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::{RuleOption, Setting, ThreeSixes};

    #[test]
    fn option_names_are_the_variant_file_keys_in_order() {
        let text = Rules::default()
            .with(Setting::integer(RuleOption::Planes, 2).unwrap())
            .to_toml();
        let keys: Vec<&str> = text
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|kv| kv.0))
            .collect();
        assert_eq!(keys, RuleOption::ALL.map(RuleOption::name));
        // `planes` is written only when it is not the default 4.
        assert!(!Rules::default().to_toml().contains("planes"));
        assert_eq!(Rules::from_toml(&text).unwrap().planes(), 2);
    }

    #[test]
    fn words_are_the_serde_names() {
        for (&v, &w) in ThreeSixes::ALL.iter().zip(ThreeSixes::WORDS) {
            let rules = Rules::default().with(v.into());
            assert!(rules.to_toml().contains(&format!("three_sixes = \"{w}\"")));
        }
    }

    #[test]
    fn every_value_is_checked() {
        assert!(matches!(Rules::from_toml(""), Err(RulesError::Empty)));
        assert!(Rules::from_toml("planes = 0").is_err());
        assert!(Rules::from_toml("planes = 5").is_err());
        assert!(Rules::from_toml("home_lane_cells = 250").is_err());
        assert!(matches!(
            Rules::from_toml("colour = 1"),
            Err(RulesError::Parse(_))
        ));
    }
}
