//! Scripted-dice rule tests, one per rule of RULES.md, each named for the rule it pins down.
//!
//! Geometry used throughout (RULES.md: ring cell of seat k's step s is `(13k + s - 1) mod 52`):
//! red's step s is yellow's s-13 (s >= 14, else s+39), blue's s-26 (else s+26), green's s-39
//! (else s+13); a value above 50 is a lane cell of that seat, not a ring cell.

use crate::common::*;
use aeroplane::RulesToml;
use aeroplane::{
    Action, End, Game, IllegalMove, Overshoot, Preset, Rules, Specials, Stacking, Status,
    ThreeSixes,
};

// ---------------------------------------------------------------------------------------------
// The presets table
// ---------------------------------------------------------------------------------------------

#[test]
fn presets_table_every_cell() {
    let faces = |r: &Rules| r.launch_rolls().faces();
    let a = appfree();
    assert_eq!(faces(&a), vec![6]);
    assert_eq!(
        (
            a.home_lane_cells(),
            a.overshoot(),
            a.specials(),
            a.flight_optional()
        ),
        (6, Overshoot::Illegal, Specials::One, false)
    );
    assert!(!a.flight_captures_crossed());
    assert_eq!(
        (a.three_sixes(), a.stacking(), a.end(), a.max_turns()),
        (
            ThreeSixes::LastMoved,
            Stacking::None,
            End::FirstFinisher,
            10_000
        )
    );
    let c = classic();
    assert_eq!(faces(&c), vec![2, 4, 6]);
    assert_eq!(
        (
            c.home_lane_cells(),
            c.overshoot(),
            c.specials(),
            c.flight_optional()
        ),
        (5, Overshoot::Illegal, Specials::JumpThenFlight, true)
    );
    assert!(c.flight_captures_crossed());
    assert_eq!(
        (c.three_sixes(), c.stacking(), c.end(), c.max_turns()),
        (
            ThreeSixes::AllMoved,
            Stacking::MoveTogether,
            End::FullRanking,
            10_000
        )
    );
    let z = chinese();
    assert_eq!(faces(&z), vec![6]);
    assert_eq!(
        (
            z.home_lane_cells(),
            z.overshoot(),
            z.specials(),
            z.flight_optional()
        ),
        (5, Overshoot::Bounce, Specials::Both, false)
    );
    assert!(z.flight_captures_crossed());
    assert_eq!(
        (z.three_sixes(), z.stacking(), z.end(), z.max_turns()),
        (ThreeSixes::None, Stacking::None, End::FullRanking, 10_000)
    );
}

#[test]
fn presets_table_every_cell_changes_behaviour() {
    // RULES.md's presets table, one column per preset, rows in the table's order.
    let table = [
        ("launch_rolls", ["[6]", "[2, 4, 6]", "[6]"]),
        ("home_lane_cells", ["6", "5", "5"]),
        ("overshoot", ["illegal", "illegal", "bounce"]),
        ("specials", ["one", "jump_then_flight", "both"]),
        ("flight_optional", ["false", "true", "false"]),
        ("flight_captures_crossed", ["false", "true", "true"]),
        ("three_sixes", ["last_moved", "all_moved", "none"]),
        ("stacking", ["none", "move_together", "none"]),
        ("end", ["first_finisher", "full_ranking", "full_ranking"]),
        ("max_turns", ["10000", "10000", "10000"]),
    ];
    for (col, preset) in [Preset::AppFreeGame, Preset::Classic, Preset::Chinese]
        .into_iter()
        .enumerate()
    {
        let seen = behaviour(preset.rules());
        for (row, (option, cells)) in table.iter().enumerate() {
            assert_eq!(seen[row], cells[col], "{} {option}", preset.name());
        }
    }
}

#[test]
fn presets_default_is_appfreegame_and_names_load() {
    assert_eq!(Rules::default(), appfree());
    for p in Preset::ALL {
        assert_eq!(aeroplane::config::load_rules(p.name()).unwrap(), p.rules());
        assert_eq!(p.name().parse::<Preset>().unwrap(), p);
        let text = format!("base = \"{}\"\n", p.name());
        assert_eq!(Rules::from_toml(&text).unwrap(), p.rules());
        // Every option written out reads back to the same rules.
        assert_eq!(Rules::from_toml(&p.rules().to_toml()).unwrap(), p.rules());
    }
}

#[test]
fn presets_variant_file_overrides_its_base() {
    let r = Rules::from_toml("base = \"classic\"\novershoot = \"bounce\"\n").unwrap();
    assert_eq!(r, variant(classic(), |b| b.overshoot(Overshoot::Bounce)));
    let r =
        Rules::from_toml("launch_rolls = [1, 3]\nhome_lane_cells = 3\nmax_turns = 7\n").unwrap();
    assert_eq!(r.launch_rolls().faces(), vec![1, 3]);
    assert_eq!((r.home_lane_cells(), r.centre(), r.max_turns()), (3, 54, 7));
    assert_eq!(
        r.specials(),
        Specials::One,
        "unset options come from appfreegame"
    );
}

#[test]
fn presets_reject_values_outside_the_allowed_ranges() {
    for bad in [
        "launch_rolls = []",
        "launch_rolls = [0]",
        "launch_rolls = [7]",
        "home_lane_cells = 2",
        "home_lane_cells = 9",
        "max_turns = 0",
        "overshoot = \"wrap\"",
        "specials = \"two\"",
        "three_sixes = \"some\"",
        "stacking = \"yes\"",
        "end = \"never\"",
        "flight_optional = 1",
        "base = \"nope\"",
        "colour = \"red\"",
    ] {
        assert!(Rules::from_toml(bad).is_err(), "{bad} should be rejected");
    }
}

// ---------------------------------------------------------------------------------------------
// Board geometry: ring cells, take-off cell, lane
// ---------------------------------------------------------------------------------------------

