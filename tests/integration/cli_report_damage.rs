//! Reports of damaged folders (issue 22, items 6-8): a table emptied, garbled, cut short,
//! holding values no job writes (up to ±1e308), or far larger than any job writes. Each report
//! finishes, in bounded time and memory, and says what is wrong at the top of the page; it
//! never shows such a table as sound. One test per kind of damage.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::cargo::cargo_bin_cmd;
use tempfile::TempDir;

fn aeroplane() -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("aeroplane");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    // A guard against a hang (the report used to loop for ever), not a claim about speed.
    cmd.timeout(Duration::from_secs(600));
    cmd
}

/// Runs a job into `dir/name` and returns the folder.
fn job(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let out = dir.join(name);
    aeroplane()
        .args(args)
        .args(["--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    out
}

/// `aeroplane report DIR`: succeeds; returns the page's problems (the list at its top) and the
/// whole page.
fn report(dir: &Path) -> (Vec<String>, String) {
    let out = aeroplane().arg("report").arg(dir).assert().success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .expect("the page is well-formed XHTML");
    let problems: Vec<String> = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("problems"))
        .map(|div| {
            div.descendants()
                .filter(|n| n.tag_name().name() == "li")
                .map(|li| li.text().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default();
    // stderr says it too, once per problem.
    for p in &problems {
        assert!(stderr.contains(p.as_str()), "{p} not on stderr: {stderr}");
    }
    (problems, html)
}

fn has(problems: &[String], words: &[&str]) -> bool {
    problems.iter().any(|p| words.iter().all(|w| p.contains(w)))
}

/// Replaces the cells of `column` in `file`'s row `row` (1-based) by `value`.
fn set_cell(dir: &Path, file: &str, row: usize, column: &str, value: &str) {
    let path = dir.join(file);
    let text = fs::read_to_string(&path).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let i = header.iter().position(|h| *h == column).unwrap();
    let mut cells: Vec<String> = lines[row].split(',').map(String::from).collect();
    cells[i] = value.to_string();
    lines[row] = cells.join(",");
    fs::write(&path, lines.join("\n") + "\n").unwrap();
}

fn run_folder(tmp: &TempDir) -> PathBuf {
    job(
        tmp.path(),
        "run",
        &["run", "--games", "200", "--rotate-seats", "--seed", "2"],
    )
}

#[test]
fn an_emptied_table_is_named_and_left_out() {
    let tmp = TempDir::new().unwrap();
    let dir = run_folder(&tmp);
    fs::write(dir.join("summary.csv"), "").unwrap();
    fs::write(dir.join("seats.csv"), "seat,colour,games,wins,win_rate\n").unwrap();
    let (problems, html) = report(&dir);
    assert!(has(&problems, &["summary.csv is empty"]), "{problems:?}");
    assert!(
        has(&problems, &["seats.csv has a header but no rows"]),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["seats", "0 rows", "4 players"]),
        "{problems:?}"
    );
    assert!(html.contains("No bot figures"), "the page does not pretend");
}

#[test]
fn garbled_cells_are_named_and_never_shown_as_figures() {
    let tmp = TempDir::new().unwrap();
    let dir = run_folder(&tmp);
    set_cell(&dir, "summary.csv", 1, "win_rate", "abc");
    set_cell(&dir, "summary.csv", 2, "wins", "-3");
    set_cell(&dir, "seats.csv", 1, "win_rate", "0.9");
    let (problems, html) = report(&dir);
    assert!(
        has(
            &problems,
            &[
                "summary.csv row 1",
                "`win_rate` is `abc`",
                "a share from 0 to 1"
            ]
        ),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["summary.csv row 2", "`wins` is `-3`"]),
        "{problems:?}"
    );
    // A valid-looking but wrong rate: its wins say otherwise.
    assert!(
        has(&problems, &["seats.csv row 1", "win_rate 0.9 is not"]),
        "{problems:?}"
    );
    // Not "0.00%" for the garbled rate.
    assert!(
        html.contains("<td class=\"n\">?</td>"),
        "a bad cell shows as ?"
    );
}

#[test]
fn tables_that_disagree_with_summary_json_and_the_manifest_are_named() {
    let tmp = TempDir::new().unwrap();
    let dir = run_folder(&tmp);
    // Consistent within the row (the rate is wins / games), but not with the rest.
    set_cell(&dir, "summary.csv", 1, "wins", "0");
    set_cell(&dir, "summary.csv", 1, "win_rate", "0.000000");
    set_cell(&dir, "summary.csv", 1, "win_lo95", "0.000000");
    set_cell(&dir, "summary.csv", 1, "win_hi95", "0.010000");
    set_cell(&dir, "events.csv", 1, "total", "5");
    let (problems, _) = report(&dir);
    assert!(
        has(
            &problems,
            &["summary.csv row 1's wins", "summary.json says"]
        ),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["the total of wins", "seats.csv says"]),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["events.csv row 1", "is not 5 / 800"]),
        "{problems:?}"
    );
}

