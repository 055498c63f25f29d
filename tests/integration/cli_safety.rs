//! Output safety and bounds (issue 31, items 1-10): single-file outputs never replace what is
//! not a regular file, `--force` removes only an earlier job's files, inputs that would block
//! are refused, bot programs' children are reaped after a `kill -9`, and the grade and solve
//! jobs keep the same bounds and stops as the other jobs.

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;

fn aeroplane(dir: &Path) -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("aeroplane");
    cmd.current_dir(dir);
    cmd.timeout(std::time::Duration::from_secs(300));
    cmd
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Makes a fifo at `path`.
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Makes a character device node (the numbers of /dev/null) at `path`, if this user may.
fn mknod(path: &Path) -> bool {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) == 0 }
}

#[test]
fn a_single_file_output_never_replaces_what_is_not_a_regular_file() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    mkfifo(&d.join("fifo.html"));
    fs::create_dir(d.join("folder.html")).unwrap();
    fs::write(d.join("elsewhere"), "keep").unwrap();
    std::os::unix::fs::symlink(d.join("elsewhere"), d.join("link.html")).unwrap();
    let mut targets = vec![("fifo.html", "a fifo"), ("folder.html", "a folder")];
    targets.push(("link.html", "symbolic link"));
    if mknod(&d.join("node.html")) {
        targets.push(("node.html", "a device"));
    }
    for (name, says) in targets {
        let o = aeroplane(d)
            .args(["replay", "--seed", "1", "--html", name])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "--html {name}");
        let err = text(&o.stderr);
        assert!(err.contains(says) && err.contains(name), "{name}: {err}");
        assert!(!d.join(format!(".{name}.tmp")).exists());
    }
    let t = |n: &str| fs::symlink_metadata(d.join(n)).unwrap().file_type();
    assert!(t("fifo.html").is_fifo(), "the fifo is still a fifo");
    assert!(t("folder.html").is_dir());
    assert!(t("link.html").is_symlink());
    assert_eq!(fs::read_to_string(d.join("elsewhere")).unwrap(), "keep");
    if d.join("node.html").exists() {
        assert!(t("node.html").is_char_device(), "the node is still a node");
    }
    // A regular file is replaced, as before.
    fs::write(d.join("old.html"), "old").unwrap();
    aeroplane(d)
        .args(["replay", "--seed", "1", "--html", "old.html"])
        .assert()
        .success();
    assert!(fs::read_to_string(d.join("old.html")).unwrap().len() > 1000);
}

/// The command of each job kind, small, writing into `out` (a grade's table is `table`).
fn every_job(table: &Path) -> Vec<Vec<String>> {
    let t = table.to_str().unwrap();
    let jobs: [&[&str]; 7] = [
        &["run", "--games", "10"],
        &[
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--games",
            "4",
        ],
        &["league", "--bots", "greedy,random", "--games", "4"],
        &[
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=100",
            "--games",
            "40",
        ],
        &[
            "tune",
            "--bot",
            "expectimax:depth=1",
            "--param",
            "hangar=0..60",
            "--rules",
            "classic",
            "--iterations",
            "2",
            "--pairs-per-iteration",
            "2",
            "--no-confirm",
        ],
        &["grade", "--table", t, "--bots", "greedy", "--games", "4"],
        &["solve", "--rules", "classic", "--planes", "1"],
    ];
    jobs.iter()
        .map(|a| a.iter().map(|s| s.to_string()).collect())
        .collect()
}

/// Solves classic with one plane into `dir/classic-1`.
fn classic_table(dir: &Path) -> std::path::PathBuf {
    let table = dir.join("classic-1");
    aeroplane(dir)
        .args([
            "solve", "--rules", "classic", "--planes", "1", "-q", "--out",
        ])
        .arg(&table)
        .assert()
        .success();
    table
}

