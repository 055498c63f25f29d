//! The report of `aeroplane train`: the learning curve (TD error, and the score against the
//! evaluation's opponent with its interval) and how to reproduce the net.

use super::{Evaluation, HistoryRow, TrainRecord};
use crate::report::ReportError;
use crate::report::chart::{self, Trace};
use crate::report::html::{Page, td, tn};

/// The page of a training's record and history.
pub(crate) fn render(record: &TrainRecord, history: &[HistoryRow]) -> Result<String, ReportError> {
    let job = &record.job;
    let mut page = Page::new(
        "aeroplane train report",
        &format!(
            "TD(λ) self-play: {}, {} players, {} games",
            job.rules_name, job.players, job.games
        ),
    );
    let mut facts = vec![
        ("rules", job.rules_name.clone()),
        ("players", job.players.to_string()),
        ("games", job.games.to_string()),
        ("seed", job.seed.to_string()),
        ("hidden units", job.hidden.to_string()),
        ("λ", job.lambda.to_string()),
        ("α", format!("{} to {}", job.alpha, job.alpha_end)),
        ("batch", job.batch.to_string()),
        ("exploration", job.explore.to_string()),
        ("opponent of the evaluations", job.opponent.clone()),
    ];
    if let Some(r) = &record.results {
        facts.push((
            "net",
            format!("{} ({} bytes, checksum {})", r.net, r.bytes, r.checksum),
        ));
    }
    page.facts(&facts);
    page.h2("curve", "Learning curve");
    let td_points: Vec<(f64, f64)> = history
        .iter()
        .map(|r| (r.games as f64, r.td_error))
        .collect();
    let svg = chart::trace(
        &[Trace {
            name: "TD error (rms)".into(),
            points: td_points,
            colour: 0,
            dots: false,
        }],
        &[],
        "games",
        "TD error",
        None,
        3,
    )?;
    page.figure(
        &svg,
        "Root mean square of the TD errors (λ-return minus the net's value, in returns) of the afterstates since the previous point. It is not a loss that falls to zero: the dice rolled between a seat's afterstates move the λ-return even for a perfect net, so the error settles at the level of that luck. A rise early in training is expected: a fresh net values every position about even, so its successive values barely differ; as its values sharpen, they differ by what the dice did, and the error rises to that level and stays there. The net's strength is its score against the opponent, not this error.",
    );
    let evals: Vec<(u64, Evaluation)> = history
        .iter()
        .filter_map(|r| r.eval.map(|e| (r.games, e)))
        .collect();
    if !evals.is_empty() {
        let line = |f: fn(&Evaluation) -> f64| -> Vec<(f64, f64)> {
            evals
                .iter()
                .map(|(g, e)| (*g as f64, 100.0 * f(e)))
                .collect()
        };
        let svg = chart::trace(
            &[
                Trace {
                    name: "score".into(),
                    points: line(|e| e.score),
                    colour: 0,
                    dots: false,
                },
                Trace {
                    name: "95% low".into(),
                    points: line(|e| e.low),
                    colour: 1,
                    dots: true,
                },
                Trace {
                    name: "95% high".into(),
                    points: line(|e| e.high),
                    colour: 1,
                    dots: true,
                },
            ],
            &[(50.0, "even".into(), 2)],
            "games",
            "score %",
            Some((0.0, 100.0)),
            1,
        )?;
        page.figure(
            &svg,
            &format!(
                "The net at ply 0 against {} on the same dice at every point (each deal once per seat of the net): mean score (1 first, 0 last), with its 95% interval (normal, on the deals).",
                job.opponent
            ),
        );
    }
    if !record.guard.is_empty() {
        page.h2("guard", "Guard");
        let rows = record
            .guard
            .iter()
            .map(|e| {
                vec![
                    tn(e.games.to_string()),
                    td(e.alarm.name().to_string()),
                    td(super::guard::words(e, &job.opponent, job.games)),
                ]
            })
            .collect();
        page.table(
            &["games", "alarm", "what it means, and what was done"],
            rows,
            None,
        );
    }
    page.h2("history", "History");
    let rows = history
        .iter()
        .map(|r| {
            let e = r.eval;
            vec![
                tn(r.games.to_string()),
                tn(format!("{:.4}", r.td_error)),
                tn(r.samples.to_string()),
                tn(e.map_or(String::new(), |e| format!("{:.1}%", 100.0 * e.score))),
                td(e.map_or(String::new(), |e| {
                    format!("[{:.1}%, {:.1}%]", 100.0 * e.low, 100.0 * e.high)
                })),
                tn(r.alpha.to_string()),
                td(super::guard_cell(r.guard)),
            ]
        })
        .collect();
    page.table(
        &[
            "games",
            "TD error",
            "afterstates",
            "score",
            "95% interval",
            "α",
            "guard",
        ],
        rows,
        None,
    );
    page.h2("reproduce", "Reproduce");
    page.pre(&record.reproduce);
    Ok(page.finish(
        &format!("aeroplane {} · aeroplane train", record.version),
        &[],
    ))
}
