//! The report of `aeroplane league`: ratings with intervals and the head-to-head scores (a heat
//! map and a table with their intervals).

use serde_json::Value;

use super::ReportError;
use super::chart::{self, IntervalChart, Point, Series};
use super::check;
use super::html::{Page, pct, td, tn};
use super::load::{Csv, Folder};
use super::run;

/// The league's tables against each other, the manifest and summary.json.
fn cross_check(f: &Folder, league: &Csv, pairs: Option<&Csv>) {
    let pool = f.bot_names();
    if !pool.is_empty() && pool.len() != league.len() {
        check::disagree(
            f,
            "the pool",
            ("league.csv", format!("{} rows", league.len())),
            ("run.json", format!("{} bots", pool.len())),
        );
    }
    // Each bot plays every table it sits at, every deal, every rotation.
    let complete = check::games_played(f).is_some();
    let deals = f.manifest_field("games").and_then(Value::as_u64);
    let players = f.manifest_field("players").and_then(Value::as_u64);
    let tables: Vec<Vec<String>> = f
        .manifest_field("league")
        .and_then(|l| l.get("tables"))
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .map(|x| {
                    x.as_array()
                        .map(|s| {
                            s.iter()
                                .filter_map(|n| n.as_str().map(String::from))
                                .collect()
                        })
                        .unwrap_or_default()
                })
                .collect()
        })
        .unwrap_or_default();
    let json = f.report().and_then(|r| r.rows.as_ref());
    for r in league.rows() {
        let bot = r.text("bot");
        if !pool.is_empty() && !pool.iter().any(|p| p == bot) {
            f.problem(format!(
                "league.csv row {}: `{}` is not in run.json's pool",
                r.line,
                aeroplane_core::excerpt::excerpt(bot)
            ));
        }
        if let (Some(g), Some(w)) = (r.int("games"), r.int("wins"))
            && w > g
        {
            f.problem(format!("league.csv row {}: {w} wins in {g} games", r.line));
        }
        if let (true, Some(d), Some(p), Some(g)) = (complete, deals, players, r.int("games")) {
            let seats: u64 = tables
                .iter()
                .map(|t| t.iter().filter(|n| *n == bot).count() as u64)
                .sum();
            if !tables.is_empty() && g != seats * d * p {
                check::disagree(
                    f,
                    &format!("{bot}'s games"),
                    ("league.csv", g.to_string()),
                    (
                        "run.json",
                        format!("{seats} seats at its tables x {d} deals x {p} rotations"),
                    ),
                );
            }
        }
        if let Some(j) = json.and_then(|rows| rows.iter().find(|j| j.bot.as_deref() == Some(bot))) {
            if let (Some(a), Some(b)) = (r.num("rating"), j.rating.map(|n| n.0))
                && (a - b).abs() > 0.006
            {
                check::disagree(
                    f,
                    &format!("{bot}'s rating"),
                    ("league.csv", check::short(a)),
                    ("summary.json", format!("{b:.2}")),
                );
            }
            if let (Some(a), Some(b)) = (r.int("games"), j.games)
                && a != b
            {
                check::disagree(
                    f,
                    &format!("{bot}'s games"),
                    ("league.csv", a.to_string()),
                    ("summary.json", b.to_string()),
                );
            }
        }
    }
    if let Some(p) = pairs {
        let k = league.len();
        if k > 1 && p.len() != k * (k - 1) {
            check::disagree(
                f,
                "the ordered pairs",
                ("pairs.csv", format!("{} rows", p.len())),
                (
                    "league.csv",
                    format!("{k} bots, {} ordered pairs", k * (k - 1)),
                ),
            );
        }
        for r in p.rows() {
            if let (Some(m), Some(a)) = (r.int("met"), r.int("ahead"))
                && a > m
            {
                f.problem(format!(
                    "pairs.csv row {}: ahead {a} in {m} meetings",
                    r.line
                ));
            }
        }
    }
}

