//! The CPU cost of decision logging on the cheapest workload there is, greedy x4 (appfreegame):
//! each game played bare, then with its decision lines written (`.jsonl`), then written and
//! compressed (`.jsonl.zst`, one zstd frame per game), on one thread, timed by the thread's CPU
//! clock (so other processes on a shared machine do not count), three times each.
//!
//! ```sh
//! cargo run --release --example log_cost -- 10000      # the default key positions (every 32nd line)
//! cargo run --release --example log_cost -- 10000 1    # the position on every decision line
//! ```

use aeroplane::decision_log::{DEFAULT_LOG_POSITIONS, LogEncoder, LogFormat, LogStyle};
use aeroplane::runner::{PlayOptions, RunSpec};
use aeroplane::{Bot, Game, Preset, parse_lineup};

/// This thread's CPU time in seconds.
fn cpu() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn main() {
    let games: u64 = std::env::args()
        .nth(1)
        .map_or(10_000, |a| a.parse().expect("a number of games"));
    let positions: u32 = std::env::args().nth(2).map_or(DEFAULT_LOG_POSITIONS, |a| {
        a.parse().expect("a key-line interval")
    });
    let spec = RunSpec {
        rules: Preset::AppFreeGame.rules(),
        lineup: parse_lineup("greedy,greedy,greedy,greedy", "bots".as_ref()).expect("bots"),
        seed: 1,
        first_deal: 0,
        deals: games,
        rotate_seats: false,
    };
    let start = Game::new(spec.rules, 4).expect("a game");
    let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(|b| b.build()).collect();
    let per_game = |seconds: f64| seconds * 1e6 / games as f64;
    println!(
        "greedy x4, {games} games, the position on one decision line in {positions}, µs of CPU per game (one thread):"
    );
    for _ in 0..3 {
        let t = cpu();
        for g in 0..games {
            let with = PlayOptions {
                bots: Some(&mut bots),
                ..PlayOptions::default()
            };
            spec.play(g, &mut (), with).expect("a game");
        }
        let bare = cpu() - t;
        let mut line = format!("  bare {:.1}", per_game(bare));
        for format in [LogFormat::Plain, LogFormat::Zstd] {
            let mut enc = LogEncoder::new(LogStyle { format, positions }).expect("an encoder");
            let mut out = Vec::with_capacity(1 << 20);
            let mut bytes = 0usize;
            let t = cpu();
            for g in 0..games {
                enc.lines().begin(g, &start, spec.bot_at_seat(0));
                let with = PlayOptions {
                    bots: Some(&mut bots),
                    ..PlayOptions::default()
                };
                let played = spec.play(g, enc.lines(), with).expect("a game");
                enc.finish_game(g, 0, &played.record, &mut out)
                    .expect("encoding");
                bytes += out.len();
                out.clear();
            }
            let logged = cpu() - t;
            line += &format!(
                "; {} {:.1} ({:.2}x, {} bytes per game)",
                if format == LogFormat::Plain {
                    ".jsonl"
                } else {
                    ".jsonl.zst"
                },
                per_game(logged),
                logged / bare,
                bytes as u64 / games
            );
        }
        println!("{line}");
    }
}
