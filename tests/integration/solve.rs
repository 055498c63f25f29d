//! Exact solutions (`aeroplane solve`, the `exact` bot): values against an independent solver
//! over the state API, the table file and its refusals, resume, and perfect play against a
//! simulation of itself. One-plane variants only: they solve in milliseconds (the two-plane
//! solves are documented commands, docs/commands/solve.md).

use crate::common::aeroplane;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use predicates::prelude::*;
use tempfile::TempDir;

use aeroplane::export::OutputDir;
use aeroplane::solve::{
    SolveContext, SolveEnd, SolveError, SolveJob, SolveRecord, SolveStatus, Table, TableError,
    solve,
};
use aeroplane::{Game, Preset, Rules, RulesBuilder, Setup, Stacking, ThreeSixes};

fn one_plane(preset: Preset, change: impl FnOnce(RulesBuilder) -> RulesBuilder) -> Rules {
    change(Rules::builder().base(preset).planes(1))
        .build()
        .unwrap()
}

/// Solves in memory.
fn solved(rules: Rules) -> Table {
    let ctx = SolveContext {
        out: None,
        interrupt: None,
        resume: false,
        checkpoint_every: std::time::Duration::from_secs(3600),
        progress: None,
    };
    match solve(&SolveJob::new("test", rules), &ctx).unwrap() {
        SolveEnd::Complete(_, table) => *table,
        SolveEnd::Interrupted { .. } => unreachable!(),
    }
}

/// Solves into `dir` through the command line.
fn solve_into(dir: &Path, rules: &str, planes: &str) {
    aeroplane()
        .args(["solve", "--rules", rules, "--planes", planes, "--out"])
        .arg(dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("first player (seat 0) wins"));
}

/// A chance node of the brute-force solver: where each face's choices lead.
struct Node {
    game: Game,
    /// Per face: each choice's result, a node (with whether the mover stays the same) or a
    /// final value for the mover.
    faces: Vec<Vec<Result<(usize, bool), f64>>>,
}

/// Every chance node reachable from the start, found and valued through the state API alone
/// (no symmetry, no canonical form, no model): plain value iteration on a hash map of positions.
fn brute_force(rules: Rules) -> (Vec<Node>, Vec<f64>) {
    // Positions up to the turn count, and without a penalty up to the length of a six streak
    // (which then changes nothing): otherwise they are endless.
    let key = |g: &Game| {
        let mut s = Setup::from(g);
        s.turns = 1;
        if rules.three_sixes() == ThreeSixes::None {
            s.sixes = s.sixes.min(1);
        }
        s
    };
    let mut index: HashMap<Setup, usize> = HashMap::new();
    let mut nodes: Vec<Node> = Vec::new();
    let start = Game::new(rules, 2).unwrap();
    index.insert(key(&start), 0);
    nodes.push(Node {
        game: start,
        faces: Vec::new(),
    });
    let mut next = 0;
    while next < nodes.len() {
        let game = nodes[next].game;
        let mover = game.to_move();
        let mut faces = Vec::new();
        for face in 1..=6 {
            let mut rolled = game;
            let mut results = Vec::new();
            let mut after = Vec::new();
            if rolled.apply_roll(face).unwrap().is_some() {
                after.push(rolled);
            } else {
                for a in rolled.legal_actions().iter() {
                    let mut g = rolled;
                    g.apply_action(a.index() as u32).unwrap();
                    after.push(g);
                }
            }
            for g in after {
                if g.is_over() {
                    results.push(Err(if g.winner() == Some(mover) { 1.0 } else { -1.0 }));
                    continue;
                }
                let k = key(&g);
                let i = *index.entry(k.clone()).or_insert_with(|| {
                    nodes.push(Node {
                        game: k.into_game(rules).unwrap(),
                        faces: Vec::new(),
                    });
                    nodes.len() - 1
                });
                results.push(Ok((i, g.to_move() == mover)));
            }
            faces.push(results);
        }
        nodes[next].faces = faces;
        next += 1;
    }
    let mut v = vec![0.0f64; nodes.len()];
    for _ in 0..100_000 {
        let mut change = 0.0f64;
        for i in 0..nodes.len() {
            let mut total = 0.0;
            for results in &nodes[i].faces {
                let best = results
                    .iter()
                    .map(|r| match *r {
                        Err(x) => x,
                        Ok((j, same)) => {
                            if same {
                                v[j]
                            } else {
                                -v[j]
                            }
                        }
                    })
                    .fold(f64::NEG_INFINITY, f64::max);
                total += best;
            }
            let new = total / 6.0;
            change = change.max((new - v[i]).abs());
            v[i] = new;
        }
        if change < 1e-14 {
            break;
        }
    }
    (nodes, v)
}

