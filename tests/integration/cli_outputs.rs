//! Outputs that never disagree with their run: an output folder holds one run's files, each
//! complete; run.json records the job's status and the games played; files never depend on
//! stdout; manifests are checked; options layer command line > config > manifest > defaults.

use crate::common::aeroplane;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use predicates::prelude::*;
use tempfile::TempDir;

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn stdout_of(out: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn a_folder_with_results_is_refused_unless_forced_and_force_leaves_no_stale_file() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("out");
    let ds = d.to_str().unwrap();
    aeroplane()
        .args(["run", "--games", "100", "-q", "--per-game", "--out", ds])
        .assert()
        .success();
    fs::write(d.join("notes.txt"), "mine").unwrap();
    aeroplane()
        .args(["run", "--games", "50", "-q", "--out", ds])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("already holds results")
                .and(predicate::str::contains("--force")),
        );
    // The refused run changed nothing.
    assert_eq!(
        fs::read_to_string(d.join("games.csv"))
            .unwrap()
            .lines()
            .count(),
        101
    );
    aeroplane()
        .args(["run", "--games", "50", "-q", "--out", ds, "--force"])
        .assert()
        .success();
    assert!(!d.join("games.csv").exists(), "the old games.csv is gone");
    assert_eq!(fs::read_to_string(d.join("notes.txt")).unwrap(), "mine");
    let m = json(&d.join("run.json"));
    assert_eq!(m["games"], 50);
    assert_eq!(m["status"], "complete");
}

#[test]
fn a_second_writer_is_refused_while_the_lock_is_held() {
    use std::os::fd::AsRawFd;
    let tmp = TempDir::new().unwrap();
    // This test process holds the folder's lock, as a running job would.
    let lock = fs::File::create(tmp.path().join(".aeroplane.lock")).unwrap();
    fs::write(
        tmp.path().join(".aeroplane.lock"),
        "pid 12345 on host elsewhere\n",
    )
    .unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    aeroplane()
        .args(["run", "--games", "10", "-q", "--out"])
        .arg(tmp.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "in use by another aeroplane process (pid 12345 on host elsewhere",
        ));
    assert!(!tmp.path().join("run.json").exists());
    // A lock file nobody holds (its process ended, however) is taken.
    drop(lock);
    aeroplane()
        .args(["run", "--games", "10", "-q", "--out"])
        .arg(tmp.path())
        .assert()
        .success();
    assert!(!tmp.path().join(".aeroplane.lock").exists());
}

#[test]
fn run_json_records_status_and_games_and_summary_json_matches_the_csv() {
    let tmp = TempDir::new().unwrap();
    let out = aeroplane()
        .args([
            "run",
            "--games",
            "300",
            "--rotate-seats",
            "-q",
            "--bots",
            "greedy,random",
            "--out",
        ])
        .arg(tmp.path())
        .assert()
        .success();
    let text = stdout_of(&out);
    assert!(
        text.contains(&format!("wrote {}: run.json", tmp.path().display()))
            && text.contains("summary.json"),
        "{text}"
    );
    let m = json(&tmp.path().join("run.json"));
    assert_eq!(m["format"], 1);
    assert_eq!(m["command"], "run");
    assert_eq!(m["status"], "complete");
    assert_eq!(
        (m["games_planned"].as_u64(), m["games_played"].as_u64()),
        (Some(600), Some(600))
    );
    let s = json(&tmp.path().join("summary.json"));
    assert_eq!(s["command"], "run");
    let bots = s["report"]["summary"]["bots"].as_array().unwrap();
    let csv = fs::read_to_string(tmp.path().join("summary.csv")).unwrap();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(bots[0]["name"], row[1]);
    assert_eq!(
        bots[0]["counts"]["wins"].as_u64().unwrap().to_string(),
        row[3]
    );
    let rate = bots[0]["win_rate"].as_f64().unwrap();
    assert_eq!(format!("{rate:.6}"), row[4]);
}

#[test]
fn a_failed_job_says_so_in_run_json_and_leaves_no_table_that_looks_finished() {
    let tmp = TempDir::new().unwrap();
    // A directory where the summary's temporary file goes makes writing it fail.
    fs::create_dir(tmp.path().join(".summary.csv.tmp")).unwrap();
    aeroplane()
        .args(["run", "--games", "20", "-q", "--out"])
        .arg(tmp.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("summary.csv"));
    let m = json(&tmp.path().join("run.json"));
    assert_eq!(m["status"], "failed");
    assert!(m["error"].as_str().unwrap().contains("summary.csv"), "{m}");
    assert!(!tmp.path().join("summary.csv").exists());
    assert!(!tmp.path().join("summary.json").exists());
}

