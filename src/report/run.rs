//! The report of `aeroplane run`: bots, seats, the head-to-head of a two-bot match, game
//! lengths, events, and how to reproduce it.

use serde_json::Value;

use crate::analysis::elo::format_elo;
use crate::export::format_p;

use super::ReportError;
use super::chart::{self, Bins, IntervalChart, Point, Series};
use super::check;
use super::html::{Page, json_text, pct, pct_interval, td, tn};
use super::load::{Csv, Folder, Row};

/// The run report.
pub(crate) fn render(f: &Folder) -> Result<String, ReportError> {
    let mut page = header(f, "aeroplane run report", "run");
    sections(&mut page, f)?;
    super::watch::section(&mut page, &f.path, seed(f))?;
    reproduce(&mut page, f);
    Ok(page.finish(&footer(f), &f.problems()))
}

/// The run's master seed (0 when the folder does not say).
pub(crate) fn seed(f: &Folder) -> u64 {
    f.manifest_field("seed")
        .and_then(Value::as_u64)
        .unwrap_or(0)
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
        .or_else(|| f.grade.as_ref().and_then(|s| s.get("version")))
        .and_then(Value::as_str)
        .or_else(|| f.summary.as_ref()?.version.as_deref())
        .unwrap_or("unknown");
    format!(
        "Made by aeroplane {} report from the files in {} (results written by aeroplane {version}).",
        env!("CARGO_PKG_VERSION"),
        f.path.display()
    )
}

/// Deals played, games per deal, and whether they are too few to trust the intervals.
fn deals(f: &Folder) -> Option<(u64, bool)> {
    let json = f.report().and_then(|r| r.run_summary());
    let deals = json.and_then(|s| s.deals).or_else(|| {
        let played = f.manifest_field("games_played")?.as_u64()?;
        let players = f.manifest_field("players")?.as_u64()?.max(1);
        let rotated = f.manifest_field("rotate_seats")?.as_bool()?;
        Some(if rotated { played / players } else { played })
    })?;
    Some((deals, deals < crate::stats::MIN_DEALS))
}

/// The run's sections: bots, seats, a two-bot match, lengths, events.
pub(crate) fn sections(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    let summary = f.need("summary.csv", "run");
    let seats = f.csv("seats.csv");
    let sound_bots = summary
        .as_deref()
        .map(|s| check::table(f, "summary.csv", s));
    let sound_seats = seats.as_deref().map(|s| check::table(f, "seats.csv", s));
    check::run_tables(f, summary.as_deref(), seats.as_deref());
    let players = f
        .manifest_field("players")
        .and_then(Value::as_u64)
        .map(|p| p as usize)
        .or(summary.as_ref().map(|s| s.len()))
        .unwrap_or(0);
    if let Some((deals, true)) = deals(f) {
        page.note(&format!(
            "Only {deals} deals: too few to trust these intervals and tests (give at least {}); where the design effect cannot be trusted the intervals are Wilson intervals on the deals.",
            crate::stats::MIN_DEALS
        ));
    }
    match (&summary, &sound_bots) {
        (Some(s), Some(sound)) => bots(page, s, sound, players)?,
        _ => page.note("No bot figures: summary.csv is missing or unreadable."),
    }
    match (&seats, &sound_seats) {
        (Some(s), Some(sound)) => seats_section(page, f, s, sound, players)?,
        _ => page.note("seats.csv is missing or unreadable: no seat figures."),
    }
    head_to_head(page, f);
    luck(page, f);
    lengths(page, f)?;
    events(page, f)?;
    Ok(())
}

fn interval_of(row: &Row<'_>, lo: &str, hi: &str) -> Option<(f64, f64)> {
    Some((row.num(lo)?, row.num(hi)?))
}

/// How one row's interval was made, in words.
fn method_words(row: &Row<'_>) -> String {
    let d = row
        .num("design_effect")
        .map(|d| format!(", d = {d:.2}"))
        .unwrap_or_default();
    match row.text("interval_method") {
        "wilson" => "Wilson on the games".into(),
        "cluster_by_deal" => format!("cluster-robust by deal{d}"),
        "wilson_on_deals" => format!("Wilson on the deals (floor){d}"),
        "" => "-".into(),
        other => aeroplane_core::excerpt::excerpt(other),
    }
}

