//! Which definition of a roll's luck narrows a result most (docs/LUCK.md, "Deeper luck";
//! issue 33, item 1): several definitions measured on the same games, each used as `--luck`
//! uses its own (coefficient 1), with the variance ratio (plain / adjusted) of every lineup
//! entry's per-deal win and score.
//!
//! ```text
//! cargo run --release --example luck_variants -- --rules classic \
//!     --bots greedy,greedy,expectimax,expectimax --net bots/nets/td-classic-4p.safetensors \
//!     --deals 500 --ply 1
//! ```
//!
//! Each roll's faces are the afterstates of the roller's best move by the net (ply 0), as
//! `--luck` picks them. The definitions:
//!
//! - `roller, ply 0`: the roller's net value there; the others share its luck evenly (what
//!   `--luck` does);
//! - `every seat, ply 0`: every seat's net value there, from its own perspective; `as is`
//!   adds each seat's luck to it, `centred` first subtracts the mean over the seats;
//! - `roller, ply P`, `every seat, ply P` (`as is`, `centred`): the same with each face's
//!   afterstate valued by [`LuckMeter::seat_faces`] at ply `P` (the mean over the next `P`
//!   rolls); `every seat, ply P, centred` is `--luck-ply P` (checked here against the meter);
//! - `bots' moves, roller, ply 0` and `bots' moves, every seat, ply 0, centred`: the two ply-0
//!   definitions with each face's afterstate the move the roller's own bot would play for it
//!   (a second copy of the bot is asked, so the lineup's bots must be deterministic, as greedy
//!   and expectimax are) instead of the net's best move.
//!
//! Deal `d` plays the dice of seed `--seed`, deal `d`, once per rotation of the lineup, as
//! `run --rotate-seats` does.

use clap::Parser;

use aeroplane::analysis::luck::{LuckMeter, LuckNet, Value, score_of, seat_luck_of};
use aeroplane::config::{load_rules, parse_lineup};
use aeroplane::td::encoding::{Encoder, Features};
use aeroplane::td::net::{Scratch, expected_return};
use aeroplane::td::selfplay::decided_value;
use aeroplane_core::{Game, MoveList, Observer, Outcome, Seat, SeededDice, play_game};

#[derive(Parser, Debug)]
struct Args {
    /// A preset or rules file.
    #[arg(long, default_value = "classic")]
    rules: String,
    /// The lineup.
    #[arg(long, default_value = "greedy,greedy,expectimax,expectimax")]
    bots: String,
    /// The net file.
    #[arg(long)]
    net: String,
    /// Rotated deals.
    #[arg(long, default_value_t = 500)]
    deals: u64,
    /// The depth of the deeper definitions (1 to 3).
    #[arg(long, default_value_t = 1)]
    ply: i64,
    /// The dice seed.
    #[arg(long, default_value_t = 33)]
    seed: u64,
}

/// Every seat's value (index: face - 1, then seat).
type Faces = [[Value; 4]; 6];

/// One deal of one lineup entry: its (win, score) sums and, per definition, their luck.
type Entry = ((f64, f64), [(f64, f64); 8]);

const NAMES: [&str; 8] = [
    "roller, ply 0",
    "every seat, ply 0, as is",
    "every seat, ply 0, centred",
    "roller, ply P",
    "every seat, ply P, as is",
    "every seat, ply P, centred",
    "bots' moves, roller, ply 0",
    "bots' moves, every seat, ply 0, centred",
];

/// The roller's luck, shared evenly by the others as its negative.
fn roller(faces: &Faces, roll: u8, t: Seat, seats: &[Seat]) -> [Value; 4] {
    let col: [Value; 6] = std::array::from_fn(|g| faces[g][t.index()]);
    let l = aeroplane::analysis::luck::luck_of(&col, roll);
    let k = (seats.len() - 1) as f64;
    let mut out = [Value::default(); 4];
    for &s in seats {
        out[s.index()] = if s == t {
            l
        } else {
            Value {
                win: -l.win / k,
                ret: -l.ret / k,
            }
        };
    }
    out
}

