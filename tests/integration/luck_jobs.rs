//! `league --luck NET` and `sweep --luck NET...`: luck-adjusted results per bot and per pair of
//! a league, per variant of a sweep. The luck changes no plain output (every file of the plain
//! job is byte for byte the same); `adjusted = plain - luck` holds exactly in luck.csv and
//! pairs_luck.csv; the plain figures are the job's own; the report shows them; a stopped job
//! resumes with its nets and ends with the files of the job that never stopped; a net that
//! fits no part (other rules or players) is refused before any game, naming the net, its
//! rules and the variant.

use crate::common::{aeroplane, files};
use std::fs;
use std::path::Path;

const NET2: &str = "bots/nets/td-classic-2p.safetensors";

const LEAGUE: &[&str] = &[
    "league",
    "--rules",
    "classic",
    "--bots",
    "greedy,expectimax,random",
    "--players",
    "2",
    "--games",
    "30",
    "--seed",
    "5",
    "--bootstrap",
    "100",
    "-q",
];

const SWEEP: &[&str] = &[
    "sweep",
    "--vary",
    "base=classic,chinese",
    "--bots",
    "greedy,random",
    "--games",
    "24",
    "--rotate-seats",
    "--seed",
    "3",
    "-q",
];

const SWEEP_NETS: &[&str] = &[
    "--luck",
    "bots/nets/td-classic-2p.safetensors",
    "--luck",
    "bots/nets/td-chinese-2p.safetensors",
];

/// A CSV file as its header and rows of cells.
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    (header, rows)
}

/// The cell of column `name` in `row`, as a number.
fn num(header: &[String], row: &[String], name: &str) -> f64 {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"));
    row[i]
        .parse()
        .unwrap_or_else(|_| panic!("{name}: {}", row[i]))
}