/// The caption of a table's intervals: the methods its rows use.
fn methods_caption(csv: &Csv) -> String {
    let mut used: Vec<&str> = csv.rows().map(|r| r.text("interval_method")).collect();
    used.sort_unstable();
    used.dedup();
    let says: Vec<&str> = used
        .iter()
        .filter_map(|m| match *m {
            "wilson" => Some("Wilson: the Wilson score interval on the games"),
            "cluster_by_deal" => Some(
                "cluster-robust by deal: Wilson on games / d, d the Kish design effect of the deal (narrower than plain Wilson where d < 1)",
            ),
            "wilson_on_deals" => Some(
                "Wilson on the deals: the floor where d cannot be trusted (under 30 deals, d = 0, or no wins or only wins)",
            ),
            _ => None,
        })
        .collect();
    if says.is_empty() {
        "95% intervals (this folder does not say how they were made).".into()
    } else {
        format!(
            "95% intervals, each row's method named: {}.",
            says.join("; ")
        )
    }
}

/// A rate cell: the rate with its interval, or `?` where the file's value is bad.
fn rate_cell(r: &Row<'_>, sound: bool, rate: &str, lo: &str, hi: &str) -> String {
    match (sound, r.num(rate)) {
        (true, Some(x)) => {
            let iv = interval_of(r, lo, hi);
            pct_interval(x, iv.map(|x| x.0), iv.map(|x| x.1))
        }
        _ => "?".into(),
    }
}