#[test]
fn ring_cells_captures_between_every_pair_of_seats() {
    // (mover, from, roll, victim, victim's step): the mover's landing cell is the victim's cell.
    let cases = [
        ("red", 24, 3, "blue", 1),     // red 27 = blue's first ring cell
        ("red", 36, 4, "green", 1),    // red 40 = green's first ring cell
        ("yellow", 37, 3, "red", 1),   // yellow 40 = red 1
        ("blue", 36, 4, "yellow", 1),  // blue 40 = yellow 1
        ("green", 12, 4, "red", 3),    // green 16 wraps past cell 51 to red 3
        ("green", 24, 3, "yellow", 1), // green 27 = yellow 1
        ("red", 33, 4, "green", 50),   // red 37 = green's turn cell
        ("red", 7, 4, "yellow", 50),   // red 11 = yellow's turn cell
        ("yellow", 47, 3, "green", 24),
        ("blue", 45, 2, "red", 21),
    ];
    for (mover, from, die, victim, at) in cases {
        let start = format!("{mover} {from}; {victim} {at}; turn {mover}");
        let to = from + die;
        let game = check(
            appfree(),
            4,
            &start,
            &[(die, &from.to_string())],
            &format!("{mover} {to}"),
        );
        assert_eq!(game.to_move(), seat(mover).next_in(4), "{start}");
    }
}

/// The seat after `self` in a 4-player game (helper for the table above).
trait Next {
    fn next_in(self, players: usize) -> aeroplane::Seat;
}
impl Next for aeroplane::Seat {
    fn next_in(self, players: usize) -> aeroplane::Seat {
        let seats = aeroplane::Seat::in_play(players);
        let k = seats.iter().position(|&s| s == self).unwrap();
        seats[(k + 1) % seats.len()]
    }
}

#[test]
fn ring_cells_landing_sends_every_opponent_on_the_cell_home() {
    // Red 15 is cell 14: blue's 41. (Planes of two seats never share a cell: the later
    // arrival captures, so every opponent plane on a cell is of one seat.)
    let mut game = position(appfree(), 4, "red 11; yellow 5; blue 41 41; green 29");
    let out = roll(&mut game, 4, "11");
    let Action::Move(m) = out.action else {
        panic!()
    };
    assert_eq!(m.captures(), 2);
    assert_eq!(
        (
            m.captures_seat(YELLOW),
            m.captures_seat(BLUE),
            m.captures_seat(GREEN)
        ),
        (0, 2, 0)
    );
    assert_position(&game, "red 15; yellow 5; green 29");
}

#[test]
fn ring_wraps_at_52() {
    // Green 13 is cell 51 (= blue 26); green 15 is cell 1 (= red 2).
    check(
        appfree(),
        4,
        "green 10; blue 26; red 52; turn green",
        &[(3, "10")],
        "green 13; red 52",
    );
}

#[test]
fn opponent_steps_51_and_52_are_lane_cells_not_ring() {
    // Red 12 and 13 are cells 11 and 12, which would be yellow's 51 and 52: yellow's lane.
    check(
        appfree(),
        4,
        "red 7 8; yellow 51 52",
        &[(6, "7"), (4, "8")],
        "red 12 13; yellow 51 52",
    );
    // Yellow 38 (jumping to 42) and 39 are cells 50 and 51: red's 51 and 52 are lane cells.
    check(
        appfree(),
        4,
        "yellow 33 35; red 51 52; turn yellow",
        &[(6, "33"), (3, "35")],
        "yellow 39 42; red 51 52",
    );
}

#[test]
fn take_off_cell_is_safe() {
    // Yellow 40 is cell 0 = red's step 1; red's take-off cell (step 0) is off the ring.
    check(
        appfree(),
        4,
        "yellow 37; red 0 1; turn yellow",
        &[(3, "37")],
        "yellow 40; red 0",
    );
    // Red 40 is green's step 1; green's take-off cell is safe.
    check(
        appfree(),
        4,
        "red 36; green 0 0 1",
        &[(4, "36")],
        "red 40; green 0 0",
    );
}

#[test]
fn lane_is_safe_for_its_owner() {
    // Green 12 and 13 are cells 50 and 51: they would be red's 51 and 52.
    check(
        appfree(),
        4,
        "green 7 9; red 51 52 53 56; turn green",
        &[(6, "7"), (3, "9")],
        "green 12 13; red 51 52 53 56",
    );
}

#[test]
fn own_planes_may_share_a_cell() {
    check(appfree(), 2, "red 3 5", &[(2, "3")], "red 5 5");
}

// ---------------------------------------------------------------------------------------------
// Launches
// ---------------------------------------------------------------------------------------------

#[test]
fn launch_only_on_launch_rolls_appfreegame_6() {
    let game = position(appfree(), 4, "");
    for d in 1..=5 {
        assert!(moves(&game, d).is_empty(), "roll {d}");
    }
    assert_eq!(moves(&game, 6), ["launch"]);
}

#[test]
fn launch_only_on_launch_rolls_classic_2_4_6() {
    let game = position(classic(), 4, "");
    for d in 1..=6 {
        let expect: &[&str] = if d % 2 == 0 { &["launch"] } else { &[] };
        assert_eq!(moves(&game, d), expect, "roll {d}");
    }
}

#[test]
fn launch_rolls_any_valid_set() {
    let rules = variant(appfree(), |b| b.launch_rolls(&[1, 3]));
    let game = position(rules, 2, "");
    for d in 1..=6 {
        let expect: &[&str] = if d == 1 || d == 3 { &["launch"] } else { &[] };
        assert_eq!(moves(&game, d), expect, "roll {d}");
    }
}

#[test]
fn launch_uses_the_whole_roll() {
    check(appfree(), 4, "", &[(6, "launch")], "red 0");
    check(classic(), 4, "", &[(4, "launch")], "red 0");
}

#[test]
fn launch_is_one_choice_for_all_hangar_planes() {
    let game = position(appfree(), 4, "red 5");
    assert_eq!(moves(&game, 6), ["launch", "5>11"]);
    let m = game.legal_moves(6)[0];
    assert!(m.is_launch());
    assert_eq!((m.plane_count(), m.to()), (1, 0));
}

