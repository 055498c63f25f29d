//! Rates as the text reports print them: in percent, two decimals.

/// A rate: `74.25%`.
pub fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// A change of a rate in percentage points, with its sign: `+1.69%`.
pub fn signed_pct(x: f64) -> String {
    format!("{:+.2}%", 100.0 * x)
}

/// A rate's interval: `[21.57%, 30.43%]`, `-` for none.
pub fn pct_interval(i: Option<(f64, f64)>) -> String {
    match i {
        Some((lo, hi)) => format!("[{:.2}%, {:.2}%]", 100.0 * lo, 100.0 * hi),
        None => "-".to_string(),
    }
}
