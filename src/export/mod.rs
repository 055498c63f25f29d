//! Rendering a job's typed results: CSV tables through one [`Table`] type, the streaming
//! `games.csv`, the versioned `run.json` manifest, the text reports, and the output directory
//! that holds them ([`OutputDir`]: locked, never mixed with an earlier run, files renamed into
//! place only when complete).
//!
//! Every CSV header is a constant here and part of the project's stable interface.

mod checkpoint;
mod forfeits;
mod games;
mod manifest;
pub(crate) mod no_follow;
mod out_dir;
mod reproduce;
mod table;
mod tables;
mod text;

pub use checkpoint::{CHECKPOINT_FILE, Checkpoint, CheckpointError, Loaded, fnv1a};
pub use forfeits::{FORFEITS_COLUMN, summary_with_forfeits};
pub use games::{GAMES_HEADER, GamesCsv, write_game_row};
pub use manifest::{
    JobStatus, LeagueSection, MANIFEST_FILE, MANIFEST_FORMAT, Manifest, ManifestBot, ManifestError,
    ShardSection, SprtSection, SweepSection,
};
pub use out_dir::{LOCK_FILE, OWN_FILES, OutDirError, OutputDir};
pub use reproduce::{RULES_FILE, Reproduction, quote};
pub use table::{Cell, NoSuchColumn, SortKey, Table};
pub use tables::{
    EVENTS_HEADER, LENGTH_STATS_HEADER, LENGTHS_HEADER, MATCH_HEADER, SEATS_HEADER, SUMMARY_HEADER,
    run_tables, seat_test_kind,
};
pub use text::{MAX_COLUMN_WIDTH, format_p, p_equals, write_report};

use std::path::Path;

/// Why output could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {file}")]
pub struct ExportError {
    /// The path.
    pub file: String,
    /// The cause.
    #[source]
    pub source: std::io::Error,
}

impl ExportError {
    /// Wraps an IO error with the path it concerns.
    pub fn new(file: &Path, source: std::io::Error) -> Self {
        ExportError {
            file: file.display().to_string(),
            source,
        }
    }
}
