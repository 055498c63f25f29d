//! The layers of the root crate (issue 32, items 1 and 2): every file under `src/` may use only
//! the layers at or below its own, in the order ARCHITECTURE.md states once ("Layers", its
//! `text` block, ground up). The check reads each file's code (its unit tests included;
//! comments and strings left out), finds every path that names a module of the crate
//! (`crate::x`, `super::` up to the crate root, and in the binary `aeroplane::x`), and refuses
//! a path to a layer above the file's own, naming the file, the line and both layers. Inside
//! the library the core's items are named `aeroplane_core::...`, never through the crate root's
//! re-exports (`crate::Game`, `crate::excerpt`), so each item has one path there; the root's
//! re-exports are for users (the binary, Python, examples).
//!
//! ARCHITECTURE.md's list of layers is also lib.rs's list of modules (plus the binary's `cli`),
//! and each module has its paragraph in the code map.
//!
//! The bots' crate, `aeroplane-ai` (`ai/src/`), is checked the same way against its own order
//! (ARCHITECTURE.md's "Layers of `aeroplane-ai`").

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The layers in ARCHITECTURE.md, ground up: the words of the first `text` block after the
/// heading `### Layers`, separated by `->`.
fn stated_layers(architecture: &str) -> Vec<String> {
    layers_under(architecture, "### Layers")
}

/// The words of the first `text` block after the line `heading`, separated by `->`.
fn layers_under(architecture: &str, heading: &str) -> Vec<String> {
    let at = architecture
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has a section `{heading}`"));
    let rest = &architecture[at..];
    let open = rest
        .find("```text\n")
        .expect("the section has a ```text block")
        + 8;
    let close = open + rest[open..].find("```").expect("the block is closed");
    rest[open..close]
        .split("->")
        .map(|w| w.trim().to_string())
        .collect()
}

