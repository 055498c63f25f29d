//! Issue 48, items 4, 5, 7, 9 and 19: a grade's lifecycle. A stop lands inside the game in
//! flight, for any signal and for log grades too, and is an interrupt (not a failure) with bot
//! programs; a grade's checkpoint and memory do not grow with its deals; a log cut short is
//! refused as `replay --check` refuses it; the printed commands name a bot given by its path
//! as given, and run.

use crate::common::aeroplane;
use std::path::{Path, PathBuf};

use tempfile::TempDir;

const NET_2P: &str = "bots/nets/td-classic-2p.safetensors";

/// Solves classic with one plane into `dir/classic-1`.
fn classic_table(dir: &Path) -> PathBuf {
    let table = dir.join("classic-1");
    aeroplane()
        .args([
            "solve", "--rules", "classic", "--planes", "1", "-q", "--out",
        ])
        .arg(&table)
        .assert()
        .success();
    table
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The files of a complete grade, as those of `want`.
fn same_files(want: &Path, got: &Path) {
    for file in ["grade.json", "grade.csv", "blunders.csv"] {
        assert_eq!(
            std::fs::read(want.join(file)).unwrap(),
            std::fs::read(got.join(file)).unwrap(),
            "{file} of {}",
            got.display()
        );
    }
    assert!(!got.join("grade.checkpoint").exists());
}

fn resume(dir: &Path) -> (Option<i32>, String) {
    let out = aeroplane()
        .args(["resume", "-q"])
        .arg(dir)
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// Item 4: a signal after the first game of a deal stops the second game at its first
/// decision (it was played to its end, and the grade went on to the end of the deal): nothing
/// of the deal is kept, and the resume plays it again to the files of an uninterrupted grade.
#[test]
fn a_grade_stops_inside_the_game_in_flight_and_resumes_identically() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let args = |out: &Path| {
        let mut a = aeroplane();
        a.args(["grade", "--table"])
            .arg(&table)
            .args(["--bots", "random,greedy", "--games", "12"])
            .args(["--chunk-size", "4", "--threads", "1", "-q", "--out"])
            .arg(out);
        a
    };
    let whole = tmp.path().join("whole");
    args(&whole).assert().success();
    for signal in ["INT", "TERM", "HUP"] {
        let dir = tmp.path().join(signal);
        let out = args(&dir)
            .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "1")
            .env("AEROPLANE_TEST_SIGNAL", signal)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(130), "{signal}: {err}");
        assert!(
            err.contains("interrupted after 0 of 48 games") && err.contains("aeroplane resume"),
            "{signal}: {err}"
        );
        let status = json(&dir.join("grade.json"));
        assert_eq!(status["status"], "interrupted", "{signal}");
        assert_eq!(
            status["games_played"], 0,
            "{signal}: the deal in flight is not kept"
        );
        let (code, err) = resume(&dir);
        assert_eq!(code, Some(0), "{err}");
        same_files(&whole, &dir);
    }
}

/// Item 4: a grade against a net at ply 2 (a second or more per game) stops at the next
/// decision too, not at the end of the deal.
#[test]
fn a_net_grade_at_ply_2_stops_at_the_next_decision() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("stopped");
    let out = aeroplane()
        .args(["grade", "--net", NET_2P, "--ply", "2", "--bots", "greedy"])
        .args(["--games", "2", "--chunk-size", "1", "--threads", "1", "-q"])
        .arg("--out")
        .arg(&dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "1")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted after 0 of 4 games"), "{err}");
    let status = json(&dir.join("grade.json"));
    assert_eq!(status["status"], "interrupted");
    assert_eq!(status["games_played"], 0);
}

