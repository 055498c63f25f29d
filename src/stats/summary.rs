//! Figures derived from a [`Tally`] at the end of a run: the only place floats appear.

use aeroplane_core::Seat;

use super::histogram::Spread;
use super::interval::{
    ChiSquare, MIN_DEALS, RateInterval, design_effect, equal_rates, rate_interval, z_for,
};
use super::tally::{Entrant, Tally};
use aeroplane_core::Counters;

/// Confidence level of every interval.
pub const CONFIDENCE: f64 = 0.95;

/// One bot's line.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BotLine {
    /// Lineup index.
    pub index: usize,
    /// Display name.
    pub name: String,
    /// The counts.
    pub counts: Entrant,
    /// Wins / games.
    pub win_rate: f64,
    /// 95% interval of the win rate (see `method`).
    pub interval: Option<(f64, f64)>,
    /// How `interval` was computed, with the design effect of rotated runs.
    pub method: Option<RateInterval>,
    /// Mean rank, only when every game ranked this bot (under `end = first_finisher` with 3-4
    /// players only the winner is ranked, so a mean over ranked games would be 1 for everyone).
    pub mean_rank: Option<f64>,
}

/// One seat's line.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SeatLine {
    /// The seat.
    pub seat: Seat,
    /// The counts.
    pub counts: Entrant,
    /// Wins / games.
    pub win_rate: f64,
    /// 95% interval of the win rate (see `method`).
    pub interval: Option<(f64, f64)>,
    /// How `interval` was computed, with the design effect of rotated runs.
    pub method: Option<RateInterval>,
}

/// The spread of one game-length measure.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LengthLine {
    /// `turns` or `rolls`.
    pub measure: &'static str,
    /// Its moments and quantiles (`None` for no games).
    pub spread: Option<Spread>,
}

/// Every figure a run reports.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Number of players.
    pub players: usize,
    /// Deals played.
    pub deals: u64,
    /// Games played.
    pub games: u64,
    /// Games per deal (rotations).
    pub group_size: u64,
    /// Games stopped at `max_turns`.
    pub unfinished: u64,
    /// Per lineup entry.
    pub bots: Vec<BotLine>,
    /// Per seat in play.
    pub seats: Vec<SeatLine>,
    /// Test of "every seat wins equally often".
    pub seat_test: Option<ChiSquare>,
    /// Whether `seat_test` tests seat order (the first-player question): every seat holds the
    /// same bot, or the seats are rotated. Otherwise seat j holds bot j, and the test compares
    /// the bots and their seats at once.
    pub seat_order_test: bool,
    /// Fewer than [`MIN_DEALS`] deals: too few to trust the intervals and tests.
    pub too_few_deals: bool,
    /// Length in turns, then in rolls.
    pub lengths: [LengthLine; 2],
    /// Totals of every counter (turns and rolls included).
    pub counters: Counters<u64>,
}

