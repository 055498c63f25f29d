//! `aeroplane report` and `--report`: the page is well-formed XHTML with inline SVG, holds the
//! numbers of the files it was made from, and reads folders that lack summary.json.

use crate::common::aeroplane;
use std::fs;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

fn job(args: &[&str], out: &Path) {
    aeroplane()
        .args(args)
        .args(["--quiet", "--report", "--out"])
        .arg(out)
        .assert()
        .success()
        .stdout(predicate::str::contains("report.html"));
}

/// A CSV file as (header, rows).
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let split = |l: &str| l.split(',').map(String::from).collect::<Vec<_>>();
    let header = split(lines.next().unwrap());
    (header, lines.map(split).collect())
}

fn col(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).unwrap()
}

/// Parses the report as XML and returns its text and every text node inside its SVGs.
fn parse(dir: &Path) -> (String, String, usize) {
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&html, opts)
        .unwrap_or_else(|e| panic!("report.html is not well-formed XML: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "html");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/1999/xhtml")
    );
    let svgs: Vec<_> = doc
        .descendants()
        .filter(|n| n.tag_name().name() == "svg")
        .collect();
    for s in &svgs {
        assert_eq!(s.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
        assert!(s.attribute("viewBox").is_some() || s.attribute("width").is_some());
    }
    let svg_text: String = svgs
        .iter()
        .flat_map(|s| s.descendants().filter_map(|n| n.text()))
        .collect::<Vec<_>>()
        .join("\n");
    // Self-contained: nothing is fetched.
    for n in doc.descendants() {
        assert!(n.tag_name().name() != "script", "no scripts");
        for a in ["src", "href"] {
            if let Some(v) = n.attribute(a) {
                assert!(!v.contains("://"), "no external resources: {v}");
            }
        }
    }
    assert!(
        !dir.join(".report.html.tmp").exists(),
        "the temporary file is renamed into place"
    );
    let charts = svgs.len();
    drop(doc);
    (html, svg_text, charts)
}

fn pct(x: &str) -> String {
    format!("{:.2}%", 100.0 * x.parse::<f64>().unwrap())
}

#[test]
fn run_report_draws_the_csv_numbers() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("run");
    job(
        &["run", "--games", "200", "--rotate-seats", "--seed", "3"],
        &d,
    );
    let (html, svg, charts) = parse(&d);
    assert_eq!(charts, 4, "bots, seats, lengths, events");
    let (h, rows) = csv(&d.join("summary.csv"));
    for r in &rows {
        let rate = pct(&r[col(&h, "win_rate")]);
        assert!(html.contains(&rate), "win rate {rate}");
        let lo = format!(
            "{:.2}",
            100.0 * r[col(&h, "win_lo95")].parse::<f64>().unwrap()
        );
        assert!(html.contains(&format!("[{lo}, ")), "interval {lo}");
    }
    let (h, rows) = csv(&d.join("seats.csv"));
    for r in &rows {
        assert!(html.contains(&pct(&r[col(&h, "win_rate")])));
        let v = format!(
            "{:.1}",
            100.0 * r[col(&h, "win_rate")].parse::<f64>().unwrap()
        );
        assert!(svg.contains(&v), "seat rate {v} is written on the chart");
    }
    let (h, rows) = csv(&d.join("length_stats.csv"));
    let turns = rows.iter().find(|r| r[0] == "turns").unwrap();
    for c in ["p5", "median", "p95", "max"] {
        assert!(html.contains(&turns[col(&h, c)]), "{c}");
    }
    // Means with two decimals, not the CSV's six.
    for c in ["mean", "sd"] {
        let v: f64 = turns[col(&h, c)].parse().unwrap();
        assert!(html.contains(&format!(">{v:.2}<")), "{c}");
        assert!(!html.contains(&turns[col(&h, c)]), "{c} with six decimals");
    }
    let mean: f64 = turns[col(&h, "mean")].parse().unwrap();
    assert!(svg.contains(&format!("mean {mean:.1} turns")));
    assert!(svg.contains(&format!("median {} turns", turns[col(&h, "median")])));
    let (h, rows) = csv(&d.join("events.csv"));
    for r in &rows {
        let v = format!("{:.2}", r[col(&h, "per_game")].parse::<f64>().unwrap());
        assert!(html.contains(&format!(">{v}<")), "per game {v}");
        assert!(svg.contains(&v), "event bar label {v}");
    }
    for text in ["games won (%)", "game length (turns)", "fair: 1/4 = 25.0%"] {
        assert!(svg.contains(text), "axis or legend text {text:?}");
    }
    assert!(html.contains("p = "), "the seat test in words");
    assert!(html.contains("aeroplane run --rules appfreegame --bots greedy,random,random,random --games 200 --seed 3 --rotate-seats"));
    assert!(html.contains("three_sixes"), "the rules table");
}

