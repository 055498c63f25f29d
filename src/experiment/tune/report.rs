//! What a tune found: the typed report (summary.json), its text, and the files written when
//! the tune is complete.

use serde::Serialize;

use crate::analysis::Verdict;
use crate::analysis::sprt::SprtSummary;
use crate::analysis::spsa::SpsaSettings;
use crate::bots::registry::BotSpec;
use crate::export::OutputDir;

use super::super::JobError;
use super::super::run::SummaryJson;
use super::state::TuneState;
use super::{RECENT, TuneJob, files};

/// One tuned parameter in the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TunedParam {
    /// The parameter.
    pub name: String,
    /// The range.
    pub lo: f64,
    /// The range.
    pub hi: f64,
    /// Whether it takes integers.
    pub integer: bool,
    /// The bot's starting value.
    pub start: f64,
    /// The optimiser's final point.
    pub theta: f64,
    /// The tuned value (as `tuned.toml` has it).
    pub tuned: f64,
    /// The perturbation constant `c_i`.
    pub c: f64,
    /// The gain constant `a_i`.
    pub a: f64,
    /// The mean gradient estimate over the iterations.
    pub gradient_mean: f64,
    /// Its standard error over iterations.
    pub gradient_se: f64,
}

/// The confirming test's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConfirmReport {
    /// The tuned bot's name.
    pub tuned: String,
    /// The starting bot's name.
    pub start: String,
    /// Its first deal.
    pub first_deal: u64,
    /// Deals played.
    pub deals: u64,
    /// Games played.
    pub games: u64,
    /// The test at its stop.
    pub sprt: SprtSummary,
    /// The LLR after each check: (games, LLR).
    pub path: Vec<(u64, f64)>,
}

/// What a tune found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TuneReport {
    /// The first line: what was tuned.
    pub title: String,
    /// The bot tuned.
    pub bot: String,
    /// Its kind.
    pub kind: String,
    /// The opponent, if any.
    pub opponent: Option<String>,
    /// Players per game.
    pub players: usize,
    /// Iterations played (0 for a confirmation of an earlier tune).
    pub iterations: u64,
    /// Deals per iteration.
    pub pairs_per_iteration: u64,
    /// Games of the iterations.
    pub games: u64,
    /// The optimiser's settings.
    pub settings: SpsaSettings,
    /// Who sits where.
    pub design: String,
    /// The parameters.
    pub params: Vec<TunedParam>,
    /// The last iterations' mean result and its standard error: (iterations, mean, se).
    pub recent: Option<(usize, f64, f64)>,
    /// The confirmation.
    pub confirm: Option<ConfirmReport>,
    /// The tuned profile (`tuned.toml`).
    pub profile: String,
}

impl TuneJob {
    /// The report of a finished tune.
    pub(super) fn report(&self, state: &TuneState) -> Result<TuneReport, JobError> {
        let values = self.tuned_values(state);
        let tuned = self.tuned_bot(&values)?;
        let gradient = state.gradient();
        let theta = match &self.spec.given {
            Some(g) => g.clone(),
            None => state.spsa.theta().to_vec(),
        };
        let params = self
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| TunedParam {
                name: d.name.clone(),
                lo: d.lo,
                hi: d.hi,
                integer: d.integer,
                start: self.start[i],
                theta: theta[i],
                tuned: values[i],
                c: state.spsa.c()[i],
                a: state.spsa.a()[i],
                gradient_mean: gradient[i].0,
                gradient_se: gradient[i].1,
            })
            .collect();
        let confirm = state.confirm.as_ref().map(|c| ConfirmReport {
            tuned: tuned.name.clone(),
            start: self.spec.bot.name.clone(),
            first_deal: self.confirm_first_deal(),
            deals: c.outcome.deals,
            games: c.outcome.games,
            sprt: c.test.summary(),
            path: c.path.clone(),
        });
        let profile = self.profile_text(&tuned, &values, confirm.as_ref());
        Ok(TuneReport {
            title: self.title(),
            bot: self.spec.bot.name.clone(),
            kind: self.spec.bot.kind.clone(),
            opponent: self.spec.opponent.as_ref().map(|o| o.name.clone()),
            players: self.spec.players,
            iterations: state.history.len() as u64,
            pairs_per_iteration: self.spec.settings.deals,
            games: state.tune_games(),
            settings: self.spec.settings,
            design: self.design.describe(),
            params,
            recent: state.recent(RECENT),
            confirm,
            profile,
        })
    }

    /// The text of `tuned.toml`.
    fn profile_text(
        &self,
        tuned: &BotSpec,
        values: &[f64],
        confirm: Option<&ConfirmReport>,
    ) -> String {
        let s = &self.spec;
        let ranges: Vec<String> = s.ranges.iter().map(ToString::to_string).collect();
        let mut comments = vec![
            format!(
                "Tuned by `aeroplane tune` (aeroplane {}): {}, rules {}, {} players, {}.",
                env!("CARGO_PKG_VERSION"),
                s.bot.name,
                s.rules_name,
                s.players,
                match &s.opponent {
                    Some(o) => format!("against {}", o.name),
                    None => "self-play".into(),
                }
            ),
            match s.given {
                Some(_) => "Values given for a confirmation of an earlier tune.".to_string(),
                None => format!(
                    "SPSA: {} iterations of {} deals, seed {}; parameters {}.",
                    s.settings.iterations,
                    s.settings.deals,
                    s.seed,
                    ranges.join(" ")
                ),
            },
        ];
        if let Some(c) = confirm {
            comments.push(format!(
                "Confirmation against the start ({}): {} after {} games, Elo {:+.1} [{:+.1}, {:+.1}].",
                c.sprt.config,
                verdict_text(c.sprt.verdict),
                c.games,
                c.sprt.elo.elo,
                c.sprt.elo.low,
                c.sprt.elo.high
            ));
        }
        let description = format!(
            "{} tuned by SPSA for {}, {} players",
            s.bot.name, s.rules_name, s.players
        );
        files::tuned_profile(tuned, &self.dims, values, &description, &comments)
    }

    /// Writes history.csv, tuned.toml, sprt.json and summary.json.
    pub(super) fn write_files(
        &self,
        dir: &OutputDir,
        state: &TuneState,
        report: &TuneReport,
    ) -> Result<(), JobError> {
        if self.spec.given.is_none() {
            dir.write(
                "history.csv",
                &files::history_csv(&self.dims, self.design.scale(), &state.history),
            )?;
        }
        dir.write("tuned.toml", report.profile.as_bytes())?;
        if let Some(c) = &report.confirm {
            dir.write_json(
                "sprt.json",
                &serde_json::json!({
                    "bot_a": c.tuned,
                    "bot_b": c.start,
                    "games": c.games,
                    "result": c.sprt.verdict,
                    "sprt": c.sprt,
                }),
            )?;
        }
        dir.write_json("summary.json", &SummaryJson::new("tune", report))?;
        Ok(())
    }
}

