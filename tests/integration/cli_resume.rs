//! Jobs that outlive a process: a job stopped by a signal (at an exact unit, through the real
//! signal path: the test hook makes the process signal itself) resumes to byte-identical
//! output; a damaged checkpoint is refused; shards merge into exactly one run's files.

use crate::common::{aeroplane, files};
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::number_after;
use predicates::prelude::*;
use tempfile::TempDir;

/// The four kinds of job, small, with small units so there are many to stop between.
fn jobs() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        (
            "run",
            vec![
                "run",
                "--games",
                "300",
                "--bots",
                "greedy,random,random",
                "--rotate-seats",
                "--per-game",
                "--chunk-size",
                "20",
                "--seed",
                "4",
            ],
        ),
        (
            "sprt",
            vec![
                "run",
                "--bots",
                "greedy,random",
                "--sprt",
                "elo0=0,elo1=60",
                "--games",
                "600",
                "--chunk-size",
                "1",
            ],
        ),
        (
            "sweep",
            vec![
                "sweep",
                "--vary",
                "overshoot=illegal,bounce",
                "--vary",
                "home_lane_cells=5,6",
                "--games",
                "120",
                "--compare",
                "1,4",
                "--rotate-seats",
                "--chunk-size",
                "25",
                "--bots",
                "greedy,random",
            ],
        ),
        (
            "league",
            vec![
                "league",
                "--bots",
                "random,greedy,expectimax:depth=1",
                "--players",
                "3",
                "--games",
                "40",
                "--bootstrap",
                "100",
                "--chunk-size",
                "10",
            ],
        ),
    ]
}

