//! The luck of the dice, measured by a value net, and luck-adjusted results (docs/LUCK.md).
//!
//! **A roll's luck** for the seat that rolls is the net's value (for that seat) of the position
//! after the roll, minus the mean of that over the six faces. The position after a face is the
//! afterstate of the net's best move for that face (its ply-0 choice, the first in the engine's
//! order among equals), or the position after the pass when the face has no move; a position
//! already decided for the seat (it finished, or the game is over) is valued exactly. Two
//! values are measured at once, from the same afterstates: the probability of finishing first
//! (*win luck*) and the expected return (`-1..=1`, the state API's returns: *return luck*).
//!
//! **A game's luck** per seat is the sum over that seat's rolls. In a game of `n` players the
//! luck that counts against a seat's result is its own minus the mean of the others' (a roll
//! that helps one seat costs the others the same in total; for two players that is exact when
//! the net is zero-sum): the seat's *net luck*. The **adjusted result** is the result minus the
//! net luck: a control variate. Every roll's luck has mean zero over the six faces, whatever
//! the net (it is a difference from that very mean), so the adjusted result has the expected
//! value of the result for any net; a good net only makes its variance smaller.
//!
//! Results are read per lineup entry: the win (1 for rank 1) and the *score*, `(1 + return) /
//! 2` (1 for first, 0 for last, a draw's share for an unfinished game: for two players the
//! match score). Their luck is the win luck and half the return luck. [`LuckTally`] sums them
//! per deal (the unit of randomisation), so the intervals are clustered by deal as the plain
//! figures' are; [`LuckLine`] holds the figures.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use aeroplane_core::{Game, MoveList, Observer, Outcome, Rules, Seat};

use crate::stats::{NO_BOT, Played};
use crate::td::encoding::{Encoder, Features};
use crate::td::file::Net;
use crate::td::net::Scratch;

/// The deepest search a roll's luck may be measured with (the setting `luck_ply`).
pub const MAX_LUCK_PLY: u8 = 3;

/// The depth of a luck measure (the setting `luck_ply`): die rolls searched beyond each face's
/// afterstate, 0 to [`MAX_LUCK_PLY`]. Checked once, where it is made ([`LuckPly::new`], or
/// read from a manifest), and carried as it is to the meter.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(try_from = "i64", into = "u8")]
pub struct LuckPly(u8);

impl LuckPly {
    /// Ply 0: each face's afterstate valued by the net for the roller alone.
    pub const ZERO: LuckPly = LuckPly(0);
    /// The deepest measure.
    pub const MAX: LuckPly = LuckPly(MAX_LUCK_PLY);

    /// The depth `ply`, if it is 0 to [`MAX_LUCK_PLY`].
    pub fn new(ply: i64) -> Result<LuckPly, LuckPlyError> {
        u8::try_from(ply)
            .ok()
            .filter(|&p| p <= MAX_LUCK_PLY)
            .map(LuckPly)
            .ok_or(LuckPlyError(ply))
    }

    /// The die rolls searched beyond each face's afterstate.
    pub fn get(self) -> u8 {
        self.0
    }

    /// Whether this is ply 0 (a manifest leaves it out).
    pub fn is_zero(&self) -> bool {
        self.0 == 0
    }
}

impl TryFrom<i64> for LuckPly {
    type Error = LuckPlyError;
    fn try_from(ply: i64) -> Result<LuckPly, LuckPlyError> {
        LuckPly::new(ply)
    }
}

impl From<LuckPly> for u8 {
    fn from(ply: LuckPly) -> u8 {
        ply.0
    }
}

impl std::fmt::Display for LuckPly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The net a job measures luck with, its file as given, and the depth of the measure.
#[derive(Clone, Debug, PartialEq)]
pub struct LuckNet {
    /// The net file as given (the setting `luck`), UTF-8 (checked by [`LuckNet::load`]).
    file: PathBuf,
    /// The same path as text, as a manifest records it and messages name it.
    name: String,
    /// The net.
    pub net: Arc<Net>,
    /// Die rolls searched beyond each face's afterstate (the setting `luck_ply`): 0 values
    /// the afterstate by the net for the roller alone; 1 to 3 value it for every seat by an
    /// expectation over the next 1 to 3 rolls (see [`LuckMeter::seat_faces`]).
    pub ply: LuckPly,
}

/// A `luck_ply` outside `0..=MAX_LUCK_PLY`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`luck_ply` is {0}: the luck is measured at ply 0 to {MAX_LUCK_PLY}")]
pub struct LuckPlyError(pub i64);

impl LuckNet {
    /// Loads and checks the net file at `file` (a net shipped in `bots/nets/` loads from the
    /// copy built in when the file is not there, as the `td` bot's do). A path that is not
    /// UTF-8 is refused before anything is read: a job's `run.json` records the path as text,
    /// and `resume`, `merge` and `--manifest` load the net again from it.
    pub fn load(file: impl AsRef<Path>) -> Result<LuckNet, crate::td::NetError> {
        let file = file.as_ref();
        let Some(name) = file.to_str() else {
            return Err(crate::td::NetError {
                file: file.display().to_string(),
                what: "the path is not UTF-8 text, and a job records its luck net's path as text in run.json to load it again: give the net a UTF-8 path".into(),
            });
        };
        let net = crate::bots::td::load_net(file)?;
        Ok(LuckNet {
            file: file.to_path_buf(),
            name: name.to_string(),
            net,
            ply: LuckPly::ZERO,
        })
    }

    /// The net file read.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The net file as text: as a manifest records it and messages name it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The net's checksum as a manifest records it: FNV-1a 64 of its tensors, 16 hex digits
    /// (the net file's own `checksum`).
    pub fn checksum(&self) -> String {
        format!("{:016x}", self.net.checksum())
    }

    /// The same net measuring at `ply`.
    pub fn with_ply(self, ply: LuckPly) -> LuckNet {
        LuckNet { ply, ..self }
    }

