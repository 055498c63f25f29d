//! Honest statistics (issue 11): every interval and test is computed on the right unit and
//! says what it is. Each test re-derives a figure from the CSV files or from a second run.

use crate::common::aeroplane;
use std::path::Path;

use tempfile::TempDir;

/// Runs `aeroplane args... --quiet --out DIR` and returns stdout.
fn run_in(dir: &Path, args: &[&str]) -> String {
    let out = aeroplane()
        .args(args)
        .args(["--quiet", "--out"])
        .arg(dir)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// A CSV file as (header, rows).
fn csv(dir: &Path, file: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = ::csv::Reader::from_path(dir.join(file)).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The cell of `row` under column `name`.
fn col<'a>(header: &[String], row: &'a [String], name: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"));
    &row[i]
}

fn num(text: &str) -> f64 {
    text.parse()
        .unwrap_or_else(|_| panic!("not a number: {text:?}"))
}

/// The Wilson score interval at 95%.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let z2 = z * z;
    let d = 1.0 + z2 / n;
    let c = (p + z2 / (2.0 * n)) / d;
    let h = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / d;
    (c - h, c + h)
}

const SWEEP: [&str; 13] = [
    "sweep",
    "--vary",
    "overshoot=illegal,bounce",
    "--bots",
    "greedy,greedy,greedy,greedy",
    "--games",
    "200",
    "--seed",
    "5",
    "--compare",
    "1,2",
    "--threads",
    "2",
];