#[test]
fn launch_onto_own_plane_at_take_off_without_stacking() {
    let mut game = check(appfree(), 2, "red 0", &[(6, "launch")], "red 0 0");
    // Both planes still move one at a time.
    let m = pick(&game, 3, "0");
    assert_eq!(m.plane_count(), 1);
    roll(&mut game, 3, "0");
    assert_position(&game, "red 0 3");
}

// ---------------------------------------------------------------------------------------------
// Moves, jumps
// ---------------------------------------------------------------------------------------------

#[test]
fn move_goes_forward_by_the_roll() {
    check(appfree(), 4, "red 3", &[(4, "3")], "red 7");
    check(appfree(), 4, "red 0", &[(5, "0")], "red 5");
    check(appfree(), 4, "red 0", &[(1, "0")], "red 1");
}

#[test]
fn move_list_is_canonical_and_skips_finished_planes() {
    let game = position(appfree(), 4, "red C 31 3");
    assert_eq!(moves(&game, 6), ["launch", "3>9", "31>37"]);
}

#[test]
fn jump_from_every_own_colour_cell_up_to_46() {
    for s in (2..=46u8).step_by(4).filter(|&s| s != 18) {
        let m = only_move(appfree(), 4, &format!("red {}", s - 1), 1);
        assert!(m.jumps() && !m.flies(), "landing on {s}");
        assert_eq!(m.to(), s + 4, "landing on {s}");
    }
}

#[test]
fn jump_only_from_own_colour_cells() {
    for s in (1..=50u8).filter(|s| s % 4 != 2) {
        // No plane stands on step 2 (landing there jumps on) or 22 (only a jump from the
        // flight cell leads there): 3 and 23 are reached with a 2.
        let (from, die) = if s == 3 || s == 23 {
            (s - 2, 2)
        } else {
            (s - 1, 1)
        };
        let m = only_move(appfree(), 4, &format!("red {from}"), die);
        assert!(!m.jumps() && !m.flies(), "landing on {s}");
        assert_eq!(m.to(), s, "landing on {s}");
    }
}

#[test]
fn jump_never_from_the_turn_cell_50() {
    let m = only_move(appfree(), 4, "red 47", 3);
    assert_eq!((m.to(), m.jumps()), (50, false));
    // 46 is the last jump: it lands on 50 and goes no further.
    check(appfree(), 4, "red 42", &[(4, "42")], "red 50");
}

#[test]
fn jump_captures_at_its_landing_and_at_the_rolled_cell() {
    // Red 6 = yellow 45, red 10 = yellow 49.
    let mut game = position(appfree(), 4, "red 3; yellow 45 49");
    let m = pick(&game, 3, "3");
    assert_eq!((m.to(), m.captures()), (10, 2));
    roll(&mut game, 3, "3");
    assert_position(&game, "red 10");
}

#[test]
fn jump_captures_at_the_jumps_landing() {
    // Red 10 = blue 36: captured, though red rolled onto 6.
    check(appfree(), 4, "red 3; blue 36", &[(3, "3")], "red 10");
}

#[test]
fn nothing_blocks_a_move() {
    // Red 5 = yellow 44: red passes over a yellow pair (a stack under move_together) and an
    // own plane, and lands beyond; nothing on the cells passed over is touched.
    for rules in [appfree(), together()] {
        check(
            rules,
            4,
            "red 3 4; yellow 44 44",
            &[(4, "3")],
            "red 4 7; yellow 44 44",
        );
    }
}

#[test]
fn jump_does_not_capture_what_it_passes_over() {
    // Red rolls 3 from 3 onto 6 and jumps to 10 over red 7..9; red 8 = blue 34 stays.
    check(
        appfree(),
        4,
        "red 3; blue 34",
        &[(3, "3")],
        "red 10; blue 34",
    );
    // The flight from 18 to 30 crosses no ring cell: yellow on red 20 (yellow 7) stays.
    check(
        appfree(),
        4,
        "red 14; yellow 7",
        &[(4, "14")],
        "red 30; yellow 7",
    );
}

#[test]
fn jump_at_most_one_per_move() {
    // 22 jumps to 26, which is own colour too, but there is no second jump.
    check(appfree(), 4, "red 19", &[(3, "19")], "red 26");
    check(chinese(), 4, "red 19", &[(3, "19")], "red 26");
}

// ---------------------------------------------------------------------------------------------
// The flight and the crossed cell
// ---------------------------------------------------------------------------------------------

#[test]
fn flight_from_18_to_30() {
    let m = only_move(appfree(), 4, "red 15", 3);
    assert!(m.flies() && !m.jumps());
    assert_eq!(m.to(), 30);
    // Moving on from 18 is an ordinary move.
    check(appfree(), 4, "red 18", &[(2, "18")], "red 20");
}

#[test]
fn flight_captures_at_18_and_at_30() {
    // Red 18 = yellow 5; red 30 = yellow 17; red 24 = yellow 11 is under the path: untouched.
    let mut game = position(appfree(), 4, "red 15; yellow 5 11 17");
    assert_eq!(pick(&game, 3, "15").captures(), 2);
    roll(&mut game, 3, "15");
    assert_position(&game, "red 30; yellow 11");
}

#[test]
fn crossed_cell_captured_when_flight_captures_crossed() {
    // Classic: optional flight, crossed cell on. Blue's step 53 is the cell red's flight crosses.
    let mut game = position(classic(), 4, "red 15; blue 53");
    let m = pick(&game, 3, "15:fly");
    assert_eq!((m.captures(), m.captures_seat(BLUE)), (1, 1));
    roll(&mut game, 3, "15:fly");
    assert_position(&game, "red 30");
    // Chinese: crossed on, the flight goes on to 34.
    check(chinese(), 4, "red 15; blue 53 53", &[(3, "15")], "red 34");
}

