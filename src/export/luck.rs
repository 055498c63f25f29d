//! `luck.csv`: a run's luck-adjusted results ([`crate::analysis::luck`]) as a table.

use super::table::{Cell, Table};
use crate::analysis::luck::{Adjusted, LuckReport};

/// `luck.csv`: one row per lineup entry of a run's luck report.
pub fn luck_table(report: &LuckReport) -> Table {
    let mut t = Table::new(
        "luck.csv",
        &[
            "bot",
            "name",
            "games",
            "win_rate",
            "win_luck",
            "adjusted_win_rate",
            "adjusted_win_rate_low",
            "adjusted_win_rate_high",
            "win_rate_low_normal",
            "win_rate_high_normal",
            "win_variance_ratio",
            "score",
            "score_luck",
            "adjusted_score",
            "adjusted_score_low",
            "adjusted_score_high",
            "score_low_normal",
            "score_high_normal",
            "score_variance_ratio",
        ],
    );
    for b in &report.bots {
        let mut row = vec![
            Cell::int(b.index as u64),
            Cell::text(b.name.clone()),
            Cell::int(b.games),
        ];
        for a in [&b.win_rate, &b.score] {
            row.extend(luck_cells(a));
        }
        t.push(row);
    }
    t
}

/// One measure's eight cells in luck.csv's order: plain, luck, adjusted, the adjusted
/// interval, the plain interval (normal, the same method) and the variance ratio. The first
/// three at full precision (the shortest text that reads back as the same f64), so that
/// `adjusted = plain - luck` holds exactly in the file.
pub fn luck_cells(a: &Adjusted) -> [Cell; 8] {
    let full = |v: f64| Cell {
        text: format!("{v}"),
        value: Some(v),
    };
    let opt = |v: Option<f64>| Cell::fixed(v);
    [
        full(a.plain),
        full(a.luck),
        full(a.adjusted),
        opt(a.interval.map(|i| i.0)),
        opt(a.interval.map(|i| i.1)),
        opt(a.plain_interval.map(|i| i.0)),
        opt(a.plain_interval.map(|i| i.1)),
        opt(a.variance_ratio),
    ]
}
