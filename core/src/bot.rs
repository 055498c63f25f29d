//! The strategy trait every bot implements, and the fault a bot that can fail reports.

use std::fmt;

use rand_pcg::Pcg32;

use crate::board::Seat;
use crate::game::Game;
use crate::moves::Move;
use crate::record::GameRecord;

/// A strategy that picks one legal move. One value plays one seat of one game at a time; the
/// runner builds one per worker and seat and calls [`Bot::new_game`] before every game.
///
/// The interface is deliberately small and data-only (a position, a roll, the legal moves, an
/// index back) so that an out-of-process bot speaking a line protocol can implement it too
/// (the `aeroplane` crate's `ExternalBot`). A bot implements `choose` (and `new_game` if it has per-game
/// state); bots that can fail (a program that crashes or hangs) also implement the `try_*`
/// forms, which the runner calls, and return a [`BotFault`] instead of panicking.
pub trait Bot: Send {
    /// The bot's display name (its profile name).
    fn name(&self) -> &str;

    /// Called before each game with the bot's seat and its own random seed, independent of the
    /// dice. Bots without randomness or per-game state ignore it.
    fn new_game(&mut self, seat: Seat, seed: u64) {
        let _ = (seat, seed);
    }

    /// Picks one of `moves` (never empty; the driver asks only when there are two or more) for
    /// `roll` in `game`, where the bot's seat is to move;
    /// returns its index into `moves`.
    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize;

    /// A built-in strategy that this bot's choices are exactly, for the game driver to play
    /// itself: [`Inline::Greedy`] for a bot whose `choose` is `Greedy::pick(moves)` and that
    /// keeps no state, [`Inline::Random`] for one whose `choose` is `below(rng, moves.len())`
    /// (nothing drawn for a single move) with the generator it hands over. The driver then
    /// finds the move with a generator that builds no list, and calls nothing through the
    /// trait (static dispatch). [`Greedy`](crate::Greedy) and
    /// [`RandomBot`](crate::RandomBot) say so; the default is `None` (ask `choose`).
    fn inline(&mut self) -> Option<Inline<'_>> {
        None
    }

    /// The fallible form of [`Bot::new_game`] that the runner calls: `start` is the starting
    /// position (rules, players) and `game_index` the game's index in the run. A bot that can
    /// fail (a bot in another process) overrides it; the default calls `new_game`.
    fn try_new_game(
        &mut self,
        start: &Game,
        seat: Seat,
        seed: u64,
        game_index: u64,
    ) -> Result<(), Box<BotFault>> {
        let _ = (start, game_index);
        self.new_game(seat, seed);
        Ok(())
    }

    /// The fallible form of [`Bot::choose`] that the driver calls; the default calls `choose`.
    /// An error stops the game ([`crate::try_play_game`] returns it).
    #[inline]
    fn try_choose(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
    ) -> Result<usize, Box<BotFault>> {
        Ok(self.choose(game, roll, moves))
    }

    /// The values this bot gave the moves at its latest [`Bot::choose`], one per move in the
    /// order it was given them, from its own seat's point of view (higher is better): a search
    /// bot's estimate of each move (its root values). `None` for bots that do not estimate
    /// (the default), and before any choice. A value the search never got to (an unvisited
    /// MCTS child) is NaN. Asking never changes what the bot chooses, and a bot keeps them
    /// whether or not anyone asks, at the cost of a few stores per decision.
    fn move_values(&self) -> Option<&[f32]> {
        None
    }

    /// The generator the bot draws its random numbers from, for a bot whose choices depend on
    /// nothing else that changes from one choice to the next: a caller can keep a copy and put
    /// it back later (a snapshot of a game in progress), and the bot then chooses again what it
    /// chose from there. `None` (the default) for a bot that draws none.
    fn generator(&mut self) -> Option<&mut Pcg32> {
        None
    }

    /// Called by the runner after each game the bot played, with its record. The default does
    /// nothing.
    fn game_over(&mut self, record: &GameRecord) -> Result<(), Box<BotFault>> {
        let _ = record;
        Ok(())
    }
}

/// A built-in strategy the game driver plays itself (see [`Bot::inline`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum Inline<'a> {
    /// [`Greedy`](crate::Greedy)'s choices.
    Greedy,
    /// [`RandomBot`](crate::RandomBot)'s choices, drawn from this generator.
    Random(&'a mut Pcg32),
}

/// Why a bot could not go on: it failed to start, crashed, hung, or answered something that is
/// not a legal choice. Names the bot and, for a program, its command and the offending line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotFault {
    /// The bot's display name.
    pub bot: String,
    /// The command line of a bot program.
    pub command: Option<String>,
    /// What went wrong.
    pub what: String,
    /// The line the bot printed that was wrong, if any.
    pub line: Option<String>,
    /// What kind of failure it is: whether a game can be forfeited for it.
    pub kind: FaultKind,
    /// Where the program's stderr went, or its last lines (not part of what is recorded of a
    /// forfeit: it differs from run to run).
    pub stderr: Option<String>,
}

impl fmt::Display for BotFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bot `{}`", self.bot)?;
        if let Some(c) = &self.command {
            write!(f, " (command: {c})")?;
        }
        write!(f, ": {}", self.what)?;
        if let Some(l) = &self.line {
            write!(f, "; offending line: {l:?}")?;
        }
        if let Some(s) = &self.stderr {
            write!(f, "; {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BotFault {}

/// What kind of failure a [`BotFault`] is. A game is forfeited (by a runner told to recover)
/// only for the faults of a bot that was playing; a bot that cannot start, or speaks another
/// protocol version, is an error, and a bot killed because the job is stopping is an
/// interruption.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum FaultKind {
    /// The program did not start, or did not complete its handshake.
    Start,
    /// The program speaks another protocol version.
    Version,
    /// The program ended, or closed its stdout, during the game.
    Crash,
    /// No answer (or its stdin not read) within the timeout.
    Timeout,
    /// A line that is not a protocol message.
    Garbage,
    /// A move that is not legal (or not a move at all) where a move was asked for.
    IllegalMove,
    /// The bot answered with an `error` message.
    BotError,
    /// Another failure of the pipes to the program.
    Pipe,
    /// The harness killed the program because the job is stopping.
    Stopped,
    /// Any other failure (a bot of another kind).
    Other,
}

impl FaultKind {
    /// Every kind, in order.
    pub const ALL: [FaultKind; 10] = [
        FaultKind::Start,
        FaultKind::Version,
        FaultKind::Crash,
        FaultKind::Timeout,
        FaultKind::Garbage,
        FaultKind::IllegalMove,
        FaultKind::BotError,
        FaultKind::Pipe,
        FaultKind::Stopped,
        FaultKind::Other,
    ];

    /// The kind as one word (`crash`, `timeout`, ...), as files write it.
    pub fn word(self) -> &'static str {
        match self {
            FaultKind::Start => "start",
            FaultKind::Version => "version",
            FaultKind::Crash => "crash",
            FaultKind::Timeout => "timeout",
            FaultKind::Garbage => "garbage",
            FaultKind::IllegalMove => "illegal_move",
            FaultKind::BotError => "bot_error",
            FaultKind::Pipe => "pipe",
            FaultKind::Stopped => "stopped",
            FaultKind::Other => "other",
        }
    }

    /// Whether a game can be forfeited for it: not for a bot that never started or speaks
    /// another version (an error in the setup, not a result), nor for one the harness stopped.
    pub fn forfeits(self) -> bool {
        !matches!(
            self,
            FaultKind::Start | FaultKind::Version | FaultKind::Stopped
        )
    }
}
