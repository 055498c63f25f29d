//! `aeroplane train`'s guard (issue 46, item 1): a training whose learning goes wrong says so
//! in its output, `history.csv`, `train.json` and the report, and, where the cure is known,
//! applies it, with the same bytes after a stop and resume and for any thread count.
//!
//! The broken training: appfreegame at two players with a learning rate of 0.02 (the old
//! default), seed 2. Without the guard it never beats greedy (20% to 38% over 6,000 games);
//! with it, the training starts again at game 1,504 at a quarter of the rate and ends above
//! greedy.

use crate::common::{aeroplane, files};
use std::fs;
use std::path::Path;

use serde_json::Value;

/// The broken training, with `extra` arguments, into `out`.
fn broken(out: &Path, extra: &[&str]) -> assert_cmd::Command {
    let mut c = aeroplane();
    c.args(["train", "--rules", "appfreegame", "--players", "2"])
        .args([
            "--games",
            "6000",
            "--seed",
            "2",
            "--alpha",
            "0.02",
            "--alpha-end",
            "0.02",
        ])
        .args(["--eval-every", "500", "--eval-deals", "100"])
        .args(["--checkpoint-every", "0", "-q", "--out"])
        .arg(out)
        .args(extra);
    c
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The last evaluation's score in `history.csv`.
fn last_score(dir: &Path) -> f64 {
    let text = fs::read_to_string(dir.join("history.csv")).unwrap();
    let last = text.lines().last().unwrap();
    last.split(',').nth(4).unwrap().parse().unwrap()
}

#[test]
fn the_guard_restarts_a_training_that_never_beats_its_baseline_and_says_so_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let on = dir.path().join("on");
    let o = broken(&on, &["--threads", "2"]).output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    );
    assert!(o.status.success(), "{stderr}");
    // Shown even with -q, on stderr as it happens and in the summary.
    for text in [&stdout, &stderr] {
        assert!(
            text.contains("warning: learning went wrong: after 1504 of 6000 games")
                && text.contains("starts again from its initial weights")
                && text.contains("a quarter of the learning rate"),
            "{text}"
        );
    }
    let history = fs::read_to_string(on.join("history.csv")).unwrap();
    assert!(
        history.starts_with(
            "games,td_error,samples,eval_deals,eval_score,eval_low,eval_high,alpha,guard\n"
        ),
        "{history}"
    );
    assert!(
        history
            .lines()
            .any(|l| l.starts_with("1504,") && l.ends_with(",0.02,below_opponent restarted")),
        "{history}"
    );
    assert!(
        history.lines().last().unwrap().contains(",0.005,"),
        "{history}"
    );
    let record = json(&on.join("train.json"));
    let events = record["guard"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{record}");
    assert_eq!(events[0]["games"], 1504);
    assert_eq!(events[0]["alarm"], "below_opponent");
    assert_eq!(events[0]["action"]["kind"], "restart");
    assert_eq!(events[0]["alpha_scale"], 0.25);
    let report = fs::read_to_string(on.join("report.html")).unwrap();
    assert!(
        report.contains("id=\"guard\""),
        "the report's guard section"
    );
    assert!(report.contains("starts again from its initial weights"));
    // The cure works: the net ends above greedy; nothing of the guard's is left behind.
    assert!(last_score(&on) > 0.55, "{history}");
    assert!(!on.join("train.best").exists());

    // Without the guard the same training stays below greedy; the alarm is reported once.
    let off = dir.path().join("off");
    let o = broken(&off, &["--no-guard"]).output().unwrap();
    assert!(o.status.success());
    let record = json(&off.join("train.json"));
    assert!(
        record["reproduce"]
            .as_str()
            .unwrap()
            .ends_with(" --no-guard")
    );
    let events = record["guard"].as_array().unwrap();
    assert!(
        events.iter().all(|e| e["action"]["kind"] == "report"),
        "{record}"
    );
    assert_eq!(
        events
            .iter()
            .filter(|e| e["alarm"] == "below_opponent")
            .count(),
        1,
        "{record}"
    );
    assert!(last_score(&off) < 0.5);
    let history = fs::read_to_string(off.join("history.csv")).unwrap();
    assert!(history.lines().all(|l| !l.contains(",0.005,")), "{history}");
}

#[test]
fn a_guarded_training_stopped_anywhere_resumes_to_the_same_files_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    broken(&whole, &["--threads", "1"]).assert().success();
    // Before the restart (game 1008), at it (1504: the batch of the restart's evaluation) and
    // after it, with the best net kept beside the checkpoint (2512, 4000).
    for after in ["1008", "1504", "2512", "4000"] {
        let cut = dir.path().join(format!("cut-{after}"));
        let o = broken(&cut, &["--threads", "2"])
            .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", after)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(130), "{after}");
        assert_eq!(json(&cut.join("train.json"))["status"], "interrupted");
        if after == "2512" || after == "4000" {
            assert!(cut.join("train.best").exists(), "{after}");
        }
        aeroplane()
            .args(["resume", "-q", "--threads", "1"])
            .arg(&cut)
            .assert()
            .success();
        assert_eq!(files(&cut), files(&whole), "stopped after game {after}");
    }
}

#[test]
fn a_damaged_best_net_is_named_and_the_resume_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut");
    broken(&cut, &[])
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "2512")
        .assert()
        .code(130);
    let best = cut.join("train.best");
    let mut bytes = fs::read(&best).unwrap();
    let n = bytes.len();
    bytes[n - 3] ^= 0x55;
    fs::write(&best, bytes).unwrap();
    let o = aeroplane()
        .args(["resume", "-q"])
        .arg(&cut)
        .output()
        .unwrap();
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("train.best") && err.contains("checksum"),
        "{err}"
    );
    // As for a damaged checkpoint: the training is marked failed, and the best net is not
    // replaced by anything else.
    assert_eq!(json(&cut.join("train.json"))["status"], "failed");
}
