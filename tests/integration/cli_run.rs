//! The real `aeroplane` binary running tournaments: defaults, every flag, output files,
//! determinism across threads and chunk sizes, manifests, replays of games.csv rows, rotation
//! bookkeeping, shards, the bench, and bad input.

use crate::common::aeroplane;
use std::fs;
use std::path::{Path, PathBuf};

use aeroplane::Preset;
use aeroplane::config::RunConfigFile;
use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::without_written_line;

/// Runs `aeroplane run` with `args`, asserting success; returns stdout.
fn run_ok(args: &[&str]) -> String {
    let out = aeroplane().arg("run").args(args).assert().success();
    without_written_line(String::from_utf8(out.get_output().stdout.clone()).unwrap())
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

const FILES: [&str; 7] = [
    "run.json",
    "summary.csv",
    "seats.csv",
    "lengths.csv",
    "length_stats.csv",
    "events.csv",
    "games.csv",
];

/// The files of a run; in run.json the unit size (part of the plan, not of the results) is
/// left out.
fn files_of(dir: &Path) -> Vec<(String, String)> {
    FILES
        .iter()
        .map(|f| {
            let text = read(dir, f);
            let text = match *f {
                "run.json" => text
                    .lines()
                    .filter(|l| !l.contains("\"unit_deals\""))
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => text,
            };
            (f.to_string(), text)
        })
        .collect()
}

fn out_dir(tmp: &TempDir, name: &str) -> PathBuf {
    tmp.path().join(name)
}

#[test]
fn defaults_are_the_main_job() {
    // No options means appfreegame, greedy against three random bots, seed 1 (100,000 games;
    // fewer here): the same as the shipped main-job config.
    let plain = run_ok(&["--games", "400", "--quiet"]);
    assert!(
        plain.starts_with("aeroplane run: rules appfreegame, 4 players, seed 1, deals 0..400\n"),
        "{plain}"
    );
    for name in ["greedy", "random"] {
        assert!(plain.contains(name));
    }
    let from_config = run_ok(&["--config", "configs/main-job.toml", "--games", "400", "-q"]);
    assert_eq!(plain, from_config);
    let cfg = RunConfigFile::load(Path::new("configs/main-job.toml")).unwrap();
    assert_eq!(cfg.games, Some(100_000));
}

#[test]
fn every_flag_shapes_the_output_files() {
    let tmp = TempDir::new().unwrap();
    let dir = out_dir(&tmp, "a/b");
    let stdout = run_ok(&[
        "--rules",
        "classic",
        "--bots",
        "greedy,random,random",
        "--games",
        "300",
        "--seed",
        "5",
        "--first-game",
        "10",
        "--threads",
        "2",
        "--chunk-size",
        "7",
        "--out",
        dir.to_str().unwrap(),
        "--per-game",
        "--rotate-seats",
        "--quiet",
    ]);
    assert!(stdout.contains("rules classic, 3 players, seed 5, deals 10..310, seats rotated"));
    assert!(stdout.contains("300 deals x 3 seat rotations = 900 games"));
    assert!(
        stdout.contains("mean rank"),
        "full_ranking shows ranks: {stdout}"
    );
    assert!(stdout.contains("seat order (first-player) test"));

    let games = read(&dir, "games.csv");
    let lines: Vec<&str> = games.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{}{}",
            aeroplane::export::GAMES_HEADER,
            aeroplane::export::NAME_COLUMNS
        )
    );
    assert_eq!(
        lines[0],
        "game,deal,rotation,bot_seat0,bot_seat1,bot_seat2,bot_seat3,winner_seat,winner_bot,rank_seat0,rank_seat1,rank_seat2,rank_seat3,turns,rolls,moves,launches,captures,penalties,jumps,flights,bounces,passes,unfinished,name_seat0,name_seat1,name_seat2,name_seat3"
    );
    assert_eq!(lines.len(), 901);
    assert!(lines[1].starts_with("30,10,0,0,1,2,,"), "{}", lines[1]);
    assert!(
        lines[900].starts_with("929,309,2,2,0,1,,"),
        "{}",
        lines[900]
    );
    // The bots' names, seat by seat, after the record: seat 3 is not in play.
    assert!(lines[1].ends_with(",greedy,random,random,"), "{}", lines[1]);
    assert!(
        lines[900].ends_with(",random,greedy,random,"),
        "{}",
        lines[900]
    );
    // Each name is the summary's name of the bot_seatJ index beside it.
    let names = ["greedy", "random", "random"];
    for line in &lines[1..] {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!(cells.len(), 28, "{line}");
        for seat in 0..3 {
            let bot: usize = cells[3 + seat].parse().unwrap();
            assert_eq!(cells[24 + seat], names[bot], "{line}");
        }
        assert_eq!((cells[6], cells[27]), ("", ""), "{line}");
    }

    let summary = read(&dir, "summary.csv");
    let s: Vec<&str> = summary.lines().collect();
    assert_eq!(
        s[0],
        "bot,name,games,wins,win_rate,win_lo95,win_hi95,mean_rank,rank_1,rank_2,rank_3,rank_4,unranked,design_effect,interval_method"
    );
    assert_eq!(s.len(), 4);
    assert!(s[1].starts_with("0,greedy,900,"), "{}", s[1]);
    let seats = read(&dir, "seats.csv");
    assert!(seats.starts_with(
        "seat,colour,games,wins,win_rate,win_lo95,win_hi95,chi2,df,p_all_equal,design_effect,interval_method,seat_test\n0,red,900,"
    ));
    assert_eq!(seats.lines().count(), 4);
    let lengths = read(&dir, "lengths.csv");
    assert!(lengths.starts_with("measure,value,games\nturns,"));
    let total: u64 = lengths
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("turns,"))
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 900);
    assert!(
        read(&dir, "length_stats.csv")
            .starts_with("measure,games,mean,sd,min,p5,p25,median,p75,p95,max\nturns,900,")
    );
    let events = read(&dir, "events.csv");
    assert!(events.starts_with("event,total,per_game\nmoves,"));
    assert!(events.contains("\nunfinished,0,0.000000\n"));

    let m: serde_json::Value = serde_json::from_str(&read(&dir, "run.json")).unwrap();
    assert_eq!(m["seed"], 5);
    assert_eq!(m["first_game"], 10);
    assert_eq!(m["games"], 300);
    assert_eq!(m["games_played"], 900);
    assert_eq!(m["rotate_seats"], true);
    assert_eq!(m["rules"]["launch_rolls"], serde_json::json!([2, 4, 6]));
    assert_eq!(m["bots"][1]["kind"], "random");
}

