//! The browser page written by the binary with no toolchain (`aeroplane::page`,
//! `aeroplane play --page FILE`), run as the real binary:
//! the page holds the committed module (`web/dist/`) and the page's sources as they are in the
//! repository; a folder, a missing folder and a link are refused, naming what is wrong, and
//! leave nothing behind. (tests/web/run.sh checks that the page equals web/build.sh's, and
//! plays it in Chromium.)

use crate::common::aeroplane;
use std::path::Path;

use predicates::prelude::*;

fn repo(path: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn page_writes_the_committed_module_and_the_page_sources() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("aeroplane.html");
    std::fs::write(&path, "an older page").unwrap();
    aeroplane()
        .args(["play", "--page"])
        .arg(&path)
        .assert()
        .success()
        .stdout("")
        .stderr(predicate::str::contains("aeroplane.html").and(predicate::str::contains("bytes")));
    let html = std::fs::read_to_string(&path).unwrap();
    assert_eq!(html, aeroplane::page::html());
    assert_eq!(names(dir.path()), ["aeroplane.html"]);
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("@@"), "a placeholder left");
    for source in [
        "web/page/page.js",
        "web/page/page.css",
        "src/viewer/viewer.css",
        "web/dist/aeroplane_web.js",
    ] {
        let text = String::from_utf8(repo(source)).unwrap();
        assert!(html.contains(&text), "{source} is not in the page");
    }
    // The module as base64, decoded back to the committed bytes.
    let start = html.find("var AEROPLANE_WASM_BASE64 = \"").unwrap() + 29;
    let len = html[start..].find('"').unwrap();
    assert_eq!(
        decode_base64(&html[start..start + len]),
        repo("web/dist/aeroplane_web_bg.wasm")
    );

    // `-`: the same page on standard output, nothing written.
    let out = aeroplane().args(["play", "--page", "-"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, html.as_bytes());
}

fn decode_base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for quad in text.as_bytes().chunks(4) {
        let pad = quad.iter().filter(|&&c| c == b'=').count();
        let n = quad
            .iter()
            .map(|&c| if c == b'=' { 0 } else { u32::from(value(c)) })
            .fold(0u32, |n, v| n << 6 | v);
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    out
}

#[test]
fn page_refuses_a_folder_a_missing_folder_and_a_link() {
    let dir = tempfile::tempdir().unwrap();
    aeroplane()
        .args(["play", "--page"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("is a folder").and(predicate::str::contains("aeroplane.html")),
        );
    aeroplane()
        .args(["play", "--page"])
        .arg(dir.path().join("none/aeroplane.html"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("none does not exist"));
    let file = dir.path().join("file");
    std::fs::write(&file, "kept").unwrap();
    aeroplane()
        .args(["play", "--page"])
        .arg(file.join("aeroplane.html"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("file is not a folder"));
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    aeroplane()
        .args(["play", "--page"])
        .arg(&link)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
    assert_eq!(names(dir.path()), ["file", "link.html"]);
    aeroplane()
        .args(["play", "--page"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("FILE"));
}
