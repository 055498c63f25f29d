//! The `td` bot: plays by a value net trained by `aeroplane train` (docs/NET.md).
//!
//! - `ply = 0`: the move whose afterstate (the position after the move, before the next roll)
//!   the net values best for the mover, the first in the engine's order among equals.
//! - `ply = 1` or `2`: expectimax over the die (as the `expectimax` bot searches, max-n for
//!   three and four players) `ply` rolls beyond the root's, with the net at the leaves: a leaf's
//!   value for each seat is the net's expected return from that seat's perspective (for two
//!   players one pass: the other seat's is its negative).
//!
//! A position already decided for a seat (the game over, or the seat finished) is valued
//! exactly. The bot gets its net from a [`NetSource`]: a net already loaded, or a loader the
//! harness gives (which reads a file once per process and shares it); a net of other rules or
//! another player count is refused when a game starts unless `any_rules = true`.

use std::sync::Arc;

use aeroplane_core::{Game, Move, MoveList, Seat};

use super::params::{ParamDef, ParamKind};
use super::search::MoveValues;
use super::{Bot, BotFault};
use crate::td::encoding::{Encoder, Features};
use crate::td::file::Net;
use crate::td::net::{Scratch, Transposed};
use crate::td::selfplay::decided_value;

/// The deepest search a profile may ask for.
pub const MAX_PLY: u8 = 2;

/// The parameters of the `td` kind.
pub const PARAMS: [ParamDef; 3] = [
    ParamDef {
        name: "net",
        kind: ParamKind::Path,
        default: "",
        help: "a net file of `aeroplane train` (.safetensors, docs/NET.md) (required)",
    },
    ParamDef {
        name: "ply",
        kind: ParamKind::Int {
            min: 0,
            max: MAX_PLY as i64,
        },
        default: "0",
        help: "die rolls searched beyond the root's (0: the best afterstate by the net)",
    },
    ParamDef {
        name: "any_rules",
        kind: ParamKind::Word(&["false", "true"]),
        default: "false",
        help: "play a net trained on other rules (of the same sizes)",
    },
];

/// Where a td bot gets its net.
pub enum NetSource {
    /// A net already loaded (and checked).
    Net(Arc<Net>),
    /// A loader, called when the bot's first game starts (and again at the next game after it
    /// failed): the net, or what is wrong with it (the harness reads a net file; the message
    /// names the file).
    Load(Box<dyn Fn() -> Result<Arc<Net>, String> + Send>),
}

/// The td bot.
pub struct TdBot {
    name: String,
    source: NetSource,
    ply: u8,
    any_rules: bool,
    net: Option<Arc<Net>>,
    /// The rules the net was checked against.
    fits: Option<(aeroplane_core::Rules, usize)>,
    enc: Option<Encoder>,
    /// The net's second layer laid out for inference.
    second: Transposed,
    scratch: Scratch,
    fx: Features,
    faces: Vec<[MoveList; 6]>,
    root: MoveValues,
}

impl TdBot {
    /// A bot playing the net of `source` with `ply` rolls of search (0..=[`MAX_PLY`]); with
    /// `any_rules` it plays a net trained on other rules of the same sizes.
    pub fn new(name: &str, source: NetSource, ply: u8, any_rules: bool) -> TdBot {
        let ply = ply.min(MAX_PLY);
        TdBot {
            name: name.to_string(),
            source,
            ply,
            any_rules,
            net: None,
            fits: None,
            enc: None,
            second: Transposed::default(),
            scratch: Scratch::default(),
            fx: Features::default(),
            faces: vec![[MoveList::default(); 6]; usize::from(ply) + 1],
            root: MoveValues::default(),
        }
    }

    /// A bot playing `net` (already loaded), checked against each game's rules as usual.
    pub fn with_net(name: &str, net: Arc<Net>, ply: u8) -> TdBot {
        TdBot::new(name, NetSource::Net(net), ply, false)
    }

    fn fault(&self, what: String) -> Box<BotFault> {
        Box::new(BotFault {
            bot: self.name.clone(),
            command: None,
            what,
            line: None,
            kind: aeroplane_core::FaultKind::Start,
            stderr: None,
        })
    }