#[test]
fn results_are_identical_for_any_threads_and_chunk_size() {
    let tmp = TempDir::new().unwrap();
    let mut seen = Vec::new();
    for (threads, chunk) in [
        ("1", "256"),
        ("2", "256"),
        ("3", "256"),
        ("2", "5"),
        ("1", "1"),
    ] {
        let dir = out_dir(&tmp, &format!("t{threads}c{chunk}"));
        let stdout = run_ok(&[
            "--rules",
            "chinese",
            "--bots",
            "random,greedy,random,greedy",
            "--games",
            "600",
            "--seed",
            "99",
            "--threads",
            threads,
            "--chunk-size",
            chunk,
            "--out",
            dir.to_str().unwrap(),
            "--per-game",
            "--rotate-seats",
            "-q",
        ]);
        seen.push((stdout, files_of(&dir)));
    }
    for other in &seen[1..] {
        assert!(
            other == &seen[0],
            "outputs differ between thread counts or chunk sizes"
        );
    }
}

#[test]
fn a_manifest_reproduces_its_run_exactly() {
    let tmp = TempDir::new().unwrap();
    let a = out_dir(&tmp, "a");
    let first = run_ok(&[
        "--bots",
        "greedy,random",
        "--games",
        "250",
        "--seed",
        "3",
        "--rotate-seats",
        "--per-game",
        "--out",
        a.to_str().unwrap(),
        "-q",
    ]);
    let b = out_dir(&tmp, "b");
    let manifest = a.join("run.json");
    let again = run_ok(&[
        "--manifest",
        manifest.to_str().unwrap(),
        "--out",
        b.to_str().unwrap(),
        "--threads",
        "1",
        "-q",
    ]);
    assert_eq!(first, again);
    assert_eq!(files_of(&a), files_of(&b));
}

