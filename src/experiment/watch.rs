//! The board viewers of a run's games to watch, written by the job beside its report: the
//! report (`crate::report`) picks the games and links the viewers; the job replays each game
//! ([`ReplayJob`]) and draws it ([`crate::viewer`]).

use std::path::PathBuf;

use super::replay::ReplayJob;
use crate::export::{MANIFEST_FILE, Manifest, OutputDir};
use crate::report::{Pick, ReportError};

/// Writes the report of the job in `dir` as [`crate::report::write`] does, after the viewers
/// of a run's games to watch, which the page links. Returns its path and the folder's
/// problems.
pub fn write_report_page(dir: &OutputDir) -> Result<(PathBuf, Vec<String>), ReportError> {
    if let Some(picks) = crate::report::watch_picks(dir.path())? {
        // What could not be replayed is said on the page (its viewer is missing).
        write_viewers(dir, &picks)?;
    }
    crate::report::write(dir)
}

/// Writes a viewer for each pick into `dir`, replaying the game from the folder's `run.json`.
/// Returns what could not be written and why (a game that replays differently from its
/// The first `columns` fields of a row: a game record's are numbers, without commas.
fn record_part(row: &str, columns: usize) -> &str {
    match row.match_indices(',').nth(columns.saturating_sub(1)) {
        Some((at, _)) => &row[..at],
        None => row,
    }
}

/// `games.csv` row, say, in a folder written by another version).
fn write_viewers(dir: &OutputDir, picks: &[Pick]) -> Result<Vec<String>, ReportError> {
    let manifest_path = dir.file(MANIFEST_FILE);
    let mut notes = Vec::new();
    let spec = match Manifest::load(&manifest_path)
        .and_then(|m| m.spec(&manifest_path.display().to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            notes.push(format!("no game viewers: {e}"));
            return Ok(notes);
        }
    };
    for p in picks {
        let job = ReplayJob {
            spec: spec.clone(),
            game: p.game,
            dice: None,
            with_csv_row: true,
            run_name: "this run".into(),
        };
        match job.play() {
            Ok(report)
                if report
                    .games_csv_row
                    .as_deref()
                    .map(|r| record_part(r, p.row.split(',').count()))
                    == Some(p.row.as_str()) =>
            {
                let page = crate::viewer::page(
                    &report,
                    &format!("{} of this run, game {}", p.label, p.game),
                );
                dir.write(p.file, page.as_bytes())?;
            }
            Ok(_) => notes.push(format!(
                "game {} replays differently from its games.csv row (was the folder written by another version?): no viewer",
                p.game
            )),
            Err(e) => notes.push(format!("game {}: {e}: no viewer", p.game)),
        }
    }
    Ok(notes)
}
