//! The crash-point harness: every job kind (a tune, a solve, a grade and a training too) is stopped at file-system steps of its life (by the
//! test hook `AEROPLANE_TEST_FAULT`: `kill@N` is a `kill -9` just before step N, `enospc@N` a
//! disk that is full from step N on), then recovered the way a user would (`aeroplane resume
//! DIR`, or the command again where no run.json was written), and its folder and stdout must
//! be byte for byte those of an uninterrupted run, with nothing left behind.
//!
//! `cargo test` runs a fixed subset: every step of the start and of the finish, and three
//! steps of the units between. `AEROPLANE_CRASH_POINTS=all cargo test --test integration
//! crash_points` runs every step (see docs/guide/development.md).

use crate::common::{aeroplane, files};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

/// The job's status as its record says it (`run.json`, or `solve.json`, `grade.json`).
fn status(dir: &Path, file: &str) -> Option<String> {
    let text = fs::read_to_string(dir.join(file)).ok()?;
    let m: serde_json::Value = serde_json::from_str(&text).ok()?;
    // A complete grade.json is the grade's report, without a status.
    Some(m["status"].as_str().unwrap_or("complete").to_string())
}

/// A job kind: its command (without `--out DIR`), and for a merge the shards' command.
struct Kind {
    args: Vec<&'static str>,
    /// A merge of this job's three shards.
    merge: bool,
    /// Its status record.
    status: &'static str,
    /// Its checkpoint.
    checkpoint: &'static str,
    /// It grades against a table solved first (`--table DIR` added).
    table: bool,
}

fn kind(name: &str) -> Kind {
    let run = vec![
        "run",
        "--games",
        "60",
        "--bots",
        "greedy,random,random",
        "--rotate-seats",
        "--chunk-size",
        "20",
        "--seed",
        "4",
        "-q",
    ];
    let (args, merge) = match name {
        "run" => (run, false),
        "run --per-game" => ([&run[..], &["--per-game"]].concat(), false),
        "sprt" => (
            vec![
                "run",
                "--bots",
                "greedy,random",
                "--sprt",
                "elo0=0,elo1=60",
                "--games",
                "200",
                "--chunk-size",
                "8",
                "-q",
            ],
            false,
        ),
        "sweep" => (
            vec![
                "sweep",
                "--vary",
                "overshoot=illegal,bounce",
                "--games",
                "30",
                "--compare",
                "1,2",
                "--rotate-seats",
                "--chunk-size",
                "15",
                "--bots",
                "greedy,random",
                "-q",
            ],
            false,
        ),
        "league" => (
            vec![
                "league",
                "--bots",
                "random,greedy,expectimax:depth=1",
                "--players",
                "3",
                "--games",
                "10",
                "--bootstrap",
                "100",
                "--chunk-size",
                "5",
                "-q",
            ],
            false,
        ),
        "merge" => ([&run[..], &["--per-game"]].concat(), true),
        "run --log-games" => (
            [&run[..], &["--per-game", "--log-games", "games.jsonl.zst"]].concat(),
            false,
        ),
        "merge --log-games" => ([&run[..], &["--log-games", "games.jsonl"]].concat(), true),
        "solve" => {
            return Kind {
                args: vec!["solve", "--rules", "classic", "--planes", "1", "-q"],
                merge: false,
                status: "solve.json",
                checkpoint: "solve.checkpoint",
                table: false,
            };
        }
        "train" => {
            return Kind {
                args: vec![
                    "train",
                    "--rules",
                    "classic",
                    "--planes",
                    "1",
                    "--games",
                    "32",
                    "--batch",
                    "8",
                    "--hidden",
                    "8",
                    "--eval-every",
                    "16",
                    "--eval-deals",
                    "2",
                    "-q",
                ],
                merge: false,
                status: "train.json",
                checkpoint: "train.checkpoint",
                table: false,
            };
        }
        "grade" => {
            return Kind {
                args: vec![
                    "grade",
                    "--bots",
                    "random,greedy",
                    "--games",
                    "24",
                    "--chunk-size",
                    "4",
                    "--report",
                    "-q",
                ],
                merge: false,
                status: "grade.json",
                checkpoint: "grade.checkpoint",
                table: true,
            };
        }
        "tune" => (
            vec![
                "tune",
                "--bot",
                "expectimax:depth=1",
                "--param",
                "hangar=0..60",
                "--param",
                "depth=1..2",
                "--iterations",
                "4",
                "--pairs-per-iteration",
                "4",
                "--confirm-pairs",
                "12",
                "--chunk-size",
                "4",
                "-q",
            ],
            false,
        ),
        other => panic!("no job kind {other}"),
    };
    Kind {
        args,
        merge,
        status: "run.json",
        checkpoint: "checkpoint",
        table: false,
    }
}