    /// A meter for games of `rules` with `players` by the first of `nets` that fits them
    /// (a job measures each part with the net of its rules), or why none can: the first net's
    /// mismatch (with one net, exactly its own).
    pub fn meter_of(
        nets: &[LuckNet],
        rules: &Rules,
        players: usize,
    ) -> Result<LuckMeter, LuckMismatch> {
        let mut first = None;
        for net in nets {
            match net.meter(rules, players) {
                Ok(m) => return Ok(m),
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        Err(first.unwrap_or_else(|| LuckMismatch {
            net: String::new(),
            what: "no luck net given".into(),
        }))
    }

    /// A meter for games of `rules` with `players`, or why this net cannot measure them.
    pub fn meter(&self, rules: &Rules, players: usize) -> Result<LuckMeter, LuckMismatch> {
        LuckMeter::new(Arc::clone(&self.net), rules, players)
            .map(|m| m.with_ply(self.ply))
            .map_err(|what| LuckMismatch {
                net: self.name.clone(),
                what,
            })
    }
}

/// A luck net that cannot measure a part's games (a net of other rules or players).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the luck net {net}: {what}")]
pub struct LuckMismatch {
    /// The net file as given.
    pub net: String,
    /// What differs.
    pub what: String,
}

/// A roll's value for the seat that rolls: probability of winning and expected return.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Value {
    /// Probability of finishing first.
    pub win: f64,
    /// Expected return (-1..=1).
    pub ret: f64,
}

/// One game's luck per seat (index: seat): at ply 0, summed over each seat's rolls; at ply 1
/// or 2 (`every_seat`), each roll's luck for every seat, summed over all rolls.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct GameLuck {
    /// Win luck.
    pub win: [f64; 4],
    /// Return luck.
    pub ret: [f64; 4],
    /// Rolls measured (index: the seat that rolled).
    pub rolls: [u32; 4],
    /// Whether every roll's luck was measured for every seat (`luck_ply` 1 to 3): each seat's
    /// sums are then its net luck already.
    pub every_seat: bool,
}

impl GameLuck {
    /// The net luck of `seat`, in (win, score) units: what is subtracted from its win and its
    /// score. At ply 0 its own luck minus the mean of the other seats' in play; measured for
    /// every seat, its own sums (each roll's luck there is already centred over the seats).
    pub fn net(&self, seat: Seat, players: usize) -> (f64, f64) {
        if self.every_seat {
            return (self.win[seat.index()], self.ret[seat.index()] / 2.0);
        }
        let seats = Seat::in_play(players);
        let others = (players - 1) as f64;
        let (mut w, mut r) = (0.0, 0.0);
        for &o in seats.iter() {
            if o != seat {
                w += self.win[o.index()];
                r += self.ret[o.index()];
            }
        }
        let win = self.win[seat.index()] - w / others;
        let ret = self.ret[seat.index()] - r / others;
        (win, ret / 2.0)
    }
}

/// Measures luck with a net, roll by roll: an [`Observer`] of a game. It allocates nothing
/// per roll; at ply 0 each roll costs a net evaluation of every legal move's afterstate of
/// each face, at ply 1 some 10 times that, at ply 2 some 50 times, at ply 3 some 250 times.
#[derive(Clone, Debug)]
pub struct LuckMeter {
    net: Arc<Net>,
    enc: Encoder,
    fx: Features,
    scratch: Scratch,
    lists: [MoveList; 6],
    game: GameLuck,
    ply: u8,
    /// Per search depth: the legal moves of each face.
    deep: Vec<[MoveList; 6]>,
}

impl LuckMeter {
    /// A meter for games of `rules` with `players`; refused (the message says what differs)
    /// unless the net was trained for exactly these rules and players.
    pub fn new(net: Arc<Net>, rules: &Rules, players: usize) -> Result<LuckMeter, String> {
        net.check_fit(rules, players, false).map_err(|e| {
            e.replace(
                "; give any_rules=true to play it anyway",
                ": luck is measured only by a net of the run's own rules",
            )
        })?;
        Ok(LuckMeter {
            enc: net.encoder(),
            net,
            fx: Features::default(),
            scratch: Scratch::default(),
            lists: [MoveList::default(); 6],
            game: GameLuck::default(),
            ply: 0,
            deep: Vec::new(),
        })
    }

    /// The same meter measuring at `ply` (see [`LuckMeter::seat_faces`]).
    pub fn with_ply(self, ply: LuckPly) -> LuckMeter {
        let ply = ply.get();
        LuckMeter {
            ply,
            deep: vec![[MoveList::default(); 6]; usize::from(ply) + 1],
            game: GameLuck {
                every_seat: ply > 0,
                ..GameLuck::default()
            },
            ..self
        }
    }

    /// The depth of the measure.
    pub fn ply(&self) -> u8 {
        self.ply
    }

    /// The net.
    pub fn net(&self) -> &Arc<Net> {
        &self.net
    }

    /// The value for `seat` of `game`, a position before a roll: exact when decided.
    fn value(&mut self, game: &Game, seat: Seat) -> Value {
        if game.is_over() || game.has_finished(seat) {
            let ret = crate::td::selfplay::decided_value(game, seat).unwrap_or(0.0);
            return Value {
                win: f64::from(u8::from(game.rank(seat) == Some(1))),
                ret: f64::from(ret),
            };
        }
        self.enc.encode(game, seat, &mut self.fx);
        self.net.weights.forward(&self.fx, &mut self.scratch);
        let n = self.net.players;
        Value {
            win: f64::from(self.scratch.probs[0]),
            ret: f64::from(crate::td::net::expected_return(&self.scratch.probs[..n])),
        }
    }

    /// The value for the seat to move of the position after each face (index: face - 1) at
    /// `before`, a position before a roll of a game not over: the net's best afterstate for the
    /// face, or the position after the pass.
    pub fn faces(&mut self, before: &Game) -> [Value; 6] {
        let seat = before.to_move();
        before.legal_moves_all(&mut self.lists);
        let mut out = [Value::default(); 6];
        for roll in 1..=6u8 {
            let list = self.lists[usize::from(roll - 1)];
            out[usize::from(roll - 1)] = if list.is_empty() {
                let mut g = *before;
                g.apply(roll, None);
                self.value(&g, seat)
            } else {
                let mut best = Value {
                    win: f64::NEG_INFINITY,
                    ret: f64::NEG_INFINITY,
                };
                for &m in list.iter() {
                    let mut g = *before;
                    g.apply(roll, Some(m));
                    let v = self.value(&g, seat);
                    if v.ret > best.ret {
                        best = v;
                    }
                }
                best
            };
        }
        out
    }

    /// The luck of rolling `roll` at `before` for the seat to move: the face's value minus the
    /// mean over the six faces.
    pub fn roll_luck(&mut self, before: &Game, roll: u8) -> Value {
        let faces = self.faces(before);
        luck_of(&faces, roll)
    }

