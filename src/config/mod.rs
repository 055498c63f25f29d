//! Loading from disk: rule-variant files, bot profiles, run and sweep configs.
//!
//! The engine and the bot registry only parse text and validate it; this module finds and
//! reads the files, and its errors keep the operating system's error as their `source`.

pub mod dice_file;
pub mod profiles;
pub mod read;
pub mod rules_file;
pub mod rules_toml;
pub mod run_file;
pub mod sweep_file;

pub use dice_file::read_dice;
pub use profiles::{
    ProfileError, known_names, load_profile, parse_bot, parse_lineup, shadowing_note,
};
pub use read::{MAX_TEXT_BYTES, not_a_file, open_input, read_text, read_text_limited};
pub use rules_file::{RulesFileError, load_rules, read_rules_file};
pub use rules_toml::RulesToml;
pub use run_file::{ConfigError, Lineup, RunConfigFile};
pub use sweep_file::{SweepConfigError, SweepConfigFile};

/// An error with its causes, joined as the command line prints them.
#[cfg(test)]
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(&format!(": {c}"));
        cause = c.source();
    }
    s
}
