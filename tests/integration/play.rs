//! `aeroplane play` driven as a person plays it: the binary in a real terminal (a detached
//! tmux session on a private socket (`-S`, in a temporary folder), killed at the end even when a test fails), keys sent with
//! `send-keys`, the screen read with `capture-pane -p`, polled a bounded number of times for
//! the text expected. Then the record it wrote is checked by `aeroplane replay`.

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

use crate::common::aeroplane;

/// How many times the screen is read before a wait gives up (each read runs `tmux`).
const TRIES: usize = 20_000;

/// A tmux server of one test, on a socket in a folder of its own; killed when dropped (and
/// the folder removed with its socket).
struct Tmux {
    socket: String,
    _dir: TempDir,
}

impl Tmux {
    /// `aeroplane ARGS` in a `width` x `height` terminal; when it ends, the shell prints its
    /// exit status and whether the terminal is back in cooked mode, then waits.
    fn start(name: &str, width: u16, height: u16, args: &str) -> Tmux {
        let dir = TempDir::new().unwrap();
        let socket = dir.path().join(name).display().to_string();
        let t = Tmux { socket, _dir: dir };
        let bin = env!("CARGO_BIN_EXE_aeroplane");
        let script = format!(
            "cd {root} && {bin} {args}; echo \"exit $?\"; if stty -a | grep -q ' icanon'; then echo 'terminal: cooked'; else echo 'terminal: raw'; fi; read x",
            root = env!("CARGO_MANIFEST_DIR")
        );
        let ok = t
            .cmd()
            .args([
                "new-session",
                "-d",
                "-x",
                &width.to_string(),
                "-y",
                &height.to_string(),
            ])
            .args(["sh", "-c", &script])
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux did not start");
        t
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-S", &self.socket]);
        c
    }

