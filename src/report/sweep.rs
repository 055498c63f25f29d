//! The report of `aeroplane sweep`: the variants by fairness (with their multiple-comparison
//! adjusted p-values), each bot's win rate per variant, the main effect of every option value,
//! and the paired comparison.

use serde_json::Value;

use crate::export::format_p;

use super::ReportError;
use super::chart::{self, IntervalChart, Point, Series};
use super::check;
use super::html::{Page, json_text, pct, pct_interval, td, tn};
use super::load::{Csv, Folder, Row};
use super::run;

/// A variant label split into `(option, value)` settings.
fn settings(label: &str) -> Vec<(String, String)> {
    label
        .split_whitespace()
        .filter_map(|t| t.split_once('='))
        .map(|(o, v)| (o.to_string(), v.to_string()))
        .collect()
}

/// Whether every setting of a variant label is the base rules' own value.
fn is_base(rules: &Value, label: &str) -> bool {
    let s = settings(label);
    !s.is_empty()
        && s.iter().all(|(o, v)| {
            rules
                .get(o)
                .is_some_and(|b| json_text(b).replace(' ', "") == v.replace(' ', ""))
        })
}

fn players_of(r: &Row<'_>) -> usize {
    r.int("players").unwrap_or(4).clamp(2, 4) as usize
}

/// The sweep's tables against each other, the manifest and summary.json.
fn cross_check(f: &Folder, sweep: &Csv) {
    let variants: Vec<String> = f
        .manifest_field("sweep")
        .and_then(|s| s.get("variants"))
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if !variants.is_empty() && variants.len() != sweep.len() {
        check::disagree(
            f,
            "the variants",
            ("sweep.csv", format!("{} rows", sweep.len())),
            ("run.json", format!("{} variants", variants.len())),
        );
    }
    let deals = f.manifest_field("games").and_then(Value::as_u64);
    let rotated = f
        .manifest_field("rotate_seats")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let complete = check::games_played(f).is_some();
    let json_rows = f.report().and_then(|r| r.rows.as_ref());
    for (i, r) in sweep.rows().enumerate() {
        if let Some(want) = variants.get(i)
            && r.text("variant") != want
        {
            check::disagree(
                f,
                &format!("variant {}", i + 1),
                (
                    "sweep.csv",
                    format!("`{}`", aeroplane_core::excerpt::excerpt(r.text("variant"))),
                ),
                ("run.json", format!("`{want}`")),
            );
        }
        let per_deal = if rotated { players_of(&r) as u64 } else { 1 };
        if let (true, Some(d), Some(g)) = (complete, deals, r.int("games"))
            && g != d * per_deal
        {
            check::disagree(
                f,
                &format!("sweep.csv row {}'s games", r.line),
                ("sweep.csv", g.to_string()),
                ("run.json", format!("{} deals x {per_deal}", d)),
            );
        }
        if let Some(j) = json_rows.and_then(|rows| rows.get(i)) {
            let jg = j.summary.as_ref().and_then(|s| s.games);
            if let (Some(a), Some(b)) = (r.int("games"), jg)
                && a != b
            {
                check::disagree(
                    f,
                    &format!("sweep.csv row {}'s games", r.line),
                    ("sweep.csv", a.to_string()),
                    ("summary.json", b.to_string()),
                );
            }
            let seat0 = j
                .summary
                .as_ref()
                .and_then(|s| s.seats.first()?.win_rate.map(|n| n.0));
            if let (Some(a), Some(b)) = (r.num("seat0_win"), seat0)
                && (a - b).abs() > 1e-6
            {
                check::disagree(
                    f,
                    &format!("sweep.csv row {}'s seat 0 win rate", r.line),
                    ("sweep.csv", check::short(a)),
                    ("summary.json", check::short(b)),
                );
            }
        }
    }
    if let Some(rows) = json_rows
        && rows.len() != sweep.len()
    {
        check::disagree(
            f,
            "the variants",
            ("sweep.csv", format!("{} rows", sweep.len())),
            ("summary.json", format!("{} rows", rows.len())),
        );
    }
}

