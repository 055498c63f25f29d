//! The documentation checks what it can (issue 22, item 12; issue 32, item 6): every Markdown
//! file under docs/ (the guide, the command pages, the specifications) has its Rust code blocks
//! doc-tested (`src/doc_examples.rs`) and is a page of the book (`docs/SUMMARY.md`); every
//! relative link and anchor of README.md and docs/ resolves; and the minimum Rust version stated
//! in Cargo.toml, the README and the guide is the real one: the newest `rust-version` among the
//! locked dependencies (CI also builds with that toolchain, `.ci/run`).

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.md` file under `dir`, at any depth, sorted.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "md") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A path relative to the repository root, with `/` separators.
fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap()
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

#[test]
fn every_markdown_file_of_the_docs_is_doc_tested_and_in_the_book() {
    let listed = std::fs::read_to_string(root().join("src/doc_examples.rs")).unwrap();
    assert!(listed.contains("include_str!(\"../README.md\")"));
    let summary = std::fs::read_to_string(root().join("docs/SUMMARY.md")).unwrap();
    let files = markdown_files(&root().join("docs"));
    assert!(files.len() > 20, "{files:?}");
    for path in files {
        let name = relative(&path);
        assert!(
            listed.contains(&format!("include_str!(\"../{name}\")")),
            "{name} is not doc-tested: add it to src/doc_examples.rs"
        );
        let page = name.strip_prefix("docs/").unwrap();
        assert!(
            page == "SUMMARY.md" || summary.contains(&format!("]({page})")),
            "{name} is not a page of the book: add it to docs/SUMMARY.md"
        );
    }
}

/// The anchor GitHub and mdBook give a heading: lower case, letters, digits, `-` and `_` kept,
/// spaces made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().next().unwrap())
            } else if c == ' ' {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The lines of a Markdown text outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut in_code = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code {
            lines.push(line);
        }
    }
    lines
}

/// The anchors of a Markdown text's headings (a repeated heading gets `-1`, `-2`, ...).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for line in prose(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(line[hashes..].trim());
            let mut id = base.clone();
            let mut n = 0;
            while seen.contains(&id) {
                n += 1;
                id = format!("{base}-{n}");
            }
            seen.push(id);
        }
    }
    seen
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose(text) {
        // Inline code spans hold no links.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            targets.push(target.to_owned());
            rest = &after[end..];
        }
    }
    targets
}

/// What is wrong with the relative links of `text`, the Markdown file at `file`: a file or
/// folder that does not exist, or an anchor that is no heading of the file it names.
fn broken_links(file: &Path, text: &str) -> Vec<String> {
    let mut broken = Vec::new();
    for target in link_targets(text) {
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            file.parent().unwrap().join(path)
        };
        if !resolved.exists() {
            broken.push(format!("{target}: no such file"));
            continue;
        }
        // mdBook renders a book page's link to a file outside docs/ as a page of the book
        // that does not exist: such files are named as code paths instead.
        let docs = root().join("docs").canonicalize().unwrap();
        if file.canonicalize().unwrap().starts_with(&docs)
            && !resolved.canonicalize().unwrap().starts_with(&docs)
        {
            broken.push(format!(
                "{target}: leaves docs/ (name the file as a code path)"
            ));
            continue;
        }
        if let Some(anchor) = anchor {
            let heads = if path.is_empty() {
                anchors(text)
            } else if resolved.extension().is_some_and(|x| x == "md") {
                anchors(&std::fs::read_to_string(&resolved).unwrap())
            } else {
                Vec::new()
            };
            if !heads.iter().any(|h| h == anchor) {
                broken.push(format!("{target}: no heading #{anchor} there"));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_and_anchor_of_the_docs_resolves() {
    let mut files = markdown_files(&root().join("docs"));
    files.push(root().join("README.md"));
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for b in broken_links(file, &text) {
            broken.push(format!("{}: {b}", relative(file)));
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_check_finds_a_missing_file_and_a_missing_anchor() {
    let file = root().join("docs/guide/cookbook.md");
    let text = "# T\n\n## A `b`: c\n[ok](#a-b-c) [ok](../RULES.md#options) [no](../../ARCHITECTURE.md) \
                [no](../NOPE.md) [no](../RULES.md#nope) [no](#nope) `[code](../NOPE.md)`\n\
                ```sh\n[code](../NOPE.md)\n```\n[web](https://example.com/x.md)\n";
    assert_eq!(
        broken_links(&file, text),
        [
            "../../ARCHITECTURE.md: leaves docs/ (name the file as a code path)",
            "../NOPE.md: no such file",
            "../RULES.md#nope: no heading #nope there",
            "#nope: no heading #nope there"
        ]
    );
    assert_eq!(
        anchors("# A\n# A\n```\n# not a heading\n```\n## Ä b_c-d!\n"),
        ["a", "a-1", "ä-b_c-d"]
    );
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
    // The host's dependency closure: what the build that runs this test has downloaded. Without
    // `--filter-platform`, `cargo metadata` needs every platform's packages (windows-only
    // crates, say), which a fresh machine's `cargo test` has not fetched, and `--offline` fails.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let vv = std::process::Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let host = String::from_utf8_lossy(&vv.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host])
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
    // The README and the guide's getting started state what building and testing the whole
    // repository needs.
    let v = workspace.0;
    let short = if v[2] == 0 {
        format!("{}.{}", v[0], v[1])
    } else {
        format!("{}.{}.{}", v[0], v[1], v[2])
    };
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust ({short} or newer)")),
        "README.md does not state Rust {short} ({})",
        workspace.1
    );
    let started = std::fs::read_to_string(root().join("docs/guide/getting-started.md")).unwrap();
    assert!(
        started.contains(&format!("Rust ({short} or newer)"))
            && started.contains(&format!("You need Rust {short} or newer")),
        "docs/guide/getting-started.md does not state Rust {short} ({})",
        workspace.1
    );
}

