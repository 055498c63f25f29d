//! Property tests over random seeds x presets (and random rule variants) x 2/3/4 players x
//! random/greedy bots. Every roll of every game is checked by an [`Observer`] that re-derives
//! it from the position before: the listed moves are distinct and each applies through the
//! checked `Game::play`, every plane change is accounted for, steps stay valid; the game
//! record must agree with the log the observer keeps.

use crate::{common, reference};

use aeroplane::bot_stream;
use aeroplane::{
    Action, Bot, Counter, Counters, End, Game, GameRecord, Greedy, HANGAR, Move, Observer, Outcome,
    Overshoot, Preset, RandomBot, RuleOption, Rules, ScriptedDice, Seat, SeededDice, Setting,
    Specials, Stacking, ThreeSixes, play_game,
};
use proptest::prelude::*;

const CROSSED_STEP: u8 = 53;

/// What the observer counts from the log, to compare with the record.
#[derive(Default, Debug, PartialEq, Eq)]
struct Log {
    counts: Counters,
    punished: u32,
    dice: Vec<u8>,
}

/// Checks every roll against the position before it, and keeps the log.
#[derive(Default)]
struct Checker {
    log: Log,
    /// Own planes moved this turn (bit set), and by the most recent move this turn.
    moved_turn: u8,
    moved_last: u8,
}

impl Checker {
    fn check_move_effect(before: &Game, roll: u8, m: &Move) {
        let seat = before.to_move();
        let rules = before.rules();
        let centre = rules.centre();
        let mine = before.steps(seat);
        let mut after = *before;
        let out = after
            .play(roll, Some(*m))
            .unwrap_or_else(|e| panic!("listed move {m} refused: {e} in {before:?}"));
        assert_eq!(out.action, Action::Move(*m));
        // The moved planes all stood on the start step and end on the target.
        assert!(m.planes() != 0 && m.planes() < 16);
        for (i, &s) in mine.iter().enumerate() {
            let moved = m.planes() & (1 << i) != 0;
            if moved {
                assert_eq!(s, m.from(), "moved plane {i} was not on {}", m.from());
                assert_eq!(after.steps(seat)[i], m.to());
            } else {
                assert_eq!(after.steps(seat)[i], s, "unmoved own plane {i} changed");
            }
        }
        let alike = mine.iter().filter(|&&s| s == m.from()).count() as u32;
        if m.is_launch() {
            assert_eq!((m.plane_count(), m.to()), (1, 0));
            assert!(rules.launch_rolls().contains(roll));
        } else if rules.stacking() == Stacking::None {
            assert_eq!(m.plane_count(), 1);
        } else {
            assert_eq!(m.plane_count(), alike, "a stack moves whole");
        }
        assert!(m.to() <= centre, "no plane passes the centre");
        if !m.is_launch() {
            let t = m.from() + roll;
            assert_eq!(m.bounces(), t > centre);
            if t > centre {
                assert_eq!(rules.overshoot(), Overshoot::Bounce, "overshoot is illegal");
            }
            assert_eq!(m.finishes(), m.to() == centre);
        }
        assert!(!(m.stays() && m.flies()));
        if m.stays() {
            assert!(rules.flight_optional());
            assert_eq!(m.to(), 18);
        }
        if m.jumps() && m.flies() {
            assert_ne!(rules.specials(), Specials::One);
        }
        // Opponents: exactly the captured planes go to their hangars, from a ring cell or
        // (crossed cell) from the opposite colour's step 53.
        for &other in before.seats() {
            if other == seat {
                continue;
            }
            for i in 0..4 {
                let s = before.steps(other)[i];
                let bit = 1u16 << (4 * other.index() + i);
                if m.captured() & bit != 0 {
                    assert_eq!(after.steps(other)[i], HANGAR);
                    let crossed = s == CROSSED_STEP
                        && other.index() == (seat.index() + 2) % 4
                        && rules.flight_captures_crossed()
                        && m.flies();
                    assert!((1..=50).contains(&s) || crossed, "captured from step {s}");
                } else {
                    assert_eq!(after.steps(other)[i], s, "uncaptured opponent changed");
                }
            }
        }
        assert_eq!(
            (m.captured() >> (4 * seat.index())) & 0xF,
            0,
            "own plane captured"
        );
        check_position(&after);
    }
}

