//! `aeroplane run --sprt`: early stopping, determinism across threads, and bad input.

use crate::common::aeroplane;
use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::without_written_line;

fn sprt(threads: &str, bots: &str, extra: &[&str]) -> String {
    let out = aeroplane()
        .args([
            "run",
            "--bots",
            bots,
            "--sprt",
            "elo0=0,elo1=20,alpha=0.05,beta=0.05",
            "--games",
            "5000",
            "--seed",
            "4",
            "--chunk-size",
            "16",
            "--quiet",
            "--threads",
            threads,
        ])
        .args(extra)
        .assert()
        .success();
    without_written_line(String::from_utf8(out.get_output().stdout.clone()).unwrap())
}

/// The number after `after` in the LLR line.
fn games_played(out: &str) -> u64 {
    let line = out.lines().find(|l| l.contains("LLR")).expect(out);
    let after = line.split("after ").nth(1).unwrap();
    after.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn a_stronger_bot_is_accepted_early_and_identically_for_any_thread_count() {
    let one = sprt("1", "greedy,random", &[]);
    let two = sprt("2", "greedy,random", &[]);
    assert_eq!(one, two);
    assert!(one.contains("result: H1 accepted"), "{one}");
    let games = games_played(&one);
    assert!(games < 10_000 && games.is_multiple_of(32), "{games}\n{one}");
    assert!(one.contains("LOS") && one.contains("Elo"), "{one}");
    // Reversed, the weaker bot is bot A: H0 (no advantage) is accepted.
    let rev = sprt("2", "random,greedy", &[]);
    assert!(rev.contains("result: H0 accepted"), "{rev}");
}

#[test]
fn the_game_cap_makes_it_inconclusive_and_out_has_sprt_json() {
    let d = TempDir::new().unwrap();
    let out = sprt(
        "2",
        "greedy,random",
        &["--max-games", "10", "--out", d.path().to_str().unwrap()],
    );
    assert!(out.contains("result: inconclusive"), "{out}");
    assert_eq!(games_played(&out), 20);
    let json = std::fs::read_to_string(d.path().join("sprt.json")).unwrap();
    assert!(json.contains("\"result\": \"continue\""), "{json}");
    let seats = std::fs::read_to_string(d.path().join("seats.csv")).unwrap();
    assert!(seats.contains(",20,"), "{seats}");
}

#[test]
fn bad_sprt_input_is_a_clear_error() {
    let cases: [(&str, &str, &str); 6] = [
        ("greedy,random", "elo0=0", "elo1"),
        ("greedy,random", "elo0=0,elo1=20,gamma=1", "gamma"),
        ("greedy,random", "elo0=20,elo1=0", "elo0 < elo1"),
        ("greedy,greedy", "elo0=0,elo1=20", "two distinct bots"),
        // Three or four players: bot A against copies of one other bot B.
        ("greedy,random,expectimax", "elo0=0,elo1=20", "copies"),
        ("greedy,greedy,greedy", "elo0=0,elo1=20", "copies"),
    ];
    for (bots, text, word) in cases {
        aeroplane()
            .args(["run", "--bots", bots, "--sprt", text, "--games", "10", "-q"])
            .assert()
            .failure()
            .stderr(predicate::str::contains(word))
            .stderr(predicate::str::contains("panicked").not());
    }
}

/// Four players: bot A against three copies of bot B, each deal played with A in every seat
/// (the deal group as the unit); greedy is far stronger than random, so H1 is accepted on a
/// whole number of groups and the Elo is against an equal field.
#[test]
fn a_four_player_sprt_tests_a_against_copies_of_b() {
    let out = aeroplane()
        .args([
            "run",
            "--rules",
            "classic",
            "--bots",
            "greedy,random,random,random",
        ])
        .args(["--sprt", "elo0=0,elo1=50", "--games", "200", "-q"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("SPRT greedy vs 3 x random"), "{text}");
    assert!(text.contains("result: H1 accepted"), "{text}");
    let groups = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("LLR "))
        .and_then(|l| l.split(" after ").nth(1))
        .unwrap_or_else(|| panic!("no LLR line: {text}"));
    let (games, rest) = groups.split_once(" games (").unwrap();
    let n: u64 = rest.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(games.parse::<u64>().unwrap(), 4 * n, "{text}");
    assert!(
        text.contains("against an equal field (Plackett-Luce)"),
        "{text}"
    );
}

/// With `--luck`, the luck-adjusted test decides and the plain LLR is printed beside it (at
/// `--luck-ply 1` too, recorded in sprt.json); a net for another player count is refused
/// before any game.
#[test]
fn a_luck_adjusted_sprt_decides_on_the_adjusted_scores() {
    let net = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/bots/nets/td-classic-2p.safetensors"
    );
    let out = aeroplane()
        .args(["run", "--rules", "classic", "--bots", "greedy,random"])
        .args([
            "--sprt",
            "elo0=0,elo1=50",
            "--games",
            "200",
            "-q",
            "--luck",
            net,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("luck-adjusted (decides): LLR "), "{text}");
    assert!(text.contains("result: H1 accepted"), "{text}");
    // At --luck-ply 1 the test decides on the deeper luck; sprt.json and run.json say the ply.
    let dir = tempfile::tempdir().unwrap();
    aeroplane()
        .args(["run", "--rules", "classic", "--bots", "greedy,random"])
        .args(["--sprt", "elo0=0,elo1=50", "--games", "200", "-q"])
        .args(["--luck", net, "--luck-ply", "1", "--out"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("luck-adjusted (decides): LLR "));
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(f)).unwrap()).unwrap()
    };
    assert_eq!(read("sprt.json")["luck"]["ply"], 1);
    assert_eq!(read("run.json")["luck_ply"], 1);
    aeroplane()
        .args([
            "run",
            "--rules",
            "classic",
            "--bots",
            "greedy,random,random,random",
        ])
        .args([
            "--sprt",
            "elo0=0,elo1=50",
            "--games",
            "20",
            "-q",
            "--luck",
            net,
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("for 2 players, the game has 4"))
        .stderr(predicate::str::contains("panicked").not());
}
