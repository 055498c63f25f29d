//! What a run plays: rules, lineup, seed, the range of deals, and seat rotation.
//!
//! **Seeding.** Deal `d` (a game index without rotation) takes its dice from
//! [`SeededDice::new(seed, d)`](aeroplane_core::SeededDice) (one stream per seat) and the bot in
//! seat `j` gets [`bot_stream(seed, d, j)`](aeroplane_core::bot_stream) as its own seed.
//!
//! **Rotation.** With `rotate_seats` and `n` players, deal `d` is played `n` times. In
//! rotation `r` the k-th seat in play is taken by lineup entry `(k + r) mod n`; the dice and
//! the bot seeds stay with the seats. So rotation 0 is the lineup as given, and over the `n`
//! rotations every bot meets every seat's luck once. Games are numbered
//! `game = d * n + r` (without rotation `game = d`, `r = 0`).

use crate::bots::Bot;
use crate::bots::registry::BotSpec;
use crate::bots::{BotFault, FaultKind};
use crate::stats::{NO_BOT, Played};
use aeroplane_core::Game;
use aeroplane_core::GameRecord;
use aeroplane_core::Rules;
use aeroplane_core::Seat;
use aeroplane_core::{Dice, SeededDice, bot_stream};
use aeroplane_core::{Observer, PlayError, try_play_game};

use super::RunError;

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
    /// Checks the spec: at least one deal, 2 to 4 bots, game indices within `u64`, every bot
    /// able to play the rules (an `exact` bot's table solves them).
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
        for bot in &self.lineup {
            bot.check_fit(&self.rules, self.players())
                .map_err(RunError::Lineup)?;
        }
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

impl RunSpec {
    /// Whether deals `first..first + deals` all belong to this run.
    pub fn contains_deals(&self, first: u64, deals: u64) -> bool {
        first >= self.first_deal
            && first
                .checked_add(deals)
                .is_some_and(|end| end <= self.first_deal + self.deals)
    }

    /// Plays game `game` of the run, watched by `observer`: the one place that says what game
    /// i of a run is (its deal's dice, the bots' seeds, the rotation's seating). `options` say
    /// what to play it with beyond that; the default plays it as a run does.
    pub fn play<O: Observer + ?Sized>(
        &self,
        game: u64,
        observer: &mut O,
        options: PlayOptions<'_>,
    ) -> Result<Played, RunError> {
        self.play_noting(game, observer, options)
            .map(|(played, _)| played)
    }

    /// [`RunSpec::play`], also returning the fault of a forfeited game (its seat and why).
    pub(crate) fn play_noting<O: Observer + ?Sized>(
        &self,
        game: u64,
        observer: &mut O,
        options: PlayOptions<'_>,
    ) -> Result<(Played, Option<Forfeit>), RunError> {
        let PlayOptions {
            start,
            bots,
            dice,
            recover,
        } = options;
        let set_up;
        let start = match start {
            Some(s) => s,
            None => {
                set_up = Game::new(self.rules, self.players())?;
                &set_up
            }
        };
        let mut fresh: Vec<Box<dyn Bot>>;
        let bots = match bots {
            Some(b) => b,
            None => {
                fresh = self.lineup.iter().map(BotSpec::build).collect();
                &mut fresh[..]
            }
        };
        let (deal, rotation) = self.locate(game);
        let seat = Seating {
            start,
            game,
            recover,
        };
        let (record, forfeit) = match dice {
            None => {
                self.play_rotated(seat, bots, &mut SeededDice::new(self.seed, deal), observer)?
            }
            Some(d) => self.play_rotated(seat, bots, d, observer)?,
        };
        Ok((
            Played {
                record,
                bot_at_seat: self.bot_at_seat(rotation),
            },
            forfeit,
        ))
    }

