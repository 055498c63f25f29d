//! The report of `aeroplane sweep`: per varied option, seat advantage and mean length per
//! value; the variants sorted by fairness; the paired comparison.

use serde_json::Value;

use crate::export::format_p;

use super::ReportError;
use super::chart::{self, IntervalChart, Point, Series};
use super::html::{Page, json_text, pct, td, tn};
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

/// The varied options, in product order: from run.json, else from the first variant's label.
fn options(f: &Folder, sweep: &Csv) -> Vec<String> {
    let from_manifest: Vec<String> = f
        .manifest_field("sweep")
        .and_then(|s| s.get("vary"))
        .and_then(Value::as_array)
        .map(|v| {
            v.iter()
                .filter_map(Value::as_str)
                .filter_map(|t| t.split_once('=').map(|x| x.0.trim().to_string()))
                .collect()
        })
        .unwrap_or_default();
    if !from_manifest.is_empty() {
        return from_manifest;
    }
    sweep
        .rows()
        .next()
        .map(|r| {
            settings(r.text("variant"))
                .into_iter()
                .map(|s| s.0)
                .collect()
        })
        .unwrap_or_default()
}

fn players_of(r: &Row<'_>) -> usize {
    r.int("players").unwrap_or(4).clamp(2, 4) as usize
}

/// The sweep report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page = run::header(f, "aeroplane sweep report", "sweep");
    let sweep = f.need("sweep.csv", "sweep")?;
    let rows: Vec<Row<'_>> = sweep.rows().collect();
    let players = rows.first().map_or(4, players_of);
    let fair = 1.0 / players as f64;
    if run::seats_are_comparable(f) == Some(false) {
        page.note(
            "Seats are not rotated and the bots differ: seat 0's edge mixes the seat with the bot in it, so it is not a first-player advantage. Rotate the seats or seat identical bots to measure the seats.",
        );
    }
    let rotated = f
        .manifest_field("rotate_seats")
        .and_then(Value::as_bool)
        .unwrap_or(false);

    // Fairest first.
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        let e = |i: usize| rows[i].num("max_seat_edge").unwrap_or(f64::INFINITY);
        e(a).total_cmp(&e(b)).then(a.cmp(&b))
    });
    page.h2("fairness", "Variants by fairness");
    if let (Some(&best), Some(&worst)) = (order.first(), order.last()) {
        let rates = |r: &Row<'_>| {
            (0..players)
                .map(|s| r.num(&format!("seat{s}_win")).map_or("?".into(), pct))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (b, w) = (&rows[best], &rows[worst]);
        let edge = |r: &Row<'_>| 100.0 * r.num("max_seat_edge").unwrap_or(f64::NAN);
        let p = |r: &Row<'_>| r.p("chi2_p").map_or("?".into(), format_p);
        page.finding(&format!(
            "Fairest: {} (variant {}): no seat is more than {:.2} points from the fair {} (seats win {}; p = {} for all seats equal).",
            b.text("variant"),
            b.text("index"),
            edge(b),
            pct(fair),
            rates(b),
            p(b)
        ));
        if rows.len() > 1 {
            page.p(&format!(
                "Least fair: {} (variant {}), {:.2} points (seats win {}; p = {}). The p-values are per variant, not corrected for the number of variants compared.",
                w.text("variant"),
                w.text("index"),
                edge(w),
                rates(w),
                p(w)
            ));
        }
    }
    let mut head: Vec<String> = vec!["#".into(), "variant".into()];
    for s in 0..players {
        head.push(format!("seat {s} wins"));
    }
    for h in [
        "p (equal seats)",
        "max seat edge (points)",
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
        .enumerate()
        .map(|(place, &i)| {
            let r = &rows[i];
            let mut marks = Vec::new();
            if place == 0 {
                marks.push("fairest");
            }
            if base.is_some_and(|b| is_base(b, r.text("variant"))) {
                marks.push("the base rules");
            }
            let mut label = r.text("variant").to_string();
            if !marks.is_empty() {
                label.push_str(&format!(" ({})", marks.join("; ")));
            }
            let mut row = vec![tn(r.text("index")), td(label)];
            for s in 0..players {
                row.push(tn(r
                    .num(&format!("seat{s}_win"))
                    .map_or(String::new(), pct)));
            }
            row.push(tn(r.p("chi2_p").map_or(String::new(), format_p)));
            row.push(tn(r
                .num("max_seat_edge")
                .map_or(String::new(), |x| format!("{:.2}", 100.0 * x))));
            row.push(tn(r.text("turns_mean")));
            row.push(tn(r.text("turns_median")));
            row.push(tn(r.text("turns_p95")));
            row.push(tn(r.text("unfinished")));
            row
        })
        .collect();
    let head_refs: Vec<&str> = head.iter().map(String::as_str).collect();
    page.table(&head_refs, table_rows, Some(0));

    for option in options(f, &sweep) {
        option_section(&mut page, &rows, &option, fair, players, rotated)?;
    }
    comparison(&mut page, f)?;
    run::reproduce(&mut page, f, "sweep");
    Ok(page.finish(&run::footer(f)))
}

/// A variant's estimate and its interval.
type Measure<'a> = dyn Fn(&Row<'_>) -> Option<(f64, Option<(f64, f64)>)> + 'a;

