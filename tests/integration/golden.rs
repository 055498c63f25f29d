//! Golden outputs: the real binary on a set of small, representative commands, its stdout and
//! every file it writes compared byte for byte with `tests/golden/`. They were recorded from the
//! code at commit b9033e2, before the experiment-layer refactor, which must leave them unchanged.
//!
//! Layout: `tests/golden/<case>/` holds one case.
//! - A stdout case (a command without `--out`) keeps `stdout.txt`, and `stderr.txt` and
//!   `exit_code.txt` only when stderr is not empty or the exit code is not 0. Every command is
//!   run with `-q` where it has one, so stderr carries no progress bar or timing.
//! - A files case (`<case>_files/`) runs a command with `--out DIR` appended and keeps every
//!   file written into DIR except `run.json` (its schema is meant to change), under the same
//!   name. A file written but not recorded is a failure too. The stdout of these runs is not
//!   compared: `--out` may come to print the names of the files it writes, so stdout is
//!   recorded from the same command without `--out` instead.
//! - `bench` prints timings: only its deterministic part is recorded (see [`bench_lines`]).
//!
//! **Re-blessing.** After an intentional change of output, rewrite the goldens with
//!
//! ```sh
//! AEROPLANE_BLESS=1 cargo test golden
//! ```
//!
//! and review `git diff tests/golden` before committing it: every line of that diff is a change
//! users will see.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use tempfile::TempDir;

/// The output files no golden holds.
const NOT_COMPARED: [&str; 1] = ["run.json"];

fn golden_dir(case: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(case)
}

/// `AEROPLANE_BLESS=1` rewrites the goldens instead of comparing with them.
fn blessing() -> bool {
    std::env::var_os("AEROPLANE_BLESS").is_some_and(|v| v == "1")
}

/// The binary, run from the repository root (so `bots/` and `configs/` resolve).
fn aeroplane(args: &[&str]) -> std::process::Output {
    let mut cmd = cargo_bin_cmd!("aeroplane");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR")).args(args);
    cmd.output().expect("the binary runs")
}

/// Where `actual` first differs from `expected`, for the failure message.
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let (e, a) = (
        String::from_utf8_lossy(expected),
        String::from_utf8_lossy(actual),
    );
    let (mut el, mut al) = (e.split_inclusive('\n'), a.split_inclusive('\n'));
    for line in 1.. {
        match (el.next(), al.next()) {
            (Some(x), Some(y)) if x == y => {}
            (x, y) => {
                return format!(
                    "line {line}:\n    expected {:?}\n    actual   {:?}",
                    x.unwrap_or("<end of file>"),
                    y.unwrap_or("<end of file>")
                );
            }
        }
    }
    unreachable!()
}