/// Defect 1. With four identical bots and the dice staying with the seats, the four rotations
/// of a deal are one game played four times: compared by deal, a rotated sweep must give
/// exactly the figures of the same sweep without rotation (200 deals, 200 pairs), not
/// intervals half as wide from counting 800 "independent" pairs.
#[test]
fn rotated_sweep_comparisons_pair_deals_not_games() {
    let (plain, rotated) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    run_in(plain.path(), &SWEEP);
    let mut args = SWEEP.to_vec();
    args.push("--rotate-seats");
    let stdout = run_in(rotated.path(), &args);
    let (h, p) = csv(plain.path(), "compare.csv");
    let (h2, r) = csv(rotated.path(), "compare.csv");
    assert_eq!(h, h2);
    assert_eq!(p.len(), 2);
    for (a, b) in p.iter().zip(&r) {
        for c in [
            "metric",
            "mean_a",
            "mean_b",
            "diff",
            "diff_lo95",
            "diff_hi95",
            "p",
            "deals",
        ] {
            assert_eq!(col(&h, a, c), col(&h, b, c), "{c}: {a:?} vs {b:?}");
        }
    }
    assert_eq!(col(&h, &r[0], "method"), "mcnemar_by_deal");
    assert_eq!(col(&h, &r[1], "method"), "paired_t_by_deal");
    assert_eq!(col(&h, &p[0], "method"), "mcnemar");
    assert_eq!(col(&h, &r[0], "deals"), "200");
    assert!(
        stdout.contains("paired comparison over 200 shared deals (4 seat rotations each"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(McNemar by deal, Tango score 95% CI)"),
        "{stdout}"
    );
    assert!(stdout.contains("(paired t by deal, t 95% CI)"), "{stdout}");
}

/// Defect 2. Four rotated deals in which each bot wins exactly once: the estimated design
/// effect is 0. The interval must not collapse to a point: it is at least the Wilson interval
/// on the 4 deals, says so, and the report warns that 4 deals are too few.
#[test]
fn tiny_rotated_samples_get_no_zero_width_interval() {
    let dir = TempDir::new().unwrap();
    let stdout = run_in(
        dir.path(),
        &[
            "run",
            "--bots",
            "greedy,random",
            "--games",
            "4",
            "--seed",
            "33",
            "--rotate-seats",
        ],
    );
    let (h, rows) = csv(dir.path(), "summary.csv");
    for row in &rows {
        let (lo, hi) = (num(col(&h, row, "win_lo95")), num(col(&h, row, "win_hi95")));
        let p = num(col(&h, row, "win_rate"));
        let (wlo, whi) = wilson(p, 4.0);
        assert!(lo <= wlo + 1e-6 && hi >= whi - 1e-6, "{row:?}");
        assert!(hi - lo > 0.5, "{row:?}");
        assert_eq!(col(&h, row, "interval_method"), "wilson_on_deals");
        assert_eq!(num(col(&h, row, "design_effect")), 0.0);
    }
    let (h, rows) = csv(dir.path(), "seats.csv");
    for row in &rows {
        let (lo, hi) = (num(col(&h, row, "win_lo95")), num(col(&h, row, "win_hi95")));
        let (wlo, whi) = wilson(num(col(&h, row, "win_rate")), 4.0);
        assert!(lo <= wlo + 1e-6 && hi >= whi - 1e-6, "{row:?}");
    }
    assert!(stdout.contains("[15.00%, 85.00%]"), "{stdout}");
    assert!(
        stdout.contains("warning: only 4 deals: too few to trust"),
        "{stdout}"
    );
}

/// Defect 2, the other side: with many deals the interval is the cluster-robust one, labelled
/// with its design effect, and it equals the Wilson interval on games / d.
#[test]
fn rotated_intervals_are_cluster_robust_with_their_design_effect() {
    let dir = TempDir::new().unwrap();
    let stdout = run_in(
        dir.path(),
        &[
            "run",
            "--bots",
            "greedy,random",
            "--games",
            "300",
            "--seed",
            "3",
            "--rotate-seats",
            "--per-game",
        ],
    );
    // Re-derive d for bot 0 from games.csv.
    let (gh, games) = csv(dir.path(), "games.csv");
    let mut per_deal = vec![0u64; 300];
    for g in &games {
        if col(&gh, g, "winner_bot") == "0" {
            per_deal[num(col(&gh, g, "deal")) as usize] += 1;
        }
    }
    let (deals, m) = (300.0, 2.0);
    let wins: u64 = per_deal.iter().sum();
    let p = wins as f64 / (deals * m);
    let mean = wins as f64 / deals;
    let s2 = per_deal
        .iter()
        .map(|&y| (y as f64 - mean).powi(2))
        .sum::<f64>()
        / (deals - 1.0);
    let d = s2 / (m * p * (1.0 - p));
    let (h, rows) = csv(dir.path(), "summary.csv");
    let row = &rows[0];
    assert_eq!(col(&h, row, "interval_method"), "cluster_by_deal");
    assert!((num(col(&h, row, "design_effect")) - d).abs() < 1e-6, "{d}");
    let (lo, hi) = wilson(p, deals * m / d);
    assert!((num(col(&h, row, "win_lo95")) - lo).abs() < 1e-6);
    assert!((num(col(&h, row, "win_hi95")) - hi).abs() < 1e-6);
    assert!(stdout.contains(&format!("d={d:.2}")), "{stdout}");
    assert!(
        stdout.contains("95% intervals: cluster-robust by deal"),
        "{stdout}"
    );
}

/// Defect 3. Without rotation and with different bots, seat j is bot j: the chi-square is no
/// seat-order test and must not be printed as one. With one bot everywhere, or rotation, it is.
#[test]
fn the_seat_test_is_called_a_seat_order_test_only_when_it_is_one() {
    let cases: [(&[&str], bool); 3] = [
        (&["run", "--games", "60"], false),
        (
            &[
                "run",
                "--games",
                "60",
                "--bots",
                "greedy,greedy,greedy,greedy",
            ],
            true,
        ),
        (&["run", "--games", "30", "--rotate-seats"], true),
    ];
    for (args, seat_order) in cases {
        let dir = TempDir::new().unwrap();
        let stdout = run_in(dir.path(), args);
        let (h, rows) = csv(dir.path(), "seats.csv");
        let kind = if seat_order {
            "seat_order"
        } else {
            "bots_and_seats"
        };
        assert!(
            rows.iter().all(|r| col(&h, r, "seat_test") == kind),
            "{args:?}"
        );
        assert_eq!(
            stdout.contains("seat order (first-player) test"),
            seat_order,
            "{args:?}: {stdout}"
        );
        assert_eq!(
            stdout.contains("not a seat-order test"),
            !seat_order,
            "{stdout}"
        );
        assert!(!stdout.contains("all seats equal? chi-square"), "{stdout}");
    }
}

/// Defect 4. The league says what its rating scale is, and reports the measured head-to-head
/// scores with intervals; `ahead` counts meetings with that opponent only.
#[test]
fn league_scale_is_explained_and_head_to_head_scores_have_intervals() {
    let dir = TempDir::new().unwrap();
    let stdout = run_in(
        dir.path(),
        &[
            "league",
            "--bots",
            "random,greedy",
            "--players",
            "4",
            "--games",
            "40",
            "--seed",
            "1",
        ],
    );
    assert!(
        stdout.contains("rating = 400 log10(Plackett-Luce strength)"),
        "{stdout}"
    );
    assert!(stdout.contains("not a head-to-head Elo"), "{stdout}");
    assert!(
        stdout.contains("scores with 95% intervals (cluster-robust by deal"),
        "{stdout}"
    );
    let (h, rows) = csv(dir.path(), "pairs.csv");
    assert_eq!(
        h.join(","),
        "bot,opponent,met,ahead,score,score_lo95,score_hi95,deals"
    );
    assert_eq!(rows.len(), 2);
    let (ab, ba) = (&rows[0], &rows[1]);
    let met = num(col(&h, ab, "met"));
    let (a, b) = (num(col(&h, ab, "ahead")), num(col(&h, ba, "ahead")));
    assert_eq!(met, num(col(&h, ba, "met")));
    assert!(a + b <= met, "{rows:?}");
    let score = num(col(&h, ab, "score"));
    assert!((score - (a + 0.5 * (met - a - b)) / met).abs() < 1e-6);
    assert!((score + num(col(&h, ba, "score")) - 1.0).abs() < 1e-6);
    let (lo, hi) = (
        num(col(&h, ab, "score_lo95")),
        num(col(&h, ab, "score_hi95")),
    );
    assert!(lo < score && score < hi, "{ab:?}");
    // 2 tables x 40 deals, and they meet in every game.
    assert_eq!(col(&h, ab, "deals"), "80");
    // Defect 6: under first_finisher at 4-player tables only winners are ranked.
    let (h, rows) = csv(dir.path(), "league.csv");
    assert!(
        rows.iter().all(|r| col(&h, r, "mean_rank").is_empty()),
        "{rows:?}"
    );
}

/// Defect 5. A sweep adjusts its per-variant p-values for the number of variants (Holm and
/// Benjamini-Hochberg) and says so.
#[test]
fn sweep_p_values_are_adjusted_for_the_number_of_variants() {
    let dir = TempDir::new().unwrap();
    let stdout = run_in(
        dir.path(),
        &[
            "sweep",
            "--vary",
            "overshoot=illegal,bounce",
            "--vary",
            "flight_optional=false,true",
            "--bots",
            "greedy,greedy,greedy,greedy",
            "--games",
            "60",
            "--seed",
            "2",
        ],
    );
    let (h, rows) = csv(dir.path(), "sweep.csv");
    let at = h.iter().position(|c| c == "seat_test").unwrap();
    assert_eq!(
        h[at..at + 4].join(","),
        "seat_test,chi2_p_holm,chi2_p_bh,interval_method"
    );
    let p: Vec<f64> = rows.iter().map(|r| num(col(&h, r, "chi2_p"))).collect();
    let k = p.len() as f64;
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        running = running.max(((k - j as f64) * p[i]).min(1.0));
        let holm = num(col(&h, &rows[i], "chi2_p_holm"));
        // chi2_p is written with 4 significant digits.
        assert!(
            (holm - running).abs() <= 2e-3 * running,
            "{holm} vs {running}"
        );
        let bh = num(col(&h, &rows[i], "chi2_p_bh"));
        assert!(bh >= p[i] * 0.999 && bh <= holm * 1.001, "{bh}");
    }
    assert!(
        stdout.contains("Holm-adjusted over the 4 variants"),
        "{stdout}"
    );
    assert!(stdout.contains("Benjamini-Hochberg"), "{stdout}");
}

