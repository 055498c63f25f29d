//! Writing a run's results: CSV tables behind one small trait, the streaming `games.csv`, the
//! `run.json` manifest, and the text report.
//!
//! Every CSV header is a constant here and part of the project's stable interface.

mod forfeits;
mod games;
mod manifest;
mod tables;
mod text;

pub use forfeits::{SUMMARY_FORFEITS_HEADER, SummaryWithForfeitsCsv};
pub use games::{GAMES_HEADER, GamesCsv, write_game_row};
pub use manifest::{MANIFEST_FILE, Manifest, ManifestBot, ManifestError};
pub use tables::{EventsCsv, LengthStatsCsv, LengthsCsv, SeatsCsv, SummaryCsv, TABLES};
pub use text::write_report;

use std::path::Path;

use crate::stats::{Summary, Tally};

/// What the end-of-run tables are made from.
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    /// The integer tallies.
    pub tally: &'a Tally,
    /// The figures derived from them.
    pub summary: &'a Summary,
}

/// A table written at the end of a run.
pub trait Table: Sync {
    /// File name in the output directory.
    fn file_name(&self) -> &'static str;
    /// The header row (stable).
    fn header(&self) -> &'static [&'static str];
    /// The data rows, each as long as the header.
    fn rows(&self, report: &Report<'_>) -> Vec<Vec<String>>;
}

/// Why output could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {file}: {source}")]
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

/// Writes one table as CSV into `dir`.
pub fn write_table(dir: &Path, table: &dyn Table, report: &Report<'_>) -> Result<(), ExportError> {
    let path = dir.join(table.file_name());
    let err = |e: csv::Error| ExportError::new(&path, e.into());
    let mut w = csv::Writer::from_path(&path).map_err(err)?;
    w.write_record(table.header()).map_err(err)?;
    for row in table.rows(report) {
        debug_assert_eq!(row.len(), table.header().len());
        w.write_record(&row).map_err(err)?;
    }
    w.flush().map_err(|e| ExportError::new(&path, e))
}

/// A float for CSV: fixed six decimals, empty when undefined.
pub(crate) fn fixed(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.6}"),
        _ => String::new(),
    }
}
