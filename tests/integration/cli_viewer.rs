//! The board viewer (`replay --html`) and replays of decision logs (`replay --log`), run as the
//! real binary: the positions a viewer carries are the engine's, its board is well-formed SVG
//! that needs no network, and bad logs are refused naming the line. (Chromium draws the pages
//! in tests/viewer/screenshots.sh.)

use crate::common::aeroplane;
use std::path::Path;

use aeroplane::decision_log::{LogFormat, LogStyle};
use aeroplane::runner::RunSpec;
use aeroplane::runner::{log_games, log_games_with};
use aeroplane::{Game, Preset, parse_lineup};
use predicates::prelude::*;
use serde_json::Value;

/// `replay ... --json`; a game whose scripted dice run out (exit 1) still prints its JSON.
fn json_of(args: &[&str]) -> Value {
    let out = aeroplane().args(args).arg("--json").output().unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The JSON a viewer page embeds for its script.
fn embedded(html: &str) -> Value {
    let start = html
        .find(r#"<script type="application/json" id="game-data">"#)
        .unwrap();
    let body = &html[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    serde_json::from_str(body).unwrap()
}

fn viewer(dir: &Path, args: &[&str]) -> String {
    let path = dir.join("v.html");
    let out = aeroplane()
        .args(args)
        .arg("--html")
        .arg(&path)
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{args:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote"));
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn a_viewer_carries_the_engines_game_and_draws_its_start() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["replay", "--rules", "classic", "--seed", "3", "--game", "1"][..],
        &[
            "replay",
            "--bots",
            "mcts:iterations=30,greedy,random",
            "--seed",
            "8",
        ],
        &[
            "replay",
            "--dice",
            "6,6,6,1,2,6,3",
            "--bots",
            "greedy,greedy",
        ],
    ] {
        let html = viewer(dir.path(), args);
        let data = embedded(&html);
        // The game is replay's JSON, whole.
        assert_eq!(data["game"], json_of(args), "{args:?}");
        // Every position is the engine's: each written position reads back, each roll's
        // position after is the next one's position before.
        let rules: aeroplane::Rules =
            serde_json::from_value(data["game"]["rules"].clone()).unwrap();
        let log = data["game"]["log"].as_array().unwrap();
        let mut at = data["start"].clone();
        for line in log {
            for key in ["before", "after"] {
                let text = line[key]["notation"].as_str().unwrap();
                let g = Game::from_notation(rules, text).unwrap();
                assert_eq!(g.to_string(), text);
            }
            assert_eq!(line["before"]["steps"], at["steps"]);
            at = line["after"].clone();
        }
        // The board is well-formed SVG with the starting position drawn: every plane in its
        // hangar slot.
        let svg = &html[html.find("<svg").unwrap()..html.find("</svg>").unwrap() + 6];
        let doc = roxmltree::Document::parse(svg).unwrap();
        let piles: Vec<_> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("pile"))
            .collect();
        let players = data["seats"].as_array().unwrap().len();
        assert_eq!(piles.len(), 4 * players);
        assert!(piles.iter().all(|p| p.attribute("data-step") == Some("-1")));
        let cells = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("cell"))
            .count();
        assert_eq!(cells, 52);
        // Nothing is fetched: the one address is the SVG namespace.
        for needle in ["<link", "<img", " src=", "@import", "url(http"] {
            assert!(!html.contains(needle), "{needle}");
        }
        let addresses = html.matches("http://").count() + html.matches("https://").count();
        assert_eq!(
            addresses,
            html.matches("http://www.w3.org/2000/svg").count()
        );
        assert!(html.contains("JavaScript is off"));
    }
}

#[test]
fn every_place_on_the_board_names_its_steps() {
    // What the script finds to highlight a move's from and to cells (data-at, data-hangar),
    // and what hovering a cell shows (its title): every seat's every step is on exactly one
    // element, whose title names that step. (Chromium checks the highlighting itself in
    // tests/viewer/screenshots.sh.)
    let dir = tempfile::tempdir().unwrap();
    for lane in [3u8, 6, 8] {
        let rules = format!("base = \"classic\"\nhome_lane_cells = {lane}\n");
        let file = dir.path().join(format!("r{lane}.toml"));
        std::fs::write(&file, rules).unwrap();
        let html = viewer(
            dir.path(),
            &["replay", "--rules", file.to_str().unwrap(), "--seed", "2"],
        );
        let svg = &html[html.find("<svg").unwrap()..html.find("</svg>").unwrap() + 6];
        let doc = roxmltree::Document::parse(svg).unwrap();
        let centre = 50 + lane + 1;
        let colours = ["red", "yellow", "blue", "green"];
        let mut seen = std::collections::BTreeMap::new();
        for n in doc.descendants().filter(|n| n.has_attribute("data-at")) {
            let title = n
                .children()
                .find(|c| c.has_tag_name("title"))
                .and_then(|t| t.text())
                .unwrap_or_else(|| panic!("no title: {n:?}"));
            for token in n.attribute("data-at").unwrap().split(' ') {
                let (seat, step) = token.split_once(':').unwrap();
                let (seat, step): (usize, u8) = (seat.parse().unwrap(), step.parse().unwrap());
                let named = match step {
                    0 => format!("{} take-off cell (step 0)", colours[seat]),
                    s if s == centre => format!("{} centre (step {s}): home", colours[seat]),
                    s if s > 50 => format!("{} home lane, step {s}", colours[seat]),
                    s => format!("{} step {s}", colours[seat]),
                };
                assert!(title.contains(&named), "{token}: {title}");
                assert!(seen.insert((seat, step), title).is_none(), "{token} twice");
            }
        }
        for seat in 0..4 {
            for step in 0..=centre {
                assert!(seen.contains_key(&(seat, step)), "seat {seat} step {step}");
            }
        }
        assert_eq!(seen.len(), 4 * (usize::from(centre) + 1));
        let slots: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.attribute("data-hangar"))
            .collect();
        assert_eq!(slots.len(), 16);
        assert!(slots.contains(&"3:3") && slots.contains(&"0:0"));
        assert!(html.contains("[data-at~=\"") && html.contains("move-from"));
    }
}

