//! The game record RULES.md defines: the outcome and the event counters of one game.

use serde::Serialize;

use crate::engine::board::{HANGAR, PLANES, Seat, step_label};
use crate::engine::game::{Action, Game, Outcome, Status};

/// Everything a finished (or stopped) game counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameRecord {
    /// Number of players.
    pub players: u8,
    /// The rank-1 seat, if any.
    pub winner: Option<Seat>,
    /// Rank of each seat (index = seat), 0 for none (not in play, or unranked).
    pub ranks: [u8; 4],
    /// Turns of all players together, the last one included.
    pub turns: u32,
    /// Every die roll, passes and a punished third six included.
    pub rolls: u32,
    /// Chosen moves, launches included.
    pub moves: u32,
    /// Launches.
    pub launches: u32,
    /// Opponent planes sent to a hangar by a move.
    pub captures: u32,
    /// Planes sent back by the three-sixes penalty.
    pub penalties: u32,
    /// Moves that took a jump.
    pub jumps: u32,
    /// Moves that took the flight.
    pub flights: u32,
    /// Moves that bounced at the centre.
    pub bounces: u32,
    /// Rolls with no legal move.
    pub passes: u32,
    /// The game hit `max_turns`.
    pub unfinished: bool,
    /// The seat whose bot failed and forfeited the game (runs with `recover` only).
    pub forfeit: Option<Seat>,
    /// Every plane's final step (index = seat), [`HANGAR`] for the hangar.
    pub final_steps: [[u8; PLANES]; 4],
}

impl GameRecord {
    /// An empty record for a game of `players`.
    pub fn new(players: usize) -> Self {
        GameRecord {
            players: players as u8,
            final_steps: [[HANGAR; PLANES]; 4],
            ..Default::default()
        }
    }

    /// Counts one applied roll.
    #[inline]
    pub fn count(&mut self, outcome: &Outcome) {
        self.rolls += 1;
        if outcome.new_turn {
            self.turns += 1;
        }
        match outcome.action {
            Action::Pass => self.passes += 1,
            Action::Penalty { planes } => self.penalties += planes.count_ones(),
            Action::Move(m) => {
                self.moves += 1;
                self.launches += u32::from(m.is_launch());
                self.captures += m.captures();
                self.jumps += u32::from(m.jumps());
                self.flights += u32::from(m.flies());
                self.bounces += u32::from(m.bounces());
            }
        }
    }

    /// Copies the outcome and final position from the game.
    pub fn close(&mut self, game: &Game) {
        self.unfinished = game.status() == Status::Unfinished;
        self.winner = game.winner();
        for s in Seat::ALL {
            self.ranks[s.index()] = game.rank(s).unwrap_or(0);
            if game.in_play(s) {
                self.final_steps[s.index()] = game.steps(s);
            }
        }
    }

    /// The record as plain serialisable data (steps as strings, `H` for the hangar).
    pub fn to_json_value(&self, game: &Game) -> RecordJson {
        let seats = game.seats();
        RecordJson {
            players: self.players,
            winner: self.winner.map(|s| s.index()),
            ranks: seats
                .iter()
                .map(|s| {
                    let r = self.ranks[s.index()];
                    SeatRank {
                        seat: s.index(),
                        colour: s.colour(),
                        rank: (r != 0).then_some(r),
                        steps: self.final_steps[s.index()]
                            .iter()
                            .map(|&x| step_label(x))
                            .collect(),
                    }
                })
                .collect(),
            turns: self.turns,
            rolls: self.rolls,
            moves: self.moves,
            launches: self.launches,
            captures: self.captures,
            penalties: self.penalties,
            jumps: self.jumps,
            flights: self.flights,
            bounces: self.bounces,
            passes: self.passes,
            unfinished: self.unfinished,
        }
    }
}

/// A seat's line of a JSON record.
#[derive(Debug, Serialize)]
pub struct SeatRank {
    /// Seat index.
    pub seat: usize,
    /// Colour name.
    pub colour: &'static str,
    /// Rank, if any.
    pub rank: Option<u8>,
    /// Final steps of the four planes; `H` for the hangar.
    pub steps: Vec<String>,
}

/// A game record in JSON form.
#[derive(Debug, Serialize)]
pub struct RecordJson {
    /// Number of players.
    pub players: u8,
    /// Winner seat.
    pub winner: Option<usize>,
    /// Per seat in play: rank and final steps.
    pub ranks: Vec<SeatRank>,
    /// See [`GameRecord`].
    pub turns: u32,
    /// See [`GameRecord`].
    pub rolls: u32,
    /// See [`GameRecord`].
    pub moves: u32,
    /// See [`GameRecord`].
    pub launches: u32,
    /// See [`GameRecord`].
    pub captures: u32,
    /// See [`GameRecord`].
    pub penalties: u32,
    /// See [`GameRecord`].
    pub jumps: u32,
    /// See [`GameRecord`].
    pub flights: u32,
    /// See [`GameRecord`].
    pub bounces: u32,
    /// See [`GameRecord`].
    pub passes: u32,
    /// See [`GameRecord`].
    pub unfinished: bool,
}
