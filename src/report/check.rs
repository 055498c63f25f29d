//! Is the folder what its job wrote? Every table's cells against what they can hold (a rate in
//! `[0, 1]`, a count, a finite rating), and the tables against each other, `summary.json` and
//! the manifest (games played, players, the bots, each variant). What disagrees is recorded as a
//! problem of the folder and said at the top of the page; the page never shows such a table as
//! if it were sound.

use super::load::{Csv, Folder, Row};
use super::views::RunSummaryView;

/// What a column may hold.
#[derive(Clone, Copy)]
pub(crate) enum Domain {
    /// A share in `[0, 1]`.
    Rate,
    /// A non-negative integer.
    Count,
    /// A number in `[0, max]`.
    NonNeg(f64),
    /// A number in `[-max, max]`.
    Finite(f64),
    /// A number in `[-max, max]` or `inf`/`-inf`.
    FiniteOrInf(f64),
    /// A p-value.
    P,
}

impl Domain {
    fn ok(self, text: &str) -> bool {
        let num = || text.parse::<f64>().ok();
        match self {
            Domain::Rate => num().is_some_and(|x| (0.0..=1.0).contains(&x)),
            Domain::Count => text.parse::<u64>().is_ok(),
            Domain::NonNeg(max) => num().is_some_and(|x| (0.0..=max).contains(&x)),
            Domain::Finite(max) => num().is_some_and(|x| x.abs() <= max),
            Domain::FiniteOrInf(max) => num().is_some_and(|x| x.is_infinite() || x.abs() <= max),
            Domain::P => crate::stats::PValue::parse(text).is_some(),
        }
    }

    fn says(self) -> String {
        match self {
            Domain::Rate => "a share from 0 to 1".into(),
            Domain::Count => "a count (a whole number from 0)".into(),
            Domain::NonNeg(max) => format!("a number from 0 to {max:e}"),
            Domain::Finite(max) => format!("a number from -{max:e} to {max:e}"),
            Domain::FiniteOrInf(max) => format!("a number from -{max:e} to {max:e}, or inf"),
            Domain::P => "a p-value from 0 to 1".into(),
        }
    }
}

