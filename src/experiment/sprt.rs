//! `run --sprt`: a head-to-head between two bots that stops as soon as a sequential
//! probability ratio test decides.
//!
//! The unit of the test is the rotation group (a deal played with the two bots in each seat).
//! Each group scores bot A (the first of the lineup) 2 points per game won and 1 per unfinished
//! game, out of `steps = 4`. The test is checked after every unit of deals, in deal order, so
//! where it stops depends only on the spec and the unit size, never on the thread count.

use serde::Serialize;

use crate::analysis::sprt::SprtSummary;
use crate::analysis::{Sprt, SprtConfig, Verdict};
use crate::export::{Manifest, OutputDir, SprtSection, run_tables};
use crate::runner::{Flow, RunSpec, Unit, UnitResult};
use crate::stats::Tally;

use super::drive::Fold;
use super::run::{RunReport, SummaryJson};
use super::{Context, InvalidJob, JobDef, JobError, Outcome, conduct, names};

/// Deals per unit (one check of the test) unless told otherwise.
pub const SPRT_CHUNK_DEALS: u64 = 16;

/// A sequential head-to-head.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtJob {
    /// Two distinct bots, seats rotated; `deals` is the most deals to play.
    pub spec: RunSpec,
    /// The rules as named.
    pub rules_name: String,
    /// The test.
    pub config: SprtConfig,
    /// Deals per check of the test.
    pub chunk_deals: u64,
}

/// What the head-to-head found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SprtReport {
    /// The games up to the stop, as a run.
    pub run: RunReport,
    /// Bot A's name.
    pub bot_a: String,
    /// Bot B's name.
    pub bot_b: String,
    /// The test's state at the stop.
    pub sprt: SprtSummary,
    /// The log-likelihood ratio after each check of the test: (games played, LLR).
    pub path: Vec<(u64, f64)>,
}

impl SprtJob {
    /// Checks that `spec` is a two-bot head-to-head, and rotates its seats.
    pub fn new(
        mut spec: RunSpec,
        rules_name: String,
        config: SprtConfig,
        chunk_deals: u64,
    ) -> Result<SprtJob, JobError> {
        if spec.lineup.len() != 2 || spec.lineup[0] == spec.lineup[1] {
            return Err(InvalidJob::SprtLineup(names(&spec.lineup).join(",")).into());
        }
        spec.rotate_seats = true;
        spec.validate()?;
        Ok(SprtJob {
            spec,
            rules_name,
            config,
            chunk_deals,
        })
    }

    /// The job's manifest (status running).
    pub fn manifest(&self) -> Manifest {
        let mut m = Manifest::new(&self.spec, &self.rules_name, false);
        m.sprt = Some(SprtSection {
            test: self.config.to_string(),
            chunk_deals: self.chunk_deals,
            result: None,
        });
        m
    }

    /// The report's title line.
    pub fn title(&self) -> String {
        format!(
            "aeroplane run --sprt: rules {}, seed {}, seats rotated",
            self.rules_name, self.spec.seed
        )
    }

    /// Plays until the test decides or the deals run out; with an output directory, writes
    /// run.json (with the outcome), the checkpoint while it runs, the run's tables, sprt.json
    /// and summary.json.
    pub fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<SprtReport>, JobError> {
        let mut fold = self.new_fold();
        conduct(ctx, self.def(), &mut fold, |f, out, m| {
            self.report(f, out, m)
        })
    }

    pub(crate) fn def(&self) -> JobDef<'_> {
        JobDef {
            manifest: self.manifest(),
            parts: std::slice::from_ref(&self.spec),
            rows_for: &|_| true,
            per_game: false,
            recover: false,
            log: None,
            luck: None,
        }
    }

    pub(crate) fn new_fold(&self) -> SprtFold {
        let per_deal = self.spec.games_per_deal() as usize;
        SprtFold {
            test: Sprt::new(self.config, 2 * per_deal as u32),
            tally: Tally::new(self.spec.players(), self.spec.games_per_deal()),
            per_deal,
            path: Vec::new(),
            names: names(&self.spec.lineup),
        }
    }

    pub(crate) fn report(
        &self,
        fold: &mut SprtFold,
        out: Option<&OutputDir>,
        manifest: &mut Manifest,
    ) -> Result<SprtReport, JobError> {
        let names = names(&self.spec.lineup);
        let tally = std::mem::replace(&mut fold.tally, Tally::new(0, 1));
        let report = SprtReport {
            run: RunReport::new(self.title(), tally, &names),
            bot_a: names[0].clone(),
            bot_b: names[1].clone(),
            sprt: fold.test.summary(),
            path: std::mem::take(&mut fold.path),
        };
        if let Some(s) = manifest.sprt.as_mut() {
            s.result = Some(verdict_word(report.sprt.verdict).to_string());
        }
        if let Some(dir) = out {
            for table in run_tables(&report.run.tally, &report.run.summary) {
                dir.write_table(&table)?;
            }
            dir.write_json(
                "sprt.json",
                &serde_json::json!({
                    "bot_a": report.bot_a,
                    "bot_b": report.bot_b,
                    "games": report.run.tally.games,
                    "result": report.sprt.verdict,
                    "sprt": report.sprt,
                }),
            )?;
            dir.write_json(
                "summary.json",
                &SummaryJson::new("sprt", &report).in_dir(dir),
            )?;
        }
        Ok(report)
    }
}

