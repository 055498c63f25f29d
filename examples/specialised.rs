//! A specialised simulator of one variant, for comparison with the general engine: the
//! `appfreegame` rules with four greedy bots and nothing else, written the way a one-off
//! simulator would be (issue 24). It plays the same games as `aeroplane run --rules appfreegame
//! --bots greedy,greedy,greedy,greedy` (the same seeded dice, the same greedy choices) and
//! counts what that run counts (wins per seat, game lengths in turns and rolls, the event
//! counters), so the two can be timed side by side; `--check` also plays the games through
//! the engine and requires every number to agree.
//!
//! `cargo run --release --example specialised -- [games] [threads] [--check]`
//! (defaults: 1000000 games, 1 thread, seed 1 as `aeroplane run`).
//!
//! Its design: the sixteen planes' steps in one `[u8; 16]`, a `u16` set of the planes on each
//! ring cell, compile-time tables for where a plane on each step goes with each roll (jump and
//! flight resolved) and for each seat's ring cell of each step, the greedy key of the four
//! planes computed without a branch and their minimum taken with the plane number in the low
//! bits (so equal keys pick the lowest plane, as the engine's move of that step does). Nothing
//! is allocated per game.

use std::time::Instant;

use aeroplane::core::{below, stream};
use rand_pcg::Pcg32;
use rayon::prelude::*;

/// The hangar, as a step (every table below has 64 entries per row).
const HANGAR: u8 = 63;
/// The centre: step 51 + 6 home lane cells.
const CENTRE: u8 = 57;
/// The ring cell index that stands for "not on the ring": always empty.
const OFF: u8 = 52;
/// `max_turns` of the preset.
const MAX_TURNS: u32 = 10_000;

/// Bits of a [`DEST`] entry.
const LEGAL: u32 = 1 << 24;
const JUMP: u32 = 1 << 25;
const FLIGHT: u32 = 1 << 26;
const LAUNCH: u32 = 1 << 27;

/// `DEST[roll][step]`: the final step (bits 0..8), the step the roll lands on (bits 8..16,
/// where a jump or the flight starts), and the flags above; 0 when the plane cannot move.
static DEST: [[u32; 64]; 7] = {
    let mut t = [[0u32; 64]; 7];
    let mut r = 1;
    while r <= 6 {
        let mut s = 0;
        while s < 64 {
            let s8 = s as u8;
            t[r][s] = if s8 == HANGAR {
                if r == 6 { LEGAL | LAUNCH } else { 0 }
            } else if s8 >= CENTRE || s8 + r as u8 > CENTRE {
                0
            } else {
                let land = s8 + r as u8;
                let (to, flag) = if land == 18 {
                    (30, FLIGHT)
                } else if land >= 2 && land <= 46 && land % 4 == 2 {
                    (land + 4, JUMP)
                } else {
                    (land, 0)
                };
                LEGAL | flag | (land as u32) << 8 | to as u32
            };
            s += 1;
        }
        r += 1;
    }
    t
};

/// `CELL[seat][step]`: the ring cell of a seat's step, [`OFF`] off the ring.
static CELL: [[u8; 64]; 4] = {
    let mut t = [[OFF; 64]; 4];
    let mut seat = 0;
    while seat < 4 {
        let mut s = 1;
        while s <= 50 {
            t[seat][s] = ((13 * seat + s - 1) % 52) as u8;
            s += 1;
        }
        seat += 1;
    }
    t
};

/// What one game counts.
#[derive(Clone, Copy, Default)]
struct Record {
    winner: Option<usize>,
    turns: u32,
    rolls: u32,
    moves: u32,
    launches: u32,
    captures: u32,
    penalties: u32,
    jumps: u32,
    flights: u32,
    passes: u32,
    unfinished: bool,
}