    /// Loads the net (once) and checks it against the game's rules.
    fn ready(&mut self, game: &Game) -> Result<(), Box<BotFault>> {
        let key = (*game.rules(), game.players());
        if self.fits == Some(key) {
            return Ok(());
        }
        let net = match (&self.net, &self.source) {
            (Some(n), _) | (None, NetSource::Net(n)) => Arc::clone(n),
            (None, NetSource::Load(load)) => load().map_err(|e| self.fault(e))?,
        };
        net.check_fit(game.rules(), game.players(), self.any_rules)
            .map_err(|e| self.fault(e))?;
        self.enc = Some(Encoder::new(game.rules(), game.players()));
        self.second = net.weights.transposed();
        self.net = Some(net);
        self.fits = Some(key);
        Ok(())
    }

    /// The net's expected return for `seat` at `game` (a position before a roll).
    #[inline]
    fn net_value(&mut self, game: &Game, seat: Seat) -> f32 {
        if let Some(v) = decided_value(game, seat) {
            return v;
        }
        let enc = self.enc.as_ref().expect("ready");
        let net = self.net.as_ref().expect("ready");
        enc.encode(game, seat, &mut self.fx);
        net.weights
            .value_transposed(&self.second, &self.fx, &mut self.scratch)
    }

    /// Every seat's value at a leaf (index: seat).
    fn leaf(&mut self, game: &Game) -> [f32; 4] {
        let mut out = [0.0; 4];
        let seats = game.seats();
        if seats.len() == 2 && decided_value(game, seats[0]).is_none() {
            let v = self.net_value(game, seats[0]);
            out[seats[0].index()] = v;
            out[seats[1].index()] = -v;
            return out;
        }
        for &s in seats {
            out[s.index()] = self.net_value(game, s);
        }
        out
    }

    /// The value of a position before a roll with `plies` rolls left to search.
    fn chance(&mut self, game: &Game, plies: u8) -> [f32; 4] {
        if plies == 0 || game.is_over() {
            return self.leaf(game);
        }
        let slot = usize::from(plies);
        let mut lists = self.faces[slot];
        game.legal_moves_all(&mut lists);
        let mut sum = [0.0f32; 4];
        let mut passed: Option<[f32; 4]> = None;
        for roll in 1..=6u8 {
            let list = &lists[usize::from(roll - 1)];
            let v = if list.is_empty() {
                match passed {
                    Some(v) if roll != 6 => v,
                    _ => {
                        let mut g = *game;
                        g.apply(roll, None);
                        let v = self.chance(&g, plies - 1);
                        if roll != 6 {
                            passed = Some(v);
                        }
                        v
                    }
                }
            } else {
                let seat = game.to_move().index();
                let mut best = [f32::NEG_INFINITY; 4];
                for &m in list.iter() {
                    let mut g = *game;
                    g.apply(roll, Some(m));
                    let v = self.chance(&g, plies - 1);
                    if v[seat] > best[seat] {
                        best = v;
                    }
                }
                best
            };
            for (s, x) in sum.iter_mut().zip(v) {
                *s += x;
            }
        }
        sum.map(|s| s * (1.0 / 6.0))
    }

    /// The value for the mover of each of `moves` at `game` with `roll`, into the root values;
    /// the index of the best (the first among equals).
    fn search(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        let me = game.to_move();
        let mut best = 0;
        let mut best_value = f32::NEG_INFINITY;
        self.root.start(moves.len());
        for (k, &m) in moves.iter().enumerate() {
            let mut g = *game;
            g.apply(roll, Some(m));
            let v = if self.ply == 0 {
                self.net_value(&g, me)
            } else {
                self.chance(&g, self.ply)[me.index()]
            };
            self.root.set(k, v);
            if v > best_value {
                best = k;
                best_value = v;
            }
        }
        best
    }
}

impl Bot for TdBot {
    fn name(&self) -> &str {
        &self.name
    }

    /// The expected return (-1..=1) of each move for the bot's seat, by the net (ply 0) or the
    /// search over the dice with the net at its leaves.
    fn move_values(&self) -> Option<&[f32]> {
        self.root.get()
    }

    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        super::choose_or_panic(self, game, roll, moves)
    }

    fn try_new_game(
        &mut self,
        start: &Game,
        _seat: Seat,
        _seed: u64,
        _game_index: u64,
    ) -> Result<(), Box<BotFault>> {
        self.ready(start)
    }

    fn try_choose(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
    ) -> Result<usize, Box<BotFault>> {
        self.ready(game)?;
        Ok(self.search(game, roll, moves))
    }
}
