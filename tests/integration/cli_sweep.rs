//! `aeroplane sweep`: output files, determinism across threads, sorting, the paired
//! comparison, and bad input.

use crate::common::aeroplane;
use std::fs;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::without_written_line;

fn sweep(dir: &Path, threads: &str, extra: &[&str]) -> String {
    let out = aeroplane()
        .args([
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--vary",
            "launch_rolls=[6];[2,4,6]",
            "--bots",
            "greedy,random,greedy",
            "--games",
            "300",
            "--seed",
            "5",
            "--quiet",
            "--compare",
            "--threads",
            threads,
            "--out",
        ])
        .arg(dir)
        .args(extra)
        .assert()
        .success();
    without_written_line(String::from_utf8(out.get_output().stdout.clone()).unwrap())
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn sweeps_are_identical_across_thread_counts() {
    let (a, b) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    let out_a = sweep(a.path(), "1", &[]);
    let out_b = sweep(b.path(), "2", &[]);
    assert_eq!(out_a, out_b);
    for f in ["run.json", "sweep.csv", "compare.csv"] {
        assert_eq!(read(a.path(), f), read(b.path(), f), "{f}");
    }
    let csv = read(a.path(), "sweep.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 5, "{csv}");
    assert!(lines[0].starts_with("index,variant,players,games,seat0_win,seat0_lo95"));
    assert!(lines[1].starts_with("1,overshoot=illegal launch_rolls=[6],3,300,"));
    assert!(lines[4].starts_with("4,\"overshoot=bounce launch_rolls=[2,4,6]\",3,300,"));
    // Three players sit in seats 0, 1, 2: seat 3's columns are empty.
    let cells: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(&cells[13..16], &["", "", ""]);
    let rates: f64 = [4, 7, 10]
        .iter()
        .map(|&k| cells[k].parse::<f64>().unwrap())
        .sum();
    assert!((rates - 1.0).abs() < 1e-5, "{rates}");
    let cmp = read(a.path(), "compare.csv");
    assert!(cmp.starts_with("a,b,metric,mean_a,mean_b,diff,diff_lo95,diff_hi95,p,deals,method\n"));
    assert!(
        cmp.contains(",seat0_win,") && cmp.contains(",turns,"),
        "{cmp}"
    );
    assert!(out_a.contains("paired comparison over 300 shared deals (one game each)"));
}

#[test]
fn variants_share_their_seeds() {
    // Varying an option that cannot matter when no game reaches it gives identical rows:
    // greedy games never last 100000 turns.
    let d = TempDir::new().unwrap();
    aeroplane()
        .args([
            "sweep",
            "--vary",
            "max_turns=100000,200000",
            "--games",
            "200",
            "--quiet",
            "--out",
        ])
        .arg(d.path())
        .assert()
        .success();
    let csv = read(d.path(), "sweep.csv");
    let lines: Vec<&str> = csv.lines().collect();
    // Everything after the label but the last column (the variant's max_turns).
    let tail = |l: &str| {
        let t = l.split_once(",4,").unwrap().1;
        t[..t.rfind(',').unwrap()].to_string()
    };
    assert_eq!(tail(lines[1]), tail(lines[2]));
}

#[test]
fn sort_orders_the_table() {
    let d = TempDir::new().unwrap();
    let out = sweep(d.path(), "2", &["--sort", "-turns_mean"]);
    let means: Vec<f64> = out
        .lines()
        .filter(|l| l.contains("overshoot="))
        .take(4)
        .map(|l| l.split_whitespace().nth(10).unwrap().parse().unwrap())
        .collect();
    assert_eq!(means.len(), 4, "{out}");
    assert!(means.windows(2).all(|w| w[0] >= w[1]), "{means:?}\n{out}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let cases: [(&[&str], &str); 6] = [
        (&["--vary", "overshoot"], "overshoot"),
        (&["--vary", "colour=red,blue"], "colour"),
        (&["--vary", "overshoot=sideways"], "sideways"),
        (&["--vary", "launch_rolls=[7]"], "launch_rolls"),
        (&["--vary", "overshoot=bounce", "--sort", "speed"], "speed"),
        (
            &["--vary", "overshoot=bounce,illegal", "--compare", "1,3"],
            "--compare",
        ),
    ];
    for (args, word) in cases {
        aeroplane()
            .arg("sweep")
            .args(args)
            .args(["--games", "5", "--quiet"])
            .assert()
            .failure()
            .stderr(predicate::str::contains(word))
            .stderr(predicate::str::contains("panicked").not());
    }
}

#[test]
fn a_config_sweep_section_equals_the_command_line() {
    let d = TempDir::new().unwrap();
    let cfg = d.path().join("sweep.toml");
    fs::write(
        &cfg,
        "bots = \"greedy,random,greedy\"\ngames = 300\nseed = 5\n[sweep]\nlaunch_rolls = [[6], [2, 4, 6]]\novershoot = [\"illegal\", \"bounce\"]\n",
    )
    .unwrap();
    let (a, b) = (d.path().join("a"), d.path().join("b"));
    aeroplane()
        .args(["sweep", "--quiet", "--config"])
        .arg(&cfg)
        .arg("--out")
        .arg(&a)
        .assert()
        .success();
    aeroplane()
        .args([
            "sweep",
            "--quiet",
            "--vary",
            "launch_rolls=[6];[2,4,6]",
            "--vary",
            "overshoot=illegal,bounce",
            "--bots",
            "greedy,random,greedy",
            "--games",
            "300",
            "--seed",
            "5",
            "--out",
        ])
        .arg(&b)
        .assert()
        .success();
    for f in ["sweep.csv", "run.json"] {
        assert_eq!(read(&a, f), read(&b, f), "{f}");
    }
    fs::write(&cfg, "[sweep]\ncolour = [\"red\"]\n").unwrap();
    aeroplane()
        .args(["sweep", "--quiet", "--config"])
        .arg(&cfg)
        .assert()
        .failure()
        .stderr(predicate::str::contains("colour"));
}

/// Issue 31, item 25: `--compare` takes variants by label as well as by number (which counts
/// from 1, as the `#` column), and `0,1` says so.
#[test]
fn compare_takes_labels_and_says_variants_count_from_one() {
    let sweep = |compare: &str| {
        assert_cmd::cargo::cargo_bin_cmd!("aeroplane")
            .args(["sweep", "--vary", "overshoot=illegal,bounce", "--vary"])
            .args([
                "launch_rolls=[6];[5,6]",
                "--games",
                "6",
                "-q",
                "--compare",
                compare,
            ])
            .assert()
    };
    let by_number = sweep("2,4").success().get_output().stdout.clone();
    let by_label =
        sweep("overshoot=illegal launch_rolls=[5,6],overshoot=bounce launch_rolls=[5,6]")
            .success()
            .get_output()
            .stdout
            .clone();
    assert_eq!(by_number, by_label);
    assert!(String::from_utf8(by_number).unwrap().contains("A = #2"));
    sweep("0,1")
        .code(2)
        .stderr(predicates::str::contains("count from 1"));
}