#[test]
fn a_bots_name_cannot_end_the_pages_script() {
    let dir = tempfile::tempdir().unwrap();
    let bots = dir.path().join("bots");
    std::fs::create_dir(&bots).unwrap();
    std::fs::write(bots.join("x.toml"), "kind = \"greedy\"\n").unwrap();
    let html = viewer(
        dir.path(),
        &[
            "replay",
            "--bots-dir",
            bots.to_str().unwrap(),
            "--bots",
            "x,greedy",
        ],
    );
    // Everything between the data's start and the script's end parses as JSON.
    embedded(&html);
    assert!(!html[html.find("game-data").unwrap()..].contains("</script><"));
}

#[test]
fn bad_html_paths_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    aeroplane()
        .args(["replay", "--html"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--html"));
    aeroplane()
        .args(["replay", "--html"])
        .arg(dir.path().join("missing/v.html"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--html"));
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(dir.path().join("target.html"), &link).unwrap();
    aeroplane()
        .args(["replay", "--html"])
        .arg(&link)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("symbolic link"));
    assert!(!dir.path().join("target.html").exists());
}

fn write_log(dir: &Path, name: &str, spec: &RunSpec, games: std::ops::Range<u64>) -> String {
    let format = LogFormat::of_path(Path::new(name)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, log_games(spec, games, format).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

fn spec(bots: &str, deals: u64, rotate: bool) -> RunSpec {
    RunSpec {
        rules: Preset::Classic.rules(),
        lineup: parse_lineup(bots, "bots".as_ref()).unwrap(),
        seed: 4,
        first_deal: 0,
        deals,
        rotate_seats: rotate,
    }
}

#[test]
fn a_logged_game_replays_as_the_seeded_game() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec("expectimax:depth=1,greedy,random", 3, true);
    let log = write_log(dir.path(), "g.jsonl.zst", &s, 0..9);
    let manifest = dir.path().join("run.json");
    // The manifest of the same run, for replay --manifest (rotation included).
    aeroplane()
        .args([
            "run",
            "--rules",
            "classic",
            "--bots",
            "expectimax:depth=1,greedy,random",
            "--seed",
            "4",
            "--games",
            "3",
            "--rotate-seats",
            "-q",
            "--out",
        ])
        .arg(dir.path())
        .assert()
        .success();
    for game in ["0", "4", "8"] {
        let logged = json_of(&["replay", "--log", &log, "--game", game]);
        let seeded = json_of(&[
            "replay",
            "--manifest",
            manifest.to_str().unwrap(),
            "--game",
            game,
        ]);
        // The same rolls, positions, legal moves, choices and values.
        assert_eq!(logged["log"], seeded["log"], "game {game}");
        assert_eq!(logged["record"], seeded["record"]);
        assert_eq!(logged["bots"], seeded["bots"]);
        assert_eq!(logged["dice"], "logged");
    }
    aeroplane()
        .args(["replay", "--log", &log, "--check"])
        .assert()
        .success()
        .stdout(predicate::str::contains("9 games (0..=8)"));
    let html = viewer(dir.path(), &["replay", "--log", &log, "--game", "5"]);
    let data = embedded(&html);
    assert!(
        data["game"]["log"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["values"].is_array())
    );
}

#[test]
fn bad_logs_are_refused_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec("greedy,random", 4, false);
    let log = write_log(dir.path(), "g.jsonl", &s, 0..4);
    let text = std::fs::read_to_string(&log).unwrap();
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, &text[..text.len() - 5]).unwrap();
    aeroplane()
        .args(["replay", "--log"])
        .arg(&cut)
        .arg("--check")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "line {}",
            text.lines().count()
        )))
        .stderr(predicate::str::contains("truncated"));
    let zst = write_log(dir.path(), "g.jsonl.zst", &s, 0..4);
    let bytes = std::fs::read(&zst).unwrap();
    let cut = dir.path().join("cut.jsonl.zst");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    aeroplane()
        .args(["replay", "--log"])
        .arg(&cut)
        .args(["--game", "3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cut short"));
    // A legal move list the engine does not give.
    let lines: Vec<&str> = text.lines().collect();
    let k = lines
        .iter()
        .position(|l| l.starts_with('[') && l.contains(",\"01\","))
        .unwrap();
    let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    edited[k] = edited[k].replacen(",\"01\",", ",\"02\",", 1);
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, edited.join("\n") + "\n").unwrap();
    aeroplane()
        .args(["replay", "--log"])
        .arg(&bad)
        .arg("--check")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("line {}", k + 1)))
        .stderr(predicate::str::contains(
            "legal actions [0, 2] are not the engine's",
        ));
    for foreign in ["Cargo.toml", "tests/golden/run_default_files/summary.csv"] {
        aeroplane()
            .args(["replay", "--log", foreign])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "line 1: not an aeroplane decision log",
            ));
    }
    aeroplane()
        .args(["replay", "--log", &log, "--game", "9"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "holds no game 9: it holds games 0..=3",
        ));
    aeroplane()
        .args(["replay", "--log", &log, "--seed", "3"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot be used with"));
}

#[test]
fn the_python_reader_loads_every_decision() {
    let dir = tempfile::tempdir().unwrap();
    let s = spec("greedy,expectimax:depth=1,random,random", 3, false);
    // Without the aeroplane package (--plain), pairs need a position on every line.
    let every = |name: &str| {
        let path = dir.path().join(name);
        let style = LogStyle {
            format: LogFormat::of_path(&path).unwrap(),
            positions: 1,
        };
        std::fs::write(&path, log_games_with(&s, 0..3, style).unwrap()).unwrap();
        path.to_str().unwrap().to_string()
    };
    let plain = every("g.jsonl");
    let decisions = std::fs::read_to_string(&plain)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with('['))
        .count();
    let mut files = vec![plain];
    if which("zstd") {
        files.push(every("g.jsonl.zst"));
    }
    let read = |file: &str| {
        std::process::Command::new("python3")
            .arg("docs/read_log.py")
            .arg(file)
            .args(["--pairs", "2", "--plain"])
            .output()
            .unwrap()
    };
    for file in files {
        let out = read(&file);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains(&format!("3 games, {decisions} decisions")),
            "{stdout}"
        );
        assert_eq!(stdout.matches("action ").count(), 2, "{stdout}");
    }
    // With key positions only, --plain says what it needs.
    let keyed = write_log(dir.path(), "k.jsonl", &s, 0..3);
    let out = read(&keyed);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("one decision line in 32") && stderr.contains("--log-positions 1"),
        "{stderr}"
    );
}