#[test]
fn force_never_removes_files_no_earlier_job_recorded() {
    // Item 3: `mkdir u; echo mine > u/games.csv; run --out u --force` deleted the user's file.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let table = classic_table(d);
    for (i, job) in every_job(&table).into_iter().enumerate() {
        let u = d.join(format!("u{i}"));
        fs::create_dir(&u).unwrap();
        fs::write(u.join("games.csv"), "mine\n").unwrap();
        fs::write(u.join("report.html"), "mine too\n").unwrap();
        let o = aeroplane(d)
            .args(&job)
            .args(["-q", "--force", "--out"])
            .arg(&u)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{job:?}: {err}");
        assert!(
            err.contains("games.csv, report.html")
                && err.contains("no record of an earlier job")
                && err.contains("--force"),
            "{job:?}: {err}"
        );
        assert_eq!(fs::read_to_string(u.join("games.csv")).unwrap(), "mine\n");
        assert_eq!(
            fs::read_to_string(u.join("report.html")).unwrap(),
            "mine too\n"
        );
        // An earlier job's files are replaced, as before.
        let v = d.join(format!("v{i}"));
        for force in [false, true] {
            let mut cmd = aeroplane(d);
            cmd.args(&job).args(["-q", "--out"]).arg(&v);
            if force {
                cmd.arg("--force");
            }
            let o = cmd.output().unwrap();
            assert!(o.status.success(), "{job:?}: {}", text(&o.stderr));
        }
    }
}

#[test]
fn a_fifo_given_as_an_input_file_is_refused_at_once() {
    // Item 4: `replay --dice-file FIFO` waited for a writer for ever. Nothing writes to these
    // fifos: a command that opened one for reading would hang until the timeout.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    mkfifo(&d.join("fifo"));
    for args in [
        vec!["replay", "--dice-file", "fifo"],
        vec!["replay", "--log", "fifo"],
        vec!["replay", "--log", "fifo", "--check"],
        vec!["grade", "--table", ".", "--bots", "greedy", "--games", "2"],
    ] {
        if args[1] == "--table" {
            fs::remove_file(d.join("fifo")).unwrap();
            mkfifo(&d.join("table.bin"));
        }
        let o = aeroplane(d)
            .timeout(std::time::Duration::from_secs(60))
            .args(&args)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("fifo"), "{args:?}: {err}");
    }
}

#[test]
fn resume_refuses_a_folder_at_one_of_its_file_names_and_says_how_to_go_on() {
    // Item 6: `rm -r K/checkpoint.games; mkdir K/checkpoint.games; resume K` failed at the end
    // of every resume, for ever ("tidying its folder failed ... run resume to finish it").
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let k = d.join("K");
    let o = aeroplane(d)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "150")
        .args([
            "run",
            "--games",
            "600",
            "--chunk-size",
            "100",
            "-q",
            "--out",
        ])
        .arg(&k)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(k.join("checkpoint.games").is_file());
    fs::remove_file(k.join("checkpoint.games")).unwrap();
    fs::create_dir(k.join("checkpoint.games")).unwrap();
    fs::write(k.join("checkpoint.games/mine"), "x").unwrap();
    let o = aeroplane(d).args(["resume", "-q", "K"]).output().unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("rm -r K/checkpoint.games") && err.contains("a folder"),
        "{err}"
    );
    assert_eq!(
        json(&k.join("run.json"))["status"],
        "interrupted",
        "nothing was done"
    );
    assert!(
        k.join("checkpoint.games/mine").exists(),
        "nothing was removed"
    );
    // The way out works: the games it would have saved are played again.
    fs::remove_dir_all(k.join("checkpoint.games")).unwrap();
    aeroplane(d)
        .args(["resume", "-q"])
        .arg(&k)
        .assert()
        .success();
    assert_eq!(json(&k.join("run.json"))["status"], "complete");
    assert!(!k.join("checkpoint.games").exists() && !k.join("checkpoint").exists());
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn grade_plans_lazily_stops_on_sigterm_and_limits_its_threads() {
    // Item 7: `grade --games 1000000000000` made every unit up front (an 8 GB abort) and never
    // saw SIGTERM; `--threads 100000` started thousands of threads where run and tune refuse.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let table = classic_table(d);
    let o = aeroplane(d)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "40")
        .env("AEROPLANE_TEST_SIGNAL", "TERM")
        .args([
            "grade",
            "--bots",
            "greedy",
            "--games",
            "1000000000000",
            "--chunk-size",
        ])
        .args(["1", "--threads", "2", "-q", "--out", "g", "--table"])
        .arg(&table)
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(130), "{err}");
    let record = json(&d.join("g/grade.json"));
    assert_eq!(record["status"], "interrupted", "{record}");
    assert!(record["games_played"].as_u64().unwrap() >= 40, "{record}");
    for threads in ["1025", "100000"] {
        let o = aeroplane(d)
            .args([
                "grade",
                "--bots",
                "greedy",
                "--games",
                "4",
                "--threads",
                threads,
            ])
            .arg("--table")
            .arg(&table)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "{threads} worker threads asked for: give at most 1024"
            )),
            "{err}"
        );
    }
}

