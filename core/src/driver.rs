//! Plays one game from a dice source and one bot per seat.

use std::fmt;

use crate::board::Seat;
use crate::bot::{Bot, BotFault, Inline};
use crate::counters::Counter;
use crate::dice::Dice;
use crate::game::{Game, Outcome};
use crate::kernel::{Kernel, with_kernel};
use crate::moves::{Move, MoveList};
use crate::record::{GameRecord, Tape};

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

    /// Whether [`Observer::on_choice`] must see every choice. Then every seat's bot is asked
    /// through the list of moves, built-in bots too (which the driver otherwise plays inline,
    /// without a list): the same moves, more slowly. The default is `false`.
    #[inline]
    fn sees_choices(&self) -> bool {
        false
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

/// Picks the kernel for the game's rules once, then plays the game with it.
#[inline(always)]
fn play<D, O>(
    game: Game,
    bots: &mut [Box<dyn Bot>],
    dice: &mut D,
    observer: &mut O,
) -> Result<GameRecord, PlayError>
where
    D: Dice + ?Sized,
    O: Observer + ?Sized,
{
    with_kernel!(game.rules(), K => play_as::<K, D, O>(game, bots, dice, observer))
}

/// Who chooses for one seat in the driver's loop.
enum Chooser<'a> {
    /// [`Game::greedy_move`]: no list, no call through the trait.
    Greedy,
    /// [`Game::random_move`] with the bot's generator: likewise.
    Random(&'a mut rand_pcg::Pcg32),
    /// The bot, asked through the trait with the list of moves when it holds two or more.
    Ask(usize),
}

/// The game loop under kernel `K`: roll for the seat to move, find its move, apply, count.
///
/// A seat whose bot plays a built-in strategy ([`Bot::inline`]) gets its move from that
/// strategy's list-free generator, without a call through the trait (static dispatch); every
/// other seat gets the list of legal moves and is asked when it holds two or more. Counting
/// goes to a [`Tape`] (one increment per roll).
pub(crate) fn play_as<K: Kernel, D, O>(
    game: Game,
    bots: &mut [Box<dyn Bot>],
    dice: &mut D,
    observer: &mut O,
) -> Result<GameRecord, PlayError>
where
    D: Dice + ?Sized,
    O: Observer + ?Sized,
{
    assert_eq!(bots.len(), game.players(), "one bot per player");
    let sees_choices = observer.sees_choices();
    let mut asked: [Option<&mut Box<dyn Bot>>; 4] = [None, None, None, None];
    let mut choosers = [const { None }; 4];
    for ((k, bot), &seat) in bots.iter_mut().enumerate().zip(game.seats()) {
        choosers[seat.index()] = Some(if sees_choices || bot.inline().is_none() {
            asked[k] = Some(bot);
            Chooser::Ask(k)
        } else {
            match bot.inline() {
                Some(Inline::Random(rng)) => Chooser::Random(rng),
                _ => Chooser::Greedy,
            }
        });
    }
    let all_greedy = choosers
        .iter()
        .all(|c| matches!(c, None | Some(Chooser::Greedy)));
    // All greedy (the commonest benchmark): a loop without the per-roll choice of chooser.
    if all_greedy {
        play_loop::<K, D, O, true>(game, &mut choosers, &mut asked, dice, observer)
    } else {
        play_loop::<K, D, O, false>(game, &mut choosers, &mut asked, dice, observer)
    }
}

/// The loop of [`play_as`]; `ALL_GREEDY` when every seat's chooser is greedy.
#[inline(always)]
fn play_loop<K: Kernel, D, O, const ALL_GREEDY: bool>(
    mut game: Game,
    choosers: &mut [Option<Chooser<'_>>; 4],
    asked: &mut [Option<&mut Box<dyn Bot>>; 4],
    dice: &mut D,
    observer: &mut O,
) -> Result<GameRecord, PlayError>
where
    D: Dice + ?Sized,
    O: Observer + ?Sized,
{
    let mut tape = Tape::new(&game);
    let mut moves = MoveList::default();
    while !game.is_over() {
        let seat = game.to_move();
        let Some(roll) = dice.roll(seat) else {
            let record = tape.record(&game);
            observer.on_end(&game);
            return Err(PlayError::OutOfDice(Box::new(OutOfDice { record, game })));
        };
        let chooser = if ALL_GREEDY {
            &mut Chooser::Greedy
        } else {
            choosers[seat.index()].as_mut().expect("a seat in play")
        };
        let choice = match chooser {
            Chooser::Greedy => game.greedy_move::<K>(roll),
            Chooser::Random(rng) => game.random_move::<K>(roll, rng),
            Chooser::Ask(k) => {
                game.moves_into::<K>(roll, &mut moves);
                if moves.len() <= 1 {
                    // No choice to make: a pass, or the only legal move.
                    moves.first().copied()
                } else {
                    let bot: &mut Box<dyn Bot> = asked[*k].as_mut().expect("an asked seat");
                    match bot.try_choose(&game, roll, &moves) {
                        Ok(k) => {
                            observer.on_choice(&game, roll, &moves, k, &**bot);
                            Some(moves[k])
                        }
                        Err(fault) => {
                            let record = tape.record(&game);
                            observer.on_end(&game);
                            return Err(PlayError::Bot(Box::new(BotFailed {
                                seat,
                                fault,
                                record,
                                game,
                            })));
                        }
                    }
                }
            }
        };
        let before = game;
        let outcome = game.apply_as::<K>(roll, choice);
        tape.count(&outcome, choice);
        observer.on_roll(&before, &outcome);
    }
    let record = tape.record(&game);
    observer.on_end(&game);
    Ok(record)
}
