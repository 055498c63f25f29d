//! Positions as plain data: [`Setup`] holds everything a position is, with public fields, and
//! becomes a [`Game`] only through [`Setup::into_game`], which checks that it is a consistent
//! position that play can reach under the given rules (the shakmaty `Setup` -> `Position`
//! pattern). [`Setup::from`] a game gives it back.

use crate::board::{HANGAR, PLANES, Seat, TAKE_OFF};
use crate::chain;
use crate::game::{Game, Status};
use crate::moves::flag;
use crate::rules::{End, Rules, Stacking, ThreeSixes};
use crate::setup_error::{SetupError, StepProblem};

/// A position as plain data. Every field is public; nothing is checked until
/// [`Setup::into_game`].
///
/// Plane slots: each seat has four; the slots from `planes` on are not in the game and hold
/// [`HANGAR`], as every slot of a seat not in play does.
/// Stacks are not stored: under `stacking = move_together` the planes of one seat on one step
/// are one stack.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Setup {
    /// Number of players, 2..=4 (2: seats 0 and 2; 3: seats 0, 1, 2; 4: all).
    pub players: u8,
    /// Planes per seat, as the rules say ([`Rules::planes`]).
    pub planes: u8,
    /// Every plane's step, `steps[seat][plane]`: [`HANGAR`] (255) for the hangar, 0 for the
    /// take-off cell, 1..=50 on the ring, then the home lane, and the centre
    /// ([`Rules::centre`]).
    pub steps: [[u8; PLANES]; 4],
    /// The seat to roll (or, at a decision node, to choose a move for `roll`). In a finished
    /// game, the seat that moved last.
    pub to_move: Seat,
    /// The roll made at a decision node of the state API, waiting for the seat's action.
    pub roll: Option<u8>,
    /// Sixes rolled in a row so far in the current turn (0 at the start of a turn).
    pub sixes: u8,
    /// Bit set of the planes of the seat to move that moved earlier in this turn (bit `i` for
    /// plane `i`).
    pub moved_this_turn: u8,
    /// Bit set of the planes the latest move of this turn moved.
    pub moved_last: u8,
    /// Each seat's rank (1 is the winner), 0 for none yet.
    pub ranks: [u8; 4],
    /// Turns begun so far (all players together).
    pub turns: u32,
}

impl Setup {
    /// The starting position of a game of `players` under `rules`.
    pub fn start(rules: &Rules, players: usize) -> Result<Setup, SetupError> {
        Game::new(*rules, players).map(|g| Setup::from(&g))
    }

    /// Checks the position against `rules` and builds the game. Every check names the field
    /// at fault; see [`SetupError`].
    pub fn into_game(&self, rules: Rules) -> Result<Game, SetupError> {
        let players = usize::from(self.players);
        let mut game = Game::new(rules, players)?;
        let centre = rules.centre();
        let planes = usize::from(rules.planes());
        if self.planes != rules.planes() {
            return Err(SetupError::Planes {
                given: self.planes,
                rules: rules.planes(),
            });
        }
        let resting = resting_steps(&rules);
        for seat in Seat::ALL {
            let i = seat.index();
            let steps = self.steps[i];
            if !game.in_play(seat) {
                if steps != [HANGAR; PLANES] {
                    return Err(SetupError::NotInPlay {
                        seat: i,
                        field: "steps",
                    });
                }
                if self.ranks[i] != 0 {
                    return Err(SetupError::NotInPlay {
                        seat: i,
                        field: "ranks",
                    });
                }
                continue;
            }
            for (plane, &step) in steps.iter().enumerate() {
                let why = if plane >= planes {
                    (step != HANGAR).then_some(StepProblem::NotInGame)
                } else if step == HANGAR {
                    None
                } else if step > centre {
                    Some(StepProblem::PastCentre)
                } else if resting & (1 << step) == 0 {
                    Some(StepProblem::Unreachable)
                } else {
                    None
                };
                if let Some(why) = why {
                    return Err(SetupError::Step {
                        seat: i,
                        plane,
                        step,
                        why,
                    });
                }
            }
            game.steps[i][..planes].copy_from_slice(&steps[..planes]);
            game.refresh_occupied(i);
        }
        for a in game.seats() {
            for b in game.seats() {
                let shared = game.occupied[a.index()] & game.occupied[b.index()];
                if a < b && shared != 0 {
                    return Err(SetupError::SharedCell {
                        seats: (a.index(), b.index()),
                        cell: shared.trailing_zeros() as u8,
                    });
                }
            }
        }
        self.check_ranks(&mut game)?;
        self.check_turn(&mut game)?;
        Ok(game)
    }

    /// Ranks and the end of the game: ranked seats are exactly the finished ones (plus, when
    /// the game ends with one seat left, that seat, last), ranked 1, 2, ... in some order.
    fn check_ranks(&self, game: &mut Game) -> Result<(), SetupError> {
        let centre = game.rules.centre();
        let mut finished = 0u8;
        for &seat in game.seats() {
            if game.steps[seat.index()] == [centre; PLANES] {
                finished |= 1 << seat.index();
            }
        }
        let count = finished.count_ones() as u8;
        let left = game.in_play & !finished;
        let over = match game.rules.end {
            End::FirstFinisher => count >= 1,
            End::FullRanking => left.count_ones() <= 1,
        };
        let bad = |why: &'static str| Err(SetupError::Ranks { why });
        if game.rules.end == End::FirstFinisher && count > 1 {
            return bad("with end = first_finisher the game ends when the first seat finishes");
        }
        let mut seen = 0u8;
        for &seat in game.seats() {
            let rank = self.ranks[seat.index()];
            let done = finished & (1 << seat.index()) != 0;
            // When the game ends with one seat left (any end rule), that seat is ranked last.
            let last = over && !done && left.count_ones() == 1;
            if done {
                if rank == 0 || rank > count || seen & (1 << rank) != 0 {
                    return bad(
                        "the seats with every plane home must be ranked 1, 2, ... once each",
                    );
                }
                seen |= 1 << rank;
            } else if last {
                if rank != game.players {
                    return bad(
                        "when a game ends with one seat left, that seat is ranked last (the number of players)",
                    );
                }
            } else if rank != 0 {
                return bad("a seat with planes still to bring home has no rank");
            }
            game.ranks[seat.index()] = rank;
        }
        game.finished = finished;
        if over {
            game.status = Status::Finished;
        }
        Ok(())
    }

