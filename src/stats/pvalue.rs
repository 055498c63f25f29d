//! P-values that stay exact far below the smallest `f64`, and print one way everywhere.
//!
//! A seat test over millions of games easily gives `p = 1e-400`, which a `f64` rounds to 0. A
//! [`PValue`] keeps the base-10 logarithm instead (the tails of the chi-square, normal and
//! Student t distributions are computed in log space where they underflow), so stdout, the CSV
//! files and `summary.json` all write the same number: `3.21e-412`, not `0` in one place and
//! `< 1e-300` in another. Text forms: [`PValue::text`] (stdout, reports: four decimals, never
//! rounded across 0.05 or 0.01; scientific below 1e-4) and [`PValue::sci`] (CSV).

use statrs::distribution::{ChiSquared, ContinuousCDF, StudentsT};
use statrs::function::beta::ln_beta;
use statrs::function::gamma::ln_gamma;

/// Below this a plain `f64` p-value is not trusted to be exact and the log-space tail is used.
const TINY: f64 = 1e-290;

/// A p-value: the `f64`, and `log10(p)` for where the `f64` underflows (`-inf` for an exact 0,
/// the p of a degenerate test).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct PValue {
    log10: f64,
    p: f64,
}

impl PValue {
    /// A p-value from a probability (clamped to `[0, 1]`).
    pub fn new(p: f64) -> PValue {
        let p = if p.is_nan() { 1.0 } else { p.clamp(0.0, 1.0) };
        PValue {
            log10: p.log10(),
            p,
        }
    }

    /// A p-value from its base-10 logarithm (at most 0).
    pub fn from_log10(log10: f64) -> PValue {
        let log10 = if log10.is_nan() { 0.0 } else { log10.min(0.0) };
        PValue {
            log10,
            p: 10f64.powf(log10),
        }
    }

    /// The chance of a chi-square statistic with `df` degrees of freedom at least `stat`.
    pub fn chi_square(stat: f64, df: u32) -> PValue {
        if stat.is_nan() || stat <= 0.0 {
            return PValue::new(1.0);
        }
        if stat.is_infinite() {
            return PValue::new(0.0);
        }
        let p = ChiSquared::new(f64::from(df)).expect("df >= 1").sf(stat);
        if p >= TINY {
            return PValue::new(p);
        }
        PValue::from_log10(ln_gamma_q(f64::from(df) / 2.0, stat / 2.0) / std::f64::consts::LN_10)
    }

    /// The two-sided p-value of a standard normal statistic.
    pub fn normal_two_sided(z: f64) -> PValue {
        if z.is_nan() {
            return PValue::new(1.0);
        }
        // P(|Z| >= z) = P(chi-square with 1 df >= z²).
        PValue::chi_square(z * z, 1)
    }

    /// The two-sided p-value of a Student t statistic with `df` degrees of freedom.
    pub fn student_two_sided(t: f64, df: f64) -> PValue {
        if t.is_nan() {
            return PValue::new(1.0);
        }
        if t.is_infinite() {
            return PValue::new(0.0);
        }
        let dist = StudentsT::new(0.0, 1.0, df).expect("df > 0");
        let p = (2.0 * dist.cdf(-t.abs())).min(1.0);
        if p >= TINY {
            return PValue::new(p);
        }
        // P(|T| >= t) = I_x(df/2, 1/2) with x = df / (df + t²).
        let ln_x = df.ln() - 2.0 * t.abs().ln() - (df / (t * t)).ln_1p();
        PValue::from_log10(ln_beta_reg_small(df / 2.0, 0.5, ln_x) / std::f64::consts::LN_10)
    }

    /// `p`, as a `f64` (0 where it underflows).
    pub fn value(self) -> f64 {
        self.p
    }

    /// `log10(p)`.
    pub fn log10(self) -> f64 {
        self.log10
    }