    /// The value for `seat` of `game` (a position before a roll) by the net alone, its rank
    /// probabilities restricted to the ranks still open: exact when decided; otherwise the
    /// probability of a rank another seat has already taken is dropped and the rest scaled
    /// to sum to 1 (`probs`, when given, are the net's raw output for this seat here).
    fn open_value(&mut self, game: &Game, seat: Seat, probs: Option<[f32; 4]>) -> Value {
        if game.is_over() || game.has_finished(seat) {
            return self.value(game, seat);
        }
        let probs = probs.unwrap_or_else(|| {
            self.enc.encode(game, seat, &mut self.fx);
            self.net.weights.forward(&self.fx, &mut self.scratch);
            self.scratch.probs
        });
        let n = self.net.players;
        let mut taken = [false; 4];
        for &s in game.seats() {
            if let Some(r) = game.rank(s) {
                taken[usize::from(r) - 1] = true;
            }
        }
        let mut p = [0.0f64; 4];
        for r in 0..n {
            if !taken[r] {
                p[r] = f64::from(probs[r]);
            }
        }
        let total: f64 = p[..n].iter().sum();
        let open = taken[..n].iter().filter(|&&t| !t).count() as f64;
        let (mut win, mut ret) = (0.0, 0.0);
        for r in 0..n {
            if taken[r] {
                continue;
            }
            let q = if total > 0.0 {
                p[r] / total
            } else {
                1.0 / open
            };
            if r == 0 {
                win = q;
            }
            ret += q * f64::from(crate::td::net::payoff(r, n));
        }
        Value { win, ret }
    }

    /// The position after `roll` at `game` (a position before a roll of a game not over):
    /// the afterstate of the mover's best move by the net at ply 0 (the first in the engine's
    /// order among equals), or the position after the pass; with the net's raw output for
    /// the mover there when it was evaluated.
    fn best_after(&mut self, game: &Game, roll: u8, list: &MoveList) -> (Game, Option<[f32; 4]>) {
        let seat = game.to_move();
        let mut after = *game;
        if list.is_empty() {
            after.apply(roll, None);
            return (after, None);
        }
        let mut best = f64::NEG_INFINITY;
        let mut probs = None;
        for &m in list.iter() {
            let mut g = *game;
            g.apply(roll, Some(m));
            let v = self.value(&g, seat);
            if v.ret > best {
                best = v.ret;
                after = g;
                probs = (!(g.is_over() || g.has_finished(seat))).then_some(self.scratch.probs);
            }
        }
        (after, probs)
    }

    /// Every seat's value (index: seat) of `game`, a position before a roll, searched
    /// `depth` rolls deep: at depth 0 the net's for each seat ([`Self::open_value`]); deeper,
    /// the mean over the six faces of the position after each (the mover's best move by the
    /// net at ply 0) searched one roll less deep. `mover` holds the net's raw output for the
    /// seat that moved to `game`, when known.
    fn seat_values(
        &mut self,
        game: &Game,
        depth: u8,
        mover: Option<(Seat, [f32; 4])>,
    ) -> [Value; 4] {
        let mut out = [Value::default(); 4];
        if depth == 0 || game.is_over() {
            for &s in game.seats() {
                let probs = mover.and_then(|(m, p)| (m == s).then_some(p));
                out[s.index()] = self.open_value(game, s, probs);
            }
            return out;
        }
        let slot = usize::from(depth);
        game.legal_moves_all(&mut self.deep[slot]);
        let lists = self.deep[slot];
        let seat = game.to_move();
        let mut passed: Option<(Game, [Value; 4])> = None;
        for roll in 1..=6u8 {
            let list = &lists[usize::from(roll - 1)];
            let (after, probs) = self.best_after(game, roll, list);
            let v = match passed {
                Some((g, v)) if list.is_empty() && g == after => v,
                _ => {
                    let v = self.seat_values(&after, depth - 1, probs.map(|p| (seat, p)));
                    if list.is_empty() {
                        passed = Some((after, v));
                    }
                    v
                }
            };
            for (o, x) in out.iter_mut().zip(v) {
                o.win += x.win;
                o.ret += x.ret;
            }
        }
        out.map(|v| Value {
            win: v.win / 6.0,
            ret: v.ret / 6.0,
        })
    }

    /// Every seat's value (index: face - 1, then seat) of the position after each face at
    /// `before` (a position before a roll of a game not over), measured at the meter's ply
    /// (1 to 3; at 0 it is one roll deep all the same): the afterstate of the roller's best
    /// move for the face by the net at ply 0, or the position after the pass, valued for
    /// every seat by the mean over the next `ply` rolls (each mover's best move by the net at
    /// ply 0) of the net's value there for each seat, its rank probabilities restricted to
    /// the ranks still open. A decided position is valued exactly.
    pub fn seat_faces(&mut self, before: &Game) -> [[Value; 4]; 6] {
        let depth = self.ply.max(1);
        if self.deep.len() <= usize::from(depth) {
            self.deep = vec![[MoveList::default(); 6]; usize::from(depth) + 1];
        }
        let seat = before.to_move();
        before.legal_moves_all(&mut self.deep[0]);
        let lists = self.deep[0];
        let mut out = [[Value::default(); 4]; 6];
        let mut passed: Option<(Game, [Value; 4])> = None;
        for roll in 1..=6u8 {
            let list = &lists[usize::from(roll - 1)];
            let (after, probs) = self.best_after(before, roll, list);
            out[usize::from(roll - 1)] = match passed {
                Some((g, v)) if list.is_empty() && g == after => v,
                _ => {
                    let v = self.seat_values(&after, depth, probs.map(|p| (seat, p)));
                    if list.is_empty() {
                        passed = Some((after, v));
                    }
                    v
                }
            };
        }
        out
    }

    /// The luck of rolling `roll` at `before` for every seat (index: seat; 0 for seats not in
    /// play), measured as [`Self::seat_faces`] values the faces: each seat's value after this
    /// face minus its mean over the six faces, then centred over the seats in play (the
    /// seats' luck sums to 0: what a roll gives one seat it takes from the others).
    pub fn seat_luck(&mut self, before: &Game, roll: u8) -> [Value; 4] {
        let faces = self.seat_faces(before);
        seat_luck_of(&faces, roll, before.seats())
    }

    /// Starts a new game.
    pub fn begin(&mut self) {
        self.game = GameLuck {
            every_seat: self.ply > 0,
            ..GameLuck::default()
        };
    }

    /// The luck of the game measured since [`LuckMeter::begin`].
    pub fn game(&self) -> GameLuck {
        self.game
    }
}

/// The luck of `roll` given the six faces' values: that face's minus their mean.
pub fn luck_of(faces: &[Value; 6], roll: u8) -> Value {
    let (w, r) = faces
        .iter()
        .fold((0.0, 0.0), |(w, r), v| (w + v.win, r + v.ret));
    let f = faces[usize::from(roll - 1)];
    Value {
        win: f.win - w / 6.0,
        ret: f.ret - r / 6.0,
    }
}