/// The manifest's word for a verdict.
pub(super) fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::AcceptH0 => "h0",
        Verdict::AcceptH1 => "h1",
        Verdict::Continue => "inconclusive",
    }
}

/// What an SPRT summary's `interval_method` means, in words.
fn interval_words(method: &str) -> &'static str {
    match method {
        "wilson_on_pairs" => {
            "95% interval of the mean deal score, by deal, at least the Wilson interval on the deals: too few deals, or all alike, to trust their variance"
        }
        _ => "95% normal interval of the mean deal score, by deal",
    }
}

/// A verdict in words.
fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::AcceptH1 => "H1 accepted",
        Verdict::AcceptH0 => "H0 accepted",
        Verdict::Continue => "inconclusive (pair limit reached)",
    }
}

impl TuneReport {
    /// The text report.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        writeln!(w, "{}", self.title)?;
        let s = &self.settings;
        if self.iterations > 0 {
            writeln!(
                w,
                "{} iterations x {} deals = {} games; SPSA alpha {}, gamma {}, A {}, perturbation {} and step {} of each range",
                self.iterations,
                self.pairs_per_iteration,
                self.games,
                s.alpha,
                s.gamma,
                s.stability,
                s.perturbation,
                s.step
            )?;
        }
        writeln!(w, "{}", self.design)?;
        let width = self
            .params
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(9)
            .clamp(9, 40);
        // The iterations' gradient estimates are taken at the points the tune moved through;
        // only with --step 0 (the point held still) is their mean the gradient at one point.
        let gradient = if self.iterations == 0 {
            "gradient: none (a confirmation plays no iterations)"
        } else if s.step == 0.0 {
            "gradient at the start (mean of the iterations' estimates ± se, per unit)"
        } else {
            "mean of the iterations' gradient estimates (± se, per unit), each at the point of its iteration: not the gradient at one point unless --step 0"
        };
        writeln!(
            w,
            "\n{:width$}  {:>17}  {:>12}  {:>12}  {gradient}",
            "parameter", "range", "start", "tuned"
        )?;
        for p in &self.params {
            let g = match (p.gradient_mean, p.gradient_se) {
                _ if self.iterations == 0 => "-".to_string(),
                (g, s) if g.is_finite() && s.is_finite() => format!("{g:+.4e} ± {s:.4e}"),
                (g, _) if g.is_finite() => format!("{g:+.4e} (one iteration: no se)"),
                _ => "-".to_string(),
            };
            writeln!(
                w,
                "{:width$}  {:>17}  {:>12}  {:>12}  {g}",
                p.name,
                format!("{}..{}", p.lo, p.hi),
                p.start,
                p.tuned,
            )?;
        }
        if let Some((n, mean, se)) = self.recent {
            writeln!(
                w,
                "last {n} iterations: theta+ against theta- {mean:+.4} ± {se:.4} (wins minus losses per game)"
            )?;
        }
        if let Some(c) = &self.confirm {
            let (t, cf) = (&c.sprt, &c.sprt.config);
            writeln!(
                w,
                "\nconfirmation: SPRT {} vs {}: elo0={} elo1={} alpha={} beta={}, deals from {}",
                c.tuned, c.start, cf.elo0, cf.elo1, cf.alpha, cf.beta, c.first_deal
            )?;
            writeln!(
                w,
                "  LLR {:.3} (bounds {:.3}, {:.3}) after {} games ({} deals)",
                t.llr, t.lower, t.upper, c.games, c.deals
            )?;
            writeln!(
                w,
                "  Elo {:.1} [{:.1}, {:.1}] ({}), LOS {:.4}, score {:.4}",
                t.elo.elo,
                t.elo.low,
                t.elo.high,
                interval_words(t.interval_method),
                t.los,
                t.score
            )?;
            if t.verdict != Verdict::Continue {
                writeln!(w, "  {}", crate::analysis::sprt::STOPPED_ESTIMATE_NOTE)?;
            }
            writeln!(w, "result: {}", verdict_text(t.verdict))?;
        }
        Ok(())
    }
}

impl crate::experiment::JobReport for TuneReport {
    const COMMAND: &'static str = "tune";

    fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        TuneReport::write_text(self, w)
    }
}
