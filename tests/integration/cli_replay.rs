//! `aeroplane replay` run as a real binary: scripted games, JSON, dice files, running out of
//! dice, and bad input (each a clear error naming the problem, never a panic).

use crate::common::aeroplane;
use std::io::Write as _;

use aeroplane::step_label;
use aeroplane::{
    Action, Bot, Counter, Game, GameRecord, Greedy, Observer, Outcome, Preset, SeededDice,
    play_game,
};
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

/// Collects each roll as (seat, roll, what happened) while a library game is played.
#[derive(Default)]
struct Rolls(Vec<(usize, u8, String)>);
impl Observer for Rolls {
    fn on_roll(&mut self, _before: &Game, o: &Outcome) {
        let what = match o.action {
            Action::Move(m) => m.notation(),
            Action::Pass => "pass".into(),
            Action::Penalty { .. } => "penalty".into(),
        };
        self.0.push((o.seat.index(), o.roll, what));
    }
}

/// A seeded greedy game played by the library: its record and its rolls.
fn library_game(preset: Preset, players: usize, seed: u64, index: u64) -> (GameRecord, Rolls) {
    let game = Game::new(preset.rules(), players).unwrap();
    let mut bots: Vec<Box<dyn Bot>> = (0..players)
        .map(|_| Box::new(Greedy) as Box<dyn Bot>)
        .collect();
    let mut rolls = Rolls::default();
    let record = play_game(
        game,
        &mut bots,
        &mut SeededDice::new(seed, index),
        &mut rolls,
    )
    .unwrap();
    (record, rolls)
}

fn dice_list(rolls: &Rolls) -> String {
    rolls
        .0
        .iter()
        .map(|r| r.1.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn record_line(r: &GameRecord) -> String {
    let counts: Vec<String> = Counter::ALL
        .iter()
        .map(|&c| format!("{} {}", c.name(), r.counters[c]))
        .collect();
    counts.join("  ")
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).unwrap()
}

#[test]
fn replay_scripted_game_log_lines_and_record() {
    // red: 6 launch, 6 jump 0->6->10, 6 punished; blue 3 pass; red 5 pass; blue 6 launch,
    // 4 to 4; red 6 launch, 4 to 4. The dice then run out.
    let assert = aeroplane()
        .args([
            "replay",
            "--bots",
            "greedy,greedy",
            "--dice",
            "6,6,6,3,5,6,4,6,4",
        ])
        .assert()
        .failure();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    // After the legend line.
    let lines: Vec<&str> = out.lines().skip(1).take(9).collect();
    let expect = [
        ("seat 0", "rolls 6", "launch"),
        ("seat 0", "rolls 6", "jump"),
        ("seat 0", "rolls 6", "penalty"),
        ("seat 2", "rolls 3", "pass"),
        ("seat 0", "rolls 5", "pass"),
        ("seat 2", "rolls 6", "launch"),
        ("seat 2", "rolls 4", "0->4"),
        ("seat 0", "rolls 6", "launch"),
        ("seat 0", "rolls 4", "0->4"),
    ];
    for (line, (seat, die, what)) in lines.iter().zip(expect) {
        assert!(
            line.contains(seat) && line.contains(die) && line.contains(what),
            "{line:?} should show {seat}, {die}, {what}"
        );
    }
    assert!(lines[0].contains("roll again") && lines[1].contains("0->10"));
    assert!(out.contains(
        "turns 5  rolls 9  moves 6  launches 3  captures 0  penalties 1  jumps 1  flights 0  bounces 0  passes 2"
    ));
    assert!(out.contains("steps [4, H, H, H]"));
}

#[test]
fn replay_full_game_matches_the_library_roll_for_roll() {
    for preset in Preset::ALL {
        let (record, rolls) = library_game(preset, 4, 7, 1);
        let out = stdout_of(aeroplane().args([
            "replay",
            "--rules",
            preset.name(),
            "--bots",
            "greedy,greedy,greedy,greedy",
            "--dice",
            &dice_list(&rolls),
        ]));
        let log: Vec<&str> = out.lines().skip(1).take_while(|l| !l.is_empty()).collect();
        assert_eq!(log.len(), rolls.0.len(), "{}", preset.name());
        for (line, (seat, die, what)) in log.iter().zip(&rolls.0) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = |w: &str| words.iter().position(|&x| x == w).unwrap();
            assert_eq!(words[at("seat") + 1], seat.to_string(), "{line}");
            assert_eq!(words[at("rolls") + 1], die.to_string(), "{line}");
            assert_eq!(words[at("rolls") + 2], what, "{line}");
        }
        assert!(out.contains("game finished"), "{out}");
        let winner = record.winner.unwrap();
        assert!(out.contains(&format!("winner: seat {winner}")));
        assert!(out.contains(&record_line(&record)), "{out}");
    }
}