/// Plays game `deal` of seed `seed`.
fn play(seed: u64, deal: u64) -> Record {
    let mut dice: [Pcg32; 4] = std::array::from_fn(|j| stream(seed, deal, j as u64));
    let mut steps = [HANGAR; 16];
    // cells[c]: bit 4 * seat + plane for each plane on ring cell c; cells[OFF] stays 0.
    let mut cells = [0u16; 53];
    let mut rec = Record::default();
    let mut seat = 0usize;
    let mut sixes = 0u32;
    // The plane of the turn's latest move (for the third-six penalty), 4 for none.
    let mut last: usize = 4;
    let mut new_turn = true;
    loop {
        rec.turns += u32::from(new_turn);
        rec.rolls += 1;
        let roll = below(&mut dice[seat], 6) as usize + 1;
        let base = 4 * seat;
        if roll == 6 && sixes == 2 {
            // The third six: the last moved plane goes back unless it is home.
            if last < 4 && steps[base + last] != CENTRE && steps[base + last] != HANGAR {
                let s = steps[base + last];
                cells[CELL[seat][s as usize] as usize] &= !(1 << (base + last));
                steps[base + last] = HANGAR;
                rec.penalties += 1;
            }
        } else {
            sixes += u32::from(roll == 6);
            let opponents = !(0xFu16 << base);
            // The greedy key of each plane (smaller is better), plane number in the low bits:
            // category (capture 0, jump or flight 1, launch 2, other 3), then the step
            // furthest along; u32::MAX when the plane cannot move.
            let mut best = u32::MAX;
            for p in 0..4 {
                let s = steps[base + p];
                let d = DEST[roll][s as usize];
                let land = CELL[seat][(d >> 8 & 63) as usize];
                let to = CELL[seat][(d & 63) as usize];
                let hit = (cells[land as usize] | cells[to as usize]) & opponents != 0;
                let special = d & (JUMP | FLIGHT) != 0;
                let launch = d & LAUNCH != 0;
                let category = u32::from(!hit) * (3 - 2 * u32::from(special) - u32::from(launch));
                let key = category << 10 | u32::from(63 - s) << 2 | p as u32;
                let key = if d & LEGAL != 0 { key } else { u32::MAX };
                best = best.min(key);
            }
            if best == u32::MAX {
                rec.passes += 1;
            } else {
                let p = (best & 3) as usize;
                let i = base + p;
                let s = steps[i];
                let d = DEST[roll][s as usize];
                let to = (d & 63) as u8;
                rec.moves += 1;
                rec.launches += u32::from(d & LAUNCH != 0);
                rec.jumps += u32::from(d & JUMP != 0);
                rec.flights += u32::from(d & FLIGHT != 0);
                cells[CELL[seat][s as usize] as usize] &= !(1 << i);
                let land = CELL[seat][(d >> 8 & 63) as usize] as usize;
                let end = CELL[seat][to as usize] as usize;
                let mut victims = (cells[land] | cells[end]) & opponents;
                if victims != 0 {
                    rec.captures += victims.count_ones();
                    cells[land] &= !opponents;
                    cells[end] &= !opponents;
                    while victims != 0 {
                        steps[victims.trailing_zeros() as usize] = HANGAR;
                        victims &= victims - 1;
                    }
                }
                cells[end] |= 1 << i;
                cells[OFF as usize] = 0;
                steps[i] = to;
                last = p;
                if to == CENTRE && steps[base..base + 4] == [CENTRE; 4] {
                    rec.winner = Some(seat);
                    return rec;
                }
            }
            if roll == 6 {
                new_turn = false;
                continue;
            }
        }
        // The turn ends.
        if rec.turns >= MAX_TURNS {
            rec.unfinished = true;
            return rec;
        }
        sixes = 0;
        last = 4;
        new_turn = true;
        seat = (seat + 1) & 3;
    }
}

/// What a run counts, mergeable.
#[derive(Clone, PartialEq, Debug)]
struct Tally {
    wins: [u64; 4],
    turns: Vec<u64>,
    rolls: Vec<u64>,
    /// moves, launches, captures, penalties, jumps, flights, passes
    events: [u64; 7],
    unfinished: u64,
}