#[test]
fn solve_records_its_status_first_and_stops_inside_every_phase() {
    // Item 8: solve ignored SIGINT/SIGTERM during its set-up and its check (which had no
    // bound), and wrote no solve.json before its set-up ended, so `resume` found no job.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let solve = [
        "solve", "--rules", "classic", "--planes", "1", "-q", "--out",
    ];
    aeroplane(d).args(solve).arg("ref").assert().success();
    let reference = fs::read(d.join("ref/table.bin")).unwrap();
    for phase in ["model", "reachable", "sweep@40", "residual", "check@3"] {
        let out = format!("s-{phase}");
        let o = aeroplane(d)
            .env("AEROPLANE_TEST_SOLVE_SIGNAL", phase)
            .args(solve)
            .arg(&out)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(130), "{phase}: {err}");
        assert!(err.contains("interrupted "), "{phase}: {err}");
        let kept = d.join(&out).join("solve.checkpoint").exists();
        assert_eq!(
            kept,
            phase.starts_with("sweep"),
            "{phase}: values kept part-way through a sweep"
        );
        let record = json(&d.join(&out).join("solve.json"));
        assert_eq!(record["status"], "interrupted", "{phase}: {record}");
        assert!(!d.join(&out).join("table.bin").exists(), "{phase}");
        aeroplane(d).args(["resume", "-q", &out]).assert().success();
        assert_eq!(json(&d.join(&out).join("solve.json"))["status"], "complete");
        assert!(
            fs::read(d.join(&out).join("table.bin")).unwrap() == reference,
            "{phase}: the resumed table is the uninterrupted one"
        );
    }
    for n in ["100000001", "18446744073709551615"] {
        let o = aeroplane(d)
            .args([
                "solve",
                "--rules",
                "classic",
                "--planes",
                "1",
                "--check-positions",
                n,
            ])
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("give at most 100000000"), "{err}");
    }
}

#[test]
fn a_solve_whose_peak_memory_can_pass_the_limit_is_refused_up_front() {
    // Item 8: a chinese 3-plane solve was estimated at 6.5 GiB (the values alone, not the
    // table's copy and encoding written at every checkpoint), accepted under the default
    // 8 GiB limit, and then ran on unstoppable.
    let tmp = tempfile::tempdir().unwrap();
    let o = aeroplane(tmp.path())
        .args([
            "solve", "--rules", "chinese", "--planes", "3", "-q", "--out", "c3",
        ])
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("more than the limit of 8.0 GiB"), "{err}");
    assert!(!tmp.path().join("c3/solve.json").exists());
}

