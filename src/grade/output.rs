//! The grade's text report and its CSV tables.

use std::io::Write;

use crate::export::{Cell, Table};

use super::{BLUNDERS_HEADER, BotGrade, Estimate, GRADE_HEADER, GradeReport, RATIO_METHOD};

/// How many blunders per bot the text report shows (`blunders.csv` has them all).
const SHOWN_BLUNDERS: usize = 3;

impl GradeReport {
    /// The report as text: the decision table, the per-game table, the worst blunders.
    pub fn write_text(&self, w: &mut dyn Write) -> std::io::Result<()> {
        match &self.reference {
            None => writeln!(
                w,
                "aeroplane grade: against perfect play from {} (seat 0 wins {:.4}% under perfect play), seed {}, {} deals x 2 seatings per bot",
                self.table,
                100.0 * self.first_player_win_probability,
                self.seed,
                self.deals
            )?,
            Some(r) => writeln!(
                w,
                "aeroplane grade: {}against {} (checksum {}{}), {} players, seed {}, {} deals",
                r.log
                    .as_ref()
                    .map_or(String::new(), |l| format!("the decision log {l} ")),
                match r.ply {
                    Some(p) => format!("the net {} searched {p} ply", r.path),
                    None => format!("perfect play from {}", r.path),
                },
                self.table_checksum,
                if self.first_player_win_probability.is_finite() {
                    format!(
                        "; seat 0 wins {:.2}% at the start by it",
                        100.0 * self.first_player_win_probability
                    )
                } else {
                    String::new()
                },
                r.players,
                self.seed,
                self.deals
            )?,
        }
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
        let rated = self.bots.iter().any(|b| b.rating.is_some());
        write!(
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
        if rated {
            write!(w, "  rating")?;
        }
        writeln!(w)?;
        for b in &self.bots {
            write!(
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
            if rated {
                write!(
                    w,
                    "  {}",
                    b.rating.as_ref().map_or("-".to_string(), |r| r.text())
                )?;
            }
            writeln!(w)?;
        }
        if rated {
            writeln!(
                w,
                "rating: by the loss per decision (mp): {}, above: {} (docs/ANALYSIS.md); in brackets when the interval spans names",
                super::rating::SCALE
                    .iter()
                    .map(|(n, b)| format!("{n} <= {b}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                super::rating::WORST
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
            match &self.reference {
                None => "win rate vs exact [95%]",
                Some(r) if r.log.is_some() => "win rate in the log [95%]",
                Some(_) => "win rate vs the net [95%]",
            }
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
            "intervals: cluster-robust by deal, never narrower than Wilson on the deals below 30 informative deals (guide: docs/commands/grade.md, Grading); the win rate as `aeroplane run`; mp = millipoints of equity (0.001), 1 point of win probability = 20 mp"
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
                    if let Some(v) = &x.viewer {
                        writeln!(w, "      viewer: {v}")?;
                    }
                }
            }
        }
        writeln!(w)?;
        if self.reference.as_ref().is_some_and(|r| r.log.is_some()) {
            writeln!(w, "the log, checked again:")?;
            for c in &self.reproduce {
                writeln!(w, "  {c}")?;
            }
            return Ok(());
        }
        writeln!(w, "the games again, for each bot:")?;
        for c in &self.reproduce {
            writeln!(w, "  {c}")?;
        }
        Ok(())
    }

    /// Writes `grade.csv`, `blunders.csv` and then `grade.json` into `dir` (a log grade's
    /// folder: no checkpoint, so `grade.json` written last says the folder is complete).
    pub fn write_files(&self, dir: &crate::export::OutputDir) -> Result<(), super::GradeError> {
        for table in self.tables() {
            dir.write_table(&table)?;
        }
        dir.sync()?;
        let mut text = serde_json::to_string_pretty(self).expect("reports serialize");
        text.push('\n');
        dir.write_manifest(super::GRADE_FILE, text.as_bytes())?;
        dir.sync()?;
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
        let rated = self.bots.iter().any(|b| b.rating.is_some());
        let viewer = self
            .bots
            .iter()
            .any(|b| b.blunders.iter().any(|x| x.viewer.is_some()));
        let mut grade_header = GRADE_HEADER.to_vec();
        if rated {
            grade_header.push("rating");
        }
        let mut blunders_header = BLUNDERS_HEADER.to_vec();
        if viewer {
            blunders_header.push("viewer");
        }
        let grade = Table {
            file: "grade.csv",
            header: grade_header,
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
                    if rated {
                        row.push(Cell::text(
                            b.rating.as_ref().map_or(String::new(), |r| r.label.clone()),
                        ));
                    }
                    row
                })
                .collect(),
        };
        let blunders = Table {
            file: "blunders.csv",
            header: blunders_header,
            rows: self
                .bots
                .iter()
                .flat_map(|b| {
                    b.blunders.iter().map(move |x| {
                        let mut row = vec![
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
                        ];
                        if viewer {
                            row.push(Cell::text(x.viewer.clone().unwrap_or_default()));
                        }
                        row
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

/// `12.34 [11.00, 13.70]`, or `-`: `digits` decimals, or as many more as show the figure
/// (its upper bound where it is 0) to two significant digits where `digits` would round it to
/// zero (`0.013 [0.000, 0.030]`, not `0.0 [0.0, 0.0]`).
fn number(e: Option<Estimate>, digits: usize) -> String {
    let digits = e.map_or(digits, |e| {
        crate::export::shown_decimals(e.value, e.high, digits)
    });
    match e {
        Some(e) if e.low.is_finite() => format!(
            "{:.digits$} [{:.digits$}, {:.digits$}]",
            e.value, e.low, e.high
        ),
        Some(e) => format!("{:.digits$}", e.value),
        None => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_loss_is_printed_with_its_significant_digits() {
        let e = |value, low, high| Some(Estimate { value, low, high });
        assert_eq!(number(e(0.0127, 0.0, 0.0304), 1), "0.013 [0.000, 0.030]");
        assert_eq!(number(e(0.0, 0.0, 0.0304), 1), "0.000 [0.000, 0.030]");
        assert_eq!(number(e(12.34, 11.0, 13.7), 1), "12.3 [11.0, 13.7]");
        assert_eq!(number(e(0.05, 0.0, 0.13), 2), "0.05 [0.00, 0.13]");
        assert_eq!(number(e(0.0, 0.0, 0.0), 1), "0.0 [0.0, 0.0]");
        assert_eq!(number(e(0.004, 0.001, 0.009), 2), "0.0040 [0.0010, 0.0090]");
    }
}
