//! What `aeroplane run` adds for bot programs: `--recover`, and their stderr logs under
//! `--out DIR/logs/`. Kept apart from the rest of the command.

use std::path::Path;

use aeroplane::export::{SummaryWithForfeitsCsv, TABLES, Table};
use aeroplane::runner::RunSpec;
use aeroplane::stats::Tally;

/// The folder of bot programs' stderr logs in an output directory.
pub const LOGS_DIR: &str = "logs";

/// Sends the stderr of every bot program of the lineup to `out/logs/<bot>-<n>.log`.
pub fn attach_logs(spec: &mut RunSpec, out: Option<&Path>) {
    if let Some(dir) = out {
        for bot in &mut spec.lineup {
            if let Some(ext) = &mut bot.external {
                ext.log_dir = Some(dir.join(LOGS_DIR));
            }
        }
    }
}

/// The end-of-run tables: with `recover`, summary.csv gets its `forfeits` column.
pub fn tables(recover: bool) -> Vec<&'static dyn Table> {
    TABLES
        .iter()
        .map(|&t| {
            if recover && t.file_name() == "summary.csv" {
                &SummaryWithForfeitsCsv as &dyn Table
            } else {
                t
            }
        })
        .collect()
}

/// With `recover`: a line of the report with each bot's forfeits.
pub fn write_forfeits(
    out: &mut impl std::io::Write,
    recover: bool,
    spec: &RunSpec,
    tally: &Tally,
) -> std::io::Result<()> {
    if !recover {
        return Ok(());
    }
    let parts: Vec<String> = spec
        .lineup
        .iter()
        .zip(&tally.bots)
        .map(|(b, e)| format!("{} {}", b.name, e.forfeits))
        .collect();
    writeln!(
        out,
        "\nforfeits (games lost by a failing bot): {}",
        parts.join(", ")
    )
}