#[test]
fn one_plane_tables_match_an_independent_solver_over_the_state_api() {
    let uncapped = |b: RulesBuilder| b.max_turns(i64::from(u32::MAX));
    let variants = [
        one_plane(Preset::AppFreeGame, uncapped),
        one_plane(Preset::Classic, uncapped),
        one_plane(Preset::Chinese, uncapped),
        // Bounces that land back on the ring, where they capture.
        one_plane(Preset::Chinese, |b| uncapped(b).home_lane_cells(3)),
        // Launch on any even roll, optional flight with the crossed cell, penalties on the
        // last move, no stacks.
        one_plane(Preset::Classic, |b| {
            uncapped(b)
                .three_sixes(ThreeSixes::LastMoved)
                .stacking(Stacking::None)
                .specials(aeroplane::Specials::Both)
        }),
    ];
    for rules in variants {
        let table = solved(rules);
        let space = aeroplane::solve::Space::new(&rules);
        let (nodes, values) = brute_force(rules);
        let mut keys = std::collections::HashSet::new();
        for (node, &v) in nodes.iter().zip(&values) {
            let e = table
                .equity(&node.game)
                .unwrap_or_else(|| panic!("{rules:?}: the table lacks `{}`", node.game));
            assert!(
                (e - v).abs() < 1e-10,
                "{rules:?} at `{}`: table {e}, state API {v}",
                node.game
            );
            // Positions that differ only in what cannot matter (a position and its mirror
            // image with the other seat to roll, ...) share an entry.
            keys.insert(space.key(&node.game).unwrap());
        }
        assert_eq!(
            keys.len() as u64,
            table.header().reachable,
            "{rules:?}: the table holds exactly the reachable positions"
        );
        // The start (node 0): seat 0's equity.
        assert!((values[0] - table.start_equity()).abs() < 1e-10);
    }
}

