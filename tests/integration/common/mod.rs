//! Shared helpers: for the rule tests a tiny position language, scripted rolls chosen by
//! notation, and canonical renderings to compare against; for the tests of the binary the
//! command ([`aeroplane`]) and the files of a folder ([`files`]).
//!
//! Position text: clauses separated by `;`. A clause `red 14 3` gives seat red's planes (up to
//! four; missing planes are in the hangar). Steps are numbers, `H` (hangar) or `C` (centre).
//! In-play seats not mentioned have every plane in the hangar. A clause `turn yellow` hands the
//! roll to that seat (default: seat 0).

#![allow(dead_code)]

mod cli;
pub use cli::{aeroplane, aeroplane_in, files};

use aeroplane::{
    Action, Game, HANGAR, Move, Outcome, Preset, Rules, RulesBuilder, Seat, Setup, Status,
};

/// The hangar step, short.
pub const H: u8 = HANGAR;

/// Seat names in seat order.
pub const NAMES: [&str; 4] = ["red", "yellow", "blue", "green"];

/// The seat with the given colour name.
pub fn seat(name: &str) -> Seat {
    let i = NAMES
        .iter()
        .position(|&n| n == name)
        .unwrap_or_else(|| panic!("no seat named {name:?}"));
    Seat::ALL[i]
}

pub const RED: Seat = Seat::ALL[0];
pub const YELLOW: Seat = Seat::ALL[1];
pub const BLUE: Seat = Seat::ALL[2];
pub const GREEN: Seat = Seat::ALL[3];

/// The appfreegame preset (the default).
pub fn appfree() -> Rules {
    Preset::AppFreeGame.rules()
}
/// The classic preset.
pub fn classic() -> Rules {
    Preset::Classic.rules()
}
/// The chinese preset.
pub fn chinese() -> Rules {
    Preset::Chinese.rules()
}

/// `base` with some options changed (checked: a bad value fails the test).
pub fn variant(base: Rules, change: impl FnOnce(RulesBuilder) -> RulesBuilder) -> Rules {
    change(RulesBuilder::from(base))
        .build()
        .expect("valid rules")
}

fn parse_step(word: &str, centre: u8) -> u8 {
    match word {
        "H" => H,
        "C" => centre,
        n => n
            .parse()
            .unwrap_or_else(|_| panic!("bad step {n:?} in position text")),
    }
}

/// Parses position text into (seat -> steps) for every in-play seat, and the seat to move.
fn parse_position(text: &str, centre: u8, seats: &[Seat]) -> ([[u8; 4]; 4], Seat) {
    let mut steps = [[H; 4]; 4];
    let mut to_move = seats[0];
    for clause in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let mut words = clause.split_whitespace();
        let head = words.next().unwrap();
        if head == "turn" {
            to_move = seat(words.next().expect("turn <seat>"));
            continue;
        }
        let s = seat(head);
        assert!(seats.contains(&s), "{head} is not in play");
        let mut planes = [H; 4];
        for (i, w) in words.enumerate() {
            assert!(i < 4, "more than four planes for {head}");
            planes[i] = parse_step(w, centre);
        }
        steps[s.index()] = planes;
    }
    (steps, to_move)
}

/// A game of `players` under `rules` in the position `text`.
pub fn position(rules: Rules, players: usize, text: &str) -> Game {
    let game = Game::new(rules, players).expect("players");
    let (steps, to_move) = parse_position(text, rules.centre(), game.seats());
    let mut setup = Setup::from(&game);
    let planes = usize::from(rules.planes());
    for &s in game.seats() {
        setup.steps[s.index()][..planes].copy_from_slice(&steps[s.index()][..planes]);
        // Finished seats take ranks in seat order, as the old setter gave them.
        if steps[s.index()][..planes]
            .iter()
            .all(|&x| x == rules.centre())
        {
            setup.ranks[s.index()] = 1 + setup.ranks.iter().filter(|&&r| r != 0).count() as u8;
        }
    }
    let ranked = setup.ranks.iter().filter(|&&r| r != 0).count();
    if rules.end() == aeroplane::End::FullRanking && ranked + 1 == players {
        // A full ranking is complete: the seat left is last.
        for &s in game.seats() {
            if setup.ranks[s.index()] == 0 {
                setup.ranks[s.index()] = players as u8;
            }
        }
    }
    setup.to_move = to_move;
    setup.turns = 1;
    setup.into_game(rules).expect("a valid position")
}

