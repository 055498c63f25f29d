//! A decision of a search bot allocates nothing in steady state: a counting allocator checks
//! every shipped search profile over many midgame positions of each player count; nor does
//! measuring a roll's luck, at any ply.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use aeroplane::{Dice, Game, Greedy, MoveList, Preset, SeededDice};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

fn positions(preset: Preset, players: usize) -> Vec<(Game, u8, MoveList)> {
    let mut out = Vec::with_capacity(64);
    for i in 0..8 {
        let mut game = Game::new(preset.rules(), players).unwrap();
        let mut dice = SeededDice::new(5, i);
        while !game.is_over() && out.len() < 8 * (i as usize + 1) {
            let roll = dice.roll(game.to_move()).unwrap();
            let moves = game.legal_moves(roll);
            if moves.len() >= 2 {
                out.push((game, roll, moves));
            }
            let choice = (!moves.is_empty()).then(|| moves[Greedy::pick(&moves)]);
            game.apply(roll, choice);
        }
    }
    out
}

#[test]
fn search_decisions_allocate_nothing_in_steady_state() {
    // The counter sees allocations on this thread.
    let start = allocations();
    let probe = std::hint::black_box(vec![1u8; 16]);
    assert!(allocations() > start);
    drop(probe);
    let bots = [
        "expectimax",
        "expectimax-deep",
        "montecarlo",
        "mcts:iterations=200",
        "mcts-rollout:iterations=200",
        "mcts:iterations=50:policy=expectimax:leaf_depth=2",
    ];
    for preset in Preset::ALL {
        for players in 2..=4 {
            let positions = positions(preset, players);
            for text in bots {
                let mut bot = aeroplane::config::parse_bot(text, Path::new("bots"))
                    .unwrap()
                    .build();
                bot.new_game(positions[0].0.to_move(), 3);
                let (g, r, m) = &positions[0];
                bot.choose(g, *r, m);
                let before = allocations();
                for (g, r, m) in &positions {
                    let k = bot.choose(g, *r, m);
                    assert!(k < m.len());
                }
                let used = allocations() - before;
                assert_eq!(
                    used, 0,
                    "{text} allocated {used} times ({preset} {players}p)"
                );
            }
        }
    }
}

#[test]
fn the_luck_of_a_roll_allocates_nothing_at_any_ply() {
    use aeroplane::analysis::luck::LuckNet;
    for (preset, players, net) in [
        (Preset::Classic, 4, "td-classic-4p"),
        (Preset::Chinese, 2, "td-chinese-2p"),
    ] {
        let positions = positions(preset, players);
        for ply in 0..=i64::from(aeroplane::analysis::luck::MAX_LUCK_PLY) {
            let mut meter = LuckNet::load(format!("bots/nets/{net}.safetensors"))
                .unwrap()
                .with_ply(aeroplane::analysis::luck::LuckPly::new(ply).unwrap())
                .meter(&preset.rules(), players)
                .unwrap();
            // Ply 2 and 3 are slow in a debug build: every 8th and 40th position.
            let every = [1, 1, 8, 40][ply as usize];
            let (g, r, _) = &positions[0];
            meter.roll_luck(g, *r);
            meter.seat_luck(g, *r);
            let before = allocations();
            let mut total = 0.0;
            for (g, r, _) in positions.iter().step_by(every) {
                total += if ply == 0 {
                    meter.roll_luck(g, *r).ret
                } else {
                    meter.seat_luck(g, *r).iter().map(|v| v.ret.abs()).sum()
                };
            }
            let used = allocations() - before;
            assert_eq!(
                used, 0,
                "ply {ply} allocated {used} times ({preset} {players}p)"
            );
            assert!(total != 0.0, "ply {ply}: no luck measured");
        }
    }
}
