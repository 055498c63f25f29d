//! The state API in the shape of OpenSpiel's: the die roll is part of the state, so a position
//! is either a *chance node* (the die is to be rolled: [`Game::chance_outcomes`],
//! [`Game::apply_roll`]), a *decision node* (the seat to move chooses one of
//! [`Game::legal_actions`] for the roll made: [`Game::apply_action`]), or *terminal*.
//!
//! | OpenSpiel                 | here                                        |
//! |---------------------------|---------------------------------------------|
//! | `current_player()`        | [`Game::current_player`] ([`Player`])       |
//! | `is_chance_node()`        | [`Game::is_chance_node`]                    |
//! | `chance_outcomes()`       | [`Game::chance_outcomes`]                   |
//! | `apply_action(outcome)` at a chance node | [`Game::apply_roll`]         |
//! | `legal_actions()`         | [`Game::legal_actions`] ([`ActionId`]s, ascending) |
//! | `legal_actions_mask()`    | [`Game::legal_actions_mask`]                |
//! | `apply_action(action)`    | [`Game::apply_action`]                      |
//! | `action_to_string()`      | [`Game::action_to_string`]                  |
//! | `returns()`               | [`Game::returns`]                           |
//! | `observation_tensor(p)`   | [`Game::observation`] (see [`crate::observation`]) |
//! | `observation_string(p)`   | [`Game::observation_string`]                |
//! | `is_terminal()`           | [`Game::is_terminal`]                       |
//!
//! **Action ids.** An action is a plane: id `p` (0..=3) moves plane `p` (launches it from the
//! hangar, or moves it, or its stack, by the roll, flying where the flight is taken); id `4 + p`
//! moves plane `p` onto the flight cell and *stays* there (declining an optional flight, only
//! under `flight_optional`). Where several planes of a seat share a step (or the hangar) they
//! make one move, and its id is the lowest-numbered of them. So ids are stable (the same id
//! always means the same plane) and there are [`NUM_ACTIONS`] = 8 of them.
//!
//! **Rolls without a choice.** A roll that offers no move (a pass, or a punished third six) is
//! played at once by [`Game::apply_roll`], so a decision node always has at least one action; a
//! roll with exactly one move is a decision node with one action, as in OpenSpiel.
//!
//! **Returns.** Zero until the game is over. At the end each seat in play gets a value from its
//! rank: rank `r` of `n` players is worth `(n + 1 - 2r) / (n - 1)` (1 for the winner, -1 for the
//! last; 4 players: 1, 1/3, -1/3, -1). Seats without a rank at the end (every seat but the winner
//! under `end = first_finisher`, or every seat of a game stopped by `max_turns`) share equally
//! the values of the ranks left, so the returns always sum to zero: under `first_finisher` the
//! winner gets 1 and the others `-1/(n-1)` each; a game stopped by `max_turns` before anyone
//! finished gives 0 to all. Seats not in play get 0.

use std::fmt;

use crate::board::{PLANES, Seat};
use crate::game::{Game, IllegalMove, Outcome};
use crate::moves::{Move, MoveList};

/// How many action ids there are: a plane (0..=3), or a plane that stays on the flight cell
/// (4..=7).
pub const NUM_ACTIONS: usize = 2 * PLANES;

/// An action id: which plane moves, and whether it declines an optional flight (see the
/// module documentation). Only values below [`NUM_ACTIONS`] exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(transparent))]
pub struct ActionId(u8);

impl ActionId {
    /// The id with this number, if it is one.
    pub const fn new(id: u32) -> Option<ActionId> {
        if (id as usize) < NUM_ACTIONS {
            Some(ActionId(id as u8))
        } else {
            None
        }
    }
    /// The id's number, 0..[`NUM_ACTIONS`].
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The plane it moves.
    #[inline]
    pub const fn plane(self) -> usize {
        self.0 as usize % PLANES
    }
    /// Whether it declines an optional flight.
    #[inline]
    pub const fn stays(self) -> bool {
        self.0 as usize >= PLANES
    }
    /// The id of a legal move: its lowest-numbered plane, plus 4 when it stays.
    #[inline]
    pub fn of_move(m: &Move) -> ActionId {
        ActionId(m.planes().trailing_zeros() as u8 & 3 | u8::from(m.stays()) << 2)
    }
}

impl fmt::Display for ActionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Who acts next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// The die is to be rolled.
    Chance,
    /// This seat chooses an action for the roll made.
    Seat(Seat),
    /// The game is over.
    Terminal,
}

/// The legal actions of a decision node, ascending: a fixed-size list (no allocation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActionList {
    len: u8,
    ids: [u8; NUM_ACTIONS],
}

impl ActionList {
    /// The ids as a slice.
    pub fn as_slice(&self) -> &[u8] {
        &self.ids[..usize::from(self.len)]
    }
    /// The ids.
    pub fn iter(&self) -> impl Iterator<Item = ActionId> + '_ {
        self.as_slice().iter().map(|&i| ActionId(i))
    }
    /// How many.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }
    /// Whether there are none (at chance and terminal nodes).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Whether `id` is among them.
    pub fn contains(&self, id: ActionId) -> bool {
        self.as_slice().contains(&id.0)
    }
}

