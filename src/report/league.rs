//! The report of `aeroplane league`: ratings with intervals and the head-to-head heat map.

use super::ReportError;
use super::chart::{self, IntervalChart, Point, Series};
use super::html::{Page, pct, td, tn};
use super::load::Folder;
use super::run;

/// The league report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page: Page = run::header(f, "aeroplane league report", "league");
    let league = f.need("league.csv", "league")?;
    page.h2("ratings", "Ratings");
    let mut cats = Vec::new();
    let mut points = Vec::new();
    let mut rows = Vec::new();
    let mut names = Vec::new();
    for (i, r) in league.rows().enumerate() {
        let bot = r.text("bot").to_string();
        names.push(bot.clone());
        cats.push(bot.clone());
        let rating = r.num("rating").unwrap_or(0.0);
        let iv = r.num("rating_lo95").zip(r.num("rating_hi95"));
        points.push(Point {
            cat: i,
            value: rating,
            interval: iv,
        });
        rows.push(vec![
            tn(r.text("rank")),
            td(bot),
            tn(r.text("rating")),
            tn(iv.map_or(String::new(), |(l, h)| format!("[{l:.2}, {h:.2}]"))),
            tn(r.text("games")),
            tn(r.text("wins")),
            tn(r.num("win_rate").map_or(String::new(), pct)),
            tn(r.text("mean_rank")),
        ]);
    }
    let rating = |r: super::load::Row<'_>| {
        (
            r.text("bot").to_string(),
            r.num("rating").unwrap_or(0.0),
            r.num("rating_lo95").zip(r.num("rating_hi95")),
        )
    };
    if let (Some(best), Some(worst)) = (
        league.rows().next().map(rating),
        league.rows().last().map(rating),
    ) {
        let iv =
            |x: &Option<(f64, f64)>| x.map_or(String::new(), |(l, h)| format!(" [{l:.0}, {h:.0}]"));
        page.finding(&format!(
            "{} rates highest at {:.0}{} and {} lowest at {:.0}{} (mean 0; 400 points = 10:1 odds of finishing ahead).",
            best.0,
            best.1,
            iv(&best.2),
            worst.0,
            worst.1,
            iv(&worst.2)
        ));
    }
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
        "Plackett-Luce ratings fitted to every finishing order; bars are bootstrap 95% intervals.",
    );
    page.table(
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
    );

    page.h2("pairs", "Head to head");
    match f.csv("pairs.csv")? {
        Some(pairs) => {
            let cell = |a: &str, b: &str| {
                pairs
                    .rows()
                    .find(|r| r.text("bot") == a && r.text("opponent") == b)
            };
            let matrix: Vec<Vec<Option<f64>>> = names
                .iter()
                .map(|a| {
                    names
                        .iter()
                        .map(|b| {
                            if a == b {
                                None
                            } else {
                                cell(a, b).and_then(|r| r.num("score"))
                            }
                        })
                        .collect()
                })
                .collect();
            let svg = chart::heat_map(&names, &matrix, "opponent (column)", "bot (row)")?;
            page.figure(
                &svg,
                "Share of their meetings in which the row's bot finished ahead of the column's (ties, between two unranked bots, count half).",
            );
            let rows = pairs
                .rows()
                .map(|r| {
                    vec![
                        td(r.text("bot")),
                        td(r.text("opponent")),
                        tn(r.text("met")),
                        tn(r.text("ahead")),
                        tn(r.text("score")),
                    ]
                })
                .collect();
            page.table(&["bot", "opponent", "met", "ahead", "score"], rows, None);
        }
        None => page.note("pairs.csv is missing from this folder: no head-to-head matrix."),
    }
    run::reproduce(&mut page, f, "league");
    Ok(page.finish(&run::footer(f)))
}