    /// `min(1, k p)`, for the multiple-comparison adjustments.
    pub fn times(self, k: f64) -> PValue {
        if self.p >= TINY {
            PValue::new((self.p * k).min(1.0))
        } else {
            PValue::from_log10(self.log10 + k.log10())
        }
    }

    /// The form stdout and the reports print: four decimals from 1e-4 up (more where rounding
    /// to four would cross 0.05 or 0.01: `0.04996`, not `0.0500`), `5.50e-8` below, `0` for an
    /// exact 0 (a degenerate test).
    pub fn text(self) -> String {
        let p = self.value();
        if self.log10 == f64::NEG_INFINITY {
            "0".to_string()
        } else if p >= 1e-4 {
            for decimals in 4..=12 {
                let t = format!("{p:.decimals$}");
                let shown: f64 = t.parse().expect("a number");
                if [0.05, 0.01].iter().all(|&a| (shown < a) == (p < a)) {
                    return t;
                }
            }
            format!("{p}")
        } else {
            self.sci(2)
        }
    }

    /// Scientific notation with `digits` decimals, as Rust writes `{:.digits$e}` (`1.234e-5`),
    /// also below the smallest `f64` (`3.214e-412`); `0.000e0` for an exact 0.
    pub fn sci(self, digits: usize) -> String {
        let p = self.value();
        if p >= TINY || self.log10 == f64::NEG_INFINITY {
            return format!("{p:.digits$e}");
        }
        let mut exponent = self.log10.floor();
        let mut mantissa = 10f64.powf(self.log10 - exponent);
        // Rounding may carry the mantissa to 10.
        if format!("{mantissa:.digits$}").starts_with("10") {
            mantissa /= 10.0;
            exponent += 1.0;
        }
        format!("{mantissa:.digits$}e{}", exponent as i64)
    }

    /// Reads a p-value as [`PValue::sci`] or [`PValue::text`] wrote it (also below the
    /// smallest `f64`); `None` for anything else.
    pub fn parse(text: &str) -> Option<PValue> {
        let text = text.trim();
        let v: f64 = text.parse().ok()?;
        if !(0.0..=1.0).contains(&v) {
            return None;
        }
        if v >= TINY || v == 0.0 && !text.contains('e') {
            return Some(PValue::new(v));
        }
        let (m, e) = text.split_once(['e', 'E'])?;
        let (m, e): (f64, i64) = (m.parse().ok()?, e.parse().ok()?);
        if m == 0.0 {
            return Some(PValue::new(0.0));
        }
        if !(m > 0.0 && m.is_finite()) || e.abs() > 100_000 {
            return None;
        }
        Some(PValue::from_log10(m.log10() + e as f64))
    }
}

impl serde::Serialize for PValue {
    /// A JSON number: the `f64` where it is exact, else the [`PValue::sci`] text with 6
    /// decimals (JSON numbers have no range limit; most readers turn it into 0).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.value();
        if p >= TINY || self.log10 == f64::NEG_INFINITY {
            s.serialize_f64(p)
        } else {
            let raw = serde_json::value::RawValue::from_string(self.sci(6))
                .map_err(serde::ser::Error::custom)?;
            raw.serialize(s)
        }
    }
}

