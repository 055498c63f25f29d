//! The reproductions of issue 21, each now resumable and byte-identical, or refused before
//! anything is written with a message that names the cause. Stops at exact file-system steps
//! use the test hook `AEROPLANE_TEST_FAULT` (see `crash_points.rs`).

use crate::common::{aeroplane, files};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use tempfile::TempDir;

/// A run with games.csv, three units.
const RUN: [&str; 12] = [
    "run",
    "--games",
    "60",
    "--bots",
    "greedy,random",
    "--rotate-seats",
    "--per-game",
    "--chunk-size",
    "20",
    "--seed",
    "4",
    "-q",
];

fn run(args: &[&str], dir: &Path, env: &[(&str, String)]) -> Output {
    let mut cmd = aeroplane();
    cmd.args(args).arg("--out").arg(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn resume(dir: &Path) -> Output {
    aeroplane()
        .args(["resume", "-q"])
        .arg(dir)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

/// The file-system steps of `args` into a fresh folder, as the test hook lists them.
fn steps(args: &[&str], root: &Path) -> Vec<String> {
    let log = root.join("steps.log");
    let _ = fs::remove_file(&log);
    let o = run(
        args,
        &root.join("listing"),
        &[("AEROPLANE_TEST_FAULT_LOG", log.display().to_string())],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    fs::remove_dir_all(root.join("listing")).unwrap();
    fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// 1-based index of the first step after `from` (0: from the start) that ends with `what`.
fn step_at(steps: &[String], from: usize, what: &str) -> usize {
    from + 1
        + steps[from..]
            .iter()
            .position(|s| s.ends_with(what))
            .unwrap_or_else(|| panic!("no step `{what}` after {from}: {steps:#?}"))
}

fn killed_at(args: &[&str], dir: &Path, step: usize) -> Output {
    let o = run(
        args,
        dir,
        &[("AEROPLANE_TEST_FAULT", format!("kill@{step}"))],
    );
    assert_eq!(o.status.code(), None, "killed by a signal");
    o
}

/// An uninterrupted run of `args` into `root/whole`: (stdout with the folder as DIR, files).
fn whole(args: &[&str], root: &Path) -> (String, Vec<(String, Vec<u8>)>) {
    let dir = root.join("whole");
    let o = run(args, &dir, &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    (neutral(&o.stdout, &dir), files(&dir))
}

fn neutral(stdout: &[u8], dir: &Path) -> String {
    text(stdout).replace(&dir.display().to_string(), "DIR")
}

#[track_caller]
fn assert_resumes_to(dir: &Path, want: &(String, Vec<(String, Vec<u8>)>)) {
    let o = resume(dir);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(neutral(&o.stdout, dir), want.0);
    assert_eq!(files(dir), want.1);
}

#[test]
fn a_kill_after_games_csv_is_renamed_resumes_identically() {
    // Item 1: killed between renaming games.csv into place and the end (the tables being
    // written), the folder could not resume ("cannot write games.csv.partial").
    let tmp = TempDir::new().unwrap();
    let want = whole(&RUN, tmp.path());
    let steps = steps(&RUN, tmp.path());
    let renamed = step_at(&steps, 0, "rename games.csv");
    for at in renamed + 1..=steps.len() {
        let dir = tmp.path().join(format!("k{at}"));
        killed_at(&RUN, &dir, at);
        if !dir.join("checkpoint").exists() {
            // Killed after the commit and the checkpoint's removal: complete already.
            assert_eq!(manifest(&dir)["status"], "complete");
            continue;
        }
        assert_resumes_to(&dir, &want);
    }
}

#[test]
fn a_kill_around_run_json_at_the_start_or_the_end_resumes_identically() {
    // Item 2: killed after the checkpoint was removed but before the last run.json (or just
    // after the first run.json, before the checkpoint existed), the folder said `running` and
    // had no checkpoint: "cannot write DIR/checkpoint". The checkpoint now goes only after
    // run.json says complete, and a folder without one starts again.
    let tmp = TempDir::new().unwrap();
    let want = whole(&RUN, tmp.path());
    let steps = steps(&RUN, tmp.path());
    let first = step_at(&steps, 0, "rename run.json");
    let checkpoint = step_at(&steps, first, "rename checkpoint");
    let games = step_at(&steps, 0, "rename games.csv");
    let last = step_at(&steps, games, "rename run.json");
    for at in (first + 1..=checkpoint).chain(games + 1..=last + 1) {
        let dir = tmp.path().join(format!("k{at}"));
        killed_at(&RUN, &dir, at);
        let status = manifest(&dir)["status"].clone();
        if status == "complete" {
            assert!(dir.join("checkpoint").exists(), "step {at}: removed after");
        }
        assert_resumes_to(&dir, &want);
    }
}

#[test]
fn rows_are_synced_before_the_records_that_point_past_them() {
    // Item 3: every sync of the checkpoint (its sync mark and fsync) comes after a sync of
    // games.csv.partial, so a record before a mark always has its rows on the disk.
    let tmp = TempDir::new().unwrap();
    let steps = steps(&RUN, tmp.path());
    let syncs: Vec<usize> = (0..steps.len())
        .filter(|&i| steps[i].ends_with(" sync checkpoint"))
        .collect();
    assert!(!syncs.is_empty());
    for i in syncs {
        assert!(
            steps[i - 1].ends_with(" write checkpoint")
                && steps[i - 2].ends_with(" sync games.csv.partial"),
            "{:#?}",
            &steps[i - 2..=i]
        );
    }
}

/// The records of a checkpoint before its last sync mark, and where their rows end.
fn synced_rows_end(checkpoint: &Path) -> u64 {
    let mut end = 0;
    let mut pending = 0;
    for line in fs::read_to_string(checkpoint).unwrap().lines().skip(1) {
        let json = line.rsplit_once('\t').unwrap().0;
        if json == "\"synced\"" {
            end = pending;
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        pending = v["games_csv_end"].as_u64().unwrap();
    }
    end
}

#[test]
fn rows_lost_after_the_last_sync_are_played_again() {
    // Item 3, the power cut: the checkpoint reached the disk ahead of games.csv.partial. A
    // record after the last sync mark whose rows are missing is dropped and its unit played
    // again.
    let tmp = TempDir::new().unwrap();
    let want = whole(&RUN, tmp.path());
    let steps = steps(&RUN, tmp.path());
    // Killed just after the second unit's record was written, before its sync.
    let first_record = step_at(
        &steps,
        step_at(&steps, 0, "rename checkpoint"),
        "write checkpoint",
    );
    let second_record = step_at(&steps, first_record + 3, "write checkpoint");
    let dir = tmp.path().join("cut");
    killed_at(&RUN, &dir, second_record + 1);
    let partial = dir.join("games.csv.partial");
    let synced = synced_rows_end(&dir.join("checkpoint"));
    assert!(synced > 0 && synced < fs::metadata(&partial).unwrap().len());
    // What the power cut lost: the rows written after the last sync.
    let f = fs::OpenOptions::new().write(true).open(&partial).unwrap();
    f.set_len(synced).unwrap();
    drop(f);
    let o = resume(&dir);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(
        err.contains("1 units of the checkpoint had no rows on the disk"),
        "{err}"
    );
    assert_eq!(neutral(&o.stdout, &dir), want.0);
    assert_eq!(files(&dir), want.1);
}

#[test]
fn a_full_disk_mid_run_fails_saying_so_and_resumes_identically() {
    // Item 4: a full disk left run.json at `running` (its update needed space too); and the
    // message said the file twice (item 15).
    let tmp = TempDir::new().unwrap();
    let want = whole(&RUN, tmp.path());
    let steps = steps(&RUN, tmp.path());
    let at = step_at(
        &steps,
        step_at(&steps, 0, "rename checkpoint") + 3,
        "write games.csv.partial",
    );
    let dir = tmp.path().join("full");
    let o = run(
        &RUN,
        &dir,
        &[("AEROPLANE_TEST_FAULT", format!("enospc@{at}"))],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert_eq!(
        err.trim(),
        format!(
            "error: cannot write {}: No space left on device (os error 28)",
            dir.join("games.csv.partial").display()
        )
    );
    let m = manifest(&dir);
    assert_eq!(m["status"], "failed");
    assert!(
        m["error"]
            .as_str()
            .unwrap()
            .contains("No space left on device"),
        "{m}"
    );
    assert_resumes_to(&dir, &want);
}

#[test]
fn a_record_cut_short_is_not_blamed_on_a_kill_alone() {
    // Item 15: "the job was killed while writing it", when the disk was full.
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("cut");
    let o = run(
        &RUN,
        &dir,
        &[("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "1".into())],
    );
    assert_eq!(o.status.code(), Some(130));
    let mut c = fs::read(dir.join("checkpoint")).unwrap();
    c.extend_from_slice(b"{\"unit\":1,\"games_csv_end\":12");
    fs::write(dir.join("checkpoint"), c).unwrap();
    let o = resume(&dir);
    assert!(o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("cut short (the job stopped while writing it: a kill, a crash, a power cut or a full disk)"),
        "{err}"
    );
}

/// Runs `args` into `dir`, stopped after `units` units by the signal hook.
fn stopped(args: &[&str], dir: &Path, units: u32) {
    let o = run(
        args,
        dir,
        &[("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", units.to_string())],
    );
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
}

#[test]
fn a_record_of_another_job_is_refused_by_resume_and_merge() {
    // Item 5: a record spliced from another job's checkpoint passed the checks; resume wrote a
    // summary.csv that contradicted games.csv, merge rows with the wrong number of fields.
    let tmp = TempDir::new().unwrap();
    let other: Vec<&str> = RUN
        .iter()
        .map(|a| if *a == "4" { "5" } else { a })
        .collect();
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    stopped(&RUN, &a, 2);
    stopped(&other, &b, 2);
    let splice = |from: &Path, to: &Path, n: usize| {
        let line = |p: &Path, n: usize| {
            fs::read_to_string(p.join("checkpoint"))
                .unwrap()
                .lines()
                .filter(|l| !l.starts_with("\"synced\""))
                .nth(n)
                .unwrap()
                .to_string()
        };
        let theirs = line(from, n);
        let text = fs::read_to_string(to.join("checkpoint")).unwrap();
        let ours = line(to, n);
        fs::write(to.join("checkpoint"), text.replace(&ours, &theirs)).unwrap();
    };
    splice(&b, &a, 2);
    let before = files(&a);
    let o = resume(&a);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("checkpoint, line ") && err.contains("a line of another job"),
        "{err}"
    );
    assert_eq!(files(&a), before, "refused before anything is written");

    // The same in a shard: merge refuses it before writing anything.
    let shard = |args: &[&str], k: u32| {
        let d = tmp.path().join(format!("{}-{k}", args[10]));
        let spec = format!("{k}/2");
        let o = run(&[args, &["--shard", spec.as_str()]].concat(), &d, &[]);
        assert!(o.status.success(), "{}", text(&o.stderr));
        d
    };
    let (s0, s1) = (shard(&RUN, 0), shard(&RUN, 1));
    let t1 = shard(&other, 1);
    splice(&t1, &s1, 1);
    let out = tmp.path().join("merged");
    let o = aeroplane()
        .arg("merge")
        .arg(&out)
        .args([&s0, &s1])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(err.contains("a line of another job"), "{err}");
    assert!(!out.join("run.json").exists());
}

#[test]
fn an_edited_games_csv_row_is_refused_by_resume_and_merge() {
    // Item 5: a games.csv.partial row edited in place (same length) was accepted on resume.
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("edited");
    stopped(&RUN, &dir, 2);
    let edit = |p: &Path| {
        let text = fs::read_to_string(p).unwrap();
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let mut cols: Vec<String> = lines[3].split(',').map(String::from).collect();
        // winner_seat, to a seat that is not in the game.
        cols[7] = "9".into();
        lines[3] = cols.join(",");
        fs::write(p, lines.join("\n") + "\n").unwrap();
    };
    edit(&dir.join("games.csv.partial"));
    let before = files(&dir);
    let o = resume(&dir);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("games.csv.partial: the rows of unit 0 (from line 2,")
            && err.contains("do not match the checkpoint")
            && err.contains("the file was edited or damaged"),
        "{err}"
    );
    // No line 0, and the checkpoint is not the file blamed.
    assert!(
        !err.contains("line 0") && !err.contains("the checkpoint was edited"),
        "{err}"
    );
    assert_eq!(files(&dir), before);

    // In a shard, the merge finds it while copying and fails naming the shard's file.
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let d = tmp.path().join(format!("s{k}"));
            let spec = format!("{k}/2");
            assert!(
                run(&[&RUN[..], &["--shard", spec.as_str()]].concat(), &d, &[])
                    .status
                    .success()
            );
            d
        })
        .collect();
    edit(&shards[1].join("games.csv.partial"));
    let out = tmp.path().join("merged");
    let o = aeroplane()
        .arg("merge")
        .arg(&out)
        .args(&shards)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "{}",
            shards[1].join("games.csv.partial").display()
        )) && err.contains("the rows of unit 1 (bytes "),
        "{err}"
    );
    assert!(!err.contains("line 0"), "{err}");
    assert_eq!(manifest(&out)["status"], "failed");
}

#[test]
fn a_merge_into_one_of_its_shards_is_refused_before_anything_is_touched() {
    // Item 11: `merge --force OUT ...` with OUT one of the shards deleted that shard.
    let tmp = TempDir::new().unwrap();
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let d = tmp.path().join(format!("s{k}"));
            let spec = format!("{k}/2");
            assert!(
                run(&[&RUN[..], &["--shard", spec.as_str()]].concat(), &d, &[])
                    .status
                    .success()
            );
            d
        })
        .collect();
    let before = files(&shards[1]);
    let o = aeroplane()
        .arg("merge")
        .arg("--force")
        .arg(tmp.path().join("s1/../s1"))
        .args(&shards)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("is one of its shards"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(files(&shards[1]), before);
}

/// Makes a fifo at `path`.
fn mkfifo(path: &Path) {
    let _ = fs::remove_file(path);
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn a_fifo_or_a_device_in_a_folder_is_refused_at_once() {
    // Item 13: a fifo at any name the tool reads hung report, resume, merge and run --out (one
    // survived SIGTERM for 727 s); a lock linked to /dev/zero was read whole (4.2 GB). The
    // timeout below only keeps a regression from hanging the test suite.
    let tmp = TempDir::new().unwrap();
    let stopped_dir = tmp.path().join("stopped");
    stopped(&RUN, &stopped_dir, 1);
    let done = tmp.path().join("done");
    assert!(run(&RUN, &done, &[]).status.success());
    let shard = tmp.path().join("shard");
    assert!(
        run(&[&RUN[..], &["--shard", "0/1"]].concat(), &shard, &[])
            .status
            .success()
    );
    let bounded = |mut cmd: assert_cmd::Command| {
        cmd.timeout(std::time::Duration::from_secs(120))
            .output()
            .unwrap()
    };
    for name in [
        "run.json",
        "checkpoint",
        ".aeroplane.lock",
        "games.csv.partial",
    ] {
        let dir = tmp.path().join(format!("resume-{name}"));
        copy_dir(&stopped_dir, &dir);
        mkfifo(&dir.join(name));
        let mut cmd = aeroplane();
        cmd.args(["resume", "-q"]).arg(&dir);
        let o = bounded(cmd);
        assert_eq!(o.status.code(), Some(2), "resume with a fifo as {name}");
        assert!(
            text(&o.stderr).contains("fifo"),
            "{name}: {}",
            text(&o.stderr)
        );
    }
    for name in ["run.json", "summary.json", ".aeroplane.lock"] {
        let dir = tmp.path().join(format!("report-{name}"));
        copy_dir(&done, &dir);
        mkfifo(&dir.join(name));
        let mut cmd = aeroplane();
        cmd.arg("report").arg(&dir);
        let o = bounded(cmd);
        assert_eq!(o.status.code(), Some(2), "report with a fifo as {name}");
    }
    for name in ["run.json", "checkpoint", "games.csv.partial"] {
        let dir = tmp.path().join(format!("merge-{name}"));
        copy_dir(&shard, &dir);
        mkfifo(&dir.join(name));
        let mut cmd = aeroplane();
        cmd.arg("merge")
            .arg(tmp.path().join(format!("m-{name}")))
            .arg(&dir);
        let o = bounded(cmd);
        assert_eq!(o.status.code(), Some(2), "merge with a fifo as {name}");
    }
    for name in ["run.json", ".aeroplane.lock", "summary.csv"] {
        let dir = tmp.path().join(format!("run-{name}"));
        fs::create_dir_all(&dir).unwrap();
        mkfifo(&dir.join(name));
        let mut cmd = aeroplane();
        cmd.args(RUN).arg("--out").arg(&dir);
        let o = bounded(cmd);
        assert_eq!(o.status.code(), Some(2), "run --out with a fifo as {name}");
    }
    let dir = tmp.path().join("zero");
    copy_dir(&done, &dir);
    std::os::unix::fs::symlink("/dev/zero", dir.join(".aeroplane.lock")).unwrap();
    let mut cmd = aeroplane();
    cmd.arg("report").arg(&dir);
    let o = bounded(cmd);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("symbolic link"),
        "{}",
        text(&o.stderr)
    );
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn a_resumed_job_writes_the_report_it_was_asked_for() {
    // Item 14: `resume` dropped report.html of a `run --report` job.
    let tmp = TempDir::new().unwrap();
    let args = [&RUN[..], &["--report"]].concat();
    let dir = tmp.path().join("stopped");
    stopped(&args, &dir, 1);
    assert_eq!(manifest(&dir)["report"], true);
    let o = resume(&dir);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let whole = tmp.path().join("whole");
    assert!(run(&args, &whole, &[]).status.success());
    let page = |d: &Path| {
        fs::read_to_string(d.join("report.html"))
            .unwrap()
            .replace(&d.display().to_string(), "DIR")
    };
    assert_eq!(page(&dir), page(&whole));
    assert!(
        text(&o.stdout).contains("report.html"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn a_partial_merge_says_so_in_every_file() {
    // Item 14: `merge --allow-partial` marked only run.json and stderr: stdout, summary.json
    // and the CSV tables looked complete.
    let tmp = TempDir::new().unwrap();
    let shards: Vec<PathBuf> = (0..3)
        .map(|k| {
            let d = tmp.path().join(format!("s{k}"));
            let spec = format!("{k}/3");
            assert!(
                run(&[&RUN[..], &["--shard", spec.as_str()]].concat(), &d, &[])
                    .status
                    .success()
            );
            d
        })
        .collect();
    let out = tmp.path().join("partial");
    let o = aeroplane()
        .arg("merge")
        .arg(&out)
        .args(&shards[..2])
        .arg("--allow-partial")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).starts_with("PARTIAL: "),
        "{}",
        text(&o.stdout)
    );
    assert_eq!(manifest(&out)["status"], "partial");
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "partial");
    let names: Vec<String> = files(&out).into_iter().map(|f| f.0).collect();
    for f in names.iter().filter(|f| f.ends_with(".csv")) {
        assert!(f.starts_with("PARTIAL-"), "{names:?}");
    }
    assert!(
        names.contains(&"PARTIAL-summary.csv".to_string()),
        "{names:?}"
    );
    // The report reads them, and says the job did not complete.
    let r = aeroplane().arg("report").arg(&out).output().unwrap();
    assert!(r.status.success(), "{}", text(&r.stderr));
    let page = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("did not complete"), "{page}");
}

#[test]
fn a_killed_shard_is_described_by_what_its_checkpoint_keeps() {
    // Item 15: a kill -9'd shard was refused as "0 of N games" though its checkpoint held units.
    let tmp = TempDir::new().unwrap();
    let args = [&RUN[..], &["--shard", "0/2"]].concat();
    let steps = steps(&args, tmp.path());
    let second = step_at(
        &steps,
        step_at(
            &steps,
            step_at(&steps, 0, "rename checkpoint"),
            "sync checkpoint",
        ),
        "sync checkpoint",
    );
    let s0 = tmp.path().join("s0");
    killed_at(&args, &s0, second + 1);
    assert_eq!(manifest(&s0)["status"], "running");
    let s1 = tmp.path().join("s1");
    assert!(
        run(&[&RUN[..], &["--shard", "1/2"]].concat(), &s1, &[])
            .status
            .success()
    );
    let o = aeroplane()
        .arg("merge")
        .arg(tmp.path().join("m"))
        .args([&s0, &s1])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("unfinished (status running; its checkpoint keeps 80 of its 80 games)")
            || err.contains("its checkpoint keeps 40 of its 80 games"),
        "{err}"
    );
}

#[test]
fn rows_that_end_before_they_start_are_refused_without_an_underflow() {
    // Item 15: "ended 18446744073709409333 bytes early" in a merge error.
    let tmp = TempDir::new().unwrap();
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let d = tmp.path().join(format!("s{k}"));
            let spec = format!("{k}/2");
            assert!(
                run(&[&RUN[..], &["--shard", spec.as_str()]].concat(), &d, &[])
                    .status
                    .success()
            );
            d
        })
        .collect();
    // A shard whose rows file is missing: read, not written.
    fs::remove_file(shards[1].join("games.csv.partial")).unwrap();
    let o = aeroplane()
        .arg("merge")
        .arg(tmp.path().join("m"))
        .args(&shards)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "cannot read {}",
            shards[1].join("games.csv.partial").display()
        )),
        "{err}"
    );
    assert!(!err.contains("1844674407"), "{err}");
}

