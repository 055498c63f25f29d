//! The game state and its transitions: legal moves for a roll, and applying a roll.
//!
//! The die is an input: [`Game::legal_moves`] lists the choices for a given roll and
//! [`Game::apply`] plays it. The engine draws no random numbers and does no IO.

use std::fmt;

use crate::board::{
    CELL_BIT, CROSSED_STEP, HANGAR, PLANES, RING_CELLS, Seat, TAKE_OFF, TURN_CELL, step_of_cell_for,
};
use crate::chain::{Chain, ChainTable};
use crate::kernel::{Any, Kernel, with_kernel};
use crate::moves::{Move, MoveList, flag};
use crate::rules::{Rules, ThreeSixes};
use crate::setup_error::SetupError;

/// Whether the game goes on, and how it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Status {
    /// Still being played.
    Playing,
    /// Ended by the rules (a winner, or a full ranking).
    Finished,
    /// Stopped by `max_turns`.
    Unfinished,
}

/// What one roll did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The chosen move.
    Move(Move),
    /// No legal move for the roll.
    Pass,
    /// A punished third six; the bit set holds the planes sent back to the hangar.
    Penalty {
        /// Bit set of the roller's planes sent back.
        planes: u8,
    },
}

/// The report of one applied roll.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Who rolled.
    pub seat: Seat,
    /// The die value.
    pub roll: u8,
    /// What happened.
    pub action: Action,
    /// This roll began a new turn.
    pub new_turn: bool,
    /// This roll brought the roller's last plane home.
    pub seat_finished: bool,
    /// The roller's turn ended with this roll.
    pub turn_over: bool,
}

/// A move or roll that the checked [`Game::play`] refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum IllegalMove {
    /// The die value is not 1..=6.
    BadRoll(u8),
    /// The game is over.
    GameOver,
    /// A move was given but is not among the legal moves.
    NotLegal(String),
    /// No move was given although legal moves exist.
    MustMove(usize),
    /// A roll was given where a seat must choose an action for the roll already made.
    NotChanceNode,
    /// An action was given where the die must be rolled first.
    NotDecisionNode,
    /// An action id that is not legal here (or not an id at all).
    NotLegalAction {
        /// The id given.
        action: u32,
        /// The legal ids, as text (e.g. `0, 2, 6`).
        legal: String,
    },
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::BadRoll(r) => write!(f, "roll {r} is not a die face (1..=6)"),
            IllegalMove::GameOver => f.write_str("the game is over"),
            IllegalMove::NotLegal(m) => write!(f, "move {m} is not legal here"),
            IllegalMove::MustMove(n) => write!(f, "a move must be chosen: {n} legal moves exist"),
            IllegalMove::NotChanceNode => {
                f.write_str("the die has been rolled: the seat to move must choose an action first")
            }
            IllegalMove::NotDecisionNode => {
                f.write_str("no roll to play: the die must be rolled first (a chance node)")
            }
            IllegalMove::NotLegalAction { action, legal } => {
                write!(
                    f,
                    "action {action} is not legal here: legal actions are {legal}"
                )
            }
        }
    }
}

impl std::error::Error for IllegalMove {}

/// A full game state: the rules, every plane's step, and whose turn it is. Small and `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Game {
    pub(crate) rules: Rules,
    pub(crate) steps: [[u8; PLANES]; 4],
    pub(crate) players: u8,
    pub(crate) in_play: u8,
    pub(crate) finished: u8,
    pub(crate) ranks: [u8; 4],
    pub(crate) to_move: Seat,
    /// Sixes rolled in a row in this turn (saturating): 0 exactly when the turn's first roll
    /// is still to come, since a turn goes on only after a six.
    pub(crate) sixes: u8,
    pub(crate) moved_turn: u8,
    pub(crate) moved_last: u8,
    /// The roll made at a decision node of the state API, 0 at a chance node (see `state.rs`);
    /// always 0 on the fast path.
    pub(crate) roll: u8,
    pub(crate) status: Status,
    pub(crate) turns: u32,
    /// Per seat, the ring cells holding at least one of its planes (kept in step with `steps`).
    pub(crate) occupied: [u64; 4],
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("steps", &self.steps)
            .field("to_move", &self.to_move)
            .field("sixes", &self.sixes)
            .field("moved", &(self.moved_turn, self.moved_last))
            .field("roll", &self.roll)
            .field("turns", &self.turns)
            .field("ranks", &self.ranks)
            .field("status", &self.status)
            .finish()
    }
}