/// For one option: the first player's edge and the mean length per value, one series per
/// setting of the other options.
fn option_section(
    page: &mut Page,
    rows: &[Row<'_>],
    option: &str,
    fair: f64,
    players: usize,
    rotated: bool,
) -> Result<(), ReportError> {
    page.h2(&format!("option-{option}"), &format!("Option {option}"));
    let mut values: Vec<String> = Vec::new();
    let mut series_keys: Vec<String> = Vec::new();
    let mut placed = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let s = settings(r.text("variant"));
        let Some(v) = s.iter().find(|x| x.0 == option).map(|x| x.1.clone()) else {
            continue;
        };
        let others: Vec<String> = s
            .iter()
            .filter(|x| x.0 != option)
            .map(|x| format!("{}={}", x.0, x.1))
            .collect();
        let key = if others.is_empty() {
            String::new()
        } else {
            others.join(" ")
        };
        let cat = values.iter().position(|x| *x == v).unwrap_or_else(|| {
            values.push(v.clone());
            values.len() - 1
        });
        let ser = series_keys
            .iter()
            .position(|x| *x == key)
            .unwrap_or_else(|| {
                series_keys.push(key.clone());
                series_keys.len() - 1
            });
        placed.push((i, cat, ser));
    }
    let build = |value: &Measure<'_>, single: &str| {
        series_keys
            .iter()
            .enumerate()
            .map(|(j, key)| Series {
                name: if key.is_empty() {
                    single.to_string()
                } else {
                    key.clone()
                },
                points: placed
                    .iter()
                    .filter(|p| p.2 == j)
                    .filter_map(|&(i, cat, _)| {
                        let (v, iv) = value(&rows[i])?;
                        Some(Point {
                            cat,
                            value: v,
                            interval: iv,
                        })
                    })
                    .collect(),
            })
            .collect::<Vec<_>>()
    };
    let edge = |r: &Row<'_>| {
        let w = r.num("seat0_win")?;
        let iv = r
            .num("seat0_lo95")
            .zip(r.num("seat0_hi95"))
            .map(|(l, h)| (100.0 * (l - fair), 100.0 * (h - fair)));
        Some((100.0 * (w - fair), iv))
    };
    let svg = chart::intervals(&IntervalChart {
        categories: values.clone(),
        series: build(&edge, "seat 0 with its 95% interval"),
        x_label: option,
        y_label: "seat 0 wins minus fair share (points)",
        reference: Some((0.0, format!("fair: 1/{players}"))),
        decimals: 1,
        floor: None,
    })?;
    page.figure(
        &svg,
        &format!(
            "The first player's edge for each value of {option}: seat 0's win rate minus 1/{players}, in percentage points, with its 95% interval."
        ),
    );
    let length = |r: &Row<'_>| {
        let m = r.num("turns_mean")?;
        let iv = match (r.num("turns_sd"), r.num("games")) {
            (Some(sd), Some(n)) if n > 1.0 => {
                // Games of one deal share its dice: count deals, not games, when rotated.
                let n = if rotated { n / players as f64 } else { n };
                let half = 1.96 * sd / n.sqrt();
                Some((m - half, m + half))
            }
            _ => None,
        };
        Some((m, iv))
    };
    let svg = chart::intervals(&IntervalChart {
        categories: values,
        series: build(&length, "mean turns with its 95% interval"),
        x_label: option,
        y_label: "mean game length (turns)",
        reference: None,
        decimals: 1,
        floor: Some(0.0),
    })?;
    page.figure(
        &svg,
        &format!(
            "Mean game length in turns for each value of {option}; bars are mean ± 1.96 sd/√n ({}).",
            if rotated {
                "n = deals: a deal's rotations share dice"
            } else {
                "n = games"
            }
        ),
    );
    Ok(())
}

fn comparison(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    let Some(cmp) = f.csv("compare.csv")? else {
        return Ok(());
    };
    page.h2("compare", "Paired comparison");
    for r in cmp.rows() {
        let (a, b) = (r.text("a"), r.text("b"));
        let (Some(ma), Some(mb), Some(d), Some(lo), Some(hi), Some(p)) = (
            r.num("mean_a"),
            r.num("mean_b"),
            r.num("diff"),
            r.num("diff_lo95"),
            r.num("diff_hi95"),
            r.p("p"),
        ) else {
            continue;
        };
        match r.text("metric") {
            // compare.csv's diff is a - b; say the change from a to b.
            "seat0_win" => page.finding(&format!(
                "Seat 0 wins {} under {b} against {} under {a}: a change of {:+.2} points [{:+.2}, {:+.2}] (95%, paired over the same deals; McNemar p = {}).",
                pct(mb),
                pct(ma),
                -100.0 * d,
                -100.0 * hi,
                -100.0 * lo,
                format_p(p)
            )),
            "turns" => page.finding(&format!(
                "Games last {mb:.2} turns under {b} against {ma:.2} under {a}: a change of {:+.2} turns [{:+.2}, {:+.2}] (95%, paired t, p = {}).",
                -d,
                -hi,
                -lo,
                format_p(p)
            )),
            _ => {}
        }
    }
    let rows = cmp
        .rows()
        .map(|r| {
            let mut row = vec![td(r.text("a")), td(r.text("b")), td(r.text("metric"))];
            for c in ["mean_a", "mean_b", "diff", "diff_lo95", "diff_hi95"] {
                row.push(tn(r.text(c)));
            }
            row.push(tn(r.p("p").map_or(String::new(), format_p)));
            row
        })
        .collect();
    page.table(
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
        ],
        rows,
        None,
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