/// A column's rule: its name, its domain, whether it may be empty.
pub(crate) type Rule = (&'static str, Domain, bool);

/// The longest a game can be in turns or rolls, as far as a report believes it.
const MAX_LENGTH: f64 = 1e9;

/// The rules of every table a job writes.
pub(crate) fn rules(table: &str) -> &'static [Rule] {
    use Domain::*;
    const RATE_IV: [Rule; 3] = [
        ("win_rate", Rate, false),
        ("win_lo95", Rate, true),
        ("win_hi95", Rate, true),
    ];
    match table {
        "summary.csv" => &[
            ("bot", Count, false),
            ("games", Count, false),
            ("wins", Count, false),
            RATE_IV[0],
            RATE_IV[1],
            RATE_IV[2],
            ("mean_rank", NonNeg(4.0), true),
            ("rank_1", Count, true),
            ("rank_2", Count, true),
            ("rank_3", Count, true),
            ("rank_4", Count, true),
            ("unranked", Count, true),
            ("design_effect", NonNeg(1e6), true),
        ],
        "seats.csv" => &[
            ("seat", Count, false),
            ("games", Count, false),
            ("wins", Count, false),
            RATE_IV[0],
            RATE_IV[1],
            RATE_IV[2],
            ("chi2", NonNeg(1e300), true),
            ("df", Count, true),
            ("p_all_equal", P, true),
            ("design_effect", NonNeg(1e6), true),
        ],
        "length_stats.csv" => &[
            ("games", Count, false),
            ("mean", NonNeg(MAX_LENGTH), false),
            ("sd", NonNeg(MAX_LENGTH), false),
            ("min", Count, false),
            ("p5", Count, false),
            ("p25", Count, false),
            ("median", Count, false),
            ("p75", Count, false),
            ("p95", Count, false),
            ("max", Count, false),
        ],
        "lengths.csv" => &[("value", Count, false), ("games", Count, false)],
        "events.csv" => &[("total", Count, false), ("per_game", NonNeg(1e9), true)],
        "match.csv" => &[
            ("pairs", Count, false),
            ("ll", Count, false),
            ("ld", Count, false),
            ("dd_wl", Count, false),
            ("wd", Count, false),
            ("ww", Count, false),
            ("score", Rate, false),
            ("score_lo95", Rate, false),
            ("score_hi95", Rate, false),
            ("elo", FiniteOrInf(1e5), false),
            ("elo_lo95", FiniteOrInf(1e5), false),
            ("elo_hi95", FiniteOrInf(1e5), false),
            ("nelo", FiniteOrInf(1e6), true),
            ("nelo_lo95", FiniteOrInf(1e6), true),
            ("nelo_hi95", FiniteOrInf(1e6), true),
            ("los", Rate, false),
        ],
        "pairs_luck.csv" => &[
            ("met", Count, false),
            ("deals", Count, false),
            ("score", Rate, false),
            ("score_luck", Finite(1.0), false),
            ("adjusted_score", Finite(2.0), false),
            ("adjusted_score_low", Finite(2.0), true),
            ("adjusted_score_high", Finite(2.0), true),
            ("score_low_normal", Finite(2.0), true),
            ("score_high_normal", Finite(2.0), true),
            ("score_variance_ratio", NonNeg(1e12), true),
        ],
        "luck.csv" => &[
            ("index", Count, true),
            ("bot", Count, false),
            ("games", Count, false),
            ("win_rate", Rate, false),
            ("win_luck", Finite(1.0), false),
            ("adjusted_win_rate", Finite(2.0), false),
            ("adjusted_win_rate_low", Finite(2.0), true),
            ("adjusted_win_rate_high", Finite(2.0), true),
            ("win_rate_low_normal", Finite(2.0), true),
            ("win_rate_high_normal", Finite(2.0), true),
            ("win_variance_ratio", NonNeg(1e12), true),
            ("score", Rate, false),
            ("score_luck", Finite(1.0), false),
            ("adjusted_score", Finite(2.0), false),
            ("adjusted_score_low", Finite(2.0), true),
            ("adjusted_score_high", Finite(2.0), true),
            ("score_low_normal", Finite(2.0), true),
            ("score_high_normal", Finite(2.0), true),
            ("score_variance_ratio", NonNeg(1e12), true),
        ],
        "sweep.csv" => &[
            ("index", Count, false),
            ("players", Count, false),
            ("games", Count, false),
            ("seat0_win", Rate, true),
            ("seat0_lo95", Rate, true),
            ("seat0_hi95", Rate, true),
            ("seat1_win", Rate, true),
            ("seat2_win", Rate, true),
            ("seat3_win", Rate, true),
            ("chi2_p", P, true),
            ("max_seat_edge", Rate, true),
            ("turns_mean", NonNeg(MAX_LENGTH), true),
            ("turns_sd", NonNeg(MAX_LENGTH), true),
            ("turns_median", Count, true),
            ("turns_p95", Count, true),
            ("unfinished", Count, false),
            ("chi2_p_holm", P, true),
            ("chi2_p_bh", P, true),
            ("bot0_win", Rate, true),
            ("bot1_win", Rate, true),
            ("bot2_win", Rate, true),
            ("bot3_win", Rate, true),
        ],
        "compare.csv" => &[
            ("mean_a", NonNeg(MAX_LENGTH), true),
            ("mean_b", NonNeg(MAX_LENGTH), true),
            ("diff", Finite(MAX_LENGTH), true),
            ("diff_lo95", Finite(MAX_LENGTH), true),
            ("diff_hi95", Finite(MAX_LENGTH), true),
            ("p", P, true),
            ("deals", Count, false),
        ],
        "effects.csv" => &[
            ("variants", Count, false),
            ("deals", Count, false),
            ("mean", NonNeg(MAX_LENGTH), false),
            ("mean_lo95", Finite(MAX_LENGTH), true),
            ("mean_hi95", Finite(MAX_LENGTH), true),
            ("diff", Finite(MAX_LENGTH), true),
            ("diff_lo95", Finite(MAX_LENGTH), true),
            ("diff_hi95", Finite(MAX_LENGTH), true),
            ("p", P, true),
        ],
        "league.csv" => &[
            ("rank", Count, false),
            ("rating", Finite(1e5), false),
            ("rating_lo95", Finite(1e5), false),
            ("rating_hi95", Finite(1e5), false),
            ("games", Count, false),
            ("wins", Count, false),
            ("win_rate", Rate, false),
            ("mean_rank", NonNeg(4.0), true),
            ("ranked_games", Count, true),
        ],
        "pairs.csv" => &[
            ("met", Count, false),
            ("ahead", Count, false),
            ("score", Rate, true),
            ("score_lo95", Rate, true),
            ("score_hi95", Rate, true),
            ("deals", Count, true),
        ],
        _ => &[],
    }
}

/// The most problems said per table; the rest are counted.
const MAX_SAID: usize = 5;

/// A row's bad cells against the table's rules, as problems (`true` when the row is sound).
pub(crate) fn row_ok(f: &Folder, table: &str, row: &Row<'_>, said: &mut usize) -> bool {
    let mut ok = true;
    for &(col, domain, may_be_empty) in rules(table) {
        let text = row.text(col);
        if text.is_empty() && may_be_empty {
            continue;
        }
        if !domain.ok(text) {
            ok = false;
            *said += 1;
            if *said <= MAX_SAID {
                f.problem(format!(
                    "{table} row {}: `{col}` is `{}`, not {}",
                    row.line,
                    aeroplane_core::excerpt::excerpt(text),
                    domain.says()
                ));
            }
        }
    }
    ok
}

