//! A sweep's main effects: what one option value does on average over the other options.
//!
//! The sweep is a full factorial: every value of an option is played with every combination of
//! the other options' values. The **main effect** of a value is the mean of a metric over the
//! variants that have it, and its **difference** from the option's reference value (the base
//! rules' own value when it is among the values, else the first) answers "what does
//! `overshoot=bounce` do on average?".
//!
//! **Unit.** All variants share their dice, so they are correlated, and the deal is the unit: for
//! each deal `g` and value `v`, `x_g(v)` is the metric averaged over the variants with `v` (and
//! over the deal's rotations). The level is the mean of `x_g(v)` over the deals with a t
//! interval (normal above 100,000 deals); the difference is the paired t on `x_g(v) - x_g(ref)`.
//! For win rates, where the deals are too few (under [`MIN_DEALS`]) or all alike, the level's
//! interval is never narrower than the Wilson interval on the deals, and a difference with no
//! deal differing gets `±z²/(G + z²)` (no deal of `G` differed: the rate of differing deals
//! is at most that).
//!
//! Only per-deal sums per option value are kept (`values x deals` cells). A sweep too large for
//! [`MAX_CELLS`] reports the levels (from the variants' tallies) without intervals.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::analysis::Z95;
use crate::stats::{MIN_DEALS, PValue, wilson_rate};

/// The most `(option value, deal)` cells kept for the intervals: 16 bytes each, 64 MiB.
pub const MAX_CELLS: u64 = 4 << 20;

/// Degrees of freedom above which the t distribution is replaced by the normal.
const NORMAL_DF: u64 = 100_000;

/// One deal's sums over the variants of one option value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct DealSums {
    seat0: u32,
    bot0: u32,
    turns: u64,
}

/// One deal of one variant: seat 0's wins, lineup entry 0's wins, and the turns of its games.
pub(crate) type DealOutcome = (u32, u32, u64);

/// The metrics: seat 0's win rate, lineup entry 0's win rate, mean turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Metric {
    Seat0,
    Bot0,
    Turns,
}

impl Metric {
    /// The name in effects.csv.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Seat0 => "seat0_win",
            Metric::Bot0 => "bot0_win",
            Metric::Turns => "turns",
        }
    }

    fn of(self, d: &DealSums) -> f64 {
        match self {
            Metric::Seat0 => f64::from(d.seat0),
            Metric::Bot0 => f64::from(d.bot0),
            Metric::Turns => d.turns as f64,
        }
    }

    fn is_rate(self) -> bool {
        self != Metric::Turns
    }
}

/// The per-deal sums of every option value, as the sweep folds its units.
pub(crate) struct EffectsFold {
    /// For each variant, the index of its value on every axis (into the flat list of values).
    of_variant: Vec<Vec<usize>>,
    /// Deals per variant.
    deals: u64,
    /// First deal index of every variant.
    first_deal: u64,
    /// `values x deals` cells, value-major; `None` when the sweep is too large.
    cells: Option<Vec<DealSums>>,
}

impl EffectsFold {
    /// For `values` option values in all, each variant's value indices, `deals` deals from
    /// `first_deal`.
    pub fn new(values: usize, of_variant: Vec<Vec<usize>>, first_deal: u64, deals: u64) -> Self {
        let n = (values as u64).saturating_mul(deals);
        EffectsFold {
            of_variant,
            deals,
            first_deal,
            cells: (n <= MAX_CELLS).then(|| vec![DealSums::default(); n as usize]),
        }
    }

    /// Whether the per-deal sums are kept (the sweep fits in [`MAX_CELLS`]).
    #[cfg(test)]
    pub fn keeps_deals(&self) -> bool {
        self.cells.is_some()
    }

    /// Adds variant `variant`'s outcomes of deals `first..first + outcomes.len()`.
    pub fn add(&mut self, variant: usize, first: u64, outcomes: &[DealOutcome]) {
        let deals = self.deals;
        let Some(cells) = self.cells.as_mut() else {
            return;
        };
        for &v in &self.of_variant[variant] {
            for (k, &(seat0, bot0, turns)) in outcomes.iter().enumerate() {
                let g = first - self.first_deal + k as u64;
                if g >= deals {
                    continue;
                }
                let c = &mut cells[(v as u64 * deals + g) as usize];
                c.seat0 += seat0;
                c.bot0 += bot0;
                c.turns += turns;
            }
        }
    }

