//! Multiple-comparison corrections: one p-value per variant of a sweep, adjusted for the
//! number of variants tested, so a variant that looks unfair by chance among dozens is not
//! reported as unfair.
//!
//! - [`holm`]: Holm's step-down adjustment (1979). It controls the family-wise error rate:
//!   the chance that any variant is wrongly called unfair is at most the level. Valid under
//!   any dependence between the tests.
//! - [`benjamini_hochberg`]: the Benjamini-Hochberg step-up adjustment (1995). It controls the
//!   false discovery rate: the expected share of wrongly flagged variants among the flagged
//!   ones. Less strict than Holm, the usual choice for large sweeps. Exact for independent or
//!   positively dependent tests.
//!
//! Both take `None` for an untested variant (it is left out of the count) and return adjusted
//! p-values in the input order, each at least its raw p-value and at most 1. They work on
//! [`PValue`]s, so a p-value far below the smallest `f64` is adjusted exactly too.

use crate::stats::PValue;

/// Holm-adjusted p-values: the `i`-th smallest of `n` becomes
/// `max over j <= i of min(1, (n - j + 1) p_(j))`.
pub fn holm(p: &[Option<PValue>]) -> Vec<Option<PValue>> {
    let order = ascending(p);
    let n = order.len() as f64;
    let mut out = vec![None; p.len()];
    let mut running: Option<PValue> = None;
    for (j, &i) in order.iter().enumerate() {
        let v = p[i].expect("tested").times(n - j as f64);
        let r = match running {
            Some(r) if r.log10() >= v.log10() => r,
            _ => v,
        };
        running = Some(r);
        out[i] = Some(r);
    }
    out
}

/// Benjamini-Hochberg-adjusted p-values: the `i`-th smallest of `n` becomes
/// `min over j >= i of min(1, n p_(j) / j)`.
pub fn benjamini_hochberg(p: &[Option<PValue>]) -> Vec<Option<PValue>> {
    let order = ascending(p);
    let n = order.len() as f64;
    let mut out = vec![None; p.len()];
    let mut running = PValue::new(1.0);
    for (j, &i) in order.iter().enumerate().rev() {
        let v = p[i].expect("tested").times(n / (j + 1) as f64);
        if v.log10() < running.log10() {
            running = v;
        }
        out[i] = Some(running);
    }
    out
}

/// Indices of the tested p-values, smallest first (ties in input order).
fn ascending(p: &[Option<PValue>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| p[i].is_some()).collect();
    let key = |i: usize| p[i].expect("tested").log10();
    order.sort_by(|&a, &b| key(a).total_cmp(&key(b)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ps(p: &[Option<f64>]) -> Vec<Option<PValue>> {
        p.iter().map(|x| x.map(PValue::new)).collect()
    }

    fn close(a: &[Option<PValue>], b: &[Option<f64>]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            match (x, y) {
                (Some(x), Some(y)) => assert!((x.value() - y).abs() < 1e-12, "{a:?} vs {b:?}"),
                (None, None) => {}
                _ => panic!("{a:?} vs {b:?}"),
            }
        }
    }

    #[test]
    fn holm_and_bh_match_r_p_adjust() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "holm") and "BH".
        let p = ps(&[Some(0.01), Some(0.04), Some(0.03), Some(0.005), Some(0.5)]);
        close(
            &holm(&p),
            &[Some(0.04), Some(0.09), Some(0.09), Some(0.025), Some(0.5)],
        );
        close(
            &benjamini_hochberg(&p),
            &[Some(0.025), Some(0.05), Some(0.05), Some(0.025), Some(0.5)],
        );
    }

    #[test]
    fn untested_variants_are_left_out_and_one_test_is_unchanged() {
        let raw = [None, Some(0.2), None];
        let p = ps(&raw);
        close(&holm(&p), &raw);
        close(&benjamini_hochberg(&p), &raw);
        close(
            &holm(&ps(&[Some(0.3), None, Some(0.01)])),
            &[Some(0.3), None, Some(0.02)],
        );
        assert!(holm(&[]).is_empty());
    }

    /// Issue 22, item 5: p-values below the smallest f64 are adjusted exactly, not as 0.
    #[test]
    fn tiny_p_values_are_adjusted_in_log_space() {
        let tiny = PValue::from_log10(-400.0);
        let adjusted = holm(&[Some(tiny), Some(PValue::new(0.5))]);
        assert!((adjusted[0].unwrap().log10() - (-400.0 + 2f64.log10())).abs() < 1e-9);
        assert_eq!(adjusted[0].unwrap().sci(3), "2.000e-400");
        let bh = benjamini_hochberg(&[Some(tiny), Some(PValue::new(0.5))]);
        assert_eq!(bh[0].unwrap().sci(3), "2.000e-400");
    }
}