/// The words of a shell command line: split at spaces outside quotes, the quotes removed.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (Some(q), _) if c == q => quote = None,
            (None, ' ') => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            _ => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// Whether a command line uses the shell beyond words and quotes: a variable, or `;`, `&`,
/// `|`, `<`, `>` outside quotes.
fn needs_a_shell(line: &str) -> bool {
    let mut quote = None;
    line.chars().any(|c| {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            _ => {}
        }
        c == '$' || (quote.is_none() && matches!(c, ';' | '&' | '|' | '<' | '>'))
    })
}

/// The `aeroplane` command lines of the `sh` blocks of a Markdown text (continued lines joined,
/// comments dropped; `cargo run --release --` counts as `aeroplane`), without those that need a
/// shell (variables, loops, pipes, several commands on a line).
fn aeroplane_commands(text: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match fence {
            Some(lang) if !in_sh && lang.trim() == "sh" => in_sh = true,
            Some(_) if in_sh => in_sh = false,
            _ if in_sh => {
                let code = line.split("  #").next().unwrap().trim_end();
                if let Some(head) = code.strip_suffix('\\') {
                    pending.push_str(head);
                    continue;
                }
                let full = std::mem::take(&mut pending) + code;
                let full = full.trim();
                let full = full
                    .strip_prefix("cargo run --release -- ")
                    .map(|rest| format!("aeroplane {rest}"))
                    .unwrap_or_else(|| full.to_owned());
                if full.starts_with("aeroplane ") && !needs_a_shell(&full) {
                    commands.push(shell_words(&full)[1..].to_vec());
                }
            }
            _ => {}
        }
    }
    commands
}

#[test]
fn every_aeroplane_command_of_the_docs_is_one_the_command_line_takes() {
    let mut files = markdown_files(&root().join("docs"));
    files.push(root().join("README.md"));
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for args in aeroplane_commands(&text) {
            // --help last: clap parses every word before it (subcommand, flags, values), then
            // prints the help instead of running the job.
            let out = assert_cmd::cargo::cargo_bin_cmd!("aeroplane")
                .args(&args)
                .arg("--help")
                .current_dir(root())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}: `aeroplane {}` is not a command line aeroplane takes:\n{}",
                relative(file),
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
            checked += 1;
        }
    }
    assert!(checked > 80, "only {checked} commands found");
    eprintln!("{checked} aeroplane command lines of the docs parse");
}

#[test]
fn the_command_check_reads_the_lines_a_shell_would() {
    let text = "```sh\naeroplane run --bots a,b \\\n  --games 2   # a comment\n\
                for k in 0 1; do aeroplane run --shard $k/2; done\n\
                cargo run --release -- sweep --vary \"launch_rolls=[6];[5,6]\" --sort=-x\n```\n\
                ```text\naeroplane not-sh\n```\n";
    assert_eq!(
        aeroplane_commands(text),
        [
            vec!["run", "--bots", "a,b", "--games", "2"],
            vec!["sweep", "--vary", "launch_rolls=[6];[5,6]", "--sort=-x"]
        ]
    );
}
