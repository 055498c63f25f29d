//! The end-of-run CSV tables of a run (and of an SPRT, which is a run).

use crate::analysis::Summary;
use crate::stats::Tally;
use aeroplane_core::Counter;

use super::table::{Cell, Table};

/// `summary.csv` columns: one row per lineup entry. `mean_rank` is empty unless every game
/// ranked the bot; `design_effect` (rotated runs) is the Kish design effect of the deal;
/// `interval_method` is `wilson`, `cluster_by_deal` or `wilson_on_deals` (see
/// [`crate::stats::IntervalMethod`]).
pub const SUMMARY_HEADER: [&str; 15] = columns(
    BOT_WIN_COLUMNS,
    [
        "mean_rank",
        "rank_1",
        "rank_2",
        "rank_3",
        "rank_4",
        "unranked",
        "design_effect",
        "interval_method",
    ],
);

/// The columns a table of one row per bot starts with (`summary.csv`, `grade.csv`): the
/// lineup entry, its name, its games and wins, and the win rate with its 95% interval.
pub const BOT_WIN_COLUMNS: [&str; 7] = [
    "bot", "name", "games", "wins", "win_rate", "win_lo95", "win_hi95",
];

/// The columns `head` then `tail`, as one header of `N` columns (checked when compiled).
pub const fn columns<const A: usize, const B: usize, const N: usize>(
    head: [&'static str; A],
    tail: [&'static str; B],
) -> [&'static str; N] {
    assert!(A + B == N, "a header's length is the sum of its parts'");
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = head[i];
        i += 1;
    }
    while i < N {
        out[i] = tail[i - A];
        i += 1;
    }
    out
}
/// `seats.csv` columns: one row per seat in play, with the equal-seats test on every row
/// (`chi2`, `df`, `p_all_equal` in scientific notation: it is often tiny). `seat_test` says
/// what that test measures: `seat_order` (one bot in every seat, or seats rotated) or
/// `bots_and_seats` (seat j holds bot j: bot and seat are confounded).
pub const SEATS_HEADER: [&str; 13] = [
    "seat",
    "colour",
    "games",
    "wins",
    "win_rate",
    "win_lo95",
    "win_hi95",
    "chi2",
    "df",
    "p_all_equal",
    "design_effect",
    "interval_method",
    "seat_test",
];
/// `lengths.csv` columns: the game-length histograms, one row per (measure, value) seen.
pub const LENGTHS_HEADER: [&str; 3] = ["measure", "value", "games"];
/// `length_stats.csv` columns: mean, sd and quantiles of each length measure.
pub const LENGTH_STATS_HEADER: [&str; 11] = [
    "measure", "games", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95", "max",
];
/// `events.csv` columns: event totals and means per game.
pub const EVENTS_HEADER: [&str; 3] = ["event", "total", "per_game"];
/// `match.csv` columns (two players, seats rotated): one row, lineup entry 0 (`bot`) against
/// entry 1. `pairs` deals (each a pair of games with the seats swapped); `ll` .. `ww` the
/// pairs by `bot`'s points (2 per game won, 1 per unfinished game: LL 0, LD 1, DD or WL 2,
/// WD 3, WW 4); `score` its share of the points with a 95% interval; `elo`, `nelo`
/// (normalized) with 95% intervals (`inf`/`-inf` for a score of 1 or 0); `los` the likelihood
/// that `bot` is the stronger; `interval_method` `normal_by_pair` or `wilson_on_pairs` (see
/// [`crate::analysis::elo`]).
pub const MATCH_HEADER: [&str; 19] = [
    "bot",
    "opponent",
    "pairs",
    "ll",
    "ld",
    "dd_wl",
    "wd",
    "ww",
    "score",
    "score_lo95",
    "score_hi95",
    "elo",
    "elo_lo95",
    "elo_hi95",
    "nelo",
    "nelo_lo95",
    "nelo_hi95",
    "los",
    "interval_method",
];

/// Every end-of-run table of a run, in the order written: summary, seats, lengths,
/// length_stats, events, and match (two players, seats rotated).
pub fn run_tables(tally: &Tally, summary: &Summary) -> Vec<Table> {
    let mut tables = vec![
        summary_table(summary),
        seats_table(summary),
        lengths_table(tally),
        length_stats_table(summary),
        events_table(summary),
    ];
    tables.extend(match_table(summary));
    tables
}

fn match_table(s: &Summary) -> Option<Table> {
    let h = s.head_to_head.as_ref()?;
    let mut t = Table::new("match.csv", &MATCH_HEADER);
    let elo = |e: Option<&crate::analysis::elo::EloEstimate>| {
        [
            Cell::fixed_or_inf(e.map(|e| e.elo)),
            Cell::fixed_or_inf(e.map(|e| e.low)),
            Cell::fixed_or_inf(e.map(|e| e.high)),
        ]
    };
    let mut row = vec![
        Cell::text(s.bots[0].name.clone()),
        Cell::text(s.bots[1].name.clone()),
        Cell::int(h.groups),
    ];
    row.extend(h.counts.iter().map(|&c| Cell::int(c)));
    row.extend([
        Cell::fixed(Some(h.score)),
        Cell::fixed(Some(h.score_low)),
        Cell::fixed(Some(h.score_high)),
    ]);
    row.extend(elo(Some(&h.elo)));
    row.extend(elo(h.nelo.as_ref()));
    row.push(Cell::fixed(Some(h.los)));
    row.push(Cell::text(h.interval_method.name()));
    t.push(row);
    Some(t)
}

fn summary_table(s: &Summary) -> Table {
    let mut t = Table::new("summary.csv", &SUMMARY_HEADER);
    for b in &s.bots {
        let c = &b.counts;
        t.push(vec![
            Cell::int(b.index as u64),
            Cell::text(b.name.clone()),
            Cell::int(c.games),
            Cell::int(c.wins),
            Cell::fixed(Some(b.win_rate)),
            Cell::fixed(b.interval.map(|i| i.0)),
            Cell::fixed(b.interval.map(|i| i.1)),
            Cell::fixed(b.mean_rank),
            Cell::int(c.ranks[1]),
            Cell::int(c.ranks[2]),
            Cell::int(c.ranks[3]),
            Cell::int(c.ranks[4]),
            Cell::int(c.ranks[0]),
            Cell::fixed(b.method.and_then(|m| m.design_effect)),
            method(b.method),
        ]);
    }
    t
}

fn seats_table(s: &Summary) -> Table {
    let mut t = Table::new("seats.csv", &SEATS_HEADER);
    let test = s.seat_test;
    for seat in &s.seats {
        t.push(vec![
            Cell::int(seat.seat.index() as u64),
            Cell::text(seat.seat.colour()),
            Cell::int(seat.counts.games),
            Cell::int(seat.counts.wins),
            Cell::fixed(Some(seat.win_rate)),
            Cell::fixed(seat.interval.map(|i| i.0)),
            Cell::fixed(seat.interval.map(|i| i.1)),
            Cell::fixed(test.map(|t| t.statistic)),
            test.map_or_else(Cell::empty, |t| Cell::int(t.df)),
            Cell::p_value(test.map(|t| t.p_value), 6),
            Cell::fixed(seat.method.and_then(|m| m.design_effect)),
            method(seat.method),
            Cell::text(seat_test_kind(s)),
        ]);
    }
    t
}

fn method(m: Option<crate::stats::RateInterval>) -> Cell {
    m.map_or_else(Cell::empty, |m| Cell::text(m.method.name()))
}

/// What the seat test of a run measures: `seat_order` or `bots_and_seats`.
pub fn seat_test_kind(s: &Summary) -> &'static str {
    if s.seat_order_test {
        "seat_order"
    } else {
        "bots_and_seats"
    }
}

