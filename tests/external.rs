//! Bot programs over the line protocol: the example bots, every fault, recovery, clean-up of
//! processes, and the JSON Schemas of every message.
//!
//! Misbehaving bots are `tests/bots/faulty.py MODE DIR`: each process writes `DIR/pid-<pid>`
//! (for itself and any child it starts) and carries DIR in its command line, so a test can
//! tell that none of its processes is left, alive or as a zombie.

#[path = "external/schema.rs"]
mod schema;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use aeroplane::bots::external::{ExternalBot, ExternalSpec};
use aeroplane::bots::registry::Params;
use aeroplane::config::parse_lineup;
use aeroplane::runner::{self, Exec, RunError, RunOptions, RunSpec};
use aeroplane::{Bot, Game, Preset, Rules, Seat};

const BIN: &str = env!("CARGO_BIN_EXE_aeroplane");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn faulty_script() -> String {
    format!("{ROOT}/tests/bots/faulty.py")
}

/// A temporary folder for one test's profiles, outputs and process marks.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn marks(&self) -> PathBuf {
        let m = self.path().join("marks");
        std::fs::create_dir_all(&m).unwrap();
        m
    }

    /// Writes profile `<name>.toml` running faulty.py in `mode` (with `at`, the decision of the
    /// fault), plus `extra` TOML lines; returns its path.
    fn profile(&self, name: &str, mode: &str, at: u32, extra: &str) -> String {
        let marks = self.marks();
        let text = format!(
            "kind = \"external\"\ncommand = [\"python3\", {:?}, {mode:?}, {:?}, \"{at}\"]\n{extra}\n",
            faulty_script(),
            marks.display().to_string(),
        );
        let path = self.path().join(format!("{name}.toml"));
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    /// Runs the binary from the repository root.
    fn run(&self, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .current_dir(ROOT)
            .output()
            .unwrap()
    }

    /// Pids of the processes this test's bots started.
    fn pids(&self) -> Vec<u32> {
        std::fs::read_dir(self.marks())
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.strip_prefix("pid-").map(|p| p.parse().unwrap())
            })
            .collect()
    }

    /// No process of this test is left: none alive with the mark in its command line, none a
    /// zombie of this test process. A process killed a moment ago may still be dying: each is
    /// waited for (through a pidfd, up to a generous bound) before it counts as left behind.
    /// Children of a bot that die with its group are reparented to init, which reaps them.
    fn assert_no_processes(&self) {
        let mark = self.marks().display().to_string();
        let me = std::process::id().to_string();
        for pid in self.pids() {
            wait_gone(pid);
            let proc = format!("/proc/{pid}");
            let cmdline = std::fs::read(format!("{proc}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            assert!(
                !cmdline.contains(&mark),
                "process {pid} is still running: {cmdline}"
            );
            let stat = std::fs::read_to_string(format!("{proc}/stat")).unwrap_or_default();
            let fields: Vec<&str> = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            assert!(
                !(fields.first() == Some(&"Z") && fields.get(1) == Some(&me.as_str())),
                "process {pid} is a zombie of this test: {stat}"
            );
        }
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let name = e.file_name();
            let Some(pid) = name
                .to_str()
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            else {
                continue;
            };
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(&mark) {
                wait_gone(pid.parse().unwrap());
                let again = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                assert!(
                    !String::from_utf8_lossy(&again).contains(&mark),
                    "process {pid} is left behind: {cmdline}"
                );
            }
        }
    }
}