/// Every seat's own luck, not centred.
fn as_is(faces: &Faces, roll: u8, seats: &[Seat]) -> [Value; 4] {
    let mut out = [Value::default(); 4];
    for &s in seats {
        let col: [Value; 6] = std::array::from_fn(|g| faces[g][s.index()]);
        out[s.index()] = aeroplane::analysis::luck::luck_of(&col, roll);
    }
    out
}

struct Meter {
    deep: LuckMeter,
    enc: Encoder,
    fx: Features,
    s: Scratch,
    n: usize,
    /// Per definition, per seat: the game's (win, return) luck.
    game: [[Value; 4]; 8],
    /// Per seat, a copy of its bot that is asked what it would play on each face.
    shadows: Vec<Option<Box<dyn aeroplane_core::Bot>>>,
}

impl Meter {
    /// A seat's raw net value (exact when decided).
    fn value(&mut self, g: &Game, u: Seat) -> Value {
        if let Some(r) = decided_value(g, u) {
            return Value {
                win: f64::from(u8::from(g.rank(u) == Some(1))),
                ret: f64::from(r),
            };
        }
        self.enc.encode(g, u, &mut self.fx);
        self.deep.net().weights.forward(&self.fx, &mut self.s);
        Value {
            win: f64::from(self.s.probs[0]),
            ret: f64::from(expected_return(&self.s.probs[..self.n])),
        }
    }

    /// Every seat's raw net value at each face's afterstate, the position `after` gives for
    /// the face and its legal moves.
    fn faces_by(
        &mut self,
        p: &Game,
        mut after: impl FnMut(&mut Meter, u8, &MoveList) -> Game,
    ) -> Faces {
        let mut lists = [MoveList::default(); 6];
        p.legal_moves_all(&mut lists);
        let mut out = [[Value::default(); 4]; 6];
        for g in 1..=6u8 {
            let q = after(self, g, &lists[usize::from(g - 1)]);
            for &u in p.seats() {
                out[usize::from(g - 1)][u.index()] = self.value(&q, u);
            }
        }
        out
    }

    /// Every seat's raw net value at each face's afterstate of the net's best move.
    fn flat(&mut self, p: &Game) -> Faces {
        let t = p.to_move();
        self.faces_by(p, |m, g, list| {
            let mut q = *p;
            if list.is_empty() {
                q.apply(g, None);
            } else {
                let mut best = f64::NEG_INFINITY;
                for &mv in list.iter() {
                    let mut r = *p;
                    r.apply(g, Some(mv));
                    let v = m.value(&r, t).ret;
                    if v > best {
                        best = v;
                        q = r;
                    }
                }
            }
            q
        })
    }

    /// Every seat's raw net value at each face's afterstate of the roller's own bot's move
    /// (the copy's choice for the rolled face checked against the move played, `o`).
    fn policy(&mut self, p: &Game, o: &Outcome) -> Faces {
        let t = p.to_move();
        self.faces_by(p, |m, g, list| {
            let mut q = *p;
            let choice = match list.len() {
                0 => None,
                1 => Some(list[0]),
                _ => {
                    let bot = m.shadows[t.index()].as_mut().expect("a shadow");
                    Some(list[bot.choose(p, g, list)])
                }
            };
            if g == o.roll && list.len() > 1 {
                let played = choice.map(aeroplane_core::Action::Move);
                assert_eq!(Some(o.action), played, "a deterministic bot");
            }
            q.apply(g, choice);
            q
        })
    }
}

