//! `run --log-games`: the decision log of a run, written into its output folder like
//! `games.csv` (complete or absent, named in run.json, the same bytes for any thread count,
//! unit size, resume or shard split), read back by `replay --log`.

use crate::common::aeroplane;
use std::path::Path;

use aeroplane::decision_log::{LogFormat, LogStyle};
use aeroplane::runner::RunSpec;
use aeroplane::runner::{log_games, log_games_with};
use aeroplane::{Preset, parse_lineup};
use predicates::prelude::*;

const BOTS: &str = "expectimax:depth=1,greedy,random";
const DEALS: u64 = 24;

fn run_args() -> Vec<&'static str> {
    vec![
        "run",
        "--rules",
        "classic",
        "--bots",
        BOTS,
        "--games",
        "24",
        "--seed",
        "6",
        "--rotate-seats",
        "-q",
    ]
}

fn spec() -> RunSpec {
    RunSpec {
        rules: Preset::Classic.rules(),
        lineup: parse_lineup(BOTS, "bots".as_ref()).unwrap(),
        seed: 6,
        first_deal: 0,
        deals: DEALS,
        rotate_seats: true,
    }
}

fn run(out: &Path, extra: &[&str]) {
    aeroplane()
        .args(run_args())
        .args(extra)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

#[test]
fn a_runs_log_is_the_same_for_any_threads_and_units_and_is_the_librarys() {
    let tmp = tempfile::tempdir().unwrap();
    let games = DEALS * 3;
    for (name, format) in [
        ("g.jsonl.zst", LogFormat::Zstd),
        ("g.jsonl", LogFormat::Plain),
    ] {
        let want = log_games(&spec(), 0..games, format).unwrap();
        for (threads, chunk) in [("1", "1"), ("2", "5"), ("2", "64")] {
            let out = tmp.path().join(format!("{name}-{threads}-{chunk}"));
            run(
                &out,
                &[
                    "--log-games",
                    name,
                    "--threads",
                    threads,
                    "--chunk-size",
                    chunk,
                ],
            );
            let got = std::fs::read(out.join(name)).unwrap();
            assert!(
                got == want,
                "{name}, --threads {threads} --chunk-size {chunk}"
            );
            assert!(!out.join(format!("{name}.partial")).exists());
            assert_eq!(manifest(&out)["log_games"], name);
        }
    }
    // Every logged game checks against the engine.
    let out = tmp.path().join("g.jsonl.zst-2-5");
    aeroplane()
        .args(["replay", "--check", "--log"])
        .arg(out.join("g.jsonl.zst"))
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "{games} games (0..={})",
            games - 1
        )));
}

#[test]
fn without_the_flag_the_outputs_are_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, logged) = (tmp.path().join("plain"), tmp.path().join("logged"));
    run(&plain, &["--per-game"]);
    run(&logged, &["--per-game", "--log-games", "d.jsonl.zst"]);
    let m = manifest(&plain);
    assert!(m.get("log_games").is_none(), "{m}");
    for f in [
        "games.csv",
        "summary.csv",
        "seats.csv",
        "lengths.csv",
        "events.csv",
        "summary.json",
    ] {
        assert_eq!(
            std::fs::read(plain.join(f)).unwrap(),
            std::fs::read(logged.join(f)).unwrap(),
            "{f}"
        );
    }
}

#[test]
fn shards_merge_into_the_whole_runs_log() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    run(&whole, &["--log-games", "g.jsonl.zst", "--chunk-size", "4"]);
    let mut shards = Vec::new();
    for i in 0..3 {
        let d = tmp.path().join(format!("shard-{i}"));
        run(
            &d,
            &[
                "--log-games",
                "g.jsonl.zst",
                "--chunk-size",
                "4",
                "--shard",
                &format!("{i}/3"),
            ],
        );
        // A shard keeps its units for the merge.
        assert!(d.join("g.jsonl.zst.partial").exists());
        assert!(!d.join("g.jsonl.zst").exists());
        shards.push(d);
    }
    let merged = tmp.path().join("merged");
    aeroplane()
        .arg("merge")
        .arg(&merged)
        .args(&shards)
        .assert()
        .success();
    assert!(
        std::fs::read(merged.join("g.jsonl.zst")).unwrap()
            == std::fs::read(whole.join("g.jsonl.zst")).unwrap()
    );
    assert_eq!(manifest(&merged)["log_games"], "g.jsonl.zst");
}

