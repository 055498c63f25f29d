//! Whole games per second: the bare engine and bots, one game per iteration, each iteration a
//! new deal (dice from `SeededDice::new(seed, i)`), as the runner plays them.
//!
//! `cargo bench --bench games`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use aeroplane::bot_stream;
use aeroplane::config::parse_lineup;
use aeroplane::{Bot, Game, Preset, SeededDice, play_game};

const SEED: u64 = 20_260_101;

/// One iteration = one whole game of `preset` with `lineup`.
fn bench_games(c: &mut Criterion, name: &str, preset: Preset, lineup: &str) {
    let specs = parse_lineup(lineup, "bots".as_ref()).expect("built-in bots");
    let mut bots: Vec<Box<dyn Bot>> = specs.iter().map(|s| s.build()).collect();
    let game = Game::new(preset.rules(), bots.len()).expect("2-4 players");
    let mut deal = 0u64;
    let mut group = c.benchmark_group("games");
    group.throughput(Throughput::Elements(1));
    group.bench_function(name, |b| {
        b.iter(|| {
            deal += 1;
            for (bot, &seat) in bots.iter_mut().zip(game.seats()) {
                bot.new_game(seat, bot_stream(SEED, deal, seat));
            }
            let mut dice = SeededDice::new(SEED, deal);
            black_box(
                play_game(black_box(game), &mut bots, &mut dice, &mut ())
                    .expect("seeded dice never run out"),
            )
        })
    });
    group.finish();
}

fn games(c: &mut Criterion) {
    bench_games(
        c,
        "appfreegame/random_x4",
        Preset::AppFreeGame,
        "random,random,random,random",
    );
    bench_games(
        c,
        "appfreegame/greedy_x4",
        Preset::AppFreeGame,
        "greedy,greedy,greedy,greedy",
    );
    bench_games(
        c,
        "classic/greedy_random_x2",
        Preset::Classic,
        "greedy,random,greedy,random",
    );
    bench_games(
        c,
        "chinese/greedy_random_x2",
        Preset::Chinese,
        "greedy,random,greedy,random",
    );
}

criterion_group!(benches, games);
criterion_main!(benches);