impl Game {
    /// A new game with every plane in its hangar and seat 0 to roll.
    pub fn new(rules: Rules, players: usize) -> Result<Game, SetupError> {
        if !(2..=4).contains(&players) {
            return Err(SetupError::Players(players));
        }
        let in_play = Seat::in_play(players)
            .iter()
            .fold(0u8, |m, s| m | 1 << s.index());
        let mut steps = [[HANGAR; PLANES]; 4];
        for s in Seat::in_play(players) {
            // Plane slots beyond `planes` are not in the game: home from the start.
            steps[s.index()][usize::from(rules.planes)..].fill(rules.centre());
        }
        Ok(Game {
            rules,
            steps,
            players: players as u8,
            in_play,
            finished: 0,
            ranks: [0; 4],
            to_move: Seat::ALL[0],
            sixes: 0,
            moved_turn: 0,
            moved_last: 0,
            roll: 0,
            status: Status::Playing,
            turns: 0,
            occupied: [0; 4],
        })
    }

    /// The rule variant.
    #[inline]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// Number of players, 2..=4.
    #[inline]
    pub fn players(&self) -> usize {
        self.players as usize
    }
    /// The seats in play, in turn order.
    #[inline]
    pub fn seats(&self) -> &'static [Seat] {
        Seat::in_play(self.players as usize)
    }
    /// Whether `seat` takes part in this game.
    #[inline]
    pub fn in_play(&self, seat: Seat) -> bool {
        self.in_play & (1 << seat.index()) != 0
    }
    /// The seat to roll next.
    #[inline]
    pub fn to_move(&self) -> Seat {
        self.to_move
    }
    /// The steps of `seat`'s four plane slots ([`HANGAR`] for the hangar). Slots from
    /// [`Rules::planes`] on are not in the game and hold the centre.
    #[inline]
    pub fn steps(&self, seat: Seat) -> [u8; PLANES] {
        self.steps[seat.index()]
    }
    /// The ring cells holding at least one of `seat`'s planes, as a bit set (bit `c` for ring
    /// cell `c`, 0..52, numbered as [`board::ring_cell`](crate::board::ring_cell) does).
    #[inline]
    pub fn ring_cells(&self, seat: Seat) -> u64 {
        self.occupied[seat.index()]
    }
    /// Turns begun so far (all players together).
    #[inline]
    pub fn turns(&self) -> u32 {
        self.turns
    }
    /// Sixes rolled in a row so far in the current turn.
    #[inline]
    pub fn sixes_this_turn(&self) -> u8 {
        self.sixes
    }
    /// Bit set of the planes of the seat to move that moved earlier in this turn (for
    /// `three_sixes`; bit `i` for plane `i`).
    #[inline]
    pub fn planes_moved_this_turn(&self) -> u8 {
        self.moved_turn
    }
    /// Bit set of the planes moved by the latest move of this turn (for `three_sixes =
    /// last_moved`).
    #[inline]
    pub fn planes_moved_last(&self) -> u8 {
        self.moved_last
    }
    /// Whether the game goes on.
    #[inline]
    pub fn status(&self) -> Status {
        self.status
    }
    /// Whether the game has ended (by the rules or by `max_turns`).
    #[inline]
    pub fn is_over(&self) -> bool {
        self.status != Status::Playing
    }
    /// Whether every plane of `seat` is at the centre.
    #[inline]
    pub fn has_finished(&self, seat: Seat) -> bool {
        self.finished & (1 << seat.index()) != 0
    }
    /// The rank of `seat` (1 is the winner), if it has one.
    #[inline]
    pub fn rank(&self, seat: Seat) -> Option<u8> {
        let r = self.ranks[seat.index()];
        (r != 0).then_some(r)
    }
    /// The winner, once there is one.
    pub fn winner(&self) -> Option<Seat> {
        Seat::ALL.into_iter().find(|&s| self.ranks[s.index()] == 1)
    }
    /// Planes of `seat` at the centre (planes in the game only: see [`Rules::planes`]).
    pub fn planes_home(&self, seat: Seat) -> usize {
        let centre = self.rules.centre();
        self.steps[seat.index()][..usize::from(self.rules.planes)]
            .iter()
            .filter(|&&s| s == centre)
            .count()
    }

    /// Whether `roll` is a third six in a row that `three_sixes` punishes.
    #[inline]
    pub fn is_punished(&self, roll: u8) -> bool {
        self.punished::<Any>(roll)
    }

    /// [`Game::is_punished`] under kernel `K`.
    #[inline(always)]
    pub(crate) fn punished<K: Kernel>(&self, roll: u8) -> bool {
        // `&` rather than `&&`: the roll is random, so a branch on it would often mispredict.
        (roll == 6) & (self.sixes >= 2) & (K::three_sixes(&self.rules) != ThreeSixes::None)
    }

    /// The distinct legal moves of the seat to move for `roll`, in canonical order: the launch
    /// first, then by ascending starting step, a flight before staying. Empty when the roll
    /// passes, is a punished third six, or the game is over.
    pub fn legal_moves(&self, roll: u8) -> MoveList {
        let mut list = MoveList::default();
        self.legal_moves_into(roll, &mut list);
        list
    }

    /// [`Game::legal_moves`] into a caller's buffer (cleared first), for hot loops.
    #[inline]
    pub fn legal_moves_into(&self, roll: u8, list: &mut MoveList) {
        self.moves_into::<Any>(roll, list);
    }

    /// [`Game::legal_moves_into`] under kernel `K`, always inlined: for the driver's game loop,
    /// where a call would cost ~20% (the compiler declines to inline it on its own).
    #[inline(always)]
    pub(crate) fn moves_into<K: Kernel>(&self, roll: u8, list: &mut MoveList) {
        list.clear();
        if self.is_over() || !(1..=6).contains(&roll) {
            return;
        }
        self.face_moves::<K>(&self.move_context::<K>(), roll, list);
    }

    /// The legal moves of every face at once: `lists[r - 1]` gets those of roll `r` (as
    /// [`Game::legal_moves_into`] lists them). For searches, which look at all six faces of
    /// a position: what the faces share (the kernel, the seat's planes, the opponents' cells)
    /// is worked out once.
    pub fn legal_moves_all(&self, lists: &mut [MoveList; 6]) {
        with_kernel!(&self.rules, K => self.all_moves_into::<K>(lists))
    }

    #[inline(always)]
    fn all_moves_into<K: Kernel>(&self, lists: &mut [MoveList; 6]) {
        for list in lists.iter_mut() {
            list.clear();
        }
        if self.is_over() {
            return;
        }
        let context = self.move_context::<K>();
        for (list, roll) in lists.iter_mut().zip(1..) {
            self.face_moves::<K>(&context, roll, list);
        }
    }

    /// For each face, the opponent planes its legal moves can capture: `out[r - 1]` is the union
    /// of [`Move::captured`] over [`Game::legal_moves`]`(r)`, without listing the moves (for
    /// value nets' inputs). Bit-parallel over the planes as the greedy choice is: only the
    /// landings whose chain captures are worked out.
    pub fn face_captures(&self) -> [u16; 6] {
        with_kernel!(&self.rules, K => self.face_captures_as::<K>())
    }

    #[inline(always)]
    fn face_captures_as<K: Kernel>(&self) -> [u16; 6] {
        let mut out = [0u16; 6];
        if self.is_over() {
            return out;
        }
        let rules = &self.rules;
        let seat = self.to_move;
        let centre = rules.centre();
        // A launch captures nothing: only the planes already out can.
        let at = movable_steps(self.steps[seat.index()], centre);
        if at == 0 {
            return out;
        }
        let chains = K::chains(rules);
        // The landings whose `go` chain captures (see `Game::greedy_move`). A choice's staying
        // chain lands on a prefix of its flying chain's landings and never flies, so it
        // captures nothing the flying move does not.
        let land = self.capturing_landings::<K>(seat, chains);
        if land == 0 {
            return out;
        }
        // Plane by plane (at most four steps, often one or two) rather than face by face: the
        // faces whose landing captures are the set bits of one shifted mask, and those are rare.
        let mut planes = at;
        while planes != 0 {
            let s = planes.trailing_zeros() as u8;
            planes &= planes - 1;
            // Faces 1..=m land forward, on `s + roll <= centre` (`s < centre`: it can move).
            let m = (centre - s).min(6);
            let mut faces = (land >> s) & ((2u64 << m) - 2);
            while faces != 0 {
                let roll = faces.trailing_zeros() as u8;
                faces &= faces - 1;
                out[usize::from(roll - 1)] |=
                    self.chain_captures::<K>(seat, &chains.go[usize::from((s + roll) & 63)]);
            }
            if K::bounces(rules) {
                // Faces past the centre bounce back to `2 * centre - s - roll`.
                for roll in m + 1..=6 {
                    let t = 2 * centre - s - roll;
                    if land >> t & 1 != 0 {
                        out[usize::from(roll - 1)] |=
                            self.chain_captures::<K>(seat, &chains.go[usize::from(t & 63)]);
                    }
                }
            }
        }
        // A punished third six moves nothing (only a six can be punished).
        if self.punished::<K>(6) {
            out[5] = 0;
        }
        out
    }

    /// What the moves of every face of this position share.
    #[inline(always)]
    fn move_context<K: Kernel>(&self) -> MoveContext {
        let seat = self.to_move;
        let mine = self.steps[seat.index()];
        let centre = self.rules.centre();
        MoveContext {
            seat,
            centre,
            in_hangar: match_mask(mine, HANGAR),
            movable: movable_steps(mine, centre),
            opponents: self.opponent_cells(seat),
        }
    }

    /// The moves of `roll` (1..=6) appended to the empty `list`.
    #[inline(always)]
    fn face_moves<K: Kernel>(&self, context: &MoveContext, roll: u8, list: &mut MoveList) {
        if self.punished::<K>(roll) {
            return;
        }
        let rules = &self.rules;
        let MoveContext {
            seat,
            centre,
            in_hangar,
            movable,
            opponents,
        } = *context;
        list.push_if(
            Move::new(
                HANGAR,
                TAKE_OFF,
                in_hangar & in_hangar.wrapping_neg(),
                flag::LAUNCH,
                0,
            ),
            rules.launch_rolls.contains(roll) & (in_hangar != 0),
        );
        let mut occupied = movable;
        while occupied != 0 {
            let s = occupied.trailing_zeros() as u8;
            occupied &= occupied - 1;
            let (m, legal) = self.step_move::<K>(seat, centre, opponents, s, roll);
            list.push_if(m, legal);
            if K::flight_optional(rules) && m.flags() & flag::CHOICE != 0 {
                list.push(self.stay_move::<K>(seat, centre, m, roll));
            }
        }
    }

    /// The move of the plane(s) of `seat` at step `s` for `roll` (flying, where the flight is
    /// optional), and whether it is legal: a plane the roll carries past the centre has no
    /// move unless planes bounce. `opponents` is [`Game::opponent_cells`].
    #[inline(always)]
    pub(crate) fn step_move<K: Kernel>(
        &self,
        seat: Seat,
        centre: u8,
        opponents: u64,
        s: u8,
        roll: u8,
    ) -> (Move, bool) {
        let rules = &self.rules;
        let reach = s + roll;
        let over = reach > centre;
        let t = if over { 2 * centre - reach } else { reach };
        let chain = &K::chains(rules).go[usize::from(t & 63)];
        let extra =
            if over { flag::BOUNCE } else { 0 } | if t == centre { flag::FINISH } else { 0 };
        let m = Move::along(s, self.planes_at::<K>(seat, s), chain.word, extra);
        let m = if opponents & chain.cells[seat.index()] != 0
            || (K::crossed(rules) && chain.flags & flag::FLIGHT != 0)
        {
            m.with_captured(self.chain_captures::<K>(seat, chain))
        } else {
            m
        };
        (m, !over || K::bounces(rules))
    }

    /// The choice of staying on the flight cell beside `fly`, a move of [`Game::step_move`]
    /// that offers it (flag `CHOICE`).
    #[cold]
    pub(crate) fn stay_move<K: Kernel>(&self, seat: Seat, centre: u8, fly: Move, roll: u8) -> Move {
        let reach = fly.from() + roll;
        let t = if reach > centre {
            2 * centre - reach
        } else {
            reach
        };
        let stay = &K::chains(&self.rules).stay[usize::from(t & 63)];
        fly.with_end(stay.to, stay.flags | (fly.flags() & flag::BOUNCE))
            .with_captured(self.chain_captures::<K>(seat, stay))
    }

    /// The planes of `seat` that a move from step `s` moves: all of them with stacking,
    /// else the lowest-numbered one (planes on one cell are alike).
    #[inline(always)]
    pub(crate) fn planes_at<K: Kernel>(&self, seat: Seat, s: u8) -> u8 {
        let mask = match_mask(self.steps[seat.index()], s);
        if K::stacks(&self.rules) {
            mask
        } else {
            mask & mask.wrapping_neg()
        }
    }

    /// The opponent planes a chain of `seat`'s sends home: those on each ring step it lands
    /// on, and for a flight with `flight_captures_crossed`, those on the crossed cell.
    #[inline(never)]
    pub(crate) fn chain_captures<K: Kernel>(&self, seat: Seat, chain: &Chain) -> u16 {
        let opponents = self.opponent_cells(seat);
        let mut captured = 0;
        for &s in chain.landings.iter().take_while(|&&s| s != 0) {
            captured |= self.captures_at(seat, s, opponents);
        }
        if chain.flags & flag::FLIGHT != 0 && K::crossed(&self.rules) {
            captured |= self.crossed_captures(seat);
        }
        captured
    }

    /// The steps of `seat`'s path where a landing (with its `go` chain, see
    /// [`Game::greedy_move`]) captures an opponent's plane, as a mask of steps.
    #[inline(always)]
    pub(crate) fn capturing_landings<K: Kernel>(&self, seat: Seat, chains: &ChainTable) -> u64 {
        let opponents = Game::steps_of_cells(self.opponent_cells(seat), seat);
        let mut land = opponents
            | (opponents >> 4) & chains.reach[0]
            | (opponents >> 12) & chains.reach[1]
            | (opponents >> 16) & chains.reach[2];
        if K::crossed(&self.rules) && self.crossed_captures(seat) != 0 {
            land |= chains.flies;
        }
        land
    }

    /// Bit set of the ring cells holding at least one plane of an opponent of `seat`.
    #[inline]
    pub(crate) fn opponent_cells(&self, seat: Seat) -> u64 {
        let i = seat.index();
        self.occupied[(i + 1) & 3] | self.occupied[(i + 2) & 3] | self.occupied[(i + 3) & 3]
    }

    /// The steps of `seat` (bit `s` for step `s`, 1..=50) whose ring cells are among `cells`
    /// (the opponents' cells, [`Game::opponent_cells`]): the cells turned into the seat's own
    /// frame, where its step `s` is cell `13 * seat + s - 1` (mod 52).
    #[inline(always)]
    pub(crate) fn steps_of_cells(cells: u64, seat: Seat) -> u64 {
        const RING: u64 = (1 << RING_CELLS) - 1;
        const STEPS: u64 = ((1 << (TURN_CELL + 1)) - 1) & !1;
        let k = 13 * seat.index() as u32;
        // Rotate the 52 cells right by k: bit b becomes cell (b + k) mod 52, i.e. step b + 1.
        let turned = (cells >> k | cells << (u32::from(RING_CELLS) - k)) & RING;
        (turned << 1) & STEPS
    }

    /// Recomputes the ring cells occupied by seat `i` from its steps.
    #[inline]
    pub(crate) fn refresh_occupied(&mut self, i: usize) {
        let cells = &CELL_BIT[i & 3];
        self.occupied[i] = self.steps[i]
            .iter()
            .fold(0u64, |acc, &s| acc | cells[usize::from(s)]);
    }

    /// Opponent planes on the ring cell that is `seat`'s step `s`, as a capture bit set;
    /// `opponents` is [`Game::opponent_cells`], which answers the common empty case at once.
    #[inline]
    fn captures_at(&self, seat: Seat, s: u8, opponents: u64) -> u16 {
        if opponents & CELL_BIT[seat.index()][usize::from(s)] == 0 {
            return 0;
        }
        self.captures_on_occupied(seat, s)
    }

    /// The slow path of [`Game::captures_at`], for a cell known to hold opponents.
    #[inline(never)]
    fn captures_on_occupied(&self, seat: Seat, s: u8) -> u16 {
        let mut captured = 0u16;
        let mut others = self.in_play & !(1 << seat.index());
        while others != 0 {
            let other = others.trailing_zeros() as usize;
            others &= others - 1;
            if let Some(t) = step_of_cell_for(seat, s, Seat::ALL[other]) {
                captured |= u16::from(match_mask(self.steps[other], t)) << (4 * other);
            }
        }
        captured
    }

    /// Planes of the opposite colour on the crossed cell (their lane cell 3).
    #[inline]
    pub(crate) fn crossed_captures(&self, seat: Seat) -> u16 {
        let other = (seat.index() + 2) % 4;
        if self.in_play & (1 << other) == 0 {
            return 0;
        }
        u16::from(match_mask(self.steps[other], CROSSED_STEP)) << (4 * other)
    }

    /// Applies `roll` for the seat to move, with `choice` one of [`Game::legal_moves`]`(roll)`
    /// (or `None` when that list is empty), and advances the turn.
    ///
    /// # Panics
    /// Debug builds assert that the game is not over and that `choice` fits the roll; release
    /// builds trust the caller. Use [`Game::play`] to check.
    #[inline]
    pub fn apply(&mut self, roll: u8, choice: Option<Move>) -> Outcome {
        self.apply_as::<Any>(roll, choice)
    }

    /// [`Game::apply`] under kernel `K`, always inlined: for the driver's game loop.
    #[inline(always)]
    pub(crate) fn apply_as<K: Kernel>(&mut self, roll: u8, choice: Option<Move>) -> Outcome {
        debug_assert!(!self.is_over(), "apply on a finished game");
        debug_assert!(self.roll == 0, "apply with a pending roll of the state API");
        debug_assert!((1..=6).contains(&roll), "roll {roll}");
        #[cfg(debug_assertions)]
        {
            let legal = self.legal_moves(roll);
            match choice {
                None => debug_assert!(legal.is_empty(), "pass with legal moves {legal:?}"),
                Some(m) => debug_assert!(
                    legal.contains(&m),
                    "illegal move {m:?} for roll {roll} in {self:?}"
                ),
            }
        }
        let seat = self.to_move;
        let new_turn = self.sixes == 0;
        self.turns += u32::from(new_turn);
        let mut outcome = Outcome {
            seat,
            roll,
            action: Action::Pass,
            new_turn,
            seat_finished: false,
            turn_over: false,
        };
        if self.punished::<K>(roll) {
            self.penalise::<K>(&mut outcome);
            return outcome;
        }
        let six = roll == 6;
        // Under `three_sixes = none` a streak has no bound: it saturates (else it stops at 2).
        self.sixes = if K::three_sixes(&self.rules) == ThreeSixes::None {
            self.sixes.saturating_add(u8::from(six))
        } else {
            self.sixes + u8::from(six)
        };
        if let Some(m) = choice {
            outcome.action = Action::Move(m);
            self.make(seat, m);
            if m.finishes() && self.steps[seat.index()] == [self.rules.centre(); PLANES] {
                self.finish::<K>(seat, &mut outcome);
                return outcome;
            }
        }
        outcome.turn_over = !six;
        if !six {
            self.pass_turn();
        }
        outcome
    }

    /// The third six that `three_sixes` punishes: the moved planes go back, the turn ends.
    #[cold]
    #[inline(never)]
    fn penalise<K: Kernel>(&mut self, outcome: &mut Outcome) {
        let seat = self.to_move;
        let mask = match K::three_sixes(&self.rules) {
            ThreeSixes::LastMoved => self.moved_last,
            _ => self.moved_turn,
        };
        let centre = self.rules.centre();
        let mut sent = 0u8;
        for i in 0..PLANES {
            let s = &mut self.steps[seat.index()][i];
            if mask & (1 << i) != 0 && *s != centre && *s != HANGAR {
                *s = HANGAR;
                sent |= 1 << i;
            }
        }
        self.refresh_occupied(seat.index());
        outcome.action = Action::Penalty { planes: sent };
        self.end_turn();
        outcome.turn_over = true;
    }

    /// The checked form of [`Game::apply`]: refuses a bad roll, a finished game, a move that is
    /// not legal (matched by its starting step and fly/stay choice), and a pass that is not one.
    pub fn play(&mut self, roll: u8, choice: Option<Move>) -> Result<Outcome, IllegalMove> {
        if !(1..=6).contains(&roll) {
            return Err(IllegalMove::BadRoll(roll));
        }
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        if self.roll != 0 {
            return Err(IllegalMove::NotChanceNode);
        }
        let legal = self.legal_moves(roll);
        let chosen = match choice {
            None if legal.is_empty() => None,
            None => return Err(IllegalMove::MustMove(legal.len())),
            Some(m) => Some(
                *legal
                    .iter()
                    .find(|l| l.from() == m.from() && l.stays() == m.stays())
                    .ok_or_else(|| IllegalMove::NotLegal(m.to_string()))?,
            ),
        };
        Ok(self.apply(roll, chosen))
    }

    /// Moves the planes of `m` and sends its captures home.
    #[inline(always)]
    fn make(&mut self, seat: Seat, m: Move) {
        let i = seat.index();
        let bytes = PLANE_BYTES[usize::from(m.planes() & 0xF)];
        let own = u32::from_le_bytes(self.steps[i]);
        self.steps[i] =
            ((own & !bytes) | ((u32::from(m.to()) * 0x0101_0101) & bytes)).to_le_bytes();
        self.refresh_occupied(i);
        if m.captured() != 0 {
            self.send_home(m.captured());
        }
        self.moved_last = m.planes();
        self.moved_turn |= m.planes();
    }

    /// Sends the captured planes (bit `4 * seat + plane`) to their hangars.
    #[inline(never)]
    fn send_home(&mut self, captured: u16) {
        for k in 0..4 {
            let planes = (captured >> (4 * k)) & 0xF;
            if planes != 0 {
                // HANGAR is 0xFF: OR-ing a plane's byte with 0xFF sends it home.
                let steps = u32::from_le_bytes(self.steps[k]) | PLANE_BYTES[usize::from(planes)];
                self.steps[k] = steps.to_le_bytes();
                self.refresh_occupied(k);
            }
        }
    }

    /// `seat` brought its last plane home: it is ranked, the game may end, the turn ends.
    #[cold]
    #[inline(never)]
    fn finish<K: Kernel>(&mut self, seat: Seat, outcome: &mut Outcome) {
        outcome.seat_finished = true;
        outcome.turn_over = true;
        self.finished |= 1 << seat.index();
        let rank = self.finished.count_ones() as u8;
        self.ranks[seat.index()] = rank;
        let left = self.in_play & !self.finished;
        let game_over = !K::full_ranking(&self.rules) || left.count_ones() <= 1;
        if game_over {
            self.status = Status::Finished;
            if left.count_ones() == 1 {
                self.ranks[left.trailing_zeros() as usize] = self.players;
            }
        }
        self.end_turn();
    }

    /// Ends the turn: a game still going passes it to the next seat, or stops at `max_turns`.
    #[inline]
    fn end_turn(&mut self) {
        if self.is_over() {
            self.sixes = 0;
            self.moved_turn = 0;
            self.moved_last = 0;
        } else {
            self.pass_turn();
        }
    }

    /// [`Game::end_turn`] of a game still going.
    #[inline(always)]
    fn pass_turn(&mut self) {
        self.sixes = 0;
        self.moved_turn = 0;
        self.moved_last = 0;
        if self.turns >= self.rules.max_turns {
            self.status = Status::Unfinished;
            return;
        }
        self.to_move = self.next_seat();
    }

    /// The next active seat clockwise: the lowest active seat above this one, else the lowest.
    #[inline(always)]
    fn next_seat(&self) -> Seat {
        let active = self.in_play & !self.finished;
        Seat::wrapping(NEXT_SEAT[usize::from(active & 0xF) << 2 | self.to_move.index()])
    }
}

