//! `run --luck NET`: luck-adjusted results. The luck never changes a game (every output of the
//! plain run is byte for byte the same beside luck.csv); `adjusted = plain - luck` holds
//! exactly in luck.csv; a net of other players or rules, and a file that is not a net, are
//! refused before any game with a message naming the file and what differs.

use crate::common::aeroplane;
use std::fs;

const RUN: &[&str] = &[
    "run",
    "--rules",
    "classic",
    "--bots",
    "greedy,random",
    "--games",
    "40",
    "--rotate-seats",
    "--seed",
    "9",
    "--per-game",
    "-q",
];

#[test]
fn luck_changes_no_output_and_adjusted_is_plain_minus_luck() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, luck) = (dir.path().join("plain"), dir.path().join("luck"));
    let out = aeroplane()
        .args(RUN)
        .arg("--out")
        .arg(&plain)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out_luck = aeroplane()
        .args(RUN)
        .args(["--luck", "bots/nets/td-classic-2p.safetensors", "--out"])
        .arg(&luck)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let (text, text_luck) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(out_luck).unwrap(),
    );
    let report = |t: &str| -> String {
        t.lines()
            .take_while(|l| !l.starts_with("wrote ") && !l.starts_with("luck-adjusted"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        report(&text),
        report(&text_luck),
        "the plain report is unchanged"
    );
    assert!(text_luck.contains("luck-adjusted (net bots/nets/td-classic-2p.safetensors"));
    for f in [
        "games.csv",
        "summary.csv",
        "seats.csv",
        "lengths.csv",
        "events.csv",
    ] {
        if plain.join(f).exists() {
            assert_eq!(
                fs::read(plain.join(f)).unwrap(),
                fs::read(luck.join(f)).unwrap(),
                "{f} differs"
            );
        }
    }
    assert!(!plain.join("luck.csv").exists());
    let csv = fs::read_to_string(luck.join("luck.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(rows.len(), 2);
    let num = |r: &Vec<String>, c: &str| r[col(c)].parse::<f64>().unwrap();
    for r in &rows {
        assert_eq!(
            num(r, "adjusted_win_rate"),
            num(r, "win_rate") - num(r, "win_luck")
        );
        assert_eq!(
            num(r, "adjusted_score"),
            num(r, "score") - num(r, "score_luck")
        );
        assert!(num(r, "adjusted_win_rate_low") < num(r, "adjusted_win_rate"));
        assert!(num(r, "win_luck") != 0.0);
    }
    // The two bots' luck is opposite (two players: each seat's net luck is its own minus the
    // other's), and the plain win rates are those of summary.csv.
    assert!((num(&rows[0], "win_luck") + num(&rows[1], "win_luck")).abs() < 1e-12);
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(luck.join("summary.json")).unwrap()).unwrap();
    let l = &summary["report"]["luck"];
    assert_eq!(l["net"], "bots/nets/td-classic-2p.safetensors");
    assert_eq!(
        l["bots"][0]["win_rate"]["plain"].as_f64().unwrap(),
        summary["report"]["summary"]["bots"][0]["win_rate"]
            .as_f64()
            .unwrap()
    );
    let plain_summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(plain.join("summary.json")).unwrap()).unwrap();
    assert!(plain_summary["report"].get("luck").is_none());
    let manifest = fs::read_to_string(luck.join("run.json")).unwrap();
    assert!(
        manifest.contains("\"luck\": \"bots/nets/td-classic-2p.safetensors\""),
        "{manifest}"
    );
    assert!(
        !fs::read_to_string(plain.join("run.json"))
            .unwrap()
            .contains("luck")
    );
}

#[test]
fn nets_that_do_not_fit_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = |net: &str, extra: &[&str]| {
        let out = aeroplane()
            .args([
                "run", "--rules", "classic", "--games", "4", "-q", "--luck", net,
            ])
            .args(extra)
            .assert()
            .failure()
            .get_output()
            .clone();
        String::from_utf8(out.stderr).unwrap()
    };
    let e = run(
        "bots/nets/td-classic-4p.safetensors",
        &["--bots", "greedy,random"],
    );
    assert!(
        e.contains("td-classic-4p.safetensors")
            && e.contains("the net is for 4 players, the game has 2"),
        "{e}"
    );
    let e = run(
        "bots/nets/td-chinese-2p.safetensors",
        &["--bots", "greedy,random"],
    );
    assert!(
        e.contains("td-chinese-2p.safetensors") && e.contains("trained on other rules"),
        "{e}"
    );
    let junk = dir.path().join("junk.safetensors");
    fs::write(&junk, b"not a net at all").unwrap();
    let e = run(junk.to_str().unwrap(), &["--bots", "greedy,random"]);
    assert!(
        e.contains("junk.safetensors") && e.contains("not a whole safetensors file"),
        "{e}"
    );
    let e = run("no/such/net.safetensors", &["--bots", "greedy,random"]);
    assert!(
        e.contains("no/such/net.safetensors") && e.contains("cannot be read"),
        "{e}"
    );
    let e = run(
        "bots/nets/td-classic-2p.safetensors",
        &[
            "--bots",
            "greedy,random,random,random",
            "--sprt",
            "elo0=0,elo1=50",
        ],
    );
    assert!(e.contains("4 players") || e.contains("2 players"), "{e}");
}

