//! The `forfeits` columns, written only by runs with `recover` (where they can be nonzero), so
//! that every other run's files stay as they were.

use crate::stats::Summary;

use super::table::{Cell, Table};

/// The header of `summary.csv` with `recover`: the usual columns, then `forfeits` (games the
/// bot lost because it failed).
pub const SUMMARY_FORFEITS_HEADER: [&str; 14] = [
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
    "forfeits",
];

/// `summary.csv` (as `summary` is the table [`super::run_tables`] makes) with its `forfeits`
/// column.
pub fn summary_with_forfeits(mut summary: Table, s: &Summary) -> Table {
    summary.header = SUMMARY_FORFEITS_HEADER.to_vec();
    for (row, b) in summary.rows.iter_mut().zip(&s.bots) {
        row.push(Cell::int(b.counts.forfeits));
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::super::tables::SUMMARY_HEADER;
    use super::*;

    #[test]
    fn the_header_is_summary_csv_s_plus_forfeits() {
        assert_eq!(SUMMARY_FORFEITS_HEADER[..13], SUMMARY_HEADER);
    }
}
