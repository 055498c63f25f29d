//! The training's guard: it watches the evaluations for learning going wrong and, where the
//! cure is known, applies it.
//!
//! Two alarms, read from the evaluations alone (so a training with the guard gives the same
//! bytes for any thread count and after a stop and resume, as without it):
//! - [`Alarm::BelowBest`]: the score fell clearly below the best so far (the two 95% intervals
//!   do not overlap). Seen when the learning rate is too large for the rules (appfreegame at
//!   two players with 0.02: 25% against greedy, then 12%). The cure: go back to the best net
//!   so far and learn on at a quarter of the learning rate ([`CURE_FACTOR`]), at most
//!   [`MAX_CURES`] times in a training.
//! - [`Alarm::BelowOpponent`]: after the warm-up (a fifth of the games, counted from the start
//!   or the last restart), the score is clearly below the opponent's (its interval wholly under
//!   50%). Against a baseline (`random` or `greedy`, which a learning net beats within a few
//!   thousand games) by a net that never scored 50%, the net is broken (seen: every hidden
//!   unit dead, so every position has one value, with 0.02 on chinese and appfreegame at 2 to 4
//!   players): the cure is to start again from the initial weights at a quarter of the
//!   learning rate. Against a stronger opponent it is reported once, and nothing changed.

use serde::{Deserialize, Serialize};

use super::Evaluation;

/// At most this many cures in one training; later alarms are reported only.
pub const MAX_CURES: u32 = 3;
/// Each cure multiplies the learning rate by this, from its game on.
pub const CURE_FACTOR: f64 = 0.25;

/// The best evaluation so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Best {
    /// Games played at that evaluation.
    pub games: u64,
    /// The evaluation.
    pub eval: Evaluation,
}

/// What the guard noticed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Alarm {
    /// The score fell clearly below the best so far (the 95% intervals apart).
    BelowBest,
    /// After the warm-up, the score is clearly below the opponent's (its interval under 50%).
    BelowOpponent,
}

impl Alarm {
    /// The alarm's name in `history.csv` and `train.json`.
    pub fn name(self) -> &'static str {
        match self {
            Alarm::BelowBest => "below_best",
            Alarm::BelowOpponent => "below_opponent",
        }
    }
}

/// What the guard did about an alarm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Action {
    /// Went back to the net of game `to_games` (the best so far) and scaled the learning rate.
    Revert {
        /// The games of the net gone back to.
        to_games: u64,
    },
    /// Started again from the initial weights and scaled the learning rate.
    Restart,
    /// Reported only.
    Report,
}

/// One alarm, as `train.json` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GuardEvent {
    /// Games played at the evaluation that raised it.
    pub games: u64,
    /// What was noticed.
    pub alarm: Alarm,
    /// That evaluation.
    pub eval: Evaluation,
    /// The best evaluation before it.
    pub best: Best,
    /// What was done.
    pub action: Action,
    /// The learning rate's factor from this game on (1 before any cure).
    pub alpha_scale: f64,
}

/// The learning rate's factor after `cures` cures.
pub fn alpha_scale(cures: u32) -> f64 {
    CURE_FACTOR.powi(cures.min(MAX_CURES) as i32)
}

