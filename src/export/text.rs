//! The aligned text report printed on stdout.

use std::io::Write;

use crate::analysis::Summary;
use crate::analysis::elo::{EloEstimate, Estimate, ScoreInterval, format_elo};
use crate::stats::{
    IntervalMethod, MIN_DEALS, PValue, RateInterval, pct, pct_interval as interval,
};
use aeroplane_core::Counter;

/// The widest a name column is padded to: longer names overflow their column rather than
/// pad every line (and a width beyond `u16` would not format at all).
pub const MAX_COLUMN_WIDTH: usize = 60;

/// The decimals that show `value` (or `high` where `value` is 0) to two significant digits
/// where `digits` decimals would print it as zero, at most 9; otherwise `digits`.
pub fn shown_decimals(value: f64, high: f64, digits: usize) -> usize {
    let shown = if value != 0.0 {
        value.abs()
    } else {
        high.abs()
    };
    if !shown.is_finite() || shown == 0.0 || shown >= 0.5 * 10f64.powi(-(digits as i32)) {
        return digits;
    }
    // The first significant digit's place, then one more.
    let first = (-shown.log10().floor()) as usize;
    (first + 1).clamp(digits, 9)
}

/// A p-value for text output, the one form every command prints: four decimals (more where
/// four would round across 0.05 or 0.01), scientific (`5.50e-8`) below 1e-4, also below the
/// smallest `f64` (`3.21e-412`); see [`PValue::text`].
pub fn format_p(p: PValue) -> String {
    p.text()
}

/// `p = 0.0123`, `p = 5.50e-8`.
pub fn p_equals(p: PValue) -> String {
    format!("p = {}", p.text())
}

/// The method column of a rotated run: `deals` (Wilson on the deals, the floor for an
/// untrustworthy design effect) or `d=0.79` (cluster-robust with that design effect).
fn method_cell(m: Option<RateInterval>) -> String {
    match m {
        Some(RateInterval {
            method: IntervalMethod::WilsonOnDeals,
            ..
        }) => "deals".to_string(),
        Some(RateInterval {
            design_effect: Some(d),
            ..
        }) => format!("d={d:.2}"),
        _ => String::new(),
    }
}

/// The line that says what the intervals of a run are.
fn intervals_line(s: &Summary) -> String {
    if s.group_size > 1 {
        format!(
            "95% intervals: cluster-robust by deal (Wilson on games / d, d = Kish design effect of the \
             deal); `deals` = Wilson on the {} deals, the floor when d cannot be trusted (under {MIN_DEALS} deals, d = 0, or no wins or only wins)",
            s.deals
        )
    } else {
        format!("95% intervals: Wilson score on the {} games", s.games)
    }
}

