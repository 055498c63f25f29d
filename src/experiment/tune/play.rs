//! Playing a tune: the records of a resume folded again, then each iteration's games and the
//! update, then the confirming SPRT check by check; one checkpoint record per unit.

use std::sync::atomic::Ordering;

use crate::export::{Checkpoint, CheckpointError, Stored};
use crate::runner::{self, FinishedGame, Flow, KeptGames, RunError, RunOptions, Unit};

use super::super::drive::UnitLine;
use super::super::{Context, InvalidJob, JobError};
use super::state::{TuneRecord, TuneState};
use super::{DealsOutcome, RECENT, TuneJob, bot_at, decimals};

/// What folding a checkpoint's records kept.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// Records folded: the first units of the tune.
    pub units: usize,
    /// The confirmation decided on one of them.
    pub decided: bool,
}

impl TuneJob {
    /// Folds the records a checkpoint kept, in order, each checked to be the next unit of this
    /// tune (an iteration of its deals, or a check of its confirmation with points in range).
    pub(super) fn fold_kept(
        &self,
        ctx: &Context<'_>,
        state: &mut TuneState,
        records: impl Iterator<Item = Result<Stored<UnitLine<TuneRecord>>, CheckpointError>>,
    ) -> Result<Kept, JobError> {
        let iterations = self.iterations();
        let mut kept = Kept::default();
        for stored in records {
            let line = stored?.record;
            if kept.decided {
                continue;
            }
            let unit = kept.units;
            let foreign = |what: String| {
                JobError::from(InvalidJob::ForeignCheckpoint {
                    what: format!("record of unit {unit}: {what}"),
                })
            };
            if line.unit != unit {
                return Err(InvalidJob::ForeignCheckpoint {
                    what: format!("holds unit {} where unit {unit} was next", line.unit),
                }
                .into());
            }
            let per_deal = self.design.games_per_deal();
            match line.record {
                TuneRecord::Iteration(o) if (unit as u64) < iterations => {
                    let m = self.spec.settings.deals;
                    if o.deals != m || o.games != m * per_deal {
                        return Err(foreign(format!(
                            "{} deals and {} games, where an iteration plays {m} deals and {} games",
                            o.deals,
                            o.games,
                            m * per_deal
                        )));
                    }
                    ctx.progress.fetch_add(o.games, Ordering::Relaxed);
                    state.fold_iteration(o);
                }
                TuneRecord::Confirm { outcome, points }
                    if unit as u64 >= iterations && state.confirm.is_some() =>
                {
                    let steps = self.design.sprt_steps();
                    let right = points.len() as u64 == outcome.deals
                        && outcome.games == outcome.deals * per_deal
                        && outcome.deals >= 1
                        && points.iter().all(|&p| p <= steps);
                    if !right {
                        return Err(foreign(format!(
                            "{} deals, {} games and {} points of at most {steps} do not make a check of the confirmation",
                            outcome.deals,
                            outcome.games,
                            points.len()
                        )));
                    }
                    ctx.progress.fetch_add(outcome.games, Ordering::Relaxed);
                    let c = state.confirm.as_mut().expect("a confirmation");
                    kept.decided = c.fold(&outcome, &points);
                }
                _ => {
                    return Err(foreign("it is not what this tune plays there".into()));
                }
            }
            kept.units += 1;
        }
        Ok(kept)
    }