/// What an evaluation after `games` of `total` games sets off, given the best before it and
/// the events so far (each alarm of [`Alarm::BelowOpponent`] is reported once).
pub fn check(
    best: &Best,
    eval: &Evaluation,
    games: u64,
    total: u64,
    baseline: bool,
    cure: bool,
    events: &[GuardEvent],
) -> Option<GuardEvent> {
    let cures = cures(events);
    let can_cure = cure && cures < MAX_CURES;
    let restarted = events
        .iter()
        .rev()
        .find(|e| e.action == Action::Restart)
        .map_or(0, |e| e.games);
    let warm = (games - restarted.min(games)).saturating_mul(5) >= total;
    let (alarm, action) = if best.eval.low > eval.high {
        if can_cure {
            (
                Alarm::BelowBest,
                Action::Revert {
                    to_games: best.games,
                },
            )
        } else if !events.iter().any(|e| {
            e.alarm == Alarm::BelowBest && e.action == Action::Report && e.best.games == best.games
        }) {
            // Reported once for each best.
            (Alarm::BelowBest, Action::Report)
        } else {
            return None;
        }
    } else if warm && eval.high < 0.5 {
        if baseline && best.eval.score < 0.5 && can_cure {
            (Alarm::BelowOpponent, Action::Restart)
        } else if !events
            .iter()
            .any(|e| e.alarm == Alarm::BelowOpponent && e.games >= restarted)
        {
            (Alarm::BelowOpponent, Action::Report)
        } else {
            return None;
        }
    } else {
        return None;
    };
    let after = cures + u32::from(action != Action::Report);
    Some(GuardEvent {
        games,
        alarm,
        eval: *eval,
        best: *best,
        action,
        alpha_scale: alpha_scale(after),
    })
}

/// The cures among `events`.
pub fn cures(events: &[GuardEvent]) -> u32 {
    events.iter().filter(|e| e.action != Action::Report).count() as u32
}

/// What an event says, in the training's interim lines and its report.
pub fn words(e: &GuardEvent, opponent: &str, total: u64) -> String {
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let score = |ev: &Evaluation| format!("{} [{}, {}]", pct(ev.score), pct(ev.low), pct(ev.high));
    match (e.alarm, e.action) {
        (Alarm::BelowBest, Action::Revert { to_games }) => format!(
            "learning went wrong: the score against {opponent} fell to {} at game {}, clearly below its best {} at game {} (the intervals apart); the training goes back to the net of game {to_games} and learns on at {} of the learning rate (the cure for a step too large for these rules)",
            score(&e.eval),
            e.games,
            score(&e.best.eval),
            e.best.games,
            scale_words(e.alpha_scale),
        ),
        (Alarm::BelowBest, _) => format!(
            "learning went wrong: the score against {opponent} fell to {} at game {}, clearly below its best {} at game {}; the training goes on as it is (the guard's cures are off or spent; a smaller learning rate from the start may help)",
            score(&e.eval),
            e.games,
            score(&e.best.eval),
            e.best.games,
        ),
        (Alarm::BelowOpponent, Action::Restart) => format!(
            "learning went wrong: after {} of {total} games the net scores {} against {opponent}, a baseline it never beat (its best {} at game {}); the training starts again from its initial weights and learns on at {} of the learning rate (the cure for a step too large for these rules, which leaves a net with every position of one value)",
            e.games,
            score(&e.eval),
            score(&e.best.eval),
            e.best.games,
            scale_words(e.alpha_scale),
        ),
        (Alarm::BelowOpponent, _) => format!(
            "learning may be going wrong: after {} of {total} games the net scores {} against {opponent}, clearly below it (nothing is changed: a strong opponent can deserve it; a smaller learning rate or more games may help)",
            e.games,
            score(&e.eval),
        ),
    }
}

