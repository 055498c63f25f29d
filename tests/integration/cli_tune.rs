//! `aeroplane tune`: byte-identical results for any thread count and after an interrupt and a
//! resume (in the iterations and in the confirmation), the files and the report, the
//! confirmation against `run --sprt`, more players and an opponent, and bad input.

use crate::common::aeroplane;
use std::fs;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::without_written_line;

/// A small tune: 12 iterations of 8 deals, then a confirmation of at most 64 deals checked
/// every 4.
const SMALL: &[&str] = &[
    "tune",
    "--bot",
    "expectimax:depth=1",
    "--param",
    "progress=0.5..3",
    "--param",
    "exposure=0..3",
    "--param",
    "depth=1..2",
    "--rules",
    "classic",
    "--iterations",
    "12",
    "--pairs-per-iteration",
    "8",
    "--sprt",
    "elo0=0,elo1=40",
    "--confirm-pairs",
    "64",
    "--chunk-size",
    "4",
    "--seed",
    "3",
    "-q",
];

const FILES: [&str; 5] = [
    "run.json",
    "history.csv",
    "tuned.toml",
    "sprt.json",
    "summary.json",
];

fn tune_into(dir: &Path, extra: &[&str]) -> String {
    let out = aeroplane()
        .args(SMALL)
        .args(extra)
        .arg("--out")
        .arg(dir)
        .assert()
        .success();
    without_written_line(String::from_utf8(out.get_output().stdout.clone()).unwrap())
}

fn same_files(a: &Path, b: &Path) {
    for f in FILES {
        let (x, y) = (fs::read(a.join(f)), fs::read(b.join(f)));
        assert!(x.is_ok(), "{f} missing in {}", a.display());
        assert_eq!(x.unwrap(), y.unwrap(), "{f} differs");
    }
    assert!(!b.join("checkpoint").exists());
}

#[test]
fn threads_and_interruptions_do_not_change_a_tune() {
    let tmp = TempDir::new().unwrap();
    let base = tmp.path().join("one");
    let stdout = tune_into(&base, &["--threads", "1"]);
    assert!(
        stdout.contains("confirmation: SPRT tuned vs expectimax:depth=1"),
        "{stdout}"
    );
    let two = tmp.path().join("two");
    assert_eq!(tune_into(&two, &["--threads", "2"]), stdout);
    same_files(&base, &two);
    // Stopped after unit 5 (an iteration) and after unit 14 (the confirmation's third check),
    // by a real signal: exit 130, status interrupted, then resumed to the same files.
    for (after, sig) in [("5", "INT"), ("14", "TERM")] {
        let dir = tmp.path().join(format!("stop-{after}"));
        aeroplane()
            .args(SMALL)
            .args(["--threads", "2", "--out"])
            .arg(&dir)
            .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", after)
            .env("AEROPLANE_TEST_SIGNAL", sig)
            .assert()
            .code(130)
            .stderr(predicate::str::contains("aeroplane resume"));
        let manifest = fs::read_to_string(dir.join("run.json")).unwrap();
        assert!(
            manifest.contains("\"status\": \"interrupted\""),
            "{manifest}"
        );
        assert!(!dir.join("history.csv").exists() && !dir.join("tuned.toml").exists());
        let resumed = aeroplane()
            .args(["resume", "-q", "--threads", "1"])
            .arg(&dir)
            .assert()
            .success();
        let text = String::from_utf8(resumed.get_output().stdout.clone()).unwrap();
        assert_eq!(without_written_line(text), stdout, "resumed after {after}");
        same_files(&base, &dir);
    }
    // Stopped inside an iteration (game 21 of the 16 an iteration plays: its first 5 are
    // kept) and inside a check of the confirmation (the 12 iterations play 192 games; a check
    // plays 8): every finished game is kept and used by the resume; the same files.
    for after in ["21", "197"] {
        let dir = tmp.path().join(format!("stop-game-{after}"));
        let stopped = aeroplane()
            .args(SMALL)
            .args(["--threads", "1", "--out"])
            .arg(&dir)
            .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", after)
            .assert()
            .code(130);
        let err = String::from_utf8(stopped.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains(&format!("interrupted after {after} of ")),
            "{err}"
        );
        assert!(dir.join("checkpoint.games").exists());
        let resumed = aeroplane()
            .args(["resume", "-q", "--threads", "2"])
            .arg(&dir)
            .assert()
            .success();
        let err = String::from_utf8(resumed.get_output().stderr.clone()).unwrap();
        assert!(
            err.contains("games finished before the stop, beyond the whole units kept, are used"),
            "{err}"
        );
        let text = String::from_utf8(resumed.get_output().stdout.clone()).unwrap();
        assert_eq!(
            without_written_line(text),
            stdout,
            "resumed after game {after}"
        );
        same_files(&base, &dir);
        assert!(!dir.join("checkpoint.games").exists());
    }
    // A complete tune has nothing to resume, and no shards to merge.
    aeroplane()
        .arg("resume")
        .arg(&base)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nothing to resume"));
    aeroplane()
        .arg("merge")
        .arg(tmp.path().join("merged"))
        .arg(&base)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no shards to merge"));
}

