//! Games to watch: for a run that kept its games (`games.csv`), the report links board viewers
//! of a few of them: the longest, the shortest, the one with the most captures and one drawn
//! at random (seeded by the run's seed, so the same folder always shows the same game). The
//! viewers are written beside `report.html` by the job (`crate::experiment::write_report_page`:
//! each game replayed from the run's `run.json` and checked against its `games.csv` row); the
//! report picks the same games and links the viewers it finds. `games.csv` is read as a
//! stream, never whole.

use std::path::Path;

use rand_pcg::Pcg32;

use super::ReportError;
use super::html::Page;

/// A game picked from `games.csv`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pick {
    /// The viewer's file name.
    pub file: &'static str,
    /// Why it was picked.
    pub label: &'static str,
    /// The game index.
    pub game: u64,
    /// Its `games.csv` row's game record: the columns through `unfinished`.
    pub row: String,
    /// Turns.
    pub turns: u64,
    /// Captures.
    pub captures: u64,
}

pub use crate::export::VIEWER_FILES;

/// Picks the games to watch from the folder's `games.csv`; `None` when it has none.
pub(crate) fn pick(dir: &Path, seed: u64) -> Result<Option<Vec<Pick>>, ReportError> {
    let path = dir.join("games.csv");
    if !path.is_file() {
        return Ok(None);
    }
    let file = path.display().to_string();
    let parse = |e: csv::Error| ReportError::Parse {
        file: file.clone(),
        message: aeroplane_core::excerpt::clip_message(e),
    };
    let mut r = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(&path)
        .map_err(parse)?;
    let header: Vec<String> = r
        .headers()
        .map_err(parse)?
        .iter()
        .map(String::from)
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name);
    let (Some(game), Some(turns), Some(captures)) = (col("game"), col("turns"), col("captures"))
    else {
        return Ok(None);
    };
    let record_columns = crate::export::GAMES_HEADER.split(',').count();
    // (key, game, row): the longest and most captures keep the first maximum, the shortest
    // the first minimum; the random game is a reservoir sample of one.
    let mut best: [Option<(u64, u64, String)>; 4] = Default::default();
    let mut rng = Pcg32::new(aeroplane_core::splitmix64(seed ^ 0x0057_4154_4348), 0x0da3);
    let mut seen = 0u64;
    for rec in r.records() {
        let rec = rec.map_err(parse)?;
        let num = |i: usize| rec.get(i).and_then(|v| v.trim().parse::<u64>().ok());
        let (Some(g), Some(t), Some(c)) = (num(game), num(turns), num(captures)) else {
            continue;
        };
        // The game record's columns (through `unfinished`), as replay writes them: not the
        // bots' names after them (nor a recovering run's forfeit columns).
        let row = || {
            rec.iter()
                .take(record_columns)
                .collect::<Vec<_>>()
                .join(",")
        };
        seen += 1;
        if best[0].as_ref().is_none_or(|b| t > b.0) {
            best[0] = Some((t, g, row()));
        }
        if best[1].as_ref().is_none_or(|b| t < b.0) {
            best[1] = Some((t, g, row()));
        }
        if best[2].as_ref().is_none_or(|b| c > b.0) {
            best[2] = Some((c, g, row()));
        }
        if aeroplane_core::below(&mut rng, seen.min(u64::from(u32::MAX)) as u32) == 0 {
            best[3] = Some((t, g, row()));
        }
    }
    const LABELS: [&str; 4] = [
        "the longest game",
        "the shortest game",
        "the game with the most captures",
        "a game drawn at random",
    ];
    let mut picks = Vec::new();
    for (k, b) in best.into_iter().enumerate() {
        let Some((_, g, row)) = b else { continue };
        let cells: Vec<&str> = row.split(',').collect();
        let at = |i: usize| cells.get(i).and_then(|v| v.parse().ok()).unwrap_or(0);
        picks.push(Pick {
            file: VIEWER_FILES[k],
            label: LABELS[k],
            game: g,
            turns: at(turns),
            captures: at(captures),
            row,
        });
    }
    Ok((!picks.is_empty()).then_some(picks))
}

/// The page's section: a link to each viewer in the folder.
pub(crate) fn section(page: &mut Page, dir: &Path, seed: u64) -> Result<(), ReportError> {
    let Some(picks) = pick(dir, seed)? else {
        return Ok(());
    };
    page.h2("watch", "Games to watch");
    let (here, missing): (Vec<&Pick>, Vec<&Pick>) =
        picks.iter().partition(|p| dir.join(p.file).is_file());
    if !here.is_empty() {
        page.p("Board viewers, pages beside this one that step through a game move by move:");
        let links: Vec<(String, String)> = here
            .iter()
            .map(|p| {
                (
                    p.file.to_string(),
                    format!(
                        "{}: game {}, {} turns, {} captures",
                        p.label, p.game, p.turns, p.captures
                    ),
                )
            })
            .collect();
        page.links(&links);
    }
    for p in missing {
        page.note(&format!(
            "No viewer of {} (game {}): it could not be replayed from run.json with this version.",
            p.label, p.game
        ));
    }
    Ok(())
}
