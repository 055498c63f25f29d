//! Reading an output folder: its CSV tables by column name, `run.json` (loosely as JSON, and as
//! the typed manifest), `summary.json` (typed views of what a page needs, parsed as a stream)
//! and `sprt.json`.
//!
//! A folder may be damaged: a table emptied, garbled, cut short, holding impossible values, or
//! far larger than any job writes. Nothing here fails the report for that: each problem is
//! recorded ([`Folder::problem`]) and said at the top of the page, and the table (or the bad
//! cells) is left out. Every read is bounded: a table is refused past its size limit and read
//! up to the most rows its job can write; `lengths.csv`, the one table that grows with the run,
//! is streamed ([`Folder::each_row`]).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::Value;

use super::ReportError;
use super::views::SummaryFile;
use crate::export::Manifest;
use crate::stats::PValue;

/// What kind of job wrote a folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `aeroplane run`.
    Run,
    /// `aeroplane run --sprt`.
    Sprt,
    /// `aeroplane sweep`.
    Sweep,
    /// `aeroplane league`.
    League,
    /// `aeroplane grade`.
    Grade,
    /// `aeroplane tune`.
    Tune,
}

/// The most bytes and rows the report reads of a table.
#[derive(Clone, Copy, Debug)]
struct Limits {
    bytes: u64,
    rows: usize,
}

/// What a job can write of each table: beyond these it is not the job's table.
fn limits(name: &str) -> Limits {
    const MIB: u64 = 1 << 20;
    match name {
        // 10,000 variants; 256 bots, 65,280 ordered pairs; effects of every option value.
        "sweep.csv" => Limits {
            bytes: 64 * MIB,
            rows: crate::analysis::vary::MAX_VARIANTS,
        },
        "pairs.csv" | "pairs_luck.csv" => Limits {
            bytes: 64 * MIB,
            rows: 256 * 255,
        },
        // A run's: one row per lineup entry; a league's, one per bot; a sweep's, one per
        // variant and lineup entry.
        "luck.csv" => Limits {
            bytes: 64 * MIB,
            rows: crate::analysis::vary::MAX_VARIANTS * 4,
        },
        "effects.csv" => Limits {
            bytes: 64 * MIB,
            rows: 300_000,
        },
        "league.csv" => Limits {
            bytes: 16 * MIB,
            rows: 256,
        },
        // Streamed: one row per distinct length.
        "lengths.csv" => Limits {
            bytes: 1 << 30,
            rows: usize::MAX,
        },
        // A tune's: one row per iteration.
        "history.csv" => Limits {
            bytes: 1 << 30,
            rows: crate::analysis::spsa::MAX_ITERATIONS as usize,
        },
        "events.csv" => Limits {
            bytes: MIB,
            rows: 64,
        },
        // A grade's: one row per graded bot, and up to `--blunders` rows per graded bot; the
        // job bounds neither count, so only the size bounds them.
        "grade.csv" | "blunders.csv" => Limits {
            bytes: 64 * MIB,
            rows: usize::MAX,
        },
        _ => Limits {
            bytes: 16 * MIB,
            rows: 4,
        },
    }
}

/// The largest `summary.json` a report reads (a 256-bot league writes about 15 MB).
const MAX_SUMMARY_BYTES: u64 = 64 << 20;

/// A CSV table read by column name (each row one `StringRecord`: its fields in one string).
#[derive(Debug)]
pub(crate) struct Csv {
    header: Vec<String>,
    rows: Vec<csv::StringRecord>,
}

/// One row of a table.
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    header: &'a [String],
    record: &'a csv::StringRecord,
    /// 1-based row number (the header is row 0).
    pub line: usize,
}

impl Csv {
    /// The rows in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows.iter().enumerate().map(|(i, record)| Row {
            header: &self.header,
            record,
            line: i + 1,
        })
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table has a column.
    pub fn has(&self, column: &str) -> bool {
        self.header.iter().any(|h| h == column)
    }

    /// The column names.
    pub fn header(&self) -> &[String] {
        &self.header
    }
}