/// The head-to-head of a two-player rotated run, as chess testers print a match: Elo, nElo,
/// LOS, the score and the pentanomial counts of the deals' pairs of games.
fn head_to_head(out: &mut Vec<u8>, s: &Summary, h: &Estimate) -> std::io::Result<()> {
    let (a, b) = (&s.bots[0].name, &s.bots[1].name);
    writeln!(out)?;
    writeln!(
        out,
        "head to head, {a} vs {b}: {} pairs of games (each deal with the seats swapped; the pair is the unit)",
        h.groups
    )?;
    let elo = |e: &EloEstimate| {
        format!(
            "{} [{}, {}]",
            format_elo(e.elo),
            format_elo(e.low),
            format_elo(e.high)
        )
    };
    let nelo = h
        .nelo
        .as_ref()
        .map_or_else(|| "- (all pairs alike)".to_string(), elo);
    writeln!(
        out,
        "  Elo {}, nElo {nelo}, LOS {:.2}%",
        elo(&h.elo),
        100.0 * h.los
    )?;
    writeln!(
        out,
        "  score {} [{}, {}] of the points for {a} (a won game 1, an unfinished game 1/2)",
        pct(h.score),
        pct(h.score_low),
        pct(h.score_high)
    )?;
    let c = &h.counts;
    writeln!(
        out,
        "  Ptnml(0-2): [{}, {}, {}, {}, {}] (pairs by {a}'s points: LL, LD, DD+WL, WD, WW; D = unfinished)",
        c[0], c[1], c[2], c[3], c[4]
    )?;
    writeln!(
        out,
        "  95% intervals: {}",
        match h.interval_method {
            ScoreInterval::Normal => "normal on the mean pair score (pentanomial)".to_string(),
            ScoreInterval::WilsonOnGroups => format!(
                "Wilson on the {} pairs (too few pairs, or all alike, to trust their variance)",
                h.groups
            ),
        }
    )?;
    Ok(())
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
            "{} deals x {} seat rotations = {} games; the deal is the unit of every interval and test",
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
        .clamp(4, MAX_COLUMN_WIDTH);
    let ranked = s
        .bots
        .iter()
        .any(|b| b.mean_rank.is_some() && b.counts.ranked() > b.counts.wins);
    let rotated = s.group_size > 1;
    write!(
        out,
        "{:>3}  {:<name_w$}  {:>10}  {:>10}  {:>8}  {:<20}",
        "bot", "name", "games", "wins", "win rate", "95% interval"
    )?;
    if rotated {
        write!(out, "  {:<7}", "method")?;
    }
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
        if rotated {
            write!(out, "  {:<7}", method_cell(b.method))?;
        }
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
    if !ranked && s.bots.iter().any(|b| b.counts.ranks[0] > 0) {
        writeln!(
            out,
            "mean rank: not defined (some games rank only the winner, e.g. end = first_finisher)"
        )?;
    }
    writeln!(out)?;
    write!(
        out,
        "{:>4}  {:<6}  {:>10}  {:>10}  {:>8}  {:<20}",
        "seat", "colour", "games", "wins", "win rate", "95% interval"
    )?;
    if rotated {
        write!(out, "  {:<7}", "method")?;
    }
    writeln!(out)?;
    for seat in &s.seats {
        write!(
            out,
            "{:>4}  {:<6}  {:>10}  {:>10}  {:>8}  {:<20}",
            seat.seat.index(),
            seat.seat.colour(),
            seat.counts.games,
            seat.counts.wins,
            pct(seat.win_rate),
            interval(seat.interval)
        )?;
        if rotated {
            write!(out, "  {:<7}", method_cell(seat.method))?;
        }
        writeln!(out)?;
    }
    writeln!(out, "{}", intervals_line(s))?;
    let correction = if rotated {
        ", Rao-Scott corrected for the deal"
    } else {
        ""
    };
    match (s.seat_test, s.seat_order_test) {
        (Some(t), true) => writeln!(
            out,
            "seat order (first-player) test, all seats win equally often? chi-square {:.3}, df {}{correction}, {}",
            t.statistic,
            t.df,
            p_equals(t.p_value)
        )?,
        (Some(t), false) => writeln!(
            out,
            "not a seat-order test: seat j holds bot j, so seats differ because the bots do \
             (chi-square {:.3}, df {}, {}); add --rotate-seats to test seat order",
            t.statistic,
            t.df,
            p_equals(t.p_value)
        )?,
        (None, _) => writeln!(out, "all seats equal? no wins to test")?,
    }
    if s.too_few_deals {
        writeln!(
            out,
            "warning: only {} deals: too few to trust these intervals and tests (give at least {MIN_DEALS})",
            s.deals
        )?;
    }
    if let Some(h) = &s.head_to_head {
        head_to_head(out, s, h)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_have_one_form() {
        assert_eq!(format_p(PValue::new(0.38654)), "0.3865");
        assert_eq!(format_p(PValue::new(5.503e-8)), "5.50e-8");
        assert_eq!(p_equals(PValue::from_log10(-411.5)), "p = 3.16e-412");
        assert_eq!(p_equals(PValue::new(0.0066)), "p = 0.0066");
    }
}