/// Steps valid for every seat; seats not in play empty.
fn check_position(game: &Game) {
    let centre = game.rules().centre();
    for s in Seat::ALL {
        for p in game.steps(s) {
            if game.in_play(s) {
                assert!(p == HANGAR || p <= centre, "step {p} of seat {s}");
            } else {
                assert_eq!(p, HANGAR);
            }
        }
        if game.in_play(s) {
            assert_eq!(
                game.has_finished(s),
                game.planes_home(s) == usize::from(game.rules().planes())
            );
        }
    }
}

impl Observer for Checker {
    fn on_roll(&mut self, before: &Game, o: &Outcome) {
        assert!(!before.is_over());
        assert_eq!(o.seat, before.to_move());
        let list = before.legal_moves(o.roll);
        // The independent model of RULES.md lists the same moves with the same effects.
        let engine: Vec<_> = list.iter().map(reference::RefMove::of).collect();
        assert_eq!(
            engine,
            reference::legal_moves(before, o.roll),
            "roll {} in {before:?}",
            o.roll
        );
        // Distinct choices: no two moves with the same start step and fly/stay choice.
        for (a, m) in list.iter().enumerate() {
            for n in &list[a + 1..] {
                assert!(
                    (m.from(), m.stays()) != (n.from(), n.stays()),
                    "duplicate moves {m} and {n}"
                );
            }
            Self::check_move_effect(before, o.roll, m);
        }
        // The outcome is what the checked play of the same choice gives.
        let choice = match o.action {
            Action::Move(m) => Some(m),
            _ => None,
        };
        let mut after = *before;
        assert_eq!(after.play(o.roll, choice), Ok(*o));
        check_position(&after);
        // Planes at the centre stay there.
        let centre = before.rules().centre();
        for &s in before.seats() {
            for (b, a) in before.steps(s).iter().zip(after.steps(s)) {
                if *b == centre {
                    assert_eq!(a, centre);
                }
            }
        }
        let log = &mut self.log;
        let n = &mut log.counts;
        n.add(Counter::Rolls, 1);
        log.dice.push(o.roll);
        n.add(Counter::Turns, u32::from(o.new_turn));
        match o.action {
            Action::Pass => {
                assert!(list.is_empty() && !before.is_punished(o.roll));
                n.add(Counter::Passes, 1);
            }
            Action::Penalty { planes } => {
                assert!(list.is_empty() && before.is_punished(o.roll));
                let centre = before.rules().centre();
                let mask = match before.rules().three_sixes() {
                    ThreeSixes::LastMoved => self.moved_last,
                    _ => self.moved_turn,
                };
                let mut expect = 0u8;
                for (i, &s) in before.steps(o.seat).iter().enumerate() {
                    if mask & (1 << i) != 0 && s != centre && s != HANGAR {
                        expect |= 1 << i;
                    }
                }
                assert_eq!(planes, expect, "planes sent back by the third six");
                assert_eq!(before.sixes_this_turn(), 2);
                assert!(o.turn_over);
                log.punished += 1;
                n.add(Counter::Penalties, planes.count_ones());
                for i in 0..4 {
                    if planes & (1 << i) != 0 {
                        assert_eq!(after.steps(o.seat)[i], HANGAR);
                    }
                }
            }
            Action::Move(m) => {
                assert!(list.contains(&m));
                self.moved_turn |= m.planes();
                self.moved_last = m.planes();
                n.add(Counter::Moves, 1);
                n.add(Counter::Launches, u32::from(m.is_launch()));
                n.add(Counter::Captures, m.captures());
                n.add(Counter::Jumps, u32::from(m.jumps()));
                n.add(Counter::Flights, u32::from(m.flies()));
                n.add(Counter::Bounces, u32::from(m.bounces()));
            }
        }
        // Turn flow: a non-six always ends the turn; a six ends it only by penalty, by
        // finishing, or by the game ending.
        if o.roll != 6 {
            assert!(o.turn_over);
        } else if o.turn_over {
            assert!(
                matches!(o.action, Action::Penalty { .. }) || o.seat_finished || after.is_over()
            );
        }
        if !o.turn_over {
            assert_eq!(after.to_move(), o.seat);
        } else {
            self.moved_turn = 0;
            self.moved_last = 0;
            if !after.is_over() {
                // The next seat clockwise that is in play and not finished.
                let next = (1..=4)
                    .map(|k| Seat::ALL[(o.seat.index() + k) % 4])
                    .find(|&s| after.in_play(s) && !after.has_finished(s))
                    .unwrap();
                assert_eq!(after.to_move(), next);
            }
        }
    }
}