impl Tally {
    fn new() -> Self {
        Tally {
            wins: [0; 4],
            turns: vec![0; 1024],
            rolls: vec![0; 1024],
            events: [0; 7],
            unfinished: 0,
        }
    }
    fn add(&mut self, r: &Record) {
        if let Some(w) = r.winner {
            self.wins[w] += 1;
        }
        for (h, v) in [(&mut self.turns, r.turns), (&mut self.rolls, r.rolls)] {
            if v as usize >= h.len() {
                h.resize(v as usize + 1, 0);
            }
            h[v as usize] += 1;
        }
        let e = [
            r.moves,
            r.launches,
            r.captures,
            r.penalties,
            r.jumps,
            r.flights,
            r.passes,
        ];
        for (a, b) in self.events.iter_mut().zip(e) {
            *a += u64::from(b);
        }
        self.unfinished += u64::from(r.unfinished);
    }
    fn merge(mut self, o: Tally) -> Tally {
        for (a, b) in self.wins.iter_mut().zip(o.wins) {
            *a += b;
        }
        for (h, g) in [(&mut self.turns, &o.turns), (&mut self.rolls, &o.rolls)] {
            if g.len() > h.len() {
                h.resize(g.len(), 0);
            }
            for (a, b) in h.iter_mut().zip(g) {
                *a += b;
            }
        }
        for (a, b) in self.events.iter_mut().zip(o.events) {
            *a += b;
        }
        self.unfinished += o.unfinished;
        self
    }
}

fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 * 1e-6;
    t(usage.ru_utime) + t(usage.ru_stime)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    let mut numbers = args.iter().filter(|a| !a.starts_with("--"));
    let games: u64 = numbers.next().map_or(Ok(1_000_000), |s| s.parse())?;
    let threads: usize = numbers.next().map_or(Ok(1), |s| s.parse())?;
    let seed = 1;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    // Chunks of 256 games, as the runner's default unit.
    let tally = pool.install(|| {
        (0..games.div_ceil(256))
            .into_par_iter()
            .map(|c| {
                let mut t = Tally::new();
                for deal in c * 256..(c * 256 + 256).min(games) {
                    t.add(&play(seed, deal));
                }
                t
            })
            .reduce(Tally::new, Tally::merge)
    });
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    println!(
        "specialised appfreegame greedy x4: {games} games, {threads} thread(s): {wall:.3} s wall, {cpu:.3} s CPU, {:.0} games/s, {:.0} games per CPU s",
        games as f64 / wall,
        games as f64 / cpu
    );
    println!("wins per seat {:?}, events {:?}", tally.wins, tally.events);
    if check {
        use aeroplane::runner::{Exec, RunSpec, run};
        let spec = RunSpec {
            rules: aeroplane::Preset::AppFreeGame.rules(),
            lineup: aeroplane::config::parse_lineup(
                "greedy,greedy,greedy,greedy",
                "bots".as_ref(),
            )?,
            seed,
            first_deal: 0,
            deals: games,
            rotate_seats: false,
        };
        let exec = Exec {
            threads,
            ..Exec::default()
        };
        let engine = run(&spec, aeroplane::RunOptions::new(exec), None)?;
        let c = |k| engine.counters[k];
        use aeroplane::Counter as C;
        let events = [
            c(C::Moves),
            c(C::Launches),
            c(C::Captures),
            c(C::Penalties),
            c(C::Jumps),
            c(C::Flights),
            c(C::Passes),
        ];
        let wins: Vec<u64> = engine.seats.iter().map(|s| s.wins).collect();
        let hist = |h: &aeroplane::stats::Histogram| {
            h.iter().map(|(v, n)| (v as usize, n)).collect::<Vec<_>>()
        };
        let ours = |h: &[u64]| {
            h.iter()
                .enumerate()
                .filter(|e| *e.1 != 0)
                .map(|(v, &n)| (v, n))
                .collect::<Vec<_>>()
        };
        anyhow::ensure!(wins == tally.wins, "wins differ: engine {wins:?}");
        anyhow::ensure!(events == tally.events, "events differ: engine {events:?}");
        anyhow::ensure!(hist(&engine.turns) == ours(&tally.turns), "turns differ");
        anyhow::ensure!(hist(&engine.rolls) == ours(&tally.rolls), "rolls differ");
        anyhow::ensure!(engine.unfinished == tally.unfinished, "unfinished differ");
        println!("the engine agrees on all {games} games (wins, lengths, events)");
    }
    Ok(())
}