/// What the moves of every face of one position share (see [`Game::legal_moves_all`]).
#[derive(Clone, Copy)]
struct MoveContext {
    seat: Seat,
    centre: u8,
    /// The seat's planes in the hangar.
    in_hangar: u8,
    /// The steps holding its movable planes.
    movable: u64,
    /// The ring cells holding opponents.
    opponents: u64,
}

/// `NEXT_SEAT[active << 2 | seat]`: the lowest seat of the set `active` above `seat`, else the
/// lowest of `active` (0 for an empty set, which play never asks about).
const NEXT_SEAT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut active = 0u32;
    while active < 16 {
        let mut seat = 0u32;
        while seat < 4 {
            let above = active & !((2 << seat) - 1);
            let next = if above != 0 { above } else { active };
            t[(active << 2 | seat) as usize] = (next.trailing_zeros() & 3) as u8;
            seat += 1;
        }
        active += 1;
    }
    t
};

/// `PLANE_BYTES[planes]` has byte `i` all ones where bit `i` of the plane set `planes` is set.
const PLANE_BYTES: [u32; 16] = {
    let mut t = [0u32; 16];
    let mut planes = 0;
    while planes < 16 {
        let mut i = 0;
        while i < PLANES {
            if planes & (1 << i) != 0 {
                t[planes] |= 0xFF << (8 * i);
            }
            i += 1;
        }
        planes += 1;
    }
    t
};