/// Defect 6. `mean_rank` is empty where ranks are not defined (4-player first_finisher: only
/// the winner is ranked), and kept where every game ranks everyone (2 players).
#[test]
fn mean_rank_is_empty_where_ranks_are_not_defined() {
    let four = TempDir::new().unwrap();
    let stdout = run_in(four.path(), &["run", "--games", "40"]);
    let (h, rows) = csv(four.path(), "summary.csv");
    assert!(
        rows.iter().all(|r| col(&h, r, "mean_rank").is_empty()),
        "{rows:?}"
    );
    assert!(stdout.contains("mean rank: not defined"), "{stdout}");
    let two = TempDir::new().unwrap();
    run_in(
        two.path(),
        &["run", "--games", "40", "--bots", "greedy,random"],
    );
    let (h, rows) = csv(two.path(), "summary.csv");
    assert!(rows.iter().all(|r| !col(&h, r, "mean_rank").is_empty()));
}

/// Defect 7. Intervals name their method, and p-values are printed one way by every command.
#[test]
fn intervals_name_their_method_and_p_values_print_one_way() {
    let dir = TempDir::new().unwrap();
    let run = run_in(dir.path(), &["run", "--games", "40"]);
    assert!(
        run.contains("95% intervals: Wilson score on the 40 games"),
        "{run}"
    );
    let dir = TempDir::new().unwrap();
    let sweep = run_in(dir.path(), &SWEEP);
    for text in [&run, &sweep] {
        assert!(!text.contains("e0 "), "{text}");
        assert!(!text.contains("below 1e-300"), "{text}");
        for line in text.lines().filter(|l| l.contains(" p ")) {
            assert!(line.contains("p = ") || line.contains("p < "), "{line}");
        }
    }
    // The compare lines print p like the run report: `p = 0.0833`, not `8.326e-2`.
    let seat0 = sweep
        .lines()
        .find(|l| l.trim_start().starts_with("seat0_win  A"))
        .unwrap();
    assert!(seat0.contains("p = 0.0833"), "{seat0}");
}