fn text(header: &[String], row: &[String], name: &str) -> String {
    row[header.iter().position(|h| h == name).unwrap()].clone()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The text of a report.html, tags dropped and whitespace collapsed.
fn page_text(dir: &Path) -> String {
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

/// Every file of `plain` but summary.json and report.html is byte for byte `luck`'s.
fn plain_files_unchanged(plain: &Path, luck: &Path) {
    for entry in fs::read_dir(plain).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if ["summary.json", "report.html", "run.json"].contains(&name.as_str()) {
            continue;
        }
        assert_eq!(
            fs::read(plain.join(&name)).unwrap(),
            fs::read(luck.join(&name)).unwrap(),
            "{name} differs"
        );
    }
}

#[test]
fn a_league_reports_luck_adjusted_scores_per_bot_and_pair() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, luck) = (dir.path().join("plain"), dir.path().join("luck"));
    let out = |extra: &[&str], dir: &Path| {
        let o = aeroplane()
            .args(LEAGUE)
            .args(extra)
            .arg("--report")
            .arg("--out")
            .arg(dir)
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(o).unwrap()
    };
    let (text_plain, text_luck) = (out(&[], &plain), out(&["--luck", NET2], &luck));
    plain_files_unchanged(&plain, &luck);
    assert!(
        text_luck.starts_with(&text_plain.replace(&plain.display().to_string(), "")[..20]),
        "the plain report comes first"
    );
    let cut = |t: &str| {
        t.lines()
            .take_while(|l| !l.starts_with("luck-adjusted") && !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(cut(&text_plain), cut(&text_luck));
    assert!(
        text_luck.contains("luck-adjusted head to head"),
        "{text_luck}"
    );
    assert!(!plain.join("luck.csv").exists() && !plain.join("pairs_luck.csv").exists());

    // Per bot: luck.csv's plain win rates are league.csv's, adjusted = plain - luck exactly.
    let (lh, league) = csv(&luck.join("league.csv"));
    let (h, bots) = csv(&luck.join("luck.csv"));
    assert_eq!(bots.len(), 3);
    for (b, l) in bots.iter().zip(&league) {
        assert_eq!(text(&h, b, "name"), text(&lh, l, "bot"), "league order");
        assert!((num(&h, b, "win_rate") - num(&lh, l, "win_rate")).abs() < 1e-6);
        assert_eq!(num(&h, b, "games"), num(&lh, l, "games"));
        for (y, l, a) in [
            ("win_rate", "win_luck", "adjusted_win_rate"),
            ("score", "score_luck", "adjusted_score"),
        ] {
            assert_eq!(num(&h, b, a), num(&h, b, y) - num(&h, b, l), "{a}");
        }
        assert!(num(&h, b, "win_luck") != 0.0);
        assert!(num(&h, b, "win_variance_ratio") > 0.0);
    }
    // Per pair: the plain scores are pairs.csv's, adjusted = plain - luck exactly, and a pair's
    // luck is the opposite of the reversed pair's.
    let (ph, pairs) = csv(&luck.join("pairs.csv"));
    let (h, pl) = csv(&luck.join("pairs_luck.csv"));
    assert_eq!(pl.len(), 6);
    for (r, p) in pl.iter().zip(&pairs) {
        assert_eq!(text(&h, r, "bot"), text(&ph, p, "bot"));
        assert_eq!(text(&h, r, "opponent"), text(&ph, p, "opponent"));
        assert_eq!(num(&h, r, "met"), num(&ph, p, "met"));
        assert!((num(&h, r, "score") - num(&ph, p, "score")).abs() < 1e-6);
        assert_eq!(
            num(&h, r, "adjusted_score"),
            num(&h, r, "score") - num(&h, r, "score_luck")
        );
        let back = pl
            .iter()
            .find(|o| {
                text(&h, o, "bot") == text(&h, r, "opponent")
                    && text(&h, o, "opponent") == text(&h, r, "bot")
            })
            .unwrap();
        assert!((num(&h, r, "score_luck") + num(&h, back, "score_luck")).abs() < 1e-12);
        assert!(num(&h, r, "adjusted_score_low") < num(&h, r, "adjusted_score"));
    }

    // summary.json holds the same, run.json the net; a plain league's neither.
    let s = json(&luck.join("summary.json"));
    assert_eq!(s["report"]["luck"]["net"], NET2);
    assert_eq!(s["report"]["pair_luck"].as_array().unwrap().len(), 6);
    let first = &pl[0];
    assert_eq!(
        s["report"]["pair_luck"][0]["score"]["adjusted"]
            .as_f64()
            .unwrap(),
        num(&h, first, "adjusted_score")
    );
    let p = json(&plain.join("summary.json"));
    assert!(p["report"].get("luck").is_none() && p["report"].get("pair_luck").is_none());
    assert_eq!(json(&luck.join("run.json"))["luck"], NET2);
    assert!(json(&plain.join("run.json")).get("luck").is_none());

    // The report shows both tables and the command that reproduces the league with its net.
    let page = page_text(&luck);
    assert!(page.contains("Luck-adjusted results"), "{page}");
    assert!(page.contains("Luck-adjusted head to head"));
    assert!(page.contains("The ratings are not adjusted for luck"));
    let shown = format!(
        "{:.3} [{:.3}, {:.3}]",
        num(&h, first, "adjusted_score"),
        num(&h, first, "adjusted_score_low"),
        num(&h, first, "adjusted_score_high")
    );
    assert!(page.contains(&shown), "{shown} not in {page}");
    assert!(page.contains(&format!("--luck {NET2}")), "{page}");
    assert!(
        !page.contains("luck.csv row") && !page.contains("lacks the column"),
        "{page}"
    );
    assert!(!page_text(&plain).contains("Luck-adjusted"));

    // A damaged pairs_luck.csv is named on the page.
    let mut lines: Vec<String> = fs::read_to_string(luck.join("pairs_luck.csv"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    lines[1] = lines[1].replacen(",30,", ",x,", 1);
    fs::write(luck.join("pairs_luck.csv"), lines.join("\n") + "\n").unwrap();
    aeroplane().arg("report").arg(&luck).assert().success();
    assert!(page_text(&luck).contains("pairs_luck.csv row"));
}

#[test]
fn a_league_at_four_player_tables_adjusts_every_pair() {
    // Four players, a pool of four: every table seats all, each pair meets at every table.
    let dir = tempfile::tempdir().unwrap();
    aeroplane()
        .args([
            "league",
            "--rules",
            "classic",
            "--bots",
            "greedy,random,expectimax,td-classic-4p",
            "--players",
            "4",
            "--games",
            "6",
            "--bootstrap",
            "100",
            "-q",
            "--luck",
            "bots/nets/td-classic-4p.safetensors",
            "--out",
        ])
        .arg(dir.path())
        .assert()
        .success();
    let (h, pl) = csv(&dir.path().join("pairs_luck.csv"));
    assert_eq!(pl.len(), 12);
    for r in &pl {
        // 4 tables x 6 deals x 4 rotations, one meeting per game.
        assert_eq!(num(&h, r, "met"), 96.0);
        assert_eq!(num(&h, r, "deals"), 24.0);
        assert_eq!(
            num(&h, r, "adjusted_score"),
            num(&h, r, "score") - num(&h, r, "score_luck")
        );
    }
    let (h, bots) = csv(&dir.path().join("luck.csv"));
    for b in &bots {
        assert_eq!(num(&h, b, "games"), 96.0);
        assert!(num(&h, b, "score") != num(&h, b, "win_rate"));
    }
}

#[test]
fn a_sweep_measures_each_variant_with_the_net_of_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, luck) = (dir.path().join("plain"), dir.path().join("luck"));
    for (d, extra) in [(&plain, &[][..]), (&luck, SWEEP_NETS)] {
        aeroplane()
            .args(SWEEP)
            .args(extra)
            .arg("--report")
            .arg("--out")
            .arg(d)
            .assert()
            .success();
    }
    plain_files_unchanged(&plain, &luck);
    let (sh, sweep) = csv(&luck.join("sweep.csv"));
    let (h, rows) = csv(&luck.join("luck.csv"));
    assert_eq!(rows.len(), 4, "two variants, two lineup entries");
    for r in &rows {
        let v = num(&h, r, "index") as usize - 1;
        assert_eq!(text(&h, r, "variant"), text(&sh, &sweep[v], "variant"));
        let k = num(&h, r, "bot") as usize;
        let plain_win = num(&sh, &sweep[v], &format!("bot{k}_win"));
        assert!((num(&h, r, "win_rate") - plain_win).abs() < 1e-6);
        assert_eq!(
            num(&h, r, "adjusted_win_rate"),
            num(&h, r, "win_rate") - num(&h, r, "win_luck")
        );
        assert_eq!(
            num(&h, r, "adjusted_score"),
            num(&h, r, "score") - num(&h, r, "score_luck")
        );
        assert!(num(&h, r, "win_luck") != 0.0);
    }
    let s = json(&luck.join("summary.json"));
    let nets: Vec<&str> = s["report"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["luck"]["net"].as_str().unwrap())
        .collect();
    assert_eq!(
        nets,
        [
            "bots/nets/td-classic-2p.safetensors",
            "bots/nets/td-chinese-2p.safetensors"
        ]
    );
    assert!(
        json(&plain.join("summary.json"))["report"]["rows"][0]
            .get("luck")
            .is_none()
    );
    let m = json(&luck.join("run.json"));
    assert_eq!(
        m["luck"],
        serde_json::json!([
            "bots/nets/td-classic-2p.safetensors",
            "bots/nets/td-chinese-2p.safetensors"
        ])
    );
    let page = page_text(&luck);
    assert!(page.contains("Luck-adjusted results"), "{page}");
    assert!(page.contains(
        "--luck bots/nets/td-classic-2p.safetensors --luck bots/nets/td-chinese-2p.safetensors"
    ));
    let r = &rows[0];
    let shown = format!(
        "base=classic {} {}",
        text(&h, r, "name"),
        text(&h, r, "games")
    );
    assert!(page.contains(&shown), "{shown} not in {page}");
    assert!(
        !page.contains("luck.csv row") && !page.contains("lacks the column"),
        "{page}"
    );
    // The text output has a block per variant.
    let out = aeroplane()
        .args(SWEEP)
        .args(SWEEP_NETS)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.contains(
            "variant #2 base=chinese:\nluck-adjusted (net bots/nets/td-chinese-2p.safetensors"
        ),
        "{out}"
    );
}