/// The sweep report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page = run::header(f, "aeroplane sweep report", "sweep");
    let Some(sweep) = f.need("sweep.csv", "sweep") else {
        run::reproduce(&mut page, f);
        return Ok(page.finish(&run::footer(f), &f.problems()));
    };
    let sound = check::table(f, "sweep.csv", &sweep);
    cross_check(f, &sweep);
    let rows: Vec<Row<'_>> = sweep.rows().collect();
    let players = rows.first().map_or(4, players_of);
    let fair = 1.0 / players as f64;
    if run::seats_are_comparable(f) == Some(false) {
        page.note(
            "Seats are not rotated and the bots differ: seat 0's edge mixes the seat with the bot in it, so it is not a first-player advantage. Rotate the seats or seat identical bots to measure the seats.",
        );
    }
    let deals = f.manifest_field("games").and_then(Value::as_u64);
    if let Some(d) = deals.filter(|&d| d < crate::stats::MIN_DEALS) {
        page.note(&format!(
            "Only {d} deals per variant: too few to trust these intervals and tests (give at least {}).",
            crate::stats::MIN_DEALS
        ));
    }

    // Fairest first, among the sound rows.
    let edge = |i: usize| {
        rows[i]
            .num("max_seat_edge")
            .filter(|_| sound[i])
            .unwrap_or(f64::INFINITY)
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| edge(a).total_cmp(&edge(b)).then(a.cmp(&b)));
    page.h2("fairness", "Variants by fairness");
    let rates = |r: &Row<'_>| {
        (0..players)
            .filter_map(|s| r.num(&format!("seat{}_win", seat_of(s, players))))
            .map(pct)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let adjusted = |r: &Row<'_>, c: &str| r.p(c).map_or("-".into(), format_p);
    if let Some(&best) = order.first().filter(|&&b| edge(b).is_finite()) {
        let b = &rows[best];
        let flagged = rows
            .iter()
            .filter(|r| r.p("chi2_p_holm").is_some_and(|p| p.value() < 0.05))
            .count();
        page.finding(&format!(
            "Fairest-looking: {} (variant {}), no seat more than {:.2} points from the fair {} (seats win {}; all seats equal: p = {}, Holm-adjusted {}, Benjamini-Hochberg {}).",
            b.text("variant"),
            b.text("index"),
            100.0 * edge(best),
            pct(fair),
            rates(b),
            b.p("chi2_p").map_or("-".into(), format_p),
            adjusted(b, "chi2_p_holm"),
            adjusted(b, "chi2_p_bh"),
        ));
        page.note(&format!(
            "Picked as the smallest largest-seat-edge of {} variants, the fairest-looking variant is partly luck (a winner's curse): its edge is an optimistic estimate. Judge unfairness by the adjusted p-values, which account for the number of variants ({flagged} of {} variants have a Holm-adjusted p below 0.05), and confirm a choice on fresh seeds with --compare.",
            rows.len(),
            rows.len()
        ));
    }
    let seat_cols: Vec<String> = (0..players)
        .map(|s| format!("seat{}_win", seat_of(s, players)))
        .collect();
    let mut head: Vec<String> = vec!["#".into(), "variant".into()];
    head.extend(
        seat_cols
            .iter()
            .map(|c| format!("{} wins", c.trim_end_matches("_win"))),
    );
    for h in [
        "p (all seats equal)",
        "Holm",
        "BH",
        "largest seat edge (points)",
        "mean turns",
        "median",
        "p95",
        "unfinished",
    ] {
        head.push(h.into());
    }
    let base = f.manifest_field("rules");
    let table_rows = order
        .iter()
        .map(|&i| {
            let r = &rows[i];
            let mut label = r.text("variant").to_string();
            if base.is_some_and(|b| is_base(b, r.text("variant"))) {
                label.push_str(" (the base rules)");
            }
            let ok = sound[i];
            let num = |c: &str, f: &dyn Fn(f64) -> String| {
                if ok {
                    r.num(c).map_or(String::new(), f)
                } else {
                    "?".into()
                }
            };
            let mut row = vec![tn(r.text("index")), td(label)];
            for c in &seat_cols {
                row.push(tn(num(c, &pct)));
            }
            row.push(tn(r.p("chi2_p").map_or(String::new(), format_p)));
            row.push(tn(r.p("chi2_p_holm").map_or(String::new(), format_p)));
            row.push(tn(r.p("chi2_p_bh").map_or(String::new(), format_p)));
            row.push(tn(num("max_seat_edge", &|x| format!("{:.2}", 100.0 * x))));
            row.push(tn(num("turns_mean", &|x| format!("{x:.1}"))));
            row.push(tn(r.text("turns_median")));
            row.push(tn(r.text("turns_p95")));
            row.push(tn(r.text("unfinished")));
            row
        })
        .collect();
    let head_refs: Vec<&str> = head.iter().map(String::as_str).collect();
    page.table_keyed(&head_refs, table_rows, Some(0), 2);
    page.p("p: each variant's own chi-square test of equal seats; Holm (family-wise error) and BH (Benjamini-Hochberg, false discovery rate) adjust it over the sweep's variants: judge a variant by those.");

    per_bot(&mut page, f, &rows, &sound)?;
    effects(&mut page, f, fair, players)?;
    comparison(&mut page, f)?;
    run::luck(&mut page, f);
    run::reproduce(&mut page, f);
    Ok(page.finish(&run::footer(f), &f.problems()))
}

