//! `tune`: SPSA over a bot's parameters, on paired, seat-rotated games, confirmed by an SPRT.
//!
//! A tune is sequential: iteration `k` plays the two points the optimiser chose after
//! iteration `k - 1`, so its plan unfolds as it goes rather than being cut in advance. Each
//! iteration plays `M` deals in every seating of the [`Design`] (deals `k M .. (k + 1) M` of
//! the tune's seed, so every deal is fresh and replayable), folds the result into the
//! optimiser ([`crate::analysis::spsa`], which also gives the formulas), and appends one record
//! to the checkpoint. Then the confirmation: the tuned profile (values rounded as `tuned.toml`
//! writes them) against the start, on deals from `K M` on, checked every `chunk_deals` deals
//! until the SPRT decides or `max_pairs` deals are played; one record per check.
//!
//! The iteration's perturbation comes from `stream(seed, k, SPSA_STREAM)` and its dice from
//! `SeededDice(seed, deal)`, so the tune depends only on its spec: any thread count, and an
//! interrupted and resumed tune (which folds the checkpoint's records again, then goes on),
//! write the same files byte for byte.
//!
//! Outputs: `history.csv` (one row per iteration), `tuned.toml` (a profile for `--bots-dir`),
//! `sprt.json` (the confirmation), `summary.json` (the report) and `run.json`.

mod design;
mod files;
mod space;
mod state;

pub use design::{Design, Outcome as DealsOutcome, Role};
pub use files::history_header;
pub use space::{ParamRange, bot_at, decimals, dimensions, rounded};

use std::sync::atomic::Ordering;

use serde::Serialize;

use crate::analysis::sprt::SprtSummary;
use crate::analysis::spsa::{Dimension, MAX_DEALS, Spsa, SpsaError, SpsaSettings};
use crate::analysis::{SprtConfig, Verdict};
use crate::bots::registry::{BotError, BotSpec};
use crate::export::{
    CHECKPOINT_FILE, Checkpoint, ConfirmSection, JobStatus, MANIFEST_FILE, Manifest, OutputDir,
    TuneParamSection, TuneSection,
};
use crate::runner::{self, Flow, RunError, RunSpec, Unit};
use aeroplane_core::Rules;

use super::drive::UnitLine;
use super::run::SummaryJson;
use super::{Context, JobEnd, JobError, Outcome, chain};
use state::{ConfirmState, TuneRecord, TuneState};

/// Deals per unit of work within an iteration (never changes the results), and per check of
/// the confirming test unless told otherwise.
pub const TUNE_CHUNK_DEALS: u64 = 16;
/// The confirming test unless told otherwise.
pub const DEFAULT_CONFIRM_TEST: &str = "elo0=0,elo1=5,alpha=0.05,beta=0.05";
/// The most deals of the confirming test unless told otherwise.
pub const DEFAULT_CONFIRM_PAIRS: u64 = 100_000;
/// The most deals of a confirmation.
pub const MAX_CONFIRM_PAIRS: u64 = 1_000_000_000;
/// Iterations the "recent" figures of progress lines and reports cover.
pub const RECENT: usize = 20;

/// How iteration k is seeded, written into the manifest.
const SEEDING: &str = "iteration k plays deals k*M .. (k+1)*M of the seed (M = pairs_per_iteration; dice SeededDice(seed, deal), bot seeds bot_stream(seed, deal, seat)) in every seating of the design; its signs and integer roundings come from stream(seed, k, 0x53505341); the confirmation plays deals from iterations*M on";

