//! The search bots: hand-calculated expectimax choices, legality over random positions of every
//! preset and player count, determinism given the seed, and profile loading.

use std::path::Path;

use proptest::prelude::*;

use aeroplane::bot_stream;
use aeroplane::bots::eval::Weights;
use aeroplane::bots::expectimax::Expectimax;
use aeroplane::config::{parse_bot, parse_lineup};
use aeroplane::{Bot, Game, HANGAR, Move, Preset, Rules, Seat, SeededDice, Setup, play_game};

const H: u8 = HANGAR;

fn no_weights() -> Weights {
    Weights {
        progress: 0.0,
        home: 0.0,
        hangar: 0.0,
        lane: 0.0,
        exposure: 0.0,
        mover: 0.0,
        win: 0.0,
    }
}

/// An appfreegame 2-player position with seat 0 to move.
fn position(red: [u8; 4], blue: [u8; 4]) -> Game {
    let rules = Rules::default();
    let mut setup = Setup::start(&rules, 2).unwrap();
    setup.steps[0] = red;
    setup.steps[2] = blue;
    setup.turns = 1;
    setup.into_game(rules).unwrap()
}

/// Depth-1 root values of seat 0 for every legal move of `roll`, and the bot's pick.
fn depth_one(game: &Game, roll: u8, weights: Weights) -> (Vec<String>, Vec<f32>, String) {
    let mut bot = Expectimax::new("t", 1, weights);
    let moves = game.legal_moves(roll);
    let mut values = vec![[0.0f32; 4]; moves.len()];
    bot.root_values(game, roll, &moves, &mut values);
    let pick = bot.choose(game, roll, &moves);
    (
        moves.iter().map(Move::notation).collect(),
        values.iter().map(|v| v[0]).collect(),
        moves[pick].notation(),
    )
}

#[test]
fn depth_one_progress_only_takes_the_capture_worth_the_victims_progress() {
    // Red 10 and 20; blue's plane at its step 39 is red's step 13. Roll 3: 10 -> 13 captures
    // it (blue loses 39 + 1 = 40), 20 -> 23 does not. Both gain 3 for red.
    let g = position([10, 20, H, H], [39, H, H, H]);
    let w = Weights {
        progress: 1.0,
        ..no_weights()
    };
    let (moves, values, pick) = depth_one(&g, 3, w);
    assert_eq!(moves, ["10", "20"]);
    // Red's progress: 11 + 21 = 32, +3 after either move; blue's is 40 or 0.
    assert_eq!(values, [35.0, 35.0 - 40.0]);
    assert_eq!(pick, "10");
}

#[test]
fn depth_one_progress_only_flies_rather_than_launching() {
    // Roll 6: launch (progress +1) or 12 -> 18, flying to 30 (progress +18); the flight is
    // forced in appfreegame, so the move is written plain `12`.
    let g = position([12, H, H, H], [H, H, H, H]);
    let w = Weights {
        progress: 1.0,
        ..no_weights()
    };
    let (moves, values, pick) = depth_one(&g, 6, w);
    assert_eq!(moves, ["launch", "12"]);
    assert_eq!(values, [13.0 + 1.0, 31.0]);
    assert_eq!(pick, "12");
}

#[test]
fn depth_one_hangar_only_launches_where_greedy_would_jump() {
    // Roll 6: 4 -> 10 jumps to 14 (greedy's category 2), or a launch (category 3).
    // A hangar-only evaluation prefers one plane fewer in the hangar: -2 against -3.
    let g = position([4, H, H, H], [H, H, H, H]);
    let w = Weights {
        hangar: 1.0,
        ..no_weights()
    };
    let (moves, values, pick) = depth_one(&g, 6, w);
    assert_eq!(moves, ["launch", "4"]);
    // Blue has 4 planes in the hangar: relative value = -own + blue's.
    assert_eq!(values, [-2.0 + 4.0, -3.0 + 4.0]);
    assert_eq!(pick, "launch");
    assert_eq!(moves[aeroplane::Greedy::pick(&g.legal_moves(6))], "4");
}

#[test]
fn depth_one_home_only_brings_a_plane_home() {
    // The centre is 57. Roll 2: 55 -> 57 finishes, 30 -> 32 does not.
    let g = position([30, 55, H, H], [H, H, H, H]);
    let w = Weights {
        home: 1.0,
        ..no_weights()
    };
    let (moves, values, pick) = depth_one(&g, 2, w);
    assert_eq!(moves, ["30", "55"]);
    assert_eq!(values, [0.0, 1.0]);
    assert_eq!(pick, "55");
}

