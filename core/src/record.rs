//! The game record RULES.md defines: the outcome and the event counters of one game.

use crate::board::{HANGAR, PLANES, Seat};
use crate::counters::{Counter, Counters};
use crate::game::{Action, Game, Outcome, Status};

/// Everything a finished (or stopped) game counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameRecord {
    /// Number of players.
    pub players: u8,
    /// The rank-1 seat, if any.
    pub winner: Option<Seat>,
    /// Rank of each seat (index = seat), 0 for none (not in play, or unranked).
    pub ranks: [u8; 4],
    /// The event counters (turns, rolls, moves, ...).
    pub counters: Counters,
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
        let c = &mut self.counters;
        c.add(Counter::Rolls, 1);
        if outcome.new_turn {
            c.add(Counter::Turns, 1);
        }
        match outcome.action {
            Action::Pass => c.add(Counter::Passes, 1),
            Action::Penalty { planes } => c.add(Counter::Penalties, planes.count_ones()),
            Action::Move(m) => {
                c.add(Counter::Moves, 1);
                c.add(Counter::Launches, u32::from(m.is_launch()));
                c.add(Counter::Captures, m.captures());
                c.add(Counter::Jumps, u32::from(m.jumps()));
                c.add(Counter::Flights, u32::from(m.flies()));
                c.add(Counter::Bounces, u32::from(m.bounces()));
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

    /// The record as plain serialisable data (steps as numbers, [`HANGAR_JSON`] (-1) for the
    /// hangar).
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
                            .map(|&x| step_json(x))
                            .collect(),
                    }
                })
                .collect(),
            counters: self.counters,
            unfinished: self.unfinished,
        }
    }
}

/// A plane in the hangar as a JSON step: -1 (every board step is 0 or more).
pub const HANGAR_JSON: i16 = -1;

/// A step as a JSON number: the step itself, or [`HANGAR_JSON`] for the hangar.
pub fn step_json(s: u8) -> i16 {
    if s == HANGAR {
        HANGAR_JSON
    } else {
        i16::from(s)
    }
}

/// A seat's line of a JSON record.
#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SeatRank {
    /// Seat index.
    pub seat: usize,
    /// Colour name.
    pub colour: &'static str,
    /// Rank, if any.
    pub rank: Option<u8>,
    /// Final steps of the four planes; [`HANGAR_JSON`] (-1) for the hangar.
    pub steps: Vec<i16>,
}

/// A game record in JSON form.
#[derive(Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RecordJson {
    /// Number of players.
    pub players: u8,
    /// Winner seat.
    pub winner: Option<usize>,
    /// Per seat in play: rank and final steps.
    pub ranks: Vec<SeatRank>,
    /// Every counter, as one field each (`"turns": 12, ...`).
    #[cfg_attr(feature = "serde", serde(flatten))]
    pub counters: Counters,
    /// See [`GameRecord`].
    pub unfinished: bool,
}
