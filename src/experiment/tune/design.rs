//! Who sits where in a tune's games, and how a deal's games score.
//!
//! Every game of one deal uses the same dice (seat `j` rolls from `SeededDice(seed, deal)`'s
//! stream `j` in each of them) and the same bot seeds per seat; only the seating changes. So a
//! deal compares the two bots on shared luck, the paired design of the rest of the project.
//!
//! **Self-play** (the two perturbed bots, `+` and `-`, fill the seats): the seatings are the
//! rotations of the alternating pattern `+ - + -` (cut to the player count) around the seats,
//! together with the rotations of its complement `- + - +`, each seating once:
//!
//! | players | seatings (seats in play, in order) | games per deal |
//! |---------|------------------------------------|----------------|
//! | 2 | `+ -`, `- +` | 2 (a game pair, as fishtest plays) |
//! | 3 | `+ - +`, `- + +`, `+ + -`, `- + -`, `+ - -`, `- - +` | 6 |
//! | 4 | `+ - + -`, `- + - +` | 2 |
//!
//! Each seat holds `+` and `-` equally often, and `+` holds as many seats over a deal as `-`,
//! so with equal bots a deal's expected score is even. A game scores 2 points to the side
//! whose bot won, or 1 to each side when it is unfinished.
//!
//! **Against an opponent** (`--opponent B`): the other seats hold `B`; the seatings put `+`
//! in each seat in turn, then `-` in each seat in turn (2 x players games per deal). A game
//! scores 2 points to the tuned bot in it if it won, 1 if the game is unfinished.
//!
//! **The estimator.** A deal's difference is `d = (points of + ) - (points of -)` over its
//! games, in `[-s, s]` with `s = 2 x (seatings holding +)`; the iteration's result is the mean
//! of `d / s` over its deals, in `[-1, 1]`: wins minus losses per game pair. In self-play with
//! two or four players that is exactly (games `+` won - games `-` won) / games; with three
//! players the seatings with two `+` seats and those with two `-` seats balance each other;
//! against an opponent it is the difference of the two win rates against the same opponents on
//! the same dice. Its standard error is taken over deals, the unit of randomisation.
//!
//! The SPRT that confirms a tune uses the same design with the tuned bot as `+` and the start
//! as `-`: a deal is one group, scoring `(d + s) / 2` of `s` steps in self-play (every game
//! there gives its points to one side or splits them, so `d + s` is even; with two players
//! this is exactly `run --sprt`'s pair score) and `d + s` of `2 s` steps against an opponent.

use serde::{Deserialize, Serialize};

use crate::bots::registry::BotSpec;
use crate::runner::{GameRow, RunSpec};
use aeroplane_core::{Rules, Seat};

/// What a seat holds in one seating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The bot at `theta+` (in a confirmation: the tuned bot).
    Plus,
    /// The bot at `theta-` (in a confirmation: the starting bot).
    Minus,
    /// The fixed opponent.
    Opponent,
}

/// The seatings of a tune's deals.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Design {
    players: usize,
    opponent: bool,
    seatings: Vec<Vec<Role>>,
}

impl Design {
    /// The design for `players` (2 to 4) in self-play or against an opponent.
    pub fn new(players: usize, opponent: bool) -> Design {
        let mut seatings: Vec<Vec<Role>> = Vec::new();
        if opponent {
            for role in [Role::Plus, Role::Minus] {
                for at in 0..players {
                    seatings.push(
                        (0..players)
                            .map(|k| if k == at { role } else { Role::Opponent })
                            .collect(),
                    );
                }
            }
        } else {
            for first in [Role::Plus, Role::Minus] {
                let other = if first == Role::Plus {
                    Role::Minus
                } else {
                    Role::Plus
                };
                let pattern: Vec<Role> = (0..players)
                    .map(|k| if k % 2 == 0 { first } else { other })
                    .collect();
                for r in 0..players {
                    let seating: Vec<Role> =
                        (0..players).map(|k| pattern[(k + r) % players]).collect();
                    if !seatings.contains(&seating) {
                        seatings.push(seating);
                    }
                }
            }
        }
        Design {
            players,
            opponent,
            seatings,
        }
    }

    /// Players per game.
    pub fn players(&self) -> usize {
        self.players
    }

