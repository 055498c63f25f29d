//! Validated by construction: every value of every rule option, every string as a position
//! and every setup either builds a valid value or is a typed error naming what is wrong; never
//! a panic. Fuzzed with proptest under a fixed seed.

use aeroplane_core::{
    Game, HANGAR, Preset, RuleOption, Rules, RulesError, RulesSpec, Seat, SeededDice, Setting,
    Setup, SetupError,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(20261201),
        ..Config::default()
    }
}

/// Any integer, weighted towards the edges of every option's range.
fn any_int() -> impl Strategy<Value = i64> {
    prop_oneof![
        -3i64..12,
        Just(0),
        Just(u32::MAX as i64),
        Just(u32::MAX as i64 + 1),
        any::<i64>(),
    ]
}

proptest! {
    #![proptest_config(config(2000))]

    /// Integer options: in range builds exactly that value; out of range is `Invalid` naming
    /// the option, never a panic.
    #[test]
    fn integer_options_are_checked(v in any_int(), base in 0usize..3) {
        let base = Preset::ALL[base].rules();
        for (option, lo, hi) in [
            (RuleOption::HomeLaneCells, 3, 8),
            (RuleOption::MaxTurns, 1, u32::MAX as i64),
            (RuleOption::Planes, 1, 4),
        ] {
            let built = Setting::integer(option, v);
            let by_builder = {
                let b = aeroplane_core::RulesBuilder::from(base);
                match option {
                    RuleOption::HomeLaneCells => b.home_lane_cells(v),
                    RuleOption::MaxTurns => b.max_turns(v),
                    _ => b.planes(v),
                }
                .build()
            };
            if (lo..=hi).contains(&v) {
                let rules = base.with(built.unwrap());
                prop_assert_eq!(by_builder, Ok(rules));
                let got = match option {
                    RuleOption::HomeLaneCells => i64::from(rules.home_lane_cells()),
                    RuleOption::MaxTurns => i64::from(rules.max_turns()),
                    _ => i64::from(rules.planes()),
                };
                prop_assert_eq!(got, v);
                prop_assert!(Game::new(rules, 4).is_ok());
            } else {
                for e in [built.unwrap_err(), by_builder.unwrap_err()] {
                    match e {
                        RulesError::Invalid { option: o, .. } => prop_assert_eq!(o, option.name()),
                        other => prop_assert!(false, "{other:?}"),
                    }
                }
            }
        }
    }

    /// Launch faces: any list of integers.
    #[test]
    fn launch_faces_are_checked(faces in prop::collection::vec(any_int(), 0..8)) {
        let ok = !faces.is_empty() && faces.iter().all(|f| (1..=6).contains(f));
        match Setting::launch_rolls(&faces) {
            Ok(s) => {
                prop_assert!(ok);
                let rules = Rules::default().with(s);
                for d in 1..=6u8 {
                    prop_assert_eq!(rules.launch_rolls().contains(d), faces.contains(&i64::from(d)));
                }
            }
            Err(RulesError::Invalid { option, .. }) => {
                prop_assert!(!ok);
                prop_assert_eq!(option, "launch_rolls");
            }
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }

    /// Any text for any option: a setting of that option, or a typed error.
    #[test]
    fn any_text_for_any_option(option in 0usize..11, text in ".{0,12}") {
        let option = RuleOption::ALL[option];
        match Setting::parse(option, &text) {
            Ok(s) => prop_assert_eq!(s.option(), option),
            Err(RulesError::Invalid { option: o, .. }) => prop_assert_eq!(o, option.name()),
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }

    /// A spec with any values: valid rules or the first bad option named.
    #[test]
    fn any_spec(lane in prop::option::of(any_int()), turns in prop::option::of(any_int()),
                planes in prop::option::of(any_int()), base in prop::option::of("[a-z]{0,12}")) {
        let spec = RulesSpec { base, home_lane_cells: lane, max_turns: turns, planes, ..RulesSpec::default() };
        match spec.validate() {
            Ok(r) => {
                prop_assert!((3..=8).contains(&r.home_lane_cells()));
                prop_assert!(r.max_turns() >= 1 && (1..=4).contains(&r.planes()));
            }
            Err(RulesError::Invalid { .. } | RulesError::UnknownBase(_)) => {}
            Err(other) => prop_assert!(false, "{other:?}"),
        }
    }
}

/// Text shaped like a position, with every field drawn from plausible and implausible values.
fn position_text() -> impl Strategy<Value = String> {
    let step = prop_oneof![
        Just("h".to_string()),
        (0u16..70).prop_map(|s| s.to_string()),
        "[a-z0-9-]{0,3}"
    ];
    let seat = prop_oneof![
        Just("-".to_string()),
        prop::collection::vec(step, 0..6).prop_map(|v| v.join(",")),
    ];
    let small = prop_oneof![
        Just("-".to_string()),
        (0u16..12).prop_map(|s| s.to_string()),
        "[0-9a-z,-]{0,4}"
    ];
    (
        prop::collection::vec(seat, 3..6),
        small.clone(),
        small.clone(),
        small.clone(),
        small.clone(),
        small.clone(),
        small,
        prop_oneof![(0u32..12).prop_map(|s| s.to_string()), "[0-9-]{0,11}"],
    )
        .prop_map(|(seats, a, b, c, d, e, f, g)| {
            format!("{} {a} {b} {c} {d} {e} {f} {g}", seats.join("/"))
        })
}

proptest! {
    #![proptest_config(config(20_000))]

    /// Any string: a typed error naming the field, or a game that prints back as the same
    /// position.
    #[test]
    fn any_string_is_a_position_or_an_error(text in prop_oneof![position_text(), ".{0,80}"], preset in 0usize..3) {
        let rules = Preset::ALL[preset].rules();
        match Game::from_notation(rules, &text) {
            Ok(game) => {
                let again = Game::from_notation(rules, &game.to_string()).unwrap();
                prop_assert_eq!(again, game);
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(!message.is_empty() && message.len() < 400, "{}", message);
            }
        }
    }

    /// Any setup: a typed error, or a game whose setup is the same data.
    #[test]
    fn any_setup_is_a_game_or_an_error(
        players in 0u8..6,
        planes in 0u8..6,
        steps in prop::array::uniform4(prop::array::uniform4(prop_oneof![Just(HANGAR), 0u8..62, any::<u8>()])),
        to_move in 0usize..4,
        roll in prop::option::of(0u8..8),
        sixes in 0u8..4,
        moved in 0u8..32,
        last in 0u8..32,
        ranks in prop::array::uniform4(0u8..5),
        turns in prop_oneof![0u32..3, any::<u32>()],
        preset in 0usize..3,
    ) {
        let rules = Preset::ALL[preset].rules();
        let setup = Setup {
            players, planes, steps, to_move: Seat::ALL[to_move], roll, sixes,
            moved_this_turn: moved, moved_last: last, ranks, turns,
        };
        match setup.into_game(rules) {
            Ok(game) => prop_assert_eq!(Setup::from(&game), setup),
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}

/// Mid-game positions with one field changed: refused with the field named, or still a game.
#[test]
fn damaged_positions_name_their_field() {
    let rules = Preset::Classic.rules();
    let mut checked = 0;
    for i in 0..200u64 {
        let mut g = Game::new(rules, 4).unwrap();
        let mut dice = SeededDice::new(5, i);
        let mut bots: Vec<Box<dyn aeroplane_core::Bot>> = (0..4)
            .map(|_| Box::new(aeroplane_core::Greedy) as Box<dyn aeroplane_core::Bot>)
            .collect();
        // Stop somewhere in the middle.
        let mut rolls = 0;
        while !g.is_over() && rolls < 40 + i {
            let seat = g.to_move();
            let roll = aeroplane_core::Dice::roll(&mut dice, seat).unwrap();
            let moves = g.legal_moves(roll);
            let k = if moves.len() > 1 {
                bots[seat.index()].choose(&g, roll, &moves)
            } else {
                0
            };
            g.play(roll, moves.get(k).copied()).unwrap();
            rolls += 1;
        }
        let base = Setup::from(&g);
        let mut s = base.clone();
        s.turns = rules.max_turns() + 1;
        assert!(matches!(s.into_game(rules), Err(SetupError::Turns { .. })));
        let mut s = base.clone();
        s.planes = 3;
        assert!(matches!(s.into_game(rules), Err(SetupError::Planes { .. })));
        let mut s = base.clone();
        s.steps[1][0] = 200;
        assert!(matches!(
            s.into_game(rules),
            Err(SetupError::Step {
                seat: 1,
                plane: 0,
                ..
            })
        ));
        let mut s = base.clone();
        s.ranks[3] = 7;
        assert!(matches!(s.into_game(rules), Err(SetupError::Ranks { .. })));
        checked += 1;
    }
    assert_eq!(checked, 200);
}
