//! Decisions per second of the search bots on fixed midgame positions, with a digest of the
//! choices (a speed change must leave it unchanged): the positions of `benches/bots.rs`, every
//! position after the 30th turn of greedy games on seeded dice where the roll offers at least
//! two moves, 64 of them per player count.
//!
//! `cargo run --release --example search_speed -- [bot ...] [--rounds N] [--passes P] [--players N]`
//! (default: expectimax and expectimax-deep, 2 and 4 players, 3 rounds of at least 0.25 s
//! each; the figure printed is the median round). `--passes P` fixes a round at P passes over
//! the positions, for instruction counts (`valgrind --tool=callgrind`): the run then makes
//! exactly `(1 + rounds * P) * 64` decisions per bot and player count.

use std::time::Instant;

use aeroplane::{Dice, Game, Greedy, MoveList, Rules, SeededDice};

/// Midgame positions with a roll and its legal moves (as `benches/bots.rs` picks them).
fn positions(players: usize) -> Vec<(Game, u8, MoveList)> {
    let mut out = Vec::new();
    let mut game_index = 0;
    while out.len() < 64 {
        let mut game = Game::new(Rules::default(), players).unwrap();
        let mut dice = SeededDice::new(2024, game_index);
        game_index += 1;
        let mut taken = 0;
        while !game.is_over() && taken < 4 {
            let roll = dice.roll(game.to_move()).unwrap();
            let moves = game.legal_moves(roll);
            if moves.len() >= 2 && game.turns() >= 30 && game.turns().is_multiple_of(7) {
                out.push((game, roll, moves));
                taken += 1;
            }
            let choice = (!moves.is_empty()).then(|| moves[Greedy::pick(&moves)]);
            game.apply(roll, choice);
        }
    }
    out.truncate(64);
    out
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 3usize;
    let mut fixed_passes = None;
    let mut player_counts = vec![2, 4];
    let mut bots = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--rounds" {
            rounds = it.next().map_or(Ok(3), |s| s.parse())?;
        } else if a == "--players" {
            player_counts = vec![it.next().map_or(Ok(2), |s| s.parse())?];
        } else if a == "--passes" {
            fixed_passes = Some(it.next().map_or(Ok(1), |s| s.parse())?);
        } else {
            bots.push(a.clone());
        }
    }
    if bots.is_empty() {
        bots = vec!["expectimax".into(), "expectimax-deep".into()];
    }
    let bots_dir = std::path::Path::new("bots");
    for &players in &player_counts {
        let positions = positions(players);
        for name in &bots {
            let spec = aeroplane::config::parse_bot(name, bots_dir)?;
            let mut bot = spec.build();
            bot.new_game(positions[0].0.to_move(), 7);
            // The first pass over the positions gives the digest and sizes a round (at least
            // 0.25 s, whole passes).
            let mut digest = 0xcbf2_9ce4_8422_2325u64;
            let start = Instant::now();
            for (game, roll, moves) in &positions {
                let k = bot.choose(game, *roll, moves);
                digest = (digest ^ k as u64).wrapping_mul(0x0000_0100_0000_01b3);
            }
            let once = start.elapsed().as_secs_f64();
            let passes = fixed_passes.unwrap_or(((0.25 / once).ceil() as usize).max(1));
            let mut times = Vec::new();
            for _ in 0..rounds {
                let start = Instant::now();
                for _ in 0..passes {
                    for (game, roll, moves) in &positions {
                        std::hint::black_box(bot.choose(game, *roll, moves));
                    }
                }
                times.push(start.elapsed().as_secs_f64());
            }
            times.sort_by(f64::total_cmp);
            let decisions = (passes * positions.len()) as f64;
            println!(
                "{name:<16} {players} players: {:>10.0} decisions/s (median of {rounds} rounds of {decisions} decisions; fastest {:.0}/s), choices digest {digest:016x}",
                decisions / times[times.len() / 2],
                decisions / times[0],
            );
        }
    }
    Ok(())
}