/// A file's code with comments, string and character literals blanked out (line breaks kept,
/// so lines still count).
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Keeps the line breaks of `b[from..to]`.
    let blank = |out: &mut String, from: usize, to: usize| {
        out.extend(b[from..to].iter().filter(|&&c| c == b'\n').map(|_| '\n'));
    };
    while i < b.len() {
        let word_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i..].starts_with(b"//") {
            let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (0, i);
            loop {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if !word_before && (b[i] == b'r' || b[i..].starts_with(b"br")) && {
            let s = i + usize::from(b[i] == b'b') + 1;
            let hashes = b[s..].iter().take_while(|&&c| c == b'#').count();
            b.get(s + hashes) == Some(&b'"')
        } {
            let s = i + usize::from(b[i] == b'b') + 1;
            let hashes = b[s..].iter().take_while(|&&c| c == b'#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = s + hashes + 1;
            let end = body + text[body..].find(&close).expect("a raw string ends") + close.len();
            out.push_str("\"\"");
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if b[i] == b'\'' {
            // A character literal ('a', '\n', '\u{1b}'), or a lifetime ('a), which stays.
            let len = if b.get(i + 1) == Some(&b'\\') {
                b[i + 3..].iter().position(|&c| c == b'\'').map(|n| n + 4)
            } else {
                let c = text[i + 1..].chars().next().map_or(0, char::len_utf8);
                (b.get(i + 1 + c) == Some(&b'\'')).then_some(c + 2)
            };
            match len {
                Some(n) => {
                    out.push_str("' '");
                    i += n;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A token of code: a word (identifier, keyword, number), `::`, or one other character.
#[derive(Clone, Debug, PartialEq)]
struct Token<'a> {
    text: &'a str,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_whitespace() {
        } else if c.is_alphanumeric() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            out.push(Token {
                text: &code[i..end],
                line,
            });
        } else if c == ':' && chars.peek().is_some_and(|&(_, d)| d == ':') {
            chars.next();
            out.push(Token {
                text: &code[i..i + 2],
                line,
            });
        } else {
            out.push(Token {
                text: &code[i..i + c.len_utf8()],
                line,
            });
        }
    }
    out
}

/// Where a file's paths start: its module path in the crate (`src/bots/external/mod.rs` is
/// `[bots, external]`), and whether it is in the binary (`src/main.rs`, `src/cli/`), whose
/// `crate::` is the binary's and whose `aeroplane::` is the library.
struct Place {
    module: Vec<String>,
    binary: bool,
}

impl Place {
    /// The place of `file`, a path under `src/` with `/` separators (`bots/td.rs`).
    fn of(file: &str) -> Place {
        let stem = file.strip_suffix(".rs").expect("a Rust file");
        let mut module: Vec<String> = stem.split('/').map(String::from).collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let binary = module[0] == "main" || module[0] == "cli";
        if module == ["main"] {
            // The binary's root: its modules are `cli`.
            module = vec![];
        }
        if module == ["lib"] {
            module = vec![];
        }
        Place { module, binary }
    }

    /// The layer the file is in: its top-level module (the binary's root and `cli` are `cli`).
    fn layer(&self) -> Option<&str> {
        if self.binary {
            return Some("cli");
        }
        self.module.first().map(String::as_str)
    }
}

/// An import of one layer by a file: the first segment of a path from the crate's root, and
/// the line it is on.
#[derive(Clone, Debug, PartialEq)]
struct Use {
    line: usize,
    /// The root segment: a top-level module, or an item at the crate root.
    segment: String,
}

/// The paths from the crate's root that `code` names.
fn uses(place: &Place, code: &str) -> Vec<Use> {
    let toks = tokens(code);
    let mut found = Vec::new();
    // Inline modules open around the current token: the brace depth each was opened at.
    let mut inline: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].text;
        match t {
            "mod" if toks.get(i + 2).is_some_and(|t| t.text == "{") => {
                depth += 1;
                inline.push(depth);
                i += 3;
                continue;
            }
            "{" => depth += 1,
            "}" => {
                if inline.last() == Some(&depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        let after_path = i > 0 && toks[i - 1].text == "::";
        let start = match t {
            _ if after_path => None,
            "crate" if !place.binary => Some(i + 1),
            "aeroplane" if place.binary => Some(i + 1),
            "super" => {
                // `super::super::...`: from the file's module and the inline modules around.
                let mut k = i;
                let mut ups = 0;
                while toks.get(k).is_some_and(|t| t.text == "super")
                    && toks.get(k + 1).is_some_and(|t| t.text == "::")
                {
                    ups += 1;
                    k += 2;
                }
                let here = place.module.len() + inline.len();
                (!place.binary && ups >= here && ups > 0).then_some(k - 1)
            }
            _ => None,
        };
        if let Some(s) = start
            && toks.get(s).is_some_and(|t| t.text == "::")
        {
            let line = toks[i].line;
            match toks.get(s + 1).map(|t| t.text) {
                // `crate::{a::x, b}`: the first segment of each entry.
                Some("{") => {
                    let mut d = 0usize;
                    let mut k = s + 1;
                    let mut entry_start = true;
                    while k < toks.len() {
                        match toks[k].text {
                            "{" => d += 1,
                            "}" => {
                                d -= 1;
                                if d == 0 {
                                    break;
                                }
                            }
                            "," if d == 1 => entry_start = true,
                            w if d == 1 && entry_start => {
                                entry_start = false;
                                found.push(Use {
                                    line: toks[k].line,
                                    segment: w.to_string(),
                                });
                            }
                            _ => {}
                        }
                        k += 1;
                    }
                }
                Some(w) => found.push(Use {
                    line,
                    segment: w.to_string(),
                }),
                None => {}
            }
        }
        i += 1;
    }
    found
}

/// What is wrong with one file's imports under `layers` (ground up): each as
/// `FILE:LINE: ...`, naming both layers.
fn check_file(file: &str, text: &str, layers: &[String]) -> Vec<String> {
    check_file_in("src", file, text, layers)
}

/// [`check_file`] for a file of the crate whose sources are under `dir` (`src`, `ai/src`).
fn check_file_in(dir: &str, file: &str, text: &str, layers: &[String]) -> Vec<String> {
    let place = Place::of(file);
    let Some(own) = place.layer() else {
        // lib.rs: the crate's root, which declares and re-exports every layer.
        return Vec::new();
    };
    let rank = |l: &str| layers.iter().position(|x| x == l);
    let Some(own_rank) = rank(own) else {
        return vec![format!(
            "{dir}/{file}: its module `{own}` is not a layer of ARCHITECTURE.md (the layers: {})",
            layers.join(" -> ")
        )];
    };
    let mut problems = Vec::new();
    for u in uses(&place, &code_of(text)) {
        match rank(&u.segment) {
            Some(r) if r > own_rank => problems.push(format!(
                "{dir}/{file}:{}: `{own}` uses `{}`, a layer above it (ARCHITECTURE.md, Layers: {own} is below {})",
                u.line, u.segment, u.segment
            )),
            Some(_) => {}
            // The binary names the library's public surface, root re-exports included.
            None if place.binary => {}
            None if u.segment == "self" || u.segment == "*" => {}
            None => problems.push(format!(
                "{dir}/{file}:{}: `{own}` names `{}` through the crate root: inside the library a \
                 core item is `aeroplane_core::{}`, a harness item is named by its module",
                u.line, u.segment, u.segment
            )),
        }
    }
    problems
}

/// Every `.rs` file under `dir`, as paths relative to it with `/` separators, sorted.
fn rust_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(dir).unwrap().components();
                let rel: Vec<String> = rel
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                found.push((rel.join("/"), path));
            }
        }
    }
    found.sort();
    found
}