/// The head-to-head's state: the test and the tally of the units folded so far.
pub(crate) struct SprtFold {
    test: Sprt,
    tally: Tally,
    per_deal: usize,
    /// The LLR after each unit: (games, LLR).
    path: Vec<(u64, f64)>,
    /// The two bots' names.
    names: Vec<String>,
}

/// One unit of the head-to-head: its tally and bot A's points in each deal, in deal order.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct SprtRecord {
    tally: Tally,
    points: Vec<u32>,
}

impl Fold for SprtFold {
    type Record = SprtRecord;

    fn record(&self, unit: &UnitResult) -> SprtRecord {
        let points = unit
            .rows
            .chunks(self.per_deal)
            .map(|deal| {
                deal.iter()
                    .map(|row| {
                        let rec = &row.played.record;
                        // Bot A is lineup entry 0.
                        let seat_a = row.played.bot_at_seat.iter().position(|&b| b == 0);
                        match (rec.winner, seat_a) {
                            (Some(w), Some(a)) if w.index() == a => 2,
                            _ if rec.unfinished => 1,
                            _ => 0,
                        }
                    })
                    .sum()
            })
            .collect();
        SprtRecord {
            tally: unit.tally.clone(),
            points,
        }
    }

    fn check(&self, unit: &Unit, record: &SprtRecord) -> Result<(), String> {
        let like = Tally::new(2, self.per_deal as u64);
        super::run::check_tally(&record.tally, unit, &like)?;
        if record.points.len() as u64 != unit.deals {
            return Err(format!(
                "it scores {} deals where the unit has {}",
                record.points.len(),
                unit.deals
            ));
        }
        Ok(())
    }

    fn fold(&mut self, _: &Unit, record: SprtRecord) -> Flow {
        for p in record.points {
            self.test.add(p);
        }
        self.tally.merge(&record.tally);
        self.path.push((self.tally.games, self.test.llr()));
        match self.test.status() {
            Verdict::Continue => Flow::Continue,
            _ => Flow::Stop,
        }
    }

    fn interim(&self) -> String {
        format!(
            "{} games: {}; LLR {:.3} (bounds {:.3}, {:.3})",
            self.tally.games,
            super::drive::win_rates(&self.tally, &self.names),
            self.test.llr(),
            self.test.lower(),
            self.test.upper()
        )
    }
}

/// What the verdict means, in one sentence: accepting H1 says the difference is unlikely to be
/// at or below elo0 (not that it is at least elo1), accepting H0 that it is unlikely to be at
/// or above elo1.
pub fn verdict_sentence(s: &SprtSummary, a: &str, b: &str) -> String {
    let c = &s.config;
    match s.verdict {
        Verdict::AcceptH1 => format!(
            "H1 accepted: {a}'s Elo advantage over {b} is unlikely to be elo0 = {} or less (a test \
             accepts H1 at most {}% of the time when it is)",
            c.elo0,
            100.0 * c.alpha
        ),
        Verdict::AcceptH0 => format!(
            "H0 accepted: {a}'s Elo advantage over {b} is unlikely to be elo1 = {} or more (a test \
             accepts H0 at most {}% of the time when it is)",
            c.elo1,
            100.0 * c.beta
        ),
        Verdict::Continue => {
            "inconclusive: the game limit came before the LLR reached either bound".to_string()
        }
    }
}

/// The manifest's word for a verdict.
fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::AcceptH0 => "h0",
        Verdict::AcceptH1 => "h1",
        Verdict::Continue => "inconclusive",
    }
}

impl SprtReport {
    /// The text report: the run's tables, then the test.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.run.write_text(w)?;
        let (s, c) = (&self.sprt, &self.sprt.config);
        writeln!(
            w,
            "\nSPRT {} vs {}: elo0={} elo1={} alpha={} beta={}",
            self.bot_a, self.bot_b, c.elo0, c.elo1, c.alpha, c.beta
        )?;
        writeln!(
            w,
            "  LLR {:.3} (bounds {:.3}, {:.3}) after {} games ({} pairs)",
            s.llr, s.lower, s.upper, self.run.tally.games, s.groups
        )?;
        writeln!(
            w,
            "  Elo, LOS and the pair scores: see the head to head above"
        )?;
        if s.verdict != Verdict::Continue {
            writeln!(w, "  {}", crate::analysis::sprt::STOPPED_ESTIMATE_NOTE)?;
        }
        let result = verdict_sentence(s, &self.bot_a, &self.bot_b);
        writeln!(w, "result: {result}")
    }
}