/// The steps holding at least one of the planes in `steps` that can still move (bit `s` for
/// step `s`): neither in the hangar nor at the centre.
#[inline(always)]
pub(crate) fn movable_steps(steps: [u8; PLANES], centre: u8) -> u64 {
    // The hangar (255) maps to bit 63, which no step uses (the centre is at most 59); it and
    // the centre are then cleared.
    let all = steps.iter().fold(0u64, |m, &s| m | 1 << (s & 63));
    all & !(1 << 63 | 1 << centre)
}

/// Bit set of the planes among `steps` standing on step `t` (bit `i` for plane `i`).
#[inline(always)]
pub(crate) fn match_mask(steps: [u8; PLANES], t: u8) -> u8 {
    // SWAR: a zero byte of `x` marks a match; the exact zero-byte test sets bit 7 of each such
    // byte, and the multiply gathers those four bits into the top nibble.
    let x = u32::from_le_bytes(steps) ^ (u32::from(t) * 0x0101_0101);
    let zero = !(((x & 0x7F7F_7F7F) + 0x7F7F_7F7F) | x) & 0x8080_8080;
    ((zero >> 7).wrapping_mul(0x1020_4080) >> 28) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn match_mask_agrees_with_a_plain_loop() {
        let values = [0u8, 1, 2, 17, 53, 56, 57, 127, 128, 200, HANGAR];
        for &a in &values {
            for &b in &values {
                for &c in &values {
                    for &d in &values {
                        for &t in &values {
                            let steps = [a, b, c, d];
                            let plain = steps
                                .iter()
                                .enumerate()
                                .fold(0u8, |m, (i, &s)| m | (u8::from(s == t) << i));
                            assert_eq!(match_mask(steps, t), plain, "{steps:?} {t}");
                        }
                    }
                }
            }
        }
    }
}
