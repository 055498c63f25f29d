//! Plays N whole games on one thread with no runner around them: a steady workload for
//! profilers (`perf record`, `valgrind --tool=cachegrind`).
//!
//! `cargo run --release --example hot_loop -- [games] [rules] [lineup] [seed]`
//! (defaults: 100000 appfreegame greedy,greedy,greedy,greedy 1); prints a digest of the records.

use std::hash::{Hash, Hasher};

use aeroplane::bot_stream;
use aeroplane::config::{load_rules, parse_lineup};
use aeroplane::{Bot, Game, SeededDice, play_game};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let games: u64 = args.first().map_or(Ok(100_000), |s| s.parse())?;
    let rules = load_rules(args.get(1).map_or("appfreegame", String::as_str))?;
    let lineup = args
        .get(2)
        .map_or("greedy,greedy,greedy,greedy", String::as_str);
    let mut bots: Vec<Box<dyn Bot>> = parse_lineup(lineup, "bots".as_ref())?
        .iter()
        .map(|s| s.build())
        .collect();
    let seed: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let game = Game::new(rules, bots.len())?;
    let mut digest = std::collections::hash_map::DefaultHasher::new();
    let start = std::time::Instant::now();
    for deal in 0..games {
        for (bot, &seat) in bots.iter_mut().zip(game.seats()) {
            bot.new_game(seat, bot_stream(seed, deal, seat));
        }
        let mut dice = SeededDice::new(seed, deal);
        let record = play_game(game, &mut bots, &mut dice, &mut ())?;
        record.hash(&mut digest);
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{games} games in {secs:.3} s = {:.0} games/s, digest {:016x}",
        games as f64 / secs,
        digest.finish()
    );
    Ok(())
}
