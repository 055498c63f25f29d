//! The OpenSpiel-shaped state API against the fast path, and positions through every form they
//! take (notation, `Setup`, serde), over many seeded games.

use aeroplane_core::{
    Action, ActionId, Game, Greedy, NUM_ACTIONS, Observer, Outcome, Player, Preset, RandomBot,
    RuleOption, Rules, Seat, SeededDice, Setting, Setup, bot_stream, play_game,
};
use aeroplane_core::{Bot, GameRecord};

/// Every roll of a game as the fast path played it.
#[derive(Default)]
struct Log(Vec<(Game, Outcome)>);

impl Observer for Log {
    fn on_roll(&mut self, before: &Game, outcome: &Outcome) {
        self.0.push((*before, *outcome));
    }
}

/// Plays game `index` of seed `seed` on the fast path with random bots.
fn fast_game(rules: Rules, players: usize, seed: u64, index: u64) -> (GameRecord, Log) {
    let game = Game::new(rules, players).unwrap();
    let mut bots: Vec<Box<dyn Bot>> = game
        .seats()
        .iter()
        .map(|&s| {
            let mut b = RandomBot::default();
            b.new_game(s, bot_stream(seed, index, s));
            Box::new(b) as Box<dyn Bot>
        })
        .collect();
    let mut log = Log::default();
    let record = play_game(game, &mut bots, &mut SeededDice::new(seed, index), &mut log).unwrap();
    (record, log)
}

fn variants() -> Vec<(Rules, usize)> {
    let mut v = Vec::new();
    for p in Preset::ALL {
        for players in 2..=4 {
            v.push((p.rules(), players));
        }
    }
    v
}

/// Replays a fast-path game through the state API, step by step, and checks that both agree
/// on every move, outcome and position.
fn replay_through_the_state_api(rules: Rules, players: usize, log: &Log) -> Game {
    let mut g = Game::new(rules, players).unwrap();
    for (before, outcome) in &log.0 {
        assert_eq!(&g, before);
        assert_eq!(g.current_player(), Player::Chance);
        let fast = before.legal_moves(outcome.roll);
        match g.apply_roll(outcome.roll).unwrap() {
            Some(played) => {
                assert!(fast.is_empty());
                assert_eq!(&played, outcome);
            }
            None => {
                assert_eq!(g.current_player(), Player::Seat(before.to_move()));
                let ids: Vec<usize> = fast.iter().map(|m| ActionId::of_move(m).index()).collect();
                let mut sorted = ids.clone();
                sorted.sort_unstable();
                sorted.dedup();
                assert_eq!(sorted.len(), fast.len(), "action ids are distinct");
                let legal: Vec<usize> = g.legal_actions().iter().map(ActionId::index).collect();
                assert_eq!(legal, sorted, "legal actions ascending");
                let mask = g.legal_actions_mask();
                assert_eq!(mask.iter().filter(|&&b| b).count(), fast.len());
                let Action::Move(m) = outcome.action else {
                    panic!("a choice made no move")
                };
                let id = ActionId::of_move(&m);
                assert_eq!(g.action_move(id), Some(m));
                assert_eq!(&g.apply_action(id.index() as u32).unwrap(), outcome);
            }
        }
    }
    g
}

#[test]
fn the_state_api_and_the_fast_path_agree_on_100000_games() {
    let v = variants();
    for i in 0..100_000u64 {
        let (rules, players) = v[(i % v.len() as u64) as usize];
        let (record, log) = fast_game(rules, players, 7, i);
        let end = replay_through_the_state_api(rules, players, &log);
        assert!(end.is_terminal());
        assert_eq!(end.current_player(), Player::Terminal);
        let mut closed = GameRecord::new(players);
        closed.close(&end);
        assert_eq!(closed.winner, record.winner);
        assert_eq!(closed.ranks, record.ranks);
        let returns = end.returns();
        assert!(returns.iter().sum::<f64>().abs() < 1e-12, "{returns:?}");
        if let Some(w) = record.winner {
            assert_eq!(returns[w.index()], 1.0);
        }
    }
}

/// Every form of one position gives the same game back.
fn round_trips(g: &Game) {
    let rules = *g.rules();
    let text = g.to_string();
    assert_eq!(Game::from_notation(rules, &text).as_ref(), Ok(g), "{text}");
    let setup = Setup::from(g);
    assert_eq!(setup.to_string(), text);
    assert_eq!(text.parse::<Setup>().as_ref(), Ok(&setup));
    assert_eq!(setup.into_game(rules).as_ref(), Ok(g));
    #[cfg(feature = "serde")]
    {
        let json = serde_json::to_string(g).unwrap();
        assert_eq!(serde_json::from_str::<Game>(&json).unwrap(), *g, "{json}");
        let json = serde_json::to_string(&setup).unwrap();
        assert_eq!(serde_json::from_str::<Setup>(&json).unwrap(), setup);
    }
}