/// A run of `bots` (seats rotated) with its decision log: the log's path.
fn logged_run(dir: &Path, rules: &Path, bots: &str, games: &str) -> PathBuf {
    let out = dir.join("run");
    aeroplane()
        .arg("run")
        .arg("--rules")
        .arg(rules)
        .args(["--bots", bots, "--games", games, "--seed", "7"])
        .args(["--rotate-seats", "-q", "--log-games", "g.jsonl", "--out"])
        .arg(&out)
        .assert()
        .success();
    out.join("g.jsonl")
}

/// Item 4: a log grade handled no signal: SIGINT, SIGTERM and SIGHUP ended it at once with no
/// word and nothing in its folder. Now each stops it, says so, leaves `interrupted` in
/// grade.json, and `aeroplane resume` finishes it to the files of an uninterrupted grade.
#[test]
fn a_log_grade_stops_on_every_signal_and_resumes_identically() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let exact = format!("exact:table={}", table.display());
    let log = logged_run(
        tmp.path(),
        &table.join("rules.toml"),
        &format!("random,{exact}"),
        "40",
    );
    let args = |out: &Path| {
        let mut a = aeroplane();
        a.args(["grade", "-q", "--table"])
            .arg(&table)
            .arg("--log")
            .arg(&log)
            .arg("--out")
            .arg(out);
        a
    };
    let whole = tmp.path().join("whole");
    args(&whole).assert().success();
    for signal in ["INT", "TERM", "HUP"] {
        let dir = tmp.path().join(signal);
        let out = args(&dir)
            .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "3")
            .env("AEROPLANE_TEST_SIGNAL", signal)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(130), "{signal}: {err}");
        assert!(
            err.contains("interrupted") && err.contains("aeroplane resume"),
            "{signal}: {err}"
        );
        let status = json(&dir.join("grade.json"));
        assert_eq!(status["status"], "interrupted", "{signal}");
        assert!(status["job"]["log"].as_str().unwrap().ends_with("g.jsonl"));
        assert!(!dir.join("grade.csv").exists());
        let (code, err) = resume(&dir);
        assert_eq!(code, Some(0), "{signal}: {err}");
        same_files(&whole, &dir);
        let (code, err) = resume(&dir);
        assert_eq!(code, Some(2));
        assert!(err.contains("complete grade: nothing to resume"), "{err}");
    }
}

/// Item 9: a stop of a grade of a bot program was a failure ("error: interrupted", exit 2,
/// `failed`); it is an interrupt as with built-in bots, and resumes identically.
#[test]
fn a_stopped_grade_of_a_bot_program_is_interrupted_not_failed() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let args = |out: &Path| {
        let mut a = aeroplane();
        a.args(["grade", "--table"])
            .arg(&table)
            .args(["--bots", "bots/examples/greedy-py.toml", "--games", "4"])
            .args(["--chunk-size", "2", "--threads", "1", "-q", "--out"])
            .arg(out);
        a
    };
    let whole = tmp.path().join("whole");
    args(&whole).assert().success();
    let dir = tmp.path().join("stopped");
    let out = args(&dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "3")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(!err.contains("error:"), "{err}");
    assert!(err.contains("aeroplane resume"), "{err}");
    let status = json(&dir.join("grade.json"));
    assert_eq!(status["status"], "interrupted");
    assert_eq!(status["games_played"], 2);
    let (code, err) = resume(&dir);
    assert_eq!(code, Some(0), "{err}");
    same_files(&whole, &dir);
}

