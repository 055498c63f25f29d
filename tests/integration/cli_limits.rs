//! Bounds on what a command line can ask for: no panic, no hang, a clear error.

use crate::common::aeroplane;
use predicates::prelude::*;

#[test]
fn thread_counts_are_capped_with_a_clear_message() {
    for args in [
        vec!["run", "--games", "10", "-q", "--threads", "5000"],
        vec![
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--games",
            "5",
            "-q",
            "--threads",
            "100000",
        ],
        vec!["bench", "--games", "10", "--runs", "1", "--threads", "2000"],
    ] {
        aeroplane()
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("give at most 1024"));
    }
}

#[test]
fn a_bot_name_past_the_format_width_limit_neither_panics_nor_pads_every_line() {
    // 72,031 characters (a number written with 72,000 zeros): beyond what a format width can
    // take.
    let long = format!("expectimax:depth=1:progress=1.{}", "0".repeat(72_000));
    let out = aeroplane()
        .args(["run", "--games", "2", "-q", "--bots"])
        .arg(format!("{long},random"))
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.lines().all(|l| l.len() < 200 || l.contains(&long)),
        "short lines stay short"
    );
    aeroplane()
        .args([
            "league",
            "--games",
            "2",
            "--players",
            "2",
            "--bootstrap",
            "100",
            "-q",
            "--bots",
        ])
        .arg(format!("{long},random"))
        .assert()
        .success();
}

#[test]
fn sprt_hypotheses_beyond_what_the_test_can_compute_are_refused() {
    aeroplane()
        .args([
            "run",
            "--bots",
            "greedy,random",
            "--games",
            "100",
            "-q",
            "--sprt",
            "elo0=0,elo1=1e308",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("elo1").and(predicate::str::contains("-1000 to 1000")));
}
