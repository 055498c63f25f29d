//! The grade's text report and its CSV tables.

use std::io::Write;

use crate::export::{Cell, Table};

use super::{BLUNDERS_HEADER, BotGrade, Estimate, GRADE_HEADER, GradeReport, RATIO_METHOD};

/// How many blunders per bot the text report shows (`blunders.csv` has them all).
const SHOWN_BLUNDERS: usize = 3;

impl GradeReport {
    /// The report as text: the decision table, the per-game table, the worst blunders.
    pub fn write_text(&self, w: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            w,
            "aeroplane grade: against perfect play from {} (seat 0 wins {:.4}% under perfect play), seed {}, {} deals x 2 seatings per bot",
            self.table,
            100.0 * self.first_player_win_probability,
            self.seed,
            self.deals
        )?;
        writeln!(
            w,
            "a decision is a roll with two or more moves; an error loses more than {:e} equity against the best move; it matters when the moves' equities differ by more than that",
            self.threshold
        )?;
        writeln!(w)?;
        let name_w = self
            .bots
            .iter()
            .map(|b| b.name.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, crate::export::MAX_COLUMN_WIDTH);
        writeln!(
            w,
            "{:<name_w$}  {:>9}  {:>9}  {:>8}  {:<24}  {:<24}  {:<26}",
            "bot",
            "decisions",
            "matter",
            "errors",
            "error rate [95%]",
            "optimal when it matters",
            "loss mp/decision [95%]"
        )?;
        for b in &self.bots {
            writeln!(
                w,
                "{:<name_w$}  {:>9}  {:>9}  {:>8}  {:<24}  {:<24}  {:<26}",
                clip(&b.name, name_w),
                b.decisions,
                b.matters,
                b.errors,
                percent(b.error_rate),
                percent(b.optimal_when_matters),
                number(b.loss_mp_per_decision, 2),
            )?;
        }
        writeln!(w)?;
        writeln!(
            w,
            "{:<name_w$}  {:>7}  {:>9}  {:<26}  {:>13}  {:<26}",
            "bot",
            "games",
            "decisions",
            "loss mp/game [95%]",
            "points/game",
            "win rate vs exact [95%]"
        )?;
        for b in &self.bots {
            writeln!(
                w,
                "{:<name_w$}  {:>7}  {:>9.2}  {:<26}  {:>13.3}  {:<26}",
                clip(&b.name, name_w),
                b.games,
                b.decisions as f64 / b.games.max(1) as f64,
                number(Some(b.loss_mp_per_game), 1),
                b.loss_points_per_game,
                percent(Some(b.win_rate)),
            )?;
        }
        writeln!(
            w,
            "intervals: cluster-robust by deal, never narrower than Wilson on the deals below 30 informative deals (README, Grading); the win rate as `aeroplane run`; mp = millipoints of equity (0.001), 1 point of win probability = 20 mp"
        )?;
        if self.bots.iter().all(|b| b.decisions == 0) {
            writeln!(
                w,
                "no decisions: under these rules no roll ever offers two moves (one plane per seat without flight_optional), so every bot plays perfectly and there is nothing to grade"
            )?;
        }
        let any = self.bots.iter().any(|b| !b.blunders.is_empty());
        if any {
            writeln!(w)?;
            writeln!(
                w,
                "worst decisions (position: the decision node in the notation, with the roll):"
            )?;
            for b in self.bots.iter().filter(|b| !b.blunders.is_empty()) {
                writeln!(w, "  {}", b.name)?;
                for x in b.blunders.iter().take(SHOWN_BLUNDERS) {
                    writeln!(
                        w,
                        "    {:>8.1} mp  game {} seat {} roll {}: played {}, best {}  `{}`",
                        x.loss_mp, x.game, x.seat, x.roll, x.chosen, x.best, x.position
                    )?;
                }
            }
        }
        writeln!(w)?;
        writeln!(w, "the games again, for each bot:")?;
        for c in &self.reproduce {
            writeln!(w, "  {c}")?;
        }
        Ok(())
    }

    /// `grade.csv` and `blunders.csv`.
    pub fn tables(&self) -> [Table; 2] {
        let est = |e: Option<Estimate>| {
            [
                Cell::fixed(e.map(|e| e.value)),
                Cell::fixed(e.map(|e| e.low)),
                Cell::fixed(e.map(|e| e.high)),
            ]
        };
        let grade = Table {
            file: "grade.csv",
            header: GRADE_HEADER.to_vec(),
            rows: self
                .bots
                .iter()
                .map(|b: &BotGrade| {
                    let mut row = vec![
                        Cell::int(b.index as u64),
                        Cell::text(b.name.clone()),
                        Cell::int(b.games),
                        Cell::int(b.wins),
                    ];
                    row.extend(est(Some(b.win_rate)));
                    row.push(Cell::int(b.decisions));
                    row.push(Cell::fixed(Some(
                        b.decisions as f64 / b.games.max(1) as f64,
                    )));
                    row.push(Cell::int(b.matters));
                    row.push(Cell::int(b.errors));
                    row.extend(est(b.error_rate));
                    row.extend(est(b.optimal_when_matters));
                    row.extend(est(b.loss_mp_per_decision));
                    row.extend(est(Some(b.loss_mp_per_game)));
                    row.push(Cell::fixed(Some(b.loss_points_per_game)));
                    row.push(Cell::text(RATIO_METHOD));
                    row
                })
                .collect(),
        };
        let blunders = Table {
            file: "blunders.csv",
            header: BLUNDERS_HEADER.to_vec(),
            rows: self
                .bots
                .iter()
                .flat_map(|b| {
                    b.blunders.iter().map(move |x| {
                        vec![
                            Cell::int(b.index as u64),
                            Cell::text(b.name.clone()),
                            Cell::int(x.rank as u64),
                            Cell::int(x.game),
                            Cell::int(x.deal),
                            Cell::int(x.seat as u64),
                            Cell::int(x.turn),
                            Cell::int(x.roll),
                            Cell::text(x.position.clone()),
                            Cell::text(x.chosen.clone()),
                            Cell::text(x.best.clone()),
                            Cell::fixed(Some(x.chosen_equity)),
                            Cell::fixed(Some(x.best_equity)),
                            Cell::fixed(Some(x.loss_mp)),
                        ]
                    })
                })
                .collect(),
        };
        [grade, blunders]
    }
}

fn clip(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(width.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// `12.34% [11.00%, 13.70%]`, or `-`.
fn percent(e: Option<Estimate>) -> String {
    match e {
        Some(e) if e.low.is_finite() => format!(
            "{:.2}% [{:.2}%, {:.2}%]",
            100.0 * e.value,
            100.0 * e.low,
            100.0 * e.high
        ),
        Some(e) => format!("{:.2}%", 100.0 * e.value),
        None => "-".into(),
    }
}

/// `12.34 [11.00, 13.70]`, or `-`.
fn number(e: Option<Estimate>, digits: usize) -> String {
    match e {
        Some(e) if e.low.is_finite() => format!(
            "{:.digits$} [{:.digits$}, {:.digits$}]",
            e.value, e.low, e.high
        ),
        Some(e) => format!("{:.digits$}", e.value),
        None => "-".into(),
    }
}
