//! Loading from disk: rule-variant files, bot profiles, run and sweep configs.
//!
//! The engine and the bot registry only parse text and validate it; this module finds and
//! reads the files, and its errors keep the operating system's error as their `source`.

pub mod dice_file;
pub mod profiles;
pub mod rules_file;
pub mod run_file;
pub mod sweep_file;

pub use dice_file::read_dice;
pub use profiles::{
    ProfileError, known_names, load_profile, parse_bot, parse_lineup, shadowing_note,
};
pub use rules_file::{RulesFileError, load_rules, read_rules_file};
pub use run_file::{ConfigError, Lineup, RunConfigFile};
pub use sweep_file::{SweepConfigError, SweepConfigFile};