#[test]
fn replaying_a_game_of_a_run_gives_its_games_csv_row() {
    let tmp = TempDir::new().unwrap();
    let dir = out_dir(&tmp, "r");
    run_ok(&[
        "--rules",
        "classic",
        "--bots",
        "random,greedy,random",
        "--games",
        "40",
        "--seed",
        "8",
        "--first-game",
        "5",
        "--rotate-seats",
        "--per-game",
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]);
    let games = read(&dir, "games.csv");
    let rows: Vec<&str> = games.lines().skip(1).collect();
    let manifest = dir.join("run.json");
    for i in [0usize, 1, 2, 61, 119] {
        let game = (15 + i).to_string();
        let out = aeroplane()
            .args([
                "replay",
                "--manifest",
                manifest.to_str().unwrap(),
                "--game",
                &game,
            ])
            .arg("--json")
            .assert()
            .success();
        let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(v["games_csv_row"], rows[i], "game {game}");
        assert_eq!(
            v["record"]["turns"].to_string(),
            rows[i].split(',').nth(13).unwrap()
        );
    }
    // The text form prints the row too.
    aeroplane()
        .args([
            "replay",
            "--manifest",
            manifest.to_str().unwrap(),
            "--game",
            "16",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "games.csv row:\n{}{}\n{}\n",
            aeroplane::export::GAMES_HEADER,
            aeroplane::export::NAME_COLUMNS,
            rows[1]
        )));
    aeroplane()
        .args([
            "replay",
            "--manifest",
            manifest.to_str().unwrap(),
            "--game",
            "14",
        ])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("is not in the run").and(predicate::str::contains("15..135")),
        );
}

#[test]
fn rotation_moves_the_bots_and_keeps_the_dice_with_the_seats() {
    let tmp = TempDir::new().unwrap();
    let dir = out_dir(&tmp, "rot");
    run_ok(&[
        "--bots",
        "greedy,greedy,greedy,greedy",
        "--games",
        "30",
        "--rotate-seats",
        "--per-game",
        "--out",
        dir.to_str().unwrap(),
        "-q",
    ]);
    let games = read(&dir, "games.csv");
    let rows: Vec<Vec<&str>> = games
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(rows.len(), 120);
    for (i, deal) in rows.chunks(4).enumerate() {
        for (r, row) in deal.iter().enumerate() {
            assert_eq!(row[0], (4 * i + r).to_string());
            assert_eq!(
                (row[1], row[2]),
                (i.to_string().as_str(), r.to_string().as_str())
            );
            let bots: Vec<String> = (0..4).map(|k| ((k + r) % 4).to_string()).collect();
            assert_eq!(&row[3..7], bots.as_slice());
            // Same dice, same deterministic bots: the same seat wins, a different bot.
            assert_eq!(row[7], deal[0][7]);
            assert_eq!(&row[13..], &deal[0][13..]);
        }
        let winners: std::collections::BTreeSet<&str> = deal.iter().map(|r| r[8]).collect();
        assert_eq!(winners.len(), 4);
    }
    let summary = read(&dir, "summary.csv");
    // Every bot wins exactly once per deal: the design effect is 0, so the interval is the
    // Wilson interval on the 30 deals, not the point [25%, 25%].
    for k in 0..4 {
        assert!(
            summary.contains(&format!("\n{k},greedy,120,30,0.250000,0.")),
            "{summary}"
        );
    }
    for line in summary.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let (lo, hi): (f64, f64) = (cells[5].parse().unwrap(), cells[6].parse().unwrap());
        assert!(lo < 0.2 && hi > 0.3, "{line}");
        assert!(line.ends_with(",0.000000,wilson_on_deals"), "{line}");
    }
}

#[test]
fn shards_concatenate_to_the_whole_run() {
    let tmp = TempDir::new().unwrap();
    let (w, a, b) = (out_dir(&tmp, "w"), out_dir(&tmp, "a"), out_dir(&tmp, "b"));
    let common = [
        "--bots",
        "random,greedy,random",
        "--per-game",
        "-q",
        "--rotate-seats",
    ];
    let args = |first: &str, n: &str, dir: &Path| {
        let mut v: Vec<String> = common.iter().map(|s| s.to_string()).collect();
        v.extend(
            [
                "--first-game",
                first,
                "--games",
                n,
                "--out",
                dir.to_str().unwrap(),
            ]
            .map(String::from),
        );
        let refs: Vec<&str> = v.iter().map(String::as_str).collect();
        run_ok(&refs);
    };
    args("0", "100", &w);
    args("0", "37", &a);
    args("37", "63", &b);
    let whole = read(&w, "games.csv");
    let joined = read(&a, "games.csv") + read(&b, "games.csv").split_once('\n').unwrap().1;
    assert_eq!(whole, joined);
}