#[test]
fn crossed_cell_only_the_opposite_colours_step_53() {
    check(
        classic(),
        4,
        "red 15; yellow 53; blue 52 54; green 53",
        &[(3, "15:fly")],
        "red 30; yellow 53; blue 52 54; green 53",
    );
    // Yellow's flight crosses green's lane.
    check(
        classic(),
        4,
        "yellow 15; red 53; blue 53; green 53; turn yellow",
        &[(3, "15:fly")],
        "yellow 30; red 53; blue 53",
    );
}

#[test]
fn crossed_cell_untouched_when_option_off() {
    check(
        appfree(),
        4,
        "red 15; blue 53",
        &[(3, "15")],
        "red 30; blue 53",
    );
}

#[test]
fn crossed_cell_untouched_by_staying() {
    check(
        classic(),
        4,
        "red 15; blue 53",
        &[(3, "15:stay")],
        "red 18; blue 53",
    );
}

#[test]
fn crossed_cell_nothing_when_opposite_seat_not_in_play() {
    // 3 players: yellow's opposite colour, green, is not in play.
    let mut game = position(classic(), 3, "yellow 15; red 53; blue 53 52; turn yellow");
    assert_eq!(pick(&game, 3, "15:fly").captures(), 0);
    roll(&mut game, 3, "15:fly");
    assert_position(&game, "yellow 30; red 53; blue 52 53");
}

#[test]
fn crossed_cell_in_a_two_player_game() {
    check(classic(), 2, "red 15; blue 53", &[(3, "15:fly")], "red 30");
    check(
        classic(),
        2,
        "blue 15; red 53; turn blue",
        &[(3, "15:fly")],
        "blue 30",
    );
}

#[test]
fn crossed_cell_after_a_jump_onto_18() {
    check(classic(), 4, "red 11; blue 53", &[(3, "11:fly")], "red 30");
}

// ---------------------------------------------------------------------------------------------
// specials
// ---------------------------------------------------------------------------------------------

fn with_specials(s: Specials) -> Rules {
    variant(appfree(), |b| b.specials(s))
}

#[test]
fn specials_one_jump_onto_18_does_not_fly() {
    let m = only_move(with_specials(Specials::One), 4, "red 11", 3);
    assert_eq!((m.to(), m.jumps(), m.flies()), (18, true, false));
}

#[test]
fn specials_one_flight_does_not_jump_at_30() {
    let m = only_move(with_specials(Specials::One), 4, "red 15", 3);
    assert_eq!((m.to(), m.jumps(), m.flies()), (30, false, true));
}

#[test]
fn specials_jump_then_flight_jump_onto_18_flies() {
    let m = only_move(with_specials(Specials::JumpThenFlight), 4, "red 11", 3);
    assert_eq!((m.to(), m.jumps(), m.flies()), (30, true, true));
}

#[test]
fn specials_jump_then_flight_flight_does_not_jump_at_30() {
    let m = only_move(with_specials(Specials::JumpThenFlight), 4, "red 15", 3);
    assert_eq!((m.to(), m.jumps(), m.flies()), (30, false, true));
}

#[test]
fn specials_both_flight_then_jump_to_34() {
    let m = only_move(with_specials(Specials::Both), 4, "red 15", 3);
    assert_eq!((m.to(), m.jumps(), m.flies()), (34, true, true));
}

#[test]
fn specials_both_jump_then_flight_without_a_second_jump() {
    let m = only_move(with_specials(Specials::Both), 4, "red 11", 3);
    assert_eq!((m.to(), m.jumps(), m.flies()), (30, true, true));
}

#[test]
fn specials_chain_captures_at_every_landing() {
    // Red 14 = yellow 1, 18 = yellow 5, 30 = yellow 17, 34 = yellow 21.
    for s in [Specials::JumpThenFlight, Specials::Both] {
        check(
            with_specials(s),
            4,
            "red 11; yellow 1 5 17 21",
            &[(3, "11")],
            "red 30; yellow 21",
        );
    }
    check(
        with_specials(Specials::Both),
        4,
        "red 15; yellow 1 5 17 21",
        &[(3, "15")],
        "red 34; yellow 1",
    );
    check(
        with_specials(Specials::One),
        4,
        "red 11; yellow 1 5 17 21",
        &[(3, "11")],
        "red 18; yellow 17 21",
    );
}

// ---------------------------------------------------------------------------------------------
// flight_optional
// ---------------------------------------------------------------------------------------------

fn optional(s: Specials) -> Rules {
    variant(appfree(), |b| b.specials(s).flight_optional(true))
}

#[test]
fn flight_optional_offers_fly_and_stay() {
    let game = position(optional(Specials::One), 4, "red 15");
    assert_eq!(moves(&game, 3), ["15>30", "15>18:stay"]);
    let game = position(optional(Specials::Both), 4, "red 15");
    assert_eq!(moves(&game, 3), ["15>34", "15>18:stay"]);
    // Off: one move, it flies.
    let game = position(appfree(), 4, "red 15");
    assert_eq!(moves(&game, 3), ["15>30"]);
}

#[test]
fn flight_optional_stay_takes_no_jump_and_captures_at_18() {
    // Red 18 = yellow 5, red 30 = yellow 17.
    let mut game = position(optional(Specials::Both), 4, "red 15; yellow 5 17");
    let m = pick(&game, 3, "15:stay");
    assert!(m.stays() && !m.flies() && !m.jumps());
    assert_eq!(m.captures(), 1);
    roll(&mut game, 3, "15:stay");
    assert_position(&game, "red 18; yellow 17");
}

#[test]
fn flight_optional_after_a_jump_onto_18() {
    let game = position(classic(), 4, "red 11");
    assert_eq!(moves(&game, 3), ["11>30", "11>18:stay"]);
    let stay = pick(&game, 3, "11:stay");
    assert!(stay.jumps() && !stay.flies());
    check(classic(), 4, "red 11", &[(3, "11:stay")], "red 18");
    check(classic(), 4, "red 11", &[(3, "11:fly")], "red 30");
}

#[test]
fn flight_optional_not_offered_where_no_flight_would_happen() {
    // specials = one: a jump onto 18 does not fly, so there is nothing to decline.
    let game = position(optional(Specials::One), 4, "red 11");
    assert_eq!(moves(&game, 3), ["11>18"]);
}