#[test]
fn a_job_of_a_million_million_games_starts_at_once() {
    // Item 16: `--games 1000000000000` aborted (an 8 GiB plan) before any game.
    let o = aeroplane()
        .args(["run", "--games", "1000000000000", "--threads", "1", "-q"])
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "1")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("of 4,000,000,000,000 games")
            || text(&o.stderr).contains("of 1,000,000,000,000 games"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_stop_by_sighup_is_clean_and_resumes() {
    // Item 9: SIGHUP (the terminal closed) was not handled: exit 129, status running.
    let tmp = TempDir::new().unwrap();
    let args = [
        "run",
        "--games",
        "20000",
        "--bots",
        "greedy,random",
        "--per-game",
        "--chunk-size",
        "50",
        "--threads",
        "1",
        "-q",
    ];
    let want = whole(&args, tmp.path());
    let dir = tmp.path().join("hup");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_aeroplane"));
    cmd.args(args)
        .arg("--out")
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    // SAFETY: between fork and exec, only resets a signal's disposition (this test may run
    // with SIGHUP ignored, as under nohup).
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    // Once a unit is kept, the terminal goes.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while fs::read_to_string(dir.join("checkpoint"))
        .map(|c| c.lines().count() < 2)
        .unwrap_or(true)
    {
        assert!(std::time::Instant::now() < deadline, "no unit was kept");
        std::thread::yield_now();
    }
    // SAFETY: signals our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert_eq!(manifest(&dir)["status"], "interrupted");
    assert!(!dir.join(".aeroplane.lock").exists());
    assert_resumes_to(&dir, &want);
}

#[test]
fn a_merge_stops_on_a_signal_and_resume_finishes_it() {
    // Item 9: merge handled no signal (status running, lock left).
    let tmp = TempDir::new().unwrap();
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| {
            let d = tmp.path().join(format!("s{k}"));
            let spec = format!("{k}/2");
            assert!(
                run(&[&RUN[..], &["--shard", spec.as_str()]].concat(), &d, &[])
                    .status
                    .success()
            );
            d
        })
        .collect();
    let want = tmp.path().join("want");
    let w = aeroplane()
        .arg("merge")
        .arg(&want)
        .args(&shards)
        .output()
        .unwrap();
    assert!(w.status.success());
    for sig in ["INT", "TERM", "HUP", "USR1"] {
        let out = tmp.path().join(format!("m-{sig}"));
        let o = aeroplane()
            .arg("merge")
            .arg(&out)
            .args(&shards)
            .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "1")
            .env("AEROPLANE_TEST_SIGNAL", sig)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(130), "{sig}: {}", text(&o.stderr));
        assert!(
            text(&o.stderr).contains(&format!("aeroplane resume {}", out.display())),
            "{}",
            text(&o.stderr)
        );
        let m = manifest(&out);
        assert_eq!(m["status"], "interrupted");
        assert_eq!(m["merge"]["shards"].as_array().unwrap().len(), 2);
        assert!(!out.join(".aeroplane.lock").exists());
        let r = aeroplane()
            .args(["resume", "-q"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", text(&r.stderr));
        assert_eq!(neutral(&r.stdout, &out), neutral(&w.stdout, &want));
        assert_eq!(files(&out), files(&want));
    }
}

