//! The report of `aeroplane run --sprt`: the run's figures and the LLR path against the bounds.

use serde_json::Value;

use crate::analysis::elo::format_elo;

use super::ReportError;
use super::chart;
use super::check;
use super::load::Folder;
use super::run;
use super::views::{Num, SprtView};

/// The test's state: summary.json's, else sprt.json's (an older folder), as a typed view.
fn state(f: &Folder) -> Option<SprtView> {
    if let Some(s) = f.report().and_then(|r| r.sprt.clone()) {
        return Some(s);
    }
    let s = f.sprt.as_ref()?.get("sprt")?;
    serde_json::from_value(s.clone())
        .map_err(|e| {
            f.problem(format!(
                "sprt.json's test is not what an SPRT writes ({}): it is left out",
                aeroplane_core::excerpt::clip_message(e)
            ))
        })
        .ok()
}

/// A figure of the test, when it is one a test can have (finite and sensible).
fn finite(n: Option<Num>, what: &str, f: &Folder, max: f64) -> Option<f64> {
    let x = n?.0;
    if x.is_finite() && x.abs() <= max {
        Some(x)
    } else {
        f.problem(format!(
            "the SPRT's {what} is {x}, not a value a test can have: left out"
        ));
        None
    }
}

/// The SPRT report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page = run::header(f, "aeroplane SPRT report", "sprt");
    let report = f.report();
    let name = |k: &str| {
        report
            .and_then(|r| {
                if k == "bot_a" {
                    r.bot_a.clone()
                } else {
                    r.bot_b.clone()
                }
            })
            .or_else(|| f.sprt.as_ref()?.get(k)?.as_str().map(String::from))
            .unwrap_or_else(|| if k == "bot_a" { "bot A" } else { "bot B" }.to_string())
    };
    let (a, b) = (name("bot_a"), name("bot_b"));
    page.h2("sprt", "Sequential test");
    match state(f) {
        Some(s) => {
            let c = s.config.as_ref();
            let cfg = |k: fn(&super::views::SprtConfigView) -> Option<Num>| {
                c.and_then(k).map(|n| n.0).filter(|x| x.is_finite())
            };
            let (elo0, elo1) = (cfg(|c| c.elo0), cfg(|c| c.elo1));
            let (alpha, beta) = (cfg(|c| c.alpha), cfg(|c| c.beta));
            let games = f
                .manifest_field("games_played")
                .and_then(Value::as_u64)
                .or_else(|| f.sprt.as_ref()?.get("games")?.as_u64());
            let games_text = games.map_or_else(String::new, |g| format!(" after {g} games"));
            let pairs = s.groups.unwrap_or(0);
            let show = |x: Option<f64>| x.map_or("?".to_string(), |x| format!("{x}"));
            let said = match s
                .verdict
                .as_deref()
                .unwrap_or("")
                .to_ascii_lowercase()
                .as_str()
            {
                v if v.contains("h1") => format!(
                    "H1 accepted{games_text} ({pairs} rotation pairs): {a}'s Elo advantage over {b} is unlikely to be elo0 = {} or less (the test accepts H1 at most alpha = {} of the time when it is). It does not say the advantage is at least elo1 = {}: see the estimate below.",
                    show(elo0),
                    show(alpha),
                    show(elo1)
                ),
                v if v.contains("h0") => format!(
                    "H0 accepted{games_text} ({pairs} rotation pairs): {a}'s Elo advantage over {b} is unlikely to be elo1 = {} or more (the test accepts H0 at most beta = {} of the time when it is).",
                    show(elo1),
                    show(beta)
                ),
                _ => format!(
                    "Inconclusive{games_text} ({pairs} rotation pairs): the game limit came before either bound."
                ),
            };
            page.finding(&said);
            if let Some(e) = &s.elo {
                let x = |n: Option<Num>| n.map_or("?".to_string(), |n| format_elo(n.0));
                page.p(&format!(
                    "Estimated Elo of {a} over {b}: {} [{}, {}] (95%); likelihood of superiority {}; score {}.",
                    x(e.elo),
                    x(e.low),
                    x(e.high),
                    s.los
                        .filter(|l| (0.0..=1.0).contains(&l.0))
                        .map_or("?".into(), |l| format!("{:.2}%", 100.0 * l.0)),
                    s.score
                        .filter(|l| (0.0..=1.0).contains(&l.0))
                        .map_or("?".into(), |l| format!("{:.4}", l.0)),
                ));
            }
            let lower = finite(s.lower, "lower bound", f, 1e3).unwrap_or(-3.0);
            let upper = finite(s.upper, "upper bound", f, 1e3).unwrap_or(3.0);
            let mut path: Vec<(u64, f64)> = Vec::new();
            let mut bad = 0;
            for (g, l) in report.and_then(|r| r.path.as_ref()).into_iter().flatten() {
                if g.0.is_finite() && g.0 >= 0.0 && l.0.is_finite() && l.0.abs() <= 1e6 {
                    path.push((g.0 as u64, l.0));
                } else {
                    bad += 1;
                }
            }
            if bad > 0 {
                f.problem(format!(
                    "summary.json's LLR path holds {bad} point(s) no test can have (infinite or beyond ±1e6): left out"
                ));
            }
            if path.is_empty() {
                page.note(
                    "This folder records only the test's final state (summary.json has no LLR path: it was written before the path was recorded, or is missing), so the chart shows the final LLR alone.",
                );
                if let Some(l) = finite(s.llr, "LLR", f, 1e6) {
                    path.push((games.unwrap_or(0), l));
                }
            }
            if let (Some(j), Some(t)) = (
                f.sprt
                    .as_ref()
                    .and_then(|x| x.get("sprt")?.get("llr")?.as_f64()),
                s.llr.map(|n| n.0),
            ) && (j - t).abs() > 1e-9 * t.abs().max(1.0)
            {
                check::disagree(
                    f,
                    "the final LLR",
                    ("sprt.json", j.to_string()),
                    ("summary.json", t.to_string()),
                );
            }
            let svg = chart::llr_path(&path, lower, upper)?;
            page.figure(
                &svg,
                &format!(
                    "The log-likelihood ratio of H1 (elo1 = {}) against H0 (elo0 = {}) after each check of the test; it stops at the first crossing of a bound (alpha = {}, beta = {}).",
                    show(elo1),
                    show(elo0),
                    show(alpha),
                    show(beta)
                ),
            );
        }
        None => {
            page.note("Neither summary.json nor sprt.json gives the test's state: it is unknown.")
        }
    }
    run::sections(&mut page, f)?;
    run::reproduce(&mut page, f);
    Ok(page.finish(&run::footer(f), &f.problems()))
}
