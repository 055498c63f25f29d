//! The real binary's messages to a new user: "did you mean" for mistyped names, and the
//! `aeroplane bots` listing (aligned columns, folders holding other TOML files).

use crate::common::aeroplane;
use std::fs;

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use tempfile::TempDir;

/// Runs the binary expecting failure; returns stderr.
fn fails(args: &[&str]) -> String {
    let out = aeroplane().args(args).assert().failure();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    stderr
}

/// Runs the binary expecting success; returns stdout.
fn succeeds(args: &[&str]) -> String {
    let out = aeroplane().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn mistyped_names_get_a_suggestion() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["run", "--bots", "Greedy,random", "--games", "1"],
            "unknown bot `Greedy`; did you mean `greedy`? Known bots are ",
        ),
        (
            &["run", "--bots", "expectimx,random", "--games", "1"],
            "unknown bot `expectimx`; did you mean `expectimax`? Known bots are ",
        ),
        (
            &["run", "--bots", "greedy,mcst", "--games", "1"],
            "unknown bot `mcst`; did you mean `mcts`?",
        ),
        (
            &["replay", "--bots", "greedy,radnom", "--dice", "1"],
            "unknown bot `radnom`; did you mean `random`?",
        ),
        (
            &["run", "--bots", "expectimax:dpeth=3,greedy", "--games", "1"],
            "has no parameter `dpeth`; did you mean `depth`? Its parameters are ",
        ),
        (
            &["run", "--rules", "clasic", "--games", "1"],
            "unknown rules preset `clasic`; did you mean `classic`? Allowed presets are ",
        ),
        (
            &["run", "--rules", "Chinese", "--games", "1"],
            "unknown rules preset `Chinese`; did you mean `chinese`?",
        ),
        (
            &["rules", "appfreegam"],
            "unknown rules preset `appfreegam`; did you mean `appfreegame`?",
        ),
    ];
    for (args, needle) in cases {
        let stderr = fails(args);
        assert!(
            stderr.contains(needle),
            "{args:?}: `{needle}` not in {stderr}"
        );
    }
}

#[test]
fn distant_names_list_what_exists_without_a_suggestion() {
    let stderr = fails(&["run", "--bots", "greedy,wizard", "--games", "1"]);
    assert!(
        stderr.contains("unknown bot `wizard`: known bots are exact, expectimax, "),
        "{stderr}"
    );
    assert!(!stderr.contains("did you mean"), "{stderr}");
    let stderr = fails(&["run", "--rules", "klondike", "--games", "1"]);
    assert!(
        stderr.contains("unknown rules preset `klondike`: allowed presets are appfreegame"),
        "{stderr}"
    );
    assert!(!stderr.contains("did you mean"), "{stderr}");
    // A kind without parameters has nothing to suggest.
    let stderr = fails(&["run", "--bots", "greedy:nome=1,random", "--games", "1"]);
    assert!(stderr.contains("its parameters are none"), "{stderr}");
    assert!(!stderr.contains("did you mean"), "{stderr}");
}

#[test]
fn a_mistyped_kind_in_a_profile_gets_a_suggestion() {
    let tmp = TempDir::new().unwrap();
    let profile = tmp.path().join("mine.toml");
    fs::write(&profile, "kind = \"expectimx\"\n").unwrap();
    let lineup = format!("{},greedy", profile.display());
    let stderr = fails(&["run", "--bots", &lineup, "--games", "1"]);
    assert!(
        stderr
            .contains("unknown bot kind `expectimx`; did you mean `expectimax`? Known kinds are "),
        "{stderr}"
    );
}

/// The column at which `needle` starts on each line that holds it.
fn columns(text: &str, needle: &str) -> Vec<usize> {
    text.lines().filter_map(|l| l.find(needle)).collect()
}

#[test]
fn bots_listing_is_aligned() {
    let out = succeeds(&["bots"]);
    assert!(
        !out.lines().any(|l| l.ends_with(' ')),
        "trailing spaces:\n{out}"
    );
    // Every profile's kind starts in one column, and so does every parameter's default.
    let kinds = columns(&out, "[kind ");
    assert!(kinds.len() >= 7, "{out}");
    assert!(kinds.iter().all(|&c| c == kinds[0]), "{out}");
    let defaults = columns(&out, " default ");
    assert!(defaults.len() > 20, "{out}");
    assert!(defaults.iter().all(|&c| c == defaults[0]), "{out}");
    // The widest allowed set (mcts's policy) is in the table, aligned like the rest.
    let policy = out
        .lines()
        .find(|l| l.contains("none|expectimax|random|greedy"))
        .expect("the mcts policy row");
    assert_eq!(policy.find(" default "), Some(defaults[0]), "{out}");
}