    /// The per-deal values `x_g(v)` of a metric for value `v`, shared by `variants` variants of
    /// `m` games per deal.
    fn values(&self, v: usize, metric: Metric, variants: usize, m: u64) -> Option<Vec<f64>> {
        let cells = self.cells.as_ref()?;
        let per = (variants as u64 * m) as f64;
        let start = v * self.deals as usize;
        Some(
            cells[start..start + self.deals as usize]
                .iter()
                .map(|c| metric.of(c) / per)
                .collect(),
        )
    }
}

/// One option value's main effect on one metric.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Effect {
    /// The option.
    pub option: String,
    /// The value.
    pub value: String,
    /// Variants with this value.
    pub variants: usize,
    /// Deals.
    pub deals: u64,
    /// `seat0_win`, `bot0_win` or `turns`.
    pub metric: &'static str,
    /// The level: the metric averaged over the variants with this value.
    pub mean: f64,
    /// 95% interval of the level (by deal; `None` when the sweep is too large to keep deals).
    pub interval: Option<(f64, f64)>,
    /// The option's reference value (the base rules' own, else the first).
    pub reference: String,
    /// This level minus the reference's (`None` for the reference itself).
    pub diff: Option<f64>,
    /// 95% interval of the difference (paired by deal).
    pub diff_interval: Option<(f64, f64)>,
    /// The paired t-test's p-value for "no difference" (`None` without a variance: one deal,
    /// or every deal's difference the same).
    pub p: Option<PValue>,
    /// How the intervals were made: `t_by_deal`, `t_by_deal_floored` (rates over too few or
    /// alike deals), or `means_only` (too large to keep the deals).
    pub method: &'static str,
}

/// One option: its name, values, and which value is the reference.
pub(crate) struct AxisValues {
    pub option: String,
    pub values: Vec<String>,
    pub reference: usize,
    /// Index of this axis's first value in the flat list of values.
    pub first_index: usize,
}

