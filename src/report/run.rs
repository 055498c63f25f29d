//! The report of `aeroplane run`: bots, seats, game lengths, events, and how to reproduce it.

use serde_json::Value;

use crate::export::format_p;

use super::ReportError;
use super::chart::{self, IntervalChart, Point, Series};
use super::html::{Page, json_text, pct, pct_interval, td, tn};
use super::load::{Csv, Folder};

/// The run report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page = header(f, "aeroplane run report", "run");
    sections(&mut page, f)?;
    reproduce(&mut page, f, "run");
    Ok(page.finish(&footer(f)))
}

/// The page with its title line and what was run.
pub(crate) fn header(f: &Folder, heading: &str, command: &str) -> Page {
    let title = f.title(|| fallback_title(f, command));
    let mut page = Page::new(heading, &title);
    let mut facts = Vec::new();
    let m = |k: &str| f.manifest_field(k);
    if let Some(r) = m("rules_name").and_then(Value::as_str) {
        facts.push(("rules", r.to_string()));
    }
    if let Some(b) = m("bots").and_then(Value::as_array) {
        let names: Vec<String> = b
            .iter()
            .filter_map(|x| x.get("name").and_then(Value::as_str).map(String::from))
            .collect();
        facts.push((
            if command == "league" { "pool" } else { "bots" },
            names.join(", "),
        ));
    }
    if let Some(p) = m("players").and_then(Value::as_u64) {
        facts.push(("players", p.to_string()));
    }
    if let Some(s) = m("seed").and_then(Value::as_u64) {
        facts.push(("seed", s.to_string()));
    }
    if let Some(r) = m("rotate_seats").and_then(Value::as_bool) {
        facts.push((
            "seats",
            if r {
                "rotated: every deal is played once per rotation of the lineup".to_string()
            } else {
                "not rotated: each bot keeps its seat".to_string()
            },
        ));
    }
    if let Some(g) = m("games_played").and_then(Value::as_u64) {
        facts.push(("games played", g.to_string()));
    }
    if let Some(s) = m("status").and_then(Value::as_str) {
        facts.push(("status", s.to_string()));
    }
    if f.manifest.is_none() {
        page.note(
            "run.json is missing from this folder: what was run (rules, bots, seed) is unknown, and the page shows only the tables.",
        );
    } else {
        page.facts(&facts);
    }
    if let Some(m) = &f.manifest
        && m.get("status").and_then(Value::as_str) != Some("complete")
        && m.get("status").is_some()
    {
        page.note("The job did not complete: these figures cover only the games it finished.");
    }
    page
}

fn fallback_title(f: &Folder, command: &str) -> String {
    let m = |k: &str| f.manifest_field(k).map(json_text).unwrap_or_default();
    if f.manifest.is_none() {
        return format!("aeroplane {command}: {}", f.path.display());
    }
    format!(
        "aeroplane {command}: rules {}, {} players, seed {}",
        m("rules_name"),
        m("players"),
        m("seed")
    )
}

/// The tool version and the folder, for the footer.
pub(crate) fn footer(f: &Folder) -> String {
    let version = f
        .manifest_field("version")
        .or_else(|| f.summary.as_ref().and_then(|s| s.get("version")))
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    format!(
        "Made by aeroplane {} report from the files in {} (results written by aeroplane {version}).",
        env!("CARGO_PKG_VERSION"),
        f.path.display()
    )
}

/// The run's sections: bots, seats, lengths, events.
pub(crate) fn sections(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    let summary = f.need("summary.csv", "run")?;
    let players = summary.rows().count();
    bots(page, &summary, players)?;
    match f.csv("seats.csv")? {
        Some(seats) => seats_section(page, f, &seats, players)?,
        None => page.note("seats.csv is missing from this folder: no seat figures."),
    }
    lengths(page, f)?;
    events(page, f)?;
    Ok(())
}

fn interval_of(row: &super::load::Row<'_>, lo: &str, hi: &str) -> Option<(f64, f64)> {
    Some((row.num(lo)?, row.num(hi)?))
}