#[test]
fn bad_log_names_and_combinations_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    for (args, says) in [
        (
            &["--log-games", "g.jsonl.zst"][..],
            "--log-games writes the decision log into the output folder: give --out",
        ),
        (
            &["--log-games", "g.txt", "--out"][..],
            "ending in .jsonl.zst",
        ),
        (&["--log-games", "sub/g.jsonl", "--out"][..], "file name"),
        (&["--log-games", ".g.jsonl", "--out"][..], "file name"),
        (&["--log-games", "games.csv.partial.jsonl", "--out"][..], ""),
    ] {
        let mut cmd = aeroplane();
        cmd.args(run_args()).args(args);
        if args.last() == Some(&"--out") {
            cmd.arg(&out);
        }
        if says.is_empty() {
            // An unusual but plain name is fine.
            cmd.assert().success();
            std::fs::remove_dir_all(&out).unwrap();
            continue;
        }
        cmd.assert()
            .failure()
            .code(2)
            .stderr(predicate::str::contains(says));
        assert!(!out.join("run.json").exists(), "{args:?}");
    }
    aeroplane()
        .args(["run", "--bots", "greedy,random", "--sprt", "elo0=0,elo1=50"])
        .args(["--log-games", "g.jsonl", "--out"])
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains("not to --sprt"));
}

#[test]
fn a_full_disk_fails_the_run_and_leaves_no_log_that_looks_whole() {
    let tmp = tempfile::tempdir().unwrap();
    // The steps of an uninterrupted run, to find the log's writes.
    let steps = tmp.path().join("steps");
    let args = ["--log-games", "g.jsonl.zst", "--chunk-size", "2"];
    run(&tmp.path().join("whole"), &args);
    aeroplane()
        .args(run_args())
        .args(args)
        .arg("--out")
        .arg(tmp.path().join("counted"))
        .env("AEROPLANE_TEST_FAULT_LOG", &steps)
        .assert()
        .success();
    let text = std::fs::read_to_string(&steps).unwrap();
    let writes: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with(" write g.jsonl.zst.partial"))
        .collect();
    assert!(writes.len() > 2, "{text}");
    let at = writes[writes.len() / 2].split(' ').next().unwrap();
    let out = tmp.path().join("full");
    aeroplane()
        .args(run_args())
        .args(args)
        .arg("--out")
        .arg(&out)
        .env("AEROPLANE_TEST_FAULT", format!("enospc@{at}"))
        .assert()
        .failure()
        .code(2)
        .stderr(predicate::str::contains("No space left on device"));
    assert_eq!(manifest(&out)["status"], "failed");
    assert!(!out.join("g.jsonl.zst").exists());
    // The room comes back: the run finishes with the log of the uninterrupted run.
    aeroplane()
        .args(["resume", "-q"])
        .arg(&out)
        .assert()
        .success();
    assert!(
        std::fs::read(out.join("g.jsonl.zst")).unwrap()
            == std::fs::read(tmp.path().join("whole/g.jsonl.zst")).unwrap()
    );
}

#[test]
fn force_replaces_an_earlier_runs_log() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("o");
    run(&out, &["--log-games", "old.jsonl"]);
    aeroplane()
        .args(run_args())
        .arg("--out")
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains("old.jsonl"));
    aeroplane()
        .args(run_args())
        .arg("--force")
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert!(!out.join("old.jsonl").exists());
}