/// Item 9, with a real Ctrl-C while the grade waits for a bot program that hangs (the wait
/// gives up): that was "error: interrupted", exit 2 and `failed`.
#[test]
fn ctrl_c_while_a_bot_program_hangs_interrupts_the_grade() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let marks = tmp.path().join("marks");
    std::fs::create_dir(&marks).unwrap();
    let fifo = marks.join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let profile = tmp.path().join("hang.toml");
    std::fs::write(
        &profile,
        format!(
            "kind = \"external\"\ncommand = [\"python3\", \"tests/bots/faulty.py\", \"hang\", {:?}, \"1\"]\ntimeout_ms = 600000\n",
            marks.display().to_string()
        ),
    )
    .unwrap();
    let dir = tmp.path().join("stopped");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_aeroplane"));
    // SAFETY: between fork and exec, only resets a signal's disposition (this test may run
    // with SIGINT ignored, as a background job).
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let child = cmd
        .args(["grade", "--table"])
        .arg(&table)
        .arg("--bots")
        .arg(&profile)
        .args(["--games", "200", "--threads", "1", "-q", "--out"])
        .arg(&dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Should the grade end before its bot hangs, this says so through the fifo rather than
    // leave the read below waiting for ever.
    let (tx, rx) = std::sync::mpsc::channel();
    let watch_fifo = fifo.clone();
    std::thread::spawn(move || {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let out = child.wait_with_output().unwrap();
        if let Ok(mut w) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&watch_fifo)
        {
            let _ = w.write_all(b"the grade ended\n");
        }
        tx.send(out).unwrap();
    });
    let said = std::fs::read_to_string(&fifo).unwrap();
    assert_eq!(said, "hanging\n");
    // SAFETY: signals our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let out = rx.recv().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(!err.contains("error:"), "{err}");
    assert!(err.contains("aeroplane resume"), "{err}");
    let status = json(&dir.join("grade.json"));
    assert_eq!(status["status"], "interrupted");
    assert_eq!(status["error"], serde_json::Value::Null);
}

/// Item 5: the checkpoint kept every unit's deals (about 150 bytes a deal, 750 a unit of one
/// deal here: 30 MB after 40,000 units). Now it is written again, compacted, once it reaches
/// 4 MiB: stopped after 40,000 units it holds the sums and the units after the last
/// compaction, under 6 MiB; a grade resumed from it ends with the files of an uninterrupted
/// grade.
#[test]
fn a_grades_checkpoint_does_not_grow_with_its_deals() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let args = |out: &Path| {
        let mut a = aeroplane();
        a.args(["grade", "--table"])
            .arg(&table)
            .args(["--bots", "random", "--games", "42000"])
            .args(["--chunk-size", "1", "--threads", "1", "-q", "--out"])
            .arg(out);
        a
    };
    // A unit's deals are kept until it is folded: a unit larger than 65,536 deals is refused.
    aeroplane()
        .args(["grade", "--table"])
        .arg(&table)
        .args(["--bots", "random", "--chunk-size", "65537"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "chunk size 65537: give 1 to 65536 deals per unit",
        ));
    let whole = tmp.path().join("whole");
    args(&whole).assert().success();
    let dir = tmp.path().join("stopped");
    args(&dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "40000")
        .assert()
        .code(130);
    let status = json(&dir.join("grade.json"));
    assert_eq!(status["status"], "interrupted");
    assert_eq!(status["games_played"], 80_000);
    let size = std::fs::metadata(dir.join("grade.checkpoint"))
        .unwrap()
        .len();
    assert!(
        size < 6 << 20,
        "the checkpoint grows with the deals: {size} bytes after 40,000 units"
    );
    let (code, err) = resume(&dir);
    assert_eq!(code, Some(0), "{err}");
    same_files(&whole, &dir);
}

/// Item 5: a grade of a million deals lived in memory that grew 1.5 KB a deal; under an
/// address-space limit it now plays far past where that ran out (stopped by a signal after
/// 200,000 games: it took 185 MB, and failed under 256 MB).
#[test]
fn a_grade_plays_in_bounded_memory() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let dir = tmp.path().join("big");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_aeroplane"));
    cmd.args(["grade", "--table"])
        .arg(&table)
        .args([
            "--bots",
            "greedy",
            "--games",
            "1000000",
            "--threads",
            "1",
            "-q",
        ])
        .arg("--out")
        .arg(&dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "200000");
    // SAFETY: between fork and exec, only sets a resource limit of the child.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: LIMIT,
                rlim_max: LIMIT,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    let status = json(&dir.join("grade.json"));
    assert_eq!(status["status"], "interrupted");
    assert!(status["games_played"].as_u64().unwrap() >= 200_000);
}

