//! The `forfeits` column, written only by runs with `recover` (where it can be nonzero), so
//! that every other run's files stay as they were.

use crate::stats::Summary;

use super::table::{Cell, Table};

/// The column `recover` adds at the end of `summary.csv`: games the bot lost because it failed.
pub const FORFEITS_COLUMN: &str = "forfeits";

/// `summary.csv` (as `summary` is the table [`super::run_tables`] makes) with its `forfeits`
/// column last.
pub fn summary_with_forfeits(mut summary: Table, s: &Summary) -> Table {
    summary.header.push(FORFEITS_COLUMN);
    for (row, b) in summary.rows.iter_mut().zip(&s.bots) {
        row.push(Cell::int(b.counts.forfeits));
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::super::tables::{SUMMARY_HEADER, run_tables};
    use super::*;
    use crate::stats::Tally;

    #[test]
    fn the_header_is_summary_csv_s_plus_forfeits() {
        let t = Tally::new(2, 1);
        let s = Summary::new(&t, &["a".into(), "b".into()]);
        let table = summary_with_forfeits(run_tables(&t, &s).remove(0), &s);
        assert_eq!(table.header[..SUMMARY_HEADER.len()], SUMMARY_HEADER);
        assert_eq!(table.header.last(), Some(&"forfeits"));
        assert!(table.rows.iter().all(|r| r.len() == table.header.len()));
    }
}