fn bots(page: &mut Page, summary: &Csv, players: usize) -> Result<(), ReportError> {
    page.h2("bots", "Win rate per bot");
    let fair = 1.0 / players.max(1) as f64;
    let mut cats = Vec::new();
    let mut points = Vec::new();
    let mut rows = Vec::new();
    for (i, r) in summary.rows().enumerate() {
        let name = r.text("name");
        cats.push(format!("{}: {name}", r.text("bot")));
        let rate = r.num("win_rate").unwrap_or(0.0);
        let iv = interval_of(&r, "win_lo95", "win_hi95");
        points.push(Point {
            cat: i,
            value: 100.0 * rate,
            interval: iv.map(|(l, h)| (100.0 * l, 100.0 * h)),
        });
        rows.push(vec![
            tn(r.text("bot")),
            td(name),
            tn(r.text("games")),
            tn(r.text("wins")),
            tn(pct_interval(rate, iv.map(|x| x.0), iv.map(|x| x.1))),
            tn(r.text("mean_rank")),
        ]);
    }
    let svg = chart::intervals(&IntervalChart {
        categories: cats,
        series: vec![Series {
            name: "win rate with its 95% interval".into(),
            points,
        }],
        x_label: "lineup entry: bot",
        y_label: "games won (%)",
        reference: Some((
            100.0 * fair,
            format!("equal share 1/{players} = {:.1}%", 100.0 * fair),
        )),
        decimals: 1,
        floor: Some(0.0),
    })?;
    page.figure(
        &svg,
        "Share of its games each lineup entry won; bars are 95% Wilson intervals (widened for the correlation of a deal's rotations when seats are rotated).",
    );
    page.table(
        &[
            "bot",
            "name",
            "games",
            "wins",
            "win rate [95% interval]",
            "mean rank",
        ],
        rows,
        None,
    );
    Ok(())
}

/// The seat figures in words: the seat furthest from fair and the test of equal seats.
pub(crate) fn seat_sentence(seats: &Csv, players: usize) -> Option<String> {
    let fair = 1.0 / players.max(1) as f64;
    let (seat, colour, rate) = seats
        .rows()
        .filter_map(|r| Some((r.text("seat"), r.text("colour"), r.num("win_rate")?)))
        .max_by(|a, b| (a.2 - fair).abs().total_cmp(&(b.2 - fair).abs()))?;
    let row = seats.rows().next()?;
    let gap = 100.0 * (rate - fair);
    let way = if gap >= 0.0 { "more" } else { "less" };
    let test = match (row.p("p_all_equal"), row.num("chi2"), row.text("df")) {
        (Some(p), Some(chi2), df) => {
            let verdict = if p.value() < 0.05 {
                "the seats differ"
            } else {
                "no detectable difference between the seats"
            };
            format!(
                ", p = {} (chi-square {chi2:.2}, {df} degrees of freedom, test of all seats winning equally often: {verdict})",
                format_p(p)
            )
        }
        _ => String::new(),
    };
    let mut text = format!(
        "Seat {seat} ({colour}) wins {:.1} points {way} than fair ({} against {}){test}.",
        gap.abs(),
        pct(rate),
        pct(fair)
    );
    if seat != "0"
        && let Some(first) = seats.rows().find(|r| r.text("seat") == "0")
        && let Some(r0) = first.num("win_rate")
    {
        text.push_str(&format!(
            " The first player (seat 0) wins {} ({:+.1} points).",
            pct(r0),
            100.0 * (r0 - fair)
        ));
    }
    Some(text)
}

/// Whether seat rates measure the seats alone: seats rotated, or every bot the same.
pub(crate) fn seats_are_comparable(f: &Folder) -> Option<bool> {
    let rotated = f.manifest_field("rotate_seats")?.as_bool()?;
    let bots = f.manifest_field("bots")?.as_array()?;
    let first = bots.first()?;
    Some(rotated || bots.iter().all(|b| b == first))
}