fn layers() -> Vec<String> {
    stated_layers(&std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap())
}

#[test]
fn no_file_uses_a_layer_above_its_own() {
    let layers = layers();
    let files = rust_files(&root().join("src"));
    assert!(files.len() > 100, "the sources are found");
    let problems: Vec<String> = files
        .iter()
        .flat_map(|(rel, path)| check_file(rel, &std::fs::read_to_string(path).unwrap(), &layers))
        .collect();
    assert!(
        problems.is_empty(),
        "imports against the layers:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_layers_are_lib_rs_modules_each_in_the_code_map() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let mut modules: Vec<String> = code_of(&lib)
        .lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("pub ").unwrap_or(l.trim());
            Some(l.strip_prefix("mod ")?.strip_suffix(';')?.to_string())
        })
        .collect();
    modules.push("cli".to_string());
    modules.sort();
    let mut stated = stated_layers(&architecture);
    stated.sort();
    assert_eq!(
        stated, modules,
        "ARCHITECTURE.md's layers against lib.rs's modules (and cli)"
    );
    let headings: Vec<&str> = architecture
        .lines()
        .filter(|l| l.starts_with("### "))
        .collect();
    for m in &modules {
        let named =
            |h: &&str| h.contains(&format!("`src/{m}/`")) || h.contains(&format!("`src/{m}.rs`"));
        assert!(
            headings.iter().any(named),
            "no code-map heading names `src/{m}/` or `src/{m}.rs`"
        );
    }
}

/// `aeroplane-ai`'s layers: its modules are layers of their own, in the order ARCHITECTURE.md
/// states under "Layers of `aeroplane-ai`"; every module of its lib.rs is one.
#[test]
fn no_file_of_aeroplane_ai_uses_a_layer_above_its_own() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let layers = layers_under(&architecture, "### Layers of `aeroplane-ai`");
    let lib = std::fs::read_to_string(root().join("ai/src/lib.rs")).unwrap();
    let mut modules: Vec<String> = code_of(&lib)
        .lines()
        .filter_map(|l| {
            Some(
                l.trim()
                    .strip_prefix("pub mod ")?
                    .strip_suffix(';')?
                    .to_string(),
            )
        })
        .collect();
    modules.sort();
    let mut stated = layers.clone();
    stated.sort();
    assert_eq!(
        stated, modules,
        "ARCHITECTURE.md's layers of aeroplane-ai against ai/src/lib.rs's modules"
    );
    let files = rust_files(&root().join("ai/src"));
    assert!(files.len() > 10, "the sources are found");
    let problems: Vec<String> = files
        .iter()
        .flat_map(|(rel, path)| {
            check_file_in(
                "ai/src",
                rel,
                &std::fs::read_to_string(path).unwrap(),
                &layers,
            )
        })
        .collect();
    assert!(
        problems.is_empty(),
        "imports against the layers of aeroplane-ai:\n{}",
        problems.join("\n")
    );
    // The check sees an upward import there too.
    assert_eq!(
        check_file_in(
            "ai/src",
            "td/net.rs",
            "use crate::bots::eval::Weights;\n",
            &layers
        ),
        [
            "ai/src/td/net.rs:1: `td` uses `bots`, a layer above it (ARCHITECTURE.md, Layers: td is below bots)"
        ]
    );
}