impl Observer for Meter {
    fn on_roll(&mut self, before: &Game, o: &Outcome) {
        let seats = before.seats();
        let flat = self.flat(before);
        let deep = self.deep.seat_faces(before);
        let centred = seat_luck_of(&deep, o.roll, seats);
        assert_eq!(centred, self.deep.seat_luck(before, o.roll), "the meter's");
        let lucks = [
            roller(&flat, o.roll, o.seat, seats),
            as_is(&flat, o.roll, seats),
            seat_luck_of(&flat, o.roll, seats),
            roller(&deep, o.roll, o.seat, seats),
            as_is(&deep, o.roll, seats),
            centred,
            [Value::default(); 4],
            [Value::default(); 4],
        ];
        let pol = self.policy(before, o);
        let mut lucks = lucks;
        lucks[6] = roller(&pol, o.roll, o.seat, seats);
        lucks[7] = seat_luck_of(&pol, o.roll, seats);
        for (g, l) in self.game.iter_mut().zip(lucks) {
            for (a, b) in g.iter_mut().zip(l) {
                a.win += b.win;
                a.ret += b.ret;
            }
        }
    }
}

fn main() -> anyhow::Result<()> {
    let a = Args::parse();
    let rules = load_rules(&a.rules)?;
    let lineup = parse_lineup(&a.bots, std::path::Path::new("bots"))?;
    let n = lineup.len();
    let net = LuckNet::load(&a.net)?.with_ply(aeroplane::analysis::luck::LuckPly::new(a.ply)?);
    anyhow::ensure!(!net.ply.is_zero(), "--ply: 1 to 3");
    let deep = net.meter(&rules, n)?;
    let mut meter = Meter {
        enc: deep.net().encoder(),
        deep,
        fx: Features::default(),
        s: Scratch::default(),
        n,
        game: [[Value::default(); 4]; 8],
        shadows: Vec::new(),
    };
    let seats = Seat::in_play(n);
    // Per deal, per entry: (win, score) and per definition (win luck, score luck).
    let mut rows: Vec<Vec<Entry>> = Vec::new();
    let start = std::time::Instant::now();
    for deal in 0..a.deals {
        let mut row = vec![((0.0, 0.0), [(0.0, 0.0); 8]); n];
        for rot in 0..n {
            let mut bots: Vec<_> = (0..n).map(|i| lineup[(i + rot) % n].build()).collect();
            meter.game = [[Value::default(); 4]; 8];
            meter.shadows = (0..4).map(|_| None).collect();
            for (i, &seat) in seats.iter().enumerate() {
                meter.shadows[seat.index()] = Some(lineup[(i + rot) % n].build());
            }
            let game = Game::new(rules, n)?;
            let rec = play_game(
                game,
                &mut bots,
                &mut SeededDice::new(a.seed, deal),
                &mut meter,
            )?;
            for (i, &seat) in seats.iter().enumerate() {
                let e = &mut row[(i + rot) % n];
                e.0.0 += f64::from(u8::from(rec.ranks[seat.index()] == 1));
                e.0.1 += score_of(&rec.ranks, seat, n);
                for (l, d) in e.1.iter_mut().zip(&meter.game) {
                    l.0 += d[seat.index()].win;
                    l.1 += d[seat.index()].ret / 2.0;
                }
            }
        }
        rows.push(row);
    }
    println!(
        "{} {n} players, {} deals, {}, ply {}: {:.1} s",
        a.rules,
        a.deals,
        a.bots,
        a.ply,
        start.elapsed().as_secs_f64()
    );
    let var = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() as f64 - 1.0)
    };
    println!("variance ratio per lineup entry: win | score");
    for (k, name) in NAMES.iter().enumerate() {
        let mut line = format!("{:<28}", name.replace('P', &a.ply.to_string()));
        for score in [false, true] {
            if score {
                line += " |";
            }
            for e in 0..n {
                let pick = |r: &Vec<Entry>| {
                    let (y, l) = (r[e].0, r[e].1[k]);
                    if score {
                        (y.1, y.1 - l.1)
                    } else {
                        (y.0, y.0 - l.0)
                    }
                };
                let plain: Vec<f64> = rows.iter().map(|r| pick(r).0).collect();
                let adj: Vec<f64> = rows.iter().map(|r| pick(r).1).collect();
                line += &format!(" {:5.2}", var(&plain) / var(&adj));
            }
        }
        println!("{line}");
    }
    Ok(())
}