/// Why a tune cannot run.
#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A range that is not `NAME=LO..HI`.
    #[error("bad parameter range `{0}`: write NAME=LO..HI, e.g. progress=0.5..3")]
    RangeSyntax(String),
    /// An end of a range that is not a number.
    #[error(
        "parameter `{param}`: `{text}` is not a number (write NAME=LO..HI, e.g. progress=0.5..3)"
    )]
    NotANumber {
        /// The parameter.
        param: String,
        /// The text given.
        text: String,
    },
    /// An end of a range that is infinite or NaN.
    #[error("parameter `{param}`: `{text}` is not a finite number: a range must have finite ends")]
    NotFinite {
        /// The parameter.
        param: String,
        /// The text given.
        text: String,
    },
    /// A parameter the bot's kind does not have.
    #[error(
        "bot `{bot}` (kind {kind}) has no parameter `{param}`{}",
        unknown_tail(param, kind, known, elsewhere)
    )]
    UnknownParam {
        /// The bot.
        bot: String,
        /// Its kind.
        kind: String,
        /// The parameter given.
        param: String,
        /// The kind's parameters.
        known: String,
        /// Other kinds that have a parameter of that name.
        elsewhere: String,
    },
    /// A parameter that takes words.
    #[error(
        "parameter `{param}` of {kind} takes words ({allowed}): only numeric parameters can be tuned"
    )]
    WordParam {
        /// The kind.
        kind: String,
        /// The parameter.
        param: String,
        /// Its words.
        allowed: String,
    },
    /// A range beyond what the kind allows.
    #[error("parameter `{param}`: the range {range} goes beyond what {kind} allows ({allowed})")]
    BeyondKind {
        /// The kind.
        kind: String,
        /// The parameter.
        param: String,
        /// The range given.
        range: String,
        /// What the kind allows.
        allowed: String,
    },
    /// The bot's starting value is outside the range.
    #[error(
        "parameter `{param}`: the bot's {param} is {value}, outside the range {range}: widen the range, or give the bot a starting value inside it (inline, e.g. `{bot}:{param}=...`)"
    )]
    StartOutside {
        /// The bot.
        bot: String,
        /// The parameter.
        param: String,
        /// The bot's value.
        value: f64,
        /// The range.
        range: String,
    },
    /// A bot that cannot be tuned.
    #[error("bot `{bot}` cannot be tuned: {why}")]
    NotTunable {
        /// The bot.
        bot: String,
        /// Why.
        why: String,
    },
    /// A player count out of range.
    #[error("a tune plays games of 2, 3 or 4 players, not {0}")]
    Players(usize),
    /// The deals would not fit in 64-bit indices.
    #[error(
        "iterations x pairs per iteration plus the confirmation's pairs is too large: deal indices must fit in 64 bits"
    )]
    TooManyDeals,
    /// A confirmation setting out of range.
    #[error("the confirmation's {0} must be from 1 to {1}")]
    Confirm(&'static str, &'static str),
    /// A confirmation of a tune that does not move.
    #[error(
        "with step 0 the point never moves (the tune estimates the gradient at the start): there is nothing to confirm"
    )]
    NothingToConfirm,
    /// Tuned values that do not fit the parameters (a confirmation of an earlier tune).
    #[error("the tuned values to confirm do not fit the parameters: {0}")]
    Given(String),
    /// A range or setting of the optimiser.
    #[error(transparent)]
    Spsa(#[from] SpsaError),
    /// A bot at a tuned point.
    #[error(transparent)]
    Bot(#[from] BotError),
}

/// The end of an unknown-parameter message: where the name does belong, or a close name, then
/// the kind's parameters.
fn unknown_tail(param: &str, kind: &str, known: &str, elsewhere: &str) -> String {
    if !elsewhere.is_empty() {
        return format!(
            ": `{param}` is a parameter of {elsewhere}, not of {kind}; {kind}'s parameters are {known}"
        );
    }
    aeroplane_core::suggest::tail(
        param,
        known.split(", "),
        &format!("its parameters are {known}"),
    )
}

/// The confirming SPRT of a tune.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Confirm {
    /// The test.
    pub test: SprtConfig,
    /// The most deals to play.
    pub max_pairs: u64,
    /// Deals per check of the test.
    pub chunk_deals: u64,
}

/// What a tune is, as given.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneSpec {
    /// The rule variant.
    pub rules: Rules,
    /// The rules as named.
    pub rules_name: String,
    /// The bot tuned, at its starting values.
    pub bot: BotSpec,
    /// A fixed opponent in the other seats (else self-play).
    pub opponent: Option<BotSpec>,
    /// Players per game.
    pub players: usize,
    /// The parameters and their ranges.
    pub ranges: Vec<ParamRange>,
    /// The optimiser's settings (iterations, deals per iteration, schedules).
    pub settings: SpsaSettings,
    /// The master seed.
    pub seed: u64,
    /// The confirming test, if any.
    pub confirm: Option<Confirm>,
    /// Confirm these tuned values (of an earlier tune) instead of tuning.
    pub given: Option<Vec<f64>>,
}

/// A checked tune.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneJob {
    spec: TuneSpec,
    dims: Vec<Dimension>,
    start: Vec<f64>,
    design: Design,
}

/// One tuned parameter in the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TunedParam {
    /// The parameter.
    pub name: String,
    /// The range.
    pub lo: f64,
    /// The range.
    pub hi: f64,
    /// Whether it takes integers.
    pub integer: bool,
    /// The bot's starting value.
    pub start: f64,
    /// The optimiser's final point.
    pub theta: f64,
    /// The tuned value (as `tuned.toml` has it).
    pub tuned: f64,
    /// The perturbation constant `c_i`.
    pub c: f64,
    /// The gain constant `a_i`.
    pub a: f64,
    /// The mean gradient estimate over the iterations.
    pub gradient_mean: f64,
    /// Its standard error over iterations.
    pub gradient_se: f64,
}

/// The confirming test's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConfirmReport {
    /// The tuned bot's name.
    pub tuned: String,
    /// The starting bot's name.
    pub start: String,
    /// Its first deal.
    pub first_deal: u64,
    /// Deals played.
    pub deals: u64,
    /// Games played.
    pub games: u64,
    /// The test at its stop.
    pub sprt: SprtSummary,
    /// The LLR after each check: (games, LLR).
    pub path: Vec<(u64, f64)>,
}

