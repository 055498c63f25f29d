//! Why a position is refused: [`SetupError`], shared by [`Game::new`](crate::Game::new), the
//! [`Setup`](crate::Setup) checks and the notation reader. A leaf module: it uses no other.

use std::fmt;

/// What is wrong with a plane's step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepProblem {
    /// Beyond the centre.
    PastCentre,
    /// A step no move ends on under these rules (a plane landing there jumps or flies on).
    Unreachable,
    /// A plane slot beyond `planes`: it is not in the game and holds [`HANGAR`](crate::HANGAR).
    NotInGame,
}

/// Why a [`Setup`](crate::Setup) is not a position of the game. Each variant names the field at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SetupError {
    /// `players` is outside 2..=4.
    Players(usize),
    /// `planes` differs from the rules' `planes`.
    Planes {
        /// The setup's.
        given: u8,
        /// The rules'.
        rules: u8,
    },
    /// A seat not in play has a plane out of its hangar or a rank, or is `to_move`.
    NotInPlay {
        /// The seat.
        seat: usize,
        /// The field: `steps`, `ranks` or `to_move`.
        field: &'static str,
    },
    /// A plane's step is not one it can stand on.
    Step {
        /// The seat.
        seat: usize,
        /// The plane slot.
        plane: usize,
        /// The step given.
        step: u8,
        /// What is wrong with it.
        why: StepProblem,
    },
    /// Planes of two seats on one ring cell (the later arrival would have captured).
    SharedCell {
        /// The two seats.
        seats: (usize, usize),
        /// The ring cell.
        cell: u8,
    },
    /// The ranks do not fit the planes home and the end rule.
    Ranks {
        /// Which condition fails.
        why: &'static str,
    },
    /// `to_move`, `sixes`, `moved_this_turn`, `moved_last` or `turns` contradict each other
    /// or the position.
    Turn {
        /// Which condition fails.
        why: &'static str,
    },
    /// `turns` beyond `max_turns`.
    Turns {
        /// The turns given.
        turns: u32,
        /// The rules' cap.
        max_turns: u32,
    },
    /// `roll` is not a roll waiting for a decision.
    Roll {
        /// The roll given.
        roll: u8,
        /// Why not.
        why: &'static str,
    },
    /// The position's text could not be read.
    Notation {
        /// The field of the notation (`planes`, `to_move`, ...).
        field: &'static str,
        /// What is wrong, quoting the text.
        why: String,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Players(n) => write!(f, "{n} players: a game has 2, 3 or 4 players"),
            SetupError::Planes { given, rules } => write!(
                f,
                "`planes`: {given} planes per seat, but the rules have {rules}"
            ),
            SetupError::NotInPlay { seat, field } => {
                write!(f, "`{field}`: seat {seat} is not in play")?;
                if *field == "steps" {
                    write!(f, " (its planes stay in the hangar)")?;
                }
                Ok(())
            }
            SetupError::Step {
                seat,
                plane,
                step,
                why,
            } => {
                write!(f, "`steps`: plane {plane} of seat {seat} at step {step}: ")?;
                f.write_str(match why {
                    StepProblem::PastCentre => "past the centre",
                    StepProblem::Unreachable => {
                        "no move ends there under these rules (a plane landing there jumps or flies on)"
                    }
                    StepProblem::NotInGame => {
                        "this slot is beyond `planes`: it is not in the game and holds the hangar value 255"
                    }
                })
            }
            SetupError::SharedCell { seats, cell } => write!(
                f,
                "`steps`: seats {} and {} share ring cell {cell} (a plane landing on opponents captures them)",
                seats.0, seats.1
            ),
            SetupError::Ranks { why } => write!(f, "`ranks`: {why}"),
            SetupError::Turn { why } => write!(f, "turn state: {why}"),
            SetupError::Turns { turns, max_turns } => {
                write!(f, "`turns`: {turns} is past max_turns {max_turns}")
            }
            SetupError::Roll { roll, why } => write!(f, "`roll` {roll}: {why}"),
            SetupError::Notation { field, why } => write!(f, "position notation, {field}: {why}"),
        }
    }
}

impl std::error::Error for SetupError {}