#[test]
fn bots_listing_survives_other_toml_files_in_the_folder() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path();
    fs::write(dir.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    fs::write(dir.join("typo.toml"), "kind = \"gredy\"\n").unwrap();
    fs::write(
        dir.join("shallow.toml"),
        "kind = \"expectimax\"\ndescription = \"one ply\"\n[params]\ndepth = 1\n",
    )
    .unwrap();
    let out = succeeds(&["bots", "--bots-dir", dir.to_str().unwrap()]);
    // The built-in profiles and the folder's own profile are listed.
    for name in ["expectimax-deep", "greedy", "mcts-rollout", "random"] {
        assert!(
            out.lines().any(|l| l.starts_with(&format!("  {name} "))),
            "{name}:\n{out}"
        );
    }
    let shallow = out
        .lines()
        .find(|l| l.starts_with("  shallow "))
        .unwrap_or_else(|| panic!("shallow:\n{out}"));
    assert!(shallow.contains("[kind expectimax]") && shallow.contains("one ply"));
    assert!(out.contains("depth=1 "), "{out}");
    // The other files are listed apart, each on one line with its reason.
    let (_, rest) = out
        .split_once("Not loadable as profiles")
        .unwrap_or_else(|| panic!("{out}"));
    let cargo = rest.lines().find(|l| l.starts_with("  Cargo ")).unwrap();
    assert!(cargo.contains("unknown field `package`"), "{cargo}");
    let typo = rest.lines().find(|l| l.starts_with("  typo ")).unwrap();
    assert!(
        typo.contains("unknown bot kind `gredy`; did you mean `greedy`?"),
        "{typo}"
    );
    assert!(out.contains("Kinds and their parameters:"), "{out}");

    // The repository root holds Cargo.toml, clippy settings and the like: the listing works.
    let out = succeeds(&["bots", "--bots-dir", "."]);
    assert!(out.contains("Not loadable as profiles"), "{out}");
}

#[test]
fn rules_document_covers_every_option_the_binary_prints() {
    let doc = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/RULES.md")).unwrap();
    for preset in ["appfreegame", "classic", "chinese"] {
        let out = succeeds(&["rules", preset]);
        let keys: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split_once(" = ").map(|(k, _)| k))
            .collect();
        // Every option, `planes` included (issue 31, item 25: it was left out at 4).
        assert_eq!(keys.len(), 11, "{out}");
        assert!(out.contains("planes = 4"), "{out}");
        for key in keys {
            // A row of the options table and a row of the presets table.
            let row = format!("| `{key}` |");
            assert_eq!(doc.matches(&row).count(), 2, "{key} in docs/RULES.md");
        }
    }
    // Every counter of a game record is explained.
    let header = "turns,rolls,moves,launches,captures,penalties,jumps,flights,bounces,passes";
    for counter in header.split(',') {
        assert!(doc.contains(&format!("| `{counter}` |")), "{counter}");
    }
}

#[test]
fn readme_links_point_at_files_in_the_repository() {
    let root = env!("CARGO_MANIFEST_DIR");
    let readme = fs::read_to_string(format!("{root}/README.md")).unwrap();
    assert!(
        !readme.contains("../shared"),
        "README links outside the repository"
    );
    for file in [
        "docs/RULES.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "ARCHITECTURE.md",
    ] {
        assert!(
            readme.contains(&format!("]({file}")),
            "README does not link {file}"
        );
        assert!(
            std::path::Path::new(root).join(file).is_file(),
            "{file} is missing"
        );
    }
    let architecture = fs::read_to_string(format!("{root}/ARCHITECTURE.md")).unwrap();
    assert!(
        !architecture.contains("../shared"),
        "ARCHITECTURE links outside the repository"
    );
}