impl<'a> Row<'a> {
    /// A cell's text as written ("" when the column or the value is absent).
    pub fn text(&self, column: &str) -> &'a str {
        self.header
            .iter()
            .position(|h| h == column)
            .and_then(|i| self.record.get(i))
            .map_or("", str::trim)
    }

    /// A cell as a finite number, if it holds one.
    pub fn num(&self, column: &str) -> Option<f64> {
        self.text(column)
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
    }

    /// A cell as a number that may be infinite (`inf`, `-inf`: an Elo of a score of 0 or 1).
    pub fn num_or_inf(&self, column: &str) -> Option<f64> {
        self.text(column).parse().ok().filter(|x: &f64| !x.is_nan())
    }

    /// A cell as a p-value, if it holds one (also below the smallest `f64`: `3.2e-412`).
    pub fn p(&self, column: &str) -> Option<PValue> {
        PValue::parse(self.text(column))
    }

    /// A cell as a count, if it holds one.
    pub fn int(&self, column: &str) -> Option<u64> {
        self.text(column).parse().ok()
    }
}

/// A job's output folder, with what is wrong with it.
pub(crate) struct Folder {
    /// The folder.
    pub path: PathBuf,
    /// `run.json`, if present and JSON.
    pub manifest: Option<Value>,
    /// `run.json` as the typed manifest, if it is one.
    pub typed: Option<Manifest>,
    /// `summary.json`'s views, if present and readable.
    pub summary: Option<SummaryFile>,
    /// `sprt.json`, if present and JSON.
    pub sprt: Option<Value>,
    /// `grade.json`, if present and JSON.
    pub grade: Option<Value>,
    problems: RefCell<Vec<String>>,
    tables: RefCell<BTreeMap<String, Option<Rc<Csv>>>>,
}

impl Folder {
    /// Opens a folder and reads its JSON files (their problems are recorded, not returned).
    pub fn open(path: &Path) -> Result<Folder, ReportError> {
        if !path.is_dir() {
            return Err(ReportError::Folder {
                dir: path.display().to_string(),
                message: "not a folder: give the output folder of a run, sweep or league".into(),
            });
        }
        // A fifo or a device by a name the tool writes would hang a read or never end: the
        // folder is refused at once, as resume and merge refuse it.
        for name in crate::export::OWN_FILES {
            if let Some(what) = crate::files::not_a_file(&path.join(name)) {
                return Err(ReportError::Folder {
                    dir: aeroplane_core::excerpt::path(path),
                    message: format!(
                        "{name} is {what}, not a file: a folder a job wrote holds only regular \
                         files by that name"
                    ),
                });
            }
        }
        let mut f = Folder {
            path: path.to_path_buf(),
            manifest: None,
            typed: None,
            summary: None,
            sprt: None,
            grade: None,
            problems: RefCell::new(Vec::new()),
            tables: RefCell::new(BTreeMap::new()),
        };
        f.manifest = f.small_json("run.json");
        if let Some(m) = &f.manifest {
            match serde_json::from_value::<Manifest>(m.clone()) {
                Ok(typed) => match typed.check("run.json") {
                    Ok(()) => f.typed = Some(typed),
                    Err(e) => f.problem(format!("{}", e)),
                },
                // An older format reads loosely; say why the typed form is missing.
                Err(e) => f.problem(format!(
                    "run.json is not a manifest this version reads ({}): the command that made \
                     the folder cannot be rebuilt from it",
                    aeroplane_core::excerpt::clip_message(e)
                )),
            }
        }
        f.summary = f.read_summary();
        f.sprt = f.small_json("sprt.json");
        f.grade = f.small_json("grade.json");
        Ok(f)
    }

    /// Records something wrong with the folder (said at the top of the page).
    pub fn problem(&self, text: impl Into<String>) {
        let text = text.into();
        let mut p = self.problems.borrow_mut();
        if !p.contains(&text) {
            p.push(text);
        }
    }

    /// Everything recorded so far.
    pub fn problems(&self) -> Vec<String> {
        self.problems.borrow().clone()
    }

    fn small_json(&self, name: &str) -> Option<Value> {
        let path = self.path.join(name);
        if !path.exists() {
            return None;
        }
        let text = match crate::files::read_text(&path) {
            Ok(t) => t,
            Err(e) => {
                self.problem(format!("{name} cannot be read: {e}"));
                return None;
            }
        };
        match serde_json::from_str(&text) {
            Ok(v) => Some(v),
            Err(e) => {
                self.problem(format!(
                    "{name} is not JSON ({}): it is left out",
                    aeroplane_core::excerpt::clip_message(e)
                ));
                None
            }
        }
    }

