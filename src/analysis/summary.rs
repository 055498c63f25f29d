//! Figures derived from a [`Tally`] at the end of a run: the only place floats appear.

use aeroplane_core::Seat;

use super::elo::{Estimate, GroupScores};
use crate::stats::{
    ChiSquare, Entrant, MIN_DEALS, RateInterval, Spread, Tally, design_effect, equal_rates,
    rate_interval, z_for,
};
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
    /// Two players with the seats rotated: lineup entry 0's match score against entry 1 on the
    /// deals' pairs of games (the pentanomial model: Elo, normalized Elo, LOS; see
    /// [`crate::analysis::elo`]).
    pub head_to_head: Option<Estimate>,
}

impl Summary {
    /// Derives the figures. `names[k]` is lineup entry k's name. With rotation groups
    /// (`group_size > 1`) the games of one deal are correlated, so each interval is
    /// cluster-robust by deal (effective sample size `games / deff`, never narrower than the
    /// Wilson interval on the deals: see [`rate_interval`]) and the chi-square statistic is
    /// divided by the seats' mean design effect (see [`design_effect`]).
    pub fn new(t: &Tally, names: &[String]) -> Summary {
        let z = z_for(CONFIDENCE);
        let rate = |e: &Entrant| -> (f64, Option<RateInterval>, Option<f64>) {
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
        let known: Vec<f64> = deffs.iter().flatten().copied().collect();
        let mut mean_deff = known.iter().sum::<f64>() / known.len().max(1) as f64;
        if known.is_empty() {
            mean_deff = 1.0;
        }
        // As for the intervals: a design effect from too few deals, of 0, or with no estimate
        // for some seat (it never won, or always won) is not trusted; the test then counts each
        // deal as one sample (d = games per deal) at the least.
        if t.group_size > 1
            && (t.deals < MIN_DEALS || known.contains(&0.0) || known.len() < deffs.len())
        {
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
            head_to_head: (t.players == 2 && t.group_size == 2)
                .then(|| GroupScores::new(t.pairs.to_vec()).estimate())
                .flatten(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{NO_BOT, Played};
    use aeroplane_core::GameRecord;

    fn game(ranks: [u8; 4], winner: usize) -> Played {
        let mut counters = aeroplane_core::Counters::default();
        counters.add(aeroplane_core::Counter::Turns, 10 * (winner as u32 + 1));
        counters.add(aeroplane_core::Counter::Rolls, 12);
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

    /// Issue 22, item 1: a seat without wins has no design effect; the seat test must not use
    /// 1 for it (which, averaged with the other seats, made the test reject far too often) but
    /// count each deal as one sample, as the intervals do.
    #[test]
    fn a_seat_without_wins_floors_the_seat_test_at_one_sample_per_deal() {
        let mut t = Tally::new(3, 3);
        for d in 0..60 {
            // Seat 1 wins deal d's three games when d is even, seat 2 when odd; seat 0 never.
            let w = 1 + d % 2;
            let mut ranks = [0; 4];
            ranks[w] = 1;
            let g = game(ranks, w);
            t.add_deal(&[g, g, g]);
        }
        let names = ["a", "b", "c"].map(String::from);
        let s = Summary::new(&t, &names);
        assert_eq!(s.seats[0].counts.wins, 0);
        assert_eq!(s.seats[0].method.unwrap().design_effect, None);
        assert_eq!(
            s.seats[0].method.unwrap().method,
            crate::stats::IntervalMethod::WilsonOnDeals
        );
        // Raw chi-square: wins 0, 90, 90 of 180, expected 60 each: 60 + 15 + 15 = 90. Seats 1
        // and 2 win all or nothing of a deal (d = 3 * 60 / 59); seat 0 has no estimate, so the
        // mean is not trusted and is floored at 3, which it already exceeds.
        let test = s.seat_test.unwrap();
        assert!(
            (test.statistic - 90.0 / (3.0 * 60.0 / 59.0)).abs() < 1e-9,
            "{test:?}"
        );
        // Treating seat 0's d as 1 would have given 90 / ((1 + 2 * 3.05) / 3) = 38.
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
