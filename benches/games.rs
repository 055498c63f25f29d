//! Whole games per second: the bare engine and bots, one game per iteration, each iteration a
//! new deal, played by [`RunSpec::play`] with its own bots as the runner plays them.
//!
//! `cargo bench --bench games`

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use aeroplane::config::parse_lineup;
use aeroplane::runner::{PlayOptions, RunSpec};
use aeroplane::{Bot, Preset};

const SEED: u64 = 20_260_101;

/// One iteration = one whole game of `preset` with `lineup`.
fn bench_games(c: &mut Criterion, name: &str, preset: Preset, lineup: &str) {
    let spec = RunSpec {
        rules: preset.rules(),
        lineup: parse_lineup(lineup, "bots".as_ref()).expect("built-in bots"),
        seed: SEED,
        first_deal: 0,
        deals: u64::MAX / 4,
        rotate_seats: false,
    };
    let mut bots: Vec<Box<dyn Bot>> = spec.lineup.iter().map(|s| s.build()).collect();
    let mut deal = 0u64;
    let mut group = c.benchmark_group("games");
    group.throughput(Throughput::Elements(1));
    group.bench_function(name, |b| {
        b.iter(|| {
            deal += 1;
            black_box(
                spec.play(
                    black_box(deal),
                    &mut (),
                    PlayOptions {
                        bots: Some(&mut bots),
                        ..PlayOptions::default()
                    },
                )
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
