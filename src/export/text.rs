//! The aligned text report printed on stdout.

use std::io::Write;

use crate::counters::Counter;
use crate::stats::Summary;

fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

fn interval(i: Option<(f64, f64)>) -> String {
    match i {
        Some((lo, hi)) => format!("[{:.2}%, {:.2}%]", 100.0 * lo, 100.0 * hi),
        None => "-".to_string(),
    }
}

/// A p-value for text output: four decimals, scientific below 1e-4, and a true zero (underflow)
/// said as such.
pub fn format_p(p: f64) -> String {
    if p >= 1e-4 {
        format!("{p:.4}")
    } else if p == 0.0 {
        "0 (below 1e-300)".to_string()
    } else {
        format!("{p:.2e}")
    }
}

/// Writes the report: bots, seats with the equal-seats test, game lengths, events.
/// `title` is the first line (what was run).
pub fn write_report(
    out: &mut (impl Write + ?Sized),
    title: &str,
    s: &Summary,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    report(&mut buf, title, s)?;
    let text = String::from_utf8(buf).expect("the report is UTF-8");
    for line in text.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

fn report(out: &mut Vec<u8>, title: &str, s: &Summary) -> std::io::Result<()> {
    writeln!(out, "{title}")?;
    if s.group_size > 1 {
        writeln!(
            out,
            "{} deals x {} seat rotations = {} games; intervals treat each deal as one sample",
            s.deals, s.group_size, s.games
        )?;
    } else {
        writeln!(out, "{} games", s.games)?;
    }
    writeln!(out)?;
    let name_w = s
        .bots
        .iter()
        .map(|b| b.name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let ranked = s
        .bots
        .iter()
        .any(|b| b.mean_rank.is_some() && b.counts.ranked() > b.counts.wins);
    write!(
        out,
        "{:>3}  {:<name_w$}  {:>10}  {:>10}  {:>8}  {:<20}",
        "bot", "name", "games", "wins", "win rate", "95% interval"
    )?;
    if ranked {
        write!(out, "  {:>9}", "mean rank")?;
        for r in 1..=s.players {
            write!(out, "  {:>9}", format!("rank {r}"))?;
        }
    }
    writeln!(out)?;
    for b in &s.bots {
        write!(
            out,
            "{:>3}  {:<name_w$}  {:>10}  {:>10}  {:>8}  {:<20}",
            b.index,
            b.name,
            b.counts.games,
            b.counts.wins,
            pct(b.win_rate),
            interval(b.interval)
        )?;
        if ranked {
            match b.mean_rank {
                Some(m) => write!(out, "  {m:>9.3}")?,
                None => write!(out, "  {:>9}", "-")?,
            }
            for r in 1..=s.players {
                write!(out, "  {:>9}", b.counts.ranks[r])?;
            }
        }
        writeln!(out)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:>4}  {:<6}  {:>10}  {:>10}  {:>8}  {:<20}",
        "seat", "colour", "games", "wins", "win rate", "95% interval"
    )?;
    for seat in &s.seats {
        writeln!(
            out,
            "{:>4}  {:<6}  {:>10}  {:>10}  {:>8}  {:<20}",
            seat.seat.index(),
            seat.seat.colour(),
            seat.counts.games,
            seat.counts.wins,
            pct(seat.win_rate),
            interval(seat.interval)
        )?;
    }
    match s.seat_test {
        Some(t) => writeln!(
            out,
            "all seats equal? chi-square {:.3}, df {}, p = {}",
            t.statistic,
            t.df,
            format_p(t.p_value)
        )?,
        None => writeln!(out, "all seats equal? no wins to test")?,
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:<7}  {:>9}  {:>9}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}",
        "length", "mean", "sd", "min", "p5", "p25", "median", "p75", "p95", "max"
    )?;
    for l in &s.lengths {
        if let Some(x) = l.spread {
            writeln!(
                out,
                "{:<7}  {:>9.2}  {:>9.2}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}  {:>6}",
                l.measure, x.mean, x.sd, x.min, x.p5, x.p25, x.median, x.p75, x.p95, x.max
            )?;
        }
    }
    writeln!(out)?;
    let games = s.games.max(1) as f64;
    let events: Vec<String> = Counter::EVENTS
        .iter()
        .map(|&c| format!("{} {:.2}", c.name(), s.counters[c] as f64 / games))
        .collect();
    writeln!(out, "per game: {}", events.join(", "))?;
    writeln!(
        out,
        "unfinished games (max_turns reached): {}",
        s.unfinished
    )?;
    Ok(())
}
