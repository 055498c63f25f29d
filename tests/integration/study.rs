//! The committed study (results/) is what `results/study.sh` makes with this build (issue 22,
//! item 13): a few of its jobs, with the study's own arguments, replayed by the script into a
//! temporary folder and compared with the committed files byte for byte. The jobs' pages
//! (`report.html`) are not committed (issue 50, item 5): `aeroplane report DIR` draws each from
//! its folder's files, and the page it draws from the committed files is the one the script's
//! job wrote.

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
    let page = Path::new("report.html");
    for job in jobs {
        let (new, committed) = (made.join(job), repo.join("results/study").join(job));
        let mut names = files(&new);
        assert!(
            names.iter().any(|n| n == page),
            "{job}: study.sh writes its page"
        );
        names.retain(|n| n != page);
        let mut kept = files(&committed);
        // A checkout that drew the page before it left git still holds it, ignored.
        kept.retain(|n| n != page);
        assert_eq!(names, kept, "{job}: the files differ");
        // The page drawn from the committed files alone is the job's own (it names its
        // folder as the script does, from the study's root).
        let drawn_root = tmp.path().join("drawn");
        let drawn = drawn_root.join("study").join(job);
        for name in &names {
            std::fs::create_dir_all(drawn.join(name).parent().unwrap()).unwrap();
            std::fs::copy(committed.join(name), drawn.join(name)).unwrap();
        }
        let report = std::process::Command::new(assert_cmd::cargo::cargo_bin!("aeroplane"))
            .current_dir(&drawn_root)
            .args(["report", &format!("study/{job}")])
            .output()
            .expect("aeroplane runs");
        assert!(
            report.status.success(),
            "{job}: aeroplane report: {}",
            String::from_utf8_lossy(&report.stderr)
        );
        assert!(
            std::fs::read(drawn.join(page)).unwrap() == std::fs::read(new.join(page)).unwrap(),
            "{job}: the page `aeroplane report` draws from the committed files is not the job's"
        );
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
