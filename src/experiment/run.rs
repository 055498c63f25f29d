//! `run`: one lineup, one rule variant, many seeded deals.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::Summary;
use crate::analysis::luck::{LuckNet, LuckReport, LuckTally};
use crate::bots::FaultKind;
use crate::export::{
    ForfeitCount, Manifest, OutputDir, forfeits_table, run_tables, summary_with_forfeits,
    write_report,
};
use crate::runner::{Flow, ForfeitNote, RunSpec, Unit, UnitResult};
use crate::stats::Tally;

use super::drive::Fold;
use super::kind::{JobKind, JobReport, one_luck_net};
use super::merge::{Shards, Stop, merge};
use super::{Context, InvalidJob, JobDef, JobError, Outcome, conduct, names};

/// A tournament run.
#[derive(Clone, Debug, PartialEq)]
pub struct RunJob {
    /// What is played.
    pub spec: RunSpec,
    /// The rules as the user named them (a preset, a path, ...), for titles and the manifest.
    pub rules_name: String,
    /// Also write `games.csv` (needs an output directory).
    pub per_game: bool,
    /// Also write a decision log of every game under this file name in the output directory
    /// (`NAME.jsonl.zst` or `NAME.jsonl`; see docs/LOG.md).
    pub log_games: Option<String>,
    /// With `log_games`: the position is written on every `log_positions`-th decision line of
    /// a game, the first included (1: on every line; docs/LOG.md).
    pub log_positions: u32,
    /// A failing bot program forfeits the game in progress (counted in `forfeits` columns)
    /// instead of stopping the run.
    pub recover: bool,
    /// Measure every roll's luck with this net and report luck-adjusted results beside the
    /// plain ones (docs/LUCK.md).
    pub luck: Option<LuckNet>,
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
    /// The forfeited games by bot and cause, with the first of each (runs with `recover`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forfeits: Vec<ForfeitCount>,
    /// The luck-adjusted figures (runs that measure luck).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub luck: Option<LuckReport>,
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
            forfeits: Vec::new(),
            luck: None,
        }
    }

    /// One line per bot and cause of its forfeits, with the first such game: what the CLI
    /// prints on stderr after a run with `recover`.
    pub fn forfeit_notes(&self) -> Vec<String> {
        self.forfeits
            .iter()
            .map(|c| {
                let name = self
                    .summary
                    .bots
                    .get(c.bot)
                    .map_or("?", |b| b.name.as_str());
                format!(
                    "bot {} `{name}` forfeited {} game(s) ({}); the first, game {} (seat {}): {}",
                    c.bot,
                    c.forfeits,
                    c.cause.word(),
                    c.first_game,
                    c.first_seat,
                    c.first_message
                )
            })
            .collect()
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
            if !self.forfeits.is_empty() {
                let causes: Vec<String> = self
                    .forfeits
                    .iter()
                    .map(|c| {
                        let name = self
                            .summary
                            .bots
                            .get(c.bot)
                            .map_or("?", |b| b.name.as_str());
                        format!("{name} {} {}", c.cause.word(), c.forfeits)
                    })
                    .collect();
                writeln!(w, "forfeit causes: {}", causes.join(", "))?;
            }
        }
        if let Some(l) = &self.luck {
            l.write_text(w)?;
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
        if self.recover {
            let names: Vec<String> = self.summary.bots.iter().map(|b| b.name.clone()).collect();
            dir.write_table(&forfeits_table(&self.forfeits, &names))?;
        }
        if let Some(l) = &self.luck {
            dir.write_table(&crate::export::luck_table(l))?;
        }
        dir.write_json("summary.json", &SummaryJson::new(command, self).in_dir(dir))?;
        Ok(())
    }
}

/// A run's state: the tally of the units folded so far, the bots' names, and the forfeits by
/// bot and cause.
pub(crate) struct RunFold {
    pub tally: Tally,
    pub names: Vec<String>,
    /// An empty tally of the run, to check a record read back against.
    empty: Tally,
    forfeits: BTreeMap<(usize, FaultKind), ForfeitCount>,
    /// The luck of the units folded (runs that measure it).
    pub luck: Option<LuckTally>,
}