#[test]
fn flight_optional_moves_are_distinct_per_plane_and_choice() {
    let game = position(classic(), 4, "red 11 15");
    assert_eq!(
        moves(&game, 3),
        ["11>30", "11>18:stay", "15>30", "15>18:stay"]
    );
}

// ---------------------------------------------------------------------------------------------
// Overshoot, home lane, finishing
// ---------------------------------------------------------------------------------------------

#[test]
fn overshoot_illegal_needs_the_exact_roll() {
    // appfreegame centre = 57.
    let game = position(appfree(), 4, "red 55 C C C");
    assert_eq!(moves(&game, 1), ["55>56"]);
    assert_eq!(moves(&game, 2), ["55>57"]);
    assert!(pick(&game, 2, "55").finishes());
    for d in 3..=6 {
        assert!(moves(&game, d).is_empty(), "roll {d}");
    }
}

#[test]
fn overshoot_bounce_walks_back_the_extra_steps() {
    // chinese centre = 56: 55 + 3 = 58 -> 54.
    let m = only_move(chinese(), 4, "red 55", 3);
    assert!(m.bounces() && !m.finishes());
    assert_eq!(m.to(), 54);
    check(chinese(), 4, "red 52", &[(6, "52")], "red 54");
}

#[test]
fn overshoot_bounce_back_to_its_own_step_is_legal() {
    for (s, d) in [(53, 6), (54, 4), (55, 2)] {
        let m = only_move(chinese(), 4, &format!("red {s} C C C"), d);
        assert!(m.bounces(), "{s}+{d}");
        assert_eq!(m.to(), s, "{s}+{d}");
        check(
            chinese(),
            4,
            &format!("red {s} C C C"),
            &[(d, &s.to_string())],
            &format!("red {s} C C C"),
        );
    }
}

#[test]
fn overshoot_bounce_onto_the_ring_lands_there() {
    // home_lane_cells = 3: centre 54. 52 + 6 = 58 -> 50 (= yellow 37): a capture, and no jump
    // from the turn cell. 53 + 6 = 59 -> 49 (= yellow 36).
    let short = variant(chinese(), |b| b.home_lane_cells(3));
    let m = only_move(short, 4, "red 52 C C C; yellow 37", 6);
    assert!(m.bounces() && !m.jumps());
    assert_eq!((m.to(), m.captures()), (50, 1));
    check(
        short,
        4,
        "red 52; yellow 37 36",
        &[(6, "52")],
        "red 50; yellow 36",
    );
    check(
        short,
        4,
        "red 53; yellow 37 36",
        &[(6, "53")],
        "red 49; yellow 37",
    );
    // The same rolls are no move at all with overshoot = illegal.
    let short_illegal = variant(short, |b| b.overshoot(Overshoot::Illegal));
    assert!(moves(&position(short_illegal, 4, "red 52 C C C"), 6).is_empty());
}

#[test]
fn home_lane_cells_sets_the_centre() {
    for lane in 3..=8u8 {
        let rules = variant(appfree(), |b| b.home_lane_cells(lane.into()));
        let centre = 51 + lane;
        assert_eq!(rules.centre(), centre);
        let game = position(rules, 4, "red 50 C C C");
        for d in 1..=6u8 {
            let t = 50 + d;
            let list = game.legal_moves(d);
            if t > centre {
                assert!(list.is_empty(), "lane {lane}, 50+{d}");
            } else {
                assert_eq!(list.len(), 1, "lane {lane}, 50+{d}");
                assert_eq!(list[0].to(), t);
                assert_eq!(list[0].finishes(), t == centre, "lane {lane}, 50+{d}");
            }
        }
    }
}

