//! Playing a tune: the records of a resume folded again, then each iteration's games and the
//! update, then the confirming SPRT check by check; one checkpoint record per unit.

use std::sync::atomic::Ordering;

use crate::export::Checkpoint;
use crate::runner::{self, Flow, RunError, Unit};

use super::super::drive::UnitLine;
use super::super::{Context, JobError};
use super::state::{TuneRecord, TuneState};
use super::{DealsOutcome, RECENT, TuneJob, bot_at, decimals};

impl TuneJob {
    /// Folds the done records, then plays the rest; `false` if an interrupt stopped it.
    pub(super) fn drive(
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