/// What a tune found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TuneReport {
    /// The first line: what was tuned.
    pub title: String,
    /// The bot tuned.
    pub bot: String,
    /// Its kind.
    pub kind: String,
    /// The opponent, if any.
    pub opponent: Option<String>,
    /// Players per game.
    pub players: usize,
    /// Iterations played (0 for a confirmation of an earlier tune).
    pub iterations: u64,
    /// Deals per iteration.
    pub pairs_per_iteration: u64,
    /// Games of the iterations.
    pub games: u64,
    /// The optimiser's settings.
    pub settings: SpsaSettings,
    /// Who sits where.
    pub design: String,
    /// The parameters.
    pub params: Vec<TunedParam>,
    /// The last iterations' mean result and its standard error: (iterations, mean, se).
    pub recent: Option<(usize, f64, f64)>,
    /// The confirmation.
    pub confirm: Option<ConfirmReport>,
    /// The tuned profile (`tuned.toml`).
    pub profile: String,
}

impl TuneJob {
    /// Checks a tune: players, parameters against the bot's kind, ranges, settings, the
    /// confirmation, and that its deal indices fit.
    pub fn new(spec: TuneSpec) -> Result<TuneJob, TuneError> {
        if !(2..=4).contains(&spec.players) {
            return Err(TuneError::Players(spec.players));
        }
        spec.settings.check()?;
        let (dims, start) = dimensions(&spec.bot, &spec.ranges)?;
        // Builds the start to check it (and any opponent) the way the runner will.
        let _ = Spsa::new(dims.clone(), start.clone(), spec.settings)?;
        let confirm_pairs = match spec.confirm {
            Some(c) if c.max_pairs == 0 || c.max_pairs > MAX_CONFIRM_PAIRS => {
                return Err(TuneError::Confirm("most pairs", "1,000,000,000"));
            }
            Some(c) if c.chunk_deals == 0 || c.chunk_deals > MAX_DEALS => {
                return Err(TuneError::Confirm("chunk size", "1,000,000 deals"));
            }
            Some(c) => c.max_pairs,
            None => 0,
        };
        if spec.settings.step == 0.0 && spec.confirm.is_some() && spec.given.is_none() {
            return Err(TuneError::NothingToConfirm);
        }
        let design = Design::new(spec.players, spec.opponent.is_some());
        spec.settings
            .iterations
            .checked_mul(spec.settings.deals)
            .and_then(|d| d.checked_add(confirm_pairs))
            .and_then(|d| d.checked_mul(design.games_per_deal()))
            .ok_or(TuneError::TooManyDeals)?;
        if let Some(given) = &spec.given {
            if given.len() != dims.len() {
                return Err(TuneError::Given(format!(
                    "{} values for {} parameters",
                    given.len(),
                    dims.len()
                )));
            }
            for (d, &x) in dims.iter().zip(given) {
                if !(x.is_finite() && x >= d.lo && x <= d.hi) {
                    return Err(TuneError::Given(format!(
                        "{} = {x} is outside {}..{}",
                        d.name, d.lo, d.hi
                    )));
                }
            }
            if spec.confirm.is_none() {
                return Err(TuneError::Given(
                    "a confirmation of an earlier tune needs its test".into(),
                ));
            }
        }
        Ok(TuneJob {
            spec,
            dims,
            start,
            design,
        })
    }

    /// The spec.
    pub fn spec(&self) -> &TuneSpec {
        &self.spec
    }

    /// The tuned dimensions.
    pub fn dimensions(&self) -> &[Dimension] {
        &self.dims
    }

    /// The starting point (the bot's values).
    pub fn start(&self) -> &[f64] {
        &self.start
    }

    /// The design of its games.
    pub fn design(&self) -> &Design {
        &self.design
    }

    /// Iterations to play (none when confirming given values).
    fn iterations(&self) -> u64 {
        match self.spec.given {
            Some(_) => 0,
            None => self.spec.settings.iterations,
        }
    }

    /// Games the tune plans: every iteration, and the confirmation's most.
    pub fn planned_games(&self) -> u64 {
        let g = self.design.games_per_deal();
        let confirm = self.spec.confirm.map_or(0, |c| c.max_pairs);
        (self.iterations() * self.spec.settings.deals + confirm) * g
    }

    /// The report's first line.
    pub fn title(&self) -> String {
        format!(
            "aeroplane tune: {}, rules {}, {} players, {}, seed {}",
            self.spec.bot.name,
            self.spec.rules_name,
            self.spec.players,
            match &self.spec.opponent {
                Some(o) => format!("against {}", o.name),
                None => "self-play".to_string(),
            },
            self.spec.seed
        )
    }

