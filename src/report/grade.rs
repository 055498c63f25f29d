//! The report of `aeroplane grade`: each bot's decisions against perfect play, the error
//! falling with search depth or iterations, and the worst blunders.

use serde_json::Value;

use super::ReportError;
use super::chart::{self, IntervalChart, Point, Series};
use super::html::{Page, td, tn};
use super::load::Folder;
use super::run;

/// Blunders shown per bot.
const SHOWN: u64 = 3;

/// A bot's line of grade.json.
struct Line {
    name: String,
    kind: String,
    params: serde_json::Map<String, Value>,
    games: u64,
    decisions: u64,
    errors: u64,
    error_rate: Option<(f64, f64, f64)>,
    optimal: Option<(f64, f64, f64)>,
    loss_decision: Option<(f64, f64, f64)>,
    loss_game: Option<(f64, f64, f64)>,
    win: Option<(f64, f64, f64)>,
}

fn estimate(v: Option<&Value>) -> Option<(f64, f64, f64)> {
    let v = v?;
    Some((
        v.get("value")?.as_f64()?,
        v.get("low")?.as_f64().unwrap_or(f64::NAN),
        v.get("high")?.as_f64().unwrap_or(f64::NAN),
    ))
}

fn lines(grade: &Value) -> Vec<Line> {
    grade
        .get("bots")
        .and_then(Value::as_array)
        .map(|bots| {
            bots.iter()
                .map(|b| Line {
                    name: b.get("name").and_then(Value::as_str).unwrap_or("?").into(),
                    kind: b.get("kind").and_then(Value::as_str).unwrap_or("").into(),
                    params: b
                        .get("params")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default(),
                    games: b.get("games").and_then(Value::as_u64).unwrap_or(0),
                    decisions: b.get("decisions").and_then(Value::as_u64).unwrap_or(0),
                    errors: b.get("errors").and_then(Value::as_u64).unwrap_or(0),
                    error_rate: estimate(b.get("error_rate")),
                    optimal: estimate(b.get("optimal_when_matters")),
                    loss_decision: estimate(b.get("loss_mp_per_decision")),
                    loss_game: estimate(b.get("loss_mp_per_game")),
                    win: estimate(b.get("win_rate")),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn with_interval(e: Option<(f64, f64, f64)>, scale: f64, decimals: usize, unit: &str) -> String {
    match e {
        Some((v, l, h)) if l.is_finite() && h.is_finite() => format!(
            "{:.decimals$}{unit} [{:.decimals$}, {:.decimals$}]",
            v * scale,
            l * scale,
            h * scale
        ),
        Some((v, _, _)) => format!("{:.decimals$}{unit}", v * scale),
        None => "-".into(),
    }
}

fn point(cat: usize, e: Option<(f64, f64, f64)>, scale: f64) -> Option<Point> {
    let (v, l, h) = e?;
    Some(Point {
        cat,
        value: v * scale,
        interval: (l.is_finite() && h.is_finite()).then_some((l * scale, h * scale)),
    })
}

/// Bots of one kind that differ in one integer parameter: the kind, the parameter, and each
/// (value, index into the lines), by value.
type Ladder = (String, String, Vec<(i64, usize)>);

/// Groups of graded bots of one kind that differ in exactly one integer parameter (expectimax
/// `depth`, mcts `iterations`, montecarlo `rollouts`), sorted by the value.
fn ladders(lines: &[Line]) -> Vec<Ladder> {
    let mut out = Vec::new();
    let mut kinds: Vec<&str> = lines.iter().map(|l| l.kind.as_str()).collect();
    kinds.dedup();
    kinds.sort_unstable();
    kinds.dedup();
    for kind in kinds {
        let members: Vec<usize> = (0..lines.len())
            .filter(|&i| lines[i].kind == kind)
            .collect();
        if members.len() < 2 {
            continue;
        }
        let first = &lines[members[0]].params;
        let varying: Vec<&String> = first
            .keys()
            .filter(|k| {
                members
                    .iter()
                    .any(|&i| lines[i].params.get(*k) != first.get(*k))
            })
            .collect();
        let [param] = varying[..] else { continue };
        let mut steps: Vec<(i64, usize)> = members
            .iter()
            .filter_map(|&i| Some((lines[i].params.get(param)?.as_i64()?, i)))
            .collect();
        if steps.len() != members.len() {
            continue;
        }
        steps.sort_unstable();
        out.push((kind.to_string(), param.clone(), steps));
    }
    out
}

/// The grade report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let grade = f.grade.as_ref().ok_or_else(|| ReportError::Folder {
        dir: f.path.display().to_string(),
        message: "grade.json is missing: the grade report is drawn from it".into(),
    })?;
    if let Some(status) = grade
        .get("status")
        .and_then(Value::as_str)
        .filter(|s| *s != "complete")
    {
        return Err(ReportError::Folder {
            dir: f.path.display().to_string(),
            message: format!(
                "grade.json says the grade is {status}, not complete: finish it with `aeroplane resume {}`, then draw its report",
                f.path.display()
            ),
        });
    }
    let s = |k: &str| {
        grade
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let n = |k: &str| grade.get(k).and_then(Value::as_f64);
    // A net grade (docs/ANALYSIS.md) names its reference; an exact grade has none.
    let net_ply = grade
        .get("reference")
        .and_then(|r| r.get("ply"))
        .and_then(Value::as_u64);
    // A log grade's games are the log's, not games against the reference.
    let log = grade
        .get("reference")
        .and_then(|r| r.get("log"))
        .and_then(Value::as_str);
    // What judges, in the report's words: the net's search or perfect play.
    let judge = net_ply.map(|ply| format!("the net's {ply}-ply search"));
    let mut page = Page::new(
        "aeroplane grade report",
        &match net_ply {
            Some(ply) => format!(
                "bots against the net {} searched {ply} ply (docs/ANALYSIS.md)",
                s("table")
            ),
            None => format!("bots against perfect play from the table {}", s("table")),
        },
    );
    let lines = lines(grade);
    let mut facts = vec![(
        if net_ply.is_some() { "net" } else { "table" },
        format!("{} (checksum {})", s("table"), s("table_checksum")),
    )];
    if let Some(r) = grade.get("rules") {
        let planes = r.get("planes").and_then(Value::as_u64).unwrap_or(4);
        facts.push(("planes per seat", planes.to_string()));
    }
    if let Some(p) = n("first_player_win_probability") {
        facts.push((
            if net_ply.is_some() {
                "by the net at the start"
            } else {
                "perfect play"
            },
            format!(
                "seat 0 wins {:.4}% of games, seat 2 {:.4}%",
                100.0 * p,
                100.0 * (1.0 - p)
            ),
        ));
    }
    facts.push(("seed", n("seed").map_or(String::new(), |x| format!("{x}"))));
    let deals = n("deals").unwrap_or(0.0);
    facts.push((
        "games",
        match (log, net_ply) {
            (Some(log), _) => format!("{deals} deals of the decision log {log}"),
            (None, Some(ply)) => format!(
                "{deals} deals per bot, each played with both seatings against the net's {ply}-ply player"
            ),
            (None, None) => format!(
                "{deals} deals per bot, each played with both seatings against the exact bot"
            ),
        },
    ));
    facts.push((
        "error",
        format!(
            "a decision (a roll with two or more moves) losing more than {:e} equity against the best move",
            n("threshold").unwrap_or(f64::NAN)
        ),
    ));
    facts.push(("units", s("units")));
    page.facts(&facts);

    page.h2(
        "decisions",
        if net_ply.is_some() {
            "Decisions against the net"
        } else {
            "Decisions against perfect play"
        },
    );
    if !lines.is_empty() && lines.iter().all(|l| l.decisions == 0) {
        page.note(
            "No decisions: under these rules no roll ever offers two moves (one plane per seat without flight_optional), so every bot plays perfectly and there is nothing to grade.",
        );
    }
    if let Some(best) = lines
        .iter()
        .filter(|l| l.kind != "exact" && l.loss_decision.is_some())
        .min_by(|a, b| {
            a.loss_decision
                .unwrap()
                .0
                .total_cmp(&b.loss_decision.unwrap().0)
        })
    {
        page.finding(&format!(
            "Of the bots graded{}, {} loses the least: {} millipoints of equity per decision and errs at {} of its decisions.",
            if judge.is_some() {
                ""
            } else {
                " (perfect play aside)"
            },
            best.name,
            with_interval(best.loss_decision, 1.0, 2, ""),
            with_interval(best.error_rate, 100.0, 2, "%")
        ));
    }
    // Two tables of at most MAX_COLUMNS columns (the bot's name in each): the decisions, then
    // what they cost. One table of all nine columns is wider than the page.
    let decisions = lines
        .iter()
        .map(|l| {
            vec![
                td(l.name.clone()),
                tn(l.games.to_string()),
                tn(l.decisions.to_string()),
                tn(l.errors.to_string()),
                tn(with_interval(l.error_rate, 100.0, 2, "%")),
                tn(with_interval(l.optimal, 100.0, 2, "%")),
            ]
        })
        .collect();
    page.table(
        &[
            "bot",
            "games",
            "decisions",
            "errors",
            "error rate [95%]",
            "optimal when it matters [95%]",
        ],
        decisions,
        None,
    );
    let costs = lines
        .iter()
        .map(|l| {
            vec![
                td(l.name.clone()),
                tn(with_interval(l.loss_decision, 1.0, 2, "")),
                tn(with_interval(
                    l.loss_game,
                    1.0,
                    l.loss_game
                        .map_or(1, |(v, _, h)| crate::export::shown_decimals(v, h, 1)),
                    "",
                )),
                tn(with_interval(l.win, 100.0, 2, "%")),
            ]
        })
        .collect();
    page.table(
        &[
            "bot",
            "loss mp/decision [95%]",
            "loss mp/game [95%]",
            match (log, net_ply) {
                (Some(_), _) => "win rate in the log [95%]",
                (None, Some(_)) => "win rate vs the net [95%]",
                (None, None) => "win rate vs exact [95%]",
            },
        ],
        costs,
        None,
    );
    let losses: Vec<(String, f64)> = lines
        .iter()
        .filter_map(|l| Some((l.name.clone(), l.loss_decision?.0)))
        .collect();
    if !losses.is_empty() {
        let (labels, values): (Vec<String>, Vec<f64>) = losses.into_iter().unzip();
        let svg = chart::bars(&labels, &values, "millipoints per decision", 2)?;
        let caption = match &judge {
            Some(judge) => format!(
                "Mean equity lost per decision against the move {judge} values best, in millipoints (0.001 of the equity P(win) - P(loss) as {judge} estimates it, not perfect play); the table gives the 95% intervals. A player that always picks {judge}'s move loses nothing by this measure."
            ),
            None => "Mean equity lost per decision against the best move, in millipoints (0.001 of the equity P(win) - P(loss)); the table gives the 95% intervals. Perfect play loses nothing.".to_string(),
        };
        page.figure(&svg, &caption);
    }

    let ladders = ladders(&lines);
    let reference_line = judge.clone().unwrap_or_else(|| "perfect play".to_string());
    if !ladders.is_empty() {
        page.h2("effort", "Error against search effort");
        for (kind, param, steps) in &ladders {
            let cats: Vec<String> = steps.iter().map(|(v, _)| v.to_string()).collect();
            let loss: Vec<Point> = steps
                .iter()
                .enumerate()
                .filter_map(|(c, &(_, i))| point(c, lines[i].loss_decision, 1.0))
                .collect();
            let rate: Vec<Point> = steps
                .iter()
                .enumerate()
                .filter_map(|(c, &(_, i))| point(c, lines[i].error_rate, 100.0))
                .collect();
            let x_label = format!("{kind}: {param}");
            let svg = chart::intervals(&IntervalChart {
                categories: cats.clone(),
                series: vec![Series {
                    name: "mean equity loss per decision (millipoints), 95% interval".into(),
                    points: loss,
                }],
                x_label: &x_label,
                y_label: "millipoints per decision",
                reference: Some((0.0, reference_line.clone())),
                decimals: 2,
                floor: Some(0.0),
            })?;
            page.figure(
                &svg,
                &format!("{kind}: the equity lost per decision as {param} grows."),
            );
            let svg = chart::intervals(&IntervalChart {
                categories: cats,
                series: vec![Series {
                    name: "decision error rate (%), 95% interval".into(),
                    points: rate,
                }],
                x_label: &x_label,
                y_label: "errors per 100 decisions",
                reference: Some((0.0, reference_line.clone())),
                decimals: 1,
                floor: Some(0.0),
            })?;
            page.figure(
                &svg,
                &format!("{kind}: the share of decisions that lose equity as {param} grows."),
            );
        }
    }

    page.h2("blunders", "Worst decisions");
    match f.csv("blunders.csv") {
        Some(csv) if csv.rows().next().is_some() => {
            page.p(&format!(
                "The {SHOWN} worst of each bot (blunders.csv has them all). Each position is the decision node in the position notation (the roll waiting), so it can be set up again with Game::from_notation under the table's rules."
            ));
            let rows = csv
                .rows()
                .filter(|r| r.int("rank").is_some_and(|k| k <= SHOWN))
                .map(|r| {
                    vec![
                        td(r.text("name")),
                        tn(r.text("rank")),
                        tn(r.num("loss_mp")
                            .map_or(String::new(), |x| format!("{x:.1}"))),
                        tn(r.text("game")),
                        tn(r.text("roll")),
                        td(r.text("chosen")),
                        td(r.text("best")),
                        td(r.text("position")),
                    ]
                })
                .collect();
            page.table(
                &[
                    "bot", "rank", "loss mp", "game", "roll", "played", "best", "position",
                ],
                rows,
                None,
            );
        }
        Some(_) => page.p("No decision lost equity."),
        None => page.note("blunders.csv is missing: the worst decisions cannot be shown."),
    }
    if let Some(cmds) = grade.get("reproduce").and_then(Value::as_array) {
        page.h2("reproduce", "Reproduce");
        page.p(&match (log, net_ply) {
            (Some(_), _) => "The log, checked again:".to_string(),
            (None, Some(ply)) => {
                format!("Each bot's games again, as a run against the net's {ply}-ply player:")
            }
            (None, None) => "Each bot's games again, as a run against the exact bot:".to_string(),
        });
        let text: Vec<&str> = cmds.iter().filter_map(Value::as_str).collect();
        page.pre(&text.join("\n"));
    }
    Ok(page.finish(&run::footer(f), &f.problems()))
}