/// The luck of `roll` for every seat given each face's values for every seat (index: face -
/// 1, then seat): each seat's value after that face minus its mean over the faces, centred
/// over `seats` (the seats in play; the others' luck is 0).
pub fn seat_luck_of(faces: &[[Value; 4]; 6], roll: u8, seats: &[Seat]) -> [Value; 4] {
    let mut own = [Value::default(); 4];
    for &s in seats {
        let col: [Value; 6] = std::array::from_fn(|g| faces[g][s.index()]);
        own[s.index()] = luck_of(&col, roll);
    }
    let n = seats.len() as f64;
    let (w, r) = seats.iter().fold((0.0, 0.0), |(w, r), s| {
        (w + own[s.index()].win, r + own[s.index()].ret)
    });
    let mut out = [Value::default(); 4];
    for &s in seats {
        out[s.index()] = Value {
            win: own[s.index()].win - w / n,
            ret: own[s.index()].ret - r / n,
        };
    }
    out
}

impl Observer for LuckMeter {
    #[inline]
    fn on_roll(&mut self, before: &Game, outcome: &Outcome) {
        let s = outcome.seat.index();
        if self.ply == 0 {
            let l = self.roll_luck(before, outcome.roll);
            self.game.win[s] += l.win;
            self.game.ret[s] += l.ret;
        } else {
            let l = self.seat_luck(before, outcome.roll);
            for (k, v) in l.iter().enumerate() {
                self.game.win[k] += v.win;
                self.game.ret[k] += v.ret;
            }
        }
        self.game.rolls[s] += 1;
    }
}

/// Two observers at once (the decision log and the luck meter).
pub struct Both<'a, A: Observer + ?Sized, B: Observer + ?Sized>(pub &'a mut A, pub &'a mut B);

impl<A: Observer + ?Sized, B: Observer + ?Sized> Observer for Both<'_, A, B> {
    fn on_roll(&mut self, before: &Game, outcome: &Outcome) {
        self.0.on_roll(before, outcome);
        self.1.on_roll(before, outcome);
    }
    fn on_choice(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[aeroplane_core::Move],
        chosen: usize,
        bot: &dyn aeroplane_core::Bot,
    ) {
        self.0.on_choice(game, roll, moves, chosen, bot);
        self.1.on_choice(game, roll, moves, chosen, bot);
    }
    fn sees_choices(&self) -> bool {
        self.0.sees_choices() || self.1.sees_choices()
    }
    fn on_end(&mut self, last: &Game) {
        self.0.on_end(last);
        self.1.on_end(last);
    }
}

/// Sums over deals of one measure for one lineup entry: the plain result `y` and its luck `l`
/// per deal (summed over the entry's games in the deal), with their squares and product.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Moments {
    /// Σ y.
    pub y: f64,
    /// Σ l.
    pub l: f64,
    /// Σ y².
    pub yy: f64,
    /// Σ l².
    pub ll: f64,
    /// Σ y l.
    pub yl: f64,
}

impl Moments {
    /// Counts one deal's sums: the result `y` and its luck `l`.
    pub fn add(&mut self, y: f64, l: f64) {
        self.y += y;
        self.l += l;
        self.yy += y * y;
        self.ll += l * l;
        self.yl += y * l;
    }

    /// Adds another set of deals' sums.
    pub fn merge(&mut self, o: &Moments) {
        self.y += o.y;
        self.l += o.l;
        self.yy += o.yy;
        self.ll += o.ll;
        self.yl += o.yl;
    }
}

/// A run's luck: per lineup entry, the moments of its wins and scores and their net luck, by
/// deal. Folded in plan order (as every tally of a job is), so its sums are the same floats for
/// any thread count, resume or shard split.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LuckTally {
    /// Deals counted.
    pub deals: u64,
    /// Games counted per lineup entry.
    pub games: [u64; 4],
    /// Rolls measured.
    pub rolls: u64,
    /// Wins (1 for rank 1) and their win luck, per lineup entry.
    pub win: [Moments; 4],
    /// Scores (`(1 + return) / 2`) and their score luck, per lineup entry.
    pub score: [Moments; 4],
}

/// The score of finishing rank `rank` (1-based; 0 unranked) of `players` in a game whose
/// ranks are `ranks` (index seat): `(1 + return) / 2`, an unranked seat sharing the ranks left.
pub fn score_of(ranks: &[u8; 4], seat: Seat, players: usize) -> f64 {
    let n = players as f64;
    let value = |r: u8| (n + 1.0 - 2.0 * f64::from(r)) / (n - 1.0);
    let ret = match ranks[seat.index()] {
        0 => {
            let seats = Seat::in_play(players);
            let taken: Vec<u8> = seats
                .iter()
                .map(|s| ranks[s.index()])
                .filter(|&r| r > 0)
                .collect();
            let unranked = players - taken.len();
            let left: f64 = (1..=players as u8)
                .filter(|r| !taken.contains(r))
                .map(value)
                .sum();
            left / unranked as f64
        }
        r => value(r),
    };
    (1.0 + ret) / 2.0
}

impl LuckTally {
    /// Counts one deal: its games and each game's luck.
    pub fn add_deal(&mut self, games: &[Played], luck: &[GameLuck], players: usize) {
        let mut y = [(0.0f64, 0.0f64, 0.0f64, 0.0f64); 4];
        for (p, l) in games.iter().zip(luck) {
            for (seat, &bot) in p.bot_at_seat.iter().enumerate() {
                if bot == NO_BOT {
                    continue;
                }
                let s = Seat::in_play(players)
                    .iter()
                    .copied()
                    .find(|x| x.index() == seat)
                    .expect("a seat in play");
                let (lw, ls) = l.net(s, players);
                let b = usize::from(bot);
                y[b].0 += f64::from(u8::from(p.record.ranks[seat] == 1));
                y[b].1 += lw;
                y[b].2 += score_of(&p.record.ranks, s, players);
                y[b].3 += ls;
                self.games[b] += 1;
            }
            self.rolls += l.rolls.iter().map(|&r| u64::from(r)).sum::<u64>();
        }
        for ((w, s), y) in self
            .win
            .iter_mut()
            .zip(&mut self.score)
            .zip(&y)
            .take(players)
        {
            w.add(y.0, y.1);
            s.add(y.2, y.3);
        }
        self.deals += 1;
    }

    /// Adds another unit's tally (after this one, in plan order).
    pub fn merge(&mut self, o: &LuckTally) {
        self.deals += o.deals;
        self.rolls += o.rolls;
        for b in 0..4 {
            self.games[b] += o.games[b];
            self.win[b].merge(&o.win[b]);
            self.score[b].merge(&o.score[b]);
        }
    }
}

/// One measure's plain and luck-adjusted figures.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Adjusted {
    /// The plain mean (per game).
    pub plain: f64,
    /// Its 95% normal interval, clustered by deal, clipped to [0, 1] (the same method as
    /// `adjusted`'s, for the variance ratio).
    pub plain_interval: Option<(f64, f64)>,
    /// The mean net luck per game.
    pub luck: f64,
    /// The adjusted mean: `plain - luck`.
    pub adjusted: f64,
    /// Its 95% normal interval, clustered by deal, clipped to [0, 1].
    pub interval: Option<(f64, f64)>,
    /// The plain estimator's variance over the adjusted one's: how many times as many games
    /// the plain figure needs for the same interval width.
    pub variance_ratio: Option<f64>,
}

