//! Hostile input through the command line: endless files, huge values, wrong types, planted
//! links and shadowing profiles. Each is refused (exit 2, a short message naming the input) or
//! said out loud; none panics, hangs or takes unbounded memory.

use crate::common::aeroplane_in;

use predicates::prelude::*;

fn stderr_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

/// Every file a command reads whole stops at its limit: a device of endless zeros is refused
/// after 4 MiB, never read to the end of memory.
#[test]
fn endless_files_are_refused_at_their_size_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, what) in [
        (
            vec!["run", "--games", "2", "-q", "--rules", "/dev/zero"],
            "rules file /dev/zero",
        ),
        (
            vec!["run", "-q", "--config", "/dev/zero"],
            "run config /dev/zero",
        ),
        (
            vec!["replay", "--manifest", "/dev/zero"],
            "manifest /dev/zero",
        ),
        (
            vec!["sweep", "--config", "/dev/zero", "-q"],
            "sweep config /dev/zero",
        ),
        (
            vec!["run", "--games", "2", "-q", "--manifest", "/dev/zero"],
            "manifest /dev/zero",
        ),
    ] {
        let a = aeroplane_in(d).args(&args).assert().code(2);
        let e = stderr_of(&a);
        assert!(e.contains(what) && e.contains("4 MiB"), "{args:?}: {e}");
        assert!(e.len() < 400, "{e}");
    }
    // Dice are streamed: bad bytes are refused at once, quoted briefly.
    for device in ["/dev/zero", "/dev/urandom"] {
        let a = aeroplane_in(d)
            .args(["replay", "--dice-file", device])
            .assert()
            .code(2);
        let e = stderr_of(&a);
        assert!(e.contains("bad die value") && e.len() < 300, "{e}");
    }
}

#[test]
fn a_huge_bad_value_is_quoted_in_a_short_excerpt() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 3 MB: under the size limit, so the value itself is what is wrong.
    let long = "x".repeat(3_000_000);
    std::fs::write(d.join("v.toml"), format!("overshoot = \"{long}\"\n")).unwrap();
    std::fs::write(
        d.join("l.toml"),
        format!("launch_rolls = [{}]\n", "7, ".repeat(1_000_000)),
    )
    .unwrap();
    std::fs::write(d.join("p.toml"), format!("kind = \"{long}\"\n")).unwrap();
    for args in [
        vec!["run", "--games", "2", "-q", "--rules", "v.toml"],
        vec!["run", "--games", "2", "-q", "--rules", "l.toml"],
        vec!["run", "--games", "2", "-q", "--bots", "./p.toml,random"],
    ] {
        let a = aeroplane_in(d).args(&args).assert().code(2);
        let e = stderr_of(&a);
        assert!(e.len() < 1500, "{} bytes for {args:?}", e.len());
        assert!(e.contains(".toml"), "{e}");
    }
    // An argument can hold at most 128 KiB.
    let dice = format!("1 2 {}", &long[..100_000]);
    let a = aeroplane_in(d)
        .args(["replay", "--dice", &dice])
        .assert()
        .code(2);
    assert!(stderr_of(&a).len() < 300);
}

#[test]
fn bot_parameters_are_given_once_and_with_their_type() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--bots"])
        .arg("expectimax:depth=2:depth=3,random")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "parameter `depth` is given twice; give each parameter once",
        ));
    std::fs::write(
        d.join("s.toml"),
        "kind = \"expectimax\"\n[params]\ndepth = \"3\"\n",
    )
    .unwrap();
    aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--bots", "./s.toml,random"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "s.toml: bad value `\"3\"` for parameter `depth`: allowed is an integer from 1 to",
        ));
    std::fs::write(d.join("w.toml"), "kind = \"mcts\"\n[params]\npolicy = 3\n").unwrap();
    aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--bots", "./w.toml,random"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "parameter `policy`: allowed is one of",
        ));
}

#[test]
fn an_empty_rules_file_is_not_silently_the_default_preset() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("e.toml"), "# nothing yet\n").unwrap();
    std::fs::write(d.join("c.toml"), "rules = \"/dev/null\"\n").unwrap();
    for args in [
        vec!["run", "--games", "2", "-q", "--rules", "/dev/null"],
        vec!["run", "--games", "2", "-q", "--rules", "e.toml"],
        vec!["run", "--games", "2", "-q", "--config", "c.toml"],
        vec!["rules", "e.toml"],
    ] {
        aeroplane_in(d)
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("it sets no option"));
    }
    // Saying the preset is enough.
    std::fs::write(d.join("e.toml"), "base = \"appfreegame\"\n").unwrap();
    aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--rules", "e.toml"])
        .assert()
        .success();
}