    /// Plays `game` with `bots` in lineup order on entry and return.
    fn play_rotated<D: Dice + ?Sized, O: Observer + ?Sized>(
        &self,
        how: Seating<'_>,
        bots: &mut [Box<dyn Bot>],
        dice: &mut D,
        observer: &mut O,
    ) -> Result<(GameRecord, Option<Forfeit>), RunError> {
        let (_, rotation) = self.locate(how.game);
        let turn = (rotation as usize) % bots.len().max(1);
        // bots[k] now plays the k-th seat: lineup entry (k + r) mod n.
        bots.rotate_left(turn);
        let result = self.play_seated(how, bots, dice, observer);
        bots.rotate_right(turn);
        result
    }

    /// Plays `game` with `bots[k]` in the k-th seat.
    fn play_seated<D: Dice + ?Sized, O: Observer + ?Sized>(
        &self,
        Seating {
            start,
            game,
            recover,
        }: Seating<'_>,
        bots: &mut [Box<dyn Bot>],
        dice: &mut D,
        observer: &mut O,
    ) -> Result<(GameRecord, Option<Forfeit>), RunError> {
        let (deal, rotation) = self.locate(game);
        // A fault that is not a forfeit: the job stops (or, for a bot the harness killed as the
        // job stops, is interrupted).
        let fail = |fault: Box<BotFault>, seat: Option<Seat>| match fault.kind {
            FaultKind::Stopped => RunError::Interrupted,
            _ => RunError::Bot {
                fault,
                game,
                seed: self.seed,
                deal,
                rotation,
                seat: seat.map(Seat::index),
            },
        };
        let mut forfeit: Option<Forfeit> = None;
        for (bot, &seat) in bots.iter_mut().zip(start.seats()) {
            if let Err(f) = bot.try_new_game(start, seat, bot_stream(self.seed, deal, seat), game) {
                if !recover || !f.kind.forfeits() {
                    return Err(fail(f, Some(seat)));
                }
                forfeit.get_or_insert(Forfeit { seat, fault: f });
            }
        }
        let record = match &forfeit {
            Some(f) => forfeited(start, f.seat, GameRecord::new(self.players())),
            None => match try_play_game(*start, bots, dice, observer) {
                Ok(record) => record,
                Err(PlayError::OutOfDice(e)) => return Err(RunError::OutOfDice(e)),
                Err(PlayError::Bot(b)) if recover && b.fault.kind.forfeits() => {
                    let record = forfeited(&b.game, b.seat, b.record);
                    forfeit = Some(Forfeit {
                        seat: b.seat,
                        fault: b.fault,
                    });
                    record
                }
                Err(PlayError::Bot(b)) => return Err(fail(b.fault, Some(b.seat))),
            },
        };
        for (bot, &seat) in bots.iter_mut().zip(start.seats()) {
            // A bot that fails here has played its game out; with `recover` its program is
            // restarted for the next one.
            if let Err(f) = bot.game_over(&record)
                && (!recover || f.kind == FaultKind::Stopped)
            {
                return Err(fail(f, Some(seat)));
            }
        }
        Ok((record, forfeit))
    }
}

/// How [`RunSpec::play`] plays a game beyond its index. The default plays it as a run does:
/// from the set-up of the rules, with fresh bots and the seeded dice of its deal, a failing
/// bot failing the game.
#[derive(Default)]
pub struct PlayOptions<'a> {
    /// The set-up position of the run to play from.
    pub start: Option<&'a Game>,
    /// The caller's bots, one per lineup entry in lineup order (as [`BotSpec::build`] makes
    /// them; they are re-seeded here, and in lineup order again on return).
    pub bots: Option<&'a mut [Box<dyn Bot>]>,
    /// Dice in place of the seeded ones of the game's deal (a scripted list: replay).
    pub dice: Option<&'a mut dyn Dice>,
    /// A failing bot forfeits the game instead of failing the run.
    pub recover: bool,
}

/// What the seating steps of [`RunSpec::play`] play: the position, the game and `recover`.
#[derive(Clone, Copy)]
struct Seating<'a> {
    start: &'a Game,
    game: u64,
    recover: bool,
}

/// Why a game was forfeited: the seat whose bot failed, and its fault.
#[derive(Debug)]
pub(crate) struct Forfeit {
    pub seat: Seat,
    pub fault: Box<BotFault>,
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