/// The command of `k` into `out` (for a merge: the merge of `shards` into `out`; for a grade,
/// against the table in `shards[0]`).
fn command(k: &Kind, out: &Path, shards: &[PathBuf]) -> assert_cmd::Command {
    let mut cmd = aeroplane();
    if k.merge {
        cmd.arg("merge").arg(out).args(shards);
    } else {
        cmd.args(&k.args).arg("--out").arg(out);
    }
    if k.table {
        cmd.arg("--table").arg(&shards[0]);
    }
    cmd
}

/// What a run prints, without its folder's name and the times a solve measures.
fn neutral(stdout: &[u8], dir: &Path) -> String {
    String::from_utf8_lossy(stdout)
        .replace(&dir.display().to_string(), "DIR")
        .lines()
        .filter(|l| !l.starts_with("time "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A folder's files, with what a solve measures of itself (times, memory, where a resume
/// began) taken out of `solve.json`: every other byte must match.
fn neutral_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = files(dir);
    for (name, bytes) in &mut v {
        if name == "solve.json" {
            let mut j: serde_json::Value = serde_json::from_slice(bytes).unwrap();
            if let Some(r) = j.get_mut("results").and_then(|r| r.as_object_mut()) {
                for measured in ["seconds", "peak_memory_bytes", "resumed_from_sweep"] {
                    r.remove(measured);
                }
            }
            *bytes = serde_json::to_vec_pretty(&j).unwrap();
        }
        if name == "report.html" {
            // The page names its folder.
            let text = String::from_utf8_lossy(bytes).replace(&dir.display().to_string(), "DIR");
            *bytes = text.into_bytes();
        }
    }
    v
}

/// The steps at which to stop by `fault`: every one with `AEROPLANE_CRASH_POINTS=all`; else
/// the steps before the first unit is written and after the last, and three of those between,
/// leaving out for a kill the syncs (a kill just before a sync is a kill just after it: the
/// system keeps what was written) and for a full disk the steps that take no space (the disk
/// fills at the next one that does).
fn points(steps: &[String], fault: &str, checkpoint: &str) -> Vec<usize> {
    let n = steps.len();
    if std::env::var("AEROPLANE_CRASH_POINTS").as_deref() == Ok("all") {
        return (1..=n).collect();
    }
    // A solve's checkpoint is written whole under a temporary name after each sweep.
    let tmp = format!(".{checkpoint}.tmp");
    let unit_step = |s: &String| {
        [checkpoint, "games.csv.partial", tmp.as_str()]
            .iter()
            .any(|f| s.ends_with(&format!(" write {f}")) || s.ends_with(&format!(" sync {f}")))
            || s.ends_with(".jsonl.zst.partial")
            || s.ends_with(".jsonl.partial")
    };
    let kind = |i: usize| steps[i - 1].split(' ').nth(1).unwrap_or("");
    let first = steps.iter().position(unit_step).unwrap_or(n);
    let last = steps.iter().rposition(unit_step).unwrap_or(n);
    let mut p: Vec<usize> = (1..=first + 1).collect();
    if last > first {
        let span = last - first;
        p.extend([first + span / 4, first + span / 2, first + 3 * span / 4].map(|i| i + 1));
    }
    p.extend(last + 1..=n);
    p.sort_unstable();
    p.dedup();
    p.retain(|&i| match fault {
        "kill" => !matches!(kind(i), "sync" | "sync-dir"),
        _ => matches!(kind(i), "create" | "write" | "mkdir"),
    });
    p
}

/// Runs kind `name` stopped at every chosen step, by a kill and by a full disk, and checks
/// each recovers to the uninterrupted run's files and stdout. Returns (steps, points tested).
fn check_kind(name: &str) -> (usize, usize) {
    let k = kind(name);
    let tmp = TempDir::new().unwrap();
    let root = tmp.path();
    let shards: Vec<PathBuf> = if k.merge {
        (0..3)
            .map(|i| {
                let d = root.join(format!("shard-{i}"));
                aeroplane()
                    .args(&k.args)
                    .args(["--shard", &format!("{i}/3"), "--out"])
                    .arg(&d)
                    .assert()
                    .success();
                d
            })
            .collect()
    } else if k.table {
        let table = root.join("table");
        aeroplane()
            .args([
                "solve", "--rules", "classic", "--planes", "1", "-q", "--out",
            ])
            .arg(&table)
            .assert()
            .success();
        vec![table]
    } else {
        Vec::new()
    };
    // The uninterrupted run, listing its steps.
    let whole = root.join("whole");
    let log = root.join("steps.log");
    let out = command(&k, &whole, &shards)
        .env("AEROPLANE_TEST_FAULT_LOG", &log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want_out = neutral(&out.stdout, &whole);
    let want = neutral_files(&whole);
    assert!(
        !want
            .iter()
            .any(|(f, _)| f.starts_with('.') || f == k.checkpoint),
        "{name}: an uninterrupted run leaves only its files: {:?}",
        want.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    let steps: Vec<String> = fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut tested = 0;
    for fault in ["kill", "enospc"] {
        let chosen = points(&steps, fault, k.checkpoint);
        tested += chosen.len();
        for &at in &chosen {
            let what = format!(
                "{name}, {fault} at step {} of {}",
                steps[at - 1],
                steps.len()
            );
            let dir = root.join(format!("{fault}-{at}"));
            let first: Output = command(&k, &dir, &shards)
                .env("AEROPLANE_TEST_FAULT", format!("{fault}@{at}"))
                .output()
                .unwrap();
            let stopped = status(&dir, k.status);
            if fault == "enospc" {
                // A full disk is an error that says so, and never leaves `running` behind.
                if !first.status.success() {
                    let err = String::from_utf8_lossy(&first.stderr);
                    assert!(err.contains("No space left on device"), "{what}: {err}");
                    assert_eq!(first.status.code(), Some(2), "{what}");
                }
                assert_ne!(stopped.as_deref(), Some("running"), "{what}");
            }
            let has_checkpoint = dir.join(k.checkpoint).exists();
            let again = match stopped.as_deref() {
                // Nothing was started: the command again.
                None => command(&k, &dir, &shards).output().unwrap(),
                // Complete: nothing to resume; a resume tidies what the stop left.
                Some("complete") if !has_checkpoint => {
                    let o = aeroplane().arg("resume").arg(&dir).output().unwrap();
                    assert_eq!(o.status.code(), Some(2), "{what}");
                    assert!(
                        String::from_utf8_lossy(&o.stderr).contains("nothing to resume"),
                        "{what}"
                    );
                    assert_eq!(neutral_files(&dir), want, "{what}: files");
                    continue;
                }
                Some(_) => aeroplane()
                    .args(["resume", "-q"])
                    .arg(&dir)
                    .output()
                    .unwrap(),
            };
            assert!(
                again.status.success(),
                "{what} (status {stopped:?}): the recovery failed: {}",
                String::from_utf8_lossy(&again.stderr)
            );
            assert_eq!(neutral(&again.stdout, &dir), want_out, "{what}: stdout");
            assert_eq!(neutral_files(&dir), want, "{what}: files");
        }
    }
    (steps.len(), tested)
}

macro_rules! kinds {
    ($($test:ident: $name:literal,)*) => {$(
        #[test]
        fn $test() {
            let (steps, tested) = check_kind($name);
            eprintln!("crash points: {}: {steps} file-system steps, {tested} stops tested (kills and full disks)", $name);
        }
    )*};
}

kinds! {
    a_run_resumes_identically_from_a_stop_at_any_step: "run",
    a_run_with_games_csv_resumes_identically_from_a_stop_at_any_step: "run --per-game",
    an_sprt_resumes_identically_from_a_stop_at_any_step: "sprt",
    a_sweep_resumes_identically_from_a_stop_at_any_step: "sweep",
    a_league_resumes_identically_from_a_stop_at_any_step: "league",
    a_merge_resumes_identically_from_a_stop_at_any_step: "merge",
    a_run_with_a_decision_log_resumes_identically_from_a_stop_at_any_step: "run --log-games",
    a_merge_of_decision_logs_resumes_identically_from_a_stop_at_any_step: "merge --log-games",
    a_solve_resumes_identically_from_a_stop_at_any_step: "solve",
    a_grade_resumes_identically_from_a_stop_at_any_step: "grade",
    a_tune_resumes_identically_from_a_stop_at_any_step: "tune",
    a_training_resumes_identically_from_a_stop_at_any_step: "train",
}
