//! `aeroplane train` as a job (issue 48, items 1, 2, 3 and the train halves of 8 and 21): a
//! thread count refused as `run` and `grade` refuse it; a bot program that fails in the
//! evaluation fails the training with a clear error, `failed` in train.json and a resume that
//! goes on from the checkpoint; Ctrl-C of a training against a bot program stops cleanly and
//! resumes to the same bytes; a resume against an opponent that changed is refused; the docs'
//! recipe for a full-strength net is the shipped nets' and the report explains the TD error.
//!
//! Bot programs are `tests/bots/faulty.py MODE DIR` (see tests/external.rs): each process
//! writes `DIR/pid-<pid>` and carries DIR in its command line, so a test can tell that none is
//! left.

use crate::common::{aeroplane, files};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// A short training against `--opponent` (4 batches of 8 games, evaluations at games 16 and
/// 32 of 4 deals each).
const SHORT: &[&str] = &[
    "train",
    "--rules",
    "classic",
    "--planes",
    "2",
    "--games",
    "32",
    "--batch",
    "8",
    "--hidden",
    "16",
    "--eval-every",
    "16",
    "--eval-deals",
    "4",
    "--seed",
    "3",
    "-q",
];

/// Writes `dir/<name>.toml`, a profile running faulty.py in `mode` (its fault at the first
/// decision) with its process marks in `dir/marks`, plus `extra` TOML lines. Its timeouts are
/// five minutes unless `extra` sets `timeout_ms`: a loaded machine must not make a good bot
/// time out.
fn faulty(dir: &Path, name: &str, mode: &str, extra: &str) -> PathBuf {
    let marks = marks(dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bots/faulty.py");
    let timeout = if extra.contains("timeout_ms") {
        ""
    } else {
        "timeout_ms = 300000\n"
    };
    let text = format!(
        "kind = \"external\"\ncommand = [\"python3\", {:?}, {mode:?}, {:?}, \"1\"]\nstartup_timeout_ms = 300000\n{timeout}{extra}\n",
        script.display().to_string(),
        marks.display().to_string(),
    );
    let path = dir.join(format!("{name}.toml"));
    fs::write(&path, text).unwrap();
    path
}

fn marks(dir: &Path) -> PathBuf {
    let m = dir.join("marks");
    fs::create_dir_all(&m).unwrap();
    m
}

/// `train SHORT --threads threads --opponent opponent --out out`.
fn train(opponent: &Path, out: &Path, threads: &str) -> assert_cmd::Command {
    let mut cmd = aeroplane();
    cmd.args(SHORT)
        .args(["--threads", threads, "--opponent"])
        .arg(opponent)
        .arg("--out")
        .arg(out);
    cmd
}

fn record(out: &Path) -> Value {
    serde_json::from_slice(&fs::read(out.join("train.json")).unwrap()).unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// No process of these bots is left running: each marked pid has ended (waited for through a
/// pidfd, up to 20 s, as a group killed a moment ago may still be dying), and no process
/// carries the marks folder in its command line.
fn assert_no_bot_processes(dir: &Path) {
    let marks = marks(dir);
    let mark = marks.display().to_string();
    for e in fs::read_dir(&marks).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if let Some(pid) = name.strip_prefix("pid-") {
            wait_gone(pid.parse().unwrap());
        }
    }
    for e in fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let cmdline = text(&cmdline).replace('\0', " ");
        if cmdline.contains(&mark) {
            wait_gone(pid.parse().unwrap());
            let stat = fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .next();
            assert!(
                state.is_none() || state == Some("Z"),
                "process {pid} is left behind: {cmdline}"
            );
        }
    }
}

/// Waits until process `pid` has exited (gone or a zombie), for at most 20 s.
fn wait_gone(pid: i32) {
    // SAFETY: pidfd_open takes a pid and flags; the fd is closed below.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as libc::c_int;
    if fd < 0 {
        return;
    }
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; then closes our fd.
    unsafe {
        libc::poll(&mut p, 1, 20_000);
        libc::close(fd);
    }
}

#[test]
fn train_refuses_more_threads_than_run_and_grade_allow() {
    // Item 1: `train --threads 1025` ran, and 100000 loaded a 2-core machine to 220 and
    // ignored SIGTERM while its threads started. Refused as `run` and `grade` refuse it,
    // before the folder is made; `resume` of a training likewise.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for threads in ["1025", "100000"] {
        let out = d.join(format!("t{threads}"));
        let o = aeroplane()
            .args(["train", "--rules", "classic", "--games", "16"])
            .args(["--eval-deals", "0", "-q", "--threads", threads, "--out"])
            .arg(&out)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{threads}: {err}");
        assert!(
            err.contains(&format!(
                "{threads} worker threads asked for: give at most 1024 (0 = one per core)"
            )),
            "{err}"
        );
        assert!(!out.exists(), "{threads}: the folder was made");
    }
    let ok = d.join("ok");
    aeroplane()
        .args(["train", "--rules", "classic", "--games", "16"])
        .args(["--eval-deals", "0", "-q", "--threads", "1024", "--out"])
        .arg(&ok)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "1")
        .env("AEROPLANE_TEST_SIGNAL", "TERM")
        .assert()
        .code(130);
    let o = aeroplane()
        .args(["resume", "-q", "--threads", "1025"])
        .arg(&ok)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("1025 worker threads asked for: give at most 1024"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(record(&ok)["status"], "interrupted");
}

