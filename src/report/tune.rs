//! The report of `aeroplane tune`: each parameter over the iterations, the match results, the
//! confirming SPRT, the tuned profile and how to reproduce it.

use serde_json::Value;

use super::ReportError;
use super::chart::{self, Trace};
use super::html::{Page, json_text, td, tn};
use super::load::{Csv, Folder};
use super::run;

/// Iterations in the moving average of the results chart.
const WINDOW: usize = 20;

/// The most iterations whose dots a chart draws (every n-th beyond it, so a long tune's page
/// stays small).
const MAX_DOTS: usize = 200;

/// Every n-th of `points` (the first included) so that at most [`MAX_DOTS`] remain, and n.
fn thinned(points: Vec<(f64, f64)>) -> (Vec<(f64, f64)>, usize) {
    let stride = points.len().div_ceil(MAX_DOTS).max(1);
    (points.into_iter().step_by(stride).collect(), stride)
}

/// How a caption says which iterations' dots are drawn: `""` or `", every 5th iteration"`.
fn every(stride: usize) -> String {
    match stride {
        1 => String::new(),
        n => format!(", every {n}th iteration"),
    }
}

/// The tune report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let title = f.title(|| "aeroplane tune".to_string());
    let mut page = Page::new("aeroplane tune report", &title);
    let summary_report = f.report_value();
    let report = summary_report.as_ref();
    let m = |k: &str| f.manifest_field(k);
    let t = |k: &str| m("tune").and_then(|t| t.get(k));
    let mut facts = Vec::new();
    if let Some(r) = m("rules_name").and_then(Value::as_str) {
        facts.push(("rules", r.to_string()));
    }
    let bots = f.bot_names();
    let opponent = t("opponent").and_then(Value::as_bool) == Some(true);
    if let Some(b) = bots.first() {
        facts.push(("bot tuned", b.clone()));
    }
    if opponent && bots.len() > 1 {
        facts.push(("opponent", bots[1].clone()));
    }
    if let Some(p) = m("players").and_then(Value::as_u64) {
        facts.push(("players", p.to_string()));
    }
    if let Some(s) = m("seed").and_then(Value::as_u64) {
        facts.push(("seed", s.to_string()));
    }
    if let (Some(k), Some(d)) = (
        t("iterations").and_then(Value::as_u64),
        t("pairs_per_iteration").and_then(Value::as_u64),
    ) {
        facts.push(("iterations", format!("{k} of {d} deals each")));
    }
    if let Some(d) = t("design").and_then(Value::as_str) {
        facts.push(("seatings", d.to_string()));
    }
    if let Some(g) = m("games_played").and_then(Value::as_u64) {
        facts.push(("games played", g.to_string()));
    }
    if let Some(s) = m("status").and_then(Value::as_str) {
        facts.push(("status", s.to_string()));
    }
    match &f.manifest {
        None => page.note(
            "run.json is missing from this folder: what was tuned (rules, bot, seed) is unknown.",
        ),
        Some(_) => page.facts(&facts),
    }
    if m("status")
        .and_then(Value::as_str)
        .is_some_and(|s| s != "complete")
    {
        page.note("The tune did not complete: summary.json, history.csv and tuned.toml are written only at the end (resume it with `aeroplane resume`).");
    }
    let params: Vec<&Value> = report
        .and_then(|r| r.get("params"))
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
    let name = |v: &Value| {
        v.get("name")
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string()
    };
    if !params.is_empty() {
        let moves: Vec<String> = params
            .iter()
            .map(|p| {
                format!(
                    "{} from {} to {}",
                    name(p),
                    num(p, "start").map_or("?".into(), |x| x.to_string()),
                    num(p, "tuned").map_or("?".into(), |x| x.to_string())
                )
            })
            .collect();
        let games = report.and_then(|r| r.get("games")).and_then(Value::as_u64);
        let iterations = report
            .and_then(|r| r.get("iterations"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if iterations > 0 {
            page.finding(&format!(
                "SPSA moved {} over {iterations} iterations ({} games).",
                moves.join(", "),
                games.map_or("?".into(), |g| g.to_string())
            ));
        } else {
            page.finding(&format!(
                "A confirmation of values tuned earlier: {}.",
                moves.join(", ")
            ));
        }
    }
    let confirm = report
        .and_then(|r| r.get("confirm"))
        .filter(|c| !c.is_null());
    if let Some(c) = confirm {
        page.finding(&confirmation_sentence(c));
    }

    page.h2("parameters", "Parameters");
    if params.is_empty() {
        page.note("summary.json is missing or holds no parameters: the tuned values are unknown.");
    } else {
        let rows = params
            .iter()
            .map(|p| {
                vec![
                    td(name(p)),
                    tn(format!(
                        "{}..{}",
                        num(p, "lo").unwrap_or(f64::NAN),
                        num(p, "hi").unwrap_or(f64::NAN)
                    )),
                    tn(num(p, "start").map_or(String::new(), |x| x.to_string())),
                    tn(num(p, "tuned").map_or(String::new(), |x| x.to_string())),
                    tn(match (num(p, "gradient_mean"), num(p, "gradient_se")) {
                        (Some(g), Some(s)) => format!("{g:+.4e} ± {s:.4e}"),
                        _ => String::new(),
                    }),
                ]
            })
            .collect();
        page.table(
            &[
                "parameter",
                "range",
                "start",
                "tuned",
                "mean gradient estimate ± se (over iterations)",
            ],
            rows,
            None,
        );
    }
    let history = f.csv("history.csv");
    match &history {
        Some(h) => parameter_charts(&mut page, h, &params)?,
        None if report
            .and_then(|r| r.get("iterations"))
            .and_then(Value::as_u64)
            == Some(0) => {}
        None => page.note("history.csv is missing: the path of each parameter cannot be drawn."),
    }
    if let Some(h) = &history {
        page.h2("results", "Match results");
        results_chart(&mut page, h)?;
    }

    page.h2("confirmation", "Confirmation");
    match confirm {
        Some(c) => confirmation(&mut page, c)?,
        None => page.note(
            "No confirmation in this folder: the tune ran without one (--no-confirm), or did not finish.",
        ),
    }
    if let Some(p) = report
        .and_then(|r| r.get("profile"))
        .and_then(Value::as_str)
    {
        page.h2("profile", "Tuned profile");
        page.p("tuned.toml, a profile for --bots-dir (or name the file as a bot):");
        page.pre(p);
    }
    reproduce(&mut page, f);
    Ok(page.finish(&run::footer(f), &f.problems()))
}

/// The confirmation's outcome in one sentence.
fn confirmation_sentence(c: &Value) -> String {
    let s = c.get("sprt");
    let verdict = s
        .and_then(|s| s.get("verdict"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let games = c.get("games").and_then(Value::as_u64).unwrap_or(0);
    let elo = s.and_then(|s| s.get("elo"));
    let e = |k: &str| elo.and_then(|x| x.get(k)).and_then(Value::as_f64);
    let cfg = s.and_then(|s| s.get("config"));
    let bound = |k: &str| {
        cfg.and_then(|x| x.get(k))
            .and_then(Value::as_f64)
            .map_or("?".into(), |x| x.to_string())
    };
    let interval = match (e("elo"), e("low"), e("high")) {
        (Some(x), Some(l), Some(h)) => format!(" (Elo {x:+.1} [{l:+.1}, {h:+.1}])"),
        _ => String::new(),
    };
    match verdict {
        v if v.contains("h1") => format!(
            "Confirmed: the SPRT accepted H1 after {games} games on fresh deals: the tuned profile is stronger than the start by at least elo1 = {}{interval}.",
            bound("elo1")
        ),
        v if v.contains("h0") => format!(
            "Not confirmed: the SPRT accepted H0 after {games} games on fresh deals: the tuned profile is not stronger than the start by the tested margin (elo0 = {}){interval}.",
            bound("elo0")
        ),
        _ => format!(
            "Inconclusive: the confirming SPRT reached its pair limit after {games} games{interval}."
        ),
    }
}

/// One chart per parameter: the point and the values played, over the iterations.
fn parameter_charts(page: &mut Page, h: &Csv, params: &[&Value]) -> Result<(), ReportError> {
    // iteration, six columns per parameter, then eight of the games (see history_header).
    let count = h.header().len().saturating_sub(9) / 6;
    let names: Vec<String> = h.header().iter().skip(1).take(count).cloned().collect();
    for name in names {
        let p = params
            .iter()
            .find(|p| p.get("name").and_then(Value::as_str) == Some(name.as_str()));
        let num = |k: &str| p.and_then(|p| p.get(k)).and_then(Value::as_f64);
        let col = |suffix: &str| -> Vec<(f64, f64)> {
            h.rows()
                .filter_map(|r| Some((r.num("iteration")?, r.num(&format!("{name}{suffix}"))?)))
                .collect()
        };
        let mut theta = col("");
        let tuned = num("tuned");
        if let (Some(&(k, _)), Some(t)) = (theta.last(), num("theta")) {
            theta.push((k + 1.0, t));
        }
        let (mut played, stride) = thinned(col("_plus"));
        played.extend(thinned(col("_minus")).0);
        let series = vec![
            Trace {
                name: "theta+ and theta- played".into(),
                points: played,
                colour: 5,
                dots: true,
            },
            Trace {
                name: format!("{name}: the point theta_k"),
                points: theta,
                colour: 0,
                dots: false,
            },
        ];
        let mut refs = Vec::new();
        if let Some(s) = num("start") {
            refs.push((s, format!("start {s}"), 1));
        }
        if let Some(t) = tuned {
            refs.push((t, format!("tuned {t}"), 2));
        }
        let span = match (num("lo"), num("hi")) {
            (Some(lo), Some(hi)) if hi > lo => Some((lo, hi)),
            _ => None,
        };
        let svg = chart::trace(&series, &refs, "iteration", &name, span, 2)?;
        page.figure(
            &svg,
            &format!(
                "{name} over the iterations: the optimiser's point (line, ending at its final value) and the two values each iteration played (dots{}), on the parameter's whole range{}; dashed: the start and the tuned value.",
                every(stride),
                span.map_or(String::new(), |(lo, hi)| format!(" {lo}..{hi}"))
            ),
        );
    }
    Ok(())
}

/// Each iteration's result and its moving average.
fn results_chart(page: &mut Page, h: &Csv) -> Result<(), ReportError> {
    let points: Vec<(f64, f64)> = h
        .rows()
        .filter_map(|r| Some((r.num("iteration")?, r.num("result")?)))
        .collect();
    let mut average = Vec::new();
    for i in 0..points.len() {
        let lo = (i + 1).saturating_sub(WINDOW);
        let w = &points[lo..=i];
        average.push((
            points[i].0,
            w.iter().map(|p| p.1).sum::<f64>() / w.len() as f64,
        ));
    }
    let (dots, stride) = thinned(points);
    let series = vec![
        Trace {
            name: "result of the iteration".into(),
            points: dots,
            colour: 5,
            dots: true,
        },
        Trace {
            name: format!("mean of the last {WINDOW}"),
            points: average,
            colour: 0,
            dots: false,
        },
    ];
    let refs = vec![(0.0, "no difference".to_string(), 1)];
    let svg = chart::trace(
        &series,
        &refs,
        "iteration",
        "theta+ against theta- (wins - losses per game)",
        None,
        2,
    )?;
    page.figure(
        &svg,
        &format!(
            "Each iteration's match of theta+ against theta- (dots{}; wins minus losses per game, over its deals; the sign of each parameter's perturbation decides which way the result moves it), and the mean of the last {WINDOW}. Near an optimum the results scatter around zero.",
            every(stride)
        ),
    );
    Ok(())
}

/// The confirming SPRT: its LLR path and figures.
fn confirmation(page: &mut Page, c: &Value) -> Result<(), ReportError> {
    let s = c.get("sprt");
    let num = |k: &str| s.and_then(|s| s.get(k)).and_then(Value::as_f64);
    let tuned = c.get("tuned").and_then(Value::as_str).unwrap_or("tuned");
    let start = c.get("start").and_then(Value::as_str).unwrap_or("start");
    let elo = s.and_then(|s| s.get("elo"));
    let e = |k: &str| elo.and_then(|x| x.get(k)).and_then(Value::as_f64);
    page.p(&format!(
        "The SPRT of {tuned} against {start}, on deals from {} on (none of them played by the tune), in the tune's seatings; each deal is one group.",
        c.get("first_deal").map(json_text).unwrap_or_default()
    ));
    if let (Some(el), Some(lo), Some(hi)) = (e("elo"), e("low"), e("high")) {
        page.p(&format!(
            "Estimated Elo of the tuned profile over the start: {el:.1} [{lo:.1}, {hi:.1}] (95%); likelihood of superiority {}; mean deal score {:.4}.",
            num("los").map_or("?".into(), |x| format!("{:.2}%", 100.0 * x)),
            num("score").unwrap_or(f64::NAN)
        ));
    }
    let path: Vec<(u64, f64)> = c
        .get("path")
        .and_then(Value::as_array)
        .map(|p| {
            p.iter()
                .filter_map(|x| Some((x.get(0)?.as_u64()?, x.get(1)?.as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    let (lower, upper) = (num("lower").unwrap_or(-3.0), num("upper").unwrap_or(3.0));
    let svg = chart::llr_path(&path, lower, upper)?;
    let cfg = s.and_then(|s| s.get("config"));
    let k = |key: &str| {
        cfg.and_then(|x| x.get(key))
            .and_then(Value::as_f64)
            .unwrap_or(f64::NAN)
    };
    page.figure(
        &svg,
        &format!(
            "The log-likelihood ratio of H1 (elo1 = {}) against H0 (elo0 = {}) after each check; the test stops at the first crossing of a bound (alpha = {}, beta = {}).",
            k("elo1"),
            k("elo0"),
            k("alpha"),
            k("beta")
        ),
    );
    Ok(())
}

/// How to run the tune again.
fn reproduce(page: &mut Page, f: &Folder) {
    page.h2("reproduce", "Reproduce");
    let Some(m) = &f.manifest else {
        page.note("run.json is missing from this folder: the command that made it is unknown.");
        return;
    };
    let s = |k: &str| m.get(k).map(json_text).unwrap_or_default();
    let t = m.get("tune");
    let tk = |k: &str| t.and_then(|t| t.get(k)).map(json_text).unwrap_or_default();
    let bots = f.bot_names();
    let mut line = format!(
        "aeroplane tune --rules {} --bot '{}'",
        s("rules_name"),
        bots.first().cloned().unwrap_or_default()
    );
    for p in t
        .and_then(|t| t.get("params"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        line.push_str(&format!(
            " --param {}={}..{}",
            p.get("name").map(json_text).unwrap_or_default(),
            p.get("lo").map(json_text).unwrap_or_default(),
            p.get("hi").map(json_text).unwrap_or_default()
        ));
    }
    line.push_str(&format!(" --players {}", s("players")));
    if t.and_then(|t| t.get("opponent")).and_then(Value::as_bool) == Some(true) {
        line.push_str(&format!(
            " --opponent '{}'",
            bots.get(1).cloned().unwrap_or_default()
        ));
    }
    line.push_str(&format!(
        " --iterations {} --pairs-per-iteration {} --seed {} --perturbation {} --step {} --alpha {} --gamma {} --stability {}",
        tk("iterations"),
        tk("pairs_per_iteration"),
        s("seed"),
        tk("perturbation"),
        tk("step"),
        tk("alpha"),
        tk("gamma"),
        tk("stability")
    ));
    match t.and_then(|t| t.get("confirm")).filter(|c| !c.is_null()) {
        Some(c) => line.push_str(&format!(
            " --sprt {} --confirm-pairs {} --chunk-size {}",
            c.get("test").map(json_text).unwrap_or_default(),
            c.get("max_pairs").map(json_text).unwrap_or_default(),
            c.get("chunk_deals").map(json_text).unwrap_or_default()
        )),
        None => line.push_str(" --no-confirm"),
    }
    line.push_str(" --out DIR");
    if t.and_then(|t| t.get("given")).is_some_and(|g| !g.is_null()) {
        page.p("This folder confirms values tuned earlier (aeroplane tune --confirm): the tune that found them ran as");
    } else {
        page.p("The command that made these results (they do not depend on threads or the chunk size within an iteration):");
    }
    page.pre(&line);
    page.p("An interrupted tune goes on with `aeroplane resume DIR`, to the same files.");
    page.facts(&[
        ("seed", s("seed")),
        ("tool", format!("{} {}", s("tool"), s("version"))),
        ("seeding", s("numbering")),
    ]);
    if let Some(rules) = m.get("rules").and_then(Value::as_object) {
        page.h3("Rules");
        let rows = rules
            .iter()
            .map(|(k, v)| vec![td(k.clone()), td(json_text(v))])
            .collect();
        page.table(&["option", "value"], rows, None);
    }
}
