//! `aeroplane run --sprt`: a head-to-head between two bots that stops as soon as a sequential
//! probability ratio test decides.
//!
//! The unit is the rotation group (a deal played with the two bots in each seat). Each group
//! scores bot A (the first of `--bots`) 2 points per game won and 1 per unfinished game, out of
//! `steps = 4`. The test is checked after every chunk of deals, in deal order, so where it
//! stops does not depend on the thread count.

use std::path::Path;

use anyhow::Context;

use aeroplane::analysis::{Sprt, SprtConfig, Verdict};
use aeroplane::export::{Report, TABLES, write_report, write_table};
use aeroplane::runner::{self, Exec, GameRow, GameSink, RunSpec};
use aeroplane::stats::{Played, Summary, Tally};

/// Collects rotation groups in deal order into the test and a tally of the games played.
struct SprtSink {
    test: Sprt,
    tally: Tally,
    group: Vec<Played>,
    points: u32,
    per_deal: usize,
}

impl GameSink for SprtSink {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        for row in rows {
            let rec = &row.played.record;
            // Bot A is lineup entry 0.
            let seat_a = row.played.bot_at_seat.iter().position(|&b| b == 0);
            self.points += match (rec.winner, seat_a) {
                (Some(w), Some(a)) if w.index() == a => 2,
                _ if rec.unfinished => 1,
                _ => 0,
            };
            self.group.push(row.played);
            if self.group.len() == self.per_deal {
                self.test.add(self.points);
                self.tally.add_deal(&self.group);
                self.group.clear();
                self.points = 0;
            }
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.test.status() != Verdict::Continue
    }
}

/// Checks that `spec` is a two-bot head-to-head, rotating its seats.
pub fn check(spec: &mut RunSpec) -> anyhow::Result<()> {
    if spec.lineup.len() != 2 || spec.lineup[0] == spec.lineup[1] {
        anyhow::bail!(
            "--sprt compares two distinct bots: give --bots A,B (e.g. --bots greedy,random), not {}",
            spec.lineup
                .iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(",")
        );
    }
    spec.rotate_seats = true;
    Ok(())
}

/// Plays the head-to-head until the test decides or the deals run out; prints the result and
/// writes the tables (from the games up to the stop) and `sprt.json` into `out`.
pub fn run(
    spec: &RunSpec,
    config: SprtConfig,
    exec: Exec,
    out: Option<&Path>,
    title: &str,
    progress: &(dyn Fn(u64) + Sync),
) -> anyhow::Result<u64> {
    let per_deal = spec.games_per_deal() as usize;
    let mut sink = SprtSink {
        test: Sprt::new(config, 2 * per_deal as u32),
        tally: Tally::new(spec.players(), spec.games_per_deal()),
        group: Vec::with_capacity(per_deal),
        points: 0,
        per_deal,
    };
    runner::run(spec, exec, Some(&mut sink), progress)?;
    let names: Vec<String> = spec.lineup.iter().map(|b| b.name.clone()).collect();
    let summary = Summary::new(&sink.tally, &names);
    let s = sink.test.summary();
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    write_report(&mut w, title, &summary)?;
    use std::io::Write;
    writeln!(
        w,
        "\nSPRT {} vs {}: elo0={} elo1={} alpha={} beta={}",
        names[0], names[1], config.elo0, config.elo1, config.alpha, config.beta
    )?;
    writeln!(
        w,
        "  LLR {:.3} (bounds {:.3}, {:.3}) after {} games ({} pairs)",
        s.llr, s.lower, s.upper, sink.tally.games, s.groups
    )?;
    writeln!(
        w,
        "  Elo {:.1} [{:.1}, {:.1}] (95%), LOS {:.4}, score {:.4}",
        s.elo.elo, s.elo.low, s.elo.high, s.los, s.score
    )?;
    let result = match s.verdict {
        Verdict::AcceptH1 => "H1 accepted",
        Verdict::AcceptH0 => "H0 accepted",
        Verdict::Continue => "inconclusive (game limit reached)",
    };
    writeln!(w, "result: {result}")?;
    if let Some(dir) = out {
        let report = Report {
            tally: &sink.tally,
            summary: &summary,
        };
        for table in TABLES {
            write_table(dir, table, &report)?;
        }
        let path = dir.join("sprt.json");
        let mut text = serde_json::to_string_pretty(&serde_json::json!({
            "bot_a": names[0],
            "bot_b": names[1],
            "games": sink.tally.games,
            "result": s.verdict,
            "sprt": s,
        }))?;
        text.push('\n');
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(sink.tally.games)
}