fn bots_for(mask: u8, players: usize, seed: u64, index: u64, game: &Game) -> Vec<Box<dyn Bot>> {
    game.seats()
        .iter()
        .take(players)
        .enumerate()
        .map(|(k, &seat)| {
            let mut b: Box<dyn Bot> = if mask & (1 << k) != 0 {
                Box::new(Greedy)
            } else {
                Box::new(RandomBot::default())
            };
            b.new_game(seat, bot_stream(seed, index, seat));
            b
        })
        .collect()
}

/// Plays one checked game and returns its record and log.
fn checked_game(
    rules: Rules,
    players: usize,
    seed: u64,
    index: u64,
    mask: u8,
) -> (GameRecord, Log) {
    let game = Game::new(rules, players).unwrap();
    let mut bots = bots_for(mask, players, seed, index, &game);
    let mut checker = Checker::default();
    let record = play_game(
        game,
        &mut bots,
        &mut SeededDice::new(seed, index),
        &mut checker,
    )
    .expect("seeded dice never run out");
    check_record(&record, &checker.log, &rules, players);
    (record, checker.log)
}

fn check_record(r: &GameRecord, log: &Log, rules: &Rules, players: usize) {
    assert_eq!(r.counters, log.counts);
    let n = |c: Counter| r.counters[c];
    let moves = n(Counter::Moves);
    assert_eq!(n(Counter::Rolls), moves + n(Counter::Passes) + log.punished);
    assert!(n(Counter::Launches) <= moves && n(Counter::Jumps) <= moves);
    assert!(n(Counter::Flights) <= moves && n(Counter::Bounces) <= moves);
    if rules.three_sixes() == ThreeSixes::None {
        assert_eq!((log.punished, n(Counter::Penalties)), (0, 0));
    }
    if rules.overshoot() == Overshoot::Illegal {
        assert_eq!(n(Counter::Bounces), 0);
    }
    assert!(n(Counter::Turns) <= rules.max_turns());
    assert_eq!(usize::from(r.players), players);
    let seats = Seat::in_play(players);
    let centre = rules.centre();
    let home = |s: Seat| r.final_steps[s.index()].iter().all(|&p| p == centre);
    if r.unfinished {
        // Stopped by max_turns: only seats that already brought every plane home have a rank
        // (with full_ranking a rank-1 seat may exist before the game stops).
        assert_eq!(n(Counter::Turns), rules.max_turns());
        for &s in seats {
            assert_eq!(r.ranks[s.index()] != 0, home(s), "seat {s}");
        }
        assert_eq!(r.winner.map(|w| r.ranks[w.index()]), r.winner.map(|_| 1));
        return;
    }
    let winner = r.winner.expect("a finished game has a winner");
    assert!(home(winner));
    assert_eq!(r.ranks[winner.index()], 1);
    let mut ranks: Vec<u8> = seats.iter().map(|s| r.ranks[s.index()]).collect();
    ranks.sort_unstable();
    let full = rules.end() == End::FullRanking || players == 2;
    if full {
        assert_eq!(ranks, (1..=players as u8).collect::<Vec<_>>());
        // Everyone but the last has every plane home.
        for &s in seats {
            assert_eq!(home(s), r.ranks[s.index()] < players as u8, "seat {s}");
        }
    } else {
        assert_eq!(ranks.iter().filter(|&&x| x != 0).count(), 1);
        for &s in seats {
            if s != winner {
                assert!(!home(s));
            }
        }
    }
    for s in Seat::ALL {
        if !seats.contains(&s) {
            assert_eq!(r.ranks[s.index()], 0);
            assert_eq!(r.final_steps[s.index()], [HANGAR; 4]);
        }
    }
}

fn any_preset() -> impl Strategy<Value = Preset> {
    prop::sample::select(Preset::ALL.to_vec())
}

