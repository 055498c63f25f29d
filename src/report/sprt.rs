//! The report of `aeroplane run --sprt`: the run's figures and the LLR path against the bounds.

use serde_json::Value;

use super::ReportError;
use super::chart;
use super::load::Folder;
use super::run;

/// The SPRT report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page = run::header(f, "aeroplane SPRT report", "sprt");
    let report = f.report();
    // The test's final state: summary.json's report, else sprt.json.
    let state = report
        .and_then(|r| r.get("sprt"))
        .or_else(|| f.sprt.as_ref().and_then(|s| s.get("sprt")));
    let name = |k: &str| {
        report
            .and_then(|r| r.get(k))
            .or_else(|| f.sprt.as_ref().and_then(|s| s.get(k)))
            .and_then(Value::as_str)
            .unwrap_or(if k == "bot_a" { "bot A" } else { "bot B" })
            .to_string()
    };
    let (a, b) = (name("bot_a"), name("bot_b"));
    page.h2("sprt", "Sequential test");
    match state {
        Some(s) => {
            let num = |k: &str| s.get(k).and_then(Value::as_f64);
            let cfg = s.get("config");
            let c = |k: &str| cfg.and_then(|c| c.get(k)).and_then(Value::as_f64);
            let games = f
                .manifest_field("games_played")
                .and_then(Value::as_u64)
                .or_else(|| f.sprt.as_ref()?.get("games")?.as_u64());
            let verdict = s.get("verdict").and_then(Value::as_str).unwrap_or("");
            let elo = s.get("elo");
            let e = |k: &str| elo.and_then(|x| x.get(k)).and_then(Value::as_f64);
            let games_text = games.map_or_else(String::new, |g| format!(" after {g} games"));
            let pairs = s.get("groups").and_then(Value::as_u64).unwrap_or(0);
            let said = match verdict.to_ascii_lowercase().as_str() {
                v if v.contains("h1") => format!(
                    "H1 accepted{games_text} ({pairs} rotation pairs): {a} is stronger than {b} by at least the tested margin (elo1 = {}).",
                    c("elo1").map_or("?".into(), |x| format!("{x}"))
                ),
                v if v.contains("h0") => format!(
                    "H0 accepted{games_text} ({pairs} rotation pairs): {a} is not stronger than {b} by the tested margin (no better than elo0 = {}).",
                    c("elo0").map_or("?".into(), |x| format!("{x}"))
                ),
                _ => format!(
                    "Inconclusive{games_text} ({pairs} rotation pairs): the game limit came before either bound."
                ),
            };
            page.finding(&said);
            if let (Some(el), Some(lo), Some(hi)) = (e("elo"), e("low"), e("high")) {
                page.p(&format!(
                    "Estimated Elo of {a} over {b}: {el:.1} [{lo:.1}, {hi:.1}] (95%); likelihood of superiority {}; score {:.4}.",
                    num("los").map_or("?".into(), |l| format!("{:.2}%", 100.0 * l)),
                    num("score").unwrap_or(f64::NAN)
                ));
            }
            let (lower, upper) = (num("lower").unwrap_or(-3.0), num("upper").unwrap_or(3.0));
            let path: Option<Vec<(u64, f64)>> = report
                .and_then(|r| r.get("path"))
                .and_then(Value::as_array)
                .map(|p| {
                    p.iter()
                        .filter_map(|x| Some((x.get(0)?.as_u64()?, x.get(1)?.as_f64()?)))
                        .collect()
                });
            let path = match path {
                Some(p) if !p.is_empty() => p,
                _ => {
                    page.note(
                        "This folder records only the test's final state (summary.json has no LLR path: it was written before the path was recorded, or is missing), so the chart shows the final LLR alone.",
                    );
                    vec![(games.unwrap_or(0), num("llr").unwrap_or(0.0))]
                }
            };
            let svg = chart::llr_path(&path, lower, upper)?;
            page.figure(
                &svg,
                &format!(
                    "The log-likelihood ratio of H1 (elo1 = {}) against H0 (elo0 = {}) after each check of the test; it stops at the first crossing of a bound (alpha = {}, beta = {}).",
                    c("elo1").unwrap_or(f64::NAN),
                    c("elo0").unwrap_or(f64::NAN),
                    c("alpha").unwrap_or(f64::NAN),
                    c("beta").unwrap_or(f64::NAN)
                ),
            );
        }
        None => page.note(
            "Neither summary.json nor sprt.json is in this folder: the test's state is unknown.",
        ),
    }
    run::sections(&mut page, f)?;
    run::reproduce(&mut page, f, "sprt");
    Ok(page.finish(&run::footer(f)))
}