#[test]
fn built_in_profiles_need_no_bots_folder() {
    // From a folder without `bots/`: every built-in profile is still found.
    let empty = tempfile::tempdir().unwrap();
    cargo_bin_cmd!("aeroplane")
        .current_dir(empty.path())
        .args(["run", "--games", "1", "-q"])
        .args(["--bots", "expectimax-deep,mcts-rollout,montecarlo,random"])
        .args(["--threads", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains("note:").not());
}

#[test]
fn bots_dir_adds_to_the_built_ins_and_says_when_it_shadows_one() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("greedy.toml"), "kind = \"random\"\n").unwrap();
    std::fs::write(dir.path().join("mine.toml"), "kind = \"greedy\"\n").unwrap();
    // `mine` comes from --bots-dir, `random` is still built in; `greedy` is shadowed, said once.
    let out = cargo_bin_cmd!("aeroplane")
        .current_dir(dir.path())
        .args([
            "replay",
            "--bots",
            "mine,random,greedy,greedy",
            "--bots-dir",
        ])
        .arg(dir.path())
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let notes: Vec<&str> = stderr.lines().filter(|l| l.starts_with("note:")).collect();
    assert_eq!(notes.len(), 1, "{stderr}");
    assert!(
        notes[0].contains("greedy.toml (kind random) shadows the built-in greedy (kind greedy)"),
        "{stderr}"
    );
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("game finished")
    );
    // The repository's own bots/ matches the built-ins: no note.
    aeroplane()
        .args(["replay", "--bots", "greedy,random,mcts"])
        .assert()
        .success()
        .stderr(predicate::str::contains("note:").not());
}

#[test]
fn every_subcommand_help_ends_with_examples() {
    for sub in [
        "run", "sweep", "league", "report", "bench", "resume", "merge", "replay", "bots", "rules",
    ] {
        let help = succeeds(&[sub, "--help"]);
        let tail = help.split("Examples:\n").nth(1);
        let examples: Vec<&str> = tail
            .unwrap_or_else(|| panic!("{sub} --help has no examples:\n{help}"))
            .lines()
            .filter(|l| l.trim_start().starts_with("aeroplane "))
            .collect();
        assert!(
            (2..=4).contains(&examples.len()),
            "{sub}: {} examples:\n{help}",
            examples.len()
        );
        // The examples are the end of the help.
        assert!(help.trim_end().ends_with(tail.unwrap().trim_end()), "{sub}");
    }
}

#[test]
fn the_formats_page_explains_lineup_indices_through_run_json() {
    let page = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/guide/formats.md"
    ))
    .unwrap();
    assert!(page.contains("`winner_bot` are 0-based indices"));
    assert!(page.contains("`bots` list in run.json"));
}

/// The rows of a CSV of results/td as maps of column to cell.
fn td_rows(file: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = fs::read_to_string(format!("results/td/{file}")).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// `aeroplane bots` names the strongest bot of each preset and player count, with the
/// evidence of results/td: each opponent's fixed-sample Elo and interval (fixed2.csv,
/// fixed4.csv) and the SPRT's verdict (matches.csv, sprts-4p.csv), as measured.
#[test]
fn bots_names_the_strongest_bot_per_preset_and_player_count_with_its_evidence() {
    let out = succeeds(&["bots"]);
    let section = out
        .split("Strongest bot per preset and player count")
        .nth(1)
        .unwrap_or_else(|| panic!("no strongest-bot section:\n{out}"));
    let section = section.split("\n\n").next().unwrap();
    assert!(section.contains("results/td/README.md"), "{section}");
    let sprts: Vec<_> = td_rows("matches.csv")
        .into_iter()
        .chain(td_rows("sprts-4p.csv"))
        .collect();
    let mut seen = 0;
    for file in ["fixed2.csv", "fixed4.csv"] {
        for r in td_rows(file) {
            let (preset, players, td) = (&r["preset"], &r["players"], &r["td"]);
            let line = section
                .lines()
                .find(|l| {
                    let w: Vec<&str> = l.split_whitespace().collect();
                    w.len() > 3 && w[0] == preset && w[1] == format!("{players}p")
                })
                .unwrap_or_else(|| panic!("no line for {preset}, {players} players:\n{section}"));
            assert!(line.contains(td.as_str()), "{line}");
            let elo = |k: &str| format!("{:+.1}", r[k].parse::<f64>().unwrap());
            let figure = format!(
                "{} [{}, {}] vs {}",
                elo("elo"),
                elo("elo_lo95"),
                elo("elo_hi95"),
                r["opponent"]
            );
            assert!(line.contains(&figure), "{line} lacks {figure}");
            let sprt = sprts
                .iter()
                .find(|s| s["td"] == *td && s["opponent"] == r["opponent"])
                .unwrap();
            assert_eq!(sprt["verdict"], "accept_h1", "{sprt:?}");
            seen += 1;
        }
    }
    assert_eq!(
        seen, 12,
        "six presets and player counts, two opponents each"
    );
    assert!(section.contains("SPRT"), "{section}");
}