    fn read_summary(&self) -> Option<SummaryFile> {
        let path = self.path.join("summary.json");
        if !path.exists() {
            return None;
        }
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if len > MAX_SUMMARY_BYTES {
            self.problem(format!(
                "summary.json is {}, larger than any job writes ({} at most): it is left out",
                crate::files::human_bytes(len),
                crate::files::human_bytes(MAX_SUMMARY_BYTES)
            ));
            return None;
        }
        let file = match std::fs::File::open(&path) {
            Ok(f) => f,
            Err(e) => {
                self.problem(format!("summary.json cannot be read: {e}"));
                return None;
            }
        };
        let reader = std::io::BufReader::new(file.take(MAX_SUMMARY_BYTES + 1));
        match serde_json::from_reader::<_, SummaryFile>(reader) {
            Ok(s) => Some(s),
            Err(e) => {
                self.problem(format!(
                    "summary.json is not what a job writes ({}): it is left out",
                    aeroplane_core::excerpt::clip_message(e)
                ));
                None
            }
        }
    }

    /// Whether the folder holds a file (as `PARTIAL-<name>` in a partial merge's folder).
    pub fn has(&self, name: &str) -> bool {
        self.file(name).is_some()
    }

    /// Where a table is: `<name>`, or `PARTIAL-<name>` in a partial merge's folder.
    fn file(&self, name: &str) -> Option<PathBuf> {
        [
            name.to_string(),
            format!("{}{name}", crate::export::PARTIAL_PREFIX),
        ]
        .into_iter()
        .map(|n| self.path.join(n))
        .find(|p| p.is_file())
    }

    /// A table, if the folder holds a readable one (problems are recorded).
    pub fn csv(&self, name: &str) -> Option<Rc<Csv>> {
        if let Some(t) = self.tables.borrow().get(name) {
            return t.clone();
        }
        let t = self.read_table(name).map(Rc::new);
        self.tables.borrow_mut().insert(name.to_string(), t.clone());
        t
    }

    /// A table the page cannot do without: its absence is recorded as a problem.
    pub fn need(&self, name: &str, what: &str) -> Option<Rc<Csv>> {
        if !self.has(name) {
            self.problem(format!(
                "{name} is missing: the {what} report is drawn from it"
            ));
        }
        self.csv(name)
    }

    fn open_table(&self, name: &str) -> Option<csv::Reader<std::fs::File>> {
        // Never a fifo or a device: `open` refused those.
        let path = self.file(name)?;
        let limit = limits(name).bytes;
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if len == 0 {
            self.problem(format!("{name} is empty (0 bytes): it is left out"));
            return None;
        }
        if len > limit {
            self.problem(format!(
                "{name} is {}, larger than any job writes ({} at most): it is left out",
                crate::files::human_bytes(len),
                crate::files::human_bytes(limit)
            ));
            return None;
        }
        match std::fs::File::open(&path) {
            Ok(file) => Some(csv::ReaderBuilder::new().flexible(true).from_reader(file)),
            Err(e) => {
                self.problem(format!("{name} cannot be read: {e}"));
                None
            }
        }
    }

    fn header(&self, name: &str, r: &mut csv::Reader<std::fs::File>) -> Option<Vec<String>> {
        match r.headers() {
            Ok(h) => Some(h.iter().map(|s| s.trim().to_string()).collect()),
            Err(e) => {
                self.problem(format!(
                    "{name} is not a CSV table ({}): it is left out",
                    aeroplane_core::excerpt::clip_message(e)
                ));
                None
            }
        }
    }

