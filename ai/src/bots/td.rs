//! The `td` bot: plays by a value net trained by `aeroplane train` (docs/NET.md).
//!
//! - `ply = 0`: the move whose afterstate (the position after the move, before the next roll)
//!   the net values best for the mover, the first in the engine's order among equals.
//! - `ply = 1` or `2`: expectimax over the die (as the `expectimax` bot searches, max-n for
//!   three and four players) `ply` rolls beyond the root's, with the net at the leaves. Training
//!   values a position for the seat that just moved into it (docs/NET.md), so for two players a
//!   leaf is valued in one pass from the perspective of the seat that moved into it (by a move
//!   or a pass), and the other seat's value is its negative (the game is zero-sum). For three
//!   and four players each seat's value is the net's from that seat's own perspective (max-n:
//!   each seat maximises its own value where it decides, chance nodes average the vectors).
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

    /// Every seat's value at a leaf (index: seat) that `mover` moved into (by a move or a pass).
    ///
    /// Two players: one pass of the net from `mover`'s perspective, the perspective training
    /// values a position from; the other seat's value is its negative.
    fn leaf(&mut self, game: &Game, mover: Seat) -> [f32; 4] {
        let mut out = [0.0; 4];
        let seats = game.seats();
        if seats.len() == 2 && decided_value(game, mover).is_none() {
            let v = self.net_value(game, mover);
            let other = if seats[0] == mover {
                seats[1]
            } else {
                seats[0]
            };
            out[mover.index()] = v;
            out[other.index()] = -v;
            return out;
        }
        for &s in seats {
            out[s.index()] = self.net_value(game, s);
        }
        out
    }

    /// The value of a position before a roll that `mover` moved into, with `plies` rolls left
    /// to search.
    fn chance(&mut self, game: &Game, plies: u8, mover: Seat) -> [f32; 4] {
        if plies == 0 || game.is_over() {
            return self.leaf(game, mover);
        }
        let seat = game.to_move();
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
                        let v = self.chance(&g, plies - 1, seat);
                        if roll != 6 {
                            passed = Some(v);
                        }
                        v
                    }
                }
            } else {
                let mut best = [f32::NEG_INFINITY; 4];
                for &m in list.iter() {
                    let mut g = *game;
                    g.apply(roll, Some(m));
                    let v = self.chance(&g, plies - 1, seat);
                    if v[seat.index()] > best[seat.index()] {
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
                self.chance(&g, self.ply, me)[me.index()]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::td::net::Weights;
    use aeroplane_core::SeededDice;
    use rand::RngExt;
    use rand_pcg::Pcg32;

    /// A shipped net (`bots/nets/NAME.safetensors`, built in).
    fn shipped(name: &str) -> Arc<Net> {
        let path = format!("bots/nets/{name}.safetensors");
        let (_, bytes) = crate::shipped::NETS
            .iter()
            .find(|(p, _)| *p == path)
            .expect("a shipped net");
        Arc::new(Net::from_bytes(bytes).expect("a shipped net reads"))
    }

    /// Whose perspective the net takes at a two-player leaf.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum View {
        /// The seat that moved into the leaf (training's perspective).
        Mover,
        /// The first seat in play, negated for the other (the search before issue 46).
        FirstSeat,
    }

    /// The net's value for `seat` at `game`, exact when decided: the plain forward pass.
    fn value(net: &Net, game: &Game, seat: Seat) -> f32 {
        decided_value(game, seat).unwrap_or_else(|| {
            let mut fx = Features::default();
            net.encoder().encode(game, seat, &mut fx);
            net.weights.value(&fx, &mut Scratch::default())
        })
    }

    /// Every seat's value at `game` (before a roll) that `mover` moved into, `plies` rolls
    /// deep, the slow way: the definition (every pass searched afresh), with a two-player
    /// leaf valued from `view`, max-n at three and four players.
    fn reference(net: &Net, game: &Game, plies: u8, mover: Seat, view: View) -> [f32; 4] {
        let seats = game.seats();
        let mut out = [0.0; 4];
        if plies == 0 || game.is_over() {
            let p = match view {
                View::Mover => mover,
                View::FirstSeat => seats[0],
            };
            if seats.len() == 2 && decided_value(game, p).is_none() {
                let v = value(net, game, p);
                for &s in seats {
                    out[s.index()] = if s == p { v } else { -v };
                }
            } else {
                for &s in seats {
                    out[s.index()] = value(net, game, s);
                }
            }
            return out;
        }
        let seat = game.to_move();
        for roll in 1..=6u8 {
            let moves = game.legal_moves(roll);
            let mut best = [f32::NEG_INFINITY; 4];
            if moves.is_empty() {
                let mut g = *game;
                g.apply(roll, None);
                best = reference(net, &g, plies - 1, seat, view);
            }
            for &m in moves.iter() {
                let mut g = *game;
                g.apply(roll, Some(m));
                let v = reference(net, &g, plies - 1, seat, view);
                if v[seat.index()] > best[seat.index()] {
                    best = v;
                }
            }
            for (s, x) in out.iter_mut().zip(best) {
                *s += x;
            }
        }
        out.map(|s| s * (1.0 / 6.0))
    }

    /// The reference's value of each move for the mover at ply `ply` (ply 0: the afterstate's
    /// value for the mover), and the index of the best (the first among equals).
    fn reference_root(net: &Net, game: &Game, roll: u8, ply: u8, view: View) -> (Vec<f32>, usize) {
        let me = game.to_move();
        let values: Vec<f32> = game
            .legal_moves(roll)
            .iter()
            .map(|&m| {
                let mut g = *game;
                g.apply(roll, Some(m));
                if ply == 0 {
                    value(net, &g, me)
                } else {
                    reference(net, &g, ply, me, view)[me.index()]
                }
            })
            .collect();
        let mut best = 0;
        for (k, &v) in values.iter().enumerate() {
            if v > values[best] {
                best = k;
            }
        }
        (values, best)
    }

    /// The bot's choice and move values at `game` with `roll`.
    fn bot_root(net: &Arc<Net>, game: &Game, roll: u8, ply: u8) -> (Vec<f32>, usize) {
        let mut bot = TdBot::with_net("td", Arc::clone(net), ply);
        let moves = game.legal_moves(roll);
        let pick = bot.try_choose(game, roll, &moves).expect("the net fits");
        (bot.move_values().expect("values").to_vec(), pick)
    }

    /// Issue 46's position (appfreegame, two planes): seat 2 has rolled a second six with plane
    /// 0 on its take-off cell and plane 1 in the hangar, seat 0 a plane at step 36. Perfect
    /// play moves plane 0 (`aeroplane solve --value` on the solved table: equity +0.248 against
    /// -0.028 for the launch; tests/integration/td.rs checks it against the table). At ply 1
    /// the leaves are the positions after seat 2's extra roll: valued from the first seat's
    /// perspective (seat 0, a perspective training never valued them from, seat 0 rolling
    /// next) the search launched; valued for seat 2, which moved into them, it moves plane 0,
    /// as ply 0 does. At ply 2 seat 0 moves into every leaf, so both perspectives are the
    /// same seat's and give the same values (the net's own misjudgement there is left).
    #[test]
    fn two_player_leaves_are_valued_for_the_seat_that_moved_into_them() {
        let net = shipped("td-appfreegame-2planes");
        let game = Game::from_notation(net.rules, "36,h/-/0,h/- 2 - 1 0 0 - 30").unwrap();
        let moves = game.legal_moves(6);
        let names: Vec<String> = moves.iter().map(|m| m.notation()).collect();
        assert_eq!(names, ["launch", "0"]);
        for ply in 0..=MAX_PLY {
            let (values, pick) = bot_root(&net, &game, 6, ply);
            let (want, want_pick) = reference_root(&net, &game, 6, ply, View::Mover);
            assert_eq!(values, want, "ply {ply}");
            assert_eq!(pick, want_pick);
            let (old, old_pick) = reference_root(&net, &game, 6, ply, View::FirstSeat);
            match ply {
                0 | 1 => assert_eq!(names[pick], "0", "ply {ply}: {values:?}"),
                _ => assert_eq!(old, values, "ply 2: seat 0 moved into every leaf"),
            }
            if ply == 1 {
                assert_eq!(
                    names[old_pick], "launch",
                    "ply 1, first seat's view: {old:?}"
                );
            }
        }
    }

    /// Positions before a roll of a game of random moves under `rules` with `players`, a roll
    /// with a choice at each (the first `count` such).
    fn decisions(
        rules: aeroplane_core::Rules,
        players: usize,
        seed: u64,
        count: usize,
    ) -> Vec<(Game, u8)> {
        let mut game = Game::new(rules, players).unwrap();
        let mut dice = SeededDice::new(seed, 0);
        let mut rng = Pcg32::new(seed, 11);
        let mut out = Vec::new();
        while !game.is_over() && out.len() < count {
            let roll = aeroplane_core::Dice::roll(&mut dice, game.to_move()).unwrap();
            let moves = game.legal_moves(roll);
            if moves.len() > 1 {
                out.push((game, roll));
            }
            let pick = (!moves.is_empty()).then(|| moves[rng.random_range(0..moves.len())]);
            game.apply(roll, pick);
        }
        out
    }

    /// The bot's search is its definition (each two-player leaf valued from the seat that moved
    /// into it, max-n with each seat's own value at three and four players), value for value
    /// to the bit, at every ply: shipped nets of two and four players and a random net of
    /// three.
    #[test]
    fn the_search_is_its_definition_at_every_player_count() {
        let three = {
            let base = shipped("td-classic-4p");
            let rules = base.rules;
            let inputs = Encoder::new(&rules, 3).inputs();
            let mut rng = Pcg32::new(3, 46);
            let w = Weights::random(inputs, 16, 3, || rng.random_range(-1.0f32..1.0));
            Arc::new(Net {
                weights: w,
                rules,
                players: 3,
                info: Default::default(),
            })
        };
        let nets = [
            (shipped("td-appfreegame-2planes"), 12),
            (shipped("td-classic-2p"), 4),
            (three, 4),
            (shipped("td-chinese-4p"), 3),
        ];
        for (net, count) in nets {
            let cases = decisions(net.rules, net.players, 7, count);
            assert_eq!(cases.len(), count);
            for (game, roll) in cases {
                for ply in 0..=MAX_PLY {
                    let got = bot_root(&net, &game, roll, ply);
                    let want = reference_root(&net, &game, roll, ply, View::Mover);
                    assert_eq!(
                        got, want,
                        "{} players, ply {ply}, roll {roll} at {game}",
                        net.players
                    );
                }
            }
        }
    }

    /// At three and four players each seat maximises its own value: at a leaf every seat's
    /// value is the net's from its own perspective, not the negative of another seat's (which
    /// is what the two-player leaf does).
    #[test]
    fn three_and_four_player_leaves_hold_each_seat_own_value() {
        for name in ["td-classic-4p", "td-appfreegame-4p"] {
            let net = shipped(name);
            let mut bot = TdBot::with_net("td", Arc::clone(&net), 1);
            for (game, roll) in decisions(net.rules, 4, 3, 6) {
                bot.ready(&game).unwrap();
                let mover = game.to_move();
                let mut g = game;
                g.apply(roll, Some(game.legal_moves(roll)[0]));
                let got = bot.leaf(&g, mover);
                for &s in g.seats() {
                    assert_eq!(
                        got[s.index()],
                        value(&net, &g, s),
                        "{name} seat {s:?} at {g}"
                    );
                }
            }
        }
    }
}