    /// The job's manifest (status running).
    pub fn manifest(&self) -> Manifest {
        let s = &self.spec;
        let mut lineup = vec![s.bot.clone()];
        lineup.extend(s.opponent.clone());
        let run = RunSpec {
            rules: s.rules,
            lineup,
            seed: s.seed,
            first_deal: 0,
            deals: s.settings.deals,
            rotate_seats: false,
        };
        let mut m = Manifest::new(&run, &s.rules_name, false);
        m.command = "tune".into();
        m.numbering = SEEDING.into();
        m.players = s.players;
        m.games_planned = self.planned_games();
        m.tune = Some(TuneSection {
            params: s
                .ranges
                .iter()
                .map(|r| TuneParamSection {
                    name: r.name.clone(),
                    lo: r.lo,
                    hi: r.hi,
                })
                .collect(),
            iterations: s.settings.iterations,
            pairs_per_iteration: s.settings.deals,
            alpha: s.settings.alpha,
            gamma: s.settings.gamma,
            stability: s.settings.stability,
            perturbation: s.settings.perturbation,
            step: s.settings.step,
            opponent: s.opponent.is_some(),
            design: self.design.describe(),
            confirm: s.confirm.map(|c| ConfirmSection {
                test: c.test.to_string(),
                max_pairs: c.max_pairs,
                chunk_deals: c.chunk_deals,
                result: None,
            }),
            given: s.given.clone(),
        });
        m
    }

    /// The tune a manifest describes, with rules and bots checked again.
    pub fn from_manifest(m: &Manifest, file: &str) -> Result<TuneJob, JobError> {
        let invalid = |what: String| JobError::Invalid(format!("{file}: {what}"));
        let t = m
            .tune
            .as_ref()
            .ok_or_else(|| invalid("a tune's manifest needs its `tune` section".into()))?;
        let mut bots = m.bot_specs(file)?;
        if bots.len() != 1 + usize::from(t.opponent) {
            return Err(invalid(format!(
                "{} bots listed for a tune {} an opponent",
                bots.len(),
                if t.opponent { "with" } else { "without" }
            )));
        }
        let opponent = t.opponent.then(|| bots.remove(1));
        let confirm = match &t.confirm {
            Some(c) => Some(Confirm {
                test: c
                    .test
                    .parse()
                    .map_err(|e| invalid(format!("tune.confirm.test: {e}")))?,
                max_pairs: c.max_pairs,
                chunk_deals: c.chunk_deals,
            }),
            None => None,
        };
        let spec = TuneSpec {
            rules: m.rules(file)?,
            rules_name: m.rules_name.clone(),
            bot: bots.remove(0),
            opponent,
            players: m.players,
            ranges: t
                .params
                .iter()
                .map(|p| ParamRange {
                    name: p.name.clone(),
                    lo: p.lo,
                    hi: p.hi,
                })
                .collect(),
            settings: SpsaSettings {
                iterations: t.iterations,
                deals: t.pairs_per_iteration,
                alpha: t.alpha,
                gamma: t.gamma,
                stability: t.stability,
                perturbation: t.perturbation,
                step: t.step,
            },
            seed: m.seed,
            confirm,
            given: t.given.clone(),
        };
        TuneJob::new(spec).map_err(|e| invalid(e.to_string()))
    }

    /// A fresh state at the start.
    fn new_state(&self) -> TuneState {
        TuneState {
            spsa: Spsa::new(self.dims.clone(), self.start.clone(), self.spec.settings)
                .expect("checked in TuneJob::new"),
            seed: self.spec.seed,
            scale: self.design.scale(),
            history: Vec::new(),
            confirm: self
                .spec
                .confirm
                .map(|c| ConfirmState::new(c.test, &self.design)),
        }
    }

    /// The tuned values: the given ones, or the optimiser's, rounded as the profile writes
    /// them.
    fn tuned_values(&self, state: &TuneState) -> Vec<f64> {
        let raw = match &self.spec.given {
            Some(g) => g.clone(),
            None => state.spsa.tuned(),
        };
        self.dims
            .iter()
            .zip(raw)
            .map(|(d, x)| rounded(d, x))
            .collect()
    }

    /// The bot at the tuned values.
    fn tuned_bot(&self, values: &[f64]) -> Result<BotSpec, TuneError> {
        bot_at(&self.spec.bot, "tuned", &self.dims, values)
    }

    /// The first deal of the confirmation.
    fn confirm_first_deal(&self) -> u64 {
        self.spec.settings.iterations * self.spec.settings.deals
    }

