//! `run`: one lineup, one rule variant, many seeded deals.

use serde::Serialize;

use crate::export::{Manifest, OutputDir, run_tables, summary_with_forfeits, write_report};
use crate::runner::{Flow, RunSpec, Unit, UnitResult};
use crate::stats::{Summary, Tally};

use super::drive::Fold;
use super::{Context, JobDef, JobError, Outcome, conduct, names};

/// A tournament run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunJob {
    /// What is played.
    pub spec: RunSpec,
    /// The rules as the user named them (a preset, a path, ...), for titles and the manifest.
    pub rules_name: String,
    /// Also write `games.csv` (needs an output directory).
    pub per_game: bool,
    /// A failing bot program forfeits the game in progress (counted in `forfeits` columns)
    /// instead of stopping the run.
    pub recover: bool,
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
    /// Whether the run recovered from failing bots (the report then lists forfeits).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recover: bool,
}

impl RunReport {
    /// Derives the report of `tally` for `lineup` names.
    pub fn new(title: String, tally: Tally, names: &[String]) -> RunReport {
        let summary = Summary::new(&tally, names);
        RunReport {
            title,
            tally,
            summary,
            recover: false,
        }
    }

    /// The text report.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_report(w, &self.title, &self.summary)?;
        if self.recover {
            let parts: Vec<String> = self
                .summary
                .bots
                .iter()
                .map(|b| format!("{} {}", b.name, b.counts.forfeits))
                .collect();
            writeln!(
                w,
                "\nforfeits (games lost by a failing bot): {}",
                parts.join(", ")
            )?;
        }
        Ok(())
    }

    /// Writes the run's tables and summary.json.
    pub(crate) fn write_files(
        &self,
        dir: &OutputDir,
        command: &'static str,
    ) -> Result<(), JobError> {
        for table in run_tables(&self.tally, &self.summary) {
            let table = match (self.recover, table.file) {
                (true, "summary.csv") => summary_with_forfeits(table, &self.summary),
                _ => table,
            };
            dir.write_table(&table)?;
        }
        dir.write_json("summary.json", &SummaryJson::new(command, self))?;
        Ok(())
    }
}

/// A run's state: the tally of the units folded so far (and the bots' names).
pub(crate) struct RunFold(pub Tally, pub Vec<String>);

impl Fold for RunFold {
    type Record = Tally;

    fn record(&self, unit: &UnitResult) -> Tally {
        unit.tally.clone()
    }

    fn fold(&mut self, _: &Unit, record: Tally) -> Flow {
        self.0.merge(&record);
        Flow::Continue
    }

    fn interim(&self) -> String {
        format!(
            "{} games: {}",
            self.0.games,
            super::drive::win_rates(&self.0, &self.1)
        )
    }
}

impl RunJob {
    /// The job's manifest (status running).
    pub fn manifest(&self) -> Manifest {
        let mut m = Manifest::new(&self.spec, &self.rules_name, self.per_game);
        m.recover = self.recover;
        m
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

    pub(crate) fn def(&self) -> Result<JobDef<'_>, JobError> {
        Ok(JobDef {
            manifest: self.manifest(),
            parts: std::slice::from_ref(&self.spec),
            rows_for: if self.per_game { &|_| true } else { &|_| false },
            per_game: self.per_game,
            recover: self.recover,
        })
    }

    pub(crate) fn new_fold(&self) -> RunFold {
        RunFold(
            Tally::new(self.spec.players(), self.spec.games_per_deal()),
            names(&self.spec.lineup),
        )
    }

    pub(crate) fn report(
        &self,
        fold: &mut RunFold,
        out: Option<&OutputDir>,
    ) -> Result<RunReport, JobError> {
        let tally = std::mem::replace(&mut fold.0, Tally::new(0, 1));
        let mut report = RunReport::new(self.title(), tally, &names(&self.spec.lineup));
        report.recover = self.recover;
        if let Some(dir) = out {
            report.write_files(dir, "run")?;
        }
        Ok(report)
    }

    /// Plays the run; with an output directory, writes run.json, the checkpoint while it runs,
    /// games.csv (with `per_game`), the CSV tables and summary.json.
    pub fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<RunReport>, JobError> {
        if self.per_game && ctx.out.is_none() {
            return Err(JobError::Invalid(
                "--per-game writes games.csv into the output directory: give --out DIR".into(),
            ));
        }
        let mut fold = self.new_fold();
        conduct(ctx, self.def()?, &mut fold, |f, out, _| self.report(f, out))
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
