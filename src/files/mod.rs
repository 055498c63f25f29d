//! The ground floor for files, below every other module of the harness: how an input is read
//! within bounds ([`read_text`], [`open_input`], [`not_a_file`]), how an output file is opened
//! without following a link or blocking on a fifo (`no_follow`), every file-system step of
//! an output folder, counted for the crash-point tests (`fsops`), and the rules' TOML form
//! ([`RulesToml`]: variant files, and the rules recorded in a net file), which the engine
//! does not know. It uses nothing of the harness, so bots, nets, value tables and logs read
//! and write their files through it as the output folder does.

pub(crate) mod fsops;
pub(crate) mod no_follow;
mod read;
mod rules_toml;

pub use fsops::write_whole;
pub use read::{MAX_TEXT_BYTES, human_bytes, not_a_file, open_input, read_text, read_text_limited};
pub use rules_toml::RulesToml;