fn seats_section(
    page: &mut Page,
    f: &Folder,
    seats: &Csv,
    players: usize,
) -> Result<(), ReportError> {
    page.h2("seats", "Seats: the first-player question");
    let fair = 1.0 / players.max(1) as f64;
    if let Some(s) = seat_sentence(seats, players) {
        page.finding(&s);
    }
    match seats_are_comparable(f) {
        Some(false) => page.note(
            "Seats are not rotated and the bots differ, so each seat's rate mixes the seat with the bot that sits there: this is not a test of the seats alone. Rotate the seats (--rotate-seats) or seat identical bots for a first-player test.",
        ),
        None => page.note(
            "run.json is missing: whether seats were rotated is unknown, so these rates may mix seats with bots.",
        ),
        Some(true) => {}
    }
    let mut cats = Vec::new();
    let mut points = Vec::new();
    let mut rows = Vec::new();
    for (i, r) in seats.rows().enumerate() {
        cats.push(format!("seat {} ({})", r.text("seat"), r.text("colour")));
        let rate = r.num("win_rate").unwrap_or(0.0);
        let iv = interval_of(&r, "win_lo95", "win_hi95");
        points.push(Point {
            cat: i,
            value: 100.0 * rate,
            interval: iv.map(|(l, h)| (100.0 * l, 100.0 * h)),
        });
        rows.push(vec![
            tn(r.text("seat")),
            td(r.text("colour")),
            tn(r.text("games")),
            tn(r.text("wins")),
            tn(pct_interval(rate, iv.map(|x| x.0), iv.map(|x| x.1))),
            tn(format!("{:+.2}", 100.0 * (rate - fair))),
        ]);
    }
    let svg = chart::intervals(&IntervalChart {
        categories: cats,
        series: vec![Series {
            name: "seat win rate with its 95% interval".into(),
            points,
        }],
        x_label: "seat (clockwise from the first to move)",
        y_label: "games won (%)",
        reference: Some((
            100.0 * fair,
            format!("fair: 1/{players} = {:.1}%", 100.0 * fair),
        )),
        decimals: 1,
        floor: Some(0.0),
    })?;
    page.figure(
        &svg,
        "Share of games won from each seat, against the fair share 1/n; seat 0 moves first.",
    );
    page.table(
        &[
            "seat",
            "colour",
            "games",
            "wins",
            "win rate [95% interval]",
            "points above fair",
        ],
        rows,
        None,
    );
    Ok(())
}

fn lengths(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    page.h2("lengths", "Game length");
    let stats = f.csv("length_stats.csv")?;
    let turns_stats = stats
        .as_ref()
        .and_then(|s| s.rows().find(|r| r.text("measure") == "turns"));
    match f.csv("lengths.csv")? {
        Some(h) => {
            let counts: Vec<(u64, u64)> = h
                .rows()
                .filter(|r| r.text("measure") == "turns")
                .filter_map(|r| Some((r.int("value")?, r.int("games")?)))
                .collect();
            let mean = turns_stats.and_then(|r| r.num("mean"));
            let median = turns_stats.and_then(|r| r.num("median"));
            if let (Some(m), Some(md)) = (mean, median) {
                page.finding(&format!(
                    "A game lasts {m:.1} turns on average (median {md:.0}); half of all games take between {} and {} turns, 90% between {} and {}.",
                    turns_stats.map_or("", |r| r.text("p25")),
                    turns_stats.map_or("", |r| r.text("p75")),
                    turns_stats.map_or("", |r| r.text("p5")),
                    turns_stats.map_or("", |r| r.text("p95")),
                ));
            }
            let svg = chart::histogram(&counts, mean, median, "turns")?;
            page.figure(
                &svg,
                "Games by length in turns (a turn is one player's roll and any extra rolls after a 6), with the mean and the median marked.",
            );
        }
        None => page.note("lengths.csv is missing from this folder: no histogram."),
    }
    match stats {
        Some(s) => {
            let rows = s
                .rows()
                .map(|r| {
                    let mut row = vec![td(r.text("measure"))];
                    for c in [
                        "games", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95", "max",
                    ] {
                        row.push(tn(r.text(c)));
                    }
                    row
                })
                .collect();
            page.table(
                &[
                    "measure", "games", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95",
                    "max",
                ],
                rows,
                None,
            );
        }
        None => page.note("length_stats.csv is missing from this folder: no percentiles."),
    }
    Ok(())
}

fn events(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    page.h2("events", "Events per game");
    let Some(ev) = f.csv("events.csv")? else {
        page.note("events.csv is missing from this folder: no event counts.");
        return Ok(());
    };
    let mut labels = Vec::new();
    let mut values = Vec::new();
    let mut rows = Vec::new();
    for r in ev.rows() {
        labels.push(r.text("event").to_string());
        values.push(r.num("per_game").unwrap_or(0.0));
        rows.push(vec![
            td(r.text("event")),
            tn(r.text("total")),
            tn(r.text("per_game")),
        ]);
    }
    let svg = chart::bars(&labels, &values, "mean per game", 2)?;
    page.figure(
        &svg,
        "Mean count of each event per game (docs/RULES.md defines each counter); unfinished is the share of games stopped by max_turns.",
    );
    page.table(&["event", "total", "per game"], rows, None);
    Ok(())
}

