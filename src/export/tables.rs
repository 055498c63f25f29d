//! The end-of-run CSV tables.

use crate::counters::Counter;

use super::{Report, Table, fixed};

/// `summary.csv`: one row per lineup entry.
pub struct SummaryCsv;
/// `seats.csv`: one row per seat in play, with the equal-seats test on every row (`chi2`, `df`,
/// `p_all_equal` in scientific notation: it is often tiny).
pub struct SeatsCsv;
/// `lengths.csv`: the game-length histograms, one row per (measure, value) seen.
pub struct LengthsCsv;
/// `length_stats.csv`: mean, sd and quantiles of each length measure.
pub struct LengthStatsCsv;
/// `events.csv`: event totals and means per game.
pub struct EventsCsv;

/// Every end-of-run table, in the order written.
pub const TABLES: [&dyn Table; 5] = [
    &SummaryCsv,
    &SeatsCsv,
    &LengthsCsv,
    &LengthStatsCsv,
    &EventsCsv,
];

impl Table for SummaryCsv {
    fn file_name(&self) -> &'static str {
        "summary.csv"
    }
    fn header(&self) -> &'static [&'static str] {
        &[
            "bot",
            "name",
            "games",
            "wins",
            "win_rate",
            "win_lo95",
            "win_hi95",
            "mean_rank",
            "rank_1",
            "rank_2",
            "rank_3",
            "rank_4",
            "unranked",
        ]
    }
    fn rows(&self, r: &Report<'_>) -> Vec<Vec<String>> {
        r.summary
            .bots
            .iter()
            .map(|b| {
                let c = &b.counts;
                vec![
                    b.index.to_string(),
                    b.name.clone(),
                    c.games.to_string(),
                    c.wins.to_string(),
                    fixed(Some(b.win_rate)),
                    fixed(b.interval.map(|i| i.0)),
                    fixed(b.interval.map(|i| i.1)),
                    fixed(b.mean_rank),
                    c.ranks[1].to_string(),
                    c.ranks[2].to_string(),
                    c.ranks[3].to_string(),
                    c.ranks[4].to_string(),
                    c.ranks[0].to_string(),
                ]
            })
            .collect()
    }
}

impl Table for SeatsCsv {
    fn file_name(&self) -> &'static str {
        "seats.csv"
    }
    fn header(&self) -> &'static [&'static str] {
        &[
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
        ]
    }
    fn rows(&self, r: &Report<'_>) -> Vec<Vec<String>> {
        let t = r.summary.seat_test;
        r.summary
            .seats
            .iter()
            .map(|s| {
                vec![
                    s.seat.index().to_string(),
                    s.seat.colour().to_string(),
                    s.counts.games.to_string(),
                    s.counts.wins.to_string(),
                    fixed(Some(s.win_rate)),
                    fixed(s.interval.map(|i| i.0)),
                    fixed(s.interval.map(|i| i.1)),
                    fixed(t.map(|t| t.statistic)),
                    t.map(|t| t.df.to_string()).unwrap_or_default(),
                    t.map(|t| format!("{:.6e}", t.p_value)).unwrap_or_default(),
                ]
            })
            .collect()
    }
}

impl Table for LengthsCsv {
    fn file_name(&self) -> &'static str {
        "lengths.csv"
    }
    fn header(&self) -> &'static [&'static str] {
        &["measure", "value", "games"]
    }
    fn rows(&self, r: &Report<'_>) -> Vec<Vec<String>> {
        [("turns", &r.tally.turns), ("rolls", &r.tally.rolls)]
            .into_iter()
            .flat_map(|(m, h)| {
                h.iter()
                    .map(move |(v, c)| vec![m.to_string(), v.to_string(), c.to_string()])
            })
            .collect()
    }
}

impl Table for LengthStatsCsv {
    fn file_name(&self) -> &'static str {
        "length_stats.csv"
    }
    fn header(&self) -> &'static [&'static str] {
        &[
            "measure", "games", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95", "max",
        ]
    }
    fn rows(&self, r: &Report<'_>) -> Vec<Vec<String>> {
        r.summary
            .lengths
            .iter()
            .filter_map(|l| {
                let s = l.spread?;
                Some(vec![
                    l.measure.to_string(),
                    s.n.to_string(),
                    fixed(Some(s.mean)),
                    fixed(Some(s.sd)),
                    s.min.to_string(),
                    s.p5.to_string(),
                    s.p25.to_string(),
                    s.median.to_string(),
                    s.p75.to_string(),
                    s.p95.to_string(),
                    s.max.to_string(),
                ])
            })
            .collect()
    }
}

impl Table for EventsCsv {
    fn file_name(&self) -> &'static str {
        "events.csv"
    }
    fn header(&self) -> &'static [&'static str] {
        &["event", "total", "per_game"]
    }
    fn rows(&self, r: &Report<'_>) -> Vec<Vec<String>> {
        let s = r.summary;
        let per = |x: u64| fixed((s.games > 0).then(|| x as f64 / s.games as f64));
        Counter::EVENTS
            .iter()
            .map(|&c| (c.name(), s.counters[c]))
            .chain([("unfinished", s.unfinished)])
            .map(|(name, total)| vec![name.to_string(), total.to_string(), per(total)])
            .collect()
    }
}
