//! Perft: the number of leaves of the game tree to a depth, the standard check of a move
//! generator (from chess programming). Here the tree has chance nodes: one *ply* is a roll of
//! the die (six faces) followed by the seat's action, or by nothing when the roll offers no
//! move (a pass or a penalty is one branch). A position that is over is one leaf.
//!
//! [`perft`] walks the tree through the state API ([`Game::apply_roll`], [`Game::apply_action`]);
//! [`perft_fast`] through the fast path ([`Game::legal_moves_into`], [`Game::apply`]). The two
//! agree by construction of the API and are tested to.

use crate::game::Game;
use crate::moves::MoveList;
use crate::rules::Preset;

/// Middle-game positions for perft, one per preset and player count 2 and 4: each is where a
/// seeded game of greedy bots stood after 100 to 106 rolls (dice seed 2026, game index =
/// players). Their counts are pinned in the tests.
pub const POSITIONS: [(Preset, usize, &str); 6] = [
    (
        Preset::AppFreeGame,
        2,
        "57,8,55,h/-/57,56,h,h/- 0 - 0 - - - 106",
    ),
    (
        Preset::AppFreeGame,
        4,
        "57,h,h,h/35,h,h,h/33,5,h,h/18,25,h,h 1 - 0 - - - 101",
    ),
    (
        Preset::Classic,
        2,
        "56,55,56,33/-/56,54,30,56/- 0 - 0 - - - 106",
    ),
    (
        Preset::Classic,
        4,
        "31,31,6,6/55,35,6,0/50,56,56,50/50,0,30,h 1 - 0 - - - 101",
    ),
    (
        Preset::Chinese,
        2,
        "56,56,51,34/-/0,30,45,h/- 0 - 0 - - - 106",
    ),
    (
        Preset::Chinese,
        4,
        "56,h,h,h/54,30,46,h/50,0,h,h/56,16,h,h 1 - 0 - - - 101",
    ),
];

/// Leaves of the chance tree `depth` plies below `game` (a chance node; at a decision node the
/// first ply is the pending roll's actions only).
pub fn perft(game: &Game, depth: u32) -> u64 {
    if depth == 0 || game.is_over() {
        return 1;
    }
    if game.pending_roll().is_some() {
        return game
            .legal_actions()
            .iter()
            .map(|a| {
                let mut next = *game;
                next.apply_action(a.index() as u32).expect("legal action");
                perft(&next, depth - 1)
            })
            .sum();
    }
    let mut leaves = 0;
    for face in 1..=6 {
        let mut rolled = *game;
        if rolled.apply_roll(face).expect("a chance node").is_some() {
            leaves += perft(&rolled, depth - 1);
        } else {
            leaves += perft(&rolled, depth);
        }
    }
    leaves
}

/// [`perft`] on the fast path, from a chance node (no pending roll).
///
/// # Panics
/// If `game` has a roll waiting for a decision.
pub fn perft_fast(game: &Game, depth: u32) -> u64 {
    assert!(
        game.pending_roll().is_none(),
        "perft_fast from a chance node"
    );
    fast(game, depth)
}

fn fast(game: &Game, depth: u32) -> u64 {
    if depth == 0 || game.is_over() {
        return 1;
    }
    let mut moves = MoveList::default();
    let mut leaves = 0;
    for face in 1..=6 {
        game.legal_moves_into(face, &mut moves);
        if moves.is_empty() {
            let mut next = *game;
            next.apply(face, None);
            leaves += fast(&next, depth - 1);
        }
        for &m in moves.iter() {
            let mut next = *game;
            next.apply(face, Some(m));
            leaves += fast(&next, depth - 1);
        }
    }
    leaves
}