#[test]
fn replay_json_holds_the_record_and_final_steps_with_h() {
    // The first game of seed 3 whose final position has a plane in a hangar.
    let (record, rolls) = (0..100)
        .map(|i| library_game(Preset::AppFreeGame, 4, 3, i))
        .find(|(r, _)| {
            r.final_steps
                .iter()
                .flatten()
                .any(|&s| s == aeroplane::HANGAR)
        })
        .expect("some game ends with a plane in its hangar");
    let out = stdout_of(aeroplane().args([
        "replay",
        "--json",
        "--bots",
        "greedy,greedy,greedy,greedy",
        "--dice",
        &dice_list(&rolls),
    ]));
    let doc: Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(doc["complete"], Value::Bool(true));
    assert_eq!(doc["log"].as_array().unwrap().len(), rolls.0.len());
    let rec = &doc["record"];
    for (c, want) in record.counters.iter() {
        assert_eq!(rec[c.name()].as_u64(), Some(u64::from(want)), "{c:?}");
    }
    assert_eq!(rec["unfinished"], Value::Bool(false));
    assert_eq!(
        rec["winner"].as_u64(),
        record.winner.map(|w| w.index() as u64)
    );
    let mut saw_h = false;
    for seat in rec["ranks"].as_array().unwrap() {
        let s = seat["seat"].as_u64().unwrap() as usize;
        // Steps are numbers, the hangar -1.
        let steps: Vec<i64> = seat["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let want: Vec<i64> = record.final_steps[s]
            .iter()
            .map(|&x| match step_label(x).as_str() {
                "H" => -1,
                n => n.parse().unwrap(),
            })
            .collect();
        assert_eq!(steps, want, "seat {s}");
        saw_h |= steps.contains(&-1);
    }
    assert!(saw_h);
}

#[test]
fn replay_seed_and_game_index_match_the_library() {
    let (record, _) = library_game(Preset::Classic, 3, 42, 9);
    let out = stdout_of(aeroplane().args([
        "replay",
        "--rules",
        "classic",
        "--bots",
        "greedy,greedy,greedy",
        "--seed",
        "42",
        "--game",
        "9",
    ]));
    assert!(out.contains(&record_line(&record)), "{out}");
}

#[test]
fn replay_dice_file_equals_dice_argument() {
    let (_, rolls) = library_game(Preset::Chinese, 2, 5, 0);
    let mut file = tempfile::NamedTempFile::new().unwrap();
    // Mixed separators: newlines, spaces and commas.
    for (i, r) in rolls.0.iter().enumerate() {
        let sep = ["\n", " ", ", "][i % 3];
        write!(file, "{}{sep}", r.1).unwrap();
    }
    file.flush().unwrap();
    let args = ["replay", "--rules", "chinese", "--bots", "greedy,greedy"];
    let from_file = stdout_of(aeroplane().args(args).arg("--dice-file").arg(file.path()));
    let from_arg = stdout_of(aeroplane().args(args).args(["--dice", &dice_list(&rolls)]));
    assert_eq!(from_file, from_arg);
    assert!(from_file.contains("game finished"));
}

#[test]
fn replay_running_out_of_dice_is_reported_with_the_position() {
    aeroplane()
        .args(["replay", "--dice", "6,1,3"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("dice ran out").and(predicate::str::contains("3 rolls")))
        .stderr(predicate::str::contains("panicked").not())
        .stdout(predicate::str::contains("steps [1, H, H, H]"))
        .stdout(predicate::str::contains("steps [H, H, H, H]"));
    // JSON mode: still a parseable document, marked incomplete.
    let assert = aeroplane()
        .args(["replay", "--json", "--dice", "6,1,3"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("dice ran out"));
    let doc: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(doc["complete"], Value::Bool(false));
    assert_eq!(doc["record"]["ranks"][0]["steps"][0], 1);
    assert_eq!(doc["record"]["ranks"][0]["steps"][1], -1);
}

#[test]
fn replay_json_log_steps_are_numbers_hangar_minus_one() {
    let out = stdout_of(aeroplane().args(["replay", "--seed", "3", "--game", "0", "--json"]));
    let doc: Value = serde_json::from_str(&out).unwrap();
    let log = doc["log"].as_array().unwrap();
    let launch = log.iter().find(|l| l["action"] == "launch").unwrap();
    assert_eq!(launch["from"], -1);
    assert_eq!(launch["to"], 0);
    for line in log {
        for key in ["from", "to"] {
            assert!(line[key].is_null() || line[key].is_i64(), "{line}");
        }
    }
}

#[test]
fn replay_text_log_starts_with_a_legend_of_captures() {
    let out = stdout_of(aeroplane().args(["replay", "--seed", "3", "--game", "0"]));
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("legend: capture N [s.p ...]"), "{first}");
    assert!(first.contains("seat.plane"), "{first}");
    // The capture the legend explains is in this game's log.
    assert!(out.contains("capture 1 [1.0]"), "{out}");
}

#[test]
fn replay_dice_with_seed_or_game_is_an_error_naming_both() {
    for (dice, other) in [
        (["--dice", "6,1"], ["--seed", "3"]),
        (["--dice", "6,1"], ["--game", "2"]),
        (["--dice-file", "dice.txt"], ["--seed", "3"]),
        (["--dice-file", "dice.txt"], ["--game", "2"]),
    ] {
        aeroplane()
            .arg("replay")
            .args(dice)
            .args(other)
            .assert()
            .failure()
            .stderr(predicate::str::contains(dice[0]).and(predicate::str::contains(other[0])));
    }
}

#[test]
fn replay_manifest_with_game_still_works() {
    let dir = tempfile::tempdir().unwrap();
    aeroplane()
        .args([
            "run",
            "--games",
            "4",
            "--bots",
            "greedy,random",
            "-q",
            "--out",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let out = stdout_of(
        aeroplane()
            .args(["replay", "--game", "3", "--manifest"])
            .arg(dir.path().join("run.json")),
    );
    assert!(out.contains("games.csv row:"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------------

/// Runs `replay` with `args`; expects a non-zero exit, no panic, and stderr naming each of
/// `words`.
#[track_caller]
fn rejects(args: &[&str], words: &[&str]) {
    let assert = aeroplane().arg("replay").args(args).assert().failure();
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(!err.contains("panicked"), "panic: {err}");
    for w in words {
        assert!(err.contains(w), "stderr should name {w:?}: {err}");
    }
}

/// A rules file with `text`, kept alive by the returned handle.
fn rules_file(text: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::Builder::new().suffix(".toml").tempfile().unwrap();
    f.write_all(text.as_bytes()).unwrap();
    f.flush().unwrap();
    f
}

#[test]
fn bad_input_unknown_preset() {
    rejects(
        &["--rules", "nopreset", "--dice", "1"],
        &["nopreset", "appfreegame", "classic", "chinese"],
    );
}

#[test]
fn bad_input_missing_rules_file() {
    rejects(
        &["--rules", "/nonexistent/dir/x.toml", "--dice", "1"],
        &["/nonexistent/dir/x.toml"],
    );
}

#[test]
fn bad_input_malformed_toml() {
    for text in ["home_lane_cells = \n", "[[[", "overshoot = \"bounce"] {
        let f = rules_file(text);
        let path = f.path().to_str().unwrap().to_string();
        rejects(&["--rules", &path, "--dice", "1"], &[&path, "TOML"]);
    }
}

#[test]
fn bad_input_unknown_key() {
    let f = rules_file("base = \"classic\"\nlaunch_roll = [6]\n");
    let path = f.path().to_str().unwrap().to_string();
    rejects(
        &["--rules", &path, "--dice", "1"],
        &[&path, "launch_roll", "launch_rolls", "home_lane_cells"],
    );
}

#[test]
fn bad_input_out_of_range_values() {
    for (text, option, value, allowed) in [
        ("home_lane_cells = 9", "home_lane_cells", "9", "3 to 8"),
        ("home_lane_cells = 2", "home_lane_cells", "2", "3 to 8"),
        ("launch_rolls = [7]", "launch_rolls", "7", "1..=6"),
        ("launch_rolls = []", "launch_rolls", "[]", "non-empty"),
        ("max_turns = 0", "max_turns", "0", "from 1"),
    ] {
        let f = rules_file(text);
        let path = f.path().to_str().unwrap().to_string();
        rejects(
            &["--rules", &path, "--dice", "1"],
            &[&path, option, value, allowed],
        );
    }
}

#[test]
fn bad_input_unknown_option_word() {
    let f = rules_file("three_sixes = \"some\"");
    let path = f.path().to_str().unwrap().to_string();
    rejects(
        &["--rules", &path, "--dice", "1"],
        &["three_sixes", "some", "none", "last_moved", "all_moved"],
    );
}

#[test]
fn bad_input_wrong_type() {
    for (text, option) in [
        ("home_lane_cells = \"five\"", "home_lane_cells"),
        ("flight_optional = 1", "flight_optional"),
        ("max_turns = 1.5", "max_turns"),
    ] {
        let f = rules_file(text);
        let path = f.path().to_str().unwrap().to_string();
        rejects(
            &["--rules", &path, "--dice", "1"],
            &[&path, option, "invalid type"],
        );
    }
}

#[test]
fn bad_input_dice_lists() {
    for (dice, bad) in [("6,7,1", "7"), ("0", "0"), ("6,x,2", "x"), ("6,-1", "-1")] {
        rejects(&["--dice", dice], &[bad, "1", "6"]);
    }
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(b"6 6\n9\n").unwrap();
    f.flush().unwrap();
    let path = f.path().to_str().unwrap().to_string();
    rejects(&["--dice-file", &path], &[&path, "9", "1", "6"]);
    rejects(
        &["--dice-file", "/nonexistent/dice.txt"],
        &["/nonexistent/dice.txt"],
    );
}

#[test]
fn bad_input_wrong_bot_count() {
    rejects(&["--bots", "greedy", "--dice", "1"], &["1", "2, 3 or 4"]);
    rejects(
        &[
            "--bots",
            "greedy,greedy,greedy,greedy,greedy",
            "--dice",
            "1",
        ],
        &["5", "2, 3 or 4"],
    );
}

#[test]
fn bad_input_unknown_bot() {
    rejects(
        &["--bots", "greedy,nobot", "--dice", "1"],
        &["nobot", "greedy", "random"],
    );
}

/// Issue 31, item 23: `replay`'s defaults are `run`'s (seed 1; greedy against three random),
/// so `replay --game N` with no other option is game N of `run` with no other option.
#[test]
fn replay_defaults_are_runs_defaults() {
    let dir = tempfile::tempdir().unwrap();
    aeroplane()
        .args(["run", "--games", "5", "--per-game", "-q", "--out"])
        .arg(dir.path())
        .assert()
        .success();
    let games = std::fs::read_to_string(dir.path().join("games.csv")).unwrap();
    let header: Vec<&str> = games.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    for game in 0..5 {
        let row: Vec<&str> = games.lines().nth(game + 1).unwrap().split(',').collect();
        let out = stdout_of(aeroplane().args(["replay", "--game", &game.to_string()]));
        let expected = format!(
            "turns {}  rolls {}  moves {}",
            row[col("turns")],
            row[col("rolls")],
            row[col("moves")]
        );
        assert!(out.contains(&expected), "game {game}: {expected}\n{out}");
        let winner = format!("winner: seat {} ", row[col("winner_seat")]);
        assert!(out.contains(&winner), "game {game}: {winner}\n{out}");
        assert!(out.contains("greedy") && out.contains("random"), "{out}");
    }
}
