//! What a run plays: rules, lineup, seed, the range of deals, and seat rotation.
//!
//! **Seeding.** Deal `d` (a game index without rotation) takes its dice from
//! [`SeededDice::new(seed, d)`](crate::dice::SeededDice) (one stream per seat) and the bot in
//! seat `j` gets [`bot_stream(seed, d, j)`](crate::dice::bot_stream) as its own seed.
//!
//! **Rotation.** With `rotate_seats` and `n` players, deal `d` is played `n` times. In
//! rotation `r` the k-th seat in play is taken by lineup entry `(k + r) mod n`; the dice and
//! the bot seeds stay with the seats. So rotation 0 is the lineup as given, and over the `n`
//! rotations every bot meets every seat's luck once. Games are numbered
//! `game = d * n + r` (without rotation `game = d`, `r = 0`).

use crate::bots::Bot;
use crate::bots::BotFault;
use crate::bots::registry::BotSpec;
use crate::dice::{SeededDice, bot_stream};
use crate::driver::{PlayError, try_play_game};
use crate::engine::board::Seat;
use crate::engine::game::Game;
use crate::engine::rules::Rules;
use crate::record::GameRecord;
use crate::stats::{NO_BOT, Played};

use super::{RunError, RunOptions};

/// A fully resolved run: everything its results depend on.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSpec {
    /// The rule variant.
    pub rules: Rules,
    /// One bot per seat in play, in seat order (rotation 0).
    pub lineup: Vec<BotSpec>,
    /// Master seed.
    pub seed: u64,
    /// Index of the first deal (for shards of a larger run).
    pub first_deal: u64,
    /// Number of deals.
    pub deals: u64,
    /// Play every deal once per rotation of the lineup around the seats.
    pub rotate_seats: bool,
}

impl RunSpec {
    /// Checks the spec: at least one deal, 2 to 4 bots, game indices within `u64`.
    pub fn validate(&self) -> Result<(), RunError> {
        if self.deals == 0 {
            return Err(RunError::NoGames);
        }
        if !(2..=4).contains(&self.lineup.len()) {
            return Err(RunError::Players(self.lineup.len()));
        }
        self.first_deal
            .checked_add(self.deals)
            .and_then(|end| end.checked_mul(self.games_per_deal()))
            .ok_or(RunError::TooManyGames)?;
        Ok(())
    }

    /// Number of players.
    pub fn players(&self) -> usize {
        self.lineup.len()
    }

    /// Games per deal: the number of players with rotation, else 1.
    pub fn games_per_deal(&self) -> u64 {
        if self.rotate_seats {
            self.lineup.len() as u64
        } else {
            1
        }
    }

    /// Games in the run.
    pub fn total_games(&self) -> u64 {
        self.deals * self.games_per_deal()
    }

    /// The game index of rotation `r` of deal `d`.
    pub fn game_index(&self, deal: u64, rotation: u64) -> u64 {
        deal * self.games_per_deal() + rotation
    }

    /// (deal, rotation) of a game index.
    pub fn locate(&self, game: u64) -> (u64, u64) {
        (game / self.games_per_deal(), game % self.games_per_deal())
    }

    /// Whether a game index belongs to this run.
    pub fn contains_game(&self, game: u64) -> bool {
        let (deal, _) = self.locate(game);
        deal >= self.first_deal && deal - self.first_deal < self.deals
    }

    /// Lineup index of the bot in each seat (index = seat) in rotation `r`; [`NO_BOT`] for
    /// seats not in play.
    pub fn bot_at_seat(&self, rotation: u64) -> [u8; 4] {
        let n = self.players();
        let mut at = [NO_BOT; 4];
        for (k, seat) in Seat::in_play(n).iter().enumerate() {
            at[seat.index()] = ((k + rotation as usize) % n) as u8;
        }
        at
    }
}

/// Plays every rotation of deal `deal` with `bots` (one per lineup entry, in lineup order on
/// entry and on return) and writes the games into `out`; returns how many.
pub(crate) fn play_deal(
    spec: &RunSpec,
    deal: u64,
    bots: &mut [Box<dyn Bot>],
    out: &mut [Played; 4],
    options: RunOptions,
) -> Result<usize, RunError> {
    let start = Game::new(spec.rules, spec.players())?;
    let dice = SeededDice::new(spec.seed, deal);
    let rotations = spec.games_per_deal() as usize;
    for (r, slot) in out.iter_mut().enumerate().take(rotations) {
        let game = spec.game_index(deal, r as u64);
        let fail = |fault: Box<BotFault>, seat: Option<Seat>| RunError::Bot {
            fault,
            game,
            seed: spec.seed,
            deal,
            rotation: r as u64,
            seat: seat.map(Seat::index),
        };
        // bots[k] now plays the k-th seat: lineup entry (k + r) mod n.
        let mut forfeit = None;
        for (bot, &seat) in bots.iter_mut().zip(start.seats()) {
            if let Err(f) = bot.try_new_game(&start, seat, bot_stream(spec.seed, deal, seat), game)
            {
                if !options.recover {
                    return Err(fail(f, Some(seat)));
                }
                forfeit.get_or_insert(seat);
            }
        }
        let record = match forfeit {
            Some(seat) => forfeited(&start, seat, GameRecord::new(spec.players())),
            None => match try_play_game(start, bots, &mut dice.clone(), &mut ()) {
                Ok(record) => record,
                Err(PlayError::OutOfDice(e)) => return Err(RunError::Engine(e.to_string())),
                Err(PlayError::Bot(b)) if options.recover => forfeited(&b.game, b.seat, b.record),
                Err(PlayError::Bot(b)) => return Err(fail(b.fault, Some(b.seat))),
            },
        };
        for (bot, &seat) in bots.iter_mut().zip(start.seats()) {
            // A bot that fails here has played its game out; with `recover` its program is
            // restarted for the next one.
            if let Err(f) = bot.game_over(&record)
                && !options.recover
            {
                return Err(fail(f, Some(seat)));
            }
        }
        *slot = Played {
            record,
            bot_at_seat: spec.bot_at_seat(r as u64),
        };
        if rotations > 1 {
            bots.rotate_left(1);
        }
    }
    // With rotation, n turns by one have brought the lineup back to its order.
    Ok(rotations)
}

/// The record of a game that `seat` forfeits at position `game`: the counters so far, ranks
/// already won kept, the forfeiting seat unranked; with two players the other seat wins (rank
/// 1, the forfeiter rank 2, as in a finished two-player game).
fn forfeited(game: &Game, seat: Seat, mut record: GameRecord) -> GameRecord {
    record.close(game);
    record.forfeit = Some(seat);
    record.unfinished = false;
    record.ranks[seat.index()] = 0;
    if game.players() == 2 {
        let other = *game
            .seats()
            .iter()
            .find(|&&s| s != seat)
            .expect("two seats");
        record.ranks[other.index()] = 1;
        record.ranks[seat.index()] = 2;
        record.winner = Some(other);
    }
    record
}