/// Hands the roll to `seat` at the start of a fresh turn (through a checked [`Setup`]).
pub fn hand_to(game: &mut Game, seat: Seat) {
    let mut setup = Setup::from(&*game);
    setup.to_move = seat;
    setup.sixes = 0;
    setup.moved_this_turn = 0;
    setup.moved_last = 0;
    *game = setup.into_game(*game.rules()).expect("a valid position");
}

fn label(s: u8, centre: u8) -> String {
    match s {
        H => "H".into(),
        s if s == centre => "C".into(),
        s => s.to_string(),
    }
}

fn canonical(steps: [[u8; 4]; 4], seats: &[Seat], centre: u8) -> String {
    seats
        .iter()
        .map(|s| {
            let mut p = steps[s.index()];
            p.sort_unstable();
            let words: Vec<String> = p.iter().map(|&x| label(x, centre)).collect();
            format!("{} {}", NAMES[s.index()], words.join(" "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The position of every in-play seat, planes sorted (planes of a seat are alike).
pub fn render(game: &Game) -> String {
    let mut steps = [[H; 4]; 4];
    let planes = usize::from(game.rules().planes());
    for &s in game.seats() {
        // Slots beyond `planes` are not in the game: shown (and compared) as empty.
        steps[s.index()][..planes].copy_from_slice(&game.steps(s)[..planes]);
    }
    canonical(steps, game.seats(), game.rules().centre())
}

/// Asserts the position of every in-play seat (unmentioned seats: all in the hangar).
#[track_caller]
pub fn assert_position(game: &Game, expected: &str) {
    let centre = game.rules().centre();
    let (steps, _) = parse_position(expected, centre, game.seats());
    assert_eq!(
        render(game),
        canonical(steps, game.seats(), centre),
        "position (expected right)"
    );
}

/// A move as `launch`, `from>to`, or `from>to:stay` for a declined flight.
pub fn show(m: &Move) -> String {
    if m.is_launch() {
        return "launch".into();
    }
    let mut s = format!("{}>{}", m.from(), m.to());
    if m.stays() {
        s.push_str(":stay");
    }
    s
}

/// The legal moves of `roll`, shown with [`show`].
pub fn moves(game: &Game, roll: u8) -> Vec<String> {
    game.legal_moves(roll).iter().map(show).collect()
}

/// The legal move picked by notation: `launch`, `14` (the only move from 14), `18:fly` or
/// `18:stay`.
#[track_caller]
pub fn pick(game: &Game, roll: u8, notation: &str) -> Move {
    let legal = game.legal_moves(roll);
    let (from, which) = match notation.split_once(':') {
        Some((f, w)) => (f, Some(w)),
        None => (notation, None),
    };
    let found: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| {
            let from_ok = if from == "launch" {
                m.is_launch()
            } else {
                !m.is_launch() && m.from().to_string() == from
            };
            from_ok
                && match which {
                    None => true,
                    Some("fly") => m.flies(),
                    Some("stay") => m.stays(),
                    Some(w) => panic!("bad notation suffix {w:?}"),
                }
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "move {notation:?} for roll {roll}: legal moves are {:?} in {}",
        moves(game, roll),
        render(game)
    );
    found[0]
}

/// Applies one roll through the checked [`Game::play`]. `choice` is a move's notation, `pass`
/// (the roll has no legal move) or `penalty` (a punished third six).
#[track_caller]
pub fn roll(game: &mut Game, die: u8, choice: &str) -> Outcome {
    match choice {
        "pass" | "penalty" => {
            assert!(
                game.legal_moves(die).is_empty(),
                "roll {die} should offer no move, has {:?} in {}",
                moves(game, die),
                render(game)
            );
            let out = game.play(die, None).expect("pass is legal");
            match (choice, out.action) {
                ("pass", Action::Pass) | ("penalty", Action::Penalty { .. }) => {}
                _ => panic!("roll {die}: expected {choice}, got {:?}", out.action),
            }
            out
        }
        _ => {
            let m = pick(game, die, choice);
            let out = game.play(die, Some(m)).expect("legal move plays");
            assert_eq!(out.action, Action::Move(m));
            out
        }
    }
}

/// Plays `script` (rolls with their choices) and returns the outcomes.
#[track_caller]
pub fn run(game: &mut Game, script: &[(u8, &str)]) -> Vec<Outcome> {
    script.iter().map(|&(d, c)| roll(game, d, c)).collect()
}

/// The rule-test workhorse: from position `start`, play `script`, expect position `end`.
#[track_caller]
pub fn check(rules: Rules, players: usize, start: &str, script: &[(u8, &str)], end: &str) -> Game {
    let mut game = position(rules, players, start);
    run(&mut game, script);
    assert_position(&game, end);
    game
}

/// The single legal move of `roll` in `start` (asserting there is exactly one).
#[track_caller]
pub fn only_move(rules: Rules, players: usize, start: &str, die: u8) -> Move {
    let game = position(rules, players, start);
    let legal = game.legal_moves(die);
    assert_eq!(legal.len(), 1, "moves {:?}", moves(&game, die));
    legal[0]
}

/// Reads every option of `rules` back from the engine's behaviour on probe positions, in the
/// words of RULES.md's presets table.
pub fn behaviour(rules: Rules) -> [String; 10] {
    let launch: Vec<u8> = (1..=6)
        .filter(|&d| {
            position(rules, 4, "")
                .legal_moves(d)
                .iter()
                .any(|m| m.is_launch())
        })
        .collect();
    let centre = (51..=58u8)
        .flat_map(|p| (1..=6u8).map(move |d| (p, d)))
        .find(|&(p, d)| {
            let game = position(rules, 4, &format!("red {p} C C C"));
            game.legal_moves(d)
                .iter()
                .any(|m| m.finishes() && !m.bounces())
        })
        .map(|(p, d)| p + d)
        .unwrap();
    let over = position(rules, 4, &format!("red {} C C C", centre - 1));
    let overshoot = if over.legal_moves(2).is_empty() {
        "illegal"
    } else {
        "bounce"
    };
    let first_to = |start: &str| position(rules, 4, start).legal_moves(3)[0].to();
    let specials = match (first_to("red 11 C C C"), first_to("red 15 C C C")) {
        (18, 30) => "one",
        (30, 30) => "jump_then_flight",
        (30, 34) => "both",
        other => panic!("no specials mode ends at {other:?}"),
    };
    let optional = position(rules, 4, "red 15 C C C").legal_moves(3).len() == 2;
    let crossed = position(rules, 4, "red 15 C C C; blue 53").legal_moves(3)[0].captures() == 1;
    let mut game = position(rules, 4, "red 1 20");
    run(&mut game, &[(6, "1"), (6, "20")]);
    let three_sixes = if !game.legal_moves(6).is_empty() {
        "none"
    } else {
        roll(&mut game, 6, "penalty");
        match render(&game).split(';').next().unwrap() {
            "red 7 H H H" => "last_moved",
            "red H H H H" => "all_moved",
            other => panic!("third six left {other}"),
        }
    };
    let mut game = position(rules, 4, "red 1 7");
    run(&mut game, &[(6, "1")]);
    let stacking = match pick(&game, 5, "7").plane_count() {
        1 => "none",
        _ => "move_together",
    };
    let mut game = position(rules, 3, &format!("red C C C {}", centre - 1));
    roll(&mut game, 1, &(centre - 1).to_string());
    let end = match game.status() {
        Status::Finished => "first_finisher",
        _ => "full_ranking",
    };
    [
        format!("{launch:?}"),
        (centre - 51).to_string(),
        overshoot.into(),
        specials.into(),
        optional.to_string(),
        crossed.to_string(),
        three_sixes.into(),
        stacking.into(),
        end.into(),
        rules.max_turns().to_string(),
    ]
}

/// Stdout without its last line, which names the output folder (it differs between runs).
pub fn without_written_line(stdout: String) -> String {
    match stdout.find("\n\nwrote ") {
        Some(i) => stdout[..=i].to_string(),
        None => stdout,
    }
}

/// The number after `before` in `text` (as in "interrupted after 1,234 of ..."), without commas.
pub fn number_after(text: &str, before: &str) -> u64 {
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("{before:?} in {text}"))
        + before.len();
    text[at..]
        .split_whitespace()
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap()
}