/// The address-space limit of [`a_grade_plays_in_bounded_memory`].
const LIMIT: libc::rlim_t = 160 << 20;

/// Item 7: a log missing its last games (cut at a game's end) was graded as if whole; it is
/// refused as `replay --check` refuses it, naming the file and the games missing.
#[test]
fn a_log_cut_short_is_refused_as_replay_check_refuses_it() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let exact = format!("exact:table={}", table.display());
    let log = logged_run(
        tmp.path(),
        &table.join("rules.toml"),
        &format!("random,{exact}"),
        "20",
    );
    // Cut after game 29's last line: games 30..40 are missing.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut kept = String::new();
    let mut last_of_29 = None;
    for (i, line) in text.lines().enumerate() {
        if line.contains("\"game\":29,") || line.contains("\"game\":29}") {
            last_of_29 = Some(i);
        }
    }
    let last = last_of_29.expect("game 29 is logged");
    for line in text.lines().take(last + 1) {
        kept.push_str(line);
        kept.push('\n');
    }
    let cut = tmp.path().join("cut.jsonl");
    std::fs::write(&cut, kept).unwrap();
    let want =
        "the log ends before game 30: its header promises games 0..40 (40 games), it holds 30";
    let replay = aeroplane()
        .args(["replay", "--check", "--log"])
        .arg(&cut)
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&replay.stderr).contains(want));
    let dir = tmp.path().join("graded");
    let out = aeroplane()
        .args(["grade", "-q", "--table"])
        .arg(&table)
        .arg("--log")
        .arg(&cut)
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(want) && err.contains("cut.jsonl"), "{err}");
    assert!(out.stdout.is_empty());
    assert_eq!(json(&dir.join("grade.json"))["status"], "failed");
    // The whole log is graded.
    aeroplane()
        .args(["grade", "-q", "--table"])
        .arg(&table)
        .arg("--log")
        .arg(&log)
        .assert()
        .success();
}

/// Item 19: a bot given by its profile's path was printed by its profile name in the
/// reproduce commands of grade (stdout, grade.json) and of the run report, which then failed
/// "unknown bot". They name it as given, and run as printed.
#[test]
fn printed_commands_name_a_bot_given_by_path_as_given_and_run() {
    let tmp = TempDir::new().unwrap();
    let table = classic_table(tmp.path());
    let profile = tmp.path().join("safe.toml");
    std::fs::write(&profile, "kind = \"greedy\"\n").unwrap();
    let given = profile.display().to_string();
    let dir = tmp.path().join("graded");
    let out = aeroplane()
        .args(["grade", "-q", "--table"])
        .arg(&table)
        .args([
            "--bots",
            &format!("{given},random"),
            "--games",
            "3",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let report = json(&dir.join("grade.json"));
    let command = report["reproduce"][0].as_str().unwrap();
    assert!(
        command.contains(&format!("--bots {given},exact:table=")),
        "{command}"
    );
    assert!(stdout.contains(command), "{stdout}");
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    aeroplane()
        .args(&words)
        .args(["-q", "--out"])
        .arg(tmp.path().join("again"))
        .assert()
        .success();
    // The run report's command.
    let run = tmp.path().join("run");
    aeroplane()
        .args(["run", "--bots", &format!("{given},random"), "--games", "4"])
        .args(["-q", "--report", "--out"])
        .arg(&run)
        .assert()
        .success();
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    let start = html.find("<pre id=\"command\">").expect("a command") + 18;
    let end = start + html[start..].find("</pre>").unwrap();
    let command = html[start..end]
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'");
    assert!(
        command.contains(&format!("--bots {given},random")),
        "{command}"
    );
    let words: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(|w| w.replace("DIR", &tmp.path().join("run-again").display().to_string()))
        .collect();
    aeroplane().args(&words).arg("-q").assert().success();
}