/// Checks every row of a table; returns the rows that are sound (by line number).
pub(crate) fn table(f: &Folder, name: &str, csv: &Csv) -> Vec<bool> {
    let mut said = 0;
    let missing: Vec<&str> = rules(name)
        .iter()
        .filter(|(col, _, may_be_empty)| !may_be_empty && !csv.has(col))
        .map(|r| r.0)
        .collect();
    if !missing.is_empty() {
        f.problem(format!(
            "{name} lacks the column(s) {} (garbled, or written by another version)",
            missing.join(", ")
        ));
    }
    let sound: Vec<bool> = csv.rows().map(|r| row_ok(f, name, &r, &mut said)).collect();
    if said > MAX_SAID {
        f.problem(format!(
            "{name}: {} more bad cells not listed",
            said - MAX_SAID
        ));
    }
    sound
}

/// A difference between two sources of the same figure.
pub(crate) fn disagree(f: &Folder, what: &str, a: (&str, String), b: (&str, String)) {
    f.problem(format!(
        "{what}: {} says {}, {} says {}",
        a.0, a.1, b.0, b.1
    ));
}

/// The games the manifest says were played, when the job completed.
pub(crate) fn games_played(f: &Folder) -> Option<u64> {
    let m = f.manifest.as_ref()?;
    (m.get("status").and_then(|s| s.as_str()) == Some("complete"))
        .then(|| m.get("games_played")?.as_u64())
        .flatten()
}

/// A run's tables (summary.csv, seats.csv) against each other, the manifest and summary.json.
pub(crate) fn run_tables(f: &Folder, summary: Option<&Csv>, seats: Option<&Csv>) {
    let played = games_played(f);
    let json: Option<&RunSummaryView> = f.report().and_then(|r| r.run_summary());
    let players = f
        .manifest_field("players")
        .and_then(|p| p.as_u64())
        .or(json.and_then(|j| j.players));
    let names = f.bot_names();
    if let Some(s) = summary {
        if let Some(p) = players
            && s.len() as u64 != p
        {
            disagree(
                f,
                "bots",
                ("summary.csv", format!("{} rows", s.len())),
                ("run.json", format!("{p} players")),
            );
        }
        lines(f, "summary.csv", s, played, json.map(|j| &j.bots[..]));
        for r in s.rows() {
            if let (Some(i), name) = (r.int("bot"), r.text("name"))
                && let Some(want) = names.get(i as usize)
                && want != name
            {
                disagree(
                    f,
                    &format!("bot {i}'s name"),
                    (
                        "summary.csv",
                        format!("`{}`", aeroplane_core::excerpt::excerpt(name)),
                    ),
                    (
                        "run.json",
                        format!("`{}`", aeroplane_core::excerpt::excerpt(want)),
                    ),
                );
            }
        }
    }
    if let Some(s) = seats {
        if let Some(p) = players
            && s.len() as u64 != p
        {
            disagree(
                f,
                "seats",
                ("seats.csv", format!("{} rows", s.len())),
                ("run.json", format!("{p} players")),
            );
        }
        lines(f, "seats.csv", s, played, json.map(|j| &j.seats[..]));
    }
    if let (Some(a), Some(b)) = (summary, seats) {
        let wins = |c: &Csv| c.rows().filter_map(|r| r.int("wins")).sum::<u64>();
        if wins(a) != wins(b) {
            disagree(
                f,
                "the total of wins",
                ("summary.csv", wins(a).to_string()),
                ("seats.csv", wins(b).to_string()),
            );
        }
    }
}

/// Each line (bot or seat) of a run: wins within games, the rate their ratio, the games those
/// the job played, and the same counts as summary.json.
fn lines(
    f: &Folder,
    table: &str,
    csv: &Csv,
    played: Option<u64>,
    json: Option<&[super::views::LineView]>,
) {
    for (i, r) in csv.rows().enumerate() {
        let (games, wins) = (r.int("games"), r.int("wins"));
        if let (Some(g), Some(w)) = (games, wins) {
            if w > g {
                f.problem(format!("{table} row {}: {w} wins in {g} games", r.line));
            }
            if let Some(rate) = r.num("win_rate")
                && g > 0
                && (rate - w as f64 / g as f64).abs() > 1e-6
            {
                f.problem(format!(
                    "{table} row {}: win_rate {} is not {w} wins / {g} games",
                    r.line,
                    short(rate)
                ));
            }
        }
        if let (Some(g), Some(p)) = (games, played)
            && g != p
        {
            disagree(
                f,
                &format!("{table} row {}'s games", r.line),
                (table, g.to_string()),
                ("run.json", format!("{p} games played")),
            );
        }
        if let Some(line) = json.and_then(|j| j.get(i))
            && let Some(c) = &line.counts
        {
            for (what, csv_v, json_v) in [("games", games, c.games), ("wins", wins, c.wins)] {
                if let (Some(a), Some(b)) = (csv_v, json_v)
                    && a != b
                {
                    disagree(
                        f,
                        &format!("{table} row {}'s {what}", r.line),
                        (table, a.to_string()),
                        ("summary.json", b.to_string()),
                    );
                }
            }
        }
    }
    if let Some(j) = json
        && j.len() != csv.len()
    {
        disagree(
            f,
            &format!("{table}'s rows"),
            (table, csv.len().to_string()),
            ("summary.json", j.len().to_string()),
        );
    }
}

/// A number from a file as a message shows it: `1e308`, not three hundred digits.
pub(crate) fn short(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e9).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}