#[test]
fn nets_that_fit_no_part_are_refused() {
    let fail = |args: &[&str], extra: &[&str]| {
        let out = aeroplane()
            .args(args)
            .args(extra)
            .assert()
            .failure()
            .get_output()
            .clone();
        assert!(out.stdout.is_empty(), "no game is played");
        String::from_utf8(out.stderr).unwrap()
    };
    // A league: the same messages as run's.
    let e = fail(LEAGUE, &["--luck", "bots/nets/td-classic-4p.safetensors"]);
    assert!(
        e.contains("td-classic-4p.safetensors")
            && e.contains("the net is for 4 players, the game has 2"),
        "{e}"
    );
    let e = fail(LEAGUE, &["--luck", "bots/nets/td-chinese-2p.safetensors"]);
    assert!(
        e.contains("td-chinese-2p.safetensors") && e.contains("trained on other rules"),
        "{e}"
    );
    // A sweep over rules: one net fits one variant only; the message names the variant, the
    // net and its rules.
    let e = fail(SWEEP, &["--luck", NET2]);
    assert!(
        e.starts_with("error: --luck: no net given fits variant 2 `base=chinese`")
            && e.contains(NET2)
            && e.contains("launch_rolls = [2, 4, 6] for the net, [6] here;")
            && e.contains("(--luck repeated)"),
        "{e}"
    );
    // Only the options that differ are named (not the ten of the rules).
    assert!(
        !e.contains("max_turns") && !e.contains("home_lane_cells") && !e.contains("end ="),
        "{e}"
    );
    let e = fail(
        &[
            "sweep",
            "--rules",
            "classic",
            "--vary",
            "flight_optional=true,false",
            "--bots",
            "greedy,random",
            "--games",
            "4",
            "-q",
        ],
        &["--luck", NET2],
    );
    assert!(
        e.contains("no net given fits variant 2 `flight_optional=false`")
            && e.contains(
                "the net was trained on other rules (flight_optional = true for the net, false here): luck is measured only by a net of the run's own rules"
            ),
        "{e}"
    );
    // A net that fits no variant is refused too.
    let e = fail(
        SWEEP,
        &[
            "--luck",
            "bots/nets/td-classic-2p.safetensors",
            "--luck",
            "bots/nets/td-chinese-2p.safetensors",
            "--luck",
            "bots/nets/td-appfreegame-2p.safetensors",
        ],
    );
    assert!(
        e.contains("td-appfreegame-2p.safetensors fits none of the sweep's variants"),
        "{e}"
    );
    let e = fail(SWEEP, &["--luck", "no/such/net.safetensors"]);
    assert!(
        e.contains("no/such/net.safetensors") && e.contains("cannot be read"),
        "{e}"
    );
}