fn bots(page: &mut Page, summary: &Csv, sound: &[bool], players: usize) -> Result<(), ReportError> {
    page.h2("bots", "Win rate per bot");
    let fair = 1.0 / players.max(1) as f64;
    let mut cats = Vec::new();
    let mut points = Vec::new();
    let mut rows = Vec::new();
    for (i, r) in summary.rows().enumerate() {
        let name = r.text("name");
        cats.push(format!("{}: {name}", r.text("bot")));
        let ok = sound.get(i).copied().unwrap_or(false);
        if let (true, Some(rate)) = (ok, r.num("win_rate")) {
            let iv = interval_of(&r, "win_lo95", "win_hi95");
            points.push(Point {
                cat: i,
                value: 100.0 * rate,
                interval: iv.map(|(l, h)| (100.0 * l, 100.0 * h)),
            });
        }
        rows.push(vec![
            tn(r.text("bot")),
            td(name),
            tn(r.text("games")),
            tn(r.text("wins")),
            tn(rate_cell(&r, ok, "win_rate", "win_lo95", "win_hi95")),
            td(method_words(&r)),
            tn(r.num("mean_rank")
                .map_or(String::new(), |m| format!("{m:.3}"))),
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
        &format!(
            "Share of its games each lineup entry won, with its {}",
            methods_caption(summary)
        ),
    );
    page.table(
        &[
            "bot",
            "name",
            "games",
            "wins",
            "win rate [95% interval]",
            "interval",
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
        .filter(|x| (0.0..=1.0).contains(&x.2))
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
    sound: &[bool],
    players: usize,
) -> Result<(), ReportError> {
    page.h2("seats", "Seats: the first-player question");
    let fair = 1.0 / players.max(1) as f64;
    if sound.iter().all(|&s| s)
        && let Some(s) = seat_sentence(seats, players)
    {
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
        let ok = sound.get(i).copied().unwrap_or(false);
        let rate = r.num("win_rate").filter(|_| ok);
        if let Some(rate) = rate {
            let iv = interval_of(&r, "win_lo95", "win_hi95");
            points.push(Point {
                cat: i,
                value: 100.0 * rate,
                interval: iv.map(|(l, h)| (100.0 * l, 100.0 * h)),
            });
        }
        rows.push(vec![
            tn(r.text("seat")),
            td(r.text("colour")),
            tn(r.text("games")),
            tn(r.text("wins")),
            tn(rate_cell(&r, ok, "win_rate", "win_lo95", "win_hi95")),
            td(method_words(&r)),
            tn(rate.map_or("?".into(), |x| format!("{:+.2}", 100.0 * (x - fair)))),
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
        &format!(
            "Share of games won from each seat, against the fair share 1/n; seat 0 moves first. {}",
            methods_caption(seats)
        ),
    );
    page.table(
        &[
            "seat",
            "colour",
            "games",
            "wins",
            "win rate [95% interval]",
            "interval",
            "points above fair",
        ],
        rows,
        None,
    );
    Ok(())
}

/// The luck nets run.json names (`luck`: one net as a string, a sweep's several as a list).
pub(crate) fn luck_nets(f: &Folder) -> Option<String> {
    match f.manifest_field("luck")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => Some(
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => None,
    }
}

/// The luck-adjusted results of a job measured with `--luck NET` (luck.csv): per bot (and per
/// variant, for a sweep's, whose luck.csv has a `variant` column), the plain and the adjusted
/// win rate and score with their intervals, and the variance ratio.
pub(crate) fn luck(page: &mut Page, f: &Folder) {
    let Some(l) = f.csv("luck.csv") else {
        return;
    };
    let sound = check::table(f, "luck.csv", &l);
    page.h2("luck", "Luck-adjusted results");
    let net = luck_nets(f);
    let by_variant = l.has("variant");
    // A sweep's rows name their variant first.
    let first = |r: &Row<'_>, mut cells: Vec<super::html::Td>| {
        if by_variant {
            cells.insert(0, td(r.text("variant")));
        }
        cells
    };
    let head = |cols: &[&'static str]| -> Vec<&'static str> {
        let mut h = cols.to_vec();
        if by_variant {
            h.insert(0, "variant");
        }
        h
    };
    page.p(&format!(
        "Each roll's luck for the seat that rolls is the net's value of the position after the roll (its best move for that roll) minus the mean of that over the six faces; a game's luck for a bot is the sum over its rolls. The adjusted figure is the result minus the luck, a control variate: unbiased whatever the net, and the better the net the narrower its interval. The variance ratio is how many games the adjustment saves for the same interval width (2.00x: half the games). Net: {}; 95% intervals normal, clustered by deal (docs/LUCK.md).",
        net.as_deref().unwrap_or("not recorded")
    ));
    if sound.iter().any(|ok| !ok) {
        page.note("luck.csv holds values no run can have: see the problems above.");
    }
    let interval = |r: &Row<'_>, x: &str, lo: &str, hi: &str| {
        r.num(x)
            .map_or("?".to_string(), |v| pct_interval(v, r.num(lo), r.num(hi)))
    };
    let ratio = |r: &Row<'_>, c: &str| r.num(c).map_or("-".to_string(), |v| format!("{v:.2}x"));
    let signed = |r: &Row<'_>, c: &str| {
        r.num(c)
            .map_or("?".to_string(), |v| format!("{:+.2} pts", 100.0 * v))
    };
    let good: Vec<Row<'_>> = l
        .rows()
        .zip(&sound)
        .filter(|(_, ok)| **ok)
        .map(|(r, _)| r)
        .collect();
    let rows = good
        .iter()
        .map(|r| {
            first(
                r,
                vec![
                    td(r.text("name")),
                    tn(r.text("games")),
                    tn(interval(
                        r,
                        "win_rate",
                        "win_rate_low_normal",
                        "win_rate_high_normal",
                    )),
                    tn(signed(r, "win_luck")),
                    tn(interval(
                        r,
                        "adjusted_win_rate",
                        "adjusted_win_rate_low",
                        "adjusted_win_rate_high",
                    )),
                    tn(ratio(r, "win_variance_ratio")),
                ],
            )
        })
        .collect();
    page.table(
        &head(&[
            "bot",
            "games",
            "win rate [95%]",
            "its luck",
            "adjusted win rate [95%]",
            "variance ratio",
        ]),
        rows,
        None,
    );
    // Scores (`(1 + return) / 2`) differ from win rates where games rank more than a winner
    // or end unfinished: their table only then.
    let differs = |r: &Row<'_>, a: &str, b: &str| match (r.num(a), r.num(b)) {
        (Some(x), Some(y)) => (x - y).abs() > 1e-6,
        _ => true,
    };
    if good
        .iter()
        .any(|r| differs(r, "score", "win_rate") || differs(r, "score_luck", "win_luck"))
    {
        let rows = good
            .iter()
            .map(|r| {
                first(
                    r,
                    vec![
                        td(r.text("name")),
                        tn(interval(
                            r,
                            "score",
                            "score_low_normal",
                            "score_high_normal",
                        )),
                        tn(signed(r, "score_luck")),
                        tn(interval(
                            r,
                            "adjusted_score",
                            "adjusted_score_low",
                            "adjusted_score_high",
                        )),
                        tn(ratio(r, "score_variance_ratio")),
                    ],
                )
            })
            .collect();
        page.table(
            &head(&[
                "bot",
                "score [95%]",
                "its luck",
                "adjusted score [95%]",
                "variance ratio",
            ]),
            rows,
            None,
        );
    }
}

/// A two-bot rotated match (match.csv): Elo, nElo, LOS and the pentanomial pair counts.
fn head_to_head(page: &mut Page, f: &Folder) {
    let Some(m) = f.csv("match.csv") else {
        return;
    };
    let sound = check::table(f, "match.csv", &m);
    let Some(r) = m.rows().next() else {
        return;
    };
    page.h2("match", "Head to head");
    let counts: Vec<Option<u64>> = ["ll", "ld", "dd_wl", "wd", "ww"]
        .iter()
        .map(|c| r.int(c))
        .collect();
    if let (Some(pairs), true) = (r.int("pairs"), counts.iter().all(Option::is_some)) {
        let sum: u64 = counts.iter().flatten().sum();
        if sum != pairs {
            f.problem(format!(
                "match.csv: the pair counts add up to {sum}, not the {pairs} pairs it names"
            ));
        }
    }
    if let Some(h) = f
        .report()
        .and_then(|r| r.run_summary()?.head_to_head.as_ref())
    {
        let csv: Vec<u64> = counts.iter().flatten().copied().collect();
        if !h.counts.is_empty() && h.counts != csv {
            check::disagree(
                f,
                "the pair counts",
                ("match.csv", format!("{csv:?}")),
                ("summary.json", format!("{:?}", h.counts)),
            );
        }
    }
    if !sound.first().copied().unwrap_or(false) {
        page.note("match.csv holds values no match can have: see the problems above.");
        return;
    }
    let (a, b) = (r.text("bot"), r.text("opponent"));
    let elo = |c: &str| r.num_or_inf(c).map_or("?".to_string(), format_elo);
    let los = r.num("los").unwrap_or(f64::NAN);
    page.finding(&format!(
        "{a} against {b}: Elo {} [{}, {}], LOS {:.2}% ({} pairs of games, seats swapped).",
        elo("elo"),
        elo("elo_lo95"),
        elo("elo_hi95"),
        100.0 * los,
        r.text("pairs")
    ));
    let method = match r.text("interval_method") {
        "normal_by_pair" => "normal interval of the mean pair score (pentanomial)",
        "wilson_on_pairs" => {
            "Wilson interval on the pairs: too few pairs (under 30), or all alike, to trust their variance"
        }
        _ => "as recorded",
    };
    page.p(&format!(
        "Score {} [{}, {}] of the points for {a} (a won game 1, an unfinished game 1/2); normalized Elo {} [{}, {}]; 95% intervals: {method}.",
        r.num("score").map_or("?".into(), pct),
        r.num("score_lo95").map_or("?".into(), pct),
        r.num("score_hi95").map_or("?".into(), pct),
        elo("nelo"),
        elo("nelo_lo95"),
        elo("nelo_hi95"),
    ));
    let rows = vec![
        ["LL", "LD", "DD or WL", "WD", "WW"]
            .iter()
            .zip(["ll", "ld", "dd_wl", "wd", "ww"])
            .map(|(_, c)| tn(r.text(c)))
            .collect(),
    ];
    page.table(
        &[
            "LL (0 points)",
            "LD (1/2)",
            "DD or WL (1)",
            "WD (3/2)",
            "WW (2)",
        ],
        rows,
        None,
    );
}

fn lengths(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    page.h2("lengths", "Game length");
    let stats = f.csv("length_stats.csv");
    let sound = stats
        .as_deref()
        .map(|s| check::table(f, "length_stats.csv", s))
        .unwrap_or_default();
    let turns_stats = stats
        .as_deref()
        .and_then(|s| {
            s.rows()
                .zip(&sound)
                .find(|(r, _)| r.text("measure") == "turns")
        })
        .filter(|(_, ok)| **ok)
        .map(|(r, _)| r);
    let played = check::games_played(f);
    if let (Some(t), Some(p)) = (turns_stats, played)
        && let Some(g) = t.int("games")
        && g != p
    {
        check::disagree(
            f,
            "the games measured",
            ("length_stats.csv", g.to_string()),
            ("run.json", format!("{p} games played")),
        );
    }
    // lengths.csv can be long: two passes, the range then the bins.
    let (mut range, mut total, mut said) = (None::<(u64, u64)>, 0u64, 0usize);
    let present = f
        .each_row("lengths.csv", |r| {
            if r.text("measure") != "turns" {
                return;
            }
            if !check::row_ok(f, "lengths.csv", &r, &mut said) {
                return;
            }
            let (Some(v), Some(g)) = (r.int("value"), r.int("games")) else {
                return;
            };
            range = Some(range.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
            total = total.saturating_add(g);
        })
        .is_some();
    if present {
        if let Some(p) = played
            && total != p
        {
            check::disagree(
                f,
                "the games counted by length",
                ("lengths.csv", total.to_string()),
                ("run.json", format!("{p} games played")),
            );
        }
        let bins = range.map(|(lo, hi)| {
            let mut b = Bins::new(lo, hi);
            f.each_row("lengths.csv", |r| {
                if r.text("measure") == "turns"
                    && let (Some(v), Some(g)) = (r.int("value"), r.int("games"))
                {
                    b.add(v, g);
                }
            });
            b
        });
        let mean = turns_stats.and_then(|r| r.num("mean"));
        let median = turns_stats.and_then(|r| r.num("median"));
        if let (Some(m), Some(md), Some(t)) = (mean, median, turns_stats) {
            page.finding(&format!(
                "A game lasts {m:.1} turns on average (median {md:.0}); half of all games take between {} and {} turns, 90% between {} and {}.",
                t.text("p25"),
                t.text("p75"),
                t.text("p5"),
                t.text("p95"),
            ));
        }
        let svg = chart::histogram(bins.as_ref(), mean, median, "turns")?;
        page.figure(
            &svg,
            "Games by length in turns (a turn is one player's roll and any extra rolls after a 6), with the mean and the median marked.",
        );
    } else {
        page.note("lengths.csv is missing or unreadable: no histogram.");
    }
    match stats {
        Some(s) => {
            let rows = s
                .rows()
                .map(|r| {
                    let mut row = vec![td(r.text("measure")), tn(r.text("games"))];
                    for c in ["mean", "sd"] {
                        row.push(tn(r.num(c).map_or("?".into(), |x| format!("{x:.2}"))));
                    }
                    for c in ["min", "p5", "p25", "median", "p75", "p95", "max"] {
                        row.push(tn(r.text(c)));
                    }
                    row
                })
                .collect();
            page.table_keyed(
                &[
                    "measure", "games", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95",
                    "max",
                ],
                rows,
                None,
                1,
            );
        }
        None => page.note("length_stats.csv is missing or unreadable: no percentiles."),
    }
    Ok(())
}

fn events(page: &mut Page, f: &Folder) -> Result<(), ReportError> {
    page.h2("events", "Events per game");
    let Some(ev) = f.csv("events.csv") else {
        page.note("events.csv is missing or unreadable: no event counts.");
        return Ok(());
    };
    let sound = check::table(f, "events.csv", &ev);
    let played = check::games_played(f);
    let mut labels = Vec::new();
    let mut values = Vec::new();
    let mut rows = Vec::new();
    for (r, ok) in ev.rows().zip(&sound) {
        let per = r.num("per_game").filter(|_| *ok);
        if let (Some(per), Some(total), Some(p)) = (per, r.int("total"), played)
            && p > 0
            && (per - total as f64 / p as f64).abs() > 1e-6 * per.max(1.0)
        {
            f.problem(format!(
                "events.csv row {}: per_game {} is not {total} / {p} games played",
                r.line,
                check::short(per)
            ));
        }
        labels.push(r.text("event").to_string());
        values.push(per.unwrap_or(0.0));
        rows.push(vec![
            td(r.text("event")),
            tn(r.text("total")),
            tn(per.map_or("?".into(), |x| format!("{x:.2}"))),
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

/// How to reproduce the job: the command line (from the typed manifest), the seed, every rule
/// and the tool version.
pub(crate) fn reproduce(page: &mut Page, f: &Folder) {
    page.h2("reproduce", "Reproduce");
    let Some(m) = &f.manifest else {
        page.note("run.json is missing from this folder: the command that made it is unknown.");
        return;
    };
    match &f.typed {
        Some(typed) => {
            let r = typed.reproduction();
            if let Some(text) = &r.rules_file {
                page.p(&format!(
                    "The rules are neither a preset nor a file that still holds them: save them as {} first (every option written out):",
                    crate::export::RULES_FILE
                ));
                page.pre_id("rules-file", text);
            }
            page.p(
                "The command that made these results (results do not depend on threads or chunk size):",
            );
            page.pre_id("command", &r.shell("DIR"));
            for c in &r.caveats {
                page.note(c);
            }
            page.p("or, exactly as recorded in this folder's manifest:");
            page.pre_id(
                "manifest-command",
                &format!(
                    "aeroplane {} --manifest {}{} --out DIR",
                    typed.command,
                    crate::export::quote(&f.path.join("run.json").display().to_string()),
                    if typed.report { " --report" } else { "" }
                ),
            );
        }
        None => page.note(
            "run.json cannot be read as a manifest by this version: the command that made the folder is unknown (see the problems above).",
        ),
    }
    let s = |k: &str| m.get(k).map(json_text).unwrap_or_default();
    page.facts(&[
        ("seed", s("seed")),
        ("tool", format!("{} {}", s("tool"), s("version"))),
        (
            "manifest format",
            m.get("format").map(json_text).unwrap_or_else(|| "0".into()),
        ),
    ]);
    let command = m.get("command").and_then(Value::as_str).unwrap_or("run");
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