/// A factor of the learning rate in words: "a quarter", "1/16".
fn scale_words(scale: f64) -> String {
    if scale == 0.25 {
        "a quarter".into()
    } else {
        format!("1/{}", (1.0 / scale).round())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(score: f64, half: f64) -> Evaluation {
        Evaluation {
            deals: 200,
            score,
            low: score - half,
            high: score + half,
        }
    }

    /// [`check`] in a training of 30,000 games: the best's games and score, the evaluation's
    /// score and half-width, the games, whether the opponent is a baseline, whether to cure.
    fn at(
        b: (u64, f64),
        e: (f64, f64),
        games: u64,
        baseline: bool,
        cure: bool,
        events: &[GuardEvent],
    ) -> Option<GuardEvent> {
        check(
            &best(b.0, b.1),
            &ev(e.0, e.1),
            games,
            30_000,
            baseline,
            cure,
            events,
        )
    }

    fn best(games: u64, score: f64) -> Best {
        Best {
            games,
            eval: ev(score, 0.04),
        }
    }

    #[test]
    fn a_clear_drop_below_the_best_reverts_with_a_quarter_of_the_rate() {
        let e = at((10_000, 0.255), (0.1225, 0.03), 20_000, true, true, &[]).unwrap();
        assert_eq!(e.alarm, Alarm::BelowBest);
        assert_eq!(e.action, Action::Revert { to_games: 10_000 });
        assert_eq!(e.alpha_scale, 0.25);
        let text = words(&e, "greedy", 30_000);
        assert!(
            text.contains("goes back to the net of game 10000"),
            "{text}"
        );
        assert!(text.contains("a quarter of the learning rate"), "{text}");
    }

    #[test]
    fn overlapping_intervals_are_noise_not_an_alarm() {
        // 0.70 [0.66, 0.74] against a best 0.75 [0.71, 0.79]: the intervals overlap.
        assert_eq!(
            at((10_000, 0.75), (0.70, 0.04), 20_000, true, true, &[]),
            None
        );
    }

    #[test]
    fn below_a_strong_opponent_is_reported_once_after_the_warm_up_and_changes_nothing() {
        // Before the warm-up (a fifth of the games): nothing.
        assert_eq!(
            at((1_000, 0.40), (0.40, 0.04), 1_000, false, true, &[]),
            None
        );
        let e = at((6_000, 0.40), (0.40, 0.04), 6_000, false, true, &[]).unwrap();
        assert_eq!(e.alarm, Alarm::BelowOpponent);
        assert_eq!(e.action, Action::Report);
        assert_eq!(e.alpha_scale, 1.0);
        // Once only.
        assert_eq!(
            at((6_000, 0.40), (0.40, 0.04), 9_000, false, true, &[e]),
            None
        );
    }

    #[test]
    fn a_net_that_never_beat_a_baseline_starts_again_after_the_warm_up() {
        let e = at((2_000, 0.23), (0.20, 0.03), 6_000, true, true, &[]).unwrap();
        assert_eq!(
            (e.alarm, e.action, e.alpha_scale),
            (Alarm::BelowOpponent, Action::Restart, 0.25)
        );
        assert!(words(&e, "greedy", 30_000).contains("starts again from its initial weights"));
        // The warm-up counts again from the restart.
        assert_eq!(
            at((2_000, 0.23), (0.20, 0.03), 9_000, true, true, &[e]),
            None
        );
        let again = at((2_000, 0.23), (0.20, 0.03), 12_000, true, true, &[e]).unwrap();
        assert_eq!(
            (again.action, again.alpha_scale),
            (Action::Restart, 1.0 / 16.0)
        );
        // A net that once beat the baseline is not restarted for falling below it (its drop
        // is the other alarm's).
        let fell = at((2_000, 0.52), (0.45, 0.04), 6_000, true, true, &[]).unwrap();
        assert_eq!(fell.action, Action::Report);
    }

    #[test]
    fn the_cures_stop_after_the_most_and_the_rate_stays_at_its_last_scale() {
        let mut events = Vec::new();
        for k in 1..=MAX_CURES + 1 {
            let e = at(
                (1_000, 0.7),
                (0.3, 0.04),
                1_000 * u64::from(k) + 1_000,
                true,
                true,
                &events,
            )
            .unwrap();
            events.push(e);
        }
        assert_eq!(cures(&events), MAX_CURES);
        let last = events.last().unwrap();
        assert_eq!(last.action, Action::Report);
        assert_eq!(last.alpha_scale, alpha_scale(MAX_CURES));
        assert_eq!(alpha_scale(MAX_CURES), 1.0 / 64.0);
        assert!(words(last, "greedy", 30_000).contains("cures are off or spent"));
        let off = at((1_000, 0.7), (0.3, 0.04), 2_000, true, false, &[]).unwrap();
        assert_eq!((off.action, off.alpha_scale), (Action::Report, 1.0));
        // Reported once for each best.
        assert_eq!(
            at((1_000, 0.7), (0.3, 0.04), 3_000, true, false, &[off]),
            None
        );
    }
}