/// The cluster-robust variance of a mean per game `Σ y / games` with per-deal sums whose
/// `Σ y` and `Σ y²` are given, `k` deals of `m` games of the entry each.
fn clustered_var(sum: f64, sum_sq: f64, k: u64, games: u64) -> Option<f64> {
    if k < 2 || games == 0 {
        return None;
    }
    let (kf, t) = (k as f64, games as f64);
    let m = t / kf;
    let mean = sum / t;
    // Σ (y_d - mean m)² = Σ y² - 2 mean m Σ y + k mean² m².
    let ss = (sum_sq - 2.0 * mean * m * sum + kf * mean * mean * m * m).max(0.0);
    Some(ss * kf / (kf - 1.0) / (t * t))
}

impl Adjusted {
    /// The figures of one entry's moments over `deals` deals and `games` games.
    pub fn new(m: &Moments, deals: u64, games: u64, z: f64) -> Adjusted {
        let t = games.max(1) as f64;
        // The adjusted per-deal sums are y - l: Σ (y - l)² = Σ y² - 2 Σ y l + Σ l².
        let var_plain = clustered_var(m.y, m.yy, deals, games);
        let var_adj = clustered_var(m.y - m.l, m.yy - 2.0 * m.yl + m.ll, deals, games);
        Adjusted::of(m.y / t, m.l / t, var_plain, var_adj, z)
    }

    /// The figures of a plain mean and its luck per result with the two estimators'
    /// variances. Both measures (a win, a score) lie in [0, 1], and so does every interval:
    /// the normal interval clipped to that range (at a few deals the adjusted one can reach
    /// past it; the truth never does).
    fn of(plain: f64, luck: f64, var_plain: Option<f64>, var_adj: Option<f64>, z: f64) -> Adjusted {
        let adjusted = plain - luck;
        let interval = |mean: f64, v: Option<f64>| {
            v.map(|v| {
                let half = z * v.sqrt();
                ((mean - half).clamp(0.0, 1.0), (mean + half).clamp(0.0, 1.0))
            })
        };
        Adjusted {
            plain,
            plain_interval: interval(plain, var_plain),
            luck,
            adjusted,
            interval: interval(adjusted, var_adj),
            variance_ratio: match (var_plain, var_adj) {
                (Some(p), Some(a)) if a > 0.0 => Some(p / a),
                _ => None,
            },
        }
    }
}

/// [`Moments`] of a measure whose number of results differs from deal to deal (a league's
/// bot sits at tables of its pool, a pair of bots meets there, a different number of times):
/// the sums over deals with each deal's count `n` of results. The mean is the ratio
/// `Σ y / Σ n`, its variance the ratio estimator's, clustered by deal: with the same count in
/// every deal it is [`Adjusted::new`]'s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RatioMoments {
    /// Deals with at least one result.
    pub deals: u64,
    /// Σ n (results).
    pub n: f64,
    /// Σ n².
    pub nn: f64,
    /// Σ n y.
    pub ny: f64,
    /// Σ n l.
    pub nl: f64,
    /// The sums of the results and their luck.
    pub m: Moments,
}

impl RatioMoments {
    /// Counts one deal: its `n` results summing to `y`, with luck summing to `l` (a deal
    /// without results is not counted).
    pub fn add(&mut self, n: u64, y: f64, l: f64) {
        if n == 0 {
            return;
        }
        let n = n as f64;
        self.deals += 1;
        self.n += n;
        self.nn += n * n;
        self.ny += n * y;
        self.nl += n * l;
        self.m.add(y, l);
    }

    /// Adds other deals' sums.
    pub fn merge(&mut self, o: &RatioMoments) {
        self.deals += o.deals;
        self.n += o.n;
        self.nn += o.nn;
        self.ny += o.ny;
        self.nl += o.nl;
        self.m.merge(&o.m);
    }

    /// Results counted.
    pub fn results(&self) -> u64 {
        self.n as u64
    }

    /// The plain and adjusted figures, 95% intervals at `z`.
    pub fn adjusted(&self, z: f64) -> Adjusted {
        let t = self.n.max(1.0);
        let (plain, luck) = (self.m.y / t, self.m.l / t);
        // The ratio estimator's variance of `Σ a / Σ n` for per-deal sums `a`:
        // k / (k - 1) Σ (a_d - r n_d)² / (Σ n)², the square expanded.
        let var = |r: f64, aa: f64, na: f64| {
            (self.deals >= 2).then(|| {
                let k = self.deals as f64;
                let ss = (aa - 2.0 * r * na + r * r * self.nn).max(0.0);
                ss * k / (k - 1.0) / (t * t)
            })
        };
        let m = &self.m;
        let var_plain = var(plain, m.yy, self.ny);
        let var_adj = var(plain - luck, m.yy - 2.0 * m.yl + m.ll, self.ny - self.nl);
        Adjusted::of(plain, luck, var_plain, var_adj, z)
    }
}

/// One lineup entry's luck-adjusted figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LuckLine {
    /// Lineup index.
    pub index: usize,
    /// Display name.
    pub name: String,
    /// Games.
    pub games: u64,
    /// The win rate.
    pub win_rate: Adjusted,
    /// The score.
    pub score: Adjusted,
}

/// A run's luck report: the net and the figures per lineup entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LuckReport {
    /// The net file as given.
    pub net: String,
    /// The net's checksum (as its metadata records it).
    pub net_checksum: String,
    /// The depth of the measure (`luck_ply`; absent for 0).
    #[serde(skip_serializing_if = "LuckPly::is_zero")]
    pub ply: LuckPly,
    /// Deals.
    pub deals: u64,
    /// Rolls measured.
    pub rolls: u64,
    /// Per lineup entry.
    pub bots: Vec<LuckLine>,
}

impl LuckReport {
    /// The figures of `t` for lineup `names`, measured by the net `net` (`checksum`).
    pub fn new(t: &LuckTally, names: &[String], net: &str, checksum: u64) -> LuckReport {
        let z = crate::stats::z_for(0.95);
        LuckReport {
            net: net.to_string(),
            net_checksum: format!("{checksum:016x}"),
            ply: LuckPly::ZERO,
            deals: t.deals,
            rolls: t.rolls,
            bots: names
                .iter()
                .enumerate()
                .map(|(k, name)| LuckLine {
                    index: k,
                    name: name.clone(),
                    games: t.games[k],
                    win_rate: Adjusted::new(&t.win[k], t.deals, t.games[k], z),
                    score: Adjusted::new(&t.score[k], t.deals, t.games[k], z),
                })
                .collect(),
        }
    }

