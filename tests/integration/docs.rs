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

/// The newest `rust-version` among the packages reachable from `root` (normal and build
/// dependencies; at the root also its dev-dependencies when `dev`), and which package states it.
fn newest(meta: &serde_json::Value, root: &str, dev: bool) -> ([u64; 3], String) {
    let packages: std::collections::BTreeMap<&str, &serde_json::Value> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p))
        .collect();
    let nodes: std::collections::BTreeMap<&str, &serde_json::Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let mut best = ([0u64; 3], String::new());
    let mut seen = std::collections::BTreeSet::new();
    let mut stack = vec![(root, true)];
    while let Some((id, at_root)) = stack.pop() {
        for d in nodes[id]["deps"].as_array().unwrap() {
            let kinds: Vec<&str> = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| k["kind"].as_str().unwrap_or("normal"))
                .collect();
            let wanted = kinds.iter().any(|&k| k != "dev" || (dev && at_root));
            let pkg = d["pkg"].as_str().unwrap();
            if wanted && seen.insert(pkg) {
                let p = packages[pkg];
                if let Some(rv) = p["rust_version"].as_str()
                    && version(rv) > best.0
                {
                    best = (
                        version(rv),
                        format!(
                            "{} {} needs {rv}",
                            p["name"].as_str().unwrap_or("?"),
                            p["version"].as_str().unwrap_or("?")
                        ),
                    );
                }
                stack.push((pkg, false));
            }
        }
    }
    best
}

#[test]
fn the_stated_minimum_rust_versions_are_what_the_locked_dependencies_need() {
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
    let mut workspace = ([0u64; 3], String::new());
    for p in meta["packages"].as_array().unwrap() {
        if !p["source"].is_null() {
            continue;
        }
        let (name, id) = (p["name"].as_str().unwrap(), p["id"].as_str().unwrap());
        let stated = p["rust_version"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} states no rust-version"));
        let (needed, why) = newest(&meta, id, false);
        assert_eq!(
            version(stated),
            needed,
            "{name} says rust-version {stated}, but {why}"
        );
        let with_tests =
            newest(&meta, id, true).max((version(stated), format!("{name} states {stated}")));
        workspace = workspace.max(with_tests);
    }
    // The README states what building and testing the whole repository needs.
    let v = workspace.0;
    let short = if v[2] == 0 {
        format!("{}.{}", v[0], v[1])
    } else {
        format!("{}.{}.{}", v[0], v[1], v[2])
    };
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust ({short} or newer)"))
            && readme.contains(&format!("You need Rust {short} or newer")),
        "README.md does not state Rust {short} ({})",
        workspace.1
    );
}
