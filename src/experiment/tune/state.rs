//! A tune's state, rebuilt from its records in order: the optimiser with the history of its
//! iterations, then the confirming test. A fresh run and a resume fold the same records, so
//! they reach the same state.

use serde::{Deserialize, Serialize};

use crate::analysis::spsa::{Probe, Spsa, Step};
use crate::analysis::{Sprt, SprtConfig, Verdict};

use super::design::{Design, Outcome};

/// What the checkpoint keeps of one unit of a tune.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TuneRecord {
    /// One iteration's games.
    Iteration(Outcome),
    /// One check of the confirming test: its deals' points, in deal order.
    Confirm {
        /// The chunk's games, counted.
        outcome: Outcome,
        /// Each deal's SPRT points.
        points: Vec<u32>,
    },
}

/// One iteration, as `history.csv` shows it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct HistoryRow {
    /// The two points played.
    pub probe: Probe,
    /// The update.
    pub step: Step,
    /// The games.
    pub outcome: Outcome,
}

/// The confirming test so far.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ConfirmState {
    /// The test.
    pub test: Sprt,
    /// The games, counted.
    pub outcome: Outcome,
    /// The LLR after each check: (games, LLR).
    pub path: Vec<(u64, f64)>,
    /// Checks done.
    pub chunks: u64,
}

impl ConfirmState {
    /// An empty test.
    pub fn new(config: SprtConfig, design: &Design) -> ConfirmState {
        ConfirmState {
            test: Sprt::new(config, design.sprt_steps()),
            outcome: Outcome::default(),
            path: Vec::new(),
            chunks: 0,
        }
    }

    /// Folds one check; whether the test has decided.
    pub fn fold(&mut self, outcome: &Outcome, points: &[u32]) -> bool {
        for &p in points {
            self.test.add(p);
        }
        self.outcome.merge(outcome);
        self.chunks += 1;
        self.path.push((self.outcome.games, self.test.llr()));
        self.decided()
    }

    /// Whether the test has decided.
    pub fn decided(&self) -> bool {
        self.test.status() != Verdict::Continue
    }
}

/// The optimiser and what it has seen.
#[derive(Clone, Debug)]
pub(crate) struct TuneState {
    pub spsa: Spsa,
    pub seed: u64,
    pub scale: i64,
    pub history: Vec<HistoryRow>,
    pub confirm: Option<ConfirmState>,
}

impl TuneState {
    /// Folds the next iteration's games: the update from its result.
    pub fn fold_iteration(&mut self, outcome: Outcome) -> &HistoryRow {
        let probe = self.spsa.probe(self.seed);
        let step = self.spsa.update(&probe, outcome.result(self.scale));
        self.history.push(HistoryRow {
            probe,
            step,
            outcome,
        });
        self.history.last().expect("just pushed")
    }

    /// Games played in the iterations so far.
    pub fn tune_games(&self) -> u64 {
        self.history.iter().map(|r| r.outcome.games).sum()
    }

    /// The mean result of the last `n` iterations (at most) and its standard error over
    /// iterations; `None` before two.
    pub fn recent(&self, n: usize) -> Option<(usize, f64, f64)> {
        let rows = &self.history[self.history.len().saturating_sub(n)..];
        if rows.len() < 2 {
            return None;
        }
        let ys: Vec<f64> = rows.iter().map(|r| r.outcome.result(self.scale)).collect();
        let (mean, se) = mean_se(&ys);
        Some((rows.len(), mean, se))
    }

    /// Each parameter's gradient estimates over all iterations: mean and standard error.
    pub fn gradient(&self) -> Vec<(f64, f64)> {
        (0..self.spsa.dimensions().len())
            .map(|i| {
                let g: Vec<f64> = self.history.iter().map(|r| r.step.gradient[i]).collect();
                mean_se(&g)
            })
            .collect()
    }
}

/// The mean of `xs` and its standard error (NaN below two values).
pub(crate) fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, f64::NAN);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}