    /// The same report, its luck measured at `ply`.
    pub fn at_ply(self, ply: LuckPly) -> LuckReport {
        LuckReport { ply, ..self }
    }

    /// The text block printed after a run's report.
    pub fn write_text(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        use crate::stats::{pct, pct_interval as iv, signed_pct};
        let ratio = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{r:.2}x"));
        let ply = if self.ply.is_zero() {
            String::new()
        } else {
            format!(" at ply {}", self.ply)
        };
        writeln!(
            w,
            "\nluck-adjusted (net {}{ply}, {} rolls measured; docs/LUCK.md; intervals 95% normal, clustered by deal):",
            self.net, self.rolls
        )?;
        writeln!(
            w,
            "  {:<24} {:>8} {:>9} {:>8} {:<18} {:>9}   {:>8} {:>8} {:<18} {:>9}",
            "bot",
            "win",
            "luck",
            "adj win",
            "interval",
            "var ratio",
            "score",
            "adj",
            "interval",
            "var ratio"
        )?;
        for b in &self.bots {
            writeln!(
                w,
                "  {:<24} {:>8} {:>9} {:>8} {:<18} {:>9}   {:>8} {:>8} {:<18} {:>9}",
                b.name,
                pct(b.win_rate.plain),
                signed_pct(b.win_rate.luck),
                pct(b.win_rate.adjusted),
                iv(b.win_rate.interval),
                ratio(b.win_rate.variance_ratio),
                pct(b.score.plain),
                pct(b.score.adjusted),
                iv(b.score.interval),
                ratio(b.score.variance_ratio),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::{Preset, SeededDice, play_game};

    fn shipped(name: &str) -> Arc<Net> {
        crate::bots::td::load_net(std::path::Path::new(&format!(
            "bots/nets/{name}.safetensors"
        )))
        .unwrap()
    }

    /// Positions of a game of greedy bots, each before a roll.
    fn positions(preset: Preset, players: usize, seed: u64) -> Vec<Game> {
        struct Keep(Vec<Game>);
        impl Observer for Keep {
            fn on_roll(&mut self, before: &Game, _: &Outcome) {
                self.0.push(*before);
            }
        }
        let start = Game::new(preset.rules(), players).unwrap();
        let mut bots: Vec<Box<dyn aeroplane_core::Bot>> = (0..players)
            .map(|_| Box::new(aeroplane_core::Greedy) as Box<dyn aeroplane_core::Bot>)
            .collect();
        let mut keep = Keep(Vec::new());
        play_game(start, &mut bots, &mut SeededDice::new(seed, 0), &mut keep).unwrap();
        keep.0
    }

    /// Every roll's luck, for the roller, has mean zero over the six faces, at every position
    /// of whole games, with a shipped net and with a net of random weights.
    #[test]
    fn luck_has_mean_zero_over_the_faces() {
        let random = {
            let good = shipped("td-classic-4p");
            let mut rng = rand_pcg::Pcg32::new(5, 7);
            use rand::RngExt;
            let w = crate::td::net::Weights::random(good.weights.inputs, 8, 4, || {
                rng.random_range(-3.0f32..3.0)
            });
            Arc::new(Net {
                weights: w,
                ..(*good).clone()
            })
        };
        for net in [shipped("td-classic-4p"), random] {
            let mut m = LuckMeter::new(net, &Preset::Classic.rules(), 4).unwrap();
            let mut seen = 0;
            for g in positions(Preset::Classic, 4, 11) {
                let (mut w, mut r, mut spread) = (0.0, 0.0, 0.0f64);
                for roll in 1..=6 {
                    let l = m.roll_luck(&g, roll);
                    w += l.win;
                    r += l.ret;
                    spread = spread.max(l.ret.abs());
                }
                assert!(w.abs() < 1e-12 && r.abs() < 1e-12, "{g}: sums {w} {r}");
                seen += u32::from(spread > 1e-6);
            }
            assert!(
                seen > 50,
                "luck is not always zero: {seen} positions with luck"
            );
        }
    }

    /// At the start of chinese (a plane leaves the hangar only on a 6), faces 1 to 5 pass:
    /// the 6's luck is 5/6 of the difference between launching and passing, each other face's
    /// minus 1/6 of it, with the values the net gives those two positions.
    #[test]
    fn the_first_roll_by_hand() {
        let net = shipped("td-chinese-2p");
        let rules = Preset::Chinese.rules();
        let start = Game::new(rules, 2).unwrap();
        let seat = start.to_move();
        let enc = net.encoder();
        let mut fx = Features::default();
        let mut s = Scratch::default();
        let mut value = |g: &Game| {
            enc.encode(g, seat, &mut fx);
            net.weights.forward(&fx, &mut s);
            (
                f64::from(s.probs[0]),
                f64::from(crate::td::net::expected_return(&s.probs[..2])),
            )
        };
        let mut pass = start;
        pass.apply(3, None);
        let moves = start.legal_moves(6);
        assert_eq!(moves.len(), 1, "one launch (the planes are alike)");
        let mut launch = start;
        launch.apply(6, Some(moves[0]));
        let (pw, pr) = value(&pass);
        let (lw, lr) = value(&launch);
        let mut m = LuckMeter::new(net.clone(), &rules, 2).unwrap();
        let six = m.roll_luck(&start, 6);
        assert!((six.ret - 5.0 / 6.0 * (lr - pr)).abs() < 1e-12);
        assert!((six.win - 5.0 / 6.0 * (lw - pw)).abs() < 1e-12);
        for roll in 1..=5 {
            let l = m.roll_luck(&start, roll);
            assert!((l.ret + (lr - pr) / 6.0).abs() < 1e-12);
        }
        assert!(
            (lr - pr).abs() > 1e-6,
            "the two positions differ to the net"
        );
    }

    /// A net of the shipped one's sizes with random weights.
    fn random_net(name: &str) -> Arc<Net> {
        let good = shipped(name);
        let mut rng = rand_pcg::Pcg32::new(5, 7);
        use rand::RngExt;
        let w = crate::td::net::Weights::random(good.weights.inputs, 8, good.players, || {
            rng.random_range(-3.0f32..3.0)
        });
        Arc::new(Net {
            weights: w,
            ..(*good).clone()
        })
    }

    /// Every seat's value at `game` searched `depth` rolls deep, the slow way: the definition
    /// of [`LuckMeter::seat_faces`] (no pass shared, every net output computed afresh).
    fn reference(net: &Net, game: &Game, depth: u8) -> [(f64, f64); 4] {
        let enc = net.encoder();
        let n = game.players();
        let raw = |g: &Game, s: Seat| {
            let mut fx = Features::default();
            let mut sc = Scratch::default();
            enc.encode(g, s, &mut fx);
            net.weights.forward(&fx, &mut sc);
            sc.probs
        };
        let exact = |g: &Game, s: Seat| {
            (g.is_over() || g.has_finished(s)).then(|| {
                let ret = crate::td::selfplay::decided_value(g, s).unwrap_or(0.0);
                (f64::from(u8::from(g.rank(s) == Some(1))), f64::from(ret))
            })
        };
        if depth == 0 || game.is_over() {
            let mut out = [(0.0, 0.0); 4];
            for &s in game.seats() {
                out[s.index()] = exact(game, s).unwrap_or_else(|| {
                    let p = raw(game, s);
                    let open: Vec<usize> = (0..n)
                        .filter(|&r| {
                            game.seats()
                                .iter()
                                .all(|&o| game.rank(o) != Some(r as u8 + 1))
                        })
                        .collect();
                    let total: f64 = open.iter().map(|&r| f64::from(p[r])).sum();
                    let q = |r: usize| f64::from(p[r]) / total;
                    (
                        if open.contains(&0) { q(0) } else { 0.0 },
                        open.iter()
                            .map(|&r| q(r) * f64::from(crate::td::net::payoff(r, n)))
                            .sum(),
                    )
                });
            }
            return out;
        }
        let mover = game.to_move();
        let mut out = [(0.0, 0.0); 4];
        for roll in 1..=6u8 {
            let moves = game.legal_moves(roll);
            let mut after = *game;
            if moves.is_empty() {
                after.apply(roll, None);
            } else {
                let mut best = f64::NEG_INFINITY;
                for &m in moves.iter() {
                    let mut g = *game;
                    g.apply(roll, Some(m));
                    let v = exact(&g, mover).map_or_else(
                        || f64::from(crate::td::net::expected_return(&raw(&g, mover)[..n])),
                        |e| e.1,
                    );
                    if v > best {
                        best = v;
                        after = g;
                    }
                }
            }
            let v = reference(net, &after, depth - 1);
            for (o, x) in out.iter_mut().zip(v) {
                o.0 += x.0 / 6.0;
                o.1 += x.1 / 6.0;
            }
        }
        out
    }

    /// At ply 1 to 3, each face's value for every seat is the definition's (computed the
    /// slow way), at positions of a four-player classic game (ranks taken among them) and a
    /// two-player chinese one (faces that pass), with a shipped net and a random one.
    #[test]
    fn seat_faces_are_the_definition() {
        for (preset, players, name) in [
            (Preset::Classic, 4, "td-classic-4p"),
            (Preset::Chinese, 2, "td-chinese-2p"),
        ] {
            let games = positions(preset, players, 11);
            for net in [shipped(name), random_net(name)] {
                for (ply, every) in [(1u8, 37), (2, 211), (3, 211)] {
                    let mut m = LuckMeter::new(net.clone(), &preset.rules(), players)
                        .unwrap()
                        .with_ply(LuckPly::new(i64::from(ply)).unwrap());
                    for g in games.iter().step_by(every) {
                        let faces = m.seat_faces(g);
                        for roll in 1..=6u8 {
                            let mut after = *g;
                            let moves = g.legal_moves(roll);
                            // The face's afterstate as the meter picks it, by the reference.
                            let mut best = f64::NEG_INFINITY;
                            if moves.is_empty() {
                                after.apply(roll, None);
                            }
                            for &mv in moves.iter() {
                                let mut a = *g;
                                a.apply(roll, Some(mv));
                                let v = m.value(&a, g.to_move()).ret;
                                if v > best {
                                    best = v;
                                    after = a;
                                }
                            }
                            let want = reference(&net, &after, ply);
                            for &s in g.seats() {
                                let got = faces[usize::from(roll - 1)][s.index()];
                                let (w, r) = want[s.index()];
                                assert!(
                                    (got.win - w).abs() < 1e-12 && (got.ret - r).abs() < 1e-12,
                                    "{g}: face {roll} seat {s:?}: {got:?} against ({w}, {r})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// At ply 1 to 3 every roll's luck, for every seat, has mean zero over the six faces,
    /// and at each face the seats' luck sums to zero, at every position of whole games (ply 2:
    /// every 9th, ply 3: every 11th), with a shipped net and a net of random weights; once a seat has won, the
    /// others' win values are exactly 0.
    #[test]
    fn every_seat_luck_has_mean_zero_over_the_faces() {
        for (preset, players, name) in [
            (Preset::Classic, 4, "td-classic-4p"),
            (Preset::AppFreeGame, 3, "td-appfreegame-4p"),
            (Preset::Chinese, 2, "td-chinese-2p"),
        ] {
            // No three-player net is shipped: a random one of three outputs.
            let nets = if players == 3 {
                let good = shipped(name);
                let enc = crate::td::encoding::Encoder::new(&preset.rules(), 3);
                let mut rng = rand_pcg::Pcg32::new(9, 7);
                use rand::RngExt;
                let w = crate::td::net::Weights::random(enc.inputs(), 16, 3, || {
                    rng.random_range(-3.0f32..3.0)
                });
                vec![Arc::new(Net {
                    weights: w,
                    players: 3,
                    ..(*good).clone()
                })]
            } else {
                vec![shipped(name), random_net(name)]
            };
            let games = positions(preset, players, 11);
            for net in nets {
                for (ply, every) in [(1u8, 1), (2, 9), (3, 11)] {
                    let mut m = LuckMeter::new(net.clone(), &preset.rules(), players)
                        .unwrap()
                        .with_ply(LuckPly::new(i64::from(ply)).unwrap());
                    let (mut seen, mut tested) = (0, 0);
                    for g in games.iter().step_by(every) {
                        tested += 1;
                        let faces = m.seat_faces(g);
                        let mut sums = [(0.0f64, 0.0f64); 4];
                        let mut spread = 0.0f64;
                        for roll in 1..=6u8 {
                            let l = seat_luck_of(&faces, roll, g.seats());
                            let (w, r) =
                                l.iter().fold((0.0, 0.0), |a, v| (a.0 + v.win, a.1 + v.ret));
                            assert!(
                                w.abs() < 1e-12 && r.abs() < 1e-12,
                                "{g}: face {roll}: {w} {r}"
                            );
                            for (s, v) in sums.iter_mut().zip(&l) {
                                s.0 += v.win;
                                s.1 += v.ret;
                                spread = spread.max(v.ret.abs());
                            }
                            if g.seats().iter().any(|&s| g.rank(s) == Some(1)) {
                                for &s in g.seats() {
                                    let v = faces[usize::from(roll - 1)][s.index()].win;
                                    assert_eq!(v, f64::from(u8::from(g.rank(s) == Some(1))), "{g}");
                                }
                            }
                        }
                        for (w, r) in sums {
                            assert!(w.abs() < 1e-12 && r.abs() < 1e-12, "{g}: sums {w} {r}");
                        }
                        seen += u32::from(spread > 1e-6);
                    }
                    assert!(
                        seen > 10 && 2 * seen > tested,
                        "luck is not always zero: {seen} of {tested} positions with luck"
                    );
                    assert_eq!(
                        m.seat_luck(&games[3], 4),
                        seat_luck_of(&m.seat_faces(&games[3]), 4, games[3].seats())
                    );
                }
            }
        }
    }

    /// Measured for every seat, a seat's net luck is its own sums (no share of the others').
    #[test]
    fn every_seat_net_luck_is_the_seat_own() {
        let l = GameLuck {
            win: [0.25, -0.125, -0.125, 0.0],
            ret: [0.5, 0.0, -0.5, 0.0],
            rolls: [3, 2, 2, 0],
            every_seat: true,
        };
        let seats = Seat::in_play(3);
        assert_eq!(l.net(seats[0], 3), (0.25, 0.25));
        assert_eq!(
            l.net(seats[2], 3),
            (l.win[seats[2].index()], l.ret[seats[2].index()] / 2.0)
        );
        let roller = GameLuck {
            every_seat: false,
            ..l
        };
        assert_eq!(
            roller.net(seats[0], 3).0,
            0.25 - (-0.125 + l.win[seats[2].index()]) / 2.0
        );
    }

    #[test]
    fn luck_ply_is_checked_where_it_is_made() {
        assert_eq!(LuckPly::new(0), Ok(LuckPly::ZERO));
        assert_eq!(LuckPly::new(3), Ok(LuckPly::MAX));
        assert_eq!(LuckPly::new(2).map(LuckPly::get), Ok(2));
        for bad in [4, -1, 256, i64::MAX, i64::MIN] {
            let e = LuckPly::new(bad).unwrap_err().to_string();
            assert_eq!(
                e,
                format!("`luck_ply` is {bad}: the luck is measured at ply 0 to 3")
            );
        }
        // Its serde form is the number, checked on the way in.
        assert_eq!(serde_json::to_string(&LuckPly::MAX).unwrap(), "3");
        assert_eq!(serde_json::from_str::<LuckPly>("1").unwrap().get(), 1);
        for bad in ["4", "-1", "1.5", "\"1\""] {
            assert!(serde_json::from_str::<LuckPly>(bad).is_err(), "{bad}");
        }
        let e = serde_json::from_str::<LuckPly>("4")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`luck_ply` is 4: the luck is measured at ply 0 to 3"),
            "{e}"
        );
        let net = LuckNet::load("bots/nets/td-classic-2p.safetensors").unwrap();
        assert_eq!(net.ply, LuckPly::ZERO);
        let m = net
            .with_ply(LuckPly::new(1).unwrap())
            .meter(&Preset::Classic.rules(), 2)
            .unwrap();
        assert_eq!(m.ply(), 1);
        assert!(m.game().every_seat);
    }

    #[test]
    fn a_net_of_other_rules_or_players_is_refused() {
        let net = shipped("td-classic-2p");
        let e = LuckMeter::new(net.clone(), &Preset::Classic.rules(), 4).unwrap_err();
        assert!(e.contains("for 2 players, the game has 4"), "{e}");
        let e = LuckMeter::new(net, &Preset::Chinese.rules(), 2).unwrap_err();
        assert!(e.contains("other rules") && !e.contains("any_rules"), "{e}");
    }

    /// The adjusted figures are the plain ones minus the luck, and the variance ratio is the
    /// ratio of the two clustered variances, on a hand-made tally.
    #[test]
    fn adjusted_is_plain_minus_luck() {
        let mut t = LuckTally::default();
        let game = |winner: u8, luck: f64| {
            let mut record = aeroplane_core::GameRecord::new(2);
            record.ranks = [
                if winner == 0 { 1 } else { 2 },
                0,
                if winner == 0 { 2 } else { 1 },
                0,
            ];
            (
                Played {
                    record,
                    bot_at_seat: [0, NO_BOT, 1, NO_BOT],
                },
                GameLuck {
                    win: [luck, 0.0, -luck, 0.0],
                    ret: [2.0 * luck, 0.0, -2.0 * luck, 0.0],
                    rolls: [1, 0, 1, 0],
                    every_seat: false,
                },
            )
        };
        let deals = [(0, 0.4), (2, -0.3), (0, 0.2), (2, 0.1), (0, -0.1)];
        for (w, l) in deals {
            let (p, g) = game(w, l);
            t.add_deal(&[p], &[g], 2);
        }
        let r = LuckReport::new(&t, &["a".into(), "b".into()], "n", 0);
        let a = &r.bots[0].win_rate;
        assert_eq!(a.plain, 0.6);
        // Net luck of seat 0: its own minus the other's = 2 * luck.
        let luck: f64 = deals.iter().map(|d| 2.0 * d.1).sum::<f64>() / 5.0;
        assert!((a.luck - luck).abs() < 1e-15);
        assert_eq!(a.adjusted, a.plain - a.luck);
        let ys: Vec<f64> = deals
            .iter()
            .map(|d| f64::from(u8::from(d.0 == 0)))
            .collect();
        let adj: Vec<f64> = deals.iter().zip(&ys).map(|(d, y)| y - 2.0 * d.1).collect();
        let var = |v: &[f64]| {
            let m = v.iter().sum::<f64>() / 5.0;
            v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 4.0 / 5.0
        };
        let ratio = var(&ys) / var(&adj);
        assert!((a.variance_ratio.unwrap() - ratio).abs() < 1e-9);
        let (lo, hi) = a.interval.unwrap();
        assert!((hi - lo - 2.0 * 1.959_963_984_540_054 * var(&adj).sqrt()).abs() < 1e-6);
        // The score of two players is the win; the other bot's figures mirror these.
        assert_eq!(r.bots[0].score.adjusted, a.adjusted);
        assert!((r.bots[1].win_rate.adjusted - (1.0 - a.adjusted)).abs() < 1e-12);
    }

    #[test]
    fn scores_share_the_ranks_left() {
        assert_eq!(score_of(&[1, 2, 3, 4], Seat::in_play(4)[0], 4), 1.0);
        assert_eq!(score_of(&[1, 2, 3, 4], Seat::in_play(4)[3], 4), 0.0);
        // First finisher: the others share ranks 2..4 (returns 1/3, -1/3, -1: mean -1/3).
        let s = score_of(&[1, 0, 0, 0], Seat::in_play(4)[1], 4);
        assert!((s - 1.0 / 3.0).abs() < 1e-12);
        // An unfinished two-player game: a draw.
        assert_eq!(score_of(&[0, 0, 0, 0], Seat::in_play(2)[0], 2), 0.5);
    }
}