#[test]
fn progress_and_timing_stay_off_stdout_and_quiet_silences_stderr() {
    let out = aeroplane()
        .args(["run", "--games", "300"])
        .assert()
        .success();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    // stderr is not a terminal here: no progress bar, only the timing line.
    assert!(stderr.starts_with("played 300 games in "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);
    aeroplane()
        .args(["run", "--games", "300", "--quiet"])
        .assert()
        .success()
        .stderr("");
}

#[test]
fn bad_input_is_a_clear_error() {
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("plain-file");
    fs::write(&file, "x").unwrap();
    let under_file = file.join("out");
    let bad_toml = tmp.path().join("bad.toml");
    fs::write(&bad_toml, "games = [\n").unwrap();
    let unknown_key = tmp.path().join("unknown.toml");
    fs::write(&unknown_key, "games = 10\nthreadz = 2\n").unwrap();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["--games", "0"], vec!["at least 1"]),
        (
            vec!["--bots", "greedy,wizard"],
            vec!["unknown bot `wizard`", "greedy", "random"],
        ),
        (vec!["--bots", "greedy"], vec!["1 bot(s)", "2, 3 or 4"]),
        (
            vec!["--bots", "greedy,random,random,random,random"],
            vec!["5 bot(s)"],
        ),
        (
            vec!["--out", under_file.to_str().unwrap(), "--games", "5"],
            vec!["cannot create output directory"],
        ),
        (
            vec!["--config", bad_toml.to_str().unwrap()],
            vec!["bad.toml"],
        ),
        (
            vec!["--config", unknown_key.to_str().unwrap()],
            vec!["threadz", "allowed keys"],
        ),
        (
            vec!["--config", "no/such/file.toml"],
            vec!["cannot read run config"],
        ),
        (vec!["--per-game", "--games", "5"], vec!["--out"]),
        (
            vec!["--rules", "klassic"],
            vec!["unknown rules preset `klassic`", "appfreegame"],
        ),
        (
            vec!["--manifest", bad_toml.to_str().unwrap()],
            vec!["manifest"],
        ),
        (vec!["--chunk-size", "0", "--games", "5"], vec!["chunk"]),
    ];
    for (args, needles) in cases {
        let out = aeroplane().arg("run").args(&args).assert().failure();
        let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        for n in needles {
            assert!(stderr.contains(n), "{args:?}: `{n}` not in {stderr}");
        }
    }
}

#[test]
fn shipped_variant_files_equal_their_presets() {
    for preset in Preset::ALL {
        let path = format!(
            "{}/configs/{}.toml",
            env!("CARGO_MANIFEST_DIR"),
            preset.name()
        );
        assert_eq!(
            aeroplane::config::load_rules(&path).unwrap(),
            preset.rules(),
            "{path}"
        );
    }
}

#[test]
fn shipped_run_configs_load_and_run() {
    for name in ["main-job", "classic-rotated"] {
        let path = format!("configs/{name}.toml");
        let cfg = RunConfigFile::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(&path)).unwrap();
        assert!(cfg.games.is_some(), "{name}");
        let tmp = TempDir::new().unwrap();
        let stdout = run_ok(&[
            "--config",
            &path,
            "--games",
            "20",
            "-q",
            "--out",
            tmp.path().to_str().unwrap(),
        ]);
        assert!(stdout.contains("deals 0..20"), "{stdout}");
    }
}

#[test]
fn bench_digest_is_the_same_for_any_thread_count() {
    let digest = |threads: &str| {
        let out = aeroplane()
            .args([
                "bench",
                "--games",
                "300",
                "--threads",
                threads,
                "--baseline",
                "--runs",
                "2",
            ])
            .assert()
            .success();
        let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
        assert!(text.contains("same digest"), "{text}");
        let total = text.lines().last().unwrap().to_string();
        total.rsplit(' ').next().unwrap().to_string()
    };
    let one = digest("1");
    assert_eq!(one.len(), 16);
    assert_eq!(one, digest("2"));
    aeroplane()
        .args(["bench", "--games", "0"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("at least 1"));
    aeroplane()
        .args(["bench", "--games", "10", "--runs", "0"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--runs must be at least 1"));
}

#[test]
fn bots_come_from_the_bots_dir_and_the_manifest_keeps_their_parameters() {
    let tmp = TempDir::new().unwrap();
    let bots = tmp.path().join("bots");
    fs::create_dir(&bots).unwrap();
    fs::write(bots.join("careful.toml"), "kind = \"greedy\"\n").unwrap();
    let out = out_dir(&tmp, "o");
    let stdout = run_ok(&[
        "--bots-dir",
        bots.to_str().unwrap(),
        "--bots",
        "careful,random",
        "--games",
        "50",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(stdout.contains("careful"), "{stdout}");
    let m: serde_json::Value = serde_json::from_str(&read(&out, "run.json")).unwrap();
    assert_eq!(m["bots"][0]["name"], "careful");
    assert_eq!(m["bots"][0]["kind"], "greedy");
    // The manifest alone reproduces the run, without the profile directory.
    let again = run_ok(&["--manifest", out.join("run.json").to_str().unwrap(), "-q"]);
    assert_eq!(stdout, again);
}
