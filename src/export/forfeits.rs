//! The `forfeits` columns, written only by runs with `recover` (where they can be nonzero), so
//! that every other run's files stay as they were.

use super::tables::SummaryCsv;
use super::{Report, Table};

/// `summary.csv` with a last column `forfeits`: games the bot lost because it failed.
pub struct SummaryWithForfeitsCsv;

/// The header of [`SummaryWithForfeitsCsv`]: `summary.csv`'s, then `forfeits`.
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

impl Table for SummaryWithForfeitsCsv {
    fn file_name(&self) -> &'static str {
        SummaryCsv.file_name()
    }
    fn header(&self) -> &'static [&'static str] {
        &SUMMARY_FORFEITS_HEADER
    }
    fn rows(&self, r: &Report<'_>) -> Vec<Vec<String>> {
        let mut rows = SummaryCsv.rows(r);
        for (row, b) in rows.iter_mut().zip(&r.summary.bots) {
            row.push(b.counts.forfeits.to_string());
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_is_summary_csv_s_plus_forfeits() {
        assert_eq!(&SUMMARY_FORFEITS_HEADER[..13], SummaryCsv.header());
    }
}