/// The layers of the checks below.
fn toy_layers() -> Vec<String> {
    stated_layers("# A\n\n### Layers\n\n```text\nfiles -> stats -> runner -> cli\n```\n")
}

#[test]
fn the_order_is_read_from_the_text_block() {
    assert_eq!(toy_layers(), ["files", "stats", "runner", "cli"]);
}

#[test]
fn an_upward_import_is_refused_with_its_file_line_and_layers() {
    let text = "//! Tallies.\n\nuse crate::files::read_text;\nuse crate::runner::RunSpec;\n";
    assert_eq!(
        check_file("stats/tally.rs", text, &toy_layers()),
        [
            "src/stats/tally.rs:4: `stats` uses `runner`, a layer above it (ARCHITECTURE.md, Layers: stats is below runner)"
        ]
    );
}

#[test]
fn every_form_of_path_is_read() {
    let layers = toy_layers();
    let up = |file: &str, text: &str| check_file(file, text, &layers).len();
    // In an expression, in a group, and through `super` up to the root.
    assert_eq!(up("stats/mod.rs", "fn f() { crate::runner::run(); }"), 1);
    assert_eq!(
        up("stats/mod.rs", "use crate::{files::a, runner::{b, c}};"),
        1
    );
    assert_eq!(up("stats/tally.rs", "use super::super::runner::Spec;"), 1);
    assert_eq!(up("stats/mod.rs", "use super::runner::Spec;"), 1);
    // `super` that stays inside the layer, an inline module's `super` included.
    assert_eq!(up("stats/tally.rs", "use super::runner::Spec;"), 0);
    assert_eq!(
        up("stats/mod.rs", "mod inner { use super::runner::Spec; }"),
        0
    );
    // Below, the same layer, and the core are allowed.
    assert_eq!(
        up(
            "runner/mod.rs",
            "use crate::stats::Tally; use crate::runner::x; use aeroplane_core::Game;"
        ),
        0
    );
    // The binary: `aeroplane::` is the library, `crate::` its own modules; nothing is above it.
    assert_eq!(
        up(
            "cli/run.rs",
            "use aeroplane::runner::run; use aeroplane::Game; use crate::cli::x;"
        ),
        0
    );
    assert_eq!(up("main.rs", "fn main() { aeroplane::stats::x(); }"), 0);
}

#[test]
fn comments_and_strings_are_not_imports_and_unit_tests_are_code() {
    let layers = toy_layers();
    let text = "/// See [`crate::runner`].\n// crate::runner\n/* crate::runner /* nested */ */\n\
                const A: &str = \"crate::runner\";\nconst B: &str = r#\"crate::runner\"#;\n\
                const C: char = '\"'; const D: char = '\\'';\nfn f<'a>(x: &'a str) -> &'a str { x }\n\
                use crate::files::read_text;\n#[cfg(test)]\nmod tests {\n    use crate::runner::RunSpec;\n}\n";
    assert_eq!(
        check_file("stats/mod.rs", text, &layers),
        [
            "src/stats/mod.rs:11: `stats` uses `runner`, a layer above it (ARCHITECTURE.md, Layers: stats is below runner)"
        ]
    );
}

#[test]
fn a_core_item_through_the_crate_root_is_refused() {
    let problems = check_file("stats/mod.rs", "use crate::excerpt::clip;\n", &toy_layers());
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .starts_with("src/stats/mod.rs:1: `stats` names `excerpt` through the crate root"),
        "{problems:?}"
    );
    let problems = check_file("viewer/mod.rs", "", &toy_layers());
    assert!(
        problems[0].contains("`viewer` is not a layer"),
        "{problems:?}"
    );
}
