//! Reading an output folder: its CSV tables by column name, `run.json` and `summary.json` as
//! JSON (leniently, so folders of older versions read too).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ReportError;

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
}

/// The largest table a report reads: 256 MiB.
const MAX_TABLE_BYTES: u64 = 256 << 20;

/// A CSV table read by column name.
#[derive(Debug)]
pub(crate) struct Csv {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// One row of a [`Csv`].
#[derive(Clone, Copy)]
pub(crate) struct Row<'a> {
    csv: &'a Csv,
    cells: &'a [String],
}

impl Csv {
    fn read(path: &Path) -> Result<Csv, ReportError> {
        let file = path.display().to_string();
        let too_big = |message: String| ReportError::Read {
            file: file.clone(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, message),
        };
        // The tables a report reads are summaries (games.csv is never read whole), so a
        // device, or a table larger than any run writes, is not one of them.
        if let Some(what) = crate::config::not_a_file(path) {
            return Err(too_big(format!("is {what}, not a table")));
        }
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if len > MAX_TABLE_BYTES {
            return Err(too_big(format!(
                "{len} bytes: larger than the {} a report reads",
                crate::config::read::human_bytes(MAX_TABLE_BYTES)
            )));
        }
        let parse = |e: csv::Error| ReportError::Parse {
            file: file.clone(),
            message: aeroplane_core::excerpt::clip_message(e),
        };
        let mut r = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(path)
            .map_err(parse)?;
        let header = r
            .headers()
            .map_err(parse)?
            .iter()
            .map(String::from)
            .collect();
        let mut rows = Vec::new();
        for rec in r.records() {
            rows.push(rec.map_err(parse)?.iter().map(String::from).collect());
        }
        Ok(Csv { header, rows })
    }

    /// The rows in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        self.rows.iter().map(|cells| Row { csv: self, cells })
    }

    fn index(&self, column: &str) -> Option<usize> {
        self.header.iter().position(|h| h == column)
    }
}

impl<'a> Row<'a> {
    /// A cell's text as written ("" when the column or the value is absent).
    pub fn text(&self, column: &str) -> &'a str {
        self.csv
            .index(column)
            .and_then(|i| self.cells.get(i))
            .map_or("", |s| s.trim())
    }

    /// A cell as a number, if it holds one.
    pub fn num(&self, column: &str) -> Option<f64> {
        self.text(column).parse().ok()
    }

    /// A cell as a p-value, if it holds one (also below the smallest `f64`: `3.2e-412`).
    pub fn p(&self, column: &str) -> Option<crate::stats::PValue> {
        crate::stats::PValue::parse(self.text(column))
    }

    /// A cell as a count, if it holds one.
    pub fn int(&self, column: &str) -> Option<u64> {
        self.text(column).parse().ok()
    }
}

/// A job's output folder.
pub(crate) struct Folder {
    /// The folder.
    pub path: PathBuf,
    /// `run.json`, if present.
    pub manifest: Option<Value>,
    /// `summary.json`, if present.
    pub summary: Option<Value>,
    /// `sprt.json`, if present.
    pub sprt: Option<Value>,
}

fn read_json(path: &Path) -> Result<Option<Value>, ReportError> {
    if !path.exists() {
        return Ok(None);
    }
    let text = crate::config::read_text(path).map_err(|source| ReportError::Read {
        file: path.display().to_string(),
        source,
    })?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| ReportError::Parse {
            file: path.display().to_string(),
            message: aeroplane_core::excerpt::clip_message(e),
        })
}

impl Folder {
    /// Opens a folder and reads its JSON files.
    pub fn open(path: &Path) -> Result<Folder, ReportError> {
        if !path.is_dir() {
            return Err(ReportError::Folder {
                dir: path.display().to_string(),
                message: "not a folder: give the --out folder of a run, sweep or league".into(),
            });
        }
        Ok(Folder {
            path: path.to_path_buf(),
            manifest: read_json(&path.join("run.json"))?,
            summary: read_json(&path.join("summary.json"))?,
            sprt: read_json(&path.join("sprt.json"))?,
        })
    }

    /// Whether the folder holds a file.
    pub fn has(&self, name: &str) -> bool {
        self.path.join(name).is_file()
    }

    /// A CSV table, if the folder holds it.
    pub fn csv(&self, name: &str) -> Result<Option<Csv>, ReportError> {
        let p = self.path.join(name);
        if p.is_file() {
            Csv::read(&p).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A CSV table the report cannot do without.
    pub fn need(&self, name: &str, what: &str) -> Result<Csv, ReportError> {
        self.csv(name)?.ok_or_else(|| ReportError::Folder {
            dir: self.path.display().to_string(),
            message: format!("{name} is missing: the {what} report is drawn from it"),
        })
    }

    /// A field of the manifest.
    pub fn manifest_field(&self, key: &str) -> Option<&Value> {
        self.manifest.as_ref().and_then(|m| m.get(key))
    }

    /// The typed report inside `summary.json`.
    pub fn report(&self) -> Option<&Value> {
        self.summary.as_ref().and_then(|s| s.get("report"))
    }

    /// The report's title line: from summary.json, else `fallback`.
    pub fn title(&self, fallback: impl FnOnce() -> String) -> String {
        self.report()
            .and_then(|r| r.get("title").or_else(|| r.get("run")?.get("title")))
            .and_then(Value::as_str)
            .map_or_else(fallback, String::from)
    }

    /// Which job wrote the folder: from run.json, else summary.json, else the files present.
    pub fn kind(&self) -> Result<Kind, ReportError> {
        if let Some(m) = &self.manifest {
            match m.get("command").and_then(Value::as_str).unwrap_or("run") {
                "sweep" => return Ok(Kind::Sweep),
                "league" => return Ok(Kind::League),
                "run" if m.get("sprt").is_some_and(|s| !s.is_null()) => return Ok(Kind::Sprt),
                "run" => return Ok(Kind::Run),
                _ => {}
            }
        }
        if let Some(c) = self
            .summary
            .as_ref()
            .and_then(|s| s.get("command"))
            .and_then(Value::as_str)
        {
            match c {
                "run" => return Ok(Kind::Run),
                "sprt" => return Ok(Kind::Sprt),
                "sweep" => return Ok(Kind::Sweep),
                "league" => return Ok(Kind::League),
                _ => {}
            }
        }
        if self.has("sprt.json") {
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
                message: "holds no results of aeroplane (no run.json, summary.json, summary.csv, sweep.csv or league.csv)".into(),
            })
        }
    }
}