#[test]
fn key_positions_are_a_setting_of_the_run_that_resume_merge_and_manifest_keep() {
    let tmp = tempfile::tempdir().unwrap();
    let k4 = ["--log-games", "g.jsonl.zst", "--log-positions", "4"];
    let whole = tmp.path().join("whole");
    run(&whole, &[&k4[..], &["--chunk-size", "4"]].concat());
    let want = log_games_with(
        &spec(),
        0..DEALS * 3,
        LogStyle {
            format: LogFormat::Zstd,
            positions: 4,
        },
    )
    .unwrap();
    let bytes = std::fs::read(whole.join("g.jsonl.zst")).unwrap();
    assert!(bytes == want);
    assert_eq!(manifest(&whole)["log_positions"], 4);
    // The default writes fewer positions: other bytes.
    assert!(log_games(&spec(), 0..DEALS * 3, LogFormat::Zstd).unwrap() != want);
    // Shards merged, and a run from the manifest, write the same log.
    let mut shards = Vec::new();
    for i in 0..2 {
        let d = tmp.path().join(format!("shard-{i}"));
        run(
            &d,
            &[
                &k4[..],
                &["--chunk-size", "4", "--shard", &format!("{i}/2")],
            ]
            .concat(),
        );
        shards.push(d);
    }
    let merged = tmp.path().join("merged");
    aeroplane()
        .arg("merge")
        .arg(&merged)
        .args(&shards)
        .assert()
        .success();
    assert!(std::fs::read(merged.join("g.jsonl.zst")).unwrap() == want);
    assert_eq!(manifest(&merged)["log_positions"], 4);
    let again = tmp.path().join("again");
    aeroplane()
        .args(["run", "-q", "--manifest"])
        .arg(whole.join("run.json"))
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert!(std::fs::read(again.join("g.jsonl.zst")).unwrap() == want);
    // A run stopped after two units and resumed.
    let stopped = tmp.path().join("stopped");
    aeroplane()
        .args(run_args())
        .args(k4)
        .args(["--chunk-size", "4", "--threads", "1", "--out"])
        .arg(&stopped)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "2")
        .assert()
        .code(130);
    assert!(stopped.join("g.jsonl.zst.partial").exists());
    aeroplane()
        .args(["resume", "-q"])
        .arg(&stopped)
        .assert()
        .success();
    assert!(std::fs::read(stopped.join("g.jsonl.zst")).unwrap() == want);
    // K is at least 1, and needs a log.
    for (args, says) in [
        (&["--log-games", "g.jsonl", "--log-positions", "0"][..], "0"),
        (&["--log-positions", "3"][..], "--log-games"),
    ] {
        aeroplane()
            .args(run_args())
            .args(args)
            .arg("--out")
            .arg(tmp.path().join("bad"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
}

#[test]
fn a_wrong_key_position_in_a_compressed_log_is_named_by_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = log_games_with(
        &spec(),
        0..6,
        LogStyle {
            format: LogFormat::Plain,
            positions: 1,
        },
    )
    .unwrap();
    let text = String::from_utf8(plain).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    // Game 4's third decision: its position's turn count one more.
    let d = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("[4,"))
        .nth(2)
        .unwrap()
        .0;
    let end = lines[d].len() - 2;
    let at = lines[d][..end].rfind(' ').unwrap() + 1;
    let turns: u32 = lines[d][at..end].parse().unwrap();
    lines[d] = format!("{}{}\"]", &lines[d][..at], turns + 1);
    // Compressed as a log is: the header, then a frame per game.
    let mut zst = Vec::new();
    let mut frame = String::new();
    for (i, line) in lines.iter().enumerate() {
        frame += line;
        frame.push('\n');
        if i == 0 || line.starts_with('{') {
            zst.extend(zstd::bulk::compress(frame.as_bytes(), 1).unwrap());
            frame.clear();
        }
    }
    let path = tmp.path().join("bad.jsonl.zst");
    std::fs::write(&path, zst).unwrap();
    for game in ["4", "5"] {
        let cmd = aeroplane()
            .args(["replay", "--log"])
            .arg(&path)
            .args(["--game", game])
            .assert();
        if game == "5" {
            // The other games replay (found by skipping frames).
            cmd.success();
            continue;
        }
        cmd.code(2)
            .stderr(predicate::str::contains(format!(
                "line {}: game 4, decision 3: the log's position",
                d + 1
            )))
            .stderr(predicate::str::contains("is not the engine's"));
    }
}