#[test]
fn replay_says_when_given_rolls_were_left_over() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rolls: Vec<String> = (0..100_000).map(|i| (i % 6 + 1).to_string()).collect();
    std::fs::write(d.join("dice.txt"), rolls.join(" ")).unwrap();
    let a = aeroplane_in(d)
        .args([
            "replay",
            "--dice-file",
            "dice.txt",
            "--bots",
            "greedy,greedy",
        ])
        .assert()
        .success();
    let e = stderr_of(&a);
    assert!(
        e.starts_with("note: the game ended after ") && e.contains("of the 100000 rolls given"),
        "{e}"
    );
    let a = aeroplane_in(d)
        .args([
            "replay",
            "--dice-file",
            "dice.txt",
            "--json",
            "--bots",
            "greedy,greedy",
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let used = v["log"].as_array().unwrap().len() as u64;
    assert_eq!(v["unused_rolls"].as_u64().unwrap() + used, 100_000);
    // A list used up exactly says nothing.
    let exact: Vec<&str> = rolls[..used as usize].iter().map(String::as_str).collect();
    let a = aeroplane_in(d)
        .args(["replay", "--bots", "greedy,greedy", "--dice"])
        .arg(exact.join(","))
        .assert()
        .success();
    assert_eq!(stderr_of(&a), "");
}

#[test]
fn a_profile_that_shadows_a_built_in_one_says_so_with_its_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("bots")).unwrap();
    std::fs::write(d.join("bots/greedy.toml"), "kind = \"random\"\n").unwrap();
    aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--bots", "greedy,random"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "note: profile bots/greedy.toml (kind random) shadows the built-in greedy (kind greedy); it is in the folder of --bots-dir",
        ));
    aeroplane_in(d)
        .arg("bots")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "[kind random]      (shadows the built-in greedy, kind greedy)",
        ));
}

#[test]
fn profiles_are_shown_never_obeyed_and_a_bad_one_hides_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("bots")).unwrap();
    std::fs::write(
        d.join("bots/clear.toml"),
        "kind = \"random\"\ndescription = \"\\u001b[2J\\u001b[31mred\"\n",
    )
    .unwrap();
    std::fs::write(d.join("bots/broken.toml"), "kind =").unwrap();
    let a = aeroplane_in(d).arg("bots").assert().success();
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(!out.contains('\u{1b}'), "{out}");
    assert!(out.contains("\\u{1b}[2J\\u{1b}[31mred"), "{out}");
    assert!(
        out.contains("expectimax-deep") && out.contains("broken"),
        "{out}"
    );
}

#[test]
fn folders_devices_and_fifos_are_not_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("bots/sub.toml")).unwrap();
    let fifo = d.join("bots/fifo.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    for (bots, says) in [
        (
            "/dev/null,random",
            "bot profile /dev/null is a device, not a profile file",
        ),
        (
            "./bots/sub.toml,random",
            "bot profile ./bots/sub.toml is a folder, not a profile file",
        ),
        // Opening a fifo would wait for a writer for ever: it is refused unopened.
        (
            "fifo,random",
            "bot profile bots/fifo.toml is a fifo, not a profile file",
        ),
    ] {
        aeroplane_in(d)
            .args(["run", "--games", "2", "-q", "--bots", bots])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    // An unknown name does not list the fifo as known.
    let a = aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--bots", "fiffo,random"])
        .assert()
        .code(2);
    assert!(!stderr_of(&a).contains("fifo,"), "{}", stderr_of(&a));
}

#[test]
fn messages_name_things_once_and_hint_what_applies() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("b.toml"), "base = \"clasic\"\n").unwrap();
    let a = aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--rules", "b.toml"])
        .assert()
        .code(2);
    assert_eq!(
        stderr_of(&a),
        "error: --rules: in rules file b.toml: unknown `base` `clasic`; did you mean `classic`? `base` is one of the presets appfreegame, classic, chinese\n"
    );
    let a = aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--bots", "greedy"])
        .assert()
        .code(2);
    let e = stderr_of(&a);
    assert!(
        e.starts_with("error: --bots: the lineup has 1 bot(s)"),
        "{e}"
    );
    assert_eq!(e.matches("--bots").count(), 1, "{e}");
    let a = aeroplane_in(d).args(["rules", "b.toml"]).assert().code(2);
    assert_eq!(stderr_of(&a).matches("b.toml").count(), 1);
    aeroplane_in(d)
        .args([
            "run",
            "--bots",
            "greedy,random",
            "--games",
            "10",
            "-q",
            "--sprt",
        ])
        .arg("elo0=0,elo1=1e308")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid SPRT value 1e308 for `elo1`",
        ));
}