/// Waits until process `pid` has exited (it is gone or a zombie), for at most 20 s.
fn wait_gone(pid: u32) {
    // SAFETY: pidfd_open takes a pid and flags; the fd is closed below.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::c_int, 0) } as libc::c_int;
    if fd < 0 {
        return; // No such process.
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

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs `bots` for a few games with the given extra flags; returns the output.
fn play(f: &Fixture, bots: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        "-q",
        "--bots",
        bots,
        "--games",
        "6",
        "--seed",
        "7",
        "--threads",
        "1",
    ];
    args.extend_from_slice(extra);
    f.run(&args)
}

/// A run with a faulty bot fails with an error naming the bot, its command and the game.
fn assert_fault(mode: &str, at: u32, extra_toml: &str, expect: &[&str]) -> String {
    let f = Fixture::new();
    let p = f.profile(mode, mode, at, extra_toml);
    let out = play(&f, &format!("{p},greedy"), &[]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{mode}: the run should fail");
    for want in [
        format!("bot `{mode}`"),
        format!("faulty.py {mode}"),
        "seed 7".to_string(),
        "in game ".to_string(),
    ]
    .iter()
    .map(String::as_str)
    .chain(expect.iter().copied())
    {
        assert!(err.contains(want), "{mode}: expected {want:?} in:\n{err}");
    }
    f.assert_no_processes();
    err
}

#[test]
fn a_crash_names_the_bot_the_command_and_the_game() {
    let err = assert_fault("crash", 3, "", &["the program ended", "exit status: 3"]);
    assert!(err.contains("seat 0"), "{err}");
}

#[test]
fn a_hang_times_out_and_its_whole_process_group_is_killed() {
    assert_fault(
        "hang",
        2,
        "timeout_ms = 200",
        &["timed out after 200 ms waiting for a move"],
    );
}

#[test]
fn garbage_is_reported_with_the_offending_line() {
    assert_fault(
        "garbage",
        1,
        "",
        &["not a protocol message", "this is not a protocol message"],
    );
}

#[test]
fn an_unknown_move_id_is_reported() {
    assert_fault(
        "unknown_id",
        2,
        "",
        &[
            "unknown move id `banana`",
            r#"{\"type\": \"move\", \"id\": \"banana\"}"#,
        ],
    );
}

#[test]
fn an_illegal_move_is_reported_with_the_legal_ones() {
    assert_fault(
        "illegal",
        1,
        "",
        &["`99`, which is not a legal move", "legal: "],
    );
}

#[test]
fn a_closed_stdout_is_reported() {
    assert_fault(
        "close_stdout",
        1,
        "",
        &["closed its stdout while the harness waited for a move"],
    );
}

#[test]
fn a_bot_of_another_protocol_version_is_refused() {
    assert_fault(
        "bad_version",
        1,
        "",
        &["the bot speaks protocol version 99; this harness speaks version 1"],
    );
    assert_fault(
        "refuse",
        1,
        "",
        &["the bot reported an error: faulty.py does not speak protocol 1"],
    );
}

#[test]
fn a_slow_start_times_out() {
    assert_fault(
        "slow_start",
        1,
        "startup_timeout_ms = 300",
        &["timed out after 300 ms waiting for `ready`"],
    );
}

#[test]
fn a_program_that_cannot_start_is_reported() {
    let f = Fixture::new();
    let path = f.path().join("missing.toml");
    std::fs::write(
        &path,
        "kind = \"external\"\ncommand = [\"/no/such/program\", \"--flag\"]\n",
    )
    .unwrap();
    let out = play(&f, &format!("{},greedy", path.display()), &[]);
    let err = stderr(&out);
    assert!(!out.status.success());
    for want in [
        "bot `missing`",
        "command: /no/such/program --flag",
        "failed to start",
        "in game 0",
    ] {
        assert!(err.contains(want), "expected {want:?} in:\n{err}");
    }
}

#[test]
fn profiles_of_external_bots_are_checked() {
    let f = Fixture::new();
    let cases = [
        ("kind = \"external\"\n", "needs `command"),
        ("kind = \"external\"\ncommand = []\n", "needs `command"),
        (
            "kind = \"greedy\"\ncommand = [\"x\"]\n",
            "only for kind `external`",
        ),
        (
            "kind = \"external\"\ncommand = [\"x\"]\ntimeout_ms = 0\n",
            "at least 1",
        ),
        (
            "kind = \"external\"\ncommand = [\"x\"]\n[params]\nflag = true\n",
            "an integer, a number or a string",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let path = f.path().join(format!("p{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let e = parse_lineup(&format!("{},greedy", path.display()), "bots".as_ref())
            .err()
            .unwrap_or_else(|| panic!("{text} should be refused"));
        assert!(e.to_string().contains(want), "{text}: {e}");
    }
}

#[test]
fn with_recover_a_crash_forfeits_the_game_and_the_run_goes_on() {
    let f = Fixture::new();
    let p = f.profile("crash", "crash", 25, "");
    let out_dir = f.path().join("out");
    let out = play(
        &f,
        &format!("{p},greedy"),
        &[
            "--recover",
            "--per-game",
            "--rotate-seats",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        report.contains("forfeits (games lost by a failing bot): crash "),
        "{report}"
    );
    let summary = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    let mut lines = summary.lines();
    assert!(lines.next().unwrap().ends_with(",interval_method,forfeits"));
    let crash_row = lines.next().unwrap();
    let forfeits: u64 = crash_row.rsplit(',').next().unwrap().parse().unwrap();
    assert!(forfeits >= 1, "{summary}");
    assert!(
        lines.next().unwrap().ends_with(",0"),
        "greedy forfeits nothing"
    );
    let games = std::fs::read_to_string(out_dir.join("games.csv")).unwrap();
    assert!(games.lines().next().unwrap().ends_with(
        ",unfinished,name_seat0,name_seat1,name_seat2,name_seat3,forfeit_seat,forfeit_cause"
    ));
    assert_eq!(games.lines().count(), 13);
    let forfeited: Vec<&str> = games
        .lines()
        .skip(1)
        .filter(|l| !l.ends_with(','))
        .collect();
    assert_eq!(forfeited.len() as u64, forfeits);
    for row in &forfeited {
        // Two players: the forfeiting seat loses, the other wins.
        let cols: Vec<&str> = row.split(',').collect();
        // After the record's 24 columns, the four names, then forfeit_seat.
        let seat = cols[28];
        assert_ne!(cols[7], seat, "{row}");
        assert_eq!(cols[9 + seat.parse::<usize>().unwrap()], "2", "{row}");
    }
    // Every forfeit restarted the program (unless it was the last game's).
    let started = f.pids().len() as u64;
    assert!(
        started == forfeits + 1 || started == forfeits,
        "{started} processes"
    );
    f.assert_no_processes();
}

#[test]
fn with_recover_a_forfeit_is_logged_and_its_game_replays_to_the_failure() {
    let f = Fixture::new();
    let p = f.profile("crash", "crash", 25, "");
    let out_dir = f.path().join("out");
    let out = play(
        &f,
        &format!("{p},greedy"),
        &[
            "--recover",
            "--per-game",
            "--rotate-seats",
            "--out",
            out_dir.to_str().unwrap(),
            "--log-games",
            "g.jsonl",
            "--log-positions",
            "1",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let log = out_dir.join("g.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let games = std::fs::read_to_string(out_dir.join("games.csv")).unwrap();
    let header: Vec<&str> = games.lines().next().unwrap().split(',').collect();
    let forfeit_seat = header.iter().position(|c| *c == "forfeit_seat").unwrap();
    let mut forfeits = 0;
    for row in games.lines().skip(1) {
        let cols: Vec<&str> = row.split(',').collect();
        let game = cols[0];
        let result: serde_json::Value = text
            .lines()
            .find(|l| l.starts_with(&format!("{{\"game\":{game},")))
            .map(|l| serde_json::from_str(l).unwrap())
            .unwrap();
        // The result line says what games.csv says: the forfeiting seat, the winner.
        let forfeit = cols[forfeit_seat];
        assert_eq!(result["winner"].to_string(), cols[7], "{row}");
        if forfeit.is_empty() {
            assert!(result.get("forfeit").is_none(), "{result}");
            continue;
        }
        forfeits += 1;
        assert_eq!(result["forfeit"].to_string(), forfeit, "{result}");
        // The game stops at the failed decision: the final position is the one the failing
        // seat was to roll in, and the replay of the log ends there, saying why.
        let last = result["position"].as_str().unwrap();
        assert_eq!(last.split(' ').nth(1), Some(forfeit), "{last}");
        let replay = f.run(&["replay", "--log", log.to_str().unwrap(), "--game", game]);
        let said = String::from_utf8_lossy(&replay.stdout).into_owned() + &stderr(&replay);
        assert!(
            said.contains(&format!(
                "seat {forfeit}'s bot failed here and forfeited the game"
            )),
            "{said}"
        );
    }
    assert!(forfeits >= 1, "{games}");
    let check = f.run(&["replay", "--log", log.to_str().unwrap(), "--check"]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert!(
        String::from_utf8_lossy(&check.stdout).contains("12 games (0..=11)"),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    f.assert_no_processes();
}

#[test]
fn runs_without_recover_keep_their_files_as_they_were() {
    let f = Fixture::new();
    let p = f.profile("ok", "ok", 0, "");
    let out_dir = f.path().join("out");
    let out = play(
        &f,
        &format!("{p},greedy"),
        &["--per-game", "--out", out_dir.to_str().unwrap()],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    assert_eq!(
        summary.lines().next().unwrap(),
        aeroplane::export::SUMMARY_HEADER.join(",")
    );
    let games = std::fs::read_to_string(out_dir.join("games.csv")).unwrap();
    assert_eq!(
        games.lines().next().unwrap(),
        format!(
            "{}{}",
            aeroplane::export::GAMES_HEADER,
            aeroplane::export::NAME_COLUMNS
        )
    );
    // The bot's stderr went to a log file under --out DIR/logs/.
    let logs: Vec<_> = std::fs::read_dir(out_dir.join("logs")).unwrap().collect();
    assert_eq!(logs.len(), 1);
    f.assert_no_processes();
}

#[test]
fn a_logs_link_planted_in_the_output_folder_is_never_written_through() {
    // Issue 31 item 2: `ln -s ELSEWHERE D/logs` made a run create (or truncate)
    // ELSEWHERE/<bot>-0.log.
    let f = Fixture::new();
    let p = f.profile("ok", "ok", 0, "");
    let elsewhere = f.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("ok-0.log"), "precious").unwrap();
    let out_dir = f.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    std::os::unix::fs::symlink(&elsewhere, out_dir.join("logs")).unwrap();
    let out = play(
        &f,
        &format!("{p},greedy"),
        &["--out", out_dir.to_str().unwrap(), "--force"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    let names: Vec<_> = std::fs::read_dir(&elsewhere)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["ok-0.log"], "nothing new in the link's target");
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("ok-0.log")).unwrap(),
        "precious"
    );
    f.assert_no_processes();
}

#[test]
fn a_chatty_stderr_never_blocks_a_run_logged_or_drained() {
    let f = Fixture::new();
    let p = f.profile("chatty", "chatty", 0, "");
    let out_dir = f.path().join("out");
    for extra in [vec![], vec!["--out", out_dir.to_str().unwrap()]] {
        let out = play(&f, &format!("{p},greedy"), &extra);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let log = std::fs::read_dir(out_dir.join("logs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert!(
        log.metadata().unwrap().len() > 1 << 20,
        "the log holds the chatter"
    );
    f.assert_no_processes();
}

fn greedy_games(rules: &str, bots: &str, threads: &str, dir: &Path) -> String {
    let out = Command::new(BIN)
        .args([
            "run",
            "-q",
            "--rules",
            rules,
            "--bots",
            bots,
            "--games",
            "12",
            "--seed",
            "3",
            "--rotate-seats",
            "--per-game",
            "--threads",
            threads,
            "--force",
            "--out",
        ])
        .arg(dir)
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::read_to_string(dir.join("games.csv")).unwrap()
}

#[test]
fn the_python_greedy_bot_plays_exactly_the_builtin_greedy_games() {
    let f = Fixture::new();
    for rules in ["appfreegame", "classic", "chinese"] {
        for (builtin, program) in [
            ("greedy,random", "bots/examples/greedy-py.toml,random"),
            (
                "greedy,random,greedy,random",
                "bots/examples/greedy-py.toml,random,bots/examples/greedy-py.toml,random",
            ),
        ] {
            let a = greedy_games(rules, builtin, "1", &f.path().join("a"));
            // Two threads: two processes per lineup entry, the same games.
            let b = greedy_games(rules, program, "2", &f.path().join("b"));
            assert!(a.lines().count() > 20);
            // The same games; only the names differ (greedy-py for greedy).
            assert_eq!(a, b.replace("greedy-py", "greedy"), "{rules} {builtin}");
            assert!(b.contains(",greedy-py,"), "{b}");
        }
    }
}

#[test]
fn the_random_and_template_bots_play_reproducibly() {
    let f = Fixture::new();
    for bots in [
        "bots/examples/random-py.toml,greedy",
        "bots/examples/template.toml,random,greedy",
    ] {
        let a = greedy_games("classic", bots, "1", &f.path().join("a"));
        let b = greedy_games("classic", bots, "2", &f.path().join("b"));
        assert_eq!(a, b, "{bots}");
    }
}

/// Starts `aeroplane run` with a bot in `mode` (faulty.py, its fault at decision 3) that
/// hangs, waits until it hangs, sends `signals` in turn, and returns how the run ended. With
/// `out`, the run keeps its files there.
fn stop_a_hanging_run(
    f: &Fixture,
    mode: &str,
    timeout_ms: u64,
    signals: &[i32],
    out: Option<&Path>,
) -> std::process::ExitStatus {
    let fifo = f.marks().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let p = f.profile(mode, mode, 3, &format!("timeout_ms = {timeout_ms}"));
    let mut cmd = Command::new(BIN);
    // SAFETY: between fork and exec, only resets signals' dispositions. The signals reach the
    // run as from a terminal even where this test runs with them ignored (a background job),
    // where the harness would rightly leave them ignored.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
    cmd.args([
        "run",
        "-q",
        "--bots",
        &format!("{p},greedy"),
        "--games",
        "5",
        "--threads",
        "1",
    ]);
    if let Some(dir) = out {
        cmd.arg("--out").arg(dir);
    }
    let child = cmd
        .current_dir(ROOT)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Should the run end before its bot hangs, this says so through the fifo rather than
    // leave the read below waiting for ever.
    let (tx, rx) = std::sync::mpsc::channel();
    let watch_fifo = fifo.clone();
    std::thread::spawn(move || {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut child = child;
        let status = child.wait().unwrap();
        if let Ok(mut w) = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&watch_fifo)
        {
            let _ = w.write_all(b"the run ended\n");
        }
        tx.send(status).unwrap();
    });
    // Blocks until the bot has started its child and hangs.
    let said = std::fs::read_to_string(&fifo).unwrap();
    assert_eq!(said, "hanging\n");
    assert_eq!(f.pids().len(), 2, "the bot and its child");
    for &sig in signals {
        // SAFETY: signals our own child.
        unsafe { libc::kill(pid as i32, sig) };
    }
    rx.recv().unwrap()
}

#[test]
fn ctrl_c_kills_every_bot_process_group() {
    // One Ctrl-C: the game in flight is abandoned (its unit is played again on resume) though
    // its bot hangs, and the bots are closed and killed; the stop is an interruption, not the
    // bot's failure.
    let f = Fixture::new();
    let out = f.path().join("out");
    let status = stop_a_hanging_run(&f, "hang", 600_000, &[libc::SIGINT], Some(&out));
    assert_eq!(status.code(), Some(130));
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(m["status"], "interrupted");
    f.assert_no_processes();
}

#[test]
fn a_second_signal_kills_every_bot_now_and_still_records_the_stop() {
    // Item 7: a second SIGINT/SIGTERM exited at once, orphaning the bots, leaving run.json
    // at `running` and the lock behind. (Two different signals: two of one kind sent at once
    // may reach the process as one.)
    for second in [libc::SIGTERM, libc::SIGHUP] {
        let f = Fixture::new();
        let out = f.path().join("out");
        let status = stop_a_hanging_run(&f, "hang", 600_000, &[libc::SIGINT, second], Some(&out));
        assert_eq!(status.code(), Some(130), "{status:?}");
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
        assert_eq!(m["status"], "interrupted");
        assert!(!out.join(".aeroplane.lock").exists());
        f.assert_no_processes();
    }
}

#[test]
fn a_bot_child_in_a_session_of_its_own_dies_with_the_run() {
    // Item 8: a bot's grandchild that called setsid() outlived the run (the group kill missed
    // it): at the run's end, and at a stop.
    let f = Fixture::new();
    let p = f.profile("setsid", "setsid", 2, "");
    let out = play(&f, &format!("{p},greedy"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(f.pids().len(), 2, "the bot and its setsid child");
    f.assert_no_processes();

    let f = Fixture::new();
    let status = stop_a_hanging_run(
        &f,
        "setsid_hang",
        600_000,
        &[libc::SIGINT, libc::SIGTERM],
        None,
    );
    assert_eq!(status.code(), Some(130));
    f.assert_no_processes();
}

#[test]
fn after_a_kill_9_of_the_harness_no_process_of_its_bots_is_left() {
    // Issue 31 item 5: a bot's plain forked child survived a `kill -9` of the run with parent
    // 1 (PR_SET_PDEATHSIG reaches only the bot itself). The guardian kills the rest of the
    // group, and what left it with setsid, when the harness dies.
    use std::os::unix::process::ExitStatusExt;
    for mode in ["hang", "setsid_hang"] {
        let f = Fixture::new();
        let out = f.path().join("out");
        let status = stop_a_hanging_run(&f, mode, 600_000, &[libc::SIGKILL], Some(&out));
        assert_eq!(status.signal(), Some(libc::SIGKILL), "{mode}: {status:?}");
        f.assert_no_processes();
    }
}

#[test]
fn a_bot_starts_with_no_signal_blocked_or_ignored_by_the_harness() {
    // Item 6: bots started with SIGHUP, SIGINT and SIGTERM blocked (SigBlk 0000000000004003),
    // so a bot's own terminate() of its helpers did nothing.
    let f = Fixture::new();
    let p = f.profile("signals", "signals", 0, "");
    let out = play(&f, &format!("{p},greedy"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let mark = std::fs::read_dir(f.marks())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("signals-"))
        .expect("the bot wrote its signal masks");
    let text = std::fs::read_to_string(mark.path()).unwrap();
    let mask = |name: &str| {
        let hex = text
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap()
            .trim();
        u64::from_str_radix(hex, 16).unwrap()
    };
    assert_eq!(mask("SigBlk:"), 0, "{text}");
    let bit = |sig: i32| 1u64 << (sig - 1);
    for sig in [libc::SIGHUP, libc::SIGINT, libc::SIGTERM] {
        assert_eq!(
            mask("SigIgn:") & bit(sig),
            0,
            "signal {sig} ignored: {text}"
        );
    }
    f.assert_no_processes();
}

/// Peak memory (KiB) of `aeroplane args` run through a Python wrapper (its only child).
fn peak_kib(f: &Fixture, args: &[&str]) -> u64 {
    let script = "import resource, subprocess, sys\n\
                  r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
                  print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n";
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(BIN)
        .args(args)
        .current_dir(ROOT)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let (code, kib) = text.trim().split_once(' ').unwrap();
    assert_eq!(code, "0", "{}", String::from_utf8_lossy(&out.stderr));
    let _ = f;
    kib.parse().unwrap()
}

#[test]
fn a_bots_stderr_takes_bounded_memory_and_disk() {
    // Item 10: without --out, a stderr without newlines was kept whole (8 GB, then an abort);
    // item 4: with --out, its log had no bound (642 MB in 20 games).
    let f = Fixture::new();
    let p = f.profile("flood", "flood", 96, "");
    let bots = format!("{p},greedy");
    let args = [
        "run",
        "-q",
        "--bots",
        &bots,
        "--games",
        "2",
        "--threads",
        "1",
    ];
    let kib = peak_kib(&f, &args);
    assert!(kib < 48 << 10, "{kib} KiB for 96 MiB of stderr");
    let out_dir = f.path().join("out");
    let out = play(&f, &bots, &["--out", out_dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let log = std::fs::read_dir(out_dir.join("logs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let len = std::fs::metadata(&log).unwrap().len();
    assert!(
        len <= aeroplane::bots::external::process::MAX_LOG_BYTES + 1024,
        "{len}"
    );
    let tail = std::fs::read(&log).unwrap();
    let tail = String::from_utf8_lossy(&tail[tail.len() - 300..]);
    assert!(tail.contains("[aeroplane: this log stops here"), "{tail}");
    f.assert_no_processes();
}

#[test]
fn a_bots_message_cannot_forge_a_line_of_the_harness() {
    // Item 15: an error quoting a bot's answer printed its raw LF (ESC, BEL and CR were
    // escaped), so a bot could print lines that look like the harness's.
    let err = assert_fault(
        "newline_error",
        2,
        "",
        &["the bot reported an error: line one\\nerror: forged"],
    );
    assert!(
        !err.lines().any(|l| l.starts_with("error: forged")),
        "{err}"
    );
}

#[test]
fn with_recover_each_forfeit_says_why() {
    // Item 17: the cause of a forfeit was recorded nowhere.
    let f = Fixture::new();
    let p = f.profile("crash", "crash", 25, "");
    let out_dir = f.path().join("out");
    let out = play(
        &f,
        &format!("{p},greedy"),
        &[
            "--recover",
            "--per-game",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("note: bot 0 `crash` forfeited")
            && err.contains("(crash); the first, game ")
            && err.contains("the program ended (exit status: 3)"),
        "{err}"
    );
    let table = std::fs::read_to_string(out_dir.join("forfeits.csv")).unwrap();
    let mut lines = table.lines();
    assert_eq!(
        lines.next().unwrap(),
        "bot,name,cause,forfeits,first_game,first_seat,first_message"
    );
    let row = lines.next().unwrap();
    assert!(row.starts_with("0,crash,crash,"), "{table}");
    let games = std::fs::read_to_string(out_dir.join("games.csv")).unwrap();
    let forfeited = games.lines().filter(|l| l.ends_with(",crash")).count();
    assert!(forfeited >= 1, "{games}");
    assert!(
        row.contains(&format!(",crash,{forfeited},")),
        "{row} vs {forfeited}"
    );
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.contains("forfeit causes: crash crash "), "{report}");
    f.assert_no_processes();
}

#[test]
fn with_recover_a_bot_that_cannot_start_or_speaks_another_version_is_an_error() {
    // Item 17: a protocol-2 `ready` gave exit 0 and "forfeits 5".
    for (mode, expect) in [
        ("bad_version", "speaks protocol version 99"),
        ("refuse", "the bot reported an error"),
    ] {
        let f = Fixture::new();
        let p = f.profile(mode, mode, 1, "");
        let out = play(&f, &format!("{p},greedy"), &["--recover"]);
        assert_eq!(out.status.code(), Some(2), "{mode}");
        assert!(stderr(&out).contains(expect), "{mode}: {}", stderr(&out));
        f.assert_no_processes();
    }
    let f = Fixture::new();
    let profile = f.path().join("missing.toml");
    std::fs::write(
        &profile,
        "kind = \"external\"\ncommand = [\"/nonexistent/bot-program\"]\n",
    )
    .unwrap();
    let out = play(&f, &format!("{},greedy", profile.display()), &["--recover"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("failed to start"), "{}", stderr(&out));
}

fn spec(f: &Fixture, mode: &str, at: u32, extra: &str) -> RunSpec {
    let p = f.profile(mode, mode, at, extra);
    RunSpec {
        rules: Preset::AppFreeGame.rules(),
        lineup: parse_lineup(&format!("{p},random"), "bots".as_ref()).unwrap(),
        seed: 9,
        first_deal: 0,
        deals: 8,
        rotate_seats: true,
    }
}

#[test]
fn the_library_reports_a_fault_as_a_typed_error_and_recovers_when_told() {
    let f = Fixture::new();
    let s = spec(&f, "garbage", 30, "");
    let exec = Exec {
        threads: 2,
        chunk_deals: 2,
        ..Exec::default()
    };
    match runner::run(&s, RunOptions::new(exec), None) {
        Err(RunError::Bot { fault, seed, .. }) => {
            assert_eq!(seed, 9);
            assert_eq!(fault.bot, "garbage");
            assert_eq!(
                fault.line.as_deref(),
                Some("this is not a protocol message")
            );
        }
        other => panic!("expected a bot error, got {other:?}"),
    }
    f.assert_no_processes();
    let recover = Exec {
        recover: true,
        ..exec
    };
    let t = runner::run(&s, RunOptions::new(recover), None).unwrap();
    assert_eq!(t.games, 16);
    assert!(t.bots[0].forfeits >= 1);
    assert_eq!(t.bots[1].forfeits, 0);
    assert_eq!(
        t.bots[0].forfeits,
        t.seats[0].forfeits + t.seats[2].forfeits
    );
    f.assert_no_processes();
}

#[test]
fn a_panic_kills_the_bot_process() {
    let f = Fixture::new();
    let spec = ExternalSpec::new(vec![
        "python3".into(),
        faulty_script(),
        "ok".into(),
        f.marks().display().to_string(),
    ]);
    let game = Game::new(Rules::default(), 2).unwrap();
    let result = std::thread::spawn(move || {
        let mut bot = ExternalBot::new("ok", spec, &Params::default());
        bot.try_new_game(&game, Seat::ALL[0], 1, 0).unwrap();
        bot.ping().unwrap();
        assert!(bot.pid().is_some());
        assert_eq!(bot.identity(), Some(("faulty.py", "tests")));
        panic!("a bug in the caller");
    })
    .join();
    assert!(result.is_err());
    assert_eq!(f.pids().len(), 1);
    f.assert_no_processes();
}

// ---- schemas ----

fn load_schema(name: &str) -> serde_json::Value {
    let path = format!("{ROOT}/docs/protocol/{name}.schema.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn check_message(line: &str, direction: &str) -> String {
    let v: serde_json::Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("{direction} {line}: {e}"));
    let kind = v["type"].as_str().unwrap().to_string();
    let allowed: &[&str] = if direction == "to_bot" {
        &["hello", "new_game", "choose", "game_over", "ping", "quit"]
    } else {
        &["ready", "move", "pong", "error"]
    };
    assert!(allowed.contains(&kind.as_str()), "{direction}: {line}");
    schema::validate(&load_schema(&kind), &v).unwrap_or_else(|e| panic!("{line}\n{e}"));
    kind
}

#[test]
fn every_message_of_the_harness_and_the_example_bots_matches_its_schema() {
    let f = Fixture::new();
    let tee = format!("{ROOT}/tests/bots/tee.py");
    let logs = f.path().join("conversation");
    std::fs::create_dir_all(&logs).unwrap();
    let mut profiles = Vec::new();
    for bot in ["greedy_bot", "random_bot", "template_bot"] {
        let path = f.path().join(format!("{bot}.toml"));
        std::fs::write(
            &path,
            format!(
                "kind = \"external\"\ncommand = [\"python3\", {tee:?}, {:?}, \"python3\", \"bots/examples/{bot}.py\"]\n[params]\ndepth = 2\nmix = 0.5\nstyle = \"bold\"\n",
                logs.display().to_string()
            ),
        )
        .unwrap();
        profiles.push(path.display().to_string());
    }
    for (rules, bots) in [
        ("classic", profiles.join(",")),
        ("chinese", format!("{},greedy", profiles[0])),
        ("appfreegame", format!("{},{}", profiles[1], profiles[2])),
    ] {
        let out = Command::new(BIN)
            .args([
                "run",
                "-q",
                "--rules",
                rules,
                "--bots",
                &bots,
                "--games",
                "3",
                "--threads",
                "1",
            ])
            .current_dir(ROOT)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    // Ping and pong, through the library.
    let mut bot = ExternalBot::new(
        "ping",
        ExternalSpec::new(vec![
            "python3".into(),
            tee.clone(),
            logs.display().to_string(),
            "python3".into(),
            "bots/examples/greedy_bot.py".into(),
        ]),
        &Params::default(),
    );
    bot.try_new_game(&Game::new(Rules::default(), 3).unwrap(), Seat::ALL[1], 5, 0)
        .unwrap();
    bot.ping().unwrap();
    drop(bot);

    let mut seen = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(&logs).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let direction = if name.starts_with("to_bot") {
            "to_bot"
        } else {
            "from_bot"
        };
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            seen.insert(check_message(line, direction));
        }
    }
    let want = [
        "choose",
        "game_over",
        "hello",
        "move",
        "new_game",
        "ping",
        "pong",
        "quit",
        "ready",
    ];
    assert_eq!(seen.into_iter().collect::<Vec<_>>(), want);
    // The error message, as a bot that refuses a version sends it.
    check_message(
        r#"{"type":"error","message":"greedy_bot.py speaks protocol 1 only"}"#,
        "from_bot",
    );
}

#[test]
fn the_example_exchange_of_the_protocol_document_matches_the_schemas() {
    let doc = std::fs::read_to_string(format!("{ROOT}/docs/PROTOCOL.md")).unwrap();
    let mut n = 0;
    for line in doc.lines() {
        let (direction, msg) = match line.split_once(' ') {
            Some(("H>", m)) => ("to_bot", m),
            Some(("B>", m)) => ("from_bot", m),
            _ => continue,
        };
        check_message(msg, direction);
        n += 1;
    }
    assert!(n >= 8, "the example exchange has {n} messages");
}

#[test]
fn every_schema_is_valid_json_with_only_supported_keywords() {
    for name in [
        "hello",
        "ready",
        "new_game",
        "choose",
        "move",
        "game_over",
        "ping",
        "pong",
        "quit",
        "error",
    ] {
        let s = load_schema(name);
        assert_eq!(s["properties"]["type"]["const"], name);
        // A message with only its type fails for every message that has other fields.
        let bare = serde_json::json!({ "type": name });
        let required = s["required"].as_array().unwrap().len();
        assert_eq!(schema::validate(&s, &bare).is_ok(), required == 1, "{name}");
    }
}

#[test]
fn replay_and_manifests_work_with_bot_programs() {
    let f = Fixture::new();
    let replay = |bots: &str| {
        let out = f.run(&["replay", "--seed", "3", "--game", "1", "--bots", bots]);
        assert!(out.status.success(), "{}", stderr(&out));
        // The same log but for the bot's name (and the padding after it).
        String::from_utf8(out.stdout)
            .unwrap()
            .replace("greedy-py", "greedy")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (program, builtin) = (
        replay("bots/examples/greedy-py.toml,greedy"),
        replay("greedy,greedy"),
    );
    assert!(program == builtin, "the replays differ");
    // run.json records the command, so --manifest reproduces the run.
    let (a, b) = (f.path().join("a"), f.path().join("b"));
    let first = f.run(&[
        "run",
        "-q",
        "--bots",
        "bots/examples/greedy-py.toml,random",
        "--games",
        "10",
        "--per-game",
        "--out",
        a.to_str().unwrap(),
    ]);
    assert!(first.status.success(), "{}", stderr(&first));
    let again = f.run(&[
        "run",
        "-q",
        "--manifest",
        a.join("run.json").to_str().unwrap(),
        "--out",
        b.to_str().unwrap(),
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        std::fs::read_to_string(a.join("games.csv")).unwrap(),
        std::fs::read_to_string(b.join("games.csv")).unwrap()
    );
}

#[test]
fn a_profile_sets_the_working_directory_and_the_environment() {
    let f = Fixture::new();
    let marks = f.marks().display().to_string();
    let good = f.profile(
        "env",
        "env",
        0,
        &format!("cwd = {marks:?}\nenv = {{ AEROPLANE_TEST_ENV = \"yes\" }}"),
    );
    let out = play(&f, &format!("{good},greedy"), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bad = f.profile("noenv", "env", 0, "");
    let out = play(&f, &format!("{bad},greedy"), &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("env None"), "{}", stderr(&out));
    f.assert_no_processes();
}

#[test]
fn a_fault_keeps_the_games_finished_before_it() {
    let f = Fixture::new();
    let p = f.profile("crash", "crash", 60, "");
    let out_dir = f.path().join("out");
    let out = play(
        &f,
        &format!("{p},greedy"),
        &[
            "--per-game",
            "--chunk-size",
            "1",
            "--out",
            out_dir.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    // A failed job's games.csv keeps its partial name.
    assert!(!out_dir.join("games.csv").exists());
    let games = std::fs::read_to_string(out_dir.join("games.csv.partial")).unwrap();
    let rows = games.lines().count() - 1;
    assert!((1..6).contains(&rows), "{games}");
    assert!(
        stderr(&out).contains(&format!("in game {rows} ")),
        "{}",
        stderr(&out)
    );
    f.assert_no_processes();
}

#[test]
fn with_recover_a_stop_inside_a_unit_keeps_the_forfeited_games_it_finished() {
    let f = Fixture::new();
    let p = f.profile("crash", "crash", 25, "");
    let bots = format!("{p},greedy");
    let job = |dir: &Path| -> Vec<String> {
        [
            "run",
            "-q",
            "--bots",
            &bots,
            "--games",
            "6",
            "--seed",
            "7",
            "--threads",
            "1",
            "--recover",
            "--per-game",
            "--rotate-seats",
            "--chunk-size",
            "100",
            "--out",
            dir.to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec()
    };
    let whole = f.path().join("whole");
    let out = Command::new(BIN)
        .args(job(&whole))
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let forfeits = std::fs::read_to_string(whole.join("forfeits.csv")).unwrap();
    assert!(
        forfeits.lines().count() > 1,
        "the crashing bot forfeits games"
    );

    let dir = f.path().join("stopped");
    let out = Command::new(BIN)
        .args(job(&dir))
        .current_dir(ROOT)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "7")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("interrupted after 7 of 12 games"),
        "{}",
        stderr(&out)
    );
    let out = Command::new(BIN)
        .args(["resume", "-q", dir.to_str().unwrap()])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("7 games finished before the stop"),
        "{}",
        stderr(&out)
    );
    for name in [
        "games.csv",
        "forfeits.csv",
        "summary.csv",
        "summary.json",
        "run.json",
    ] {
        assert_eq!(
            std::fs::read(dir.join(name)).unwrap(),
            std::fs::read(whole.join(name)).unwrap(),
            "{name}"
        );
    }
}