    fn screen(&self) -> String {
        let out = self.cmd().args(["capture-pane", "-p"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        assert!(
            self.cmd()
                .arg("send-keys")
                .args(keys)
                .status()
                .unwrap()
                .success()
        );
    }

    /// The screen once `ready` holds of it and it is still (read twice the same: not a frame
    /// half drawn), within a bounded number of tries.
    fn wait(&self, what: &str, ready: impl Fn(&str) -> bool) -> String {
        let mut last = String::new();
        for _ in 0..TRIES {
            let now = self.screen();
            if ready(&now) && now == last {
                return now;
            }
            last = now;
            std::thread::yield_now();
        }
        panic!("the screen never showed {what}; it shows:\n{last}");
    }

    /// The screen once `aeroplane` has exited and the shell has said how the terminal was
    /// left, checked to be exit code `code` in cooked mode.
    fn ended(&self, code: i32) -> String {
        let s = self.wait_for("terminal: ");
        assert!(s.contains(&format!("exit {code}\n")), "{s}");
        assert!(s.contains("terminal: cooked"), "{s}");
        s
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait(&format!("`{text}`"), |s| s.contains(text))
    }

    /// The process id of `aeroplane` (the shell's child).
    fn pid(&self) -> i32 {
        let out = self
            .cmd()
            .args(["display-message", "-p", "#{pane_pid}"])
            .output()
            .unwrap();
        let shell: i32 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
        let children =
            std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).unwrap();
        children.split_whitespace().next().unwrap().parse().unwrap()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").status();
    }
}

/// The screen's line that starts with `prefix` after the frame (`│`), if any.
fn has_line(screen: &str, text: &str) -> bool {
    screen.lines().any(|l| l.contains(text))
}

/// Plays the person's seat by keys (Enter to roll, 1 for the first move) until `done` holds
/// of the screen.
fn play_until(t: &Tmux, done: impl Fn(&str) -> bool) -> String {
    for _ in 0..2_000 {
        let s = t.wait("the person's turn or the end", |s| {
            done(s) || s.contains("to roll: press Enter") || s.contains("your moves")
        });
        if done(&s) {
            return s;
        }
        if s.contains("to roll: press Enter") {
            t.keys(&["Enter"]);
        } else {
            t.keys(&["1"]);
        }
        // The screen moves on from this one (a roll played, or a bot's move).
        t.wait("the key taken", |x| x != s);
    }
    panic!("the game did not end");
}

fn path(dir: &TempDir, name: &str) -> String {
    dir.path().join(name).display().to_string()
}

#[test]
fn a_whole_game_played_by_keys_is_recorded_and_replays_identically() {
    let dir = TempDir::new().unwrap();
    let record = path(&dir, "game.jsonl");
    let t = Tmux::start(
        "whole",
        100,
        40,
        &format!("play --bots person,greedy --seed 3 --delay 0 --record {record}"),
    );
    // In mid-game, the screen is the example of docs/commands/play.md (its status line apart,
    // which names the record).
    let mid = play_until(&t, |s| s.contains("your moves") && s.contains("│Turn 6 · "));
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/commands/play.md"),
    )
    .unwrap();
    let example = doc
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .unwrap();
    let body = |s: &str| -> Vec<String> {
        let lines: Vec<String> = s.lines().map(|l| l.trim_end().to_string()).collect();
        lines[..lines.len() - 1].to_vec()
    };
    assert_eq!(body(example), body(&mid), "the screen in mid-game:\n{mid}");
    let end = play_until(&t, |s| s.contains("Game over"));
    assert!(end.contains("The record is complete"), "{end}");
    assert!(has_line(&end, "(greedy) rolled"), "{end}");
    t.keys(&["q"]);
    let after = t.ended(0);
    assert!(after.contains("the game is over; its record is"), "{after}");
    let out = aeroplane()
        .args(["replay", "--log", &record, "--check"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains(": 1 games (0..=0)"), "{text}");
    // The record is the person's game: the person's lineup entry, and the winner the screen said.
    let log = std::fs::read_to_string(&record).unwrap();
    assert!(
        log.lines()
            .next()
            .unwrap()
            .contains(r#"{"name":"person","kind":"person"}"#)
    );
    let result: serde_json::Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    let winner = result["winner"].as_u64().unwrap();
    let name = ["R red", "Y yellow", "B blue", "G green"][winner as usize];
    assert!(end.contains(&format!("Game over: {name}")), "{end}");
}

#[test]
fn a_bot_only_game_records_what_run_logs() {
    let dir = TempDir::new().unwrap();
    let record = path(&dir, "bots.jsonl");
    let t = Tmux::start(
        "bots",
        100,
        40,
        &format!("play --bots expectimax,greedy,random --seed 11 --delay 0 --record {record}"),
    );
    let end = t.wait_for("Game over");
    assert!(end.contains("(expectimax) rolled"), "{end}");
    t.keys(&["q"]);
    t.ended(0);
    let out = dir.path().join("run");
    aeroplane()
        .args([
            "run",
            "--bots",
            "expectimax,greedy,random",
            "--games",
            "1",
            "--seed",
            "11",
        ])
        .args(["--threads", "1", "--log-games", "g.jsonl", "--out"])
        .arg(&out)
        .assert()
        .success();
    let run = std::fs::read_to_string(out.join("g.jsonl")).unwrap();
    let played = std::fs::read_to_string(&record).unwrap();
    assert_eq!(played, run, "the record is the run's log byte for byte");
}

/// The moves list of a screen (its numbered lines).
fn moves(screen: &str) -> Vec<String> {
    screen
        .lines()
        .filter(|l| l.contains(". ") && (l.starts_with("│  ") || l.starts_with("│> ")))
        .map(|l| l.replace("│> ", "│  "))
        .collect()
}

#[test]
fn undo_takes_the_persons_move_back_to_the_same_roll() {
    let dir = TempDir::new().unwrap();
    let record = path(&dir, "undo.jsonl");
    let t = Tmux::start(
        "undo",
        100,
        40,
        &format!("play --bots person,expectimax --seed 5 --delay 0 --record {record}"),
    );
    // The bot's values of its moves are shown as it plays.
    let valued = play_until(&t, |s| {
        s.contains("(expectimax) rolled") && s.contains("│      values: ")
    });
    assert!(
        valued
            .lines()
            .any(|l| l.contains("│      values: ") && l.contains("* ")),
        "the bot's choice is starred:\n{valued}"
    );
    let choose = play_until(&t, |s| s.contains("your moves"));
    let before = moves(&choose);
    assert!(before.len() >= 2, "{choose}");
    let lines_before = std::fs::read_to_string(&record).unwrap().lines().count();
    t.keys(&["1"]);
    t.wait("the move played", |s| {
        !s.contains("your moves") || moves(s) != before
    });
    t.keys(&["u"]);
    let back = t.wait_for("Undone: back to your last decision");
    assert_eq!(moves(&back), before, "{back}");
    // The record is as it was before the move.
    let lines_after = std::fs::read_to_string(&record).unwrap().lines().count();
    assert_eq!(lines_after, lines_before);
    t.keys(&["C-c"]);
    t.ended(0);
}

#[test]
fn quit_asks_in_mid_game_and_resume_goes_on_from_the_same_screen() {
    let dir = TempDir::new().unwrap();
    let record = path(&dir, "saved.jsonl");
    let args = format!("play --bots person,greedy,person --seed 8 --delay 0 --record {record}");
    let t = Tmux::start("quit", 100, 40, &args);
    // A few of the persons' choices in, at a choice.
    let mut seen = 0;
    let at = loop {
        let s = play_until(&t, |s| s.contains("your moves"));
        seen += 1;
        if seen == 6 {
            break s;
        }
        t.keys(&["1"]);
        t.wait("the move played", |x| x != s);
    };
    t.keys(&["q"]);
    let asked = t.wait_for("The game is not over. Quit now?");
    assert!(asked.contains("--resume"), "{asked}");
    t.keys(&["n"]);
    let back = t.wait("the question closed", |s| !s.contains("Quit now?"));
    assert_eq!(moves(&back), moves(&at));
    t.keys(&["q"]);
    t.wait_for("Quit now?");
    t.keys(&["y"]);
    let after = t.ended(0);
    assert!(after.contains("the game is saved in"), "{after}");
    drop(t);

    // Resumed, the game comes back to the same roll with the same board, seats and rolls.
    let t = Tmux::start(
        "resume",
        100,
        40,
        &format!("play --resume {record} --delay 0"),
    );
    let again = play_until(&t, |s| s.contains("your moves"));
    let body = |s: &str| -> Vec<String> {
        let lines: Vec<String> = s.lines().map(str::to_string).collect();
        lines[..lines.len().saturating_sub(1)].to_vec()
    };
    assert_eq!(body(&again), body(&at), "resumed:\n{again}\nquit at:\n{at}");
    t.keys(&["C-c"]);
    t.ended(0);
}

#[test]
fn signals_and_small_terminals_are_handled() {
    let dir = TempDir::new().unwrap();
    let record = path(&dir, "sig.jsonl");
    let t = Tmux::start(
        "small",
        70,
        20,
        &format!("play --bots person,greedy --record {record}"),
    );
    t.wait_for("The terminal is 70x20: aeroplane play needs at least 90x30");
    // SAFETY: signals the test's own grandchild.
    unsafe { libc::kill(t.pid(), libc::SIGTERM) };
    let after = t.ended(130);
    assert!(
        after.contains("stopped by a signal: the game is saved in"),
        "{after}"
    );
    assert!(Path::new(&record).exists());
}

#[test]
fn play_refuses_bad_input_with_a_clear_error() {
    let dir = TempDir::new().unwrap();
    let record = path(&dir, "r.jsonl");
    let refused = |args: &[&str], want: &str| {
        let out = aeroplane().arg("play").args(args).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    refused(
        &["--bots", "person,greedy", "--record", &record],
        "aeroplane play needs a terminal",
    );
    assert!(
        !Path::new(&record).exists(),
        "nothing is written without a terminal"
    );
    refused(&["--bots", "person,nosuch"], "unknown bot `nosuch`");
    refused(&["--bots", "person"], "--bots names 1 player(s)");
    refused(
        &["--bots", "person,greedy,greedy,greedy,greedy"],
        "--bots names 5 player(s)",
    );
    refused(&["--rules", "nosuch"], "--rules");
    refused(&["--players", "5"], "5 is not in 2..=4");
    std::fs::write(&record, "{\"format\":\"aeroplane-decisions\"\n").unwrap();
    refused(
        &["--resume", &record],
        "not a record of one game that play can go on with: not an aeroplane game record",
    );
    refused(
        &["--bots", "person,greedy", "--record", &record],
        "exists: name a new file",
    );
}

#[test]
fn a_closed_terminal_ends_the_game_with_its_record_kept() {
    // SIGHUP, with the terminal gone: the keyboard wait spun at full speed for ever.
    let dir = TempDir::new().unwrap();
    let record = path(&dir, "hup.jsonl");
    let t = Tmux::start(
        "hup",
        100,
        40,
        &format!("play --bots person,greedy --seed 3 --delay 0 --record {record}"),
    );
    play_until(&t, |s| s.contains("your moves"));
    let pid = t.pid();
    let _ = t.cmd().arg("kill-server").status();
    let gone = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |s| s.split_whitespace().nth(2) == Some("Z"))
    };
    let mut tries = 0;
    while !gone(pid) {
        tries += 1;
        assert!(
            tries < 5_000_000,
            "aeroplane play ({pid}) outlived its terminal"
        );
        std::thread::yield_now();
    }
    let log = std::fs::read_to_string(&record).unwrap();
    assert!(
        log.starts_with("{\"format\":\"aeroplane-decisions\""),
        "{log}"
    );
}