/// The league report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page: Page = run::header(f, "aeroplane league report", "league");
    let Some(league) = f.need("league.csv", "league") else {
        run::reproduce(&mut page, f);
        return Ok(page.finish(&run::footer(f), &f.problems()));
    };
    let sound = check::table(f, "league.csv", &league);
    let pairs = f.csv("pairs.csv");
    let sound_pairs = pairs
        .as_deref()
        .map(|p| check::table(f, "pairs.csv", p))
        .unwrap_or_default();
    cross_check(f, &league, pairs.as_deref());
    let players = f.manifest_field("players").and_then(Value::as_u64);
    if let Some(d) = f
        .manifest_field("games")
        .and_then(Value::as_u64)
        .filter(|&d| d < crate::stats::MIN_DEALS)
    {
        page.note(&format!(
            "Only {d} deals per table: too few to trust these intervals (give at least {}).",
            crate::stats::MIN_DEALS
        ));
    }
    page.h2("ratings", "Ratings");
    let mut cats = Vec::new();
    let mut points = Vec::new();
    let mut rows = Vec::new();
    let mut names = Vec::new();
    for (i, (r, ok)) in league.rows().zip(&sound).enumerate() {
        let bot = r.text("bot").to_string();
        names.push(bot.clone());
        cats.push(bot.clone());
        let rating = r.num("rating").filter(|_| *ok);
        let iv = r
            .num("rating_lo95")
            .zip(r.num("rating_hi95"))
            .filter(|_| *ok);
        if let Some(v) = rating {
            points.push(Point {
                cat: i,
                value: v,
                interval: iv,
            });
        }
        rows.push(vec![
            tn(r.text("rank")),
            td(bot),
            tn(rating.map_or("?".into(), |x| format!("{x:.2}"))),
            tn(iv.map_or(String::new(), |(l, h)| format!("[{l:.2}, {h:.2}]"))),
            tn(r.text("games")),
            tn(r.text("wins")),
            tn(r.num("win_rate").filter(|_| *ok).map_or("?".into(), pct)),
            tn(r.num("mean_rank")
                .map_or(String::new(), |m| format!("{m:.3}"))),
        ]);
    }
    let sound_rows: Vec<_> = league
        .rows()
        .zip(&sound)
        .filter(|(_, ok)| **ok)
        .map(|(r, _)| r)
        .collect();
    let described = |r: &super::load::Row<'_>| {
        let iv = r
            .num("rating_lo95")
            .zip(r.num("rating_hi95"))
            .map_or(String::new(), |(l, h)| format!(" [{l:.0}, {h:.0}]"));
        format!(
            "{} at {:.0}{iv}",
            r.text("bot"),
            r.num("rating").unwrap_or(0.0)
        )
    };
    if let (Some(best), Some(worst)) = (sound_rows.first(), sound_rows.last()) {
        page.finding(&format!(
            "{} rates highest and {} lowest (mean 0; 400 points = 10:1 odds of finishing ahead).",
            described(best),
            described(worst),
        ));
    }
    page.note(match players {
        Some(2) => "At 2-player tables the rating is Bradley-Terry, a head-to-head Elo: a gap of D points predicts a score of 1/(1 + 10^(-D/400)) in a match between the two.",
        _ => "At 3-4 player tables the rating is fitted to multi-player finishing orders: it is not a head-to-head Elo, and a gap does not predict a 2-player match between the same bots (a different game). The head-to-head scores at these tables are below.",
    });
    let svg = chart::intervals(&IntervalChart {
        categories: cats,
        series: vec![Series {
            name: "rating with its bootstrap 95% interval".into(),
            points,
        }],
        x_label: "bot, best first",
        y_label: "Plackett-Luce rating (Elo-like points)",
        reference: Some((0.0, "pool mean 0".into())),
        decimals: 0,
        floor: None,
    })?;
    page.figure(
        &svg,
        "Plackett-Luce ratings fitted to every finishing order; bars are bootstrap 95% percentile intervals over resampled deals (a deal's rotations resampled together).",
    );
    page.table_keyed(
        &[
            "rank",
            "bot",
            "rating",
            "95% interval",
            "games",
            "wins",
            "win rate",
            "mean rank",
        ],
        rows,
        None,
        2,
    );

    page.h2("pairs", "Head to head");
    match &pairs {
        Some(pairs) => {
            let score = |a: &str, b: &str| {
                pairs
                    .rows()
                    .zip(&sound_pairs)
                    .find(|(r, _)| r.text("bot") == a && r.text("opponent") == b)
                    .filter(|(_, ok)| **ok)
                    .and_then(|(r, _)| r.num("score"))
            };
            // The heat map shows at most 40 bots (a bigger pool is a table only).
            if names.len() <= 40 {
                let matrix: Vec<Vec<Option<f64>>> = names
                    .iter()
                    .map(|a| {
                        names
                            .iter()
                            .map(|b| if a == b { None } else { score(a, b) })
                            .collect()
                    })
                    .collect();
                let svg = chart::heat_map(&names, &matrix, "opponent (column)", "bot (row)")?;
                page.figure(
                    &svg,
                    "Share of their meetings in which the row's bot finished ahead of the column's (ties, between two unranked bots, count half).",
                );
            }
            let rows = pairs
                .rows()
                .zip(&sound_pairs)
                .map(|(r, ok)| {
                    let iv = r
                        .num("score_lo95")
                        .zip(r.num("score_hi95"))
                        .map_or(String::new(), |(l, h)| format!("[{l:.3}, {h:.3}]"));
                    vec![
                        td(r.text("bot")),
                        td(r.text("opponent")),
                        tn(r.text("met")),
                        tn(r.text("ahead")),
                        tn(r.num("score")
                            .filter(|_| *ok)
                            .map_or("?".into(), |s| format!("{s:.3}"))),
                        tn(if *ok { iv } else { "?".into() }),
                        tn(r.text("deals")),
                    ]
                })
                .collect();
            page.table_keyed(
                &[
                    "bot",
                    "opponent",
                    "met",
                    "ahead",
                    "score",
                    "95% interval",
                    "deals",
                ],
                rows,
                None,
                2,
            );
            page.p("Score: the share of meetings (a pair of seats, one bot in each, in one game) in which the bot finished ahead of that opponent, ties half; 95% intervals cluster-robust by deal (Wilson form), never narrower than Wilson on the deals where they are too few.");
        }
        None => page.note("pairs.csv is missing or unreadable: no head-to-head scores."),
    }
    run::luck(&mut page, f);
    if f.csv("luck.csv").is_some() {
        page.note("The ratings are not adjusted for luck: a Plackett-Luce fit is not a mean of the games, so the control variate does not apply to it. The win rates and scores above and the head-to-head scores below are.");
    }
    pairs_luck(&mut page, f);
    run::reproduce(&mut page, f);
    Ok(page.finish(&run::footer(f), &f.problems()))
}