/// What the checkpoint keeps of a run's unit: its tally, and its forfeits by bot and cause
/// (runs with `recover`).
#[derive(Serialize, Deserialize)]
pub(crate) struct RunRecord {
    tally: Tally,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    forfeits: Vec<ForfeitCount>,
    /// Its luck (runs that measure it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    luck: Option<LuckTally>,
}

/// A unit's forfeits, counted by bot and cause, the first of each kept.
pub(crate) fn count_forfeits(notes: &[ForfeitNote]) -> Vec<ForfeitCount> {
    let mut by: BTreeMap<(usize, FaultKind), ForfeitCount> = BTreeMap::new();
    for n in notes {
        by.entry((n.bot, n.cause))
            .and_modify(|c| c.forfeits += 1)
            .or_insert_with(|| ForfeitCount {
                bot: n.bot,
                cause: n.cause,
                forfeits: 1,
                first_game: n.game,
                first_seat: n.seat,
                first_message: n.message.clone(),
            });
    }
    by.into_values().collect()
}

impl Fold for RunFold {
    type Record = RunRecord;

    fn record(&self, unit: &UnitResult) -> RunRecord {
        RunRecord {
            tally: unit.tally.clone(),
            forfeits: count_forfeits(&unit.forfeits),
            luck: unit.luck.clone(),
        }
    }

    fn check(&self, unit: &Unit, record: &RunRecord) -> Result<(), String> {
        check_tally(&record.tally, unit, &self.empty)?;
        match (&self.luck, &record.luck) {
            (Some(_), None) => Err("it has no luck figures, and the run measures luck".into()),
            (None, Some(_)) => Err("it has luck figures, and the run measures none".into()),
            (Some(_), Some(l)) if l.deals != unit.deals => Err(format!(
                "its luck counts {} deals where the unit has {}",
                l.deals, unit.deals
            )),
            _ => Ok(()),
        }
    }

    fn fold(&mut self, _: &Unit, record: RunRecord) -> Flow {
        self.tally.merge(&record.tally);
        if let (Some(a), Some(b)) = (self.luck.as_mut(), record.luck.as_ref()) {
            a.merge(b);
        }
        for c in record.forfeits {
            self.forfeits
                .entry((c.bot, c.cause))
                .and_modify(|k| k.forfeits += c.forfeits)
                .or_insert(c);
        }
        Flow::Continue
    }

    fn interim(&self) -> String {
        format!(
            "{} games: {}",
            self.tally.games,
            super::drive::win_rates(&self.tally, &self.names)
        )
    }
}

impl RunJob {
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
            log: match &self.log_games {
                Some(name) => Some(super::LogDef::new(name, &self.spec, self.log_positions)?),
                None => None,
            },
            luck: self.luck.as_slice(),
            pool: None,
        })
    }

    pub(crate) fn new_fold(&self) -> RunFold {
        RunFold {
            tally: Tally::new(self.spec.players(), self.spec.games_per_deal()),
            names: names(&self.spec.lineup),
            empty: Tally::new(self.spec.players(), self.spec.games_per_deal()),
            forfeits: BTreeMap::new(),
            luck: self.luck.as_ref().map(|_| LuckTally::default()),
        }
    }

    pub(crate) fn report(
        &self,
        fold: &mut RunFold,
        out: Option<&OutputDir>,
    ) -> Result<RunReport, JobError> {
        let tally = std::mem::replace(&mut fold.tally, Tally::new(0, 1));
        let mut report = RunReport::new(self.title(), tally, &names(&self.spec.lineup));
        report.recover = self.recover;
        report.forfeits = std::mem::take(&mut fold.forfeits).into_values().collect();
        if let (Some(net), Some(t)) = (&self.luck, &fold.luck) {
            report.luck = Some(
                LuckReport::new(t, &names(&self.spec.lineup), net.name(), net.net.checksum())
                    .at_ply(net.ply),
            );
        }
        if let Some(dir) = out {
            report.write_files(dir, "run")?;
        }
        Ok(report)
    }
}

impl JobKind for RunJob {
    type Report = RunReport;