#[test]
fn a_version_1_log_replays_and_checks() {
    let v1 = "tests/fixtures/decision_log_v1.jsonl.zst";
    aeroplane()
        .args(["replay", "--log", v1, "--check"])
        .assert()
        .success()
        .stdout(predicate::str::contains("4 games (0..=3)"));
    // Game 3 as the seeded run plays it (the fixture's run: seed 4, classic, rotated).
    let logged = aeroplane()
        .args(["replay", "--log", v1, "--game", "3", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let seeded = aeroplane()
        .args([
            "replay",
            "--rules",
            "classic",
            "--bots",
            "greedy,expectimax:depth=1",
            "--seed",
            "4",
            "--game",
            "1",
            "--json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let logged: serde_json::Value = serde_json::from_slice(&logged).unwrap();
    let seeded: serde_json::Value = serde_json::from_slice(&seeded).unwrap();
    assert_eq!(logged["log"], seeded["log"]);
}

#[test]
fn the_sampling_script_replays_logged_games_as_the_seeded_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    run(&out, &["--log-games", "g.jsonl.zst"]);
    let bin = assert_cmd::cargo::cargo_bin!("aeroplane");
    let got = std::process::Command::new("python3")
        .arg("scripts/replay_log_sample.py")
        .arg(bin)
        .arg(&out)
        .arg("5")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&got.stdout);
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    assert!(
        stdout.contains("5 games") && stdout.contains("every position equals the seeded game's"),
        "{stdout}"
    );
    // A log that is not the run's: the replay differs and the script fails.
    let other = RunSpec { seed: 7, ..spec() };
    std::fs::write(
        out.join("g.jsonl.zst"),
        log_games(&other, 0..DEALS * 3, LogFormat::Zstd).unwrap(),
    )
    .unwrap();
    let got = std::process::Command::new("python3")
        .arg("scripts/replay_log_sample.py")
        .arg(bin)
        .arg(&out)
        .arg("5")
        .output()
        .unwrap();
    assert!(!got.status.success());
}

/// A header of a version this build does not read names the version as written (`-1`, not
/// `?`), and a header without one says so.
#[test]
fn a_log_of_an_unknown_version_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    aeroplane()
        .args([
            "run",
            "--rules",
            "classic",
            "--bots",
            "greedy,random",
            "--games",
            "2",
            "-q",
        ])
        .args(["--log-games", "d.jsonl", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let text = std::fs::read_to_string(dir.join("d.jsonl")).unwrap();
    let (header, rest) = text.split_once('\n').unwrap();
    let mut h: serde_json::Value = serde_json::from_str(header).unwrap();
    for (version, says) in [
        (
            Some(serde_json::json!(-1)),
            "a decision log of version -1: this build reads versions",
        ),
        (Some(serde_json::json!(7)), "a decision log of version 7:"),
        (
            Some(serde_json::json!("two")),
            "a decision log of version \"two\":",
        ),
        (
            None,
            "a decision log header without a `version`: this build reads versions",
        ),
    ] {
        match version {
            Some(v) => h["version"] = v,
            None => {
                h.as_object_mut().unwrap().remove("version");
            }
        }
        let file = tmp.path().join("edited.jsonl");
        std::fs::write(&file, format!("{h}\n{rest}")).unwrap();
        aeroplane()
            .args(["replay", "--check", "--log"])
            .arg(&file)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says))
            .stderr(predicate::str::contains("version ?").not());
    }
}