#[test]
fn files_record_every_iteration_and_the_profile_plays() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("t");
    tune_into(&dir, &["--report"]);
    let history = fs::read_to_string(dir.join("history.csv")).unwrap();
    let mut lines = history.lines();
    assert_eq!(
        lines.next().unwrap(),
        "iteration,progress,exposure,depth,progress_c,exposure_c,depth_c,progress_flip,exposure_flip,depth_flip,progress_plus,exposure_plus,depth_plus,progress_minus,exposure_minus,depth_minus,progress_grad,exposure_grad,depth_grad,deals,games,plus_wins,minus_wins,opponent_wins,unfinished,result,result_se"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 12);
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(r[0], k.to_string());
        // Integer parameters are played as integers; 8 deals of a game pair each.
        assert!(["1", "2"].contains(&r[12].trim_end_matches('0').trim_end_matches('.')));
        assert_eq!((r[19], r[20]), ("8", "16"));
    }
    // The profile is ready for --bots-dir, and plays.
    let profile = fs::read_to_string(dir.join("tuned.toml")).unwrap();
    assert!(profile.contains("kind = \"expectimax\"") && profile.contains("[params]"));
    let bots_dir = tmp.path().join("bots");
    fs::create_dir(&bots_dir).unwrap();
    fs::copy(dir.join("tuned.toml"), bots_dir.join("mine.toml")).unwrap();
    aeroplane()
        .args([
            "run",
            "--bots",
            "mine,greedy",
            "--games",
            "20",
            "-q",
            "--bots-dir",
        ])
        .arg(&bots_dir)
        .assert()
        .success();
    // The report: a chart per parameter, the results, the confirmation's LLR path.
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&html, opts).expect("the report is XHTML");
    let captions: Vec<String> = doc
        .descendants()
        .filter(|n| n.has_tag_name("figcaption"))
        .map(|n| n.text().unwrap_or_default().to_string())
        .collect();
    for p in ["progress", "exposure", "depth"] {
        assert!(
            captions
                .iter()
                .any(|c| c.starts_with(&format!("{p} over the iterations"))),
            "{captions:?}"
        );
    }
    assert_eq!(captions.len(), 5, "{captions:?}");
    assert!(html.contains("aeroplane resume DIR"));
    // `aeroplane report` redraws it from the folder alone.
    fs::remove_file(dir.join("report.html")).unwrap();
    aeroplane().arg("report").arg(&dir).assert().success();
    assert_eq!(fs::read_to_string(dir.join("report.html")).unwrap(), html);
}