impl Game {
    /// Who acts next: the die (a chance node), a seat (a decision node), or nobody.
    #[inline]
    pub fn current_player(&self) -> Player {
        if self.is_over() {
            Player::Terminal
        } else if self.roll == 0 {
            Player::Chance
        } else {
            Player::Seat(self.to_move)
        }
    }

    /// Whether the die is to be rolled.
    #[inline]
    pub fn is_chance_node(&self) -> bool {
        !self.is_over() && self.roll == 0
    }

    /// Whether the game is over (by the rules or by `max_turns`).
    #[inline]
    pub fn is_terminal(&self) -> bool {
        self.is_over()
    }

    /// The roll waiting for the seat to move's decision, if this is a decision node.
    #[inline]
    pub fn pending_roll(&self) -> Option<u8> {
        (self.roll != 0).then_some(self.roll)
    }

    /// At a chance node, the six faces with probability 1/6 each; otherwise empty.
    pub fn chance_outcomes(&self) -> Vec<(u8, f64)> {
        if self.is_chance_node() {
            (1..=6).map(|face| (face, 1.0 / 6.0)).collect()
        } else {
            Vec::new()
        }
    }

    /// Rolls `face` at a chance node. A roll that offers no move (a pass, a punished third six)
    /// is played at once and its outcome returned; otherwise the game becomes a decision node
    /// for the seat to move and `None` is returned.
    pub fn apply_roll(&mut self, face: u8) -> Result<Option<Outcome>, IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        if self.roll != 0 {
            return Err(IllegalMove::NotChanceNode);
        }
        if !(1..=6).contains(&face) {
            return Err(IllegalMove::BadRoll(face));
        }
        let mut moves = MoveList::default();
        self.legal_moves_into(face, &mut moves);
        if moves.is_empty() {
            return Ok(Some(self.apply(face, None)));
        }
        self.roll = face;
        Ok(None)
    }

    /// The legal moves of the roll waiting for a decision (empty at chance and terminal nodes),
    /// in the engine's canonical order.
    pub fn pending_moves(&self) -> MoveList {
        let mut moves = MoveList::default();
        if self.roll != 0 {
            self.legal_moves_into(self.roll, &mut moves);
        }
        moves
    }

    /// The legal action ids, ascending; empty at chance and terminal nodes.
    pub fn legal_actions(&self) -> ActionList {
        let mask = self.legal_action_bits();
        let mut list = ActionList::default();
        for id in 0..NUM_ACTIONS as u8 {
            if mask & (1 << id) != 0 {
                list.ids[usize::from(list.len)] = id;
                list.len += 1;
            }
        }
        list
    }

    /// The legal actions as a bit set: bit `id` for each legal id.
    pub fn legal_action_bits(&self) -> u8 {
        self.pending_moves()
            .iter()
            .fold(0u8, |m, mv| m | 1 << ActionId::of_move(mv).0)
    }

    /// The legal actions as a fixed-size mask indexed by action id.
    pub fn legal_actions_mask(&self) -> [bool; NUM_ACTIONS] {
        let bits = self.legal_action_bits();
        std::array::from_fn(|i| bits & (1 << i) != 0)
    }

    /// The move an action id stands for at this decision node, if it is legal.
    pub fn action_move(&self, id: ActionId) -> Option<Move> {
        self.pending_moves()
            .iter()
            .copied()
            .find(|m| ActionId::of_move(m) == id)
    }

    /// Plays action `id` for the roll waiting at this decision node.
    pub fn apply_action(&mut self, id: u32) -> Result<Outcome, IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        if self.roll == 0 {
            return Err(IllegalMove::NotDecisionNode);
        }
        let Some(m) = ActionId::new(id).and_then(|a| self.action_move(a)) else {
            let legal: Vec<String> = self.legal_actions().iter().map(|a| a.to_string()).collect();
            return Err(IllegalMove::NotLegalAction {
                action: id,
                legal: legal.join(", "),
            });
        };
        let roll = self.roll;
        self.roll = 0;
        Ok(self.apply(roll, Some(m)))
    }

    /// An action as text: `p<plane> ` and, when it is legal here, the move's notation
    /// (`p0 launch`, `p2 14`, `p1 18:fly`, `p1 18:stay`), else `p<plane>` (and `:stay`).
    pub fn action_to_string(&self, id: ActionId) -> String {
        match self.action_move(id) {
            Some(m) => format!("p{} {m}", id.plane()),
            None if id.stays() => format!("p{}:stay", id.plane()),
            None => format!("p{}", id.plane()),
        }
    }

    /// Each seat's return (index = seat): zero until the game is over, then by rank (see the
    /// module documentation); they sum to zero.
    pub fn returns(&self) -> [f64; 4] {
        let mut out = [0.0; 4];
        if !self.is_over() {
            return out;
        }
        let n = f64::from(self.players);
        let value = |rank: u8| (n + 1.0 - 2.0 * f64::from(rank)) / (n - 1.0);
        let mut taken = 0u8;
        let mut unranked = Vec::new();
        for &seat in self.seats() {
            match self.rank(seat) {
                Some(r) => {
                    out[seat.index()] = value(r);
                    taken |= 1 << r;
                }
                None => unranked.push(seat),
            }
        }
        if !unranked.is_empty() {
            let left: f64 = (1..=self.players)
                .filter(|r| taken & (1 << r) == 0)
                .map(value)
                .sum();
            let share = left / unranked.len() as f64;
            for seat in unranked {
                out[seat.index()] = share;
            }
        }
        out
    }
}