fn lengths_table(tally: &Tally) -> Table {
    let mut t = Table::new("lengths.csv", &LENGTHS_HEADER);
    for (m, h) in [("turns", &tally.turns), ("rolls", &tally.rolls)] {
        for (v, c) in h.iter() {
            t.push(vec![Cell::text(m), Cell::int(v), Cell::int(c)]);
        }
    }
    t
}

fn length_stats_table(s: &Summary) -> Table {
    let mut t = Table::new("length_stats.csv", &LENGTH_STATS_HEADER);
    for l in &s.lengths {
        let Some(x) = l.spread else { continue };
        t.push(vec![
            Cell::text(l.measure),
            Cell::int(x.n),
            Cell::fixed(Some(x.mean)),
            Cell::fixed(Some(x.sd)),
            Cell::int(x.min),
            Cell::int(x.p5),
            Cell::int(x.p25),
            Cell::int(x.median),
            Cell::int(x.p75),
            Cell::int(x.p95),
            Cell::int(x.max),
        ]);
    }
    t
}

fn events_table(s: &Summary) -> Table {
    let mut t = Table::new("events.csv", &EVENTS_HEADER);
    let per = |x: u64| Cell::fixed((s.games > 0).then(|| x as f64 / s.games as f64));
    for (name, total) in Counter::EVENTS
        .iter()
        .map(|&c| (c.name(), s.counters[c]))
        .chain([("unfinished", s.unfinished)])
    {
        t.push(vec![Cell::text(name), Cell::int(total), per(total)]);
    }
    t
}