/// Two shards merged give the luck figures of the whole run, byte for byte (the luck sums are
/// folded in plan order, as every tally is), and the manifest's `luck` is reproduced.
#[test]
fn merged_shards_measure_the_same_luck() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "run",
        "--rules",
        "classic",
        "--bots",
        "greedy,random",
        "--games",
        "30",
        "--rotate-seats",
        "--chunk-size",
        "4",
        "-q",
        "--luck",
        "bots/nets/td-classic-2p.safetensors",
    ];
    let whole = dir.path().join("whole");
    aeroplane()
        .args(args)
        .arg("--out")
        .arg(&whole)
        .assert()
        .success();
    let shards: Vec<_> = (0..2).map(|k| dir.path().join(format!("s{k}"))).collect();
    for (k, s) in shards.iter().enumerate() {
        aeroplane()
            .args(args)
            .args(["--shard", &format!("{k}/2"), "--out"])
            .arg(s)
            .assert()
            .success();
    }
    let merged = dir.path().join("merged");
    aeroplane()
        .arg("merge")
        .arg(&merged)
        .args(&shards)
        .assert()
        .success();
    for f in ["luck.csv", "summary.csv", "summary.json"] {
        assert_eq!(
            fs::read(whole.join(f)).unwrap(),
            fs::read(merged.join(f)).unwrap(),
            "{f} differs"
        );
    }
}

/// The text of a report.html, tags dropped and whitespace collapsed.
fn page_text(dir: &std::path::Path) -> String {
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_report_shows_the_luck_adjusted_rates_of_luck_csv() {
    let dir = tempfile::tempdir().unwrap();
    // Two players: one table (scores are the win rates); the figures are luck.csv's.
    let two = dir.path().join("two");
    aeroplane()
        .args(RUN)
        .args(["--luck", "bots/nets/td-classic-2p.safetensors", "--report"])
        .arg("--out")
        .arg(&two)
        .assert()
        .success();
    let text = page_text(&two);
    assert!(text.contains("Luck-adjusted results"), "{text}");
    assert!(text.contains("Net: bots/nets/td-classic-2p.safetensors"));
    let csv = fs::read_to_string(two.join("luck.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let num = |c: &str| -> f64 {
            cells[header.iter().position(|h| *h == c).unwrap()]
                .parse()
                .unwrap()
        };
        let shown = format!(
            "{:.2}% [{:.2}, {:.2}]",
            100.0 * num("adjusted_win_rate"),
            100.0 * num("adjusted_win_rate_low"),
            100.0 * num("adjusted_win_rate_high")
        );
        assert!(text.contains(&shown), "{shown} not in {text}");
        assert!(text.contains(&format!("{:.2}x", num("win_variance_ratio"))));
    }
    assert!(!text.contains("adjusted score [95%]"));

    // Four players, every seat ranked: the scores differ from the win rates, so they get a
    // table of their own.
    let four = dir.path().join("four");
    aeroplane()
        .args([
            "run",
            "--rules",
            "classic",
            "--bots",
            "greedy,random,random,random",
            "--games",
            "12",
            "--rotate-seats",
            "--luck",
            "bots/nets/td-classic-4p.safetensors",
            "--report",
            "-q",
            "--out",
        ])
        .arg(&four)
        .assert()
        .success();
    assert!(page_text(&four).contains("adjusted score [95%]"));

    // A plain run has no such section; a damaged luck.csv is named on the page.
    let plain = dir.path().join("plain");
    aeroplane()
        .args(RUN)
        .arg("--report")
        .arg("--out")
        .arg(&plain)
        .assert()
        .success();
    assert!(!page_text(&plain).contains("Luck-adjusted"));
    let mut lines: Vec<String> = csv.lines().map(String::from).collect();
    let rate = header.iter().position(|h| *h == "win_rate").unwrap();
    let mut cells: Vec<&str> = lines[1].split(',').collect();
    cells[rate] = "7.5";
    lines[1] = cells.join(",");
    fs::write(two.join("luck.csv"), lines.join("\n") + "\n").unwrap();
    aeroplane().arg("report").arg(&two).assert().success();
    let text = page_text(&two);
    assert!(text.contains("luck.csv row"), "{text}");
}
