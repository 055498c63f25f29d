//! What a report reads of `summary.json`: typed views of the fields it shows or checks, every
//! one optional (folders of older versions lack some), everything else skipped while parsing, so
//! memory follows the fields kept rather than the file.

use serde::Deserialize;

/// A number as `summary.json` writes it: a JSON number, or `"inf"` / `"-inf"` / `"nan"`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Num(pub f64);

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(x) => Ok(Num(x)),
            Raw::Text(t) => match t.as_str() {
                "inf" | "+inf" => Ok(Num(f64::INFINITY)),
                "-inf" => Ok(Num(f64::NEG_INFINITY)),
                "nan" => Ok(Num(f64::NAN)),
                other => Err(serde::de::Error::custom(format!(
                    "`{}` is not a number",
                    aeroplane_core::excerpt::excerpt(other)
                ))),
            },
        }
    }
}

/// `summary.json`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SummaryFile {
    pub command: Option<String>,
    pub version: Option<String>,
    pub report: Option<ReportView>,
}

/// The `report` of any job (each job fills its own fields).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ReportView {
    pub title: Option<String>,
    /// A run's figures.
    pub summary: Option<RunSummaryView>,
    /// An SPRT's run.
    pub run: Option<Box<RunView>>,
    pub bot_a: Option<String>,
    pub bot_b: Option<String>,
    pub sprt: Option<SprtView>,
    pub path: Option<Vec<(Num, Num)>>,
    /// A sweep's or a league's rows.
    pub rows: Option<Vec<RowView>>,
}

/// An SPRT's run.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RunView {
    pub title: Option<String>,
    pub summary: Option<RunSummaryView>,
}

/// A run's figures.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RunSummaryView {
    pub players: Option<u64>,
    pub deals: Option<u64>,
    pub games: Option<u64>,
    #[serde(default)]
    pub bots: Vec<LineView>,
    #[serde(default)]
    pub seats: Vec<LineView>,
    pub head_to_head: Option<HeadToHeadView>,
}

/// A bot's or a seat's line.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct LineView {
    pub counts: Option<CountsView>,
    pub win_rate: Option<Num>,
}

/// Games and wins.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CountsView {
    pub games: Option<u64>,
    pub wins: Option<u64>,
}

/// A two-bot match's figures.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct HeadToHeadView {
    #[serde(default)]
    pub counts: Vec<u64>,
}

/// An Elo with its interval.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct EloView {
    pub elo: Option<Num>,
    pub low: Option<Num>,
    pub high: Option<Num>,
}

/// An SPRT's state.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct SprtView {
    pub config: Option<SprtConfigView>,
    pub groups: Option<u64>,
    pub score: Option<Num>,
    pub llr: Option<Num>,
    pub lower: Option<Num>,
    pub upper: Option<Num>,
    pub verdict: Option<String>,
    pub elo: Option<EloView>,
    pub los: Option<Num>,
}

/// An SPRT's parameters.
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct SprtConfigView {
    pub elo0: Option<Num>,
    pub elo1: Option<Num>,
    pub alpha: Option<Num>,
    pub beta: Option<Num>,
}

/// A sweep's variant or a league's bot.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RowView {
    pub summary: Option<RunSummaryView>,
    pub bot: Option<String>,
    pub rating: Option<Num>,
    pub games: Option<u64>,
}

impl ReportView {
    /// The run figures: a run's own, or an SPRT's run's.
    pub fn run_summary(&self) -> Option<&RunSummaryView> {
        self.summary
            .as_ref()
            .or_else(|| self.run.as_ref()?.summary.as_ref())
    }

    /// The title line: the report's, or its run's.
    pub fn title(&self) -> Option<&str> {
        self.title
            .as_deref()
            .or_else(|| self.run.as_ref()?.title.as_deref())
    }
}
