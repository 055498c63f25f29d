//! The page's game session, natively: bot games, a person's moves, undo, the record read back,
//! and the refusals the page shows.

use aeroplane_web::session::Session;

fn session(seats: &[&str], seed: u64) -> Session {
    let seats: Vec<String> = seats.iter().map(|s| s.to_string()).collect();
    Session::new(
        aeroplane_core::Preset::Classic.rules(),
        seats.len(),
        &seats,
        seed,
    )
    .unwrap()
}

/// Plays to the end: bots move, the person takes the last legal move of every roll.
fn play_out(s: &mut Session) {
    while s.state().phase != "over" {
        let st = s.state();
        if !st.person_to_move {
            s.bot_move().unwrap();
        } else if st.phase == "roll" {
            s.roll().unwrap();
        } else {
            s.apply(st.legal.len() - 1).unwrap();
        }
    }
}

#[test]
fn a_finished_game_reads_back_as_the_same_record() {
    let mut s = session(&["person", "greedy", "random"], 11);
    play_out(&mut s);
    let log = s.log();
    assert!(log.lines().last().unwrap().starts_with("{\"game\":0,"));
    let back = Session::from_log(&log).unwrap();
    assert_eq!(back.log(), log);
    assert_eq!(back.state().position, s.state().position);
    assert_eq!(back.rolls(0).len(), s.rolls(0).len());
}

#[test]
fn a_game_saved_before_its_end_goes_on_after_upload() {
    let mut s = session(&["person", "greedy"], 5);
    for _ in 0..40 {
        let st = s.state();
        if st.person_to_move && st.phase == "roll" {
            s.roll().unwrap();
        } else if st.person_to_move {
            s.apply(0).unwrap();
        } else {
            s.bot_move().unwrap();
        }
    }
    // The file holds the decisions: the game resumes after the last one, and the rolls after
    // it (without a choice, or the person's roll waiting) come again from the seeded dice.
    let mut back = Session::from_log(&s.log()).unwrap();
    assert_eq!(back.log(), s.log());
    let n = back.rolls(0).len();
    assert!(n <= s.rolls(0).len());
    assert_eq!(back.rolls(0)[n - 1].after, s.rolls(0)[n - 1].after);
    while back.rolls(0).len() < s.rolls(0).len() || back.state().phase != s.state().phase {
        let st = back.state();
        if st.person_to_move && st.phase == "roll" {
            back.roll().unwrap();
        } else if st.person_to_move {
            back.apply(0).unwrap();
        } else {
            back.bot_move().unwrap();
        }
    }
    assert_eq!(back.state().position, s.state().position);
}

#[test]
fn an_illegal_move_is_refused_and_changes_nothing() {
    let mut s = session(&["person", "greedy"], 3);
    while s.state().phase != "choose" {
        if s.state().person_to_move {
            s.roll().unwrap();
        } else {
            s.bot_move().unwrap();
        }
    }
    let before = (s.state().position, s.log());
    let n = s.state().legal.len();
    let e = s.apply(n).unwrap_err();
    assert!(
        e.contains("not a legal move") && e.contains("the legal moves are"),
        "{e}"
    );
    assert!(s.roll().unwrap_err().contains("must choose a move first"));
    assert!(s.bot_move().is_err());
    assert_eq!((s.state().position, s.log()), before);
}

#[test]
fn undo_returns_to_the_persons_last_decision() {
    let mut s = session(&["person", "greedy"], 9);
    assert!(s.undo().is_err(), "nothing to undo at the start");
    let mut decision = None;
    while s.rolls(0).len() < 30 {
        let st = s.state();
        if st.person_to_move && st.phase == "roll" {
            s.roll().unwrap();
        } else if st.person_to_move {
            decision = Some((st.position.clone(), s.log(), s.rolls(0).len()));
            s.apply(0).unwrap();
        } else {
            s.bot_move().unwrap();
        }
    }
    let (position, log, rolls) = decision.expect("the person chose at least once");
    s.undo().unwrap();
    assert_eq!(s.state().phase, "choose");
    assert_eq!(
        (s.state().position, s.log(), s.rolls(0).len()),
        (position, log, rolls)
    );
}