#[test]
fn the_two_player_confirmation_is_run_sprt_on_the_fresh_deals() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("t");
    tune_into(&dir, &[]);
    let tune_sprt: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("sprt.json")).unwrap()).unwrap();
    // The tune played deals 0..96 (12 x 8); the confirmation starts at deal 96.
    let run = tmp.path().join("run");
    aeroplane()
        .args(["run", "--rules", "classic", "--bots"])
        .arg(format!(
            "{},expectimax:depth=1",
            dir.join("tuned.toml").display()
        ))
        .args([
            "--sprt",
            "elo0=0,elo1=40",
            "--first-game",
            "96",
            "--games",
            "64",
            "--chunk-size",
            "4",
            "--seed",
            "3",
            "-q",
            "--out",
        ])
        .arg(&run)
        .assert()
        .success();
    let run_sprt: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(run.join("sprt.json")).unwrap()).unwrap();
    assert_eq!(tune_sprt["sprt"], run_sprt["sprt"]);
    assert_eq!(tune_sprt["games"], run_sprt["games"]);
    // --confirm DIR runs the same confirmation again, into a new folder.
    let again = tmp.path().join("again");
    aeroplane()
        .args([
            "tune",
            "-q",
            "--sprt",
            "elo0=0,elo1=40",
            "--confirm-pairs",
            "64",
        ])
        .args(["--chunk-size", "4", "--confirm"])
        .arg(&dir)
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(
        fs::read(dir.join("sprt.json")).unwrap(),
        fs::read(again.join("sprt.json")).unwrap()
    );
    assert!(!again.join("history.csv").exists());
}

#[test]
fn more_players_and_an_opponent_fill_the_seats_in_turn() {
    let tmp = TempDir::new().unwrap();
    for (players, opponent, games_per_deal) in [("3", None, 6), ("4", Some("greedy"), 8)] {
        let dir = tmp.path().join(players);
        let mut cmd = aeroplane();
        cmd.args([
            "tune",
            "--bot",
            "expectimax:depth=1",
            "--param",
            "hangar=0..60",
            "--players",
            players,
            "--iterations",
            "3",
            "--pairs-per-iteration",
            "4",
            "--no-confirm",
            "-q",
            "--out",
        ])
        .arg(&dir);
        if let Some(o) = opponent {
            cmd.args(["--opponent", o]);
        }
        let out = cmd.assert().success();
        let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(
            stdout.contains(&format!("each deal is played in {games_per_deal} seatings")),
            "{stdout}"
        );
        let history = fs::read_to_string(dir.join("history.csv")).unwrap();
        for row in history.lines().skip(1) {
            let cells: Vec<&str> = row.split(',').collect();
            assert_eq!(cells[8], (4 * games_per_deal).to_string(), "{row}");
        }
        assert!(!dir.join("sprt.json").exists());
    }
}