    /// Whether the tuned bots play against a fixed opponent.
    pub fn has_opponent(&self) -> bool {
        self.opponent
    }

    /// The seatings: for each, the role of each seat in play, in seat order.
    pub fn seatings(&self) -> &[Vec<Role>] {
        &self.seatings
    }

    /// Games per deal.
    pub fn games_per_deal(&self) -> u64 {
        self.seatings.len() as u64
    }

    /// `s`: the largest difference of one deal.
    pub fn scale(&self) -> i64 {
        2 * self
            .seatings
            .iter()
            .filter(|s| s.contains(&Role::Plus))
            .count() as i64
    }

    /// The SPRT's steps per group (deal).
    pub fn sprt_steps(&self) -> u32 {
        if self.opponent {
            2 * self.scale() as u32
        } else {
            self.scale() as u32
        }
    }

    /// The SPRT's points of a deal with difference `d`.
    pub fn sprt_points(&self, d: i64) -> u32 {
        let s = self.scale();
        if self.opponent {
            (d + s) as u32
        } else {
            ((d + s) / 2) as u32
        }
    }

    /// One line saying who sits where, for manifests and reports.
    pub fn describe(&self) -> String {
        let sign = |r: &Role| match r {
            Role::Plus => "+",
            Role::Minus => "-",
            Role::Opponent => "o",
        };
        let list: Vec<String> = self
            .seatings
            .iter()
            .map(|s| s.iter().map(sign).collect::<Vec<_>>().join(""))
            .collect();
        format!(
            "each deal is played in {} seatings ({}; + = theta+ or the tuned bot, - = theta- or the start{}), on the same dice; a game scores 2 points to the side whose bot won, 1 each when unfinished",
            self.seatings.len(),
            list.join(", "),
            if self.opponent {
                ", o = the opponent"
            } else {
                ""
            }
        )
    }

    /// The runs of one block of deals: one per seating, in seating order, each without
    /// rotation (lineup = seat order), all with `seed` and the deals of `deals`; `sides` are
    /// the bots of `+` and `-`.
    pub fn parts(
        &self,
        rules: Rules,
        seed: u64,
        deals: std::ops::Range<u64>,
        [plus, minus]: [&BotSpec; 2],
        opponent: Option<&BotSpec>,
    ) -> Vec<RunSpec> {
        self.seatings
            .iter()
            .map(|seating| RunSpec {
                rules,
                lineup: seating
                    .iter()
                    .map(|r| match r {
                        Role::Plus => plus.clone(),
                        Role::Minus => minus.clone(),
                        Role::Opponent => opponent.expect("a design with an opponent").clone(),
                    })
                    .collect(),
                seed,
                first_deal: deals.start,
                deals: deals.end - deals.start,
                rotate_seats: false,
            })
            .collect()
    }

    /// The points one game of seating `seating` gives to `+` and to `-`.
    pub fn points(&self, seating: usize, row: &GameRow) -> (i64, i64) {
        let roles = &self.seatings[seating];
        let record = &row.played.record;
        let seats = Seat::in_play(self.players);
        let (mut plus, mut minus) = (0, 0);
        if record.unfinished {
            if roles.contains(&Role::Plus) {
                plus += 1;
            }
            if roles.contains(&Role::Minus) {
                minus += 1;
            }
        } else if let Some(w) = record.winner {
            let k = seats.iter().position(|&s| s == w).expect("a seat in play");
            match roles[k] {
                Role::Plus => plus += 2,
                Role::Minus => minus += 2,
                Role::Opponent => {}
            }
        }
        (plus, minus)
    }
}

/// What the games of some deals came to: the sums that the estimate and its standard error
/// need, and counts for the record. Integers, so they add exactly in any order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Deals.
    pub deals: u64,
    /// Games.
    pub games: u64,
    /// Games a `+` bot won.
    pub plus_wins: u64,
    /// Games a `-` bot won.
    pub minus_wins: u64,
    /// Games an opponent won.
    pub opponent_wins: u64,
    /// Unfinished games.
    pub unfinished: u64,
    /// The sum over deals of the difference `d`.
    pub sum: i64,
    /// The sum over deals of `d^2`.
    pub sum_sq: u64,
}

impl Outcome {
    /// Adds a deal with difference `d`.
    pub fn add_deal(&mut self, d: i64) {
        self.deals += 1;
        self.sum += d;
        self.sum_sq += d.unsigned_abs() * d.unsigned_abs();
    }