    /// The seat to move, the roll, the six streak, the planes moved this turn and the turn
    /// count, against each other and against the position.
    fn check_turn(&self, game: &mut Game) -> Result<(), SetupError> {
        let rules = game.rules;
        let seat = self.to_move;
        if !game.in_play(seat) {
            return Err(SetupError::NotInPlay {
                seat: seat.index(),
                field: "to_move",
            });
        }
        let over = game.status == Status::Finished;
        let turn = |why: &'static str| Err(SetupError::Turn { why });
        if !over && game.has_finished(seat) {
            return turn("`to_move` is a seat that has finished");
        }
        if self.turns > rules.max_turns {
            return Err(SetupError::Turns {
                turns: self.turns,
                max_turns: rules.max_turns,
            });
        }
        let mid_turn = self.sixes > 0;
        let boundary = !mid_turn && self.roll.is_none();
        if (over || (boundary && self.turns >= rules.max_turns))
            && (mid_turn || self.roll.is_some())
        {
            return turn("a game that is over has no turn in progress and no roll");
        }
        if rules.three_sixes != ThreeSixes::None && self.sixes > 2 {
            return turn("`sixes` is at most 2: the third six in a row is punished at once");
        }
        let own = (1u8 << rules.planes) - 1;
        let (all, last) = (self.moved_this_turn, self.moved_last);
        if all & !own != 0 || last & !all != 0 || (all == 0) != (last == 0) {
            return turn(
                "`moved_last` must be planes of `moved_this_turn`, both empty or both not, and planes in the game",
            );
        }
        if !mid_turn && all != 0 {
            return turn("planes moved this turn need a six streak: `sixes` is 0");
        }
        let steps = game.steps[seat.index()];
        let moved_steps = (0..PLANES)
            .filter(|&p| all & (1 << p) != 0)
            .map(|p| steps[p]);
        if moved_steps.clone().any(|s| s == HANGAR) {
            return turn("a plane moved this turn cannot be in the hangar");
        }
        let mut last_steps = (0..PLANES)
            .filter(|&p| last & (1 << p) != 0)
            .map(|p| steps[p]);
        let first = last_steps.next();
        if last_steps.any(|s| Some(s) != first)
            || (rules.stacking == Stacking::None && last.count_ones() > 1)
        {
            return turn(
                "the planes of the latest move stand together (one plane unless stacking)",
            );
        }
        if self.turns == 0 {
            let start = Game::new(rules, game.players())?;
            if game.steps != start.steps || mid_turn || seat != Seat::ALL[0] {
                return turn(
                    "turn 0 is the starting position: seat 0 to roll, every plane in its hangar",
                );
            }
        }
        game.to_move = seat;
        game.sixes = self.sixes;
        game.rolls_in_turn = self.sixes;
        game.moved_turn = all;
        game.moved_last = last;
        game.turns = self.turns;
        if !over && boundary && self.turns >= rules.max_turns {
            game.status = Status::Unfinished;
        }
        if let Some(roll) = self.roll {
            if !(1..=6).contains(&roll) {
                return Err(SetupError::Roll {
                    roll,
                    why: "not a die face (1..=6)",
                });
            }
            if game.legal_moves(roll).is_empty() {
                return Err(SetupError::Roll {
                    roll,
                    why: "it offers no move, so it would have been played (a pass or a penalty) at once",
                });
            }
            game.roll = roll;
        }
        Ok(())
    }
}

impl From<&Game> for Setup {
    fn from(game: &Game) -> Setup {
        let mut steps = game.steps;
        for seat in &mut steps {
            seat[usize::from(game.rules.planes)..].fill(HANGAR);
        }
        Setup {
            players: game.players,
            planes: game.rules.planes,
            steps,
            to_move: game.to_move,
            roll: (game.roll != 0).then_some(game.roll),
            sixes: game.sixes,
            moved_this_turn: game.moved_turn,
            moved_last: game.moved_last,
            ranks: game.ranks,
            turns: game.turns,
        }
    }
}

impl From<Game> for Setup {
    fn from(game: Game) -> Setup {
        Setup::from(&game)
    }
}

/// The steps a plane can stand on under `rules`, as a bit set: the take-off cell and every
/// step a move can end on (a plane never stops where a jump or a compulsory flight starts).
pub(crate) fn resting_steps(rules: &Rules) -> u64 {
    let chains = chain::table(rules.specials, rules.flight_optional);
    let mut set = 1u64 << TAKE_OFF;
    for t in 1..=rules.centre() as usize {
        set |= 1 << chains.go[t].to;
        if chains.go[t].flags & flag::CHOICE != 0 {
            set |= 1 << chains.stay[t].to;
        }
    }
    set
}