#[test]
fn depth_two_averages_the_same_seats_extra_roll_after_a_six() {
    // Red's last plane out is at 40, the others are home: roll 6 gives only 40 -> 46, an own
    // colour cell, which jumps to 50. After a 6 red rolls again, so the second ply is red's:
    // from 50 every face moves the plane into the lane (51..=56; the centre is 57).
    // Progress only: the mean gain of the second ply is 3.5.
    let g = position([40, 57, 57, 57], [H, H, H, H]);
    let w = Weights {
        progress: 1.0,
        ..no_weights()
    };
    let mut bot = Expectimax::new("t", 2, w);
    let moves = g.legal_moves(6);
    assert_eq!(moves.len(), 1);
    let mut values = [[0.0f32; 4]; 1];
    bot.root_values(&g, 6, &moves, &mut values);
    // 3 * 58 home + 51 at step 50, plus the mean of 1..=6.
    assert!(
        (values[0][0] - (3.0 * 58.0 + 51.0 + 3.5)).abs() < 1e-4,
        "{values:?}"
    );
}

#[test]
fn depth_two_lets_the_opponent_reply_with_its_best_move() {
    // Roll 1 for red: 10 -> 11, or 26 -> 27, which captures blue's plane at its step 1 (red's
    // step 27). Then blue rolls: the value is the mean over blue's six faces of red's
    // component after blue's best reply (max-n: blue maximises its own component).
    let g = position([10, 26, H, H], [1, H, H, H]);
    let w = Weights {
        progress: 1.0,
        ..no_weights()
    };
    let mut bot = Expectimax::new("t", 2, w);
    let moves = g.legal_moves(1);
    assert_eq!(moves.len(), 2);
    let mut values = [[0.0f32; 4]; 2];
    bot.root_values(&g, 1, &moves, &mut values);
    // After the capture blue has no plane out and passes unless it rolls a 6 (launch,
    // progress 1; its extra roll is beyond the depth): red 11 + 28 = 39, blue 0 or 1.
    // After 10 -> 11 blue's plane moves on, so red's value is below 39 - 2 on every face.
    let capture = 39.0 - 1.0 / 6.0;
    assert!((values[1][0] - capture).abs() < 1e-4, "{values:?}");
    assert_eq!(bot.choose(&g, 1, &moves), 1);
}

/// Small-budget versions of every search bot.
const SMALL: [&str; 7] = [
    "expectimax:depth=1",
    "expectimax:depth=2",
    "montecarlo:rollouts=2:cutoff=4:policy=random",
    "montecarlo:rollouts=1:cutoff=0:policy=greedy",
    "mcts:iterations=24",
    "mcts-rollout:iterations=24:cutoff=3:policy=random",
    "mcts:iterations=12:policy=expectimax:leaf_depth=1:backup=mean",
];

fn build(text: &str) -> Box<dyn Bot> {
    parse_bot(text, Path::new("bots")).unwrap().build()
}

/// A bot that records whether every answer of the wrapped bot was a legal index.
struct Checked {
    inner: Box<dyn Bot>,
    decisions: u32,
}

impl Bot for Checked {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn new_game(&mut self, seat: Seat, seed: u64) {
        self.inner.new_game(seat, seed);
    }
    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        let k = self.inner.choose(game, roll, moves);
        assert!(
            k < moves.len(),
            "{} returned {k} of {} moves",
            self.inner.name(),
            moves.len()
        );
        assert_eq!(game.legal_moves(roll).as_slice(), moves);
        self.decisions += 1;
        k
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every search bot, in every seat of whole games of every preset and player count,
    /// answers with an index into the legal moves (the driver would panic otherwise).
    #[test]
    fn search_bots_return_only_legal_moves(
        preset in 0usize..3,
        players in 2usize..=4,
        seed in any::<u64>(),
    ) {
        let rules = Preset::ALL[preset].rules();
        for text in SMALL {
            let game = Game::new(rules, players).unwrap();
            let mut bots: Vec<Box<dyn Bot>> = (0..players)
                .map(|_| Box::new(Checked { inner: build(text), decisions: 0 }) as Box<dyn Bot>)
                .collect();
            for (k, b) in bots.iter_mut().enumerate() {
                b.new_game(game.seats()[k], bot_stream(seed, 0, game.seats()[k]));
            }
            let rec = play_game(game, &mut bots, &mut SeededDice::new(seed, 0), &mut ()).unwrap();
            prop_assert!(!rec.unfinished);
            prop_assert!(rec.counters[aeroplane::Counter::Moves] > 0);
        }
    }
}