    /// Counts one game's result.
    pub fn count_game(&mut self, design: &Design, seating: usize, row: &GameRow) {
        self.games += 1;
        let record = &row.played.record;
        if record.unfinished {
            self.unfinished += 1;
        } else if let Some(w) = record.winner {
            let seats = Seat::in_play(design.players);
            let k = seats.iter().position(|&s| s == w).expect("a seat in play");
            match design.seatings[seating][k] {
                Role::Plus => self.plus_wins += 1,
                Role::Minus => self.minus_wins += 1,
                Role::Opponent => self.opponent_wins += 1,
            }
        }
    }

    /// The mean of `d / s` over the deals: the result `y` in `[-1, 1]` (0 without deals).
    pub fn result(&self, scale: i64) -> f64 {
        if self.deals == 0 {
            return 0.0;
        }
        self.sum as f64 / (self.deals as f64 * scale as f64)
    }

    /// The standard error of [`Outcome::result`] over deals (`None` below two deals).
    pub fn standard_error(&self, scale: i64) -> Option<f64> {
        if self.deals < 2 {
            return None;
        }
        let n = self.deals as f64;
        let s = scale as f64;
        let mean = self.sum as f64 / n;
        let var = ((self.sum_sq as f64 - n * mean * mean) / (n - 1.0)).max(0.0);
        Some(var.sqrt() / (s * n.sqrt()))
    }

    /// Adds another outcome's counts.
    pub fn merge(&mut self, other: &Outcome) {
        self.deals += other.deals;
        self.games += other.games;
        self.plus_wins += other.plus_wins;
        self.minus_wins += other.minus_wins;
        self.opponent_wins += other.opponent_wins;
        self.unfinished += other.unfinished;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signs(d: &Design) -> Vec<String> {
        d.seatings()
            .iter()
            .map(|s| {
                s.iter()
                    .map(|r| match r {
                        Role::Plus => '+',
                        Role::Minus => '-',
                        Role::Opponent => 'o',
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn seatings_balance_seats_and_sides() {
        assert_eq!(signs(&Design::new(2, false)), ["+-", "-+"]);
        assert_eq!(
            signs(&Design::new(3, false)),
            ["+-+", "-++", "++-", "-+-", "+--", "--+"]
        );
        assert_eq!(signs(&Design::new(4, false)), ["+-+-", "-+-+"]);
        assert_eq!(
            signs(&Design::new(3, true)),
            ["+oo", "o+o", "oo+", "-oo", "o-o", "oo-"]
        );
        for n in 2..=4 {
            for opp in [false, true] {
                let d = Design::new(n, opp);
                for seat in 0..n {
                    let count = |r| d.seatings().iter().filter(|s| s[seat] == r).count();
                    assert_eq!(
                        count(Role::Plus),
                        count(Role::Minus),
                        "{n} {opp} seat {seat}"
                    );
                }
                let seats = |r| d.seatings().iter().flatten().filter(|&&x| x == r).count();
                assert_eq!(seats(Role::Plus), seats(Role::Minus));
            }
        }
    }

    #[test]
    fn scales_and_sprt_points() {
        let two = Design::new(2, false);
        assert_eq!((two.scale(), two.sprt_steps()), (4, 4));
        // Two games won by + (d = 4): the full pair score, as `run --sprt` counts it.
        assert_eq!(two.sprt_points(4), 4);
        assert_eq!(two.sprt_points(0), 2);
        assert_eq!(two.sprt_points(-4), 0);
        let opp = Design::new(4, true);
        assert_eq!((opp.scale(), opp.sprt_steps()), (8, 16));
        assert_eq!(opp.sprt_points(-1), 7);
        let three = Design::new(3, false);
        assert_eq!(three.scale(), 12);
    }

    #[test]
    fn standard_error_over_deals() {
        let mut o = Outcome::default();
        for d in [4, -4, 0, 4] {
            o.add_deal(d);
        }
        assert_eq!(o.result(4), 0.25);
        // Deal results 1, -1, 0, 1: sample variance 11/12, over 4 deals.
        let se = o.standard_error(4).unwrap();
        assert!((se - (11.0f64 / 12.0 / 4.0).sqrt()).abs() < 1e-12, "{se}");
    }
}