/// The luck-adjusted head-to-head scores of a league measured with `--luck NET`
/// (pairs_luck.csv): per ordered pair that met, the plain and the adjusted score with their
/// intervals and the variance ratio.
fn pairs_luck(page: &mut Page, f: &Folder) {
    let Some(l) = f.csv("pairs_luck.csv") else {
        return;
    };
    let sound = check::table(f, "pairs_luck.csv", &l);
    page.h3("Luck-adjusted head to head");
    page.p("A meeting's luck for the bot against its opponent is half the difference of the two seats' score luck (at 2-player tables, exactly a run's score luck); the adjusted score is the score minus that luck, unbiased whatever the net. 95% intervals normal, clustered by deal (docs/LUCK.md).");
    if sound.iter().any(|ok| !ok) {
        page.note("pairs_luck.csv holds values no league can have: see the problems above.");
    }
    let iv = |r: &super::load::Row<'_>, x: &str, lo: &str, hi: &str| {
        r.num(x)
            .map_or("?".to_string(), |v| match (r.num(lo), r.num(hi)) {
                (Some(a), Some(b)) => format!("{v:.3} [{a:.3}, {b:.3}]"),
                _ => format!("{v:.3}"),
            })
    };
    let rows = l
        .rows()
        .zip(&sound)
        .filter(|(_, ok)| **ok)
        .map(|(r, _)| {
            vec![
                td(r.text("bot")),
                td(r.text("opponent")),
                tn(r.text("met")),
                tn(iv(&r, "score", "score_low_normal", "score_high_normal")),
                tn(r.num("score_luck")
                    .map_or("?".into(), |v| format!("{v:+.3}"))),
                tn(iv(
                    &r,
                    "adjusted_score",
                    "adjusted_score_low",
                    "adjusted_score_high",
                )),
                tn(r.num("score_variance_ratio")
                    .map_or("-".into(), |v| format!("{v:.2}x"))),
            ]
        })
        .collect();
    page.table_keyed(
        &[
            "bot",
            "opponent",
            "met",
            "score [95%]",
            "its luck",
            "adjusted score [95%]",
            "variance ratio",
        ],
        rows,
        None,
        2,
    );
}