/// Any valid combination of options.
fn any_rules() -> impl Strategy<Value = Rules> {
    (
        1u8..64,
        3u8..=8,
        any::<bool>(),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        1i64..=4,
    )
        .prop_map(
            |(faces, lane, bounce, sp, opt, crossed, six, stack, full, planes)| {
                let faces: Vec<u8> = (1..=6).filter(|d| faces & (1 << (d - 1)) != 0).collect();
                Rules::builder()
                    .launch_rolls(&faces.iter().map(|&f| i64::from(f)).collect::<Vec<_>>())
                    .home_lane_cells(lane.into())
                    .overshoot(if bounce {
                        Overshoot::Bounce
                    } else {
                        Overshoot::Illegal
                    })
                    .specials([Specials::One, Specials::JumpThenFlight, Specials::Both][sp])
                    .flight_optional(opt)
                    .flight_captures_crossed(crossed)
                    .three_sixes(
                        [
                            ThreeSixes::None,
                            ThreeSixes::LastMoved,
                            ThreeSixes::AllMoved,
                        ][six],
                    )
                    .stacking(if stack {
                        Stacking::MoveTogether
                    } else {
                        Stacking::None
                    })
                    .end(if full {
                        End::FullRanking
                    } else {
                        End::FirstFinisher
                    })
                    .max_turns(10_000)
                    .planes(planes)
                    .build()
                    .unwrap()
            },
        )
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(128))]

    /// Presets: every roll checked, counters match the log, and the game ends before max_turns.
    #[test]
    fn presets_play_legally_and_end(
        seed in any::<u64>(),
        index in 0u64..1_000_000,
        preset in any_preset(),
        players in 2usize..=4,
        mask in 0u8..16,
    ) {
        for i in index..index + 4 {
            let (record, _) = checked_game(preset.rules(), players, seed, i, mask);
            prop_assert!(!record.unfinished, "max_turns fired in preset {}", preset.name());
        }
    }

    /// Any valid variant: every roll checked and counters match the log (a variant may hit a
    /// small max_turns, which must then be recorded as unfinished).
    #[test]
    fn variants_play_legally(
        rules in any_rules(),
        max_turns in prop::sample::select(vec![1u32, 7, 40, 10_000]),
        seed in any::<u64>(),
        players in 2usize..=4,
        mask in 0u8..16,
    ) {
        let rules = rules.with(Setting::integer(RuleOption::MaxTurns, max_turns.into()).unwrap());
        for i in 0..4 {
            let (record, _) = checked_game(rules, players, seed, i, mask);
            if max_turns == 10_000 {
                prop_assert!(!record.unfinished);
            }
        }
    }

    /// A seeded greedy game's dice, replayed through ScriptedDice, give the same record and use
    /// every roll.
    #[test]
    fn greedy_games_replay_from_their_dice(
        seed in any::<u64>(),
        index in 0u64..1_000_000,
        rules in prop_oneof![any_preset().prop_map(|p| p.rules()), any_rules()],
        players in 2usize..=4,
    ) {
        let (record, log) = checked_game(rules, players, seed, index, 0b1111);
        let game = Game::new(rules, players).unwrap();
        let mut bots: Vec<Box<dyn Bot>> =
            (0..players).map(|_| Box::new(Greedy) as Box<dyn Bot>).collect();
        let mut dice = ScriptedDice::new(log.dice.clone());
        let replay = play_game(game, &mut bots, &mut dice, &mut ()).unwrap();
        prop_assert_eq!(replay, record);
        prop_assert_eq!(dice.remaining(), 0);
    }

    /// With 2 players the two `end` modes play identically.
    #[test]
    fn two_players_end_modes_identical(
        seed in any::<u64>(),
        rules in prop_oneof![any_preset().prop_map(|p| p.rules()), any_rules()],
        mask in 0u8..4,
    ) {
        let first = rules.with(End::FirstFinisher.into());
        let full = rules.with(End::FullRanking.into());
        let (a, _) = checked_game(first, 2, seed, 1, mask);
        let (b, _) = checked_game(full, 2, seed, 1, mask);
        prop_assert_eq!(a, b);
    }
}

/// The words of RULES.md for each option of `r`, in the presets table's order.
fn words(r: &Rules) -> [String; 10] {
    let w = |v: &dyn std::fmt::Debug| {
        let s = format!("{v:?}");
        // CamelCase -> snake_case.
        let mut out = String::new();
        for (i, ch) in s.chars().enumerate() {
            if ch.is_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        }
        out
    };
    [
        format!("{:?}", r.launch_rolls().faces()),
        r.home_lane_cells().to_string(),
        w(&r.overshoot()),
        w(&r.specials()),
        r.flight_optional().to_string(),
        r.flight_captures_crossed().to_string(),
        w(&r.three_sixes()),
        w(&r.stacking()),
        w(&r.end()),
        r.max_turns().to_string(),
    ]
}

proptest! {
    #![proptest_config(config(256))]

    /// Every option of any variant shows in the engine's behaviour on probe positions.
    #[test]
    fn every_option_value_changes_behaviour(rules in any_rules()) {
        // The probes need four planes (stacks, several planes to move).
        let rules = rules.with(Setting::integer(RuleOption::Planes, 4).unwrap());
        prop_assert_eq!(common::behaviour(rules), words(&rules));
    }
}
