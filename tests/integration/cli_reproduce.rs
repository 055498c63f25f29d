//! "The command that made these results" (issue 22, item 9): the report generates it from the
//! typed manifest, and running it (or `--manifest`, now for sweeps and leagues too) makes the
//! folder again. It was wrong three ways: an inline `[rules]` table printed `--rules inline
//! rules of cfg.toml`, `league --bootstrap 20` lost `--bootstrap`, and sweeps lost `--sort`.

use crate::common::aeroplane_in;
use std::fs;
use std::path::Path;

use tempfile::TempDir;

/// The text of the element with this id in a report page.
fn by_id(html: &str, id: &str) -> Option<String> {
    let doc = roxmltree::Document::parse_with_options(
        html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let node = doc.descendants().find(|n| n.attribute("id") == Some(id))?;
    Some(
        node.descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .collect::<String>(),
    )
}

/// Splits a shell line into words (single quotes, as the report writes them).
fn words(line: &str) -> Vec<String> {
    let (mut out, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            '\\' if !quoted => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            ' ' if !quoted => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}

/// Every file of a folder but report.html and hidden ones, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v = crate::common::files(dir);
    v.retain(|(n, _)| dir.join(n).is_file() && n != "report.html" && !n.starts_with('.'));
    v
}

/// Runs `args` into `cwd/first` with --report, runs the page's command into `cwd/second` (with
/// the rules file it asks for), and `--manifest` into `cwd/third`; compares the folders.
/// `same_titles`: whether the rules name (in titles and run.json) stays the same.
fn reproduces(cwd: &Path, args: &[&str], same_titles: bool) -> String {
    let first = cwd.join("first");
    aeroplane_in(cwd)
        .args(args)
        .args(["--quiet", "--report", "--out"])
        .arg(&first)
        .assert()
        .success();
    let html = fs::read_to_string(first.join("report.html")).unwrap();
    let command = by_id(&html, "command").expect("the page shows the command");
    if let Some(rules) = by_id(&html, "rules-file") {
        fs::write(cwd.join("RULES.toml"), rules).unwrap();
    }
    let mut w = words(&command);
    assert_eq!(w[0], "aeroplane");
    assert_eq!(w.last().map(String::as_str), Some("DIR"));
    *w.last_mut().unwrap() = "second".into();
    aeroplane_in(cwd)
        .args(&w[1..])
        .arg("--quiet")
        .assert()
        .success();
    let manifest = by_id(&html, "manifest-command").unwrap();
    let mut m = words(&manifest);
    *m.last_mut().unwrap() = "third".into();
    aeroplane_in(cwd)
        .args(&m[1..])
        .arg("--quiet")
        .assert()
        .success();
    let (a, b, c) = (
        files(&first),
        files(&cwd.join("second")),
        files(&cwd.join("third")),
    );
    // --manifest: every file the same, run.json included.
    assert_eq!(a, c, "--manifest reproduces every file");
    // The command: every table the same; summary.json and run.json too where the rules keep
    // their name.
    let names = |v: &[(String, Vec<u8>)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b));
    for ((n, x), (_, y)) in a.iter().zip(&b) {
        if same_titles || n.ends_with(".csv") {
            assert!(x == y, "{n} differs: {command}");
        }
    }
    command
}

#[test]
fn a_run_with_inline_rules_is_reproduced_from_a_rules_file() {
    let tmp = TempDir::new().unwrap();
    fs::write(
        tmp.path().join("cfg.toml"),
        "bots = \"greedy,random\"\ngames = 40\nseed = 9\nrotate_seats = true\nper_game = true\n\n[rules]\nbase = \"classic\"\novershoot = \"bounce\"\n",
    )
    .unwrap();
    let command = reproduces(tmp.path(), &["run", "--config", "cfg.toml"], false);
    assert!(command.contains("--rules RULES.toml"), "{command}");
    assert!(!command.contains("inline rules"), "{command}");
    assert!(
        command.contains("--rotate-seats") && command.contains("--per-game"),
        "{command}"
    );
}

#[test]
fn a_league_keeps_its_bootstrap() {
    let tmp = TempDir::new().unwrap();
    let command = reproduces(
        tmp.path(),
        &[
            "league",
            "--bots",
            "random,greedy",
            "--players",
            "2",
            "--games",
            "15",
            "--bootstrap",
            "120",
            "--seed",
            "4",
        ],
        true,
    );
    assert!(command.contains("--bootstrap 120"), "{command}");
}

#[test]
fn a_sweep_keeps_its_sort_and_comparison() {
    let tmp = TempDir::new().unwrap();
    let command = reproduces(
        tmp.path(),
        &[
            "sweep",
            "--rules",
            "chinese",
            "--vary",
            "launch_rolls=[6];[5,6]",
            "--bots",
            "greedy,greedy",
            "--games",
            "30",
            "--rotate-seats",
            "--compare",
            "1,2",
            "--sort=-turns_mean",
        ],
        true,
    );
    assert!(command.contains("--sort=-turns_mean"), "{command}");
    // run.json records that the job wrote its page: so does the command.
    assert!(command.contains(" --report --out DIR"), "{command}");
    assert!(command.contains("'launch_rolls=[6];[5,6]'"), "{command}");
    assert!(command.contains("--compare 1,2"), "{command}");
}

#[test]
fn a_sweep_of_presets_is_reproduced_without_rules() {
    let tmp = TempDir::new().unwrap();
    let command = reproduces(
        tmp.path(),
        &[
            "sweep",
            "--vary",
            "base=classic,chinese",
            "--vary",
            "overshoot=illegal,bounce",
            "--bots",
            "greedy,random",
            "--games",
            "20",
            "--compare",
            "base=chinese overshoot=illegal,base=classic overshoot=illegal",
        ],
        true,
    );
    // Each variant's rules are its preset's: a --rules would be refused with the axis.
    assert!(!command.contains("--rules"), "{command}");
    assert!(
        command.contains("--vary base=classic,chinese --vary overshoot=illegal,bounce"),
        "{command}"
    );
    assert!(command.contains("--compare 3,1"), "{command}");
}

#[test]
fn an_sprt_is_reproduced() {
    let tmp = TempDir::new().unwrap();
    let command = reproduces(
        tmp.path(),
        &[
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=40",
            "--max-games",
            "300",
            "--seed",
            "5",
        ],
        true,
    );
    assert!(
        command.contains("--sprt elo0=0,elo1=40,alpha=0.05,beta=0.05"),
        "{command}"
    );
}

/// `sweep --manifest` and `league --manifest` take overrides from the command line like `run
/// --manifest`, and refuse a manifest of another kind of job.
#[test]
fn manifests_layer_under_the_command_line() {
    let tmp = TempDir::new().unwrap();
    let cwd = tmp.path();
    aeroplane_in(cwd)
        .args([
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--games",
            "10",
            "-q",
            "--out",
            "s",
        ])
        .assert()
        .success();
    let out = aeroplane_in(cwd)
        .args(["sweep", "--manifest", "s/run.json", "--games", "12"])
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("12 deals each"), "{stdout}");
    aeroplane_in(cwd)
        .args(["league", "--manifest", "s/run.json"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("describes a sweep, not a league"));
}