/// Runs `args --out dir -q` (with `env`), returning (exit code, stdout).
fn run_in(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = aeroplane();
    cmd.args(args).arg("--out").arg(dir).arg("-q");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

fn resume(dir: &Path) -> (i32, String, String) {
    let out = aeroplane()
        .args(["resume", "-q"])
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Stdout with the output folder's path replaced, so two folders compare.
fn neutral(stdout: &str, dir: &Path) -> String {
    stdout.replace(&dir.display().to_string(), "DIR")
}

fn status(dir: &Path) -> String {
    let m: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    m["status"].as_str().unwrap().to_string()
}

#[test]
fn every_job_resumes_to_byte_identical_output_wherever_it_was_stopped() {
    let tmp = TempDir::new().unwrap();
    for (name, args) in jobs() {
        let whole = tmp.path().join(format!("{name}-whole"));
        let (code, want) = run_in(&args, &whole, &[]);
        assert_eq!(code, 0, "{name}");
        let want_files = files(&whole);
        assert!(!want_files.iter().any(|f| f.0 == "checkpoint"), "{name}");
        for (after, signal) in [("1", "INT"), ("3", "TERM"), ("6", "USR1")] {
            let dir = tmp.path().join(format!("{name}-{after}"));
            let env = [
                ("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", after),
                ("AEROPLANE_TEST_SIGNAL", signal),
            ];
            let (code, out) = run_in(&args, &dir, &env);
            assert_eq!(
                code, 130,
                "{name} stopped by SIG{signal} after {after} units: {out}"
            );
            assert_eq!(status(&dir), "interrupted", "{name}");
            assert!(out.is_empty(), "an interrupted job prints no report: {out}");
            for f in [
                "summary.csv",
                "summary.json",
                "sweep.csv",
                "league.csv",
                "games.csv",
            ] {
                assert!(!dir.join(f).exists(), "{name}: {f} of an unfinished job");
            }
            let (code, got, err) = resume(&dir);
            assert_eq!(code, 0, "{name}: {err}");
            assert_eq!(
                neutral(&got, &dir),
                neutral(&want, &whole),
                "{name} after {after}"
            );
            assert_eq!(files(&dir), want_files, "{name} after {after}");
        }
    }
}

#[test]
fn a_job_stopped_twice_still_resumes_exactly() {
    let tmp = TempDir::new().unwrap();
    let (_, args) = jobs().remove(0);
    let whole = tmp.path().join("whole");
    run_in(&args, &whole, &[]);
    let dir = tmp.path().join("twice");
    let (code, _) = run_in(&args, &dir, &[("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "2")]);
    assert_eq!(code, 130);
    let again = aeroplane()
        .args(["resume", "-q"])
        .arg(&dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "3")
        .assert()
        .code(130)
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8(again).unwrap();
    assert!(
        text.contains(&format!(
            "To resume, run: aeroplane resume {}",
            dir.display()
        )),
        "{text}"
    );
    // games.csv of an unfinished job is still partial and ends with a whole row: the units
    // folded before the two signals (the other finished games are kept beside the checkpoint).
    let partial = fs::read_to_string(dir.join("games.csv.partial")).unwrap();
    assert!(partial.ends_with('\n'));
    assert_eq!(
        partial.lines().count(),
        1 + 5 * 20 * 3,
        "header + 5 units of 20 deals x 3"
    );
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 0, "{err}");
    assert_eq!(files(&dir), files(&whole));
}

/// The jobs of [`jobs`] with units larger than the job (a stop always lands inside one), on
/// `threads` threads.
fn big_unit_jobs(threads: &'static str) -> Vec<(&'static str, Vec<&'static str>)> {
    jobs()
        .into_iter()
        .map(|(name, mut args)| {
            let at = args.iter().position(|a| *a == "--chunk-size").unwrap();
            args[at + 1] = "1000";
            args.extend(["--threads", threads]);
            (name, args)
        })
        .collect()
}

#[test]
fn a_stop_in_the_middle_of_units_keeps_every_finished_game() {
    let tmp = TempDir::new().unwrap();
    for threads in ["1", "2"] {
        for (name, args) in big_unit_jobs(threads) {
            let whole = tmp.path().join(format!("{name}-{threads}-whole"));
            let (code, want) = run_in(&args, &whole, &[]);
            assert_eq!(code, 0, "{name}");
            let dir = tmp.path().join(format!("{name}-{threads}"));
            let out = aeroplane()
                .args(&args)
                .arg("--out")
                .arg(&dir)
                .arg("-q")
                .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "37")
                .env("AEROPLANE_TEST_SIGNAL", "TERM")
                .output()
                .unwrap();
            let err = String::from_utf8(out.stderr).unwrap();
            assert_eq!(out.status.code(), Some(130), "{name}: {err}");
            assert_eq!(status(&dir), "interrupted", "{name}");
            // Every game finished is counted and kept: on one thread exactly the 37 played
            // before the signal; on two, also what the other worker finished before it saw
            // the signal (a game or a few: these games take microseconds).
            let kept = number_after(&err, "interrupted after ");
            if threads == "1" {
                assert_eq!(kept, 37, "{name}: {err}");
            } else {
                assert!((37..60).contains(&kept), "{name}: {err}");
            }
            let manifest: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
            assert_eq!(manifest["games_played"], kept, "{name}");
            assert!(dir.join("checkpoint.games").exists(), "{name}");

            // The resume uses them (the stop came before any unit was whole) and ends exactly
            // as the run that never stopped.
            let (code, got, err) = resume(&dir);
            assert_eq!(code, 0, "{name}: {err}");
            assert_eq!(
                number_after(&err, "note: resuming: "),
                kept,
                "{name}: {err}"
            );
            let used = err
                .lines()
                .find(|l| l.contains("are not played again"))
                .map(|l| number_after(l, "note: "))
                .unwrap_or_else(|| panic!("{name}: {err}"));
            assert_eq!(used, kept, "{name}: {err}");
            assert!(err.contains("are not played again"), "{name}: {err}");
            assert_eq!(neutral(&got, &dir), neutral(&want, &whole), "{name}");
            assert_eq!(files(&dir), files(&whole), "{name}");
        }
    }
}

#[test]
fn games_kept_at_a_stop_keep_their_decision_log() {
    let tmp = TempDir::new().unwrap();
    let (_, mut args) = big_unit_jobs("2").remove(0);
    args.extend(["--log-games", "g.jsonl.zst"]);
    let whole = tmp.path().join("whole");
    assert_eq!(run_in(&args, &whole, &[]).0, 0);
    let dir = tmp.path().join("stopped");
    let (code, _) = run_in(&args, &dir, &[("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "123")]);
    assert_eq!(code, 130);
    assert!(dir.join("g.jsonl.zst.partial").exists());
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("are not played again"), "{err}");
    assert_eq!(files(&dir), files(&whole));
}

#[test]
fn a_job_stopped_inside_units_twice_resumes_exactly() {
    let tmp = TempDir::new().unwrap();
    let (_, args) = big_unit_jobs("2").remove(2);
    let whole = tmp.path().join("whole");
    run_in(&args, &whole, &[]);
    let dir = tmp.path().join("twice");
    let (code, _) = run_in(&args, &dir, &[("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "100")]);
    assert_eq!(code, 130);
    // The second stop comes 150 games later (the progress count goes on from the games kept).
    let out = aeroplane()
        .args(["resume", "-q"])
        .arg(&dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "250")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(
        (250..300).contains(&number_after(&err, "interrupted after ")),
        "{err}"
    );
    // A damaged file of kept games is not used: its games are played again, same results.
    let kept = dir.join("checkpoint.games");
    let text = fs::read_to_string(&kept).unwrap();
    fs::write(
        &kept,
        text.replacen("\"unfinished\":false", "\"unfinished\":true", 1),
    )
    .unwrap();
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("checkpoint.games cannot be used") && err.contains("played again"),
        "{err}"
    );
    assert!(!kept.exists(), "a complete job keeps no games aside");
    assert_eq!(files(&dir), files(&whole));
}

#[test]
fn a_kill_mid_write_loses_only_the_unit_in_flight() {
    let tmp = TempDir::new().unwrap();
    let (_, args) = jobs().remove(0);
    let whole = tmp.path().join("whole");
    run_in(&args, &whole, &[]);
    let dir = tmp.path().join("killed");
    run_in(&args, &dir, &[("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "4")]);
    // What kill -9 while writing leaves: half a checkpoint record, half a games.csv row.
    let mut c = fs::read(dir.join("checkpoint")).unwrap();
    c.extend_from_slice(b"{\"unit\":4,\"games_csv_end\":12");
    fs::write(dir.join("checkpoint"), c).unwrap();
    let mut g = fs::read(dir.join("games.csv.partial")).unwrap();
    g.extend_from_slice(b"240,80,0,0,1,2,,0,0,1,2,3");
    fs::write(dir.join("games.csv.partial"), g).unwrap();
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("cut short"),
        "the dropped record is said: {err}"
    );
    assert_eq!(files(&dir), files(&whole));
}

#[test]
fn a_damaged_or_foreign_checkpoint_is_never_trusted() {
    let tmp = TempDir::new().unwrap();
    let (_, args) = jobs().remove(0);
    let stop = [("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "3")];
    // An edited record: its checksum no longer matches.
    let dir = tmp.path().join("edited");
    run_in(&args, &dir, &stop);
    let text = fs::read_to_string(dir.join("checkpoint")).unwrap();
    let edited = text.replacen("\"wins\":", "\"wins\":1", 1);
    assert_ne!(edited, text);
    fs::write(dir.join("checkpoint"), edited).unwrap();
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 2);
    assert!(
        err.contains("checksum") && err.contains("cannot be trusted"),
        "{err}"
    );

    // run.json changed under the checkpoint: what differs is named.
    let dir = tmp.path().join("reseeded");
    run_in(&args, &dir, &stop);
    let m = fs::read_to_string(dir.join("run.json")).unwrap();
    fs::write(
        dir.join("run.json"),
        m.replace("\"seed\": 4", "\"seed\": 5"),
    )
    .unwrap();
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 2);
    assert!(
        err.contains("belongs to another job: run.json differs from it in seed ("),
        "{err}"
    );

    // Another version of the tool.
    let dir = tmp.path().join("version");
    run_in(&args, &dir, &stop);
    let m = fs::read_to_string(dir.join("run.json")).unwrap();
    fs::write(
        dir.join("run.json"),
        m.replace("\"version\": \"0.1.0\"", "\"version\": \"0.0.9\""),
    )
    .unwrap();
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 2);
    assert!(
        err.contains("written by aeroplane 0.0.9, this is aeroplane"),
        "{err}"
    );

    // A new run into a folder with an unfinished job is pointed at resume.
    aeroplane()
        .args(&args)
        .arg("--out")
        .arg(tmp.path().join("edited"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("aeroplane resume"));
    // A complete job has nothing to resume.
    let done = tmp.path().join("done");
    run_in(&args, &done, &[]);
    let (code, _, err) = resume(&done);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to resume"), "{err}");
    // Issue 31, item 24: so has a complete shard, with the same exit code (it exited 0).
    let shard = tmp.path().join("shard");
    run_in(&[&args[..], &["--shard", "0/2"]].concat(), &shard, &[]);
    let (code, _, err) = resume(&shard);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("complete shard (0/2)") && err.contains("aeroplane merge"),
        "{err}"
    );
}

/// Runs `args` as `n` shards into `root/shard-K`, returning the folders.
fn shards(args: &[&str], root: &Path, n: u64) -> Vec<PathBuf> {
    (0..n)
        .map(|k| {
            let dir = root.join(format!("shard-{k}"));
            let spec = format!("{k}/{n}");
            let (code, out) = run_in(&[args, &["--shard", &spec]].concat(), &dir, &[]);
            assert_eq!(code, 0, "{out}");
            assert!(out.starts_with(&format!("shard {k}/{n} done")), "{out}");
            dir
        })
        .collect()
}

fn merge(out: &Path, dirs: &[PathBuf], extra: &[&str]) -> std::process::Output {
    aeroplane()
        .arg("merge")
        .arg(out)
        .args(dirs)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn shards_merge_into_exactly_one_runs_files() {
    let tmp = TempDir::new().unwrap();
    for (name, args) in jobs() {
        let whole = tmp.path().join(format!("{name}-whole"));
        let (_, want) = run_in(&args, &whole, &[]);
        let counts: &[u64] = if name == "run" { &[1, 2, 3, 7] } else { &[3] };
        for &n in counts {
            let root = tmp.path().join(format!("{name}-{n}"));
            let mut dirs = shards(&args, &root, n);
            dirs.reverse();
            let out = root.join("merged");
            let o = merge(&out, &dirs, &[]);
            assert!(
                o.status.success(),
                "{name} x{n}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let got = String::from_utf8(o.stdout).unwrap();
            assert_eq!(neutral(&got, &out), neutral(&want, &whole), "{name} x{n}");
            assert_eq!(files(&out), files(&whole), "{name} x{n}");
        }
    }
}

#[test]
fn a_sharded_sweep_gives_every_shard_a_mix_of_variants() {
    let tmp = TempDir::new().unwrap();
    let (_, args) = jobs().remove(2);
    let dirs = shards(&args, tmp.path(), 2);
    for d in dirs {
        let text = fs::read_to_string(d.join("checkpoint")).unwrap();
        let units: Vec<u64> = text
            .lines()
            .skip(1)
            .filter_map(|l| {
                let v: serde_json::Value =
                    serde_json::from_str(l.rsplit_once('\t').unwrap().0).unwrap();
                // Sync marks ("synced") are not records.
                v["unit"].as_u64()
            })
            .collect();
        // 4 variants x 5 units each: units dealt round-robin reach every variant.
        let variants: std::collections::BTreeSet<u64> = units.iter().map(|u| u / 5).collect();
        assert_eq!(variants.len(), 4, "{units:?}");
    }
}

#[test]
fn merges_of_wrong_sets_are_refused_naming_the_folder() {
    let tmp = TempDir::new().unwrap();
    let (_, args) = jobs().remove(0);
    let dirs = shards(&args, &tmp.path().join("a"), 3);
    let other = shards(
        &[&args[..], &["--first-game", "5"]].concat(),
        &tmp.path().join("b"),
        3,
    );
    let err = |o: std::process::Output| {
        assert!(!o.status.success());
        String::from_utf8(o.stderr).unwrap()
    };
    let e = err(merge(
        &tmp.path().join("m1"),
        &[dirs[0].clone(), dirs[1].clone(), other[2].clone()],
        &[],
    ));
    assert!(
        e.contains(&other[2].display().to_string()) && e.contains("they differ in first_game"),
        "{e}"
    );
    let e = err(merge(
        &tmp.path().join("m2"),
        &[dirs[0].clone(), dirs[1].clone(), dirs[1].clone()],
        &[],
    ));
    assert!(e.contains("both hold shard 1/3"), "{e}");
    let e = err(merge(&tmp.path().join("m3"), &dirs[..2], &[]));
    assert!(
        e.contains("shard(s) 2 of 3 missing") && e.contains("--allow-partial"),
        "{e}"
    );
    let plain = tmp.path().join("plain");
    run_in(&args, &plain, &[]);
    let e = err(merge(
        &tmp.path().join("m4"),
        std::slice::from_ref(&plain),
        &[],
    ));
    assert!(e.contains("is not a shard"), "{e}");
    // An unfinished shard.
    let stopped = tmp.path().join("stopped");
    let (code, _) = run_in(
        &[&args[..], &["--shard", "2/3"]].concat(),
        &stopped,
        &[("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "1")],
    );
    assert_eq!(code, 130);
    let e = err(merge(
        &tmp.path().join("m5"),
        &[dirs[0].clone(), dirs[1].clone(), stopped.clone()],
        &[],
    ));
    assert!(
        e.contains("unfinished") && e.contains(&format!("aeroplane resume {}", stopped.display())),
        "{e}"
    );
    // A stopped shard resumes like any job, and then merges.
    let (code, out, _) = resume(&stopped);
    assert_eq!(code, 0);
    assert!(out.starts_with("shard 2/3 done"), "{out}");
    let whole = tmp.path().join("whole");
    run_in(&args, &whole, &[]);
    let m6 = tmp.path().join("m6");
    assert!(
        merge(&m6, &[dirs[0].clone(), dirs[1].clone(), stopped], &[])
            .status
            .success()
    );
    assert_eq!(files(&m6), files(&whole));
    // --allow-partial summarises what is there, and says so.
    let m7 = tmp.path().join("m7");
    let o = merge(&m7, &dirs[..2], &["--allow-partial"]);
    assert!(o.status.success());
    assert!(String::from_utf8(o.stderr).unwrap().contains("PARTIAL"));
    assert_eq!(status(&m7), "partial");
}

#[test]
fn shard_specs_are_checked_and_read_from_slurm() {
    let tmp = TempDir::new().unwrap();
    for (spec, message) in [
        ("4/4", "0-based"),
        ("1/0", "below the count"),
        ("x", "give K/N"),
        ("slurm", "SLURM_ARRAY_TASK_ID is not set"),
    ] {
        aeroplane()
            .args(["run", "--games", "10", "-q", "--shard", spec, "--out"])
            .arg(tmp.path().join("x"))
            .env_remove("SLURM_ARRAY_TASK_ID")
            .assert()
            .failure()
            .stderr(predicate::str::contains(message));
    }
    aeroplane()
        .args(["run", "--games", "10", "-q", "--shard", "0/2"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "--shard keeps its units for a merge into the output folder: give --out",
        ));
    // A 1-based array of 3 tasks: task 2 is shard 1/3.
    aeroplane()
        .args(["run", "--games", "600", "-q", "--shard", "slurm", "--out"])
        .arg(tmp.path().join("s"))
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("shard 1/3 done"));
}

/// A resume says at its start how many games it restored and how many are left, before the
/// notes on what it found; its closing line counts only the games this process played and
/// names the restored ones apart (issue 31 item 24: it counted the restored games as played,
/// and the note on them came at the end).
#[test]
fn a_resume_counts_restored_games_apart_from_those_it_plays() {
    let tmp = TempDir::new().unwrap();
    let args = [
        "run",
        "--games",
        "300",
        "--chunk-size",
        "20",
        "--threads",
        "1",
    ];
    let dir = tmp.path().join("run");
    let out = aeroplane()
        .args(args)
        .arg("--out")
        .arg(&dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "137")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(130));
    let out = aeroplane().arg("resume").arg(&dir).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[0], "note: resuming: 137 of 300 games restored from the checkpoint, 163 left to play",
        "{err}"
    );
    // The games kept beyond the whole units in the checkpoint: said at the start too, and only
    // there. How many units the checkpoint holds depends on how far its writer had got when the
    // signal came (six on an idle machine: 17 games beyond them; fewer under load, then 20 more
    // games per unit are kept instead), so any count of whole units adding up to 137 is right.
    let kept: u64 = lines[1]
        .strip_prefix("note: ")
        .and_then(|l| l.strip_suffix(" games finished before the stop, beyond the whole units kept, are used: they are not played again"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("not the kept-games note: {err}"));
    assert!(kept >= 17 && (137 - kept).is_multiple_of(20), "{err}");
    assert_eq!(err.matches("are not played again").count(), 1, "{err}");
    let last = lines.last().unwrap();
    assert!(last.starts_with("played 163 games in "), "{err}");
    assert!(
        last.ends_with("; 137 more were restored from the checkpoint"),
        "{err}"
    );
}

/// A folder with no status record: the refusal names every job's record, not only run.json
/// (a solve or grade folder is resumed too; issue 31 item 26).
#[test]
fn a_folder_without_a_status_record_is_refused_naming_every_record() {
    let tmp = TempDir::new().unwrap();
    aeroplane()
        .arg("resume")
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "holds no job's status record (run.json, solve.json, grade.json or train.json)",
        ));
}

#[test]
fn games_kept_at_a_stop_are_played_again_when_the_run_measures_luck() {
    // A kept game carries no luck: the resume says it plays those games again, counts them
    // once, and ends with the files of the run that never stopped (luck.csv included).
    let tmp = TempDir::new().unwrap();
    let net = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/bots/nets/td-classic-2p.safetensors"
    );
    let args = [
        "run",
        "--rules",
        "classic",
        "--bots",
        "greedy,random",
        "--rotate-seats",
        "--games",
        "400",
        "--chunk-size",
        "1000",
        "--threads",
        "1",
        "--seed",
        "7",
        "--luck",
        net,
    ];
    let whole = tmp.path().join("whole");
    assert_eq!(run_in(&args, &whole, &[]).0, 0);
    assert!(whole.join("luck.csv").exists());
    let dir = tmp.path().join("stopped");
    let (code, _) = run_in(&args, &dir, &[("AEROPLANE_TEST_SIGNAL_AFTER_GAMES", "37")]);
    assert_eq!(code, 130);
    assert!(dir.join("checkpoint.games").exists());
    let (code, _, err) = resume(&dir);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("are not played again"), "{err}");
    assert_eq!(number_after(&err, "note: resuming: "), 0, "{err}");
    let again = err
        .lines()
        .find(|l| l.contains("are played again to measure their luck"))
        .map(|l| number_after(l, "note: "))
        .unwrap_or_else(|| panic!("{err}"));
    assert_eq!(again, 37, "{err}");
    assert_eq!(files(&dir), files(&whole));
}