    /// Runs the tune (fresh, or resumed from the checkpoint in `ctx.out`); with an output
    /// directory, writes run.json, the checkpoint while it runs, then history.csv, tuned.toml,
    /// sprt.json and summary.json.
    pub fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<TuneReport>, JobError> {
        if ctx.shard.is_some() {
            return Err(JobError::Invalid(
                "a tune cannot be split into shards: each iteration depends on the one before"
                    .into(),
            ));
        }
        let mut manifest = self.manifest();
        manifest.unit_deals = ctx.exec.chunk_deals;
        let mut state = self.new_state();
        let mut notes = Vec::new();
        let (mut checkpoint, done) = match ctx.out {
            None if ctx.resume => {
                return Err(JobError::Invalid(
                    "a resume needs the job's output directory".into(),
                ));
            }
            None => (None, Vec::new()),
            Some(dir) if ctx.resume => {
                let (c, loaded) = Checkpoint::open::<serde_json::Value, UnitLine<TuneRecord>>(
                    &dir.file(CHECKPOINT_FILE),
                )?;
                let differ = Manifest::differences(&loaded.header, &manifest.identity());
                if !differ.is_empty() {
                    return Err(JobError::Invalid(format!(
                        "the checkpoint in {} belongs to another job: {} differ from run.json (was run.json edited?); start again with --force",
                        dir.path().display(),
                        differ.join(", ")
                    )));
                }
                if loaded.dropped_partial {
                    notes.push(format!(
                        "the checkpoint's last record was cut short (the job was killed while writing it): its unit is played again ({} units kept)",
                        loaded.records.len()
                    ));
                }
                dir.write_json(MANIFEST_FILE, &manifest)?;
                (Some(c), loaded.records)
            }
            Some(dir) => {
                dir.write_json(MANIFEST_FILE, &manifest)?;
                let c = Checkpoint::create(&dir.file(CHECKPOINT_FILE), &manifest.identity())?;
                (Some(c), Vec::new())
            }
        };
        let write_manifest = |m: &Manifest| match ctx.out {
            Some(dir) => dir.write_json(MANIFEST_FILE, m),
            None => Ok(()),
        };
        let planned = self.planned_games();
        let played =
            |s: &TuneState| s.tune_games() + s.confirm.as_ref().map_or(0, |c| c.outcome.games);
        let driven = self.drive(ctx, &mut state, checkpoint.as_mut(), done);
        if let Some(c) = checkpoint.as_mut() {
            if let Err(e) = c.sync() {
                manifest.finish(JobStatus::Failed, played(&state), Some(chain(&e)));
                let _ = write_manifest(&manifest);
                return Err(e.into());
            }
        }
        let ended = match driven {
            Ok(e) => e,
            Err(e) => {
                manifest.finish(JobStatus::Failed, played(&state), Some(chain(&e)));
                let _ = write_manifest(&manifest);
                return Err(e);
            }
        };
        let outcome = |ended, state: &TuneState| Outcome {
            ended,
            played: played(state),
            planned,
            notes: notes.clone(),
        };
        if !ended {
            manifest.finish(JobStatus::Interrupted, played(&state), None);
            write_manifest(&manifest)?;
            return Ok(outcome(JobEnd::Interrupted, &state));
        }
        let result = (|| {
            let report = self.report(&state)?;
            if let (Some(t), Some(c)) = (manifest.tune.as_mut(), &report.confirm) {
                if let Some(section) = t.confirm.as_mut() {
                    section.result = Some(verdict_word(c.sprt.verdict).to_string());
                }
            }
            if let Some(dir) = ctx.out {
                self.write_files(dir, &state, &report)?;
                dir.remove(CHECKPOINT_FILE)?;
            }
            Ok::<_, JobError>(report)
        })();
        match result {
            Ok(report) => {
                manifest.finish(JobStatus::Complete, played(&state), None);
                write_manifest(&manifest)?;
                Ok(outcome(JobEnd::Finished(report), &state))
            }
            Err(e) => {
                manifest.finish(JobStatus::Failed, played(&state), Some(chain(&e)));
                let _ = write_manifest(&manifest);
                Err(e)
            }
        }
    }

    /// Folds the done records, then plays the rest; `false` if an interrupt stopped it.
    fn drive(
        &self,
        ctx: &Context<'_>,
        state: &mut TuneState,
        mut checkpoint: Option<&mut Checkpoint>,
        done: Vec<UnitLine<TuneRecord>>,
    ) -> Result<bool, JobError> {
        let iterations = self.iterations();
        let mut unit = 0usize;
        for line in done {
            if line.unit != unit {
                return Err(JobError::Invalid(format!(
                    "the checkpoint holds unit {} where unit {unit} was next: it does not belong to this job",
                    line.unit
                )));
            }
            match line.record {
                TuneRecord::Iteration(o) if (unit as u64) < iterations => {
                    ctx.progress.fetch_add(o.games, Ordering::Relaxed);
                    state.fold_iteration(o);
                }
                TuneRecord::Confirm { outcome, points }
                    if unit as u64 >= iterations && state.confirm.is_some() =>
                {
                    ctx.progress.fetch_add(outcome.games, Ordering::Relaxed);
                    let c = state.confirm.as_mut().expect("a confirmation");
                    if c.fold(&outcome, &points) {
                        return Ok(true);
                    }
                }
                _ => {
                    return Err(JobError::Invalid(format!(
                        "the checkpoint's unit {unit} is not what this tune plays there: it does not belong to this job"
                    )));
                }
            }
            unit += 1;
        }
        let interrupted = || ctx.interrupt.is_some_and(|i| i.load(Ordering::Relaxed));
        let mut folded_here = 0usize;
        while (state.history.len() as u64) < iterations {
            if interrupted() {
                return Ok(false);
            }
            let Some(outcome) = self.play_iteration(ctx, state)? else {
                return Ok(false);
            };
            let line = UnitLine {
                unit,
                games_csv_end: None,
                record: TuneRecord::Iteration(outcome.clone()),
            };
            if let Some(c) = checkpoint.as_deref_mut() {
                c.append(&line)?;
                c.sync()?;
            }
            state.fold_iteration(outcome);
            unit += 1;
            folded_here += 1;
            if let Some(f) = ctx.unit_done {
                f(folded_here);
            }
            if let Some(f) = ctx.interim {
                f(&|| self.interim(state));
            }
        }
        if state.confirm.is_none() || interrupted() {
            return Ok(!interrupted());
        }
        self.play_confirmation(ctx, state, checkpoint, unit, folded_here)
    }