#[test]
fn finished_plane_stays_at_the_centre() {
    let game = position(chinese(), 4, "red C C 3");
    for d in 1..=5 {
        assert_eq!(game.legal_moves(d).len(), 1, "only the plane at 3 moves");
    }
    // A seat that has finished never moves again: with two players its finish ends the game.
    let game = position(chinese(), 2, "red C C C C");
    assert!(game.is_over() && game.legal_moves(1).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Sixes and three sixes
// ---------------------------------------------------------------------------------------------

#[test]
fn six_gives_another_roll() {
    let mut game = position(appfree(), 4, "red 3");
    let out = roll(&mut game, 6, "3");
    assert!(!out.turn_over);
    assert_eq!(game.to_move(), RED);
    let out = roll(&mut game, 2, "9");
    assert!(out.turn_over);
    assert_eq!(game.to_move(), YELLOW);
}

#[test]
fn six_gives_another_roll_even_when_it_passes() {
    let mut game = position(appfree(), 4, "red C C C 55");
    let out = roll(&mut game, 6, "pass");
    assert!(!out.turn_over);
    assert_eq!(game.to_move(), RED);
    let out = roll(&mut game, 5, "pass");
    assert!(out.turn_over);
    assert_eq!(game.to_move(), YELLOW);
}

#[test]
fn three_sixes_none_keeps_rolling() {
    let mut game = position(chinese(), 4, "red 1 20");
    let outs = run(
        &mut game,
        &[(6, "1"), (6, "20"), (6, "7"), (6, "13"), (6, "30")],
    );
    assert!(outs.iter().all(|o| !o.turn_over));
    assert_eq!(game.sixes_this_turn(), 5);
    assert_position(&game, "red 19 36");
    assert!(roll(&mut game, 1, "19").turn_over);
}

#[test]
fn three_sixes_last_moved_sends_back_the_last_moved_plane() {
    let mut game = position(appfree(), 4, "red 1 20");
    run(&mut game, &[(6, "1"), (6, "20")]);
    assert_position(&game, "red 7 30");
    assert!(game.is_punished(6));
    let out = roll(&mut game, 6, "penalty");
    assert_eq!(out.action, Action::Penalty { planes: 0b0010 });
    assert!(out.turn_over);
    assert_position(&game, "red 7");
    assert_eq!(game.to_move(), YELLOW);
}

#[test]
fn three_sixes_last_moved_counts_a_launched_plane() {
    check(
        appfree(),
        4,
        "red 1",
        &[(6, "1"), (6, "launch"), (6, "penalty")],
        "red 7",
    );
}

#[test]
fn three_sixes_last_moved_nothing_when_no_move_this_turn() {
    let mut game = position(appfree(), 4, "red C C C 55");
    let outs = run(&mut game, &[(6, "pass"), (6, "pass"), (6, "penalty")]);
    assert_eq!(outs[2].action, Action::Penalty { planes: 0 });
    assert!(outs[2].turn_over);
    assert_position(&game, "red C C C 55");
    assert_eq!(game.to_move(), YELLOW);
}

#[test]
fn three_sixes_last_moved_reaches_past_a_pass() {
    // The second six passes (55 + 6 overshoots); the most recent move is still the first.
    check(
        appfree(),
        4,
        "red C C C 49",
        &[(6, "49"), (6, "pass"), (6, "penalty")],
        "red C C C H",
    );
}

#[test]
fn three_sixes_last_moved_spares_a_finished_plane() {
    check(
        appfree(),
        4,
        "red C C 51 40",
        &[(6, "40"), (6, "51"), (6, "penalty")],
        "red C C C 50",
    );
}

#[test]
fn three_sixes_captures_stand_when_the_move_is_punished() {
    // 20 + 6 = 26 (= yellow 13) jumps to 30 (= yellow 17): both captured; the third six sends
    // the capturing plane back, the captured planes stay in their hangar.
    let mut game = position(appfree(), 4, "red 1 20; yellow 13 17 3");
    run(&mut game, &[(6, "1"), (6, "20"), (6, "penalty")]);
    assert_position(&game, "red 7; yellow 3");
}

fn all_moved() -> Rules {
    variant(appfree(), |b| b.three_sixes(ThreeSixes::AllMoved))
}

#[test]
fn three_sixes_all_moved_sends_back_every_plane_moved_by_the_first_two_sixes() {
    check(
        all_moved(),
        4,
        "red 1 20 5",
        &[(6, "1"), (6, "20"), (6, "penalty")],
        "red 5",
    );
}

#[test]
fn three_sixes_all_moved_counts_a_launched_plane() {
    check(
        all_moved(),
        4,
        "red 1 5",
        &[(6, "launch"), (6, "1"), (6, "penalty")],
        "red 5",
    );
}

#[test]
fn three_sixes_all_moved_spares_finished_planes() {
    check(
        all_moved(),
        4,
        "red C C 51 40",
        &[(6, "40"), (6, "51"), (6, "penalty")],
        "red C C C H",
    );
}

#[test]
fn three_sixes_penalty_spares_own_planes_they_stacked_with() {
    let stack = |t: ThreeSixes| {
        variant(appfree(), |b| {
            b.stacking(Stacking::MoveTogether).three_sixes(t)
        })
    };
    // The plane from 3 joins the plane at 9; only the plane that moved goes back.
    check(
        stack(ThreeSixes::LastMoved),
        4,
        "red 3 9 20",
        &[(6, "20"), (6, "3"), (6, "penalty")],
        "red 9 30",
    );
    check(
        stack(ThreeSixes::AllMoved),
        4,
        "red 3 9 20",
        &[(6, "20"), (6, "3"), (6, "penalty")],
        "red 9",
    );
    // A stack that moved goes back whole (every plane of it moved).
    let mut game = check(
        stack(ThreeSixes::LastMoved),
        4,
        "red 1 7",
        &[(6, "1")],
        "red 7 7",
    );
    hand_to(&mut game, RED);
    run(&mut game, &[(6, "launch"), (6, "7"), (6, "penalty")]);
    assert_position(&game, "red 0");
}

#[test]
fn three_sixes_punished_roll_is_no_move_and_ends_the_turn() {
    let mut game = position(all_moved(), 2, "red 1 20");
    run(&mut game, &[(6, "1"), (6, "20")]);
    assert!(game.legal_moves(6).is_empty());
    assert!(game.is_punished(6));
    assert!(!game.is_punished(5));
    let turns = game.turns();
    roll(&mut game, 6, "penalty");
    assert_eq!(game.to_move(), BLUE);
    roll(&mut game, 1, "pass");
    assert_eq!(game.turns(), turns + 1);
}

// ---------------------------------------------------------------------------------------------
// Stacking
// ---------------------------------------------------------------------------------------------

fn together() -> Rules {
    variant(appfree(), |b| b.stacking(Stacking::MoveTogether))
}

#[test]
fn stacking_none_planes_share_but_move_one_at_a_time() {
    let mut game = check(appfree(), 4, "red 1 7", &[(6, "1")], "red 7 7");
    assert_eq!(moves(&game, 2), ["7>9"]);
    assert_eq!(pick(&game, 2, "7").plane_count(), 1);
    roll(&mut game, 2, "7");
    assert_position(&game, "red 7 9");
}

#[test]
fn stacking_move_together_stack_forms_at_a_moves_end_and_moves_as_one() {
    let mut game = check(together(), 4, "red 1 7", &[(6, "1")], "red 7 7");
    assert_eq!(moves(&game, 2), ["7>9"]);
    assert_eq!(pick(&game, 2, "7").plane_count(), 2);
    roll(&mut game, 2, "7");
    assert_position(&game, "red 9 9");
}

#[test]
fn stacking_move_together_launch_onto_own_plane_forms_a_stack() {
    let mut game = check(together(), 4, "red 0", &[(6, "launch")], "red 0 0");
    assert_eq!(pick(&game, 3, "0").plane_count(), 2);
    roll(&mut game, 3, "0");
    assert_position(&game, "red 3 3");
}

#[test]
fn stacking_move_together_stack_flies_and_jumps_as_one() {
    // Form a stack at 16, then it flies as one.
    let rules = variant(together(), |b| b.specials(Specials::Both));
    let mut game = check(rules, 4, "red 10 16", &[(6, "10")], "red 16 16");
    let m = pick(&game, 2, "16");
    assert_eq!(
        (m.plane_count(), m.to(), m.flies(), m.jumps()),
        (2, 34, true, true)
    );
    roll(&mut game, 2, "16");
    assert_position(&game, "red 34 34");
}

#[test]
fn stacking_move_together_stack_captured_each_plane_to_its_hangar() {
    // Blue 7 is red 33. Blue forms a stack there; red lands on it.
    let mut game = position(together(), 2, "red 30; blue 1 7 30; turn blue");
    run(&mut game, &[(6, "1"), (1, "30")]);
    assert_position(&game, "red 30; blue 7 7 31");
    let m = pick(&game, 3, "30");
    assert_eq!((m.captures(), m.captures_seat(BLUE)), (2, 2));
    roll(&mut game, 3, "30");
    assert_position(&game, "red 33; blue 31");
    // The stack is gone: a launch brings out one plane only.
    assert_eq!(game.to_move(), BLUE);
    let launch = pick(&game, 6, "launch");
    assert_eq!(launch.plane_count(), 1);
}

#[test]
fn stacking_move_together_stack_does_not_form_at_cells_the_chain_passes() {
    // 10 + 4 = 14 (own plane there) -> jump to 18 (own plane there) -> fly to 30. (A plane
    // stands on the flight cell only where the flight is optional.)
    let rules = variant(together(), |b| {
        b.specials(Specials::JumpThenFlight).flight_optional(true)
    });
    let mut game = check(rules, 2, "red 10 14 18", &[(4, "10:fly")], "red 14 18 30");
    hand_to(&mut game, RED);
    let list = game.legal_moves(1);
    assert_eq!(moves(&game, 1), ["14>15", "18>19", "30>31"]);
    assert!(list.iter().all(|m| m.plane_count() == 1));
    // With specials = one the chain ends on 18: there it forms a stack.
    let mut game = check(together(), 2, "red 10 14 18", &[(4, "10")], "red 14 18 18");
    hand_to(&mut game, RED);
    assert_eq!(moves(&game, 1), ["14>15", "18>19"]);
    assert_eq!(pick(&game, 1, "18").plane_count(), 2);
}

#[test]
fn stacking_move_together_stack_reaches_the_centre_together() {
    // classic: centre 56, stacking on.
    let mut game = check(classic(), 4, "red 48 54 C C", &[(6, "48")], "red 54 54 C C");
    // The six gives red another roll; the stack finishes as one and red is done.
    let m = pick(&game, 2, "54");
    assert_eq!((m.plane_count(), m.finishes()), (2, true));
    let out = roll(&mut game, 2, "54");
    assert!(out.seat_finished);
    assert_eq!(game.rank(RED), Some(1));
}

// ---------------------------------------------------------------------------------------------
// Turns and the end of the game
// ---------------------------------------------------------------------------------------------

#[test]
fn turn_order_seat_0_first_then_clockwise_among_seats_in_play() {
    for (players, order) in [
        (2, vec![RED, BLUE, RED]),
        (3, vec![RED, YELLOW, BLUE, RED]),
        (4, vec![RED, YELLOW, BLUE, GREEN, RED]),
    ] {
        let mut game = Game::new(appfree(), players).unwrap();
        let mut seen = vec![game.to_move()];
        for _ in 1..order.len() {
            roll(&mut game, 1, "pass");
            seen.push(game.to_move());
        }
        assert_eq!(seen, order, "{players} players");
    }
}

#[test]
fn turn_order_skips_finished_players() {
    let mut game = position(
        chinese(),
        4,
        "red 1; yellow C C C 55; blue 1; green 1; turn yellow",
    );
    let out = roll(&mut game, 1, "55");
    assert!(out.seat_finished && out.turn_over);
    assert_eq!(game.rank(YELLOW), Some(1));
    assert_eq!(game.status(), Status::Playing);
    let mut seen = vec![];
    for who in ["blue", "green", "red", "blue"] {
        assert_eq!(game.to_move(), seat(who));
        seen.push(game.to_move());
        let from = game.steps(seat(who)).iter().copied().min().unwrap();
        roll(&mut game, 2, &from.to_string());
    }
    assert_eq!(seen, [BLUE, GREEN, RED, BLUE]);
}

#[test]
fn last_plane_home_ends_the_turn_even_on_a_six() {
    let mut game = position(chinese(), 4, "red C C C 50");
    let out = roll(&mut game, 6, "50");
    assert!(out.seat_finished && out.turn_over);
    assert_eq!(game.to_move(), YELLOW);
    // A plane that is not the last one home rolls again on a six.
    let mut game = position(chinese(), 4, "red C C 50 1");
    let out = roll(&mut game, 6, "50");
    assert!(!out.seat_finished && !out.turn_over);
    assert_eq!(game.to_move(), RED);
}

#[test]
fn end_first_finisher_ends_the_game_at_the_first() {
    for players in 3..=4 {
        let mut game = position(appfree(), players, "red C C C 55; yellow C C C 56");
        roll(&mut game, 2, "55");
        assert_eq!(game.status(), Status::Finished);
        assert!(game.is_over());
        assert_eq!(game.winner(), Some(RED));
        assert_eq!(game.rank(RED), Some(1));
        assert_eq!(game.rank(YELLOW), None);
        assert!(game.legal_moves(1).is_empty());
        assert_eq!(game.play(1, None), Err(IllegalMove::GameOver));
    }
}

#[test]
fn end_full_ranking_ranks_1_to_n() {
    let mut game = position(
        chinese(),
        4,
        "red C C C 55; yellow C C C 55; blue C C C 55; green 1",
    );
    roll(&mut game, 1, "55");
    assert_eq!((game.status(), game.winner()), (Status::Playing, Some(RED)));
    roll(&mut game, 1, "55");
    assert_eq!(game.status(), Status::Playing);
    roll(&mut game, 1, "55");
    assert_eq!(game.status(), Status::Finished);
    let ranks: Vec<_> = [RED, YELLOW, BLUE, GREEN]
        .iter()
        .map(|&s| game.rank(s))
        .collect();
    assert_eq!(ranks, [Some(1), Some(2), Some(3), Some(4)]);
    // 3 players: the last two go 2 and 3.
    let mut game = position(chinese(), 3, "red 1; yellow C C C 55; blue 1; turn yellow");
    roll(&mut game, 1, "55");
    assert_eq!(game.status(), Status::Playing);
    assert_eq!(game.rank(YELLOW), Some(1));
}

#[test]
fn end_two_players_both_modes_identical() {
    for end in [End::FirstFinisher, End::FullRanking] {
        let rules = variant(chinese(), |b| b.end(end));
        let mut game = position(rules, 2, "red C C C 55; blue 3");
        roll(&mut game, 1, "55");
        assert_eq!(game.status(), Status::Finished, "{end:?}");
        assert_eq!((game.rank(RED), game.rank(BLUE)), (Some(1), Some(2)));
    }
}

#[test]
fn max_turns_stops_a_game_as_unfinished() {
    let rules = variant(appfree(), |b| b.max_turns(2));
    let mut game = Game::new(rules, 4).unwrap();
    // Turn 1 holds three rolls.
    run(&mut game, &[(6, "launch"), (6, "0"), (1, "10")]);
    assert_eq!((game.turns(), game.status()), (1, Status::Playing));
    roll(&mut game, 2, "pass");
    assert_eq!((game.turns(), game.status()), (2, Status::Unfinished));
    assert!(game.is_over());
    assert_eq!(game.winner(), None);
    assert_eq!(game.play(3, None), Err(IllegalMove::GameOver));
}

#[test]
fn checked_play_refuses_illegal_choices() {
    let mut game = position(appfree(), 4, "red 3");
    let other = position(appfree(), 4, "red 4").legal_moves(2)[0];
    assert_eq!(game.play(7, None), Err(IllegalMove::BadRoll(7)));
    assert_eq!(game.play(0, None), Err(IllegalMove::BadRoll(0)));
    assert!(matches!(game.play(2, None), Err(IllegalMove::MustMove(1))));
    assert!(matches!(
        game.play(2, Some(other)),
        Err(IllegalMove::NotLegal(_))
    ));
    assert_position(&game, "red 3");
}

#[test]
fn move_notation_names_the_choice() {
    let notation = |rules: Rules, start: &str, die: u8| -> Vec<String> {
        position(rules, 4, start)
            .legal_moves(die)
            .iter()
            .map(|m| m.notation())
            .collect()
    };
    assert_eq!(notation(appfree(), "red 3", 6), ["launch", "3"]);
    assert_eq!(notation(classic(), "red 15", 3), ["15:fly", "15:stay"]);
    assert_eq!(notation(classic(), "red 11", 3), ["11:fly", "11:stay"]);
}

// ---------------------------------------------------------------------------------------------
// planes: 1 to 4 planes per seat
// ---------------------------------------------------------------------------------------------

fn planes(base: Rules, n: i64) -> Rules {
    variant(base, |b| b.planes(n))
}

#[test]
fn planes_one_plane_each_finishes_the_game_with_one_plane_home() {
    let rules = planes(appfree(), 1);
    let game = Game::new(rules, 2).unwrap();
    assert_eq!(game.to_string(), "h/-/h/- 0 - 0 - - - 0");
    assert_eq!(game.planes_home(RED), 0);
    // Only one plane to launch; once it is out, a 6 offers only its move.
    let mut game = check(rules, 2, "", &[(6, "launch")], "red 0");
    // (0 + 6 lands on 6, an own-colour cell, and jumps to 10.)
    assert_eq!(moves(&game, 6), ["0>10"]);
    // Home with its one plane: red wins.
    let mut near = position(rules, 2, "red 55; blue 20");
    let out = roll(&mut near, 2, "55");
    assert!(out.seat_finished && near.is_over());
    assert_eq!((near.winner(), near.planes_home(RED)), (Some(RED), 1));
    run(&mut game, &[(6, "0")]);
    assert_position(&game, "red 10");
}

#[test]
fn planes_one_plane_three_sixes_sends_it_back() {
    check(
        planes(appfree(), 1),
        4,
        "red 1",
        &[(6, "1"), (6, "7"), (6, "penalty")],
        "",
    );
}

#[test]
fn planes_two_need_both_home_and_stack_as_two() {
    let rules = planes(together(), 2);
    // One plane home is not a finish.
    let mut game = position(rules, 2, "red C 40; blue 20");
    assert!(!game.has_finished(RED));
    assert_eq!(game.to_string(), "57,40/-/20,h/- 0 - 0 - - - 1");
    let out = roll(&mut game, 3, "40");
    assert!(!out.seat_finished);
    // A stack of the two planes moves as one and is captured as one.
    let game = check(rules, 2, "red 3 9", &[(6, "3")], "red 9 9");
    assert_eq!(pick(&game, 1, "9").plane_count(), 2);
    let mut game = position(rules, 2, "red 9 9; blue 32");
    hand_to(&mut game, BLUE);
    // Blue 32 + 3 = 35 = red's 9 (cell 8): both red planes go home.
    let out = roll(&mut game, 3, "32");
    let Action::Move(m) = out.action else {
        panic!()
    };
    assert_eq!(m.captures_seat(RED), 2);
    assert_position(&game, "blue 35");
}

#[test]
fn planes_two_three_sixes_all_moved() {
    check(
        planes(all_moved(), 2),
        4,
        "red 1 20",
        &[(6, "1"), (6, "20"), (6, "penalty")],
        "",
    );
}

#[test]
fn planes_are_refused_outside_one_to_four() {
    for bad in [0, 5, -1] {
        let e = Rules::builder().planes(bad).build().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid value {bad} for option `planes`: allowed is an integer from 1 to 4")
        );
    }
    let text = "base = \"classic\"\nplanes = 2\n";
    assert_eq!(Rules::from_toml(text).unwrap(), planes(classic(), 2));
    assert!(Rules::from_toml("planes = 9").is_err());
}