#[test]
fn grade_refuses_a_table_folder_whose_rules_toml_is_not_its_tables() {
    // Item 10: a rules.toml of other rules than table.bin was graded silently under the
    // table's rules, with a replay command (`--rules DIR/rules.toml`) that then failed.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let table = classic_table(d);
    fs::write(table.join("rules.toml"), "base = \"chinese\"\nplanes = 1\n").unwrap();
    let o = aeroplane(d)
        .args([
            "grade", "--bots", "greedy", "--games", "4", "-q", "--out", "g", "--table",
        ])
        .arg(&table)
        .output()
        .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("classic-1/rules.toml holds other rules than the table")
            && err.contains("where the table has"),
        "{err}"
    );
    assert!(
        !d.join("g/grade.json").exists(),
        "refused before anything was written"
    );
    // The table's own rules, written back, grade as before.
    let o = aeroplane(d)
        .args([
            "solve", "--rules", "classic", "--planes", "1", "-q", "--force", "--out",
        ])
        .arg(&table)
        .output()
        .unwrap();
    assert!(o.status.success());
    aeroplane(d)
        .args(["grade", "--bots", "greedy", "--games", "4", "-q", "--table"])
        .arg(&table)
        .assert()
        .success();
}

/// The lines of `path`, each with its newline.
fn lines_of(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .split_inclusive('\n')
        .map(String::from)
        .collect()
}

/// The line ranges `[start, end)` of each game of a plain log (its result line ends a game).
fn games_of(lines: &[String]) -> Vec<(usize, usize)> {
    let mut games = Vec::new();
    let mut start = 1;
    for (i, l) in lines.iter().enumerate().skip(1) {
        if l.starts_with("{\"game\":") {
            games.push((start, i + 1));
            start = i + 1;
        }
    }
    games
}

#[test]
fn a_log_check_finds_every_promised_game_with_its_seeded_dice() {
    // Item 9: `replay --log FILE --check` passed a log cut before its last games, a header
    // alone, a game from another seed's run and a seed-2 header on seed-1 games.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    for (seed, out) in [("1", "one"), ("2", "two")] {
        aeroplane(d)
            .args([
                "run",
                "--games",
                "3",
                "-q",
                "--log-games",
                "g.jsonl",
                "--seed",
                seed,
            ])
            .args(["--out", out])
            .assert()
            .success();
    }
    let one = lines_of(&d.join("one/g.jsonl"));
    let two = lines_of(&d.join("two/g.jsonl"));
    let (g1, g2) = (games_of(&one), games_of(&two));
    assert_eq!((g1.len(), g2.len()), (3, 3));
    let check = |name: &str, lines: Vec<String>| {
        fs::write(d.join(name), lines.concat()).unwrap();
        let o = aeroplane(d)
            .args(["replay", "--check", "--log", name])
            .output()
            .unwrap();
        (o.status.code(), text(&o.stdout), text(&o.stderr))
    };
    let (code, out, _) = check("whole.jsonl", one.clone());
    assert_eq!(code, Some(0));
    assert!(
        out.contains("3 games (0..=2)")
            && out.contains("seeded dice")
            && out.contains("not checked"),
        "{out}"
    );
    let cut = one[..g1[2].0].to_vec();
    let (code, _, err) = check("cut.jsonl", cut);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("ends before game 2") && err.contains("it holds 2"),
        "{err}"
    );
    let (code, _, err) = check("header.jsonl", one[..1].to_vec());
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("ends before game 0"), "{err}");
    // Game 1 of the seed-2 run in place of game 1 of the seed-1 run.
    let foreign = [&one[..g1[1].0], &two[g2[1].0..g2[1].1], &one[g1[2].0..]].concat();
    let (code, _, err) = check("foreign.jsonl", foreign);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("game 1") && err.contains("is not game 1 of the run its header names"),
        "{err}"
    );
    // The seed-2 run's header on the seed-1 run's games.
    let swapped = [&two[..1], &one[1..]].concat();
    let (code, _, err) = check("swapped.jsonl", swapped);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("seed 2") && err.contains("is not game 0"),
        "{err}"
    );
}
