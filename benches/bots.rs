//! Decision time of the search bots on fixed appfreegame midgame positions (2 players).
//!
//! The positions come from greedy-only games on seeded dice: every position after the 30th turn
//! where the roll offers at least two moves, up to 64 of them. One benchmark iteration is one
//! decision, cycling through the positions; the figure to quote is the median.
//!
//! `cargo bench --bench bots`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use aeroplane::{Dice, Game, Greedy, MoveList, Rules, SeededDice};

/// Midgame positions with a roll and its legal moves.
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

fn decisions(c: &mut Criterion) {
    let bots_dir = std::path::Path::new("bots");
    for players in [2, 4] {
        let positions = positions(players);
        let mut group = c.benchmark_group(format!("decision_{players}p"));
        for name in ["expectimax", "expectimax-deep", "montecarlo", "mcts"] {
            let spec = aeroplane::config::parse_bot(name, bots_dir).unwrap();
            let mut bot = spec.build();
            bot.new_game(positions[0].0.to_move(), 7);
            let mut i = 0;
            group.bench_function(name, |b| {
                b.iter(|| {
                    let (game, roll, moves) = &positions[i % positions.len()];
                    i += 1;
                    black_box(bot.choose(game, *roll, moves))
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, decisions);
criterion_main!(benches);
