//! Plays one game from a dice source and one bot per seat.

use std::fmt;

use crate::board::Seat;
use crate::bot::{Bot, BotFault};
use crate::counters::Counter;
use crate::dice::Dice;
use crate::game::{Game, Outcome};
use crate::moves::{Move, MoveList};
use crate::record::GameRecord;

/// Sees every roll as it is applied (for move logs); `()` sees nothing and costs nothing.
pub trait Observer {
    /// Called after each roll with the position before it and what it did.
    fn on_roll(&mut self, before: &Game, outcome: &Outcome);

    /// Called when a bot has chosen among two or more moves, before the move is applied (and
    /// before [`Observer::on_roll`] sees the roll): the position, the roll, the legal moves,
    /// the index chosen and the bot, which may report the values it gave the moves
    /// ([`Bot::move_values`]). The default does nothing.
    #[inline]
    fn on_choice(&mut self, game: &Game, roll: u8, moves: &[Move], chosen: usize, bot: &dyn Bot) {
        let _ = (game, roll, moves, chosen, bot);
    }

    /// Called once when the game stops (at its end, or when the dice ran out or a bot failed),
    /// with the position reached. The default does nothing.
    #[inline]
    fn on_end(&mut self, last: &Game) {
        let _ = last;
    }
}

impl Observer for () {
    #[inline]
    fn on_roll(&mut self, _before: &Game, _outcome: &Outcome) {}
}

/// The dice ran out before the game ended.
#[derive(Debug, Clone)]
pub struct OutOfDice {
    /// What was counted up to that point.
    pub record: GameRecord,
    /// The position reached.
    pub game: Game,
}

/// A bot failed during a game ([`Bot::try_choose`] returned an error).
#[derive(Debug, Clone)]
pub struct BotFailed {
    /// The seat of the bot that failed.
    pub seat: Seat,
    /// What went wrong.
    pub fault: Box<BotFault>,
    /// What was counted up to that point.
    pub record: GameRecord,
    /// The position reached (the failing bot's seat to move).
    pub game: Game,
}

/// Why [`try_play_game`] stopped before the end of the game.
#[derive(Debug, Clone)]
pub enum PlayError {
    /// The dice ran out.
    OutOfDice(Box<OutOfDice>),
    /// A bot failed.
    Bot(Box<BotFailed>),
}

impl fmt::Display for OutOfDice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the dice ran out after {} rolls, before the game ended",
            self.record.counters[Counter::Rolls]
        )
    }
}

impl std::error::Error for OutOfDice {}

impl fmt::Display for BotFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}: {}", self.seat, self.fault)
    }
}

impl std::error::Error for BotFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::OutOfDice(e) => e.fmt(f),
            PlayError::Bot(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PlayError {}

/// Plays `game` to its end. `bots[k]` plays the k-th seat in play (`game.seats()[k]`) and is
/// asked only when a roll offers two or more moves.
/// Each bot must already have had [`Bot::new_game`] called.
///
/// # Panics
/// If `bots.len()` differs from the number of players, a bot returns an index out of range, or
/// a bot fails ([`Bot::try_choose`] returns an error: use [`try_play_game`] for bots that can,
/// such as bot programs).
pub fn play_game<D, O>(
    game: Game,
    bots: &mut [Box<dyn Bot>],
    dice: &mut D,
    observer: &mut O,
) -> Result<GameRecord, Box<OutOfDice>>
where
    D: Dice + ?Sized,
    O: Observer + ?Sized,
{
    match play(game, bots, dice, observer) {
        Ok(record) => Ok(record),
        Err(PlayError::OutOfDice(e)) => Err(e),
        Err(PlayError::Bot(e)) => panic!("{e} (play bots that can fail with try_play_game)"),
    }
}

/// [`play_game`] for bots that can fail: a bot's error stops the game and is returned with the
/// record and position so far.
///
/// # Panics
/// If `bots.len()` differs from the number of players, or a bot returns an index out of range.
pub fn try_play_game<D, O>(
    game: Game,
    bots: &mut [Box<dyn Bot>],
    dice: &mut D,
    observer: &mut O,
) -> Result<GameRecord, PlayError>
where
    D: Dice + ?Sized,
    O: Observer + ?Sized,
{
    play(game, bots, dice, observer)
}

#[inline(always)]
fn play<D, O>(
    mut game: Game,
    bots: &mut [Box<dyn Bot>],
    dice: &mut D,
    observer: &mut O,
) -> Result<GameRecord, PlayError>
where
    D: Dice + ?Sized,
    O: Observer + ?Sized,
{
    assert_eq!(bots.len(), game.players(), "one bot per player");
    let mut slot = [0usize; 4];
    for (k, s) in game.seats().iter().enumerate() {
        slot[s.index()] = k;
    }
    let mut record = GameRecord::new(game.players());
    let mut moves = MoveList::default();
    while !game.is_over() {
        let seat = game.to_move();
        let Some(roll) = dice.roll(seat) else {
            record.close(&game);
            observer.on_end(&game);
            return Err(PlayError::OutOfDice(Box::new(OutOfDice { record, game })));
        };
        game.legal_moves_inlined(roll, &mut moves);
        let choice = if moves.len() <= 1 {
            // No choice to make: a pass, or the only legal move.
            moves.first().copied()
        } else {
            let bot = &mut bots[slot[seat.index()]];
            match bot.try_choose(&game, roll, &moves) {
                Ok(k) => {
                    let chosen = moves[k];
                    observer.on_choice(&game, roll, &moves, k, &**bot);
                    Some(chosen)
                }
                Err(fault) => {
                    record.close(&game);
                    observer.on_end(&game);
                    return Err(PlayError::Bot(Box::new(BotFailed {
                        seat,
                        fault,
                        record,
                        game,
                    })));
                }
            }
        };
        let before = game;
        let outcome = game.apply_inlined(roll, choice);
        record.count(&outcome);
        observer.on_roll(&before, &outcome);
    }
    record.close(&game);
    observer.on_end(&game);
    Ok(record)
}
