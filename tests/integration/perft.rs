//! Perft with the independent reference move generator: at every node of the tree to a small
//! depth, the reference model lists the same moves as the engine, so the leaf counts agree.

use assert_cmd::cargo::cargo_bin_cmd;

use crate::reference::{RefMove, legal_moves};
use aeroplane::perft::POSITIONS;
use aeroplane::{Game, Preset, perft_fast};

/// Leaves to `depth`, with the reference model's move list checked against the engine's at
/// every node.
fn reference_perft(game: &Game, depth: u32) -> u64 {
    if depth == 0 || game.is_over() {
        return 1;
    }
    let mut leaves = 0;
    for face in 1..=6 {
        let engine = game.legal_moves(face);
        let mine: Vec<RefMove> = engine.iter().map(RefMove::of).collect();
        assert_eq!(mine, legal_moves(game, face), "roll {face} in {game}");
        if engine.is_empty() {
            let mut next = *game;
            next.apply(face, None);
            leaves += reference_perft(&next, depth - 1);
        }
        for &m in engine.iter() {
            let mut next = *game;
            next.apply(face, Some(m));
            leaves += reference_perft(&next, depth - 1);
        }
    }
    leaves
}

#[test]
fn the_reference_generator_agrees_at_small_depth() {
    for preset in Preset::ALL {
        for players in 2..=4 {
            let g = Game::new(preset.rules(), players).unwrap();
            assert_eq!(
                reference_perft(&g, 4),
                perft_fast(&g, 4),
                "{preset} {players}p"
            );
        }
    }
    for (preset, _, text) in POSITIONS {
        let g = Game::from_notation(preset.rules(), text).unwrap();
        assert_eq!(reference_perft(&g, 3), perft_fast(&g, 3), "{text}");
    }
}

#[test]
fn the_perft_command_prints_the_pinned_counts() {
    let out = cargo_bin_cmd!("aeroplane")
        .args([
            "perft",
            "--rules",
            "classic",
            "--players",
            "2",
            "--depth",
            "4",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let counts: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().nth(2).unwrap())
        .collect();
    assert_eq!(counts, ["6", "39", "284", "2186"]);
    let bad = cargo_bin_cmd!("aeroplane")
        .args(["perft", "--position", "h,h/-/h,h/- 9 - 0 - - - 0"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8(bad.stderr).unwrap();
    assert!(err.contains("to_move"), "{err}");
}