/// Runs the binary with its stdout closed before it writes: a pager quit at once.
fn with_closed_stdout(args: &[&str]) -> std::process::ExitStatus {
    let mut child = Command::new(env!("CARGO_BIN_EXE_aeroplane"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    status
}

#[test]
fn a_closed_stdout_neither_panics_nor_loses_files() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("run");
    let status = with_closed_stdout(&["run", "--games", "50", "-q", "--out", d.to_str().unwrap()]);
    assert!(status.success(), "{status}");
    for f in [
        "run.json",
        "summary.csv",
        "seats.csv",
        "lengths.csv",
        "length_stats.csv",
        "events.csv",
        "summary.json",
    ] {
        assert!(d.join(f).exists(), "{f}");
    }
    assert_eq!(json(&d.join("run.json"))["status"], "complete");
    for args in [
        vec![
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--games",
            "20",
            "-q",
        ],
        vec![
            "league",
            "--bots",
            "random,greedy",
            "--games",
            "10",
            "--bootstrap",
            "100",
            "-q",
        ],
        vec!["bench", "--games", "10", "--runs", "1"],
        vec!["bots"],
        vec!["rules", "classic"],
    ] {
        let status = with_closed_stdout(&args);
        assert_eq!(status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn an_sprt_manifest_reproduces_the_stopped_run() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("sprt");
    let first = aeroplane()
        .args([
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=100",
            "--games",
            "40000",
            "-q",
            "--out",
        ])
        .arg(&d)
        .assert()
        .success();
    let m = json(&d.join("run.json"));
    assert_eq!(m["status"], "complete");
    assert_eq!(m["sprt"]["result"], "h1");
    assert_eq!(m["sprt"]["chunk_deals"], 16);
    let played = m["games_played"].as_u64().unwrap();
    assert!(
        played < 80_000 && played.is_multiple_of(32),
        "stopped early at a unit: {played}"
    );
    let again = aeroplane()
        .args(["run", "-q", "--manifest"])
        .arg(d.join("run.json"))
        .assert()
        .success();
    let (a, b) = (stdout_of(&first), stdout_of(&again));
    let report = |s: &str| {
        s[..s.find("\n\nwrote ").unwrap_or(s.len())]
            .trim_end()
            .to_string()
    };
    assert_eq!(report(&a), report(&b));
    assert!(b.contains(&format!("after {played} games")), "{b}");
}

#[test]
fn manifests_are_checked() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("m");
    aeroplane()
        .args(["run", "--games", "10", "-q", "--rules", "classic", "--out"])
        .arg(&d)
        .assert()
        .success();
    let good = json(&d.join("run.json"));
    type Edit = Box<dyn Fn(&mut serde_json::Value)>;
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|m| m["format"] = 99.into()),
            "newer than this build reads",
        ),
        (Box::new(|m| m["tool"] = "other".into()), "not by aeroplane"),
        (
            Box::new(|m| {
                m["rules"].as_object_mut().unwrap().remove("overshoot");
            }),
            "lacks overshoot",
        ),
        (
            Box::new(|m| m["rules_name"] = "chinese".into()),
            "differ from it",
        ),
        (Box::new(|m| m["command"] = "league".into()), "not a run"),
        (
            Box::new(|m| {
                m["luck"] = "bots/nets/td-classic-4p.safetensors".into();
                m["luck_ply"] = 4.into();
            }),
            "`luck_ply` is 4: the luck is measured at ply 0 to 3",
        ),
        (
            Box::new(|m| m["luck_ply"] = 1.into()),
            "`luck_ply` is 1 but `luck` names no net to measure with",
        ),
    ];
    for (edit, message) in cases {
        let mut m = good.clone();
        edit(&mut m);
        let path = tmp.path().join("edited.json");
        fs::write(&path, m.to_string()).unwrap();
        aeroplane()
            .args(["run", "-q", "--manifest"])
            .arg(&path)
            .assert()
            .failure()
            .stderr(predicate::str::contains(message));
    }
    // A manifest of the format before statuses (no format, status or games_planned) is read.
    let mut old = good.clone();
    for k in ["format", "status", "games_planned", "command"] {
        old.as_object_mut().unwrap().remove(k);
    }
    let path = tmp.path().join("old.json");
    fs::write(&path, old.to_string()).unwrap();
    aeroplane()
        .args(["run", "-q", "--manifest"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "rules classic, 4 players, seed 1, deals 0..10",
        ));
}

#[test]
fn options_layer_command_line_over_config_over_manifest() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("m");
    aeroplane()
        .args([
            "run",
            "--games",
            "30",
            "--seed",
            "7",
            "--bots",
            "greedy,random",
            "--rotate-seats",
            "-q",
            "--out",
        ])
        .arg(&d)
        .assert()
        .success();
    let cfg = tmp.path().join("c.toml");
    fs::write(&cfg, "games = 12\nrotate_seats = true\n").unwrap();
    // The manifest gives bots and seed, the config games and rotation; the command line
    // switches rotation off.
    aeroplane()
        .args(["run", "-q", "--no-rotate-seats", "--manifest"])
        .arg(d.join("run.json"))
        .arg("--config")
        .arg(&cfg)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "rules appfreegame, 2 players, seed 7, deals 0..12\n12 games",
        ));
    aeroplane()
        .args(["run", "-q", "--manifest"])
        .arg(d.join("run.json"))
        .arg("--config")
        .arg(&cfg)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "seed 7, deals 0..12, seats rotated",
        ));
}