#[test]
fn a_table_cut_short_is_named() {
    let tmp = TempDir::new().unwrap();
    let dir = run_folder(&tmp);
    let text = fs::read_to_string(dir.join("summary.csv")).unwrap();
    // Cut in the middle of the third row.
    let cut = text.lines().take(3).collect::<Vec<_>>().join("\n");
    fs::write(dir.join("summary.csv"), &cut[..cut.len() - 20]).unwrap();
    let lengths = fs::read_to_string(dir.join("lengths.csv")).unwrap();
    fs::write(dir.join("lengths.csv"), &lengths[..lengths.len() / 4]).unwrap();
    let (problems, _) = report(&dir);
    assert!(
        has(
            &problems,
            &["summary.csv", "do not have the header's 15 fields"]
        ),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["bots", "summary.csv says 2 rows", "4 players"]),
        "{problems:?}"
    );
    assert!(
        has(
            &problems,
            &["the games counted by length", "lengths.csv says"]
        ),
        "{problems:?}"
    );
}

/// Item 6: a league.csv row set to `1e308,-1e308,1e308` made the report loop for ever.
#[test]
fn overflowing_ratings_are_named_and_not_drawn() {
    let tmp = TempDir::new().unwrap();
    let dir = job(
        tmp.path(),
        "league",
        &[
            "league",
            "--bots",
            "random,greedy",
            "--players",
            "2",
            "--games",
            "20",
            "--bootstrap",
            "100",
        ],
    );
    set_cell(&dir, "league.csv", 1, "rating", "1e308");
    set_cell(&dir, "league.csv", 1, "rating_lo95", "-1e308");
    set_cell(&dir, "league.csv", 1, "rating_hi95", "1e308");
    set_cell(&dir, "pairs.csv", 1, "score", "1e308");
    let (problems, _) = report(&dir);
    assert!(
        has(&problems, &["league.csv row 1", "`rating` is `1e308`"]),
        "{problems:?}"
    );
    assert!(
        has(
            &problems,
            &["rating", "league.csv says", "summary.json says"]
        ),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["pairs.csv row 1", "`score` is `1e308`"]),
        "{problems:?}"
    );
}

/// Item 6: a sweep's turns_mean at ±1e308, and an SPRT's bounds and path at ±1e308.
#[test]
fn overflowing_sweep_and_sprt_values_are_named_and_not_drawn() {
    let tmp = TempDir::new().unwrap();
    let sweep = job(
        tmp.path(),
        "sweep",
        &[
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--games",
            "40",
            "--compare",
            "1,2",
        ],
    );
    set_cell(&sweep, "sweep.csv", 1, "turns_mean", "1e308");
    set_cell(&sweep, "sweep.csv", 2, "turns_mean", "-1e308");
    set_cell(&sweep, "effects.csv", 1, "mean", "-1e308");
    let (problems, _) = report(&sweep);
    assert!(
        has(&problems, &["sweep.csv row 1", "`turns_mean` is `1e308`"]),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["sweep.csv row 2", "`turns_mean` is `-1e308`"]),
        "{problems:?}"
    );
    assert!(
        has(&problems, &["effects.csv row 1", "`mean` is `-1e308`"]),
        "{problems:?}"
    );

    let sprt = job(
        tmp.path(),
        "sprt",
        &[
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=50",
            "--max-games",
            "200",
        ],
    );
    let path = sprt.join("summary.json");
    let mut s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    s["report"]["sprt"]["upper"] = serde_json::json!(1e308);
    s["report"]["sprt"]["lower"] = serde_json::json!(-1e308);
    s["report"]["path"][0][1] = serde_json::json!(1e308);
    fs::write(&path, serde_json::to_string(&s).unwrap()).unwrap();
    let (problems, _) = report(&sprt);
    assert!(
        has(&problems, &["upper bound", "1e308"]) || has(&problems, &["upper bound", "100000000"]),
        "{problems:?}"
    );
    assert!(has(&problems, &["LLR path", "1 point"]), "{problems:?}");
}

/// Item 8: a table or summary.json larger than any job writes is named and left out (a
/// sparse file: no disk is used).
#[test]
fn oversized_files_are_named_and_left_out() {
    let tmp = TempDir::new().unwrap();
    let dir = run_folder(&tmp);
    fs::File::create(dir.join("seats.csv"))
        .unwrap()
        .set_len(300 << 20)
        .unwrap();
    fs::File::create(dir.join("summary.json"))
        .unwrap()
        .set_len(100 << 20)
        .unwrap();
    let (problems, _) = report(&dir);
    assert!(
        has(
            &problems,
            &["seats.csv is 300 MiB", "larger than any job writes"]
        ),
        "{problems:?}"
    );
    assert!(
        has(
            &problems,
            &["summary.json is 100 MiB", "larger than any job writes"]
        ),
        "{problems:?}"
    );
}

