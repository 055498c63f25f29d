//! Perft counts pinned: from the start of every preset with 2, 3 and 4 players, and from the
//! documented middle-game positions. The fast path and the state API must agree.

use aeroplane_core::perft::POSITIONS;
use aeroplane_core::{Game, Preset, perft, perft_fast};

#[test]
fn from_the_start() {
    let pinned: [(Preset, usize, [u64; 5]); 9] = [
        (Preset::AppFreeGame, 2, [6, 37, 227, 1417, 9219]),
        (Preset::AppFreeGame, 3, [6, 37, 227, 1392, 8664]),
        (Preset::AppFreeGame, 4, [6, 37, 227, 1392, 8539]),
        (Preset::Classic, 2, [6, 39, 284, 2186, 18183]),
        (Preset::Classic, 3, [6, 39, 254, 1795, 13581]),
        (Preset::Classic, 4, [6, 39, 254, 1645, 11416]),
        (Preset::Chinese, 2, [6, 37, 229, 1455, 9625]),
        (Preset::Chinese, 3, [6, 37, 229, 1430, 9075]),
        (Preset::Chinese, 4, [6, 37, 229, 1430, 8950]),
    ];
    for (preset, players, counts) in pinned {
        let g = Game::new(preset.rules(), players).unwrap();
        for (d, &want) in counts.iter().enumerate() {
            let depth = d as u32 + 1;
            assert_eq!(
                perft_fast(&g, depth),
                want,
                "{preset} {players}p depth {depth}"
            );
            assert_eq!(
                perft(&g, depth),
                want,
                "{preset} {players}p depth {depth} (state API)"
            );
        }
        assert_eq!(perft(&g, 0), 1);
    }
}

#[test]
fn from_the_middle_game_positions() {
    let pinned: [[u64; 4]; 6] = [
        [9, 65, 517, 4172],
        [7, 85, 1048, 10414],
        [7, 55, 390, 2868],
        [19, 156, 2447, 33452],
        [12, 214, 2888, 45835],
        [19, 276, 2705, 22665],
    ];
    for ((preset, players, text), counts) in POSITIONS.iter().zip(pinned) {
        let g = Game::from_notation(preset.rules(), text).unwrap();
        assert_eq!(g.players(), *players);
        assert_eq!(g.to_string(), *text);
        for (d, &want) in counts.iter().enumerate() {
            let depth = d as u32 + 1;
            assert_eq!(perft_fast(&g, depth), want, "{text} depth {depth}");
            assert_eq!(perft(&g, depth), want, "{text} depth {depth} (state API)");
        }
    }
}

#[test]
fn from_a_decision_node_the_first_ply_is_the_actions() {
    let (preset, _, text) = POSITIONS[3];
    let g = Game::from_notation(preset.rules(), text).unwrap();
    let mut by_face = 0;
    for face in 1..=6 {
        let mut d = g;
        if d.apply_roll(face).unwrap().is_some() {
            by_face += perft(&d, 2);
        } else {
            by_face += perft(&d, 3);
        }
    }
    assert_eq!(by_face, perft(&g, 3));
}
