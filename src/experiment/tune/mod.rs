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
mod error;
mod files;
mod play;
mod report;
mod space;
mod state;

pub use design::{Design, Outcome as DealsOutcome, Role};
pub use error::TuneError;
pub use files::history_header;
pub use report::{ConfirmReport, TuneReport, TunedParam};
pub use space::{ParamRange, bot_at, decimals, dimensions, rounded};

use crate::analysis::SprtConfig;
use crate::analysis::spsa::{Dimension, MAX_DEALS, Spsa, SpsaSettings};
use crate::bots::registry::BotSpec;
use crate::export::{
    CHECKPOINT_FILE, Checkpoint, ConfirmSection, JobStatus, Manifest, OutputDir, TuneParamSection,
    TuneSection,
};
use crate::runner::{KeptGames, RunSpec};
use aeroplane_core::Rules;

use super::kind::JobKind;
use super::merge::{Shards, Stop};
use super::{
    Context, InvalidJob, JobEnd, JobError, Opening, Outcome, Shard, commit, fail, keep_finished,
    opened_or_failed, read_finished, scan_checkpoint, tell_resumed, write_status,
};
use play::Kept;
use state::{ConfirmState, TuneState};

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

impl TuneJob {
    /// Checks a tune: players, parameters against the bot's kind, ranges, settings, the
    /// confirmation, and that its deal indices fit.
    pub fn new(spec: TuneSpec) -> Result<TuneJob, TuneError> {
        if !(2..=4).contains(&spec.players) {
            return Err(TuneError::Players(spec.players));
        }
        spec.settings.check()?;
        let (dims, start) = dimensions(&spec.bot, &spec.ranges)?;
        // The optimiser checks the start against the ranges and the settings once more.
        let _ = Spsa::new(dims.clone(), start.clone(), spec.settings)?;
        let confirm_pairs = match spec.confirm {
            Some(c) if c.max_pairs == 0 || c.max_pairs > MAX_CONFIRM_PAIRS => {
                return Err(TuneError::Confirm {
                    what: "length",
                    value: c.max_pairs,
                    allowed: "1 to 1,000,000,000 deals",
                });
            }
            Some(c) if c.chunk_deals == 0 || c.chunk_deals > MAX_DEALS => {
                return Err(TuneError::Confirm {
                    what: "chunk size",
                    value: c.chunk_deals,
                    allowed: "1 to 1,000,000 deals",
                });
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

    /// The report of a finished tune, its confirmation's outcome recorded in the manifest.
    fn finished(&self, state: &TuneState, manifest: &mut Manifest) -> Result<TuneReport, JobError> {
        let r = self.report(state)?;
        if let (Some(t), Some(c)) = (manifest.tune.as_mut(), &r.confirm)
            && let Some(section) = t.confirm.as_mut()
        {
            section.result = Some(report::verdict_word(c.sprt.verdict).to_string());
        }
        Ok(r)
    }

    /// A resume, from any state a stop can leave: no checkpoint (stopped before it was made:
    /// start again), a checkpoint with or without a last line cut short (its records folded
    /// again, each checked), or a committed tune whose checkpoint was not removed yet (finished
    /// again, to the same files).
    fn resume_folder(
        &self,
        dir: &OutputDir,
        manifest: &Manifest,
        ctx: &Context<'_>,
        state: &mut TuneState,
        notes: &mut Vec<String>,
    ) -> Result<(Checkpoint, Kept, KeptGames), Opening> {
        let cp = dir.file(CHECKPOINT_FILE);
        let Some(scan) = scan_checkpoint(dir, manifest, notes)? else {
            return start_folder(dir, manifest)
                .map(|c| (c, Kept::default(), KeptGames::new()))
                .map_err(Opening::Failed);
        };
        let records = Checkpoint::records(&cp, &scan)?;
        let kept = self.fold_kept(ctx, state, records)?;
        let finished = if kept.decided {
            KeptGames::new()
        } else {
            self.unfolded_games(dir, &scan, kept.units, ctx, notes)
        };
        let played = state.tune_games()
            + state.confirm.as_ref().map_or(0, |c| c.outcome.games)
            + finished.len() as u64;
        // Checked: from here on, the folder is changed.
        let open = || -> Result<Checkpoint, JobError> {
            let c = Checkpoint::open(&cp, &scan, None)?;
            let mut running = manifest.clone();
            running.finish(JobStatus::Running, played, None);
            write_status(dir, &running)?;
            Ok(c)
        };
        let c = open().map_err(Opening::Failed)?;
        Ok((c, kept, finished))
    }

    /// The games a stop kept beside the checkpoint that belong to units after the first
    /// `folded` (an iteration's deals, or a check's): see [`read_finished`].
    fn unfolded_games(
        &self,
        dir: &OutputDir,
        scan: &crate::export::Scan,
        folded: usize,
        ctx: &Context<'_>,
        notes: &mut Vec<String>,
    ) -> KeptGames {
        // A tune's parts do not rotate seats: a game's index is its deal.
        let (m, iterations) = (self.spec.settings.deals, self.iterations());
        let unit_of = |deal: u64| -> u64 {
            if deal < iterations * m {
                deal / m.max(1)
            } else {
                let chunk = self.spec.confirm.map_or(1, |c| c.chunk_deals.max(1));
                iterations + (deal - self.confirm_first_deal()) / chunk
            }
        };
        read_finished(dir, scan, ctx, notes, |g| unit_of(g.game) >= folded as u64)
    }
}

impl JobKind for TuneJob {
    type Report = TuneReport;

    /// The job's manifest (status running).
    fn manifest(&self) -> Manifest {
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
        m.games_planned = self.total_games();
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
    fn from_manifest(m: &Manifest, file: &str) -> Result<TuneJob, JobError> {
        let invalid = |what: String| {
            JobError::from(InvalidJob::Manifest {
                file: file.to_string(),
                what,
            })
        };
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

    /// None: a tune's runs depend on its results so far.
    fn parts(&self) -> &[RunSpec] {
        &[]
    }

    fn parts_mut(&mut self) -> &mut [RunSpec] {
        &mut []
    }

    /// Sends the stderr of the bot programs among the tuned bot and its opponent to
    /// `dir/<bot>-<n>.log` (not part of what the job is).
    fn set_bot_log_dir(&mut self, dir: &std::path::Path) {
        let bots = std::iter::once(&mut self.spec.bot).chain(self.spec.opponent.as_mut());
        for bot in bots {
            if let Some(ext) = &mut bot.external {
                ext.log_dir = Some(dir.to_path_buf());
            }
        }
    }

    /// Games the tune plans: every iteration, and the confirmation's most.
    fn total_games(&self) -> u64 {
        let g = self.design.games_per_deal();
        let confirm = self.spec.confirm.map_or(0, |c| c.max_pairs);
        (self.iterations() * self.spec.settings.deals + confirm) * g
    }

    /// Every game the tune plans (it is never cut into units in advance).
    fn planned_games(&self, _unit_deals: u64, _shard: Option<Shard>) -> u64 {
        self.total_games()
    }

    /// Runs the tune (fresh, or resumed from the checkpoint in `ctx.out`, from any state a
    /// stop left); with an output directory, its folder goes through the lifecycle's states:
    /// run.json (running) and the checkpoint, a record per iteration and per check of the
    /// confirmation, then history.csv, tuned.toml, sprt.json and summary.json, the commit
    /// (run.json complete), report.html if asked for, and the checkpoint removed.
    fn execute(&self, ctx: &Context<'_>) -> Result<Outcome<TuneReport>, JobError> {
        if ctx.shard.is_some() {
            return Err(InvalidJob::TuneSequential("cannot be split into shards").into());
        }
        let mut manifest = self.manifest();
        ctx.stamp(&mut manifest);
        let planned = self.total_games();
        let mut state = self.new_state();
        let played =
            |s: &TuneState| s.tune_games() + s.confirm.as_ref().map_or(0, |c| c.outcome.games);
        let outcome = |ended, played, notes| Outcome {
            ended,
            played,
            planned,
            notes,
        };
        let Some(dir) = ctx.folder()? else {
            if !self.play_rest(ctx, &mut state, None, 0, &mut KeptGames::new())? {
                return Ok(outcome(JobEnd::Interrupted, played(&state), Vec::new()));
            }
            let r = self.finished(&state, &mut manifest)?;
            return Ok(outcome(JobEnd::Finished(r), played(&state), Vec::new()));
        };
        let mut notes = Vec::new();
        let opened = if ctx.resume {
            self.resume_folder(dir, &manifest, ctx, &mut state, &mut notes)
        } else {
            start_folder(dir, &manifest)
                .map(|c| (c, Kept::default(), KeptGames::new()))
                .map_err(Opening::Failed)
        };
        let (mut checkpoint, kept, mut finished) = opened_or_failed(dir, &mut manifest, opened)?;
        tell_resumed(ctx, played(&state) + finished.len() as u64, &notes);
        let driven = if kept.decided {
            Ok(true)
        } else {
            self.play_rest(
                ctx,
                &mut state,
                Some(&mut checkpoint),
                kept.units,
                &mut finished,
            )
        };
        // Whatever happened, every record written reaches the disk.
        let synced = checkpoint.sync().map_err(JobError::from);
        let done = match (driven, synced) {
            (Ok(done), Ok(())) => done,
            (Err(e), _) | (Ok(_), Err(e)) => {
                return Err(fail(dir, &mut manifest, played(&state), e));
            }
        };
        if !done {
            // The games finished beyond the folded units, kept beside the checkpoint.
            let games = played(&state) + keep_finished(dir, &checkpoint, &finished, &mut notes);
            manifest.finish(JobStatus::Interrupted, games, None);
            write_status(dir, &manifest)?;
            return Ok(outcome(JobEnd::Interrupted, games, notes));
        }
        drop(checkpoint);
        let mut files = || -> Result<TuneReport, JobError> {
            let r = self.finished(&state, &mut manifest)?;
            self.write_files(dir, &state, &r)?;
            dir.sync()?;
            Ok(r)
        };
        let r = match files() {
            Ok(r) => r,
            Err(e) => return Err(fail(dir, &mut manifest, played(&state), e)),
        };
        manifest.finish(JobStatus::Complete, played(&state), None);
        commit(dir, &manifest)?;
        Ok(outcome(JobEnd::Finished(r), played(&state), notes))
    }

    /// Refused: a tune is sequential.
    fn merge_shards(
        &self,
        _out: &mut OutputDir,
        _shards: Shards<'_>,
        _stop: Stop<'_>,
    ) -> Result<Outcome<TuneReport>, JobError> {
        Err(InvalidJob::TuneSequential("has no shards to merge").into())
    }
}

/// A fresh start: `run.json` (running), then the checkpoint with its header.
fn start_folder(dir: &OutputDir, manifest: &Manifest) -> Result<Checkpoint, JobError> {
    write_status(dir, manifest)?;
    Ok(Checkpoint::create(
        &dir.file(CHECKPOINT_FILE),
        &manifest.identity(),
    )?)
}