/// Item 8: lengths.csv grows with the run and is streamed: a 100 MB one is reported under a
/// 512 MiB address-space limit (it took 2.4 GB when every cell was a string in memory).
#[test]
fn a_large_lengths_table_is_streamed_in_bounded_memory() {
    let tmp = TempDir::new().unwrap();
    let dir = run_folder(&tmp);
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(fs::File::create(dir.join("lengths.csv")).unwrap());
        writeln!(w, "measure,value,games").unwrap();
        for v in 0..7_000_000u64 {
            writeln!(w, "turns,{v},1").unwrap();
        }
    }
    assert!(fs::metadata(dir.join("lengths.csv")).unwrap().len() > 100_000_000);
    let bin = assert_cmd::cargo::cargo_bin!("aeroplane");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 524288 && exec '{}' report '{}'",
            bin.display(),
            dir.display()
        ))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(
        html.contains("the games counted by length"),
        "7,000,000 games, not 800"
    );
}

/// A summary.json of a 256-bot league is about 15 MB: the report reads it (it refused
/// anything over 4 MiB).
#[test]
fn a_large_summary_json_of_the_tools_own_is_read() {
    let tmp = TempDir::new().unwrap();
    let dir = job(
        tmp.path(),
        "league",
        &[
            "league",
            "--bots",
            "random,greedy",
            "--players",
            "2",
            "--games",
            "10",
            "--bootstrap",
            "100",
        ],
    );
    // Pad summary.json to 20 MB with a field a report does not read.
    let path = dir.join("summary.json");
    let mut s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    s["report"]["padding"] = serde_json::json!("x".repeat(20 << 20));
    fs::write(&path, serde_json::to_string(&s).unwrap()).unwrap();
    let (problems, html) = report(&dir);
    assert!(problems.is_empty(), "{problems:?}");
    assert!(html.contains("Ratings"));
}

/// Random damage of every kind, many times over the files of a run, a sweep and a league: the
/// report is always made (or refused with an error), never a panic or a hang.
#[test]
fn random_damage_never_panics_the_report() {
    let tmp = TempDir::new().unwrap();
    let folders = [
        run_folder(&tmp),
        job(
            tmp.path(),
            "sweep",
            &[
                "sweep",
                "--vary",
                "overshoot=illegal,bounce",
                "--games",
                "20",
                "--compare",
                "1,2",
            ],
        ),
        job(
            tmp.path(),
            "league",
            &[
                "league",
                "--bots",
                "random,greedy,expectimax:depth=1",
                "--games",
                "6",
                "--bootstrap",
                "100",
            ],
        ),
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    const JUNK: [&str; 10] = [
        "1e308",
        "-1e308",
        "inf",
        "NaN",
        "18446744073709551615",
        "",
        "\"",
        ",,,",
        "-0",
        "1e-400",
    ];
    for (k, folder) in folders.iter().enumerate() {
        let pristine: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(folder)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "csv" || x == "json"))
            .map(|p| {
                let b = fs::read(&p).unwrap();
                (p, b)
            })
            .collect();
        for round in 0..60 {
            for (p, b) in &pristine {
                fs::write(p, b).unwrap();
            }
            for _ in 0..1 + next(3) {
                let (path, bytes) = &pristine[next(pristine.len())];
                let mut b = bytes.clone();
                match next(4) {
                    0 => b.truncate(next(b.len().max(1))),
                    1 => {
                        let at = next(b.len().max(1));
                        b.splice(at..at, JUNK[next(JUNK.len())].bytes());
                    }
                    2 => {
                        // A cell (or JSON number) replaced by junk.
                        let text = String::from_utf8_lossy(&b).into_owned();
                        let starts: Vec<usize> =
                            text.match_indices([',', ':']).map(|(i, _)| i + 1).collect();
                        if let Some(&s) = starts.get(next(starts.len().max(1))) {
                            let end = text[s..]
                                .find([',', '\n', '}'])
                                .map_or(text.len(), |e| s + e);
                            let mut t = text.clone();
                            t.replace_range(s..end, JUNK[next(JUNK.len())]);
                            b = t.into_bytes();
                        }
                    }
                    _ => b.clear(),
                }
                fs::write(path, b).unwrap();
            }
            let result = std::panic::catch_unwind(|| aeroplane::report::render(folder));
            assert!(
                result.is_ok(),
                "folder {k}, round {round}: the report panicked"
            );
        }
    }
}