/// The k-th seat in play: with two players, seats 0 and 2.
fn seat_of(k: usize, players: usize) -> usize {
    if players == 2 { 2 * k } else { k }
}

/// Each lineup entry's win rate per variant, when the lineup's bots differ.
fn per_bot(
    page: &mut Page,
    f: &Folder,
    rows: &[Row<'_>],
    sound: &[bool],
) -> Result<(), ReportError> {
    let names = f.bot_names();
    if names.iter().all(|n| *n == names[0]) || rows.iter().all(|r| r.text("bot0_win").is_empty()) {
        return Ok(());
    }
    page.h2("bots", "Win rate per bot");
    let mut head = vec!["#".to_string(), "variant".to_string()];
    head.extend(names.iter().enumerate().map(|(k, n)| format!("{k}: {n}")));
    let table: Vec<_> = rows
        .iter()
        .zip(sound)
        .map(|(r, ok)| {
            let mut row = vec![tn(r.text("index")), td(r.text("variant"))];
            for k in 0..names.len() {
                let rate = r.num(&format!("bot{k}_win")).filter(|_| *ok);
                let lo = r.num(&format!("bot{k}_lo95"));
                let hi = r.num(&format!("bot{k}_hi95"));
                row.push(tn(rate.map_or("?".into(), |x| pct_interval(x, lo, hi))));
            }
            row
        })
        .collect();
    let refs: Vec<&str> = head.iter().map(String::as_str).collect();
    page.table_keyed(&refs, table, None, 2);
    page.p("Each lineup entry's share of its games won under each variant, with its 95% interval (cluster-robust by deal when seats are rotated).");
    Ok(())
}

/// The main effect of each option value (effects.csv): level charts and the differences.
fn effects(page: &mut Page, f: &Folder, fair: f64, players: usize) -> Result<(), ReportError> {
    let Some(ef) = f.csv("effects.csv") else {
        return Ok(());
    };
    let sound = check::table(f, "effects.csv", &ef);
    let rows: Vec<(Row<'_>, bool)> = ef.rows().zip(sound).collect();
    let mut options: Vec<&str> = Vec::new();
    for (r, _) in &rows {
        if !options.contains(&r.text("option")) {
            options.push(r.text("option"));
        }
    }
    page.h2("effects", "Main effects");
    page.p("What each option value does on average: a value's level is its metric averaged over the variants that have it (every combination of the other options' values); the difference is from the option's reference value (the base rules' own, else the first), paired by deal. Intervals are 95%, computed on the deals, which all variants share.");
    for option in options {
        page.h3(&format!("Option {option}"));
        let of = |metric: &str| -> Vec<&(Row<'_>, bool)> {
            rows.iter()
                .filter(|(r, _)| r.text("option") == option && r.text("metric") == metric)
                .collect()
        };
        for (metric, label, scale, offset, y) in [
            (
                "seat0_win",
                "seat 0",
                100.0,
                100.0 * fair,
                "seat 0 wins minus fair share (points)",
            ),
            (
                "bot0_win",
                "lineup entry 0",
                100.0,
                0.0,
                "lineup entry 0's win rate (%)",
            ),
            ("turns", "mean turns", 1.0, 0.0, "mean game length (turns)"),
        ] {
            let sel = of(metric);
            if sel.is_empty() {
                continue;
            }
            let values: Vec<String> = sel
                .iter()
                .map(|(r, _)| r.text("value").to_string())
                .collect();
            let points: Vec<Point> = sel
                .iter()
                .enumerate()
                .filter(|(_, (_, ok))| *ok)
                .filter_map(|(i, (r, _))| {
                    let m = r.num("mean")?;
                    Some(Point {
                        cat: i,
                        value: scale * m - offset,
                        interval: r
                            .num("mean_lo95")
                            .zip(r.num("mean_hi95"))
                            .map(|(l, h)| (scale * l - offset, scale * h - offset)),
                    })
                })
                .collect();
            let svg = chart::intervals(&IntervalChart {
                categories: values,
                series: vec![Series {
                    name: format!("{label} with its 95% interval by deal"),
                    points,
                }],
                x_label: option,
                y_label: y,
                reference: (metric == "seat0_win").then(|| (0.0, format!("fair: 1/{players}"))),
                decimals: 1,
                floor: (metric == "turns").then_some(0.0),
            })?;
            page.figure(
                &svg,
                &format!("{label} for each value of {option}, averaged over the other options."),
            );
            let fmt = |x: f64| {
                if metric == "turns" {
                    format!("{x:.1}")
                } else {
                    format!("{:.2}", 100.0 * x)
                }
            };
            let table = sel
                .iter()
                .map(|(r, ok)| {
                    let bad = || "?".to_string();
                    let level = match (ok, r.num("mean")) {
                        (true, Some(m)) => match r.num("mean_lo95").zip(r.num("mean_hi95")) {
                            Some((l, h)) => format!("{} [{}, {}]", fmt(m), fmt(l), fmt(h)),
                            None => fmt(m),
                        },
                        _ => bad(),
                    };
                    let diff = match (ok, r.num("diff")) {
                        (true, Some(d)) => match r.num("diff_lo95").zip(r.num("diff_hi95")) {
                            Some((l, h)) => format!("{} [{}, {}]", fmt(d), fmt(l), fmt(h)),
                            None => fmt(d),
                        },
                        (true, None) => "reference".into(),
                        _ => bad(),
                    };
                    vec![
                        td(r.text("value")),
                        tn(level),
                        tn(diff),
                        tn(r.p("p").map_or(String::new(), format_p)),
                    ]
                })
                .collect();
            let unit = if metric == "turns" {
                "turns"
            } else {
                "%, points"
            };
            page.table(
                &[
                    "value",
                    &format!("{label} ({unit}) [95%]"),
                    "value - reference [95%]",
                    "p (paired t by deal)",
                ],
                table,
                None,
            );
        }
    }
    Ok(())
}

fn comparison(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    let Some(cmp) = f.csv("compare.csv") else {
        return Ok(());
    };
    let sound = check::table(f, "compare.csv", &cmp);
    page.h2("compare", "Paired comparison");
    for (r, ok) in cmp.rows().zip(&sound) {
        let (a, b) = (r.text("a"), r.text("b"));
        let (true, Some(ma), Some(mb), Some(d), Some(lo), Some(hi), Some(p)) = (
            *ok,
            r.num("mean_a"),
            r.num("mean_b"),
            r.num("diff"),
            r.num("diff_lo95"),
            r.num("diff_hi95"),
            r.p("p"),
        ) else {
            continue;
        };
        // The same sign as compare.csv: a - b.
        match r.text("metric") {
            "seat0_win" => page.finding(&format!(
                "Seat 0 wins {} under a = {a} and {} under b = {b}: a - b = {:+.2} points [{:+.2}, {:+.2}] (95%, paired over the same deals; McNemar p = {}).",
                pct(ma),
                pct(mb),
                100.0 * d,
                100.0 * lo,
                100.0 * hi,
                format_p(p)
            )),
            "turns" => page.finding(&format!(
                "Games last {ma:.2} turns under a = {a} and {mb:.2} under b = {b}: a - b = {d:+.2} turns [{lo:+.2}, {hi:+.2}] (95%, paired t, p = {}).",
                format_p(p)
            )),
            _ => {}
        }
    }
    let rows = cmp
        .rows()
        .map(|r| {
            let mut row = vec![td(r.text("a")), td(r.text("b")), td(r.text("metric"))];
            let rate = r.text("metric") != "turns";
            for c in ["mean_a", "mean_b", "diff", "diff_lo95", "diff_hi95"] {
                row.push(tn(r.num(c).map_or("?".into(), |x| {
                    if rate {
                        format!("{:.4}", x)
                    } else {
                        format!("{x:.2}")
                    }
                })));
            }
            row.push(tn(r.p("p").map_or(String::new(), format_p)));
            row.push(td(r.text("method")));
            row
        })
        .collect();
    page.table_keyed(
        &[
            "a",
            "b",
            "metric",
            "mean a",
            "mean b",
            "a - b",
            "a - b low 95%",
            "a - b high 95%",
            "p",
            "method",
        ],
        rows,
        None,
        3,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_split_into_settings_and_the_base_is_recognised() {
        assert_eq!(
            settings("overshoot=bounce launch_rolls=[2,4,6]"),
            vec![
                ("overshoot".to_string(), "bounce".to_string()),
                ("launch_rolls".to_string(), "[2,4,6]".to_string())
            ]
        );
        assert!(settings("base").is_empty());
        let rules = serde_json::json!({"overshoot": "bounce", "launch_rolls": [2, 4, 6]});
        assert!(is_base(&rules, "overshoot=bounce launch_rolls=[2,4,6]"));
        assert!(!is_base(&rules, "overshoot=illegal launch_rolls=[2,4,6]"));
        assert!(!is_base(&rules, "base"));
    }
}
