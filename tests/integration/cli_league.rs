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

/// `league --per-game` writes games.csv: one row per game in game order, table t playing deals
/// t·G to (t+1)·G−1 with only its members seated, `bot_seatJ` and `winner_bot` pool indices
/// (positions in --bots) whose `name_seatJ` are the pool's names, the wins those of
/// league.csv; every other file is the league's without it (run.json but for `per_game`); a
/// stopped league resumes to the same files, and shards merge into them.
#[test]
fn per_game_writes_the_leagues_games_by_pool_index() {
    let tmp = TempDir::new().unwrap();
    let pool = [
        "random",
        "greedy",
        "expectimax:depth=1",
        "montecarlo:rollouts=2",
    ];
    let pool_arg = pool.join(",");
    let deals = 6u64;
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = [
            "league",
            "--bots",
            &pool_arg,
            "--players",
            "3",
            "--games",
            "6",
            "--seed",
            "4",
            "--bootstrap",
            "100",
            "--chunk-size",
            "2",
            "--threads",
            "1",
            "-q",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let plain = tmp.path().join("plain");
    let with = tmp.path().join("with");
    aeroplane()
        .args(args(&[]))
        .arg("--out")
        .arg(&plain)
        .assert()
        .success();
    aeroplane()
        .args(args(&["--per-game"]))
        .arg("--out")
        .arg(&with)
        .assert()
        .success();
    assert!(!plain.join("games.csv").exists());
    for f in ["league.csv", "pairs.csv", "summary.json"] {
        assert_eq!(read(&plain, f), read(&with, f), "{f}");
    }
    assert_eq!(
        read(&plain, "run.json").replace("\"per_game\": false", "\"per_game\": true"),
        read(&with, "run.json")
    );

    let games = read(&with, "games.csv");
    let mut lines = games.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let k = pool.len() as u64;
    let mut wins = vec![0u64; pool.len()];
    let mut n = 0u64;
    for (i, line) in lines.enumerate() {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells[col("game")], i.to_string(), "{line}");
        let deal: u64 = cells[col("deal")].parse().unwrap();
        let table = deal / deals;
        assert!(table < k, "{line}");
        let members: Vec<usize> = (0..3).map(|s| ((table + s) % k) as usize).collect();
        let mut seated = Vec::new();
        for j in 0..4 {
            let bot = cells[col(&format!("bot_seat{j}"))];
            let name = cells[col(&format!("name_seat{j}"))];
            if bot.is_empty() {
                assert!(name.is_empty(), "{line}");
                continue;
            }
            let b: usize = bot.parse().unwrap();
            assert_eq!(name, pool[b], "{line}");
            seated.push(b);
        }
        seated.sort();
        let mut want = members.clone();
        want.sort();
        assert_eq!(seated, want, "table {table}: {line}");
        if let Ok(w) = cells[col("winner_bot")].parse::<usize>() {
            wins[w] += 1;
        }
        n += 1;
    }
    assert_eq!(n, k * deals * 3);
    let league = read(&with, "league.csv");
    for row in league.lines().skip(1) {
        let c: Vec<&str> = row.split(',').collect();
        let b = pool.iter().position(|p| *p == c[1]).unwrap();
        assert_eq!(c[6], wins[b].to_string(), "{row}: {wins:?}");
    }

    // Stopped and resumed: the same files.
    let stopped = tmp.path().join("stopped");
    let out = aeroplane()
        .args(args(&["--per-game"]))
        .arg("--out")
        .arg(&stopped)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "3")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    assert!(stopped.join("games.csv.partial").exists());
    aeroplane()
        .arg("resume")
        .arg(&stopped)
        .arg("-q")
        .assert()
        .success();
    for f in ["games.csv", "league.csv", "pairs.csv", "run.json"] {
        assert_eq!(read(&stopped, f), read(&with, f), "{f}");
    }

    // Shards merged: the same games.csv.
    let shards: Vec<_> = (0..2).map(|s| tmp.path().join(format!("s{s}"))).collect();
    for (s, dir) in shards.iter().enumerate() {
        aeroplane()
            .args(args(&["--per-game", "--shard", &format!("{s}/2")]))
            .arg("--out")
            .arg(dir)
            .assert()
            .success();
    }
    let merged = tmp.path().join("merged");
    aeroplane()
        .arg("merge")
        .arg(&merged)
        .args(&shards)
        .assert()
        .success();
    assert_eq!(read(&merged, "games.csv"), games);

    // Without --out it is refused, naming what it needs.
    aeroplane()
        .args(args(&["--per-game"]))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--per-game writes games.csv into the output folder: give --out",
        ));
}