/// Mean, standard error and the t quantile of per-deal values.
fn moments(x: &[f64]) -> (f64, f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = if x.len() > 1 {
        x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let df = x.len().saturating_sub(1) as u64;
    let q = if df == 0 {
        f64::INFINITY
    } else if df > NORMAL_DF {
        Z95
    } else {
        StudentsT::new(0.0, 1.0, df as f64)
            .expect("df >= 1")
            .inverse_cdf(0.975)
    };
    (mean, (var / n).sqrt(), q)
}

/// Every main effect of the sweep. `levels[v]` is the level of flat value `v` from the
/// variants' tallies (used when the deals were not kept), per metric.
pub(crate) fn effects(
    fold: &EffectsFold,
    axes: &[AxisValues],
    metrics: &[Metric],
    variants_per_value: &[usize],
    m: u64,
    levels: &dyn Fn(usize, Metric) -> f64,
) -> Vec<Effect> {
    let mut out = Vec::new();
    for axis in axes {
        for &metric in metrics {
            let reference = axis.first_index + axis.reference;
            let ref_x = fold.values(reference, metric, variants_per_value[reference], m);
            for (j, value) in axis.values.iter().enumerate() {
                let v = axis.first_index + j;
                let k = variants_per_value[v];
                let mut e = Effect {
                    option: axis.option.clone(),
                    value: value.clone(),
                    variants: k,
                    deals: fold.deals,
                    metric: metric.name(),
                    mean: levels(v, metric),
                    interval: None,
                    reference: axis.values[axis.reference].clone(),
                    diff: (v != reference).then(|| levels(v, metric) - levels(reference, metric)),
                    diff_interval: None,
                    p: None,
                    method: "means_only",
                };
                if let (Some(x), Some(r)) = (fold.values(v, metric, k, m), ref_x.as_ref()) {
                    let (mean, se, q) = moments(&x);
                    // One deal has no spread: no t interval (an infinite quantile times a zero
                    // standard error is not a number).
                    let mut iv = (x.len() > 1).then_some((mean - q * se, mean + q * se));
                    e.method = "t_by_deal";
                    if metric.is_rate() {
                        if x.len() < MIN_DEALS as usize || se == 0.0 {
                            let (lo, hi) = wilson_rate(mean.clamp(0.0, 1.0), x.len() as f64, Z95);
                            iv = Some(iv.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
                            e.method = "t_by_deal_floored";
                        }
                        // A rate's level lies in [0, 1].
                        iv = iv.map(|(a, b)| (a.max(0.0), b.min(1.0)));
                    }
                    e.mean = mean;
                    e.interval = iv;
                    if v != reference {
                        let d: Vec<f64> = x.iter().zip(r).map(|(a, b)| a - b).collect();
                        let (diff, se, q) = moments(&d);
                        let mut div = (d.len() > 1).then_some((diff - q * se, diff + q * se));
                        if metric.is_rate() {
                            if se == 0.0 || d.len() < 2 {
                                let n = d.len() as f64;
                                let h = Z95 * Z95 / (n + Z95 * Z95);
                                div = Some((diff - h, diff + h));
                                e.method = "t_by_deal_floored";
                            }
                            // A difference of two rates lies in [-1, 1].
                            div = div.map(|(a, b)| (a.max(-1.0), b.min(1.0)));
                        }
                        e.diff = Some(diff);
                        e.diff_interval = div;
                        // No test without a variance: every deal alike, or one deal.
                        e.p = (se > 0.0 && d.len() > 1).then(|| {
                            if d.len() as u64 - 1 > NORMAL_DF {
                                PValue::normal_two_sided(diff / se)
                            } else {
                                PValue::student_two_sided(diff / se, (d.len() - 1) as f64)
                            }
                        });
                    }
                }
                out.push(e);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    /// Two options of two values each (4 variants), 40 deals of 2 games; hand-made outcomes
    /// where variant (a, b) has seat 0 winning `a + b` of each deal's 2 games on even deals and
    /// none on odd ones, and turns 100 + 10 a + deal.
    #[test]
    fn levels_and_differences_are_by_deal() {
        // Values: 0 = x:0, 1 = x:1, 2 = y:0, 3 = y:1. Variants (x, y) in product order.
        let of_variant = vec![vec![0, 2], vec![0, 3], vec![1, 2], vec![1, 3]];
        let mut f = EffectsFold::new(4, of_variant, 0, 40);
        assert!(f.keeps_deals());
        for (var, (a, b)) in [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().enumerate() {
            let outcomes: Vec<DealOutcome> = (0..40u64)
                .map(|g| {
                    let w = if g % 2 == 0 { (a + b) as u32 } else { 0 };
                    (w, 0, 2 * (100 + 10 * a as u64 + g))
                })
                .collect();
            f.add(var, 0, &outcomes[..20]);
            f.add(var, 20, &outcomes[20..]);
        }
        let axes = [
            AxisValues {
                option: "x".into(),
                values: vec!["0".into(), "1".into()],
                reference: 0,
                first_index: 0,
            },
            AxisValues {
                option: "y".into(),
                values: vec!["0".into(), "1".into()],
                reference: 0,
                first_index: 2,
            },
        ];
        let e = effects(
            &f,
            &axes,
            &[Metric::Seat0, Metric::Turns],
            &[2; 4],
            2,
            &|_, _| f64::NAN,
        );
        assert_eq!(e.len(), 8);
        // x = 1, seat 0: even deals (1 + 2) / (2 variants * 2 games) = 0.75, odd 0: mean 0.375;
        // x = 0: even deals (0 + 1) / 4 = 0.25: mean 0.125; the difference is 0.5 on even
        // deals and 0 on odd ones: mean 0.25, sd 0.25 * sqrt(40/39), se sd / sqrt(40).
        let x1 = &e[1];
        assert_eq!(
            (x1.option.as_str(), x1.value.as_str(), x1.metric),
            ("x", "1", "seat0_win")
        );
        close(x1.mean, 0.375, 1e-12);
        close(x1.diff.unwrap(), 0.25, 1e-12);
        let se = 0.25 * (40.0f64 / 39.0).sqrt() / 40f64.sqrt();
        let q = StudentsT::new(0.0, 1.0, 39.0).unwrap().inverse_cdf(0.975);
        let (lo, hi) = x1.diff_interval.unwrap();
        close(lo, 0.25 - q * se, 1e-12);
        close(hi, 0.25 + q * se, 1e-12);
        assert_eq!(x1.method, "t_by_deal");
        // Turns: x adds 10 turns in every deal exactly: the difference has no spread.
        let t = &e[3];
        assert_eq!((t.metric, t.value.as_str()), ("turns", "1"));
        close(t.diff.unwrap(), 10.0, 1e-9);
        close(t.mean, 110.0 + 19.5, 1e-9);
        // The reference row has no difference.
        assert!(e[0].diff.is_none() && e[0].p.is_none());
    }

    #[test]
    fn a_sweep_too_large_keeps_no_deals_and_reports_levels() {
        let f = EffectsFold::new(10, vec![vec![0]], 0, MAX_CELLS);
        assert!(!f.keeps_deals());
        let axes = [AxisValues {
            option: "x".into(),
            values: vec!["a".into(), "b".into()],
            reference: 0,
            first_index: 0,
        }];
        let e = effects(&f, &axes, &[Metric::Turns], &[1, 1], 1, &|v, _| v as f64);
        assert_eq!(e[1].method, "means_only");
        assert_eq!(
            (e[1].mean, e[1].diff, e[1].interval),
            (1.0, Some(1.0), None)
        );
    }

    /// Issue 31, item 12: at 1, 2 and 4 deals a rate's level stays in [0, 1], its difference
    /// in [-1, 1], never NaN, and there is no p-value without a variance.
    #[test]
    fn small_sweeps_keep_rates_in_range_and_give_no_p_without_variance() {
        let axes = [AxisValues {
            option: "x".into(),
            values: vec!["a".into(), "b".into()],
            reference: 0,
            first_index: 0,
        }];
        for deals in [1u64, 2, 4] {
            let mut f = EffectsFold::new(2, vec![vec![0], vec![1]], 0, deals);
            // Variant a: seat 0 wins both games of even deals, none of odd ones; variant b
            // wins one game of every deal. So b - a is -0.5 or +0.5.
            let a: Vec<DealOutcome> = (0..deals)
                .map(|g| (if g % 2 == 0 { 2 } else { 0 }, 0, 200))
                .collect();
            let b: Vec<DealOutcome> = (0..deals).map(|_| (1, 0, 200)).collect();
            f.add(0, 0, &a);
            f.add(1, 0, &b);
            let e = effects(&f, &axes, &[Metric::Seat0], &[1, 1], 2, &|_, _| f64::NAN);
            for x in &e {
                let (lo, hi) = x.interval.expect("a rate's level always has an interval");
                assert!(
                    (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi) && lo <= x.mean,
                    "{deals} deals: {x:?}"
                );
            }
            let (lo, hi) = e[1].diff_interval.unwrap();
            assert!(
                (-1.0..=1.0).contains(&lo) && (-1.0..=1.0).contains(&hi) && lo < hi,
                "{deals} deals: {:?}",
                e[1]
            );
            if deals == 1 {
                assert!(e[1].p.is_none(), "one deal has no variance: {:?}", e[1]);
            } else {
                assert!(e[1].p.is_some());
            }
        }
        // Turns over one deal: no interval and no test, not NaN and p = 0.
        let mut f = EffectsFold::new(2, vec![vec![0], vec![1]], 0, 1);
        f.add(0, 0, &[(1, 0, 200)]);
        f.add(1, 0, &[(1, 0, 260)]);
        let e = effects(&f, &axes, &[Metric::Turns], &[1, 1], 2, &|_, _| f64::NAN);
        assert_eq!(
            (e[1].interval, e[1].diff_interval, e[1].p),
            (None, None, None)
        );
        assert_eq!((e[1].mean, e[1].diff), (130.0, Some(30.0)));
        // Every deal's difference alike: no test.
        let mut f = EffectsFold::new(2, vec![vec![0], vec![1]], 0, 10);
        f.add(0, 0, &[(0, 0, 200); 10]);
        f.add(1, 0, &[(1, 0, 200); 10]);
        let e = effects(&f, &axes, &[Metric::Seat0], &[1, 1], 2, &|_, _| f64::NAN);
        assert!(e[1].p.is_none(), "{:?}", e[1]);
        assert!(e[1].diff_interval.unwrap().0 > -1.0);
    }
}
