//! `run --sprt`: bot A against one other bot (two players) or against two or three copies of
//! it (three or four players), stopping as soon as a sequential probability ratio test decides.
//!
//! The unit of the test is the rotation group (a deal played with bot A in every seat). Each
//! game scores bot A 2 points per other seat it finished ahead of and 1 per other seat unranked
//! with it ([`crate::analysis::sprt::field_points`]; for two players 2 per game won and 1 per
//! unfinished game), out of `steps = 2 (n - 1) n` per group. With a luck net the test decides on
//! the luck-adjusted group scores ([`AdjustedSprt`]) and reports the plain test beside it. The
//! test is checked after every unit of deals, in deal order, so where it stops depends only on
//! the spec and the unit size, never on the thread count.

use serde::Serialize;

use crate::analysis::luck::{LuckNet, LuckTally};
use crate::analysis::sprt::{Field, SprtSummary, field_points};
use crate::analysis::sprt_adjusted::{AdjustedSprt, AdjustedSummary};
use crate::analysis::{Sprt, SprtConfig, Verdict};
use crate::export::{Manifest, OutputDir, SprtSection, run_tables};
use crate::runner::{Flow, RunSpec, Unit, UnitResult};
use crate::stats::Tally;

use super::drive::Fold;
use super::kind::{JobKind, JobReport, manifest_error, one_luck_net};
use super::merge::{Shards, Stop, merge};
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
    /// Measure every roll's luck with this net and decide on the luck-adjusted scores.
    pub luck: Option<LuckNet>,
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
    /// The log-likelihood ratio after each check of the test: (games played, LLR); the
    /// adjusted test's with a luck net.
    pub path: Vec<(u64, f64)>,
    /// The luck-adjusted test, which decides (runs with a luck net).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub luck: Option<AdjustedSummary>,
}

impl SprtJob {
    /// Checks that `spec`'s lineup is bot A and one to three copies of another bot B, and
    /// rotates its seats.
    pub fn new(
        mut spec: RunSpec,
        rules_name: String,
        config: SprtConfig,
        chunk_deals: u64,
    ) -> Result<SprtJob, JobError> {
        let l = &spec.lineup;
        if l.len() < 2 || l[1..].iter().any(|b| *b != l[1] || *b == l[0]) {
            return Err(InvalidJob::SprtLineup(names(&spec.lineup).join(",")).into());
        }
        spec.rotate_seats = true;
        spec.validate()?;
        Ok(SprtJob {
            spec,
            rules_name,
            config,
            chunk_deals,
            luck: None,
        })
    }

    /// The same test, decided on luck-adjusted scores measured by `net` (checked against the
    /// rules and players when the job starts).
    pub fn with_luck(mut self, net: Option<LuckNet>) -> SprtJob {
        self.luck = net;
        self
    }

    /// Whom bot A meets: the players, and whether a game ranks only its winner.
    pub fn field(&self) -> Field {
        Field::new(
            self.spec.players(),
            self.spec.rules.end() == aeroplane_core::End::FirstFinisher,
        )
    }

    /// The report's title line.
    pub fn title(&self) -> String {
        format!(
            "aeroplane run --sprt: rules {}, seed {}, seats rotated",
            self.rules_name, self.spec.seed
        )
    }

    pub(crate) fn def(&self) -> JobDef<'_> {
        JobDef {
            manifest: self.manifest(),
            parts: std::slice::from_ref(&self.spec),
            rows_for: &|_| true,
            per_game: false,
            recover: false,
            log: None,
            luck: self.luck.as_slice(),
            pool: None,
        }
    }

    pub(crate) fn new_fold(&self) -> SprtFold {
        let per_deal = self.spec.games_per_deal() as usize;
        let field = self.field();
        SprtFold {
            test: if field.is_head_to_head() {
                Sprt::new(self.config, 2 * per_deal as u32)
            } else {
                Sprt::for_field(self.config, field)
            },
            adjusted: self
                .luck
                .as_ref()
                .map(|_| AdjustedSprt::new(self.config, field)),
            tally: Tally::new(self.spec.players(), self.spec.games_per_deal()),
            per_deal,
            players: self.spec.players(),
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
            luck: fold.adjusted.as_ref().map(AdjustedSprt::summary),
        };
        if let Some(s) = manifest.sprt.as_mut() {
            s.result = Some(verdict_word(report.verdict()).to_string());
        }
        if let Some(dir) = out {
            for table in run_tables(&report.run.tally, &report.run.summary) {
                dir.write_table(&table)?;
            }
            let mut json = serde_json::json!({
                "bot_a": report.bot_a,
                "bot_b": report.bot_b,
                "games": report.run.tally.games,
                "result": report.verdict(),
                "sprt": report.sprt,
            });
            if let (Some(l), Some(net)) = (&report.luck, &self.luck) {
                json["luck"] = serde_json::json!({
                    "net": net.name(),
                    "net_checksum": format!("{:016x}", net.net.checksum()),
                    "sprt": l,
                });
                if !net.ply.is_zero() {
                    json["luck"]["ply"] = net.ply.get().into();
                }
            }
            dir.write_json("sprt.json", &json)?;
            dir.write_json(
                "summary.json",
                &SummaryJson::new("sprt", &report).in_dir(dir),
            )?;
        }
        Ok(report)
    }
}

