//! `aeroplane league`: ranking, balanced schedule, determinism across threads, bad input.

use crate::common::aeroplane;
use std::fs;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::without_written_line;

fn league(dir: &Path, threads: &str) -> String {
    let out = aeroplane()
        .args([
            "league",
            "--bots",
            "random,greedy,expectimax",
            "--players",
            "3",
            "--games",
            "40",
            "--seed",
            "9",
            "--bootstrap",
            "100",
            "--quiet",
            "--threads",
            threads,
            "--out",
        ])
        .arg(dir)
        .assert()
        .success();
    without_written_line(String::from_utf8(out.get_output().stdout.clone()).unwrap())
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn greedy_ranks_above_random_and_outputs_do_not_depend_on_threads() {
    let (a, b) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let out_a = league(a.path(), "1");
    let out_b = league(b.path(), "2");
    assert_eq!(out_a, out_b);
    for f in ["run.json", "league.csv", "pairs.csv"] {
        assert_eq!(read(a.path(), f), read(b.path(), f), "{f}");
    }
    let csv = read(a.path(), "league.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "rank,bot,rating,rating_lo95,rating_hi95,games,wins,win_rate,mean_rank,ranked_games"
    );
    let place = |bot: &str| lines.iter().position(|l| l.split(',').nth(1) == Some(bot));
    assert!(place("greedy") < place("random"), "{csv}");
    assert_eq!(lines[3].split(',').nth(1), Some("random"), "{csv}");
    // Balanced: 3 tables x 40 deals x 3 rotations, every bot in every game.
    for l in &lines[1..] {
        assert_eq!(l.split(',').nth(5), Some("360"), "{l}");
    }
    let wins: u64 = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(6).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(wins, 360);
    let pairs = read(a.path(), "pairs.csv");
    assert!(pairs.starts_with("bot,opponent,met,ahead,score,score_lo95,score_hi95,deals\n"));
    assert_eq!(pairs.lines().count(), 1 + 6);
}

#[test]
fn bad_league_input_is_a_clear_error() {
    let cases: [(&[&str], &str); 4] = [
        (&["--bots", "greedy"], "at least 2"),
        (&["--bots", "greedy,greedy"], "twice"),
        (&["--bots", "greedy,random", "--players", "5"], "--players"),
        (&["--bots", "greedy,nobot"], "nobot"),
    ];
    for (args, word) in cases {
        aeroplane()
            .arg("league")
            .args(args)
            .args(["--games", "5", "--quiet"])
            .assert()
            .failure()
            .stderr(predicate::str::contains(word))
            .stderr(predicate::str::contains("panicked").not());
    }
}