fn which(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `--html /dev/stdout` prints the page (alone: the text report would corrupt it) whether
/// stdout is a pipe or a file, as the page written to a file is; another device (`/dev/null`)
/// and a link planted where the page goes, onto a regular file, are still refused.
#[test]
fn the_viewer_goes_to_stdout_but_never_through_a_planted_link() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["replay", "--rules", "classic", "--seed", "3", "--game", "1"];
    let file = viewer(dir.path(), &args);
    let piped = aeroplane()
        .args(args)
        .args(["--html", "/dev/stdout"])
        .output()
        .unwrap();
    assert!(piped.status.success(), "{piped:?}");
    assert_eq!(String::from_utf8(piped.stdout).unwrap(), file);
    // Standard output redirected to a regular file (`> page.html`).
    let page = dir.path().join("page.html");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_aeroplane"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .args(["--html", "/dev/stdout"])
        .stdout(std::fs::File::create(&page).unwrap())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(std::fs::read_to_string(&page).unwrap(), file);
    // A device that is not this process's stdout is still refused (cli_safety.rs).
    aeroplane()
        .args(args)
        .args(["--html", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a device"));
    let target = dir.path().join("target.txt");
    std::fs::write(&target, "keep").unwrap();
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    aeroplane()
        .args(args)
        .arg("--html")
        .arg(&link)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
}
