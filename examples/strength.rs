//! A small strength harness written against the library alone: one candidate bot against copies
//! of an opponent, seeded games, the candidate's seat rotated game by game, Wilson 95% interval.
//! `aeroplane run --bots expectimax,greedy --rotate-seats` answers the same question with the
//! full statistics; this example shows how to drive games from your own code.
//!
//! ```text
//! cargo run --release --example strength -- --rules appfreegame --players 2 \
//!     --bot expectimax --opponent greedy --games 2000 --seed 1
//! ```
//!
//! Game `i` uses dice `SeededDice::new(seed, i)`; the candidate plays the seat at index
//! `i % players` of the seats in play; every bot gets `bot_stream(seed, i, seat)` as its seed.
//! So the result depends only on the arguments, never on the thread count.

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use rayon::prelude::*;

use aeroplane::bot_stream;
use aeroplane::config::{load_rules, parse_bot};
use aeroplane::{Bot, Counter, Game, SeededDice, play_game};

#[derive(Parser, Debug)]
struct Args {
    /// Preset or rules file.
    #[arg(long, default_value = "appfreegame")]
    rules: String,
    /// Players, 2..=4.
    #[arg(long, default_value_t = 2)]
    players: usize,
    /// The candidate bot (profile, path or kind:key=value...).
    #[arg(long)]
    bot: String,
    /// The opponent filling every other seat.
    #[arg(long, default_value = "greedy")]
    opponent: String,
    /// Games to play.
    #[arg(long, default_value_t = 1000)]
    games: u64,
    /// Master seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Directory of bot profiles.
    #[arg(long, default_value = "bots")]
    bots_dir: PathBuf,
}

/// Wilson score interval at 95% for `k` successes in `n` trials.
fn wilson(k: u64, n: u64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    (centre - half, centre + half)
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let rules = load_rules(&args.rules)?;
    let bot = parse_bot(&args.bot, &args.bots_dir)?;
    let opponent = parse_bot(&args.opponent, &args.bots_dir)?;
    let players = args.players;
    anyhow::ensure!((2..=4).contains(&players), "players must be 2, 3 or 4");
    let seats = Game::new(rules, players)?.seats();
    let start = Instant::now();
    // (wins, unfinished, turns) per game, tallied as integers.
    let (wins, unfinished, turns) = (0..args.games)
        .into_par_iter()
        .map_init(
            || {
                let mut lineup: Vec<Box<dyn Bot>> = vec![bot.build()];
                lineup.extend((1..players).map(|_| opponent.build()));
                lineup
            },
            |lineup, i| {
                let slot = (i % players as u64) as usize;
                // Candidate first in `lineup`; rotate it into `slot` for this game.
                lineup.rotate_right(slot);
                for (k, b) in lineup.iter_mut().enumerate() {
                    b.new_game(seats[k], bot_stream(args.seed, i, seats[k]));
                }
                let game = Game::new(rules, players).expect("valid players");
                let rec = play_game(game, lineup, &mut SeededDice::new(args.seed, i), &mut ())
                    .expect("seeded dice never run out");
                lineup.rotate_left(slot);
                let won = rec.winner == Some(seats[slot]);
                (
                    u64::from(won),
                    u64::from(rec.unfinished),
                    u64::from(rec.counters[Counter::Turns]),
                )
            },
        )
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    let secs = start.elapsed().as_secs_f64();
    let n = args.games;
    let (lo, hi) = wilson(wins, n);
    println!(
        "{} vs {}x{} | {} {}p | games {} | wins {} = {:.1}% [{:.1}%, {:.1}%] | unfinished {} | mean turns {:.1} | {:.1}s ({:.1} games/s)",
        bot.name,
        players - 1,
        opponent.name,
        args.rules,
        players,
        n,
        wins,
        100.0 * wins as f64 / n as f64,
        100.0 * lo,
        100.0 * hi,
        unfinished,
        turns as f64 / n as f64,
        secs,
        n as f64 / secs
    );
    Ok(())
}