#[test]
fn sprt_report_draws_the_llr_path() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("sprt");
    job(
        &[
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=50",
            "--max-games",
            "4000",
            "--chunk-size",
            "4",
        ],
        &d,
    );
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.join("summary.json")).unwrap()).unwrap();
    let report = &summary["report"];
    let path = report["path"].as_array().unwrap();
    assert!(path.len() >= 2, "one point per check");
    let games: Vec<u64> = path.iter().map(|p| p[0].as_u64().unwrap()).collect();
    assert!(games.windows(2).all(|w| w[0] < w[1]));
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.join("run.json")).unwrap()).unwrap();
    assert_eq!(games.last(), manifest["games_played"].as_u64().as_ref());
    let last = path.last().unwrap()[1].as_f64().unwrap();
    assert!((last - report["sprt"]["llr"].as_f64().unwrap()).abs() < 1e-9);
    let (html, svg, charts) = parse(&d);
    assert_eq!(charts, 5, "the LLR path and the run's four");
    let upper = report["sprt"]["upper"].as_f64().unwrap();
    assert!(svg.contains(&format!("upper bound {upper:.2}: accept H1")));
    assert!(html.contains("H1 accepted"));
    assert!(html.contains("--sprt elo0=0,elo1=50"));
}

#[test]
fn sweep_report_sorts_by_fairness_and_shows_the_comparison() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("sweep");
    job(
        &[
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--vary",
            "home_lane_cells=5,6",
            "--bots",
            "greedy,greedy",
            "--games",
            "300",
            "--compare",
            "1,2",
        ],
        &d,
    );
    let (html, svg, charts) = parse(&d);
    assert_eq!(charts, 4, "two main-effect charts per varied option");
    let (h, rows) = csv(&d.join("sweep.csv"));
    let edge = col(&h, "max_seat_edge");
    let fairest = rows
        .iter()
        .min_by(|a, b| {
            let e = |r: &Vec<String>| r[edge].parse::<f64>().unwrap();
            e(a).total_cmp(&e(b))
        })
        .unwrap();
    let label = &fairest[col(&h, "variant")];
    assert!(html.contains(&format!(
        "<tr class=\"best\"><td class=\"n\">{}</td><td>{label}",
        fairest[0]
    )));
    assert!(html.contains(&format!(
        "Fairest-looking: {label} (variant {})",
        fairest[0]
    )));
    assert!(
        html.contains("winner"),
        "the fairest-looking pick says it is partly luck"
    );
    assert!(html.contains("Holm"));
    for r in &rows {
        let v = format!("{:.1}", r[col(&h, "turns_mean")].parse::<f64>().unwrap());
        assert!(html.contains(&format!(">{v}<")), "mean turns {v}");
        assert!(html.contains(&pct(&r[col(&h, "seat0_win")])));
    }
    let (eh, effects) = csv(&d.join("effects.csv"));
    for r in effects.iter().filter(|r| r[col(&eh, "metric")] == "turns") {
        let v = format!("{:.1}", r[col(&eh, "mean")].parse::<f64>().unwrap());
        assert!(svg.contains(&v), "main effect {v} on the chart");
    }
    for v in ["illegal", "bounce", "home_lane_cells", "overshoot"] {
        assert!(svg.contains(v), "{v} on a chart");
    }
    let (h, rows) = csv(&d.join("compare.csv"));
    for r in &rows {
        let d: f64 = r[col(&h, "diff")].parse().unwrap();
        let shown = if r[col(&h, "metric")] == "turns" {
            format!("{d:.2}")
        } else {
            format!("{d:.4}")
        };
        assert!(html.contains(&format!(">{shown}<")), "a - b = {shown}");
    }
    assert!(html.contains("McNemar"));
    assert!(
        html.contains("<th>a - b</th>"),
        "compare.csv's diff is a - b"
    );
    assert!(
        html.contains("overshoot=illegal home_lane_cells=6 (the base rules)")
            || html.contains("overshoot=illegal home_lane_cells=6 (fairest; the base rules)"),
        "the preset's own variant is marked"
    );
}

#[test]
fn league_report_shows_ratings_and_the_pair_matrix() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path().join("league");
    job(
        &[
            "league",
            "--bots",
            "random,greedy,expectimax:depth=1",
            "--players",
            "2",
            "--games",
            "100",
            "--bootstrap",
            "100",
        ],
        &d,
    );
    let (html, svg, charts) = parse(&d);
    assert_eq!(charts, 2);
    let (h, rows) = csv(&d.join("league.csv"));
    for r in &rows {
        assert!(html.contains(&format!(">{}<", r[col(&h, "rating")])));
        let v = format!("{:.0}", r[col(&h, "rating")].parse::<f64>().unwrap());
        assert!(svg.contains(&v));
    }
    let (h, rows) = csv(&d.join("pairs.csv"));
    assert_eq!(rows.len(), 6);
    for r in &rows {
        let s = format!("{:.3}", r[col(&h, "score")].parse::<f64>().unwrap());
        assert!(svg.contains(&s), "heat-map cell {s}");
    }
}