/// Runs `args` into `dir`, stopped (as by a signal) after `units` units; then resumes it.
fn stop_and_resume(args: &[&str], dir: &Path, units: &str) {
    let out = aeroplane()
        .args(args)
        .arg("--out")
        .arg(dir)
        .env("AEROPLANE_TEST_SIGNAL_AFTER_UNITS", units)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let out = aeroplane()
        .args(["resume", "-q"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn a_stopped_league_or_sweep_resumes_with_its_nets() {
    let tmp = tempfile::tempdir().unwrap();
    let league: Vec<&str> = LEAGUE
        .iter()
        .copied()
        .chain(["--luck", NET2, "--chunk-size", "10", "--threads", "1"])
        .collect();
    let sweep: Vec<&str> = SWEEP
        .iter()
        .copied()
        .chain(SWEEP_NETS.iter().copied())
        .chain(["--chunk-size", "8", "--threads", "1"])
        .collect();
    for (name, args) in [("league", &league), ("sweep", &sweep)] {
        let whole = tmp.path().join(format!("{name}-whole"));
        aeroplane()
            .args(args.iter())
            .arg("--out")
            .arg(&whole)
            .assert()
            .success();
        assert!(whole.join("luck.csv").exists());
        let dir = tmp.path().join(format!("{name}-stopped"));
        stop_and_resume(args, &dir, "2");
        assert_eq!(files(&dir), files(&whole), "{name}");
    }
}

/// `--luck-ply` in a league and a sweep: the plain files stay those of ply 0, the luck figures
/// differ; run.json records `luck_ply` and summary.json each luck report's `ply`; a stopped
/// job resumes at it and `--manifest` measures at it again.
#[test]
fn a_league_or_sweep_measures_at_its_luck_ply_and_keeps_it() {
    let tmp = tempfile::tempdir().unwrap();
    let league: Vec<&str> = LEAGUE
        .iter()
        .copied()
        .chain(["--luck", NET2, "--chunk-size", "10", "--threads", "1"])
        .collect();
    let sweep: Vec<&str> = SWEEP
        .iter()
        .copied()
        .chain(SWEEP_NETS.iter().copied())
        .chain(["--chunk-size", "8", "--threads", "1"])
        .collect();
    for (name, args, unit) in [("league", &league, "10"), ("sweep", &sweep, "8")] {
        let at = |ply: &'static str| -> Vec<&str> {
            let mut a = args.to_vec();
            if ply != "0" {
                a.extend(["--luck-ply", ply]);
            }
            a
        };
        let zero = tmp.path().join(format!("{name}-0"));
        let one = tmp.path().join(format!("{name}-1"));
        for (dir, ply) in [(&zero, "0"), (&one, "1")] {
            aeroplane()
                .args(at(ply))
                .arg("--out")
                .arg(dir)
                .assert()
                .success();
        }
        for entry in fs::read_dir(&zero).unwrap() {
            let f = entry.unwrap().file_name().into_string().unwrap();
            let same = fs::read(zero.join(&f)).unwrap() == fs::read(one.join(&f)).unwrap();
            let luck = ["luck.csv", "pairs_luck.csv", "summary.json", "run.json"];
            assert_eq!(same, !luck.contains(&f.as_str()), "{name}: {f}");
        }
        assert_eq!(json(&one.join("run.json"))["luck_ply"], 1, "{name}");
        assert!(json(&zero.join("run.json")).get("luck_ply").is_none());
        let report = &json(&one.join("summary.json"))["report"];
        let plies: Vec<&serde_json::Value> = match name {
            "league" => vec![&report["luck"]["ply"]],
            _ => report["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| &r["luck"]["ply"])
                .collect(),
        };
        assert!(
            !plies.is_empty() && plies.iter().all(|p| **p == 1),
            "{name}"
        );
        assert!(
            !fs::read_to_string(zero.join("summary.json"))
                .unwrap()
                .contains("\"ply\""),
            "{name}"
        );

        let stopped = tmp.path().join(format!("{name}-stopped"));
        stop_and_resume(&at("1"), &stopped, "2");
        assert_eq!(files(&stopped), files(&one), "{name}");

        // The same units: the luck's sums are added in the same order.
        let again = tmp.path().join(format!("{name}-again"));
        aeroplane()
            .args([name, "-q", "--chunk-size", unit, "--manifest"])
            .arg(one.join("run.json"))
            .arg("--out")
            .arg(&again)
            .assert()
            .success();
        assert_eq!(
            fs::read(one.join("luck.csv")).unwrap(),
            fs::read(again.join("luck.csv")).unwrap(),
            "{name}"
        );
    }
}