    fn read_table(&self, name: &str) -> Option<Csv> {
        let mut r = self.open_table(name)?;
        let header = self.header(name, &mut r)?;
        let max = limits(name).rows;
        let mut rows = Vec::new();
        let mut short = 0;
        let mut record = csv::StringRecord::new();
        loop {
            match r.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {
                    if rows.len() == max {
                        self.problem(format!(
                            "{name} holds more than the {max} rows its job can write: the rows \
                             after row {max} are left out"
                        ));
                        break;
                    }
                    if record.len() != header.len() {
                        short += 1;
                    }
                    rows.push(record.clone());
                }
                Err(e) => {
                    self.problem(format!(
                        "{name} is damaged after row {} ({}): the rest is left out",
                        rows.len(),
                        aeroplane_core::excerpt::clip_message(e)
                    ));
                    break;
                }
            }
        }
        if short > 0 {
            self.problem(format!(
                "{name}: {short} row(s) do not have the header's {} fields (cut short?)",
                header.len()
            ));
        }
        if rows.is_empty() {
            self.problem(format!("{name} has a header but no rows"));
        }
        Some(Csv { header, rows })
    }

    /// Streams a table row by row (for `lengths.csv`, which grows with the run); the header is
    /// returned, `None` when the table is absent or unreadable.
    pub fn each_row(&self, name: &str, mut f: impl FnMut(Row<'_>)) -> Option<Vec<String>> {
        let mut r = self.open_table(name)?;
        let header = self.header(name, &mut r)?;
        let mut record = csv::StringRecord::new();
        let mut line = 0;
        loop {
            match r.read_record(&mut record) {
                Ok(false) => break,
                Ok(true) => {
                    line += 1;
                    f(Row {
                        header: &header,
                        record: &record,
                        line,
                    });
                }
                Err(e) => {
                    self.problem(format!(
                        "{name} is damaged after row {line} ({}): the rest is left out",
                        aeroplane_core::excerpt::clip_message(e)
                    ));
                    break;
                }
            }
        }
        if line == 0 {
            self.problem(format!("{name} has a header but no rows"));
        }
        Some(header)
    }

    /// The bots' names as run.json lists them (the lineup, or a league's pool).
    pub fn bot_names(&self) -> Vec<String> {
        self.manifest_field("bots")
            .and_then(Value::as_array)
            .map(|b| {
                b.iter()
                    .filter_map(|x| x.get("name")?.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A field of the manifest.
    pub fn manifest_field(&self, key: &str) -> Option<&Value> {
        self.manifest.as_ref().and_then(|m| m.get(key))
    }

    /// The typed report inside `summary.json`.
    pub fn report(&self) -> Option<&super::views::ReportView> {
        self.summary.as_ref().and_then(|s| s.report.as_ref())
    }

    /// summary.json's `report` as JSON, for the pages that read it untyped (a tune's); read
    /// through the same size limit as the typed views.
    pub fn report_value(&self) -> Option<Value> {
        self.summary.as_ref()?;
        let file = std::fs::File::open(self.path.join("summary.json")).ok()?;
        let reader = std::io::BufReader::new(file.take(MAX_SUMMARY_BYTES + 1));
        let mut v: Value = serde_json::from_reader(reader).ok()?;
        Some(v.get_mut("report")?.take())
    }

    /// The report's title line: from summary.json, else `fallback`.
    pub fn title(&self, fallback: impl FnOnce() -> String) -> String {
        self.report()
            .and_then(|r| r.title())
            .map_or_else(fallback, String::from)
    }

    /// Which job wrote the folder: from run.json, else summary.json, else the files present.
    pub fn kind(&self) -> Result<Kind, ReportError> {
        if self.manifest.is_none() && self.grade.is_some() {
            return Ok(Kind::Grade);
        }
        if let Some(m) = &self.manifest {
            match m.get("command").and_then(Value::as_str).unwrap_or("run") {
                "sweep" => return Ok(Kind::Sweep),
                "league" => return Ok(Kind::League),
                "tune" => return Ok(Kind::Tune),
                "run" if m.get("sprt").is_some_and(|s| !s.is_null()) => return Ok(Kind::Sprt),
                "run" => return Ok(Kind::Run),
                _ => {}
            }
        }
        if let Some(c) = self.summary.as_ref().and_then(|s| s.command.as_deref()) {
            match c {
                "run" => return Ok(Kind::Run),
                "sprt" => return Ok(Kind::Sprt),
                "sweep" => return Ok(Kind::Sweep),
                "league" => return Ok(Kind::League),
                "tune" => return Ok(Kind::Tune),
                _ => {}
            }
        }
        if self.has("history.csv") {
            Ok(Kind::Tune)
        } else if self.has("sprt.json") {
            Ok(Kind::Sprt)
        } else if self.has("sweep.csv") {
            Ok(Kind::Sweep)
        } else if self.has("league.csv") {
            Ok(Kind::League)
        } else if self.has("summary.csv") {
            Ok(Kind::Run)
        } else {
            Err(ReportError::Folder {
                dir: self.path.display().to_string(),
                message: "holds no results of aeroplane (no run.json, summary.json, summary.csv, sweep.csv, league.csv or grade.json)".into(),
            })
        }
    }
}