#[test]
fn bad_input_is_a_clear_message() {
    let e = Session::from_config_json(r#"{"rules":"base = \"classic\"\nplanes = 9","players":2,"seats":["person","greedy"],"seed":1}"#).err().unwrap();
    assert!(
        e.contains("the rules are refused") && e.contains("planes"),
        "{e}"
    );
    let e = Session::from_config_json(
        r#"{"rules":"klassic","players":2,"seats":["person","greedy"],"seed":1}"#,
    )
    .err()
    .unwrap();
    assert!(
        e.contains("unknown rules preset") && e.contains("classic"),
        "{e}"
    );
    let e = Session::from_config_json(
        r#"{"rules":"classic","players":2,"seats":["person","grey"],"seed":1}"#,
    )
    .err()
    .unwrap();
    assert!(
        e.contains("unknown bot `grey`") && e.contains("greedy"),
        "{e}"
    );
    let e = Session::from_config_json(r#"{"rules":"classic","players":5,"seats":[],"seed":1}"#)
        .err()
        .unwrap();
    assert!(e.contains("2 to 4 players"), "{e}");

    let mut s = session(&["greedy", "random"], 2);
    play_out(&mut s);
    let log = s.log();
    assert!(Session::from_log("").err().unwrap().contains("empty"));
    assert!(
        Session::from_log("hello\n")
            .err()
            .unwrap()
            .contains("not an aeroplane game record")
    );
    // A cut line, a changed roll, a changed choice: each named by its line.
    let cut = &log[..log.len() / 2];
    let e = Session::from_log(cut).err().unwrap();
    assert!(e.starts_with("line "), "{e}");
    let lines: Vec<&str> = log.lines().collect();
    let second: Vec<String> = {
        let mut v: Vec<serde_json::Value> = serde_json::from_str(lines[1]).unwrap();
        v[3] = serde_json::json!(if v[3] == 6 { 5 } else { 6 });
        vec![serde_json::to_string(&v).unwrap()]
    };
    let changed = [lines[0], &second[0]].join("\n") + "\n" + &lines[2..].join("\n");
    let e = Session::from_log(&changed).err().unwrap();
    assert!(e.starts_with("line 2: "), "{e}");
}

/// One step as a person and bots play: the person takes the first legal move.
fn step(s: &mut Session) {
    let st = s.state();
    if !st.person_to_move {
        s.bot_move().unwrap();
    } else if st.phase == "roll" {
        s.roll().unwrap();
    } else {
        s.apply(0).unwrap();
    }
}

#[test]
fn a_game_saved_in_progress_comes_back_at_the_same_roll_with_the_same_history() {
    // At every point of a game (a bot to roll, the person to roll, the person's roll waiting,
    // forced rolls after the last decision): the record, the rolls played and whether a roll
    // waits bring back the same position, history and record.
    let mut s = session(&["person", "expectimax", "greedy"], 9);
    let mut checked = 0;
    while s.state().phase != "over" {
        let st = s.state();
        let back = Session::from_saved(&s.log(), st.rolls, st.phase == "choose").unwrap();
        let bs = back.state();
        assert_eq!(bs.position, st.position, "after {} rolls", st.rolls);
        assert_eq!(bs.phase, st.phase);
        assert_eq!(bs.legal.len(), st.legal.len());
        assert_eq!(bs.can_undo, st.can_undo);
        assert_eq!(back.log(), s.log());
        assert_eq!(
            serde_json::to_string(back.rolls(0)).unwrap(),
            serde_json::to_string(s.rolls(0)).unwrap()
        );
        checked += 1;
        step(&mut s);
    }
    assert!(checked > 50, "{checked}");
    // More rolls than the game has, or a roll said to wait where the game has none: refused.
    let st = s.state();
    let e = Session::from_saved(&s.log(), st.rolls + 1, false)
        .err()
        .unwrap();
    assert!(e.contains("it ended after"), "{e}");
    let e = Session::from_saved(&s.log(), 0, false).err().unwrap();
    assert!(e.contains("its log holds"), "{e}");
}

#[test]
fn the_coach_rates_every_legal_move_with_the_strongest_bot_and_changes_nothing() {
    let mut s = session(&["person", "greedy"], 4);
    let e = s.coach().err().unwrap();
    assert!(e.contains("roll the die first"), "{e}");
    let mut rated = 0;
    while s.state().phase != "over" && rated < 5 {
        let st = s.state();
        if st.person_to_move && st.phase == "choose" {
            let before = (st.position.clone(), s.log());
            let c = s.coach().unwrap();
            assert_eq!(c.bot, "td-classic-2p:ply=2");
            assert!(c.equity);
            assert_eq!(c.values.len(), st.legal.len());
            let best = c.values[c.best].unwrap();
            assert!(
                c.values
                    .iter()
                    .all(|v| v.unwrap() <= best && v.unwrap().abs() <= 1.0)
            );
            assert_eq!((s.state().position, s.log()), before);
            rated += 1;
        }
        step(&mut s);
    }
    assert_eq!(rated, 5);
    // Three players: no net, expectimax-deep (its own scale).
    let mut s = session(&["person", "greedy", "greedy"], 4);
    while !(s.state().person_to_move && s.state().phase == "choose") {
        step(&mut s);
    }
    let c = s.coach().unwrap();
    assert_eq!((c.bot.as_str(), c.equity), ("expectimax-deep", false));
}

#[test]
fn a_result_that_is_not_the_engines_is_worded_for_people() {
    let mut s = session(&["greedy", "random"], 2);
    play_out(&mut s);
    let log = s.log();
    let last = log.lines().last().unwrap();
    let mut v: serde_json::Value = serde_json::from_str(last).unwrap();
    let w = v["winner"].as_u64().unwrap();
    v["winner"] = serde_json::json!(if w == 0 { 2 } else { 0 });
    let changed = log.replace(last, &serde_json::to_string(&v).unwrap());
    let e = Session::from_log(&changed).err().unwrap();
    assert!(
        e.contains("is not the engine's (") && e.contains(" wins; ranks: "),
        "{e}"
    );
    assert!(!e.contains("Some(") && !e.contains("None"), "{e}");
}

/// Logs `aeroplane run --log-games` wrote (the commands in `web/tests/runs/README.md`).
const RUN3: &str = include_str!("runs/classic-random-greedy-seed4-3games.jsonl");
const ROTATED: &str = include_str!("runs/classic-3p-rotated-seed9-2deals.jsonl");
const DETERMINISTIC: &str =
    include_str!("runs/classic-greedy-expectimax-rotated-seed5-2deals.jsonl");

/// Game `game`'s lines of a run's log (its decision lines and result line), header apart.
fn lines_of(log: &str, game: u64) -> String {
    let d = format!("[{game},");
    let r = format!("{{\"game\":{game},");
    log.lines()
        .skip(1)
        .filter(|l| l.starts_with(&d) || l.starts_with(&r))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn body(log: &str) -> &str {
    &log[log.find('\n').unwrap() + 1..]
}

/// The run's lineup (its header's bot names).
fn lineup(log: &str) -> Vec<String> {
    let h: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
    h["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn game_n_of_a_runs_log_reads_back_as_the_runs_lines() {
    for (log, games, rotated) in [(RUN3, 3, false), (ROTATED, 6, true)] {
        let listed = aeroplane_web::session::games_of(log).unwrap();
        assert_eq!(listed.len(), games);
        for g in 0..games as u64 {
            let want = lines_of(log, g);
            assert!(
                want.ends_with("}\n") && want.lines().count() > 3,
                "game {g}"
            );
            let s = Session::from_log_game(log, Some(g)).unwrap();
            let st = s.state();
            assert_eq!((st.game, st.phase), (g, "over"));
            assert_eq!(body(&s.log()), want, "game {g} (rotated: {rotated})");
            // The page's record of it replays as itself: one deal, game g.
            let back = Session::from_log(&s.log()).unwrap();
            assert_eq!(back.log(), s.log());
            // The chooser's entry: the seats' players rotated, the winner of the result line.
            let r: serde_json::Value = serde_json::from_str(want.lines().last().unwrap()).unwrap();
            assert_eq!(listed[g as usize].game, g);
            assert_eq!(
                listed[g as usize].winner,
                r["winner"].as_u64().map(|w| w as usize)
            );
            let names = lineup(log);
            for (k, seat) in listed[g as usize].seats.iter().enumerate() {
                let entry = r["bots"][seat.seat].as_u64().unwrap() as usize;
                assert_eq!(seat.player, names[entry], "game {g} seat {k}");
                assert_eq!(st.seats[k].player, names[entry]);
            }
        }
    }
    // Without a game: a log of several is refused, naming them.
    let e = Session::from_log(RUN3).err().unwrap();
    assert!(
        e.contains("the log holds 3 games (0, 1, 2): choose one"),
        "{e}"
    );
    let e = Session::from_log_game(RUN3, Some(3)).err().unwrap();
    assert!(e.contains("game 3 is not a game of this log's run"), "{e}");
}

#[test]
fn bot_only_game_n_of_a_run_played_on_the_page_is_the_runs() {
    // From the start, and from a log cut after some decisions: the bots play the rest, with
    // their deal's dice and seeds, seated as the rotation says.
    for (log, games, rotated) in [(RUN3, 3u64, false), (ROTATED, 6, true)] {
        let names = lineup(log);
        let h: serde_json::Value = serde_json::from_str(log.lines().next().unwrap()).unwrap();
        let seed = h["seed"].as_u64().unwrap();
        for g in 0..games {
            let mut s = Session::in_run(
                aeroplane_core::Preset::Classic.rules(),
                &names,
                seed,
                g,
                rotated,
            )
            .unwrap();
            play_out(&mut s);
            assert_eq!(
                body(&s.log()),
                lines_of(log, g),
                "game {g} played from the start"
            );
        }
    }
    // Loaded part-way and played on by the bots: the run's game. (Bots without a generator:
    // a random or mcts bot's generator starts afresh at a load, see docs/guide/browser.md.)
    let names = lineup(DETERMINISTIC);
    for g in 0..4u64 {
        let want = lines_of(DETERMINISTIC, g);
        let n = want.lines().count();
        for keep in [1, n / 2, n - 1] {
            let head: String = want.lines().take(keep).map(|l| format!("{l}\n")).collect();
            let cut = format!("{}\n{head}", DETERMINISTIC.lines().next().unwrap());
            let mut on = Session::from_log_game(&cut, Some(g)).unwrap();
            assert_eq!(on.state().game, g);
            play_out(&mut on);
            assert_eq!(
                body(&on.log()),
                want,
                "game {g} loaded after {keep} lines, played on"
            );
        }
        let mut s =
            Session::in_run(aeroplane_core::Preset::Classic.rules(), &names, 5, g, true).unwrap();
        play_out(&mut s);
        assert_eq!(body(&s.log()), want, "game {g} played from the start");
    }
}

#[test]
fn a_runs_log_with_games_mixed_or_out_of_order_is_refused_naming_the_line() {
    let header = RUN3.lines().next().unwrap();
    let g0 = lines_of(RUN3, 0);
    let g1 = lines_of(RUN3, 1);
    // Game 1's lines before game 0's result line.
    let (g0_decisions, g0_result) = g0.trim_end().rsplit_once('\n').unwrap();
    let mixed = format!("{header}\n{g0_decisions}\n{g1}{g0_result}\n");
    let e = aeroplane_web::session::games_of(&mixed).err().unwrap();
    assert!(
        e.contains("a line of game 1 before game 0's result line"),
        "{e}"
    );
    // Game 0 after game 1.
    let swapped = format!("{header}\n{g1}{g0}");
    let e = Session::from_log_game(&swapped, Some(0)).err().unwrap();
    assert!(
        e.contains("a line of game 0 after game 1's result line"),
        "{e}"
    );
    // A game the header's deals do not hold, and a result line of another deal.
    let e = Session::from_log_game(RUN3, Some(u64::MAX)).err().unwrap();
    assert!(
        e.contains("its header promises games 0 to 2 (3 deals)"),
        "{e}"
    );
    let moved = format!("{header}\n{}", g1.replace("\"deal\":1,", "\"deal\":0,"));
    let e = Session::from_log_game(&moved, Some(1)).err().unwrap();
    assert!(
        e.contains(
            "the result line gives game 1 deal 0 rotation 0, where the header makes it deal 1"
        ),
        "{e}"
    );
    // A game's rolls checked against its own deal's dice: game 1's lines numbered game 2.
    let renamed = format!(
        "{header}\n{}",
        g1.replace("[1,", "[2,")
            .replace("{\"game\":1,\"deal\":1,", "{\"game\":2,\"deal\":2,")
    );
    let e = Session::from_log_game(&renamed, Some(2)).err().unwrap();
    assert!(
        e.contains("the file's rolls are not its seed's") || e.contains("legal actions"),
        "{e}"
    );
}
