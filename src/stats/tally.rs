//! Integer tallies of a run: exact, mergeable in any order, so a run split into chunks, threads
//! or shards sums to the same numbers.

use aeroplane_core::GameRecord;
use aeroplane_core::{Counter, Counters};

use super::histogram::Histogram;

/// Marks a seat without a bot in [`Played::bot_at_seat`].
pub const NO_BOT: u8 = u8::MAX;

/// One game as the tally sees it: its record and which lineup entry played each seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The game's record.
    pub record: GameRecord,
    /// Lineup index of the bot in each seat (index = seat), [`NO_BOT`] for empty seats.
    pub bot_at_seat: [u8; 4],
}

/// Results of one bot (a lineup entry) or one seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entrant {
    /// Games played.
    pub games: u64,
    /// Rank-1 finishes.
    pub wins: u64,
    /// Games by rank: index 1..=4 for ranks, index 0 for unranked.
    pub ranks: [u64; 5],
    /// Σ over deals of (wins within the deal)²: the spread across rotation groups.
    pub group_wins_sq: u64,
    /// Games forfeited because the bot failed (runs with `recover`; counted as lost).
    pub forfeits: u64,
}

impl Entrant {
    fn merge(&mut self, o: &Entrant) {
        self.games += o.games;
        self.wins += o.wins;
        for (a, b) in self.ranks.iter_mut().zip(o.ranks) {
            *a += b;
        }
        self.group_wins_sq += o.group_wins_sq;
        self.forfeits += o.forfeits;
    }

    /// Games that gave this entrant a rank.
    pub fn ranked(&self) -> u64 {
        self.ranks[1..].iter().sum()
    }

    /// Σ of ranks over ranked games.
    pub fn rank_sum(&self) -> u64 {
        (1..5).map(|r| r as u64 * self.ranks[r]).sum()
    }
}

/// Everything a run counts. Integers only: [`Tally::merge`] is exact and commutative.
/// Serializes (for checkpoints) as its fields, histograms as `[value, count]` pairs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// Number of players.
    pub players: usize,
    /// Games per deal: the number of players with seat rotation, else 1.
    pub group_size: u64,
    /// Deals played.
    pub deals: u64,
    /// Games played.
    pub games: u64,
    /// Games stopped at `max_turns`.
    pub unfinished: u64,
    /// Per lineup entry.
    pub bots: [Entrant; 4],
    /// Per seat (index = seat).
    pub seats: [Entrant; 4],
    /// Game length in turns.
    pub turns: Histogram,
    /// Game length in rolls.
    pub rolls: Histogram,
    /// Totals of every counter over all games (turns and rolls included).
    pub counters: Counters<u64>,
    /// Two players with the seats rotated (each deal a pair of games, seats swapped): deals by
    /// lineup entry 0's points in them, 2 per game won and 1 per unfinished game (index 0..=4:
    /// the pentanomial LL, LD, DD or WL, WD, WW). Zero for other runs.
    #[serde(default)]
    pub pairs: [u64; 5],
}

impl Tally {
    /// An empty tally for games of `players` with `group_size` games per deal.
    pub fn new(players: usize, group_size: u64) -> Self {
        Tally {
            players,
            group_size,
            deals: 0,
            games: 0,
            unfinished: 0,
            bots: Default::default(),
            seats: Default::default(),
            turns: Histogram::with_capacity(512),
            rolls: Histogram::with_capacity(1024),
            counters: Counters::default(),
            pairs: [0; 5],
        }
    }

    /// Counts one deal: all its games (one per rotation).
    pub fn add_deal(&mut self, games: &[Played]) {
        debug_assert_eq!(games.len() as u64, self.group_size);
        let mut bot_wins = [0u64; 4];
        let mut seat_wins = [0u64; 4];
        let mut points = 0;
        for p in games {
            let r = &p.record;
            points += match r.winner {
                Some(w) if p.bot_at_seat[w.index()] == 0 => 2,
                Some(_) => 0,
                None => 1,
            };
            self.games += 1;
            self.unfinished += u64::from(r.unfinished);
            self.turns.add(r.counters[Counter::Turns]);
            self.rolls.add(r.counters[Counter::Rolls]);
            self.counters.add_game(&r.counters);
            for (seat, &bot) in p.bot_at_seat.iter().enumerate() {
                if bot == NO_BOT {
                    continue;
                }
                let rank = usize::from(r.ranks[seat]).min(4);
                let won = u64::from(rank == 1);
                let forfeit = u64::from(r.forfeit.is_some_and(|s| s.index() == seat));
                for who in [&mut self.bots[usize::from(bot)], &mut self.seats[seat]] {
                    who.games += 1;
                    who.wins += won;
                    who.ranks[rank] += 1;
                    who.forfeits += forfeit;
                }
                bot_wins[usize::from(bot)] += won;
                seat_wins[seat] += won;
            }
        }
        self.deals += 1;
        if self.players == 2 && self.group_size == 2 {
            self.pairs[points] += 1;
        }
        for (b, w) in self.bots.iter_mut().zip(bot_wins) {
            b.group_wins_sq += w * w;
        }
        for (s, w) in self.seats.iter_mut().zip(seat_wins) {
            s.group_wins_sq += w * w;
        }
    }

    /// Adds another tally of the same kind of run (same players and group size).
    ///
    /// # Panics
    /// If the player counts or group sizes differ: such tallies do not describe one run.
    pub fn merge(&mut self, o: &Tally) {
        assert_eq!(
            (self.players, self.group_size),
            (o.players, o.group_size),
            "merging tallies of different runs"
        );
        self.deals += o.deals;
        self.games += o.games;
        self.unfinished += o.unfinished;
        for (a, b) in self.bots.iter_mut().zip(&o.bots) {
            a.merge(b);
        }
        for (a, b) in self.seats.iter_mut().zip(&o.seats) {
            a.merge(b);
        }
        self.turns.merge(&o.turns);
        self.rolls.merge(&o.rolls);
        self.counters.merge(&o.counters);
        for (a, b) in self.pairs.iter_mut().zip(o.pairs) {
            *a += b;
        }
    }
}