impl Summary {
    /// Derives the figures. `names[k]` is lineup entry k's name. With rotation groups
    /// (`group_size > 1`) the games of one deal are correlated, so each interval is
    /// cluster-robust by deal (effective sample size `games / deff`, never narrower than the
    /// Wilson interval on the deals: see [`rate_interval`]) and the chi-square statistic is
    /// divided by the seats' mean design effect (see [`design_effect`]).
    pub fn new(t: &Tally, names: &[String]) -> Summary {
        let z = z_for(CONFIDENCE);
        let rate = |e: &Entrant| -> (f64, Option<RateInterval>, f64) {
            let deff = design_effect(t.deals, t.group_size, e.wins, e.group_wins_sq);
            let r = if e.games > 0 {
                e.wins as f64 / e.games as f64
            } else {
                0.0
            };
            let i = rate_interval(e.wins, e.games, t.deals, t.group_size, e.group_wins_sq, z);
            (r, i, deff)
        };
        let bots = (0..t.players)
            .map(|k| {
                let e = t.bots[k];
                let (win_rate, method, _) = rate(&e);
                let ranked = e.ranked();
                BotLine {
                    index: k,
                    name: names.get(k).cloned().unwrap_or_default(),
                    counts: e,
                    win_rate,
                    interval: method.map(|i| (i.low, i.high)),
                    method,
                    mean_rank: (ranked > 0 && e.ranks[0] == 0)
                        .then(|| e.rank_sum() as f64 / ranked as f64),
                }
            })
            .collect();
        let mut deffs = Vec::new();
        let seats: Vec<SeatLine> = Seat::in_play(t.players)
            .iter()
            .map(|&seat| {
                let e = t.seats[seat.index()];
                let (win_rate, method, deff) = rate(&e);
                deffs.push(deff);
                SeatLine {
                    seat,
                    counts: e,
                    win_rate,
                    interval: method.map(|i| (i.low, i.high)),
                    method,
                }
            })
            .collect();
        let mut mean_deff = deffs.iter().sum::<f64>() / deffs.len().max(1) as f64;
        // As for the intervals: a design effect from too few deals, or of 0, is not trusted;
        // the test then counts each deal as one sample (d = games per deal) at the least.
        if t.group_size > 1 && (t.deals < MIN_DEALS || deffs.contains(&0.0)) {
            mean_deff = mean_deff.max(t.group_size as f64);
        }
        let wins: Vec<u64> = seats.iter().map(|s| s.counts.wins).collect();
        Summary {
            players: t.players,
            deals: t.deals,
            games: t.games,
            group_size: t.group_size,
            unfinished: t.unfinished,
            bots,
            seats,
            seat_test: equal_rates(&wins, mean_deff),
            seat_order_test: t.group_size > 1
                || names
                    .iter()
                    .take(t.players)
                    .all(|n| Some(n) == names.first()),
            too_few_deals: t.deals < MIN_DEALS,
            lengths: [
                LengthLine {
                    measure: "turns",
                    spread: t.turns.spread(),
                },
                LengthLine {
                    measure: "rolls",
                    spread: t.rolls.spread(),
                },
            ],
            counters: t.counters,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{NO_BOT, Played};
    use aeroplane_core::GameRecord;

    fn game(ranks: [u8; 4], winner: usize) -> Played {
        let mut counters = crate::Counters::default();
        counters.add(crate::Counter::Turns, 10 * (winner as u32 + 1));
        counters.add(crate::Counter::Rolls, 12);
        Played {
            record: GameRecord {
                players: 3,
                winner: Seat::new(winner),
                ranks,
                counters,
                ..GameRecord::default()
            },
            bot_at_seat: [0, 1, 2, NO_BOT],
        }
    }

    #[test]
    fn rates_ranks_and_lengths_come_from_the_counts() {
        let mut t = Tally::new(3, 1);
        t.add_deal(&[game([1, 2, 3, 0], 0)]);
        t.add_deal(&[game([2, 1, 3, 0], 1)]);
        t.add_deal(&[game([1, 3, 2, 0], 0)]);
        let names = ["a", "b", "c"].map(String::from);
        let s = Summary::new(&t, &names);
        assert_eq!(s.bots[0].counts.wins, 2);
        assert!((s.bots[0].win_rate - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.bots[0].mean_rank.unwrap() - 4.0 / 3.0).abs() < 1e-12);
        assert!((s.bots[2].mean_rank.unwrap() - 8.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.bots[2].win_rate, 0.0);
        assert_eq!(s.bots[2].interval.unwrap().0, 0.0);
        assert_eq!(s.seats.len(), 3);
        let turns = s.lengths[0].spread.unwrap();
        assert_eq!((turns.min, turns.median, turns.max), (10, 10, 20));
        assert_eq!(s.seat_test.unwrap().df, 2);
    }

    #[test]
    fn mean_rank_only_where_every_game_ranks_the_bot() {
        // first_finisher with 3 players: only the winner is ranked.
        let mut t = Tally::new(3, 1);
        t.add_deal(&[game([1, 0, 0, 0], 0)]);
        t.add_deal(&[game([0, 1, 0, 0], 1)]);
        let names = ["a", "b", "c"].map(String::from);
        let s = Summary::new(&t, &names);
        assert!(s.bots.iter().all(|b| b.mean_rank.is_none()), "{:?}", s.bots);
        assert!(s.too_few_deals);
    }

    #[test]
    fn the_seat_test_is_a_seat_order_test_only_with_one_bot_or_rotation() {
        let mut t = Tally::new(3, 1);
        t.add_deal(&[game([1, 2, 3, 0], 0)]);
        let mixed = ["a", "b", "c"].map(String::from);
        assert!(!Summary::new(&t, &mixed).seat_order_test);
        let same = ["a", "a", "a"].map(String::from);
        assert!(Summary::new(&t, &same).seat_order_test);
    }
}
