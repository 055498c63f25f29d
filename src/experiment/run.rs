//! `run`: one lineup, one rule variant, many seeded deals.

use serde::Serialize;

use crate::export::{GamesCsv, Manifest, run_tables, write_report};
use crate::runner::{self, GameSink, RunSpec};
use crate::stats::{Summary, Tally};

use super::{Context, JobError, finish, names, start};

/// A tournament run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunJob {
    /// What is played.
    pub spec: RunSpec,
    /// The rules as the user named them (a preset, a path, ...), for titles and the manifest.
    pub rules_name: String,
    /// Also write `games.csv` (needs an output directory).
    pub per_game: bool,
}

/// What a run found: the exact tallies and the figures derived from them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunReport {
    /// The report's first line: what was run.
    pub title: String,
    /// The integer tallies.
    #[serde(skip)]
    pub tally: Tally,
    /// The figures.
    pub summary: Summary,
}

impl RunReport {
    /// Derives the report of `tally` for `lineup` names.
    pub fn new(title: String, tally: Tally, names: &[String]) -> RunReport {
        let summary = Summary::new(&tally, names);
        RunReport {
            title,
            tally,
            summary,
        }
    }

    /// The text report.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_report(w, &self.title, &self.summary)
    }
}

impl RunJob {
    /// The job's manifest (status running).
    pub fn manifest(&self) -> Manifest {
        Manifest::new(&self.spec, &self.rules_name, self.per_game)
    }

    /// The report's title line.
    pub fn title(&self) -> String {
        let spec = &self.spec;
        format!(
            "aeroplane run: rules {}, {} players, seed {}, deals {}..{}{}",
            self.rules_name,
            spec.players(),
            spec.seed,
            spec.first_deal,
            spec.first_deal + spec.deals,
            if spec.rotate_seats {
                ", seats rotated"
            } else {
                ""
            }
        )
    }

    /// Plays the run; with an output directory, writes run.json, games.csv (with
    /// `per_game`), the CSV tables and summary.json.
    pub fn execute(&self, ctx: &Context<'_>) -> Result<RunReport, JobError> {
        if self.per_game && ctx.out.is_none() {
            return Err(JobError::Invalid(
                "--per-game writes games.csv into the output directory: give --out DIR".into(),
            ));
        }
        let mut manifest = self.manifest();
        start(ctx.out, &manifest)?;
        let result = self.play(ctx);
        finish(ctx.out, &mut manifest, result)
    }

    fn play(&self, ctx: &Context<'_>) -> Result<(RunReport, u64), JobError> {
        let mut games = match (ctx.out, self.per_game) {
            (Some(dir), true) => Some(GamesCsv::create(&dir.file(GamesCsv::PARTIAL))?),
            _ => None,
        };
        let tally = runner::run(
            &self.spec,
            ctx.exec,
            games.as_mut().map(|g| g as &mut dyn GameSink),
            ctx.progress,
        )?;
        let report = RunReport::new(self.title(), tally, &names(&self.spec.lineup));
        if let Some(dir) = ctx.out {
            if let Some(g) = games {
                let partial = dir.file(GamesCsv::PARTIAL);
                g.finish()
                    .map_err(|e| crate::export::ExportError::new(&partial, e))?;
                dir.finish_stream(GamesCsv::PARTIAL, "games.csv")?;
            }
            for table in run_tables(&report.tally, &report.summary) {
                dir.write_table(&table)?;
            }
            dir.write_json("summary.json", &SummaryJson::new("run", &report))?;
        }
        let games = report.tally.games;
        Ok((report, games))
    }
}

/// `summary.json`: a job's report, as scripts read it.
#[derive(Serialize)]
pub(crate) struct SummaryJson<'a, T: Serialize> {
    command: &'static str,
    tool: &'static str,
    version: &'static str,
    report: &'a T,
}

impl<'a, T: Serialize> SummaryJson<'a, T> {
    pub(crate) fn new(command: &'static str, report: &'a T) -> Self {
        SummaryJson {
            command,
            tool: "aeroplane",
            version: env!("CARGO_PKG_VERSION"),
            report,
        }
    }
}