#[test]
fn a_bot_program_that_fails_in_the_evaluation_fails_the_training_cleanly() {
    // Item 2: every failure of an external --opponent in the evaluation panicked (exit 101 at
    // "play bots that can fail with try_play_game") and left train.json `running`.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let missing = d.join("missing.toml");
    fs::write(
        &missing,
        "kind = \"external\"\ncommand = [\"/nonexistent/aeroplane-bot\"]\n",
    )
    .unwrap();
    let mut opponents: Vec<(String, PathBuf, &str)> = [
        ("crash", "", "the program ended"),
        ("garbage", "", "not a protocol message"),
        ("unknown_id", "", "unknown move id"),
        ("illegal", "", "not a legal move"),
        ("close_stdout", "", ""),
        ("refuse", "", "does not speak protocol"),
        ("bad_version", "", "protocol"),
        ("hang", "timeout_ms = 1000", "1000 ms"),
        ("no_newline", "timeout_ms = 1000", "1000 ms"),
    ]
    .into_iter()
    .map(|(mode, extra, says)| (mode.to_string(), faulty(d, mode, mode, extra), says))
    .collect();
    opponents.push(("missing".into(), missing, "/nonexistent/aeroplane-bot"));
    for (name, profile, says) in &opponents {
        let out = d.join(format!("out-{name}"));
        let o = train(profile, &out, "2").output().unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        for part in [
            &format!("bot `{name}`"),
            "in the evaluation after game 16",
            "its state after game 8 is kept",
            says,
        ] {
            assert!(err.contains(part), "{name}: {part:?} not in {err}");
        }
        let r = record(&out);
        assert_eq!(r["status"], "failed", "{name}: {r}");
        let error = r["error"].as_str().unwrap();
        assert!(error.contains(&format!("bot `{name}`")), "{name}: {error}");
        assert!(
            error.contains("in the evaluation after game 16"),
            "{name}: {error}"
        );
        assert_eq!(r["games_played"], 8, "{name}: {r}");
        assert!(out.join("train.checkpoint").exists(), "{name}");
    }
    assert_no_bot_processes(d);
}

#[test]
fn a_training_whose_opponent_failed_resumes_to_the_same_files() {
    // Item 2: after the evaluation's opponent failed (here: it refuses to start without an
    // environment variable), `resume` goes on from the checkpoint once the cause is gone, to
    // the files of a training that never failed.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let profile = faulty(
        d,
        "env",
        "env",
        &format!("cwd = {:?}", marks(d).display().to_string()),
    );
    let whole = d.join("whole");
    train(&profile, &whole, "2")
        .env("AEROPLANE_TEST_ENV", "yes")
        .assert()
        .success();
    let cut = d.join("cut");
    let o = train(&profile, &cut, "2")
        .env_remove("AEROPLANE_TEST_ENV")
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bot `env`") && err.contains("env None"),
        "{err}"
    );
    assert_eq!(record(&cut)["status"], "failed");
    // A timeout changes no move: raised in the profile, the resume is not refused.
    let text = fs::read_to_string(&profile).unwrap();
    fs::write(
        &profile,
        text.replace("timeout_ms = 300000", "timeout_ms = 400000"),
    )
    .unwrap();
    aeroplane()
        .args(["resume", "-q", "--threads", "1"])
        .arg(&cut)
        .env("AEROPLANE_TEST_ENV", "yes")
        .assert()
        .success();
    assert_eq!(files(&cut), files(&whole));
    assert_no_bot_processes(d);
}

#[test]
fn ctrl_c_of_a_training_against_a_bot_program_resumes_to_the_same_files() {
    // Item 3: a signal with an external --opponent (a good one) panicked as the evaluation's
    // bot program gave up. Now: exit 130, `interrupted`, and a resume to the same bytes.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let profile = faulty(d, "good", "ok", "");
    let whole = d.join("whole");
    train(&profile, &whole, "2").assert().success();
    // Game 16 ends a batch with an evaluation, game 20 one without.
    for (signal, after, kept) in [("INT", "16", 8), ("TERM", "20", 24)] {
        let cut = d.join(format!("cut-{signal}"));
        let o = train(&profile, &cut, "2")
            .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", after)
            .env("AEROPLANE_TEST_SIGNAL", signal)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{signal}: {err}");
        assert!(err.contains("aeroplane resume"), "{err}");
        let r = record(&cut);
        assert_eq!(r["status"], "interrupted", "{r}");
        assert_eq!(r["games_played"], kept, "{signal}: {r}");
        aeroplane()
            .args(["resume", "-q", "--threads", "1"])
            .arg(&cut)
            .assert()
            .success();
        assert_eq!(files(&cut), files(&whole), "{signal}");
    }
    assert_no_bot_processes(d);
}