/// Compares (or, blessing, writes) the named outputs of one case. `outputs` is the whole
/// expected content of the case's golden directory.
fn check(case: &str, outputs: &[(String, Vec<u8>)]) {
    let dir = golden_dir(case);
    if blessing() {
        if dir.exists() {
            fs::remove_dir_all(&dir).unwrap();
        }
        fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in outputs {
            fs::write(dir.join(name), bytes).unwrap();
        }
        return;
    }
    let mut recorded: Vec<String> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (record it with AEROPLANE_BLESS=1)", dir.display()))
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    recorded.sort();
    let mut produced: Vec<String> = outputs.iter().map(|(n, _)| n.clone()).collect();
    produced.sort();
    let mut failures = Vec::new();
    if recorded != produced {
        failures.push(format!(
            "outputs differ: recorded {recorded:?}, produced {produced:?}"
        ));
    }
    for (name, actual) in outputs {
        let Ok(expected) = fs::read(dir.join(name)) else {
            continue;
        };
        if &expected != actual {
            failures.push(format!(
                "{name} differs at {}",
                first_difference(&expected, actual)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "golden case {case} ({}):\n  {}\nIf the change is intended: AEROPLANE_BLESS=1 cargo test golden, \
         then review git diff tests/golden.",
        dir.display(),
        failures.join("\n  ")
    );
}

/// The outputs of a command without `--out`: stdout, and stderr and the exit code when they
/// are not empty and 0.
fn stdout_outputs(out: std::process::Output, stdout: Vec<u8>) -> Vec<(String, Vec<u8>)> {
    let mut outputs = vec![("stdout.txt".to_string(), stdout)];
    if !out.stderr.is_empty() {
        outputs.push(("stderr.txt".into(), out.stderr));
    }
    let code = out.status.code().expect("exited, not killed");
    if code != 0 {
        outputs.push(("exit_code.txt".into(), format!("{code}\n").into_bytes()));
    }
    outputs
}

/// A stdout case: `args` without `--out`.
fn stdout_case(case: &str, args: &[&str]) {
    let out = aeroplane(args);
    let stdout = out.stdout.clone();
    check(case, &stdout_outputs(out, stdout));
}

/// A files case: `args --out DIR`; every file written into DIR but `run.json`.
fn files_case(case: &str, args: &[&str]) {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("out");
    let mut all = args.to_vec();
    all.extend(["--out", dir.to_str().unwrap()]);
    let out = aeroplane(&all);
    assert!(
        out.status.success(),
        "aeroplane {all:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut outputs = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let entry = entry.unwrap();
        assert!(
            entry.file_type().unwrap().is_file(),
            "{entry:?} is not a file"
        );
        let name = entry.file_name().into_string().unwrap();
        if !NOT_COMPARED.contains(&name.as_str()) {
            outputs.push((name, fs::read(entry.path()).unwrap()));
        }
    }
    check(&format!("{case}_files"), &outputs);
}

/// The deterministic part of `bench`'s stdout: every line, with the timing of each workload
/// line (`<rate> games/s  (<runs, seconds>)`) replaced by `<timing>`; the digests stay.
fn bench_lines(stdout: &[u8]) -> Vec<u8> {
    let text = std::str::from_utf8(stdout).unwrap();
    let mut kept = String::new();
    for line in text.lines() {
        match line.split_once(" games/s") {
            Some((before, after)) => {
                // The rate is the last word before ` games/s`.
                let label = before.rsplit_once(' ').map_or("", |(l, _)| l);
                let close = after.find(')').expect("timing in parentheses");
                kept.push_str(label.trim_end());
                kept.push_str(" <timing>");
                kept.push_str(&after[close + 1..]);
            }
            None => kept.push_str(line),
        }
        kept.push('\n');
    }
    kept.into_bytes()
}

// `run`: the default lineup and rules, with and without rotated seats; a three-player classic
// run; the search bots (cheap settings).

const RUN: &[&str] = &["run", "--games", "300", "-q"];
const RUN_ROTATED: &[&str] = &["run", "--games", "100", "--rotate-seats", "-q"];
const RUN_CLASSIC: &[&str] = &[
    "run",
    "--rules",
    "classic",
    "--bots",
    "greedy,random,random",
    "--games",
    "150",
    "--seed",
    "7",
    "--rotate-seats",
    "-q",
];
const RUN_SEARCH_BOTS: &[&str] = &[
    "run",
    "--rules",
    "chinese",
    "--bots",
    "expectimax,mcts:iterations=48,montecarlo:rollouts=4,greedy",
    "--games",
    "3",
    "--seed",
    "5",
    "-q",
];

#[test]
fn run_default() {
    stdout_case("run_default", RUN);
}

#[test]
fn run_default_files() {
    files_case("run_default", &[RUN, &["--per-game"]].concat());
}

#[test]
fn run_rotated() {
    stdout_case("run_rotated", RUN_ROTATED);
}

#[test]
fn run_rotated_files() {
    files_case("run_rotated", &[RUN_ROTATED, &["--per-game"]].concat());
}

#[test]
fn run_classic_three_players() {
    stdout_case("run_classic", RUN_CLASSIC);
}

#[test]
fn run_search_bots() {
    stdout_case("run_search_bots", RUN_SEARCH_BOTS);
}

// `run --sprt`: one run that stops on the test, one that reaches the game limit.

const SPRT: &[&str] = &[
    "run",
    "--bots",
    "greedy,random",
    "--sprt",
    "elo0=0,elo1=150,alpha=0.05,beta=0.05",
    "--max-games",
    "400",
    "--seed",
    "3",
    "-q",
];
const SPRT_LIMIT: &[&str] = &[
    "run",
    "--bots",
    "random,greedy",
    "--sprt",
    "elo0=0,elo1=5",
    "--max-games",
    "20",
    "-q",
];

#[test]
fn sprt() {
    stdout_case("sprt", SPRT);
}

#[test]
fn sprt_files() {
    files_case("sprt", SPRT);
}

#[test]
fn sprt_game_limit() {
    stdout_case("sprt_limit", SPRT_LIMIT);
}

// `sweep`: two varied options (four variants) and a paired comparison.

const SWEEP: &[&str] = &[
    "sweep",
    "--vary",
    "overshoot=illegal,bounce",
    "--vary",
    "launch_rolls=[6];[5,6]",
    "--bots",
    "greedy,greedy,greedy,greedy",
    "--games",
    "150",
    "--seed",
    "1",
    "--compare",
    "1,3",
    "-q",
];

#[test]
fn sweep() {
    stdout_case("sweep", SWEEP);
}

#[test]
fn sweep_files() {
    files_case("sweep", SWEEP);
}

/// Two players, rotated seats, games cut short by `max_turns` (unfinished games), a sort
/// column and `--compare` without a value.
#[test]
fn sweep_unfinished_sorted() {
    stdout_case(
        "sweep_unfinished",
        &[
            "sweep",
            "--rules",
            "classic",
            "--vary",
            "max_turns=40,10000",
            "--vary",
            "stacking=none,move_together",
            "--bots",
            "greedy,random",
            "--games",
            "100",
            "--seed",
            "9",
            "--rotate-seats",
            "--sort",
            "-turns_mean",
            "--compare",
            "-q",
        ],
    );
}

// `league`: a pool of three at four-player tables.

const LEAGUE: &[&str] = &[
    "league",
    "--bots",
    "random,greedy,expectimax",
    "--players",
    "4",
    "--games",
    "6",
    "--bootstrap",
    "100",
    "--seed",
    "1",
    "-q",
];

#[test]
fn league() {
    stdout_case("league", LEAGUE);
}

#[test]
fn league_files() {
    files_case("league", LEAGUE);
}

// `replay`: a seeded game, dice that run out (exit code 1), JSON.

#[test]
fn replay_seeded() {
    // Four greedy bots, the lineup this golden file was made with (replay's default until issue
    // 31 made it run's).
    stdout_case(
        "replay_seed",
        &[
            "replay",
            "--seed",
            "3",
            "--game",
            "0",
            "--bots",
            "greedy,greedy,greedy,greedy",
        ],
    );
}

#[test]
fn replay_dice() {
    stdout_case(
        "replay_dice",
        &["replay", "--dice", "6,3,6,6,4", "--bots", "greedy,greedy"],
    );
}

#[test]
fn replay_json() {
    stdout_case(
        "replay_json",
        &[
            "replay",
            "--rules",
            "classic",
            "--bots",
            "greedy,random,greedy",
            "--seed",
            "11",
            "--game",
            "4",
            "--json",
        ],
    );
}

#[test]
fn replay_dice_json() {
    stdout_case(
        "replay_dice_json",
        &[
            "replay",
            "--dice",
            "6,1,6,6,6,2,5",
            "--json",
            "--bots",
            "greedy,greedy,greedy,greedy",
        ],
    );
}

// `bench`: the digests (timings dropped).

#[test]
fn bench_digests() {
    let out = aeroplane(&["bench", "--games", "200", "--runs", "1", "--baseline"]);
    let stdout = bench_lines(&out.stdout);
    check("bench", &stdout_outputs(out, stdout));
}

// `rules` and `bots`.

#[test]
fn rules_classic() {
    stdout_case("rules_classic", &["rules", "classic"]);
}

#[test]
fn rules_chinese_from_a_file() {
    stdout_case("rules_chinese_file", &["rules", "configs/chinese.toml"]);
}

#[test]
fn bots() {
    stdout_case("bots", &["bots"]);
}

#[test]
fn bench_lines_drop_only_the_timings() {
    let out = b"aeroplane bench: seed 1, 5 games per workload, 1 thread(s), median of 3 run(s)\n\
        classic      greedy,random    12345 games/s  (runs 100-200, median 0.01 s)  digest 00ff\n\
        \x20                               678 games/s  (0.02 s)  bare loop, 1 thread, same digest\n\
        total                            9 games/s  (0.03 s, medians)  digest 1234\n";
    assert_eq!(
        String::from_utf8(bench_lines(out)).unwrap(),
        "aeroplane bench: seed 1, 5 games per workload, 1 thread(s), median of 3 run(s)\n\
         classic      greedy,random <timing>  digest 00ff\n\
         \x20<timing>  bare loop, 1 thread, same digest\n\
         total <timing>  digest 1234\n"
    );
}