#[test]
fn a_replay_of_a_manifest_whose_games_overflow_is_refused_not_wrapped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    aeroplane_in(d)
        .args([
            "run",
            "--games",
            "3",
            "-q",
            "--out",
            "r",
            "--bots",
            "greedy,random",
        ])
        .assert()
        .success();
    let text = std::fs::read_to_string(d.join("r/run.json")).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    m["first_game"] = serde_json::json!(u64::MAX - 2);
    m["games"] = serde_json::json!(1500);
    std::fs::write(d.join("r/run.json"), m.to_string()).unwrap();
    let a = aeroplane_in(d)
        .args(["replay", "--manifest", "r/run.json", "--game", "7"])
        .assert()
        .code(2);
    let e = stderr_of(&a);
    assert!(!e.contains("..1497") && !e.contains("panicked"), "{e}");
}

#[test]
fn sweeps_and_leagues_too_big_to_be_meant_are_refused_before_playing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let turns: Vec<String> = (1..=2_000).map(|t| t.to_string()).collect();
    let a = aeroplane_in(d)
        .args(["sweep", "--games", "1", "-q", "--vary"])
        .arg(format!("max_turns={}", turns.join(",")))
        .args(["--vary", "home_lane_cells=3,4,5,6,7,8"])
        .assert()
        .code(2);
    assert!(
        stderr_of(&a).contains(
            "the sweep would have 12000 variants (2000 max_turns x 6 home_lane_cells); at most 10000"
        ),
        "{}",
        stderr_of(&a)
    );
    let many: Vec<String> = (1..=20_001).map(|t| t.to_string()).collect();
    aeroplane_in(d)
        .args(["sweep", "--games", "1", "-q", "--vary"])
        .arg(format!("max_turns={}", many.join(",")))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("20001 variants"));
    let pool: Vec<String> = (0..257)
        .map(|i| format!("expectimax:depth=1:progress={}", i as f64 / 10.0))
        .collect();
    aeroplane_in(d)
        .args(["league", "--games", "1", "-q", "--bots"])
        .arg(pool.join(","))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "lists 257 bots: a league takes at most 256",
        ));
    aeroplane_in(d)
        .args([
            "league",
            "--games",
            "1",
            "-q",
            "--bootstrap",
            "1000000",
            "--bots",
        ])
        .arg("greedy,random")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("give from 100 to 10000 resamples"));
}

#[test]
fn output_files_that_are_links_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("precious.txt"), "keep").unwrap();
    // An earlier run's folder (`--force` replaces only an earlier job's files), with a link
    // planted at one of its names.
    aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--out", "out"])
        .assert()
        .success();
    std::fs::remove_file(d.join("out/summary.csv")).unwrap();
    std::os::unix::fs::symlink(d.join("precious.txt"), d.join("out/summary.csv")).unwrap();
    // --force removes the link (this tool's file name), never what it points to.
    aeroplane_in(d)
        .args(["run", "--games", "2", "-q", "--out", "out", "--force"])
        .assert()
        .success();
    assert_eq!(
        std::fs::read_to_string(d.join("precious.txt")).unwrap(),
        "keep"
    );
    assert!(
        !std::fs::symlink_metadata(d.join("out/summary.csv"))
            .unwrap()
            .is_symlink()
    );

    // A link planted where an interrupted run's rows continue is refused on resume.
    aeroplane_in(d)
        .args([
            "run",
            "--games",
            "40",
            "--chunk-size",
            "4",
            "-q",
            "--per-game",
            "--out",
            "int",
        ])
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", "2")
        .assert()
        .code(130);
    let partial = d.join("int/games.csv.partial");
    std::fs::rename(&partial, d.join("moved.csv")).unwrap();
    std::os::unix::fs::symlink(d.join("precious.txt"), &partial).unwrap();
    aeroplane_in(d)
        .args(["resume", "int", "-q"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("symbolic link"));
    assert_eq!(
        std::fs::read_to_string(d.join("precious.txt")).unwrap(),
        "keep"
    );
}

#[test]
fn replay_json_into_a_closed_pipe_exits_cleanly() {
    let bin = env!("CARGO_BIN_EXE_aeroplane");
    let status = std::process::Command::new("bash")
        .args([
            "-c",
            &format!("set -o pipefail; {bin} replay --game 3 --json | head -c 1 > /dev/null"),
        ])
        .status()
        .unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn bot_names_with_control_characters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("\u{1b}[31mred.toml"), "kind = \"random\"\n").unwrap();
    for bots in [
        "./\u{1b}[31mred.toml,random",
        "expectimax:depth=1\u{1b}[2J,random",
    ] {
        let a = aeroplane_in(d)
            .args(["run", "--games", "2", "-q", "--bots", bots])
            .assert()
            .code(2);
        let e = stderr_of(&a);
        assert!(e.contains("may not contain control characters"), "{e}");
        assert!(!e.contains('\u{1b}'), "{e}");
    }
}