#[test]
fn step_zero_holds_the_start_and_estimates_the_gradient_there() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("g");
    aeroplane()
        .args([
            "tune",
            "--bot",
            "expectimax:depth=1",
            "--param",
            "hangar=0..60",
        ])
        .args(["--step", "0", "--no-confirm", "--iterations", "6"])
        .args(["--pairs-per-iteration", "4", "-q", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let history = fs::read_to_string(dir.join("history.csv")).unwrap();
    for row in history.lines().skip(1) {
        assert!(row.split(',').nth(1) == Some("20.00000"), "{row}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let p = &summary["report"]["params"][0];
    assert_eq!(
        (p["start"].as_f64(), p["tuned"].as_f64()),
        (Some(20.0), Some(20.0))
    );
    assert!(p["gradient_se"].as_f64().unwrap() > 0.0);
}

#[test]
fn bad_input_names_the_parameter_and_what_is_allowed() {
    // Every case fails before a game is played.
    let base = ["tune", "--bot", "expectimax:depth=1"];
    let cases: &[(&[&str], &str)] = &[
        (
            &["--param", "progres=0..2"],
            "has no parameter `progres`; did you mean `progress`?",
        ),
        (
            &["--param", "iterations=10..100"],
            "`iterations` is a parameter of mcts, not of expectimax; expectimax's parameters are depth, progress",
        ),
        (&["--param", "progress=1..1"], "the range 1..1 is empty"),
        (&["--param", "progress=3..1"], "the range 3..1 is inverted"),
        (
            &["--param", "progress=0..inf"],
            "`inf` is not a finite number",
        ),
        (
            &["--param", "progress=NaN..2"],
            "`NaN` is not a finite number",
        ),
        (&["--param", "progress=a..2"], "`a` is not a number"),
        (&["--param", "progress"], "write NAME=LO..HI"),
        (
            &["--param", "mover=0..2"],
            "the range 0..2 goes beyond what expectimax allows (a number from 0 to 1)",
        ),
        (&["--param", "depth=1..2.5"], "must have integer ends"),
        (
            &["--param", "progress=2..3"],
            "the bot's progress is 1, outside the range 2..3",
        ),
        (
            &["--param", "progress=0..2", "--param", "progress=0..3"],
            "`progress` is given twice",
        ),
        (&[], "nothing to tune"),
        (
            &["--param", "progress=0..2", "--iterations", "0"],
            "bad iterations 0: allowed is an integer from 1",
        ),
        (
            &["--param", "progress=0..2", "--pairs-per-iteration", "0"],
            "bad pairs per iteration 0",
        ),
        (
            &[
                "--param",
                "progress=0..2",
                "--pairs-per-iteration",
                "1000001",
            ],
            "allowed is an integer from 1 to 1,000,000",
        ),
        (
            &["--param", "progress=0..2", "--chunk-size", "99999999"],
            "bad confirmation chunk size 99999999: allowed is 1 to 1,000,000 deals",
        ),
        (
            &["--param", "progress=0..2", "--step", "NaN"],
            "bad step NaN",
        ),
        (
            &["--param", "progress=0..2", "--step", "-0.1"],
            "bad step -0.1: allowed is a share of each range from 0 to 1",
        ),
        (
            &["--param", "progress=0..2", "--step", "0"],
            "nothing to confirm; add --no-confirm",
        ),
        (
            &["--param", "progress=0..2", "--players", "5"],
            "2, 3 or 4 players, not 5",
        ),
        (
            &["--param", "progress=0..2", "--sprt", "elo0=5,elo1=0"],
            "elo0 < elo1",
        ),
        (
            &["--param", "progress=0..2", "--confirm-pairs", "0"],
            "bad confirmation length 0: allowed is 1 to 1,000,000,000 deals",
        ),
        (
            &["--param", "progress=0..2", "--opponent", "nosuchbot"],
            "unknown bot `nosuchbot`",
        ),
    ];
    for (extra, want) in cases {
        aeroplane()
            .args(base)
            .args(*extra)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*want));
    }
    for (bot, param, want) in [
        (
            "greedy",
            "x=0..1",
            "its kind `greedy` has no numeric parameters",
        ),
        ("mcts", "policy=0..1", "`policy` of mcts takes words"),
        (
            "bots/examples/greedy-py.toml",
            "x=0..1",
            "a bot program's parameters are not declared",
        ),
    ] {
        aeroplane()
            .args(["tune", "--bot", bot, "--param", param])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(want));
    }
    let tmp = TempDir::new().unwrap();
    aeroplane()
        .args(["tune", "--confirm"])
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give --out DIR"));
    aeroplane()
        .args(["run", "--games", "4", "-q", "--out"])
        .arg(tmp.path().join("run"))
        .assert()
        .success();
    aeroplane()
        .args(["tune", "--confirm"])
        .arg(tmp.path().join("run"))
        .arg("--out")
        .arg(tmp.path().join("c"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("describes a run, not a tune"));
}

/// Issue 31, item 15: a confirmation prints no gradient (it plays no iterations: it printed
/// `NaN ± NaN`), names the interval it printed (a test that stops after a few deals has the
/// Wilson floor, not "the normal interval"), and says that the estimate after a sequential
/// stop is biased; summary.json names the interval as sprt.json and match.csv do.
#[test]
fn a_confirmation_prints_no_nan_and_names_its_interval() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("t");
    let stdout = tune_into(&dir, &[]);
    assert!(
        stdout.contains("mean of the iterations' gradient estimates"),
        "{stdout}"
    );
    let again = tmp.path().join("c");
    let out = aeroplane()
        .args(["tune", "--sprt", "elo0=-300,elo1=-200", "--confirm"])
        .arg(&dir)
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(!text.contains("NaN"), "{text}");
    let sprt: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(again.join("sprt.json")).unwrap()).unwrap();
    let method = sprt["sprt"]["interval_method"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(method, "wilson_on_pairs", "{sprt}");
    assert!(text.contains("at least the Wilson interval"), "{text}");
    assert!(!text.contains("95% normal interval"), "{text}");
    assert!(
        text.contains("after an SPRT stop they are biased"),
        "{text}"
    );
    let summary = fs::read_to_string(again.join("summary.json")).unwrap();
    assert!(
        summary.contains("\"interval_method\": \"wilson_on_pairs\""),
        "{summary}"
    );
}