/// How to reproduce the job: the command line, the seed, every rule and the tool version.
pub(crate) fn reproduce(page: &mut Page, f: &Folder, command: &str) {
    page.h2("reproduce", "Reproduce");
    let Some(m) = &f.manifest else {
        page.note("run.json is missing from this folder: the command that made it is unknown.");
        return;
    };
    let s = |k: &str| m.get(k).map(json_text).unwrap_or_default();
    let bots: Vec<String> = m
        .get("bots")
        .and_then(Value::as_array)
        .map(|b| {
            b.iter()
                .filter_map(|x| x.get("name").and_then(Value::as_str).map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let rotate = m.get("rotate_seats").and_then(Value::as_bool) == Some(true);
    let mut line = match command {
        "league" => format!(
            "aeroplane league --rules {} --bots {} --players {} --games {} --seed {}",
            s("rules_name"),
            bots.join(","),
            s("players"),
            s("games"),
            s("seed")
        ),
        "sweep" => {
            let mut l = format!(
                "aeroplane sweep --rules {} --bots {} --games {} --seed {}",
                s("rules_name"),
                bots.join(","),
                s("games"),
                s("seed")
            );
            if let Some(sw) = m.get("sweep") {
                for v in sw
                    .get("vary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    l.push_str(&format!(" --vary '{}'", json_text(v)));
                }
                if let Some(c) = sw.get("compare").and_then(Value::as_array) {
                    let c: Vec<String> = c.iter().map(json_text).collect();
                    l.push_str(&format!(" --compare {}", c.join(",")));
                }
            }
            if rotate {
                l.push_str(" --rotate-seats");
            }
            l
        }
        _ => {
            let mut l = format!(
                "aeroplane run --rules {} --bots {} --games {} --seed {}",
                s("rules_name"),
                bots.join(","),
                s("games"),
                s("seed")
            );
            if m.get("first_game").and_then(Value::as_u64).unwrap_or(0) > 0 {
                l.push_str(&format!(" --first-game {}", s("first_game")));
            }
            if let Some(sp) = m.get("sprt").filter(|v| !v.is_null()) {
                let test = sp.get("test").map(json_text).unwrap_or_default();
                let chunk = sp.get("chunk_deals").map(json_text).unwrap_or_default();
                l = format!(
                    "aeroplane run --rules {} --bots {} --sprt {test} --max-games {} --chunk-size {chunk} --seed {}",
                    s("rules_name"),
                    bots.join(","),
                    s("games"),
                    s("seed")
                );
            } else if rotate {
                l.push_str(" --rotate-seats");
            }
            if m.get("per_game").and_then(Value::as_bool) == Some(true) {
                l.push_str(" --per-game");
            }
            l
        }
    };
    line.push_str(" --out DIR");
    page.p("The command that made these results (results do not depend on threads or chunk size):");
    page.pre(&line);
    if command != "sweep" && command != "league" {
        page.p("or, exactly as recorded in this folder's manifest:");
        page.pre(&format!(
            "aeroplane run --manifest {}",
            f.path.join("run.json").display()
        ));
    }
    page.facts(&[
        ("seed", s("seed")),
        ("tool", format!("{} {}", s("tool"), s("version"))),
        (
            "manifest format",
            m.get("format").map(json_text).unwrap_or_else(|| "0".into()),
        ),
    ]);
    if let Some(rules) = m.get("rules").and_then(Value::as_object) {
        page.h3(if command == "sweep" {
            "Base rules (every variant changes only its varied options)"
        } else {
            "Rules"
        });
        let rows = rules
            .iter()
            .map(|(k, v)| vec![td(k.clone()), td(json_text(v))])
            .collect();
        page.table(&["option", "value"], rows, None);
    }
    if let Some(bots) = m.get("bots").and_then(Value::as_array) {
        page.h3("Bots");
        let rows = bots
            .iter()
            .map(|b| {
                let params = b
                    .get("params")
                    .and_then(Value::as_object)
                    .map(|p| {
                        p.iter()
                            .map(|(k, v)| format!("{k}={}", json_text(v)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                vec![
                    td(b.get("name").map(json_text).unwrap_or_default()),
                    td(b.get("kind").map(json_text).unwrap_or_default()),
                    td(params),
                ]
            })
            .collect();
        page.table(&["name", "kind", "parameters"], rows, None);
    }
}