#[test]
fn old_folders_without_summary_json_still_get_a_report() {
    let tmp = TempDir::new().unwrap();
    let run = tmp.path().join("run");
    aeroplane()
        .args([
            "run",
            "--games",
            "50",
            "--bots",
            "greedy,random",
            "-q",
            "--out",
        ])
        .arg(&run)
        .assert()
        .success();
    fs::remove_file(run.join("summary.json")).unwrap();
    aeroplane()
        .arg("report")
        .arg(&run)
        .assert()
        .success()
        .stdout(predicate::str::contains("report.html"));
    let (html, _, charts) = parse(&run);
    assert_eq!(charts, 4);
    assert!(
        html.contains("not a test of the seats alone"),
        "unrotated, different bots: the seat caveat"
    );
    // Without the manifest too, the page says what it cannot know.
    fs::remove_file(run.join("run.json")).unwrap();
    aeroplane().arg("report").arg(&run).assert().success();
    let (html, _, _) = parse(&run);
    assert!(html.contains("run.json is missing"));

    let sprt = tmp.path().join("sprt");
    aeroplane()
        .args([
            "run",
            "--bots",
            "greedy,random",
            "--sprt",
            "elo0=0,elo1=50",
            "--max-games",
            "200",
            "-q",
            "--out",
        ])
        .arg(&sprt)
        .assert()
        .success();
    fs::remove_file(sprt.join("summary.json")).unwrap();
    aeroplane().arg("report").arg(&sprt).assert().success();
    let (html, _, charts) = parse(&sprt);
    assert_eq!(charts, 5);
    assert!(html.contains("records only the test&#39;s final state"));
}

#[test]
fn report_errors_name_what_is_wrong() {
    let tmp = TempDir::new().unwrap();
    aeroplane()
        .arg("report")
        .arg(tmp.path().join("nothing-here"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("is not a folder"));
    aeroplane()
        .arg("report")
        .arg(tmp.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("holds no results of aeroplane"));
    aeroplane()
        .args(["run", "--games", "10", "--report"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--report writes report.html"));
}

/// A tune's history.csv has a row per iteration: the page reads every one (it stopped at 4,
/// the default limit of a table, and called the rest damage).
#[test]
fn a_tunes_history_is_read_whole() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("tune");
    let o = aeroplane()
        .args([
            "tune",
            "--bot",
            "expectimax:depth=1",
            "--param",
            "hangar=0..60",
            "--rules",
            "classic",
            "--iterations",
            "12",
            "--pairs-per-iteration",
            "4",
            "--no-confirm",
            "--report",
            "-q",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("warning: report"), "{stderr}");
    let html = fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        !html.contains("damaged or disagree"),
        "the page lists problems"
    );
    let o = aeroplane().arg("report").arg(&out).output().unwrap();
    assert!(o.status.success());
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn game_viewers_come_with_and_without_the_names_of_games_csv() {
    // The report replays the games it shows against their games.csv record: the columns
    // through `unfinished`, so the bots' names after them (and a folder written before they
    // were added, without them) change nothing; an edited record gets no viewer (and no link).
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("run");
    job(
        &[
            "run",
            "--bots",
            "greedy,random",
            "--games",
            "12",
            "--rotate-seats",
            "--per-game",
        ],
        &dir,
    );
    let viewers = ["longest", "shortest", "captures", "random"].map(|v| format!("game-{v}.html"));
    let written =
        |dir: &Path| -> Vec<bool> { viewers.iter().map(|v| dir.join(v).is_file()).collect() };
    assert_eq!(written(&dir), [true; 4]);
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("href=\"game-longest.html\""));
    let (header, rows) = csv(&dir.join("games.csv"));
    assert_eq!(
        header[24..],
        ["name_seat0", "name_seat1", "name_seat2", "name_seat3"]
    );
    // Two players sit in seats 0 and 2.
    assert!(
        rows.iter()
            .all(|r| r[25].is_empty() && r[27].is_empty() && !r[24].is_empty()),
        "{rows:?}"
    );
    // Without the name columns.
    let text = fs::read_to_string(dir.join("games.csv")).unwrap();
    let old: Vec<String> = text
        .lines()
        .map(|l| l.split(',').take(24).collect::<Vec<_>>().join(","))
        .collect();
    fs::write(dir.join("games.csv"), old.join("\n") + "\n").unwrap();
    for v in &viewers {
        fs::remove_file(dir.join(v)).unwrap();
    }
    aeroplane().arg("report").arg(&dir).assert().success();
    assert_eq!(written(&dir), [true; 4]);
    // Every game's record edited (one more pass): no game replays to it.
    let edited: Vec<String> = old
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let mut c: Vec<String> = l.split(',').map(String::from).collect();
            if i > 0 {
                c[22] = (c[22].parse::<u64>().unwrap() + 1).to_string();
            }
            c.join(",")
        })
        .collect();
    fs::write(dir.join("games.csv"), edited.join("\n") + "\n").unwrap();
    for v in &viewers {
        fs::remove_file(dir.join(v)).unwrap();
    }
    aeroplane().arg("report").arg(&dir).assert().success();
    assert_eq!(written(&dir), [false; 4]);
    let page = fs::read_to_string(dir.join("report.html")).unwrap();
    for v in &viewers {
        assert!(!page.contains(&format!("href=\"{v}\"")), "{v} is linked");
    }
}