#[test]
fn a_table_reloads_with_its_checksum_and_refuses_damage() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("t");
    solve_into(&dir, "classic", "1");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("solve.json")).unwrap()).unwrap();
    assert_eq!(record["status"], "complete");
    let results = &record["results"];
    let table = Table::load(&dir).unwrap();
    assert_eq!(
        results["table"]["checksum"].as_str().unwrap(),
        format!("{:016x}", table.checksum())
    );
    let p = results["first_player_win_probability"].as_f64().unwrap();
    assert!((p - (1.0 + table.start_equity()) / 2.0).abs() < 1e-15);
    assert!(results["check"]["largest_residual"].as_f64().unwrap() < 1e-10);
    assert_eq!(
        record["states"]["chance"].as_u64(),
        Some(table.header().reachable)
    );
    let bytes = std::fs::read(dir.join("table.bin")).unwrap();
    let bad = tmp.path().join("bad.bin");
    let read = |b: &[u8]| {
        std::fs::write(&bad, b).unwrap();
        Table::read(&bad).unwrap_err()
    };
    // Cut short.
    let e = read(&bytes[..bytes.len() - 100]);
    assert!(matches!(e, TableError::Length { .. }), "{e}");
    assert!(e.to_string().contains("cut short"), "{e}");
    // One value changed.
    let mut flipped = bytes.clone();
    let at = bytes.len() - 200;
    flipped[at] ^= 0x10;
    let e = read(&flipped);
    assert!(matches!(e, TableError::Checksum { .. }), "{e}");
    assert!(e.to_string().contains("damaged or edited"), "{e}");
    // Not a table at all.
    let e = read(b"{\"status\": \"complete\"}\n");
    assert!(matches!(e, TableError::Foreign { .. }), "{e}");
    let e = read(b"short");
    assert!(matches!(e, TableError::Foreign { .. }), "{e}");
    // Another format.
    let mut other = bytes.clone();
    other[8] = 99;
    let e = read(&other);
    assert!(matches!(e, TableError::Version { found: 99, .. }), "{e}");
    // A header whose rules do not give its sizes (planes edited), checksum made to fit.
    let header_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let text = String::from_utf8_lossy(&bytes[16..16 + header_len]).to_string();
    assert!(text.contains("\"planes\":1"), "{text}");
    let mut edited = bytes.clone();
    let at = 16 + text.find("\"planes\":1").unwrap() + "\"planes\":".len();
    edited[at] = b'2';
    let n = edited.len() - 8;
    let sum = aeroplane::solve::fnv1a_words(&edited[..n]);
    edited[n..].copy_from_slice(&sum.to_le_bytes());
    let e = read(&edited);
    assert!(matches!(e, TableError::Header { .. }), "{e}");
    // A header claiming a huge length.
    let mut long = bytes.clone();
    long[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = read(&long);
    assert!(matches!(e, TableError::Length { .. }), "{e}");
    // A folder without a table.
    let e = Table::load(tmp.path()).unwrap_err();
    assert!(
        e.to_string()
            .contains("give the output folder of a solve (its setting `out`)"),
        "{e}"
    );
    // The exact bot says so, before any game, and exits 2.
    let bot = format!("exact:table={}", tmp.path().join("t2").display());
    let copy = tmp.path().join("t2");
    std::fs::create_dir(&copy).unwrap();
    std::fs::write(copy.join("table.bin"), &flipped).unwrap();
    aeroplane()
        .args(["run", "--rules"])
        .arg(dir.join("rules.toml"))
        .args(["--bots", &format!("{bot},greedy"), "--games", "5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("checksum mismatch"));
}

#[test]
fn exact_refuses_other_rules_and_plays_its_own() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("appfree-1");
    solve_into(&dir, "appfreegame", "1");
    let bot = format!("exact:table={}", dir.display());
    // The preset has 4 planes: refused before a game is played, naming the difference.
    aeroplane()
        .args(["run", "--bots", &format!("{bot},greedy"), "--games", "5"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("cannot play these rules")
                .and(predicate::str::contains("planes: table 1, game 4")),
        );
    // Another turn cap is other rules too.
    let capped = tmp.path().join("capped.toml");
    std::fs::write(
        &capped,
        "base = \"appfreegame\"\nplanes = 1\nmax_turns = 50\n",
    )
    .unwrap();
    aeroplane()
        .args(["run", "--rules"])
        .arg(&capped)
        .args(["--bots", &format!("{bot},greedy"), "--games", "5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("max_turns: table 10000, game 50"));
    // Three players.
    aeroplane()
        .args(["run", "--rules"])
        .arg(dir.join("rules.toml"))
        .args(["--bots", &format!("{bot},greedy,greedy"), "--games", "5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("players: table 2, game 3"));
    // A profile naming the table, as a key of its own.
    let profile = tmp.path().join("perfect.toml");
    std::fs::write(
        &profile,
        format!("kind = \"exact\"\ntable = \"{}\"\n", dir.display()),
    )
    .unwrap();
    aeroplane()
        .args(["run", "--rules"])
        .arg(dir.join("rules.toml"))
        .arg("--bots")
        .arg(format!("{},random", profile.display()))
        .args(["--games", "200", "--rotate-seats", "-q"])
        .assert()
        .success();
    for (text, message) in [
        (
            format!("kind = \"greedy\"\ntable = \"{}\"\n", dir.display()),
            "of kind `exact` only",
        ),
        (
            format!(
                "kind = \"exact\"\ntable = \"{0}\"\n[params]\ntable = \"{0}\"\n",
                dir.display()
            ),
            "given twice",
        ),
        ("kind = \"exact\"\n".to_string(), "needs parameter `table`"),
    ] {
        std::fs::write(&profile, text).unwrap();
        aeroplane()
            .args(["run", "--rules"])
            .arg(dir.join("rules.toml"))
            .arg("--bots")
            .arg(format!("{},random", profile.display()))
            .args(["--games", "5"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}

/// The exact first-player win probability against 200,000 games of perfect play against
/// itself: within 3.29 standard errors (99.9%) of seat 0's win rate.
#[test]
fn perfect_play_against_itself_wins_as_often_as_the_table_says() {
    let tmp = TempDir::new().unwrap();
    for preset in ["appfreegame", "classic", "chinese"] {
        let dir = tmp.path().join(preset);
        solve_into(&dir, preset, "1");
        let p = (1.0 + Table::load(&dir).unwrap().start_equity()) / 2.0;
        let bot = format!("exact:table={}", dir.display());
        let out = tmp.path().join(format!("{preset}-run"));
        aeroplane()
            .args(["run", "--rules"])
            .arg(dir.join("rules.toml"))
            .args([
                "--bots",
                &format!("{bot},{bot}"),
                "--games",
                "200000",
                "-q",
                "--out",
            ])
            .arg(&out)
            .assert()
            .success();
        let seats = std::fs::read_to_string(out.join("seats.csv")).unwrap();
        let row: Vec<&str> = seats.lines().nth(1).unwrap().split(',').collect();
        assert_eq!(row[0], "0");
        let (games, wins): (f64, f64) = (row[2].parse().unwrap(), row[3].parse().unwrap());
        let se = (p * (1.0 - p) / games).sqrt();
        let seen = wins / games;
        assert!(
            (seen - p).abs() < 3.29 * se,
            "{preset}: exact {p}, simulated {seen} over {games} games"
        );
    }
}

#[test]
fn too_large_or_unsupported_variants_are_refused_before_anything_is_allocated() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("never");
    aeroplane()
        .args(["solve", "--planes", "3", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("3 planes per seat make")
                .and(predicate::str::contains("chance nodes to index"))
                .and(predicate::str::contains("GiB of memory"))
                .and(predicate::str::contains("--memory-limit")),
        );
    aeroplane()
        .args(["solve", "--planes", "2", "--memory-limit", "64MiB", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("more than the limit of 64 MiB"));
    aeroplane()
        .args(["solve", "--planes", "1", "--players", "3", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("handles two players"));
    aeroplane()
        .args(["solve", "--planes", "1", "--tolerance", "0", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("tolerance 0"));
    assert!(!out.exists(), "nothing is written for a refused solve");
    let job = SolveJob::new("four", Preset::Classic.rules());
    let e = job.size().unwrap_err();
    assert!(matches!(e, SolveError::TooLarge { planes: 4, .. }), "{e}");
}

/// A solve stopped after a sweep keeps its values in the checkpoint; `aeroplane resume`
/// finishes it with the same table, byte for byte.
#[test]
fn an_interrupted_solve_resumes_to_the_same_table() {
    let tmp = TempDir::new().unwrap();
    let whole = tmp.path().join("whole");
    solve_into(&whole, "chinese", "1");
    let dir = tmp.path().join("stopped");
    let rules = Rules::builder()
        .base(Preset::Chinese)
        .planes(1)
        .build()
        .unwrap();
    let job = SolveJob::new("chinese, planes = 1", rules);
    let stop = AtomicBool::new(false);
    let progress = |line: &str| {
        if line.starts_with("sweep 5:") {
            stop.store(true, Ordering::Relaxed);
        }
    };
    {
        let out = OutputDir::create(&dir, false).unwrap();
        let ctx = SolveContext {
            out: Some(&out),
            interrupt: Some(&stop),
            resume: false,
            checkpoint_every: std::time::Duration::from_secs(3600),
            progress: Some(&progress),
        };
        let end = solve(&job, &ctx).unwrap();
        assert!(
            matches!(end, SolveEnd::Interrupted { sweeps: 5 }),
            "{end:?}"
        );
    }
    let record = SolveRecord::load(&dir).unwrap();
    assert_eq!(record.status, SolveStatus::Interrupted);
    assert_eq!(record.sweeps, 5);
    assert!(dir.join("solve.checkpoint").exists());
    assert!(!dir.join("table.bin").exists());
    // The checkpoint is not a table to play from.
    let e = Table::load(&dir).unwrap_err();
    assert!(e.to_string().contains("aeroplane resume"), "{e}");
    // A folder holding an unfinished solve is not overwritten by accident.
    aeroplane()
        .args(["solve", "--rules", "chinese", "--planes", "1", "--out"])
        .arg(&dir)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("aeroplane resume"));
    // Another version's solve is not resumed (its checkpoint's layout may differ).
    let record_file = dir.join("solve.json");
    let written = std::fs::read_to_string(&record_file).unwrap();
    let version = format!("\"version\": \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(written.contains(&version), "{written}");
    std::fs::write(
        &record_file,
        written.replace(&version, "\"version\": \"0.0.1\""),
    )
    .unwrap();
    aeroplane()
        .arg("resume")
        .arg(&dir)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "was written by aeroplane 0.0.1, this is aeroplane",
        ));
    std::fs::write(&record_file, written).unwrap();
    aeroplane()
        .arg("resume")
        .arg(&dir)
        .assert()
        .success()
        .stdout(predicate::str::contains("resumed after sweep 5"));
    assert_eq!(
        std::fs::read(dir.join("table.bin")).unwrap(),
        std::fs::read(whole.join("table.bin")).unwrap()
    );
    assert!(!dir.join("solve.checkpoint").exists());
    let record = SolveRecord::load(&dir).unwrap();
    assert_eq!(record.status, SolveStatus::Complete);
    aeroplane()
        .arg("resume")
        .arg(&dir)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("complete solve"));
}
