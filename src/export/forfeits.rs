//! What runs with `recover` add (and only they, so that every other run's files stay as they
//! were): the `forfeits` column of `summary.csv`, and `forfeits.csv`, the forfeited games by
//! bot and cause with the first of each.

use serde::{Deserialize, Serialize};

use crate::analysis::Summary;
use crate::bots::FaultKind;

use super::table::{Cell, Table};

/// The header of `forfeits.csv`: one row per bot and cause of its forfeits, with the first
/// such game (its index and the failing bot's seat) and what happened in it.
pub const FORFEITS_HEADER: [&str; 7] = [
    "bot",
    "name",
    "cause",
    "forfeits",
    "first_game",
    "first_seat",
    "first_message",
];

/// The forfeits of one bot (lineup index) for one cause.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForfeitCount {
    /// The bot's lineup index.
    pub bot: usize,
    /// Why it failed.
    pub cause: FaultKind,
    /// Games it forfeited for this cause.
    pub forfeits: u64,
    /// The first such game.
    pub first_game: u64,
    /// Its seat in that game.
    pub first_seat: usize,
    /// What happened in it.
    pub first_message: String,
}

/// `forfeits.csv` of `counts` (in bot, then cause order), for the lineup `names`.
pub fn forfeits_table(counts: &[ForfeitCount], names: &[String]) -> Table {
    Table {
        file: "forfeits.csv",
        header: FORFEITS_HEADER.to_vec(),
        rows: counts
            .iter()
            .map(|c| {
                vec![
                    Cell::int(c.bot as u64),
                    Cell::text(names.get(c.bot).cloned().unwrap_or_default()),
                    Cell::text(c.cause.word()),
                    Cell::int(c.forfeits),
                    Cell::int(c.first_game),
                    Cell::int(c.first_seat as u64),
                    Cell::text(c.first_message.clone()),
                ]
            })
            .collect(),
    }
}

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
