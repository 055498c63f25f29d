//! `aeroplane sweep --vary base=...` (issue 31, item 25): presets swept against each other in
//! one paired sweep, alone or under other axes; the axis in labels, sweep.csv, the main
//! effects, run.json, the reproduce line and `resume`; and its errors.

use std::fs;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::aeroplane;

const COMMON: [&str; 8] = [
    "--bots",
    "greedy,random",
    "--games",
    "60",
    "--seed",
    "3",
    "--chunk-size",
    "20",
];

fn sweep(dir: &Path, vary: &[&str], extra: &[&str]) {
    let mut cmd = aeroplane();
    cmd.arg("sweep");
    for v in vary {
        cmd.args(["--vary", v]);
    }
    cmd.args(COMMON)
        .args(extra)
        .args(["--quiet", "--out"])
        .arg(dir)
        .assert()
        .success();
}

/// sweep.csv's rows as cells (no label here holds a comma).
fn rows(dir: &Path) -> Vec<Vec<String>> {
    fs::read_to_string(dir.join("sweep.csv"))
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

/// The columns that depend on the variant's games alone: players .. seat_test and the bots'
/// win rates (not the index, label, the p-values adjusted over the sweep, nor the axis columns).
fn figures(row: &[String]) -> Vec<String> {
    [&row[2..34], &row[37..49]].concat()
}

#[test]
fn each_preset_plays_the_deals_its_own_sweep_plays() {
    let tmp = TempDir::new().unwrap();
    let all = tmp.path().join("all");
    sweep(
        &all,
        &[
            "base=appfreegame,classic,chinese",
            "overshoot=illegal,bounce",
        ],
        &[],
    );
    let got = rows(&all);
    assert_eq!(got.len(), 7);
    assert_eq!(
        &got[0][49..],
        ["base", "overshoot"],
        "one column per axis, base first as given"
    );
    for (k, preset) in ["appfreegame", "classic", "chinese"].iter().enumerate() {
        let own = tmp.path().join(preset);
        sweep(&own, &["overshoot=illegal,bounce"], &["--rules", preset]);
        let want = rows(&own);
        for (j, overshoot) in ["illegal", "bounce"].iter().enumerate() {
            let row = &got[1 + 2 * k + j];
            assert_eq!(row[1], format!("base={preset} overshoot={overshoot}"));
            assert_eq!(&row[49..], [preset.to_string(), overshoot.to_string()]);
            // The same deals and dice: the same games as the preset's own sweep.
            assert_eq!(figures(row), figures(&want[1 + j]), "{preset} {overshoot}");
        }
    }
    // The presets differ: the sweep compares something.
    assert_ne!(figures(&got[1]), figures(&got[3]));
    // Main effects of the axis, against the default preset.
    let effects = fs::read_to_string(all.join("effects.csv")).unwrap();
    for value in ["appfreegame", "classic", "chinese"] {
        assert!(
            effects.contains(&format!("base,{value},2,60,turns,")),
            "{effects}"
        );
    }
    assert!(effects.contains(",turns,") && effects.contains(",appfreegame,"));
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(all.join("run.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["sweep"]["vary"],
        serde_json::json!([
            "base=appfreegame,classic,chinese",
            "overshoot=illegal,bounce"
        ])
    );
    assert_eq!(
        manifest["sweep"]["variants"][5],
        "base=chinese overshoot=bounce"
    );
}

#[test]
fn a_sweep_of_presets_compares_and_sorts_by_its_axis() {
    let d = TempDir::new().unwrap();
    let out = aeroplane()
        .args(["sweep", "--vary", "base=classic,chinese"])
        .args(COMMON)
        .args(["--compare", "base=classic,base=chinese", "--sort", "base"])
        .args(["--quiet", "--out"])
        .arg(d.path())
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        stdout.contains("rules base=classic,chinese (2 variants)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("A = #1 base=classic, B = #2 base=chinese"),
        "{stdout}"
    );
    // Sorted by the base column, ascending: chinese before classic.
    let table: Vec<&str> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .take(2)
        .collect();
    assert!(
        table[0].contains("2  base=chinese") && table[1].contains("1  base=classic"),
        "{stdout}"
    );
    let cmp = fs::read_to_string(d.path().join("compare.csv")).unwrap();
    assert!(
        cmp.lines()
            .nth(1)
            .unwrap()
            .starts_with("base=classic,base=chinese,seat0_win,"),
        "{cmp}"
    );
}

#[test]
fn a_stopped_sweep_of_presets_resumes_exactly() {
    let tmp = TempDir::new().unwrap();
    let (whole, stopped) = (tmp.path().join("whole"), tmp.path().join("stopped"));
    let vary = ["overshoot=illegal,bounce", "base=classic,chinese"];
    sweep(&whole, &vary, &["--compare", "1,4"]);
    let mut cmd = aeroplane();
    cmd.arg("sweep");
    for v in vary {
        cmd.args(["--vary", v]);
    }
    cmd.args(COMMON)
        .args(["--compare", "1,4", "--threads", "1", "--quiet", "--out"])
        .arg(&stopped)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "3")
        .assert()
        .code(130);
    aeroplane()
        .args(["resume", "-q"])
        .arg(&stopped)
        .assert()
        .success();
    for f in [
        "run.json",
        "sweep.csv",
        "compare.csv",
        "effects.csv",
        "summary.json",
    ] {
        let (a, b) = (
            fs::read(whole.join(f)).unwrap(),
            fs::read(stopped.join(f)).unwrap(),
        );
        assert!(a == b, "{f} differs after resume");
    }
    let csv = fs::read_to_string(whole.join("sweep.csv")).unwrap();
    assert!(csv.contains(",overshoot=bounce base=chinese,"), "{csv}");
}

#[test]
fn bad_presets_and_a_second_base_are_errors() {
    let tmp = TempDir::new().unwrap();
    let config = tmp.path().join("sweep.toml");
    fs::write(
        &config,
        "rules = \"classic\"\n[sweep]\nbase = [\"classic\", \"chinese\"]\n",
    )
    .unwrap();
    let cases: [(Vec<&str>, &[&str]); 5] = [
        (
            vec!["--vary", "base=classic,chess"],
            &["`chess`", "`base`", "appfreegame, classic, chinese"],
        ),
        (
            vec!["--vary", "base=classic,classic"],
            &["base=classic", "twice"],
        ),
        (
            vec!["--vary", "base=classic", "--vary", "base=chinese"],
            &["`base` is varied twice"],
        ),
        (
            vec!["--rules", "classic", "--vary", "base=classic,chinese"],
            &[
                "--rules classic",
                "drop --rules",
                "appfreegame, classic, chinese",
            ],
        ),
        (
            vec!["--config", config.to_str().unwrap()],
            &["--rules classic", "base=classic,chinese"],
        ),
    ];
    for (args, words) in cases {
        let mut a = aeroplane()
            .arg("sweep")
            .args(&args)
            .args(["--games", "5", "--quiet"])
            .assert()
            .failure()
            .code(2);
        for w in words {
            a = a.stderr(predicate::str::contains(*w));
        }
        a.stderr(predicate::str::contains("panicked").not());
    }
    // The [sweep] table takes the axis too, without `rules`.
    fs::write(
        &config,
        "games = 10\n[sweep]\nbase = [\"classic\", \"chinese\"]\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    aeroplane()
        .args(["sweep", "--quiet", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let csv = fs::read_to_string(out.join("sweep.csv")).unwrap();
    assert!(csv.contains("\n2,base=chinese,4,10,"), "{csv}");
}
