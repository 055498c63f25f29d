//! Numbers that tell the truth everywhere (issue 22): the statistics' edge cases, match scores,
//! and every printed figure re-derived from the files. Each test is one reproduction of the
//! issue, run before the fix and after.

use crate::common::aeroplane;
use std::path::Path;

use predicates::prelude::PredicateBooleanExt;
use tempfile::TempDir;

/// Runs `aeroplane args... --quiet --out DIR` and returns stdout.
fn run_in(dir: &Path, args: &[&str]) -> String {
    let out = aeroplane()
        .args(args)
        .args(["--quiet", "--out"])
        .arg(dir)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// A CSV file's rows as maps from column name to cell.
fn rows(dir: &Path, file: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = ::csv::Reader::from_path(dir.join(file)).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

fn num(text: &str) -> f64 {
    text.parse()
        .unwrap_or_else(|_| panic!("not a number: {text:?}"))
}

/// The Wilson score interval at 95%.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let z2 = z * z;
    let d = 1.0 + z2 / n;
    let c = (p + z2 / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / d;
    ((c - h).max(0.0), (c + h).min(1.0))
}

/// Item 1: with 200-turn games most end unfinished, and seats 0 and 3 never win in 50 rotated
/// deals. Their intervals were [0, 0.0188] (Wilson on the 200 games, as if d = 1); they are
/// the Wilson interval on the 50 deals, and the seat test counts each deal once.
#[test]
fn seats_without_wins_get_the_interval_of_the_deals() {
    let dir = TempDir::new().unwrap();
    let rules = dir.path().join("mt200.toml");
    std::fs::write(&rules, "base = \"appfreegame\"\nmax_turns = 200\n").unwrap();
    let out = dir.path().join("z");
    let stdout = run_in(
        &out,
        &[
            "run",
            "--rules",
            rules.to_str().unwrap(),
            "--bots",
            "greedy,greedy,greedy,greedy",
            "--games",
            "50",
            "--seed",
            "1",
            "--rotate-seats",
        ],
    );
    let seats = rows(&out, "seats.csv");
    let (_, hi) = wilson(0.0, 50.0);
    for s in [0, 3] {
        let row = &seats[s];
        assert_eq!(row["wins"], "0", "{row:?}");
        assert_eq!(row["interval_method"], "wilson_on_deals");
        assert_eq!(row["design_effect"], "");
        assert!((num(&row["win_hi95"]) - hi).abs() < 1e-6, "{row:?}");
        assert!((num(&row["win_hi95"]) - 0.0713).abs() < 1e-4);
    }
    // The seat test: d at least 4 (each deal one sample), not the mean with 1 for seats 0, 3.
    let chi2 = num(&seats[0]["chi2"]);
    let raw = {
        let w: Vec<f64> = seats.iter().map(|r| num(&r["wins"])).collect();
        let e = w.iter().sum::<f64>() / 4.0;
        w.iter().map(|x| (x - e).powi(2) / e).sum::<f64>()
    };
    assert!((chi2 - raw / 4.08).abs() < 0.01, "{chi2} vs raw {raw}");
    assert!(
        stdout.contains(
            "   0  red            200           0     0.00%  [0.00%, 7.13%]        deals"
        ),
        "{stdout}"
    );
}

/// Item 2: the seat-0 difference of a sweep comparison. At 10 deals with no discordant game
/// it was `[0, 0]`; at 30 deals it excluded 0 while p = 0.058. Now the interval is the score
/// interval that inverts the same test, with each deal one pair where the deals are too few.
#[test]
fn sweep_comparisons_agree_with_their_test_and_never_collapse() {
    let sweep = |games: &str, seed: &str| {
        let dir = TempDir::new().unwrap();
        let stdout = run_in(
            dir.path(),
            &[
                "sweep",
                "--vary",
                "overshoot=illegal,bounce",
                "--bots",
                "greedy,greedy,greedy,greedy",
                "--rotate-seats",
                "--games",
                games,
                "--seed",
                seed,
                "--compare",
                "1,2",
            ],
        );
        let row = rows(dir.path(), "compare.csv").remove(0);
        (stdout, row)
    };
    let (stdout, row) = sweep("10", "47");
    assert_eq!(row["metric"], "seat0_win");
    assert_eq!(row["diff"], "0.000000");
    assert_eq!(row["method"], "mcnemar_on_deals");
    // No discordant deal among 10: ±z²/(10 + z²) = ±0.27753.
    assert_eq!(
        (row["diff_lo95"].as_str(), row["diff_hi95"].as_str()),
        ("-0.277533", "0.277533")
    );
    assert!(
        stdout.contains("McNemar with each deal as one pair"),
        "{stdout}"
    );
    // Item 5: the printed means are a rate in percent and turns with two decimals, not six.
    assert!(
        stdout.contains("seat0_win  A   30.00%  B   30.00%  A-B   +0.00 points  95% CI [-27.75, +27.75]  p = 1.0000"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "turns      A   271.60  B   335.10  A-B  -63.50         95% CI [-117.08, -9.92]  p = 0.0252"
        ),
        "{stdout}"
    );
    let (_, row) = sweep("30", "13");
    let (lo, hi, p) = (
        num(&row["diff_lo95"]),
        num(&row["diff_hi95"]),
        num(&row["p"]),
    );
    assert!((p - 0.0578).abs() < 5e-4, "{row:?}");
    assert!(
        lo < 0.0 && hi > 0.0,
        "p = {p} but the interval excludes 0: {row:?}"
    );
}

/// Item 3 and the match scores: a fixed two-bot rotated run prints Elo, nElo, LOS and the
/// pentanomial counts, and writes them to match.csv and summary.json; every figure follows
/// from the counts. Three won pairs gave `Elo inf [inf, inf]` (and `null` in JSON).
#[test]
fn match_scores_of_a_fixed_run_follow_from_the_pair_counts() {
    let dir = TempDir::new().unwrap();
    let stdout = run_in(
        dir.path(),
        &[
            "run",
            "--bots",
            "greedy,random",
            "--rotate-seats",
            "--games",
            "300",
            "--seed",
            "3",
        ],
    );
    let m = rows(dir.path(), "match.csv").remove(0);
    let counts: Vec<f64> = ["ll", "ld", "dd_wl", "wd", "ww"]
        .iter()
        .map(|c| num(&m[*c]))
        .collect();
    let n: f64 = counts.iter().sum();
    assert_eq!(n, 300.0);
    let mu = counts
        .iter()
        .enumerate()
        .map(|(k, c)| c * k as f64 / 4.0)
        .sum::<f64>()
        / n;
    let var = counts
        .iter()
        .enumerate()
        .map(|(k, c)| c * (k as f64 / 4.0 - mu).powi(2))
        .sum::<f64>()
        / n;
    let se = (var / n).sqrt();
    let z = 1.959_963_984_540_054;
    let elo = |s: f64| -400.0 * (1.0 / s - 1.0).log10();
    let close = |col: &str, want: f64| {
        assert!(
            (num(&m[col]) - want).abs() < 2e-6,
            "{col}: {} vs {want}",
            m[col]
        );
    };
    close("score", mu);
    close("score_lo95", mu - z * se);
    close("elo", elo(mu));
    close("elo_lo95", elo(mu - z * se));
    close("elo_hi95", elo(mu + z * se));
    close("nelo", (mu - 0.5) / (2.0 * var).sqrt() * 800.0 / 10f64.ln());
    assert_eq!(m["interval_method"], "normal_by_pair");
    assert!(
        stdout.contains(&format!(
            "Elo +{:.1} [+{:.1}, +{:.1}]",
            elo(mu),
            elo(mu - z * se),
            elo(mu + z * se)
        )),
        "{stdout}"
    );
    assert!(stdout.contains("Ptnml(0-2): ["), "{stdout}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("summary.json")).unwrap())
            .unwrap();
    let h = &summary["report"]["summary"]["head_to_head"];
    assert_eq!(h["groups"], 300);
    assert!((h["elo"]["elo"].as_f64().unwrap() - elo(mu)).abs() < 1e-9);

    // Seed 3, three deals: greedy won all six games.
    let won = TempDir::new().unwrap();
    let stdout = run_in(
        won.path(),
        &[
            "run",
            "--bots",
            "greedy,random",
            "--rotate-seats",
            "--games",
            "3",
            "--seed",
            "3",
        ],
    );
    let m = rows(won.path(), "match.csv").remove(0);
    assert_eq!(
        (m["ww"].as_str(), m["elo"].as_str(), m["elo_hi95"].as_str()),
        ("3", "inf", "inf")
    );
    assert_eq!(m["elo_lo95"], "-42.949971");
    assert_eq!(m["interval_method"], "wilson_on_pairs");
    assert!(stdout.contains("Elo +inf [-42.9, +inf]"), "{stdout}");
    let json = std::fs::read_to_string(won.path().join("summary.json")).unwrap();
    assert!(json.contains("\"elo\": \"inf\""), "{json}");

    // Identical bots: 0, never -0, and an interval the width of the deals.
    let even = TempDir::new().unwrap();
    let stdout = run_in(
        even.path(),
        &[
            "run",
            "--bots",
            "greedy,greedy",
            "--rotate-seats",
            "--games",
            "40",
            "--seed",
            "1",
        ],
    );
    assert!(!stdout.contains("-0.0"), "{stdout}");
    let m = rows(even.path(), "match.csv").remove(0);
    assert_eq!((m["dd_wl"].as_str(), m["elo"].as_str()), ("40", "0.000000"));
    let (lo, _) = wilson(0.5, 40.0);
    assert!((num(&m["elo_lo95"]) - elo(lo)).abs() < 1e-5, "{m:?}");
}

/// Item 3: an SPRT with error rates so small that a bound is infinite is refused.
#[test]
fn sprt_error_rates_that_make_a_bound_infinite_are_refused() {
    aeroplane()
        .args([
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=20,alpha=1e-320",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("alpha").and(predicates::str::contains("from 1e-9")));
}

/// Item 4: at 2-player tables the league's rating is a head-to-head Elo, and it says so; at
/// 4-player tables it warns that it is not.
#[test]
fn league_captions_fit_the_table_size() {
    let dir = TempDir::new().unwrap();
    let two = run_in(
        dir.path(),
        &[
            "league",
            "--bots",
            "random,greedy,expectimax:depth=1",
            "--players",
            "2",
            "--games",
            "30",
            "--bootstrap",
            "100",
        ],
    );
    assert!(
        two.contains("a head-to-head Elo: a gap of D points predicts"),
        "{two}"
    );
    assert!(!two.contains("not a head-to-head"), "{two}");
    assert!(two.contains("resamples of the deals"), "{two}");
    aeroplane()
        .args([
            "league",
            "--bots",
            "random,greedy",
            "--bootstrap",
            "2",
            "--games",
            "5",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("from 100 to"));
}

/// Item 5: a p-value below the smallest f64 reads the same on stdout and in the CSV.
#[test]
fn tiny_p_values_read_the_same_on_stdout_and_in_the_files() {
    let dir = TempDir::new().unwrap();
    let stdout = run_in(
        dir.path(),
        &[
            "run",
            "--rules",
            "classic",
            "--bots",
            "greedy,greedy,greedy",
            "--games",
            "60000",
            "--seed",
            "1",
        ],
    );
    let p = rows(dir.path(), "seats.csv")[0]["p_all_equal"].clone();
    let (mantissa, exponent) = p.split_once('e').unwrap();
    let exponent: i64 = exponent.parse().unwrap();
    assert!(exponent < -300, "{p}");
    let short = format!("{:.2}e{exponent}", num(mantissa));
    assert!(stdout.contains(&format!("p = {short}")), "{p} vs {stdout}");
    let json = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
    assert!(json.contains(&format!("\"p_value\": {p}")), "{p}");
}

/// The `*.log` files in `dir/logs`.
fn logs(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("logs"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
                .count()
        })
        .unwrap_or(0)
}

/// Item 11: bot programs' stderr goes to `--out DIR/logs/` for every job, as docs/commands/bots.md and
/// PROTOCOL.md say, not only for `run`: league, sweep, and a resumed job too.
#[test]
fn bot_programs_log_under_the_output_folder_in_every_job() {
    let py = "bots/examples/random-py.toml";
    let league = TempDir::new().unwrap();
    let lineup = format!("{py},greedy");
    run_in(
        league.path(),
        &[
            "league",
            "--bots",
            &lineup,
            "--players",
            "2",
            "--games",
            "2",
            "--bootstrap",
            "100",
        ],
    );
    assert!(logs(league.path()) >= 1, "no logs in the league's folder");
    let sweep = TempDir::new().unwrap();
    run_in(
        sweep.path(),
        &[
            "sweep",
            "--bots",
            &lineup,
            "--vary",
            "overshoot=illegal,bounce",
            "--games",
            "2",
        ],
    );
    assert!(logs(sweep.path()) >= 1, "no logs in the sweep's folder");
    // Stopped after its first game, then resumed: the resumed session logs as well. (The stop
    // is counted in games, not units: on one thread the worker stops exactly after game 1,
    // while a stop after unit 1 may find the other three games already played and kept, and
    // a resume that plays nothing starts no program.)
    let dir = TempDir::new().unwrap();
    let job = dir.path().join("job");
    aeroplane()
        .args([
            "run",
            "--bots",
            &lineup,
            "--games",
            "4",
            "--chunk-size",
            "1",
            "--threads",
            "1",
            "-q",
            "--out",
        ])
        .arg(&job)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "1")
        .assert()
        .code(130)
        .stderr(predicates::str::contains("interrupted after 1 of 4 games"));
    let before = logs(&job);
    std::fs::remove_dir_all(job.join("logs")).unwrap();
    aeroplane()
        .arg("resume")
        .arg(&job)
        .arg("-q")
        .assert()
        .success();
    assert!(before >= 1 && logs(&job) >= 1, "resume wrote no logs");
}

/// Item 11: behaviour the issue found wrong, each refused or fixed.
#[test]
fn behaviour_fixes() {
    // A --bots-dir profile that shadows a built-in is noted once, not twice, by league.
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("greedy.toml"), "kind = \"random\"\n").unwrap();
    let out = aeroplane()
        .args([
            "league",
            "--bots",
            "greedy,random",
            "--games",
            "2",
            "--bootstrap",
            "100",
            "-q",
            "--bots-dir",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(stderr.matches("note:").count(), 1, "{stderr}");
    // --sprt rotates seats: --no-rotate-seats (or a config's `rotate_seats = false`) is refused.
    aeroplane()
        .args([
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=20",
            "--no-rotate-seats",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--no-rotate-seats does not apply",
        ));
    let cfg = dir.path().join("cfg.toml");
    std::fs::write(&cfg, "bots = \"greedy,random\"\nrotate_seats = false\n").unwrap();
    aeroplane()
        .args(["run", "--sprt", "elo0=0,elo1=20", "--config"])
        .arg(&cfg)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("`rotate_seats = false`"));
    // league --help does not offer what league refuses.
    let help = aeroplane().args(["league", "--help"]).assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(!help.contains("rotate-seats"), "{help}");
    // `external` is a kind, not a bot: not listed among known bots, and named, explained.
    aeroplane()
        .args(["run", "--bots", "nosuch,greedy"])
        .assert()
        .code(2)
        .stderr(
            predicates::str::contains("known bots are")
                .and(predicates::str::contains("external").not()),
        );
    aeroplane()
        .args(["run", "--bots", "external,greedy"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "the kind of bot programs, not a bot",
        ));
    // An unknown key in a manifest: the allowed keys are listed whole, not cut mid-word.
    let run = dir.path().join("run");
    run_in(&run, &["run", "--games", "2"]);
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("run.json")).unwrap()).unwrap();
    m["foo"] = 1.into();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, m.to_string()).unwrap();
    aeroplane()
        .args(["run", "--manifest"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(
            predicates::str::contains("`sweep`, `league`")
                .and(predicates::str::contains("more characters").not()),
        );
}

/// Item 11: every file an example in `--help` names exists, and the sweep config runs.
#[test]
fn files_named_in_help_examples_exist() {
    for cmd in [
        "run", "sweep", "league", "report", "resume", "merge", "replay", "bots", "rules", "bench",
    ] {
        let out = aeroplane().args([cmd, "--help"]).assert().success();
        let help = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        for word in help.split_whitespace() {
            let word = word.trim_matches(|c: char| !(c.is_alphanumeric() || "/._-".contains(c)));
            if (word.starts_with("configs/") || word.starts_with("bots/"))
                && word.ends_with(".toml")
            {
                let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(word);
                assert!(
                    path.is_file(),
                    "`aeroplane {cmd} --help` names {word}, which does not exist"
                );
            }
        }
    }
    let dir = TempDir::new().unwrap();
    run_in(
        dir.path(),
        &[
            "sweep",
            "--config",
            "configs/sweep.toml",
            "--games",
            "5",
            "--sort",
            "-turns_mean",
        ],
    );
    assert_eq!(rows(dir.path(), "sweep.csv").len(), 6);
}
