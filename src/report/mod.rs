//! `report.html`: one self-contained page of charts and tables for a job's output folder.
//!
//! A report is made from the files a job wrote, never from the job itself, so it also works on
//! merged shard outputs and on folders written by older versions: the CSV tables (stable
//! headers) carry the figures, `run.json` says what was run and how to reproduce it, and
//! `summary.json` adds what no CSV holds (an SPRT's LLR path). What a folder lacks is said on
//! the page rather than guessed.
//!
//! The page is XHTML (it parses as XML) with inline CSS and inline SVG drawn by `plotters`: no
//! network, no script. Colours are the Okabe-Ito palette and a one-hue ramp, and every series
//! also differs by marker or dash, so charts survive grayscale printing and colour blindness.
//!
//! | job | file | charts |
//! |-----|------|--------|
//! | run | `report/run.rs` | bot win rates, seat win rates against 1/n, game lengths, events |
//! | run --sprt | `report/sprt.rs` | the run's charts and the LLR path against the bounds |
//! | sweep | `report/sweep.rs` | seat advantage and mean length per value of each option |
//! | league | `report/league.rs` | ratings, head-to-head heat map |
//! | grade | `report/grade.rs` | loss per decision per bot, error against search depth or iterations, worst blunders |
//! | tune | `report/tune.rs` | each parameter over the iterations, the match results, the confirming SPRT |

pub(crate) mod chart;
mod check;
mod grade;
pub(crate) mod html;
mod league;
mod load;
mod run;
mod sprt;
mod sweep;
mod tune;
mod views;
mod watch;

use std::path::{Path, PathBuf};

use crate::export::{ExportError, OutputDir};

pub use load::Kind;
pub(crate) use watch::Pick;
pub use watch::VIEWER_FILES;

/// The report's file name in an output folder.
pub const REPORT_FILE: &str = "report.html";

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The folder does not hold what a report needs.
    #[error("{dir}: {message}")]
    Folder {
        /// The folder.
        dir: String,
        /// What is wrong.
        message: String,
    },
    /// A file cannot be read.
    #[error("cannot read {file}")]
    Read {
        /// The file.
        file: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file is not what its name says.
    #[error("{file}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A chart could not be drawn.
    #[error("drawing a chart: {0}")]
    Chart(String),
    /// The report cannot be written.
    #[error(transparent)]
    Export(#[from] ExportError),
}

/// A rendered report: the page, and what is wrong with the folder's files (also listed at the
/// top of the page).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The XHTML page.
    pub page: String,
    /// Each problem found (a damaged table, files that disagree), in words.
    pub problems: Vec<String>,
}

/// The report of the job whose files are in `dir`. A damaged folder still gets a page that
/// says what is wrong; only a folder that holds no job's files is an error.
pub fn render(dir: &Path) -> Result<Rendered, ReportError> {
    let folder = load::Folder::open(dir)?;
    let page = match folder.kind()? {
        Kind::Run => run::render(&folder),
        Kind::Sprt => sprt::render(&folder),
        Kind::Sweep => sweep::render(&folder),
        Kind::League => league::render(&folder),
        Kind::Grade => grade::render(&folder),
        Kind::Tune => tune::render(&folder),
    }?;
    Ok(Rendered {
        page: visible_controls(page),
        problems: folder.problems(),
    })
}

/// The page with every control character a file could carry into it (an escape sequence in a
/// path, a name or a title) shown as its escape (`\u{1b}`): XML forbids them, and a browser
/// would refuse the page. Line breaks and tabs stay.
fn visible_controls(page: String) -> String {
    let control = |c: char| c.is_control() && !matches!(c, '\n' | '\t' | '\r');
    if !page.chars().any(control) {
        return page;
    }
    let mut out = String::with_capacity(page.len() + 16);
    for c in page.chars() {
        if control(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The games to watch of the run in `dir` (none for another job, or a run without
/// `games.csv`): the viewers its page links, which the job writes
/// (`crate::experiment::write_report_page`).
pub(crate) fn watch_picks(dir: &Path) -> Result<Option<Vec<Pick>>, ReportError> {
    let folder = load::Folder::open(dir)?;
    if folder.kind()? != Kind::Run {
        return Ok(None);
    }
    watch::pick(dir, run::seed(&folder))
}

/// Renders the report of the job in `dir` and writes it there as [`REPORT_FILE`] (under a
/// temporary name, then renamed into place), linking the viewers of a run's games to watch
/// that are there. Returns its path and the folder's problems.
pub fn write(dir: &OutputDir) -> Result<(PathBuf, Vec<String>), ReportError> {
    let r = render(dir.path())?;
    dir.write(REPORT_FILE, r.page.as_bytes())?;
    Ok((dir.file(REPORT_FILE), r.problems))
}