#[test]
fn ctrl_c_while_the_opponent_program_hangs_in_the_evaluation_stops_the_training() {
    // Item 3, a real Ctrl-C from outside while the evaluation waits on a bot program that
    // hangs (its timeout 10 minutes): the wait gives up, exit 130, `interrupted`, the bot's
    // processes are gone.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = marks(d).join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let profile = faulty(d, "hang", "hang", "timeout_ms = 600000");
    let out = d.join("out");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_aeroplane"));
    // SAFETY: between fork and exec, only resets signals' dispositions (the signal reaches the
    // training as from a terminal even where this test runs with SIGINT ignored).
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        });
    }
    let child = cmd
        .args(SHORT)
        .args(["--threads", "1", "--opponent"])
        .arg(&profile)
        .arg("--out")
        .arg(&out)
        .env_remove("AEROPLANE_TEST_SIGNAL_AFTER_GAMES")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Should the training end before its bot hangs, this says so through the fifo rather than
    // leave the read below waiting for ever.
    let (tx, rx) = std::sync::mpsc::channel();
    let watch = fifo.clone();
    std::thread::spawn(move || {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let o = child.wait_with_output().unwrap();
        if let Ok(mut w) = fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&watch)
        {
            let _ = w.write_all(b"the training ended\n");
        }
        tx.send(o).unwrap();
    });
    assert_eq!(fs::read_to_string(&fifo).unwrap(), "hanging\n");
    // SAFETY: signals our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let o = rx.recv().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let r = record(&out);
    assert_eq!(r["status"], "interrupted", "{r}");
    assert_eq!(r["games_played"], 8, "{r}");
    assert_no_bot_processes(d);
}

#[test]
fn a_resume_against_an_opponent_whose_profile_changed_is_refused() {
    // Item 8 (train half): a training resumed after its --opponent profile changed evaluated
    // the rest against another bot, without a word. The record keeps the opponent's checksum;
    // another one is refused naming both, train.json left as it was; the profile restored,
    // the resume gives the files of a training never stopped.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let profile = d.join("opponent.toml");
    let first = "kind = \"expectimax\"\n[params]\ndepth = 1\n";
    fs::write(&profile, first).unwrap();
    let whole = d.join("whole");
    train(&profile, &whole, "2").assert().success();
    let checksum = record(&whole)["opponent_checksum"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(checksum.len(), 16, "{checksum}");
    let cut = d.join("cut");
    train(&profile, &cut, "2")
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "20")
        .assert()
        .code(130);
    let stopped = fs::read(cut.join("train.json")).unwrap();
    fs::write(&profile, "kind = \"expectimax\"\n[params]\ndepth = 2\n").unwrap();
    let o = aeroplane()
        .args(["resume", "-q"])
        .arg(&cut)
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is not the one this training started against")
            && err.contains(&format!("{checksum} in train.json")),
        "{err}"
    );
    assert_eq!(fs::read(cut.join("train.json")).unwrap(), stopped);
    fs::write(&profile, first).unwrap();
    aeroplane()
        .args(["resume", "-q"])
        .arg(&cut)
        .assert()
        .success();
    assert_eq!(files(&cut), files(&whole));
}

#[test]
fn the_docs_recipe_for_a_full_strength_net_is_that_of_the_shipped_nets() {
    // Item 21 (train half): docs/commands/train.md gave no recipe for a full-strength net.
    // Its recipe has every setting results/td/train.sh gives every shipped net.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = fs::read_to_string(root.join("results/td/train.sh")).unwrap();
    let common = script
        .lines()
        .find_map(|l| l.strip_prefix("common=("))
        .and_then(|l| l.strip_suffix(')'))
        .expect("train.sh sets common=(...)");
    let doc = fs::read_to_string(root.join("docs/commands/train.md")).unwrap();
    let (_, section) = doc
        .split_once("## A full-strength net")
        .expect("train.md has a section on a full-strength net");
    let recipe = section
        .lines()
        .find(|l| l.starts_with("aeroplane train "))
        .expect("a recipe line in train.md");
    let words: Vec<&str> = common.split_whitespace().collect();
    for pair in words.chunks(2) {
        let setting = pair.join(" ");
        assert!(recipe.contains(&setting), "{setting} not in {recipe}");
    }
    assert!(
        doc.contains("results/td/train.sh"),
        "train.md cites train.sh"
    );
}

#[test]
fn the_train_report_says_what_a_rising_td_error_means() {
    // Item 21 (train half): the report showed a TD error that rises early without a word.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    aeroplane()
        .args([
            "train", "--rules", "classic", "--planes", "1", "--games", "16",
        ])
        .args(["--eval-deals", "0", "-q", "--threads", "1", "--out"])
        .arg(&out)
        .assert()
        .success();
    let page = fs::read_to_string(out.join("report.html")).unwrap();
    for says in [
        "not a loss that falls to zero",
        "A rise early in training is expected",
        "The net&#39;s strength is its score against the opponent",
    ] {
        assert!(page.contains(says), "{says}");
    }
}
