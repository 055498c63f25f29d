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
//! p-values in the input order, each at least its raw p-value and at most 1.

/// Holm-adjusted p-values: the `i`-th smallest of `n` becomes
/// `max over j <= i of min(1, (n - j + 1) p_(j))`.
pub fn holm(p: &[Option<f64>]) -> Vec<Option<f64>> {
    let order = ascending(p);
    let n = order.len() as f64;
    let mut out = vec![None; p.len()];
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        let v = p[i].expect("tested");
        running = running.max(((n - j as f64) * v).min(1.0));
        out[i] = Some(running);
    }
    out
}

/// Benjamini-Hochberg-adjusted p-values: the `i`-th smallest of `n` becomes
/// `min over j >= i of min(1, n p_(j) / j)`.
pub fn benjamini_hochberg(p: &[Option<f64>]) -> Vec<Option<f64>> {
    let order = ascending(p);
    let n = order.len() as f64;
    let mut out = vec![None; p.len()];
    let mut running: f64 = 1.0;
    for (j, &i) in order.iter().enumerate().rev() {
        let v = p[i].expect("tested");
        running = running.min((n * v / (j + 1) as f64).min(1.0));
        out[i] = Some(running);
    }
    out
}

/// Indices of the tested p-values, smallest first (ties in input order).
fn ascending(p: &[Option<f64>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| p[i].is_some()).collect();
    order.sort_by(|&a, &b| p[a].expect("tested").total_cmp(&p[b].expect("tested")));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[Option<f64>], b: &[Option<f64>]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            match (x, y) {
                (Some(x), Some(y)) => assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}"),
                (None, None) => {}
                _ => panic!("{a:?} vs {b:?}"),
            }
        }
    }

    #[test]
    fn holm_and_bh_match_r_p_adjust() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "holm") and "BH".
        let p = [Some(0.01), Some(0.04), Some(0.03), Some(0.005), Some(0.5)];
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
        let p = [None, Some(0.2), None];
        close(&holm(&p), &p);
        close(&benjamini_hochberg(&p), &p);
        close(
            &holm(&[Some(0.3), None, Some(0.01)]),
            &[Some(0.3), None, Some(0.02)],
        );
        assert!(holm(&[]).is_empty());
    }
}