    /// The job's manifest (status running).
    fn manifest(&self) -> Manifest {
        let mut m = Manifest::new(&self.spec, &self.rules_name, self.per_game);
        m.recover = self.recover;
        m.log_games = self.log_games.clone();
        m.log_positions = self.log_games.as_ref().map(|_| self.log_positions);
        m.luck = self.luck.iter().map(|l| l.name().to_string()).collect();
        m.luck_checksum = self.luck.iter().map(LuckNet::checksum).collect();
        m.luck_ply = self.luck.iter().map(|l| l.ply).max().unwrap_or_default();
        m
    }

    fn from_manifest(m: &Manifest, file: &str) -> Result<RunJob, JobError> {
        Ok(RunJob {
            spec: m.spec(file)?,
            rules_name: m.rules_name.clone(),
            per_game: m.per_game,
            log_games: m.log_games.clone(),
            log_positions: m
                .log_positions
                .unwrap_or(crate::decision_log::DEFAULT_LOG_POSITIONS),
            recover: m.recover,
            luck: one_luck_net(m, file)?,
        })
    }

    fn parts(&self) -> &[RunSpec] {
        std::slice::from_ref(&self.spec)
    }

    fn parts_mut(&mut self) -> &mut [RunSpec] {
        std::slice::from_mut(&mut self.spec)
    }

    /// Plays the run; with an output directory, writes run.json, the checkpoint while it runs,
    /// games.csv (with `per_game`), the CSV tables and summary.json.
    fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<RunReport>, JobError> {
        if self.log_games.is_some() && ctx.out.is_none() {
            return Err(InvalidJob::NeedsOut {
                setting: "log_games",
                writes: "writes the decision log",
            }
            .into());
        }
        if self.per_game && ctx.out.is_none() {
            return Err(InvalidJob::NeedsOut {
                setting: "per_game",
                writes: "writes games.csv",
            }
            .into());
        }
        let mut fold = self.new_fold();
        let mut outcome = conduct(ctx, self.def()?, &mut fold, |f, out, _| self.report(f, out))?;
        if let super::JobEnd::Finished(r) = &outcome.ended {
            outcome.notes.extend(r.forfeit_notes());
        }
        Ok(outcome)
    }

    fn merge_shards(
        &self,
        out: &mut OutputDir,
        shards: Shards<'_>,
        stop: Stop<'_>,
    ) -> Result<Outcome<RunReport>, JobError> {
        let mut fold = self.new_fold();
        let mut outcome = merge(out, shards, self.def()?, stop, &mut fold, |f, o, _| {
            self.report(f, o)
        })?;
        if let super::JobEnd::Finished(r) = &outcome.ended {
            outcome.notes.extend(r.forfeit_notes());
        }
        Ok(outcome)
    }
}

impl JobReport for RunReport {
    const COMMAND: &'static str = "run";

    fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        RunReport::write_text(self, w)
    }
}

/// Checks that a tally read back counts the games of `unit` for a part whose tallies look like
/// `like` (its players and games per deal): a record of another unit or job does not.
pub(crate) fn check_tally(tally: &Tally, unit: &Unit, like: &Tally) -> Result<(), String> {
    if (tally.players, tally.group_size) != (like.players, like.group_size) {
        return Err(format!(
            "it counts games of {} players, {} per deal, not {} and {}",
            tally.players, tally.group_size, like.players, like.group_size
        ));
    }
    if tally.deals != unit.deals || tally.games != unit.deals * like.group_size {
        return Err(format!(
            "it counts {} deals and {} games where the unit has {} deals",
            tally.deals, tally.games, unit.deals
        ));
    }
    Ok(())
}

/// `summary.json`: a job's report, as scripts read it.
#[derive(Serialize)]
pub(crate) struct SummaryJson<'a, T: Serialize> {
    command: &'static str,
    tool: &'static str,
    version: &'static str,
    /// `partial` for the summary of an incomplete set of shards; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'static str>,
    report: &'a T,
}

impl<'a, T: Serialize> SummaryJson<'a, T> {
    pub(crate) fn new(command: &'static str, report: &'a T) -> Self {
        SummaryJson {
            command,
            tool: "aeroplane",
            version: env!("CARGO_PKG_VERSION"),
            status: None,
            report,
        }
    }

    /// Says `"status": "partial"` when written into the folder of a partial merge.
    pub(crate) fn in_dir(mut self, dir: &OutputDir) -> Self {
        if dir.is_partial() {
            self.status = Some("partial");
        }
        self
    }
}