impl JobKind for SprtJob {
    type Report = SprtReport;

    /// The job's manifest (status running).
    fn manifest(&self) -> Manifest {
        let mut m = Manifest::new(&self.spec, &self.rules_name, false);
        m.luck = self.luck.iter().map(|l| l.name().to_string()).collect();
        m.luck_checksum = self.luck.iter().map(LuckNet::checksum).collect();
        m.luck_ply = self.luck.iter().map(|l| l.ply).max().unwrap_or_default();
        m.sprt = Some(SprtSection {
            test: self.config.to_string(),
            chunk_deals: self.chunk_deals,
            result: None,
        });
        m
    }

    fn from_manifest(m: &Manifest, file: &str) -> Result<SprtJob, JobError> {
        let s = m.sprt.as_ref().ok_or_else(|| {
            manifest_error(file, "an SPRT's manifest needs its `sprt` section".into())
        })?;
        let config: SprtConfig = s
            .test
            .parse()
            .map_err(|e| manifest_error(file, format!("sprt.test: {e}")))?;
        Ok(
            SprtJob::new(m.spec(file)?, m.rules_name.clone(), config, s.chunk_deals)?
                .with_luck(one_luck_net(m, file)?),
        )
    }

    fn parts(&self) -> &[RunSpec] {
        std::slice::from_ref(&self.spec)
    }

    fn parts_mut(&mut self) -> &mut [RunSpec] {
        std::slice::from_mut(&mut self.spec)
    }

    /// Plays until the test decides or the deals run out; with an output directory, writes
    /// run.json (with the outcome), the checkpoint while it runs, the run's tables, sprt.json
    /// and summary.json.
    fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<SprtReport>, JobError> {
        let mut fold = self.new_fold();
        conduct(ctx, self.def(), &mut fold, |f, out, m| {
            self.report(f, out, m)
        })
    }

    fn merge_shards(
        &self,
        out: &mut OutputDir,
        shards: Shards<'_>,
        stop: Stop<'_>,
    ) -> Result<Outcome<SprtReport>, JobError> {
        let mut fold = self.new_fold();
        merge(out, shards, self.def(), stop, &mut fold, |f, o, m| {
            self.report(f, o, m)
        })
    }
}

/// The head-to-head's state: the test and the tally of the units folded so far.
pub(crate) struct SprtFold {
    test: Sprt,
    /// The luck-adjusted test, which decides (runs with a luck net).
    adjusted: Option<AdjustedSprt>,
    tally: Tally,
    per_deal: usize,
    players: usize,
    /// The LLR after each unit: (games, LLR).
    path: Vec<(u64, f64)>,
    /// The lineup's names.
    names: Vec<String>,
}

/// One unit of the head-to-head: its tally, bot A's points in each deal, in deal order, and
/// its luck (runs with a luck net).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct SprtRecord {
    tally: Tally,
    points: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    luck: Option<LuckTally>,
}

impl Fold for SprtFold {
    type Record = SprtRecord;

    fn record(&self, unit: &UnitResult) -> SprtRecord {
        let seats: Vec<usize> = aeroplane_core::Seat::in_play(self.players)
            .iter()
            .map(|s| s.index())
            .collect();
        let points = unit
            .rows
            .chunks(self.per_deal)
            .map(|deal| {
                deal.iter()
                    .map(|row| {
                        // Bot A is lineup entry 0.
                        let p = &row.played;
                        p.bot_at_seat
                            .iter()
                            .position(|&b| b == 0)
                            .map_or(0, |a| field_points(&p.record.ranks, &seats, a))
                    })
                    .sum()
            })
            .collect();
        SprtRecord {
            tally: unit.tally.clone(),
            points,
            luck: unit.luck.clone(),
        }
    }

