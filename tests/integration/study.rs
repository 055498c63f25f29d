//! The committed study (results/) is what `results/study.sh` makes with this build (issue 22,
//! item 13): a few of its jobs, with the study's own arguments, replayed by the script into a
//! temporary folder and compared with the committed files byte for byte, reports included.

use std::path::{Path, PathBuf};

/// Every file under `dir`, as paths relative to it.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn study_sh_reproduces_the_committed_files() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::TempDir::new().unwrap();
    let out = std::process::Command::new("bash")
        .arg(repo.join("results/study.sh"))
        .env("STUDY_ONLY", "ci")
        .env("STUDY_ROOT", tmp.path())
        .env("AEROPLANE", assert_cmd::cargo::cargo_bin!("aeroplane"))
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "study.sh failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made = tmp.path().join("study");
    let jobs = [
        "first-player/appfreegame-2p-greedy",
        "first-player/classic-4p-greedy",
        "options/appfreegame/overshoot",
    ];
    for job in jobs {
        let (new, committed) = (made.join(job), repo.join("results/study").join(job));
        let names = files(&new);
        assert_eq!(names, files(&committed), "{job}: the files differ");
        for name in names {
            let (a, b) = (
                std::fs::read(new.join(&name)).unwrap(),
                std::fs::read(committed.join(&name)).unwrap(),
            );
            assert!(
                a == b,
                "results/study/{job}/{} is not what study.sh makes now: rerun results/study.sh",
                name.display()
            );
        }
    }
}
