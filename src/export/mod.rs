//! Rendering a job's typed results: CSV tables through one [`Table`] type, the streaming
//! `games.csv`, the versioned `run.json` manifest, the text reports, and the output directory
//! that holds them ([`OutputDir`]: locked, never mixed with an earlier run, files renamed into
//! place only when complete).
//!
//! Every CSV header is a constant here and part of the project's stable interface.

mod checkpoint;
mod forfeits;
mod games;
mod kept_games;
mod log_file;
mod luck;
mod manifest;
mod out_dir;
mod reproduce;
mod table;
mod tables;
mod text;

pub use crate::files::write_whole;
pub use checkpoint::{
    CHECKPOINT_FILE, CHECKPOINT_FORMAT, Checkpoint, CheckpointError, Scan, Stored, fnv1a,
    fnv1a_from,
};
pub use forfeits::{
    FORFEITS_COLUMN, FORFEITS_HEADER, ForfeitCount, forfeits_table, summary_with_forfeits,
};
pub use games::{
    FORFEIT_COLUMNS, GAMES_HEADER, GamesCsv, NAME_COLUMNS, RowsAt, RowsReader, write_game_row,
    write_game_row_with_names,
};
pub use kept_games::{
    KEPT_GAMES_FILE, kept_lost_note, kept_replayed_for_luck_note, kept_unusable_note,
    kept_used_note, read_kept_games, read_kept_lines, write_kept_games, write_kept_lines,
};
pub use log_file::LogFile;
pub use luck::{luck_cells, luck_table};
pub use manifest::{
    ConfirmSection, DEFAULT_BOOTSTRAP, DEFAULT_SORT, JobStatus, LeagueSection, MANIFEST_FILE,
    MANIFEST_FORMAT, Manifest, ManifestBot, ManifestError, MergeSection, ShardSection, SprtSection,
    SweepSection, TuneParamSection, TuneSection,
};
pub use out_dir::{
    LOCK_FILE, OWN_FILES, OutDirError, OutputDir, PARTIAL_PREFIX, VIEWER_FILES, is_log_name,
};
pub use reproduce::{RULES_FILE, Reproduction, quote};
pub use table::{Cell, NoSuchColumn, SortKey, Table};
pub use tables::{
    BOT_WIN_COLUMNS, EVENTS_HEADER, LENGTH_STATS_HEADER, LENGTHS_HEADER, MATCH_HEADER,
    SEATS_HEADER, SUMMARY_HEADER, columns, run_tables, seat_test_kind,
};
pub use text::{MAX_COLUMN_WIDTH, format_p, p_equals, shown_decimals, write_report};

use std::path::Path;

/// Why a file of a results folder could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("cannot {action} {file}")]
pub struct ExportError {
    /// What was being done: `read`, `write`, `create`, `remove`, `rename`, `lock`, ...
    pub action: &'static str,
    /// The path.
    pub file: String,
    /// The cause.
    #[source]
    pub source: std::io::Error,
}

impl ExportError {
    /// Wraps an IO error writing `file`.
    pub fn new(file: &Path, source: std::io::Error) -> Self {
        ExportError::doing("write", file, source)
    }

    /// Wraps an IO error reading `file`.
    pub fn read(file: &Path, source: std::io::Error) -> Self {
        ExportError::doing("read", file, source)
    }

    /// Wraps an IO error of `action` on `file`.
    pub fn doing(action: &'static str, file: &Path, source: std::io::Error) -> Self {
        ExportError {
            action,
            file: aeroplane_core::excerpt::path(file),
            source,
        }
    }

    /// Whether the cause is a full disk (or quota).
    pub fn is_disk_full(&self) -> bool {
        matches!(
            self.source.raw_os_error(),
            Some(libc::ENOSPC) | Some(libc::EDQUOT)
        )
    }
}

/// Why the job in a folder cannot be gone on with (a solve, grade or train to resume).
#[derive(Debug, thiserror::Error)]
#[error("cannot resume {dir}: {why}")]
pub struct CannotResume {
    /// The folder.
    pub dir: String,
    /// Why not.
    pub why: String,
}

impl CannotResume {
    /// Reads the JSON record `name` (`solve.json`, `train.json`) of the job in `dir`; `what`
    /// says what it should be in the message (`a solve record`).
    pub fn read_record<T: serde::de::DeserializeOwned>(
        dir: &Path,
        name: &str,
        what: &str,
    ) -> Result<T, CannotResume> {
        let file = dir.join(name);
        let bad = |why: String| CannotResume {
            dir: dir.display().to_string(),
            why,
        };
        let text = crate::files::read_text(&file)
            .map_err(|e| bad(format!("cannot read {}: {e}", file.display())))?;
        serde_json::from_str(&text).map_err(|e| {
            bad(format!(
                "{} is not {what}: {}",
                file.display(),
                aeroplane_core::excerpt::clip_message(e)
            ))
        })
    }
}