    fn check(&self, unit: &Unit, record: &SprtRecord) -> Result<(), String> {
        let like = Tally::new(self.players, self.per_deal as u64);
        super::run::check_tally(&record.tally, unit, &like)?;
        if record.points.len() as u64 != unit.deals {
            return Err(format!(
                "it scores {} deals where the unit has {}",
                record.points.len(),
                unit.deals
            ));
        }
        let steps = self.test.steps() as usize / self.per_deal;
        if let Some(p) = record
            .points
            .iter()
            .find(|&&p| p as usize > steps * self.per_deal)
        {
            return Err(format!(
                "it scores a deal {p} points, above the most, {}",
                self.test.steps()
            ));
        }
        match (&self.adjusted, &record.luck) {
            (Some(_), None) => Err("it has no luck figures, and the test measures luck".into()),
            (None, Some(_)) => Err("it has luck figures, and the test measures none".into()),
            (Some(_), Some(l)) if l.deals != unit.deals => Err(format!(
                "its luck counts {} deals where the unit has {}",
                l.deals, unit.deals
            )),
            _ => Ok(()),
        }
    }

    fn fold(&mut self, _: &Unit, record: SprtRecord) -> Flow {
        for p in record.points {
            self.test.add(p);
        }
        self.tally.merge(&record.tally);
        if let (Some(a), Some(l)) = (self.adjusted.as_mut(), record.luck.as_ref()) {
            a.add_moments(&l.score[0], l.deals, self.per_deal as u64);
        }
        let (llr, verdict) = match &self.adjusted {
            Some(a) => (a.llr(), a.status()),
            None => (self.test.llr(), self.test.status()),
        };
        self.path.push((self.tally.games, llr));
        match verdict {
            Verdict::Continue => Flow::Continue,
            _ => Flow::Stop,
        }
    }

    fn interim(&self) -> String {
        let adjusted = self
            .adjusted
            .as_ref()
            .map_or(String::new(), |a| format!("; adjusted LLR {:.3}", a.llr()));
        format!(
            "{} games: {}; LLR {:.3}{adjusted} (bounds {:.3}, {:.3})",
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
    /// The deciding verdict: the luck-adjusted test's with a luck net, else the plain one's.
    pub fn verdict(&self) -> Verdict {
        self.luck.as_ref().map_or(self.sprt.verdict, |l| l.verdict)
    }

    /// The text report: the run's tables, then the test.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.run.write_text(w)?;
        let (s, c) = (&self.sprt, &self.sprt.config);
        let field = s.field;
        let opponent = if field.is_head_to_head() {
            self.bot_b.clone()
        } else {
            format!("{} x {}", field.players - 1, self.bot_b)
        };
        writeln!(
            w,
            "\nSPRT {} vs {opponent}: elo0={} elo1={} alpha={} beta={}",
            self.bot_a, c.elo0, c.elo1, c.alpha, c.beta
        )?;
        let unit = if field.is_head_to_head() {
            "pairs"
        } else {
            "deal groups"
        };
        writeln!(
            w,
            "  LLR {:.3} (bounds {:.3}, {:.3}) after {} games ({} {unit})",
            s.llr, s.lower, s.upper, self.run.tally.games, s.groups
        )?;
        if field.is_head_to_head() {
            writeln!(
                w,
                "  Elo, LOS and the pair scores: see the head to head above"
            )?;
        } else {
            writeln!(
                w,
                "  score {:.4} (an equal field: 0.5), Elo {} [{}, {}] against an equal field \
                 (Plackett-Luce{}), LOS {:.4}",
                s.score,
                crate::analysis::elo::format_elo(s.elo.elo),
                crate::analysis::elo::format_elo(s.elo.low),
                crate::analysis::elo::format_elo(s.elo.high),
                if field.winner_only {
                    ", winners only"
                } else {
                    ""
                },
                s.los
            )?;
        }
        if let Some(l) = &self.luck {
            writeln!(
                w,
                "  luck-adjusted (decides): LLR {:.3} after {} groups; score {:.4} (plain {:.4}, \
                 luck {:+.4}), Elo {} [{}, {}], variance ratio {}",
                l.llr,
                l.groups,
                l.score,
                l.plain_score,
                l.luck,
                crate::analysis::elo::format_elo(l.elo.elo),
                crate::analysis::elo::format_elo(l.elo.low),
                crate::analysis::elo::format_elo(l.elo.high),
                l.variance_ratio
                    .map_or("-".to_string(), |r| format!("{r:.2}"))
            )?;
        }
        let verdict = self.verdict();
        if verdict != Verdict::Continue {
            writeln!(w, "  {}", crate::analysis::sprt::STOPPED_ESTIMATE_NOTE)?;
        }
        let decided = SprtSummary {
            verdict,
            ..s.clone()
        };
        let result = verdict_sentence(&decided, &self.bot_a, &opponent);
        writeln!(w, "result: {result}")
    }
}

impl JobReport for SprtReport {
    const COMMAND: &'static str = "sprt";

    fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        SprtReport::write_text(self, w)
    }
}