    /// Plays the next iteration; `None` if an interrupt stopped it (its games are dropped).
    fn play_iteration(
        &self,
        ctx: &Context<'_>,
        state: &TuneState,
    ) -> Result<Option<DealsOutcome>, JobError> {
        let k = state.spsa.iteration();
        let probe = state.spsa.probe(self.spec.seed);
        let base = &self.spec.bot.name;
        let plus = bot_at(
            &self.spec.bot,
            &format!("{base} theta+ of iteration {k}"),
            &self.dims,
            &probe.plus,
        )?;
        let minus = bot_at(
            &self.spec.bot,
            &format!("{base} theta- of iteration {k}"),
            &self.dims,
            &probe.minus,
        )?;
        let m = self.spec.settings.deals;
        let first = k * m;
        let parts = self.design.parts(
            self.spec.rules,
            self.spec.seed,
            first..first + m,
            [&plus, &minus],
            self.spec.opponent.as_ref(),
        );
        let units = block_units(parts.len(), first..first + m, ctx.exec.chunk_deals);
        let mut diffs = vec![0i64; m as usize];
        let mut outcome = DealsOutcome::default();
        let played = runner::execute_until(
            &parts,
            &units,
            ctx.exec,
            &|_| true,
            &mut |result| {
                for row in &result.rows {
                    let (p, q) = self.design.points(result.unit.part, row);
                    diffs[(row.deal - first) as usize] += p - q;
                    outcome.count_game(&self.design, result.unit.part, row);
                }
                Ok(Flow::Continue)
            },
            ctx.progress,
            ctx.interrupt,
        );
        match played {
            Ok(()) => {}
            Err(RunError::Interrupted) => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        for d in diffs {
            outcome.add_deal(d);
        }
        Ok(Some(outcome))
    }

    /// Plays the confirmation from where `state` stands; `false` if an interrupt stopped it.
    fn play_confirmation(
        &self,
        ctx: &Context<'_>,
        state: &mut TuneState,
        mut checkpoint: Option<&mut Checkpoint>,
        mut unit: usize,
        mut folded_here: usize,
    ) -> Result<bool, JobError> {
        let confirm = self.spec.confirm.expect("a confirmation");
        let c = state.confirm.as_ref().expect("a confirmation");
        if c.decided() {
            return Ok(true);
        }
        let values = self.tuned_values(state);
        let tuned = self.tuned_bot(&values)?;
        let first = self.confirm_first_deal();
        let chunk = confirm.chunk_deals;
        let done_deals = (c.chunks * chunk).min(confirm.max_pairs);
        if done_deals >= confirm.max_pairs {
            return Ok(true);
        }
        let parts = self.design.parts(
            self.spec.rules,
            self.spec.seed,
            first..first + confirm.max_pairs,
            [&tuned, &self.spec.bot],
            self.spec.opponent.as_ref(),
        );
        let seatings = parts.len();
        let units = block_units(
            seatings,
            first + done_deals..first + confirm.max_pairs,
            chunk,
        );
        let interrupted = || ctx.interrupt.is_some_and(|i| i.load(Ordering::Relaxed));
        let mut stopped_by_interrupt = false;
        let mut diffs: Vec<i64> = Vec::new();
        let mut outcome = DealsOutcome::default();
        let mut in_chunk = 0usize;
        let played = runner::execute_until(
            &parts,
            &units,
            ctx.exec,
            &|_| true,
            &mut |result| {
                let u = result.unit;
                if in_chunk == 0 {
                    diffs = vec![0; u.deals as usize];
                    outcome = DealsOutcome::default();
                }
                for row in &result.rows {
                    let (p, q) = self.design.points(u.part, row);
                    diffs[(row.deal - u.first_deal) as usize] += p - q;
                    outcome.count_game(&self.design, u.part, row);
                }
                in_chunk += 1;
                if in_chunk < seatings {
                    return Ok(Flow::Continue);
                }
                in_chunk = 0;
                for &d in &diffs {
                    outcome.add_deal(d);
                }
                let points: Vec<u32> = diffs.iter().map(|&d| self.design.sprt_points(d)).collect();
                let line = UnitLine {
                    unit,
                    games_csv_end: None,
                    record: TuneRecord::Confirm {
                        outcome: outcome.clone(),
                        points: points.clone(),
                    },
                };
                if let Some(c) = checkpoint.as_deref_mut() {
                    c.append(&line)
                        .map_err(|e| RunError::Consumer(Box::new(e)))?;
                }
                unit += 1;
                let decided = state
                    .confirm
                    .as_mut()
                    .expect("a confirmation")
                    .fold(&outcome, &points);
                folded_here += 1;
                if let Some(f) = ctx.unit_done {
                    f(folded_here);
                }
                if let Some(f) = ctx.interim {
                    f(&|| self.interim(state));
                }
                if decided {
                    return Ok(Flow::Stop);
                }
                if interrupted() {
                    stopped_by_interrupt = true;
                    return Ok(Flow::Stop);
                }
                Ok(Flow::Continue)
            },
            ctx.progress,
            ctx.interrupt,
        );
        match played {
            Ok(()) => Ok(!stopped_by_interrupt),
            Err(RunError::Interrupted) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// A one-line summary of the tune so far: the current values and the recent results, or
    /// in the confirmation the test so far.
    fn interim(&self, state: &TuneState) -> String {
        let values = |xs: &[f64]| -> String {
            self.dims
                .iter()
                .zip(xs)
                .map(|(d, &x)| format!("{} {x:.*}", d.name, decimals(d)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if let Some(c) = state.confirm.as_ref().filter(|c| c.chunks > 0) {
            return format!(
                "confirmation of {}: {} games, LLR {:.3} (bounds {:.3}, {:.3})",
                values(&self.tuned_values(state)),
                c.outcome.games,
                c.test.llr(),
                c.test.lower(),
                c.test.upper()
            );
        }
        let mut line = format!(
            "iteration {} of {}: {}",
            state.history.len(),
            self.iterations(),
            values(state.spsa.theta())
        );
        if let Some((n, mean, se)) = state.recent(RECENT) {
            let rows = &state.history[state.history.len() - n..];
            let (first, last) = (&rows[0].step.before, &rows[n - 1].step.after);
            let moved = self
                .dims
                .iter()
                .zip(first.iter().zip(last))
                .map(|(d, (a, b))| (b - a).abs() / d.width())
                .fold(0.0, f64::max);
            line.push_str(&format!(
                "; last {n} iterations: theta+ against theta- {mean:+.4} ± {se:.4} per game, moved up to {:.1}% of a range",
                100.0 * moved
            ));
        }
        line
    }

    /// The report of a finished tune.
    fn report(&self, state: &TuneState) -> Result<TuneReport, JobError> {
        let values = self.tuned_values(state);
        let tuned = self.tuned_bot(&values)?;
        let gradient = state.gradient();
        let theta = match &self.spec.given {
            Some(g) => g.clone(),
            None => state.spsa.theta().to_vec(),
        };
        let params = self
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| TunedParam {
                name: d.name.clone(),
                lo: d.lo,
                hi: d.hi,
                integer: d.integer,
                start: self.start[i],
                theta: theta[i],
                tuned: values[i],
                c: state.spsa.c()[i],
                a: state.spsa.a()[i],
                gradient_mean: gradient[i].0,
                gradient_se: gradient[i].1,
            })
            .collect();
        let confirm = state.confirm.as_ref().map(|c| ConfirmReport {
            tuned: tuned.name.clone(),
            start: self.spec.bot.name.clone(),
            first_deal: self.confirm_first_deal(),
            deals: c.outcome.deals,
            games: c.outcome.games,
            sprt: c.test.summary(),
            path: c.path.clone(),
        });
        let profile = self.profile_text(&tuned, &values, confirm.as_ref());
        Ok(TuneReport {
            title: self.title(),
            bot: self.spec.bot.name.clone(),
            kind: self.spec.bot.kind.clone(),
            opponent: self.spec.opponent.as_ref().map(|o| o.name.clone()),
            players: self.spec.players,
            iterations: state.history.len() as u64,
            pairs_per_iteration: self.spec.settings.deals,
            games: state.tune_games(),
            settings: self.spec.settings,
            design: self.design.describe(),
            params,
            recent: state.recent(RECENT),
            confirm,
            profile,
        })
    }

    /// The text of `tuned.toml`.
    fn profile_text(
        &self,
        tuned: &BotSpec,
        values: &[f64],
        confirm: Option<&ConfirmReport>,
    ) -> String {
        let s = &self.spec;
        let ranges: Vec<String> = s.ranges.iter().map(ToString::to_string).collect();
        let mut comments = vec![
            format!(
                "Tuned by `aeroplane tune` (aeroplane {}): {}, rules {}, {} players, {}.",
                env!("CARGO_PKG_VERSION"),
                s.bot.name,
                s.rules_name,
                s.players,
                match &s.opponent {
                    Some(o) => format!("against {}", o.name),
                    None => "self-play".into(),
                }
            ),
            match s.given {
                Some(_) => "Values given for a confirmation of an earlier tune.".to_string(),
                None => format!(
                    "SPSA: {} iterations of {} deals, seed {}; parameters {}.",
                    s.settings.iterations,
                    s.settings.deals,
                    s.seed,
                    ranges.join(" ")
                ),
            },
        ];
        if let Some(c) = confirm {
            comments.push(format!(
                "Confirmation against the start ({}): {} after {} games, Elo {:+.1} [{:+.1}, {:+.1}].",
                c.sprt.config,
                verdict_text(c.sprt.verdict),
                c.games,
                c.sprt.elo.elo,
                c.sprt.elo.low,
                c.sprt.elo.high
            ));
        }
        let description = format!(
            "{} tuned by SPSA for {}, {} players",
            s.bot.name, s.rules_name, s.players
        );
        files::tuned_profile(tuned, &self.dims, values, &description, &comments)
    }

    /// Writes history.csv, tuned.toml, sprt.json and summary.json.
    fn write_files(
        &self,
        dir: &OutputDir,
        state: &TuneState,
        report: &TuneReport,
    ) -> Result<(), JobError> {
        if self.spec.given.is_none() {
            dir.write(
                "history.csv",
                &files::history_csv(&self.dims, self.design.scale(), &state.history),
            )?;
        }
        dir.write("tuned.toml", report.profile.as_bytes())?;
        if let Some(c) = &report.confirm {
            dir.write_json(
                "sprt.json",
                &serde_json::json!({
                    "bot_a": c.tuned,
                    "bot_b": c.start,
                    "games": c.games,
                    "result": c.sprt.verdict,
                    "sprt": c.sprt,
                }),
            )?;
        }
        dir.write_json("summary.json", &SummaryJson::new("tune", report))?;
        Ok(())
    }
}

/// The units of a block of deals played in `seatings` runs: chunks of `chunk` deals, each
/// chunk in every seating before the next chunk (so a chunk's deals are complete together).
fn block_units(seatings: usize, deals: std::ops::Range<u64>, chunk: u64) -> Vec<Unit> {
    let chunk = chunk.max(1);
    let mut units = Vec::new();
    let mut lo = deals.start;
    while lo < deals.end {
        let n = chunk.min(deals.end - lo);
        for part in 0..seatings {
            units.push(Unit {
                index: units.len(),
                part,
                first_deal: lo,
                deals: n,
            });
        }
        lo += n;
    }
    units
}

/// The manifest's word for a verdict.
fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::AcceptH0 => "h0",
        Verdict::AcceptH1 => "h1",
        Verdict::Continue => "inconclusive",
    }
}

/// A verdict in words.
fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::AcceptH1 => "H1 accepted",
        Verdict::AcceptH0 => "H0 accepted",
        Verdict::Continue => "inconclusive (pair limit reached)",
    }
}

impl TuneReport {
    /// The text report.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "{}", self.title)?;
        let s = &self.settings;
        if self.iterations > 0 {
            writeln!(
                w,
                "{} iterations x {} deals = {} games; SPSA alpha {}, gamma {}, A {}, perturbation {} and step {} of each range",
                self.iterations,
                self.pairs_per_iteration,
                self.games,
                s.alpha,
                s.gamma,
                s.stability,
                s.perturbation,
                s.step
            )?;
        }
        writeln!(w, "{}", self.design)?;
        let width = self
            .params
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(9)
            .clamp(9, 40);
        writeln!(
            w,
            "\n{:width$}  {:>17}  {:>12}  {:>12}  mean gradient estimate (± se, per unit)",
            "parameter", "range", "start", "tuned"
        )?;
        for p in &self.params {
            writeln!(
                w,
                "{:width$}  {:>17}  {:>12}  {:>12}  {:+.4e} ± {:.4e}",
                p.name,
                format!("{}..{}", p.lo, p.hi),
                p.start,
                p.tuned,
                p.gradient_mean,
                p.gradient_se
            )?;
        }
        if let Some((n, mean, se)) = self.recent {
            writeln!(
                w,
                "last {n} iterations: theta+ against theta- {mean:+.4} ± {se:.4} (wins minus losses per game)"
            )?;
        }
        if let Some(c) = &self.confirm {
            let (t, cf) = (&c.sprt, &c.sprt.config);
            writeln!(
                w,
                "\nconfirmation: SPRT {} vs {}: elo0={} elo1={} alpha={} beta={}, deals from {}",
                c.tuned, c.start, cf.elo0, cf.elo1, cf.alpha, cf.beta, c.first_deal
            )?;
            writeln!(
                w,
                "  LLR {:.3} (bounds {:.3}, {:.3}) after {} games ({} deals)",
                t.llr, t.lower, t.upper, c.games, c.deals
            )?;
            writeln!(
                w,
                "  Elo {:.1} [{:.1}, {:.1}] (95% normal interval of the mean deal score, by deal), LOS {:.4}, score {:.4}",
                t.elo.elo, t.elo.low, t.elo.high, t.los, t.score
            )?;
            writeln!(w, "result: {}", verdict_text(t.verdict))?;
        }
        Ok(())
    }
}