    /// Plays the units after the first `unit`: the iterations left, then the confirmation;
    /// `false` if an interrupt stopped it. Each iteration's record is appended and synced;
    /// the confirmation's checks are synced at most `SYNC_EVERY` apart (and when it stops).
    pub(super) fn play_rest(
        &self,
        ctx: &Context<'_>,
        state: &mut TuneState,
        mut checkpoint: Option<&mut Checkpoint>,
        mut unit: usize,
        kept: &mut KeptGames,
    ) -> Result<bool, JobError> {
        let iterations = self.iterations();
        let interrupted = || ctx.interrupt.is_some_and(|i| i.load(Ordering::Relaxed));
        let mut folded_here = 0usize;
        while (state.history.len() as u64) < iterations {
            if interrupted() {
                return Ok(false);
            }
            let Some(outcome) = self.play_iteration(ctx, state, kept)? else {
                return Ok(false);
            };
            let line = UnitLine {
                unit,
                games_csv_end: None,
                rows_fnv: None,
                log_end: None,
                log_fnv: None,
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
        if state.confirm.is_none() {
            return Ok(true);
        }
        if interrupted() {
            return Ok(false);
        }
        self.play_confirmation(ctx, state, checkpoint, unit, folded_here, kept)
    }

    /// Plays the next iteration; `None` if an interrupt stopped it (its finished games are
    /// then in `kept`, for the resume).
    fn play_iteration(
        &self,
        ctx: &Context<'_>,
        state: &TuneState,
        kept: &mut KeptGames,
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
        // The games of the units delivered: an iteration is folded whole or kept aside.
        let mut delivered: Vec<FinishedGame> = Vec::new();
        let played = runner::execute(
            &parts,
            &units,
            RunOptions {
                rows_for: Some(&|_| true),
                kept: Some(&mut *kept),
                progress: Some(ctx.progress),
                interrupt: ctx.interrupt,
                ..RunOptions::new(ctx.exec)
            },
            &mut |result| {
                delivered.extend(result.finished_games());
                for row in &result.rows {
                    let (p, q) = self.design.points(result.unit.part, row);
                    diffs[(row.deal - first) as usize] += p - q;
                    outcome.count_game(&self.design, result.unit.part, row);
                }
                Ok(Flow::Continue)
            },
        );
        match played {
            Ok(()) => {}
            Err(RunError::Interrupted) => {
                for g in delivered {
                    kept.insert(g);
                }
                return Ok(None);
            }
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
        kept: &mut KeptGames,
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
        let mut diffs: Vec<i64> = Vec::new();
        let mut outcome = DealsOutcome::default();
        let mut in_chunk = 0usize;
        // The games of the units of the check being delivered: a check is folded whole or
        // kept aside.
        let mut delivered: Vec<FinishedGame> = Vec::new();
        let played = runner::execute(
            &parts,
            &units,
            RunOptions {
                rows_for: Some(&|_| true),
                kept: Some(&mut *kept),
                progress: Some(ctx.progress),
                interrupt: ctx.interrupt,
                ..RunOptions::new(ctx.exec)
            },
            &mut |result| {
                let u = result.unit;
                if in_chunk == 0 {
                    diffs = vec![0; u.deals as usize];
                    outcome = DealsOutcome::default();
                    delivered.clear();
                }
                delivered.extend(result.finished_games());
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
                    rows_fnv: None,
                    log_end: None,
                    log_fnv: None,
                    record: TuneRecord::Confirm {
                        outcome: outcome.clone(),
                        points: points.clone(),
                    },
                };
                if let Some(c) = checkpoint.as_deref_mut() {
                    let keep = |e: crate::export::ExportError| RunError::Consumer(Box::new(e));
                    c.append(&line).map_err(keep)?;
                    if c.sync_due() {
                        c.sync().map_err(keep)?;
                    }
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
                delivered.clear();
                if decided {
                    return Ok(Flow::Stop);
                }
                // After a signal the executor delivers no more units and ends with an
                // interrupt once the workers have handed back their finished games.
                Ok(Flow::Continue)
            },
        );
        match played {
            Ok(()) => Ok(true),
            Err(RunError::Interrupted) => {
                for g in delivered {
                    kept.insert(g);
                }
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// A one-line summary of the tune so far: the current values and the recent results, or
    /// in the confirmation the test so far.
    pub(super) fn interim(&self, state: &TuneState) -> String {
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