#[test]
fn report_pages_show_control_characters_escaped() {
    // Item 15: a raw U+001B from summary.json reached report.html (and made it invalid XML).
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("r");
    assert!(run(&RUN, &dir, &[]).status.success());
    let s = fs::read_to_string(dir.join("summary.json")).unwrap();
    let s = s.replacen("aeroplane run: rules", "aeroplane run: \\u001b[31mrules", 1);
    fs::write(dir.join("summary.json"), s).unwrap();
    let o = aeroplane().arg("report").arg(&dir).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(!page.contains('\u{1b}'));
    assert!(
        page.contains("\\u{1b}[31mrules"),
        "the title keeps the escape, visible"
    );
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(&page, opts).expect("the page is XML");
}

#[test]
fn a_stop_during_a_leagues_rating_fit_is_clean_and_resumes() {
    // Item 9: SIGTERM was ignored during a league's rating fit and bootstrap (15 s on, and
    // under `timeout` 4 minutes as an orphan). A stop after the last unit reaches the fit,
    // which now stops: status interrupted, every unit kept, and resume fits again.
    let tmp = TempDir::new().unwrap();
    let args = [
        "league",
        "--bots",
        "random,greedy,expectimax:depth=1",
        "--players",
        "3",
        "--games",
        "10",
        "--bootstrap",
        "10000",
        "--chunk-size",
        "5",
        "-q",
    ];
    let want = whole(&args, tmp.path());
    let dir = tmp.path().join("fit");
    // 3 tables of 2 units: the signal comes as the last unit is folded.
    let o = run(
        &args,
        &dir,
        &[
            ("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "6".into()),
            ("AEROPLANE_TEST_SIGNAL", "TERM".into()),
        ],
    );
    assert_eq!(o.status.code(), Some(130), "{}", text(&o.stderr));
    let m = manifest(&dir);
    assert_eq!(m["status"], "interrupted");
    assert_eq!(m["games_played"], 90);
    assert!(!dir.join("league.csv").exists());
    assert_resumes_to(&dir, &want);
}