fn play(texts: &[&str], seed: u64, game_index: u64) -> aeroplane::GameRecord {
    let game = Game::new(Rules::default(), texts.len()).unwrap();
    let mut bots: Vec<Box<dyn Bot>> = texts.iter().map(|t| build(t)).collect();
    for (k, b) in bots.iter_mut().enumerate() {
        let seat = game.seats()[k];
        b.new_game(seat, bot_stream(seed, game_index, seat));
    }
    play_game(
        game,
        &mut bots,
        &mut SeededDice::new(seed, game_index),
        &mut (),
    )
    .unwrap()
}

#[test]
fn bots_are_deterministic_given_their_seed() {
    for text in [
        "montecarlo:rollouts=4:policy=random",
        "mcts:iterations=50:policy=random",
        "expectimax",
    ] {
        for i in 0..3 {
            let a = play(&[text, "random", text], 11, i);
            let b = play(&[text, "random", text], 11, i);
            assert_eq!(a, b, "{text} game {i}");
        }
    }
}

#[test]
fn a_bots_own_seed_changes_its_rollouts_not_the_dice() {
    // The same dice with different bot seeds: a random-rollout Monte Carlo bot plays
    // differently in at least one of several games (its rollouts come from its own stream).
    let text = "montecarlo:rollouts=1:policy=random:cutoff=2";
    let mut differ = false;
    for i in 0..5 {
        let a = play(&[text, "greedy"], 1, i);
        let game = Game::new(Rules::default(), 2).unwrap();
        let mut bots: Vec<Box<dyn Bot>> = vec![build(text), build("greedy")];
        bots[0].new_game(Seat::ALL[0], 12345 + i);
        bots[1].new_game(Seat::ALL[2], 0);
        let b = play_game(game, &mut bots, &mut SeededDice::new(1, i), &mut ()).unwrap();
        differ |= a != b;
    }
    assert!(differ);
}

#[test]
fn shipped_profiles_load() {
    let lineup = parse_lineup(
        "expectimax,expectimax-deep,montecarlo,mcts",
        Path::new("bots"),
    )
    .unwrap();
    assert_eq!(lineup[1].params.int("depth"), 3);
    assert_eq!(lineup[3].kind, "mcts");
    // Built-in profiles work from any directory.
    let spec = parse_bot("mcts", Path::new("/nonexistent")).unwrap();
    assert_eq!(spec.kind, "mcts");
}

#[test]
fn bad_parameters_fail_naming_the_problem() {
    let err = |t: &str| parse_bot(t, Path::new("bots")).unwrap_err().to_string();
    let e = err("expectimax:depth=9");
    assert!(e.contains("`depth`") && e.contains("1 to 6"), "{e}");
    let e = err("expectimax:width=2");
    assert!(
        e.contains("no parameter `width`") && e.contains("depth"),
        "{e}"
    );
    let e = err("montecarlo:policy=smart");
    assert!(e.contains("smart") && e.contains("random, greedy"), "{e}");
    let e = err("mcts:exploration=-1");
    assert!(e.contains("exploration"), "{e}");
    let e = err("mcts:iterations=0");
    assert!(e.contains("iterations"), "{e}");
}

#[test]
fn bad_profile_files_fail_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write("k.toml", "kind = \"alphazero\"\n");
    write("p.toml", "kind = \"mcts\"\n[params]\nrollouts = 3\n");
    write("v.toml", "kind = \"expectimax\"\n[params]\nhangar = -5\n");
    let err = |t: &str| parse_bot(t, dir.path()).unwrap_err().to_string();
    let e = err("k");
    assert!(
        e.contains("unknown bot kind `alphazero`") && e.contains("mcts"),
        "{e}"
    );
    let e = err("p");
    assert!(
        e.contains("no parameter `rollouts`") && e.contains("iterations"),
        "{e}"
    );
    let e = err("v");
    assert!(e.contains("`hangar`") && e.contains("-5"), "{e}");
}

#[test]
fn the_bots_command_lists_every_profile_with_its_parameters() {
    let out = assert_cmd::Command::cargo_bin("aeroplane")
        .unwrap()
        .arg("bots")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for needle in [
        "expectimax-deep",
        "depth=3",
        "montecarlo",
        "rollouts=",
        "mcts",
        "iterations=",
        "greedy",
        "random",
        "exploration",
    ] {
        assert!(text.contains(needle), "missing {needle} in:\n{text}");
    }
}
