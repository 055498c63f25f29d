//! The documentation checks what it can (issue 22, item 12): every file in docs/ has its Rust
//! code blocks doc-tested (`src/doc_examples.rs`), and the minimum Rust version stated in
//! Cargo.toml and the README is the real one: the newest `rust-version` among the locked
//! dependencies (CI also builds with that toolchain, `.ci/run`).

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_markdown_file_of_the_docs_is_doc_tested() {
    let listed = std::fs::read_to_string(root().join("src/doc_examples.rs")).unwrap();
    assert!(listed.contains("include_str!(\"../README.md\")"));
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(
                listed.contains(&format!("include_str!(\"../docs/{name}\")")),
                "docs/{name} is not doc-tested: add it to src/doc_examples.rs"
            );
        }
    }
}

/// A version as comparable numbers: `1.89` -> [1, 89, 0].
fn version(text: &str) -> [u64; 3] {
    let mut v = [0; 3];
    for (slot, part) in v.iter_mut().zip(text.split('.')) {
        *slot = part.parse().unwrap_or(0);
    }
    v
}

#[test]
fn the_stated_minimum_rust_version_is_the_locked_dependencies_newest() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut newest = ([0u64; 3], String::new());
    let mut ours = None;
    for p in meta["packages"].as_array().unwrap() {
        let Some(rv) = p["rust_version"].as_str() else {
            continue;
        };
        if p["name"] == "aeroplane" || p["source"].is_null() {
            ours = Some(rv.to_string());
            continue;
        }
        if version(rv) > newest.0 {
            newest = (
                version(rv),
                format!("{} {} needs {rv}", p["name"], p["version"]),
            );
        }
    }
    let ours = ours.expect("aeroplane states a rust-version");
    assert_eq!(
        version(&ours),
        newest.0,
        "Cargo.toml says rust-version {ours}, but {}",
        newest.1
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let short = ours.trim_end_matches(".0");
    assert!(
        readme.contains(&format!("Rust ({short} or newer)"))
            && readme.contains(&format!("You need Rust {short} or newer")),
        "README.md does not state Rust {short}"
    );
}