#[test]
fn every_position_of_10000_games_round_trips() {
    let mut v = variants();
    // And the small variants: 1 to 3 planes.
    for planes in 1..=3 {
        let rules = Preset::Classic
            .rules()
            .with(Setting::integer(RuleOption::Planes, planes).unwrap());
        v.push((rules, 2));
        v.push((rules, 4));
    }
    let mut positions = 0u64;
    for i in 0..10_000u64 {
        let (rules, players) = v[(i % v.len() as u64) as usize];
        #[cfg(feature = "serde")]
        {
            let json = serde_json::to_string(&rules).unwrap();
            assert_eq!(serde_json::from_str::<Rules>(&json).unwrap(), rules);
        }
        let (_, log) = fast_game(rules, players, 11, i);
        for (before, outcome) in &log.0 {
            round_trips(before);
            // The decision node of the same roll, where there is one.
            let mut decision = *before;
            if decision.apply_roll(outcome.roll).unwrap().is_none() {
                round_trips(&decision);
            }
            positions += 1;
        }
        let mut end = log.0.last().unwrap().0;
        end.play(
            log.0.last().unwrap().1.roll,
            match log.0.last().unwrap().1.action {
                Action::Move(m) => Some(m),
                _ => None,
            },
        )
        .unwrap();
        round_trips(&end);
    }
    assert!(positions > 1_000_000, "{positions}");
}

#[test]
fn returns_follow_the_ranks() {
    // A 4-player full ranking: 1, 1/3, -1/3, -1; first finisher: 1 and -1/3 each.
    let full = Preset::Classic.rules();
    let first = Preset::AppFreeGame.rules();
    let mut dice = SeededDice::new(3, 0);
    for (rules, expect) in [
        (full, vec![1.0, 1.0 / 3.0, -1.0 / 3.0, -1.0]),
        (first, vec![1.0, -1.0 / 3.0, -1.0 / 3.0, -1.0 / 3.0]),
    ] {
        let g = Game::new(rules, 4).unwrap();
        let mut bots: Vec<Box<dyn Bot>> =
            (0..4).map(|_| Box::new(Greedy) as Box<dyn Bot>).collect();
        let mut log = Log::default();
        let record = play_game(g, &mut bots, &mut dice, &mut log).unwrap();
        let (before, outcome) = log.0.last().unwrap();
        let mut end = *before;
        let Action::Move(m) = outcome.action else {
            panic!()
        };
        end.play(outcome.roll, Some(m)).unwrap();
        let mut got: Vec<(u8, f64)> = Seat::ALL
            .iter()
            .map(|&s| {
                (
                    if record.ranks[s.index()] == 0 {
                        9
                    } else {
                        record.ranks[s.index()]
                    },
                    end.returns()[s.index()],
                )
            })
            .collect();
        got.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let values: Vec<f64> = got.iter().map(|x| x.1).collect();
        for (a, b) in values.iter().zip(&expect) {
            assert!((a - b).abs() < 1e-12, "{values:?} {expect:?}");
        }
    }
    // Not over: all zero.
    assert_eq!(Game::new(full, 3).unwrap().returns(), [0.0; 4]);
}

#[test]
fn chance_and_decision_nodes() {
    let mut g = Game::new(Preset::AppFreeGame.rules(), 2).unwrap();
    assert!(g.is_chance_node());
    let outcomes = g.chance_outcomes();
    assert_eq!(
        outcomes.iter().map(|o| o.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5, 6]
    );
    assert!((outcomes.iter().map(|o| o.1).sum::<f64>() - 1.0).abs() < 1e-12);
    // A 1 cannot launch: played at once as a pass, seat 2 rolls next.
    let pass = g.apply_roll(1).unwrap().unwrap();
    assert_eq!(pass.action, Action::Pass);
    assert_eq!(g.current_player(), Player::Chance);
    assert_eq!(g.to_move(), Seat::ALL[2]);
    // A 6 launches: one action, plane 0.
    assert_eq!(g.apply_roll(6).unwrap(), None);
    assert_eq!(g.current_player(), Player::Seat(Seat::ALL[2]));
    assert_eq!(g.legal_actions().as_slice(), [0]);
    assert_eq!(g.action_to_string(ActionId::new(0).unwrap()), "p0 launch");
    assert_eq!(g.action_to_string(ActionId::new(5).unwrap()), "p1:stay");
    assert!(g.chance_outcomes().is_empty());
    assert!(g.apply_roll(3).is_err(), "a roll at a decision node");
    let e = g.apply_action(3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "action 3 is not legal here: legal actions are 0"
    );
    assert!(g.apply_action(NUM_ACTIONS as u32).is_err());
    g.apply_action(0).unwrap();
    // The six gives another roll.
    assert_eq!(g.current_player(), Player::Chance);
    assert_eq!(g.to_move(), Seat::ALL[2]);
    assert!(g.apply_action(0).is_err(), "an action at a chance node");
    assert!(g.apply_roll(0).is_err() && g.apply_roll(7).is_err());
}

#[test]
fn a_three_sixes_penalty_is_played_by_the_roll() {
    let mut g = Game::new(Preset::AppFreeGame.rules(), 2).unwrap();
    for _ in 0..2 {
        assert_eq!(g.apply_roll(6).unwrap(), None);
        let a = g.legal_actions().iter().next().unwrap();
        g.apply_action(a.index() as u32).unwrap();
    }
    let out = g.apply_roll(6).unwrap().unwrap();
    assert!(matches!(out.action, Action::Penalty { .. }));
    assert_eq!(g.to_move(), Seat::ALL[2]);
}
