//! `aeroplane run --report-every N`: interim results on stderr (games so far, each bot's win
//! rate, an SPRT's LLR against its bounds), never changing stdout or the files written.
//! `--report-every 0` reports after every unit, so no test depends on timing.

use crate::common::aeroplane;

use crate::common::without_written_line;

/// Runs `args` (plus `--out`) and returns (stdout without the folder line, stderr, files).
fn run(args: &[&str]) -> (String, String, Vec<(String, Vec<u8>)>) {
    let dir = tempfile::tempdir().unwrap();
    let out = aeroplane()
        .args(args)
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success()
        .get_output()
        .clone();
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        // run.json records timings.
        .filter(|(n, _)| n != "run.json")
        .collect();
    files.sort();
    (
        without_written_line(String::from_utf8(out.stdout).unwrap()),
        String::from_utf8(out.stderr).unwrap(),
        files,
    )
}

fn interim_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("interim: "))
        .collect()
}

const RUN: &[&str] = &[
    "run",
    "--games",
    "60",
    "--bots",
    "greedy,random,random",
    "--chunk-size",
    "20",
    "--threads",
    "1",
    "--per-game",
];

#[test]
fn run_reports_after_every_unit_and_results_are_unchanged() {
    let (plain_out, plain_err, plain_files) = run(RUN);
    assert!(interim_lines(&plain_err).is_empty(), "{plain_err}");
    let with: Vec<&str> = RUN.iter().copied().chain(["--report-every", "0"]).collect();
    let (out, err, files) = run(&with);
    let lines = interim_lines(&err);
    // Three units of 20 deals: one line after each, the games counted so far.
    assert_eq!(lines.len(), 3, "{err}");
    for (k, line) in lines.iter().enumerate() {
        let games = 20 * (k + 1);
        assert!(
            line.starts_with(&format!("interim: {games} games: ")),
            "{line}"
        );
        for bot in ["0 greedy ", "1 random ", "2 random "] {
            assert!(line.contains(bot), "{line}");
        }
        assert!(line.ends_with('%'), "{line}");
    }
    assert_eq!(out, plain_out);
    assert_eq!(files, plain_files);
}

#[test]
fn sprt_reports_the_llr_against_its_bounds() {
    let args = [
        "run",
        "--bots",
        "greedy,random",
        "--sprt",
        "elo0=0,elo1=50",
        "--games",
        "400",
        "--threads",
        "1",
    ];
    let (plain_out, _, plain_files) = run(&args);
    let with: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--report-every", "0"])
        .collect();
    let (out, err, files) = run(&with);
    let lines = interim_lines(&err);
    assert!(!lines.is_empty(), "{err}");
    for line in &lines {
        assert!(
            line.contains("0 greedy ") && line.contains("1 random "),
            "{line}"
        );
        assert!(
            line.contains("; LLR ") && line.contains("(bounds -2.944, 2.944)"),
            "{line}"
        );
    }
    assert_eq!(out, plain_out);
    assert_eq!(files, plain_files);
}

#[test]
fn quiet_never_reports() {
    let with: Vec<&str> = RUN
        .iter()
        .copied()
        .chain(["--report-every", "0", "-q"])
        .collect();
    let (_, err, _) = run(&with);
    assert!(interim_lines(&err).is_empty(), "{err}");
}

#[test]
fn resume_reports_counting_the_units_done_before() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r");
    aeroplane()
        .args(RUN)
        .arg("--out")
        .arg(&out)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "1")
        .assert()
        .code(130);
    let err = aeroplane()
        .args(["resume", "--report-every", "0"])
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8(err).unwrap();
    let lines = interim_lines(&err);
    // Units 2 and 3 are played here; the tally includes unit 1.
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("interim: 40 games: "), "{err}");
    assert!(lines[1].starts_with("interim: 60 games: "), "{err}");
}
