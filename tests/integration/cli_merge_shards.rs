//! `aeroplane merge` of many shards (as a cluster job array makes): it must not hold every
//! shard's rows open at once, so it works under a low limit of open files.

#![cfg(unix)]

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_aeroplane");
const RUN: [&str; 10] = [
    "run",
    "--bots",
    "greedy,random",
    "--games",
    "80",
    "--chunk-size",
    "1",
    "--per-game",
    "--threads",
    "1",
];

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn a_merge_of_more_shards_than_open_files_allowed_equals_the_whole_run() {
    let tmp = TempDir::new().unwrap();
    let dir = |name: &str| tmp.path().join(name);
    let shards = 80;
    for k in 0..shards {
        ok(Command::new(BIN)
            .args(RUN)
            .args(["-q", "--shard", &format!("{k}/{shards}"), "--out"])
            .arg(dir(&format!("s{k}"))));
    }
    ok(Command::new(BIN)
        .args(RUN)
        .args(["-q", "--out"])
        .arg(dir("whole")));
    // 32 open files at most: fewer than the shards.
    let mut merge = Command::new("sh");
    merge
        .arg("-c")
        .arg(r#"ulimit -n 32 && exec "$0" merge "$@""#)
        .arg(BIN)
        .arg(dir("merged"));
    for k in 0..shards {
        merge.arg(dir(&format!("s{k}")));
    }
    ok(&mut merge);
    for file in ["run.json", "games.csv", "summary.csv", "summary.json"] {
        let read = |d: &Path| std::fs::read(d.join(file)).unwrap();
        assert!(
            read(&dir("whole")) == read(&dir("merged")),
            "{file} differs"
        );
    }
}