/// `ln Q(a, x)`, the regularized upper incomplete gamma function, for `x > 0`: the continued
/// fraction (modified Lentz) where `x > a + 1`, where it is small and would underflow.
fn ln_gamma_q(a: f64, x: f64) -> f64 {
    if x <= a + 1.0 {
        return statrs::function::gamma::gamma_ur(a, x).ln();
    }
    const FPMIN: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / FPMIN;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..10_000 {
        let i = f64::from(i);
        let an = -i * (i - a);
        b += 2.0;
        d = 1.0 / not_tiny(an * d + b);
        c = not_tiny(b + an / c);
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    -x + a * x.ln() - ln_gamma(a) + h.ln()
}

/// `x`, or the smallest magnitude the continued fractions allow in its place.
fn not_tiny(x: f64) -> f64 {
    if x.abs() < 1e-300 { 1e-300 } else { x }
}

/// `ln I_x(a, b)`, the regularized incomplete beta function, for small `x` (given as
/// `ln x`): `x^a (1 - x)^b / (a B(a, b))` times its continued fraction.
fn ln_beta_reg_small(a: f64, b: f64, ln_x: f64) -> f64 {
    let x = ln_x.exp();
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / not_tiny(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..10_000 {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        // One step of the modified Lentz recurrence: d and c updated by the term `aa`.
        let mut step = |aa: f64| {
            d = 1.0 / not_tiny(1.0 + aa * d);
            c = not_tiny(1.0 + aa / c);
            d * c
        };
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    a * ln_x + b * (-x).ln_1p() - ln_beta(a, b) - a.ln() + h.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn log_space_tails_agree_with_the_plain_ones_where_both_work() {
        // Where the f64 tails are still representable, the log-space forms give the same.
        for (stat, df) in [(600.0, 1), (900.0, 3), (1200.0, 2), (60.0, 1)] {
            let plain = ChiSquared::new(f64::from(df)).unwrap().sf(stat).log10();
            close(
                ln_gamma_q(f64::from(df) / 2.0, stat / 2.0) / 10f64.ln(),
                plain,
                1e-9,
            );
        }
        let t = StudentsT::new(0.0, 1.0, 9.0).unwrap();
        let plain = (2.0 * t.cdf(-1e6)).log10();
        let ln_x = 9f64.ln() - 2.0 * 1e6f64.ln() - (9.0 / 1e12f64).ln_1p();
        close(ln_beta_reg_small(4.5, 0.5, ln_x) / 10f64.ln(), plain, 1e-9);
    }

    /// Issue 22, item 5: where the f64 p-value is 0, the text still says how small it is.
    #[test]
    fn p_values_below_the_smallest_f64_are_exact() {
        // Normal tail: 2 Phi(-z) = 2 phi(z) / z (1 - 1/z² + 3/z⁴ - ...).
        let z = 40.0f64;
        let asymptotic =
            (2.0f64).ln() - z * z / 2.0 - (z * (2.0 * std::f64::consts::PI).sqrt()).ln()
                + (1.0 - 1.0 / (z * z) + 3.0 / z.powi(4) - 15.0 / z.powi(6)).ln();
        let p = PValue::normal_two_sided(z);
        close(p.log10(), asymptotic / 10f64.ln(), 1e-9);
        assert_eq!(p.sci(3), "7.312e-350");
        assert_eq!(p.value(), 0.0);
        assert_eq!(p.text(), "7.31e-350");
        let chi = PValue::chi_square(2000.0, 3);
        assert!(chi.log10() < -430.0 && chi.log10() > -440.0, "{chi:?}");
        assert_eq!(PValue::parse(&chi.sci(3)).unwrap().sci(3), chi.sci(3));
        let json = serde_json::to_string(&chi).unwrap();
        assert_eq!(json, chi.sci(6));
        // An exact 0 stays 0; ordinary values print as before.
        assert_eq!(PValue::new(0.0).sci(3), "0.000e0");
        assert_eq!(PValue::new(0.0).text(), "0");
        assert_eq!(PValue::new(1.234_56e-5).sci(3), "1.235e-5");
        assert_eq!(serde_json::to_string(&PValue::new(0.25)).unwrap(), "0.25");
    }

    /// Issue 22, item 5: 0.04996 printed as 0.0500.
    #[test]
    fn text_never_rounds_across_a_significance_level() {
        assert_eq!(PValue::new(0.38654).text(), "0.3865");
        assert_eq!(PValue::new(0.049_96).text(), "0.04996");
        assert_eq!(PValue::new(0.049_999_7).text(), "0.0499997");
        assert_eq!(PValue::new(0.05).text(), "0.0500");
        assert_eq!(PValue::new(0.009_996).text(), "0.009996");
        assert_eq!(PValue::new(5.503e-8).text(), "5.50e-8");
    }
}
