//! The bots RULES.md defines (greedy priority and every tie-break, random among distinct
//! moves) and the game record's counters on scripted games played through `play_game`.

use crate::common::*;
use aeroplane::bot_stream;
use aeroplane::{
    Bot, Counter, Game, GameRecord, Greedy, Observer, Outcome, RandomBot, Rules, ScriptedDice,
    Seat, play_game,
};

/// The greedy choice for `die` in `start`, shown with [`show`]; checks `pick` and `choose` agree.
#[track_caller]
fn greedy(rules: Rules, players: usize, start: &str, die: u8) -> String {
    let game = position(rules, players, start);
    let list = game.legal_moves(die);
    let k = Greedy::pick(&list);
    assert_eq!(Greedy.choose(&game, die, &list), k);
    show(&list[k])
}

#[test]
fn greedy_capture_beats_jump_and_further_planes() {
    // 3+2 = 5 captures yellow 44; 4+2 = 6 jumps to 10; 30+2 = 32 is plain.
    assert_eq!(greedy(appfree(), 4, "red 3 4 30; yellow 44", 2), "3>5");
}

#[test]
fn greedy_jump_or_flight_beats_launch() {
    assert_eq!(greedy(appfree(), 4, "red 4", 6), "4>14");
    assert_eq!(greedy(appfree(), 4, "red 12", 6), "12>30");
}

#[test]
fn greedy_launch_beats_a_plain_move() {
    assert_eq!(greedy(appfree(), 4, "red 30", 6), "launch");
    assert_eq!(greedy(classic(), 4, "red 50", 2), "launch");
}

#[test]
fn greedy_plain_moves_furthest_plane_first() {
    assert_eq!(greedy(appfree(), 4, "red 3 7 31", 2), "31>33");
    // Lane moves count as furthest along too.
    assert_eq!(greedy(appfree(), 4, "red 50 53 C", 1), "53>54");
}

#[test]
fn greedy_captures_furthest_plane_first() {
    // 5 = yellow 44, 9 = yellow 48.
    assert_eq!(greedy(appfree(), 4, "red 3 7; yellow 44 48", 2), "7>9");
}

#[test]
fn greedy_jumps_furthest_plane_first() {
    assert_eq!(greedy(appfree(), 4, "red 0 4 36", 2), "36>42");
}

#[test]
fn greedy_flies_rather_than_stays() {
    assert_eq!(greedy(classic(), 4, "red 15", 3), "15>30");
    assert_eq!(greedy(classic(), 4, "red 11", 3), "11>30");
    // Both capture at 18 (= yellow 5): still the flight.
    assert_eq!(greedy(classic(), 4, "red 15; yellow 5", 3), "15>30");
}

#[test]
fn greedy_counts_a_crossed_cell_capture_as_a_capture() {
    // Without blue on its 53 the jump from the further plane (39 -> 42 -> 46) wins ...
    assert_eq!(greedy(classic(), 4, "red 15 39", 3), "39>46");
    // ... with it, the flight captures and beats it.
    assert_eq!(greedy(classic(), 4, "red 15 39; blue 53", 3), "15>30");
}

#[test]
fn greedy_key_orders_the_categories() {
    let game = position(appfree(), 4, "red 3 4 30; yellow 44");
    let list = game.legal_moves(2);
    let keys: Vec<_> = list.iter().map(Greedy::key).collect();
    assert!(keys[0] < keys[1] && keys[1] < keys[2], "{keys:?}");
}

#[test]
fn random_bot_picks_uniformly_among_distinct_moves() {
    // Three planes but two of them alike, plus a launch: three distinct moves.
    let game = position(appfree(), 4, "red 3 3 7");
    let list = game.legal_moves(6);
    assert_eq!(moves(&game, 6), ["launch", "3>9", "7>13"]);
    let mut counts = [0u32; 3];
    let mut bot = RandomBot::default();
    for g in 0..900 {
        bot.new_game(RED, bot_stream(11, g, RED));
        let k = bot.choose(&game, 6, &list);
        counts[k] += 1;
    }
    // Fixed seeds: this is deterministic; 4 standard deviations around 300.
    assert!(
        counts.iter().all(|&c| (240..=360).contains(&c)),
        "{counts:?}"
    );
}

#[test]
fn random_bot_with_one_choice_takes_it() {
    let game = position(appfree(), 4, "red 3 3 3");
    let list = game.legal_moves(2);
    assert_eq!(list.len(), 1);
    let mut bot = RandomBot::default();
    for g in 0..20 {
        bot.new_game(RED, g);
        assert_eq!(bot.choose(&game, 2, &list), 0);
    }
}

// ---------------------------------------------------------------------------------------------
// Record counters on scripted games
// ---------------------------------------------------------------------------------------------

fn greedy_bots(n: usize) -> Vec<Box<dyn Bot>> {
    (0..n).map(|_| Box::new(Greedy) as Box<dyn Bot>).collect()
}

/// Counts punished sixes (a record keeps only the planes they sent back).
#[derive(Default)]
struct Punished(u32);
impl Observer for Punished {
    fn on_roll(&mut self, _before: &Game, o: &Outcome) {
        if matches!(o.action, aeroplane::Action::Penalty { .. }) {
            self.0 += 1;
        }
    }
}

/// The counters as one comparable array, in [`Counter::ALL`] order:
/// (turns, rolls, moves, launches, captures, penalties, jumps, flights, bounces, passes).
fn counters(r: &GameRecord) -> [u32; 10] {
    Counter::ALL.map(|c| r.counters[c])
}

#[test]
fn record_counts_a_scripted_appfreegame_game_until_the_dice_run_out() {
    // red: 6 launch, 6 jump 0->6->10, 6 punished (the plane at 10 goes back); blue 3 pass;
    // red 5 pass; blue 6 launch, 4 to 4; red 6 launch, 4 to 4.
    let game = Game::new(appfree(), 2).unwrap();
    let mut dice = ScriptedDice::new(vec![6, 6, 6, 3, 5, 6, 4, 6, 4]);
    let mut punished = Punished::default();
    let err = play_game(game, &mut greedy_bots(2), &mut dice, &mut punished).unwrap_err();
    let r = err.record;
    assert_eq!(counters(&r), [5, 9, 6, 3, 0, 1, 1, 0, 0, 2]);
    assert_eq!(punished.0, 1);
    let n = |c: Counter| r.counters[c];
    assert_eq!(
        n(Counter::Rolls),
        n(Counter::Moves) + n(Counter::Passes) + punished.0
    );
    assert!(!r.unfinished);
    assert_eq!(r.winner, None);
    assert_eq!(r.final_steps[0], [4, H, H, H]);
    assert_eq!(r.final_steps[2], [4, H, H, H]);
    assert_eq!(err.game.to_move(), BLUE);
}

#[test]
fn record_counts_a_scripted_chinese_game_to_its_end() {
    // red 3: 15->18 flies (crossed capture of blue 53) ->30 ->34; blue 6 launch, 1 to 1;
    // red 4: 34->38->42 jump; blue 2; red 3: 54 bounces to 55 (furthest plane); blue 1;
    // red 1: 55 home; blue 5; red 4: 42->46->50 jump; blue 3; red 6: 50 home, red done.
    let game = position(chinese(), 2, "red 15 54 C C; blue 53");
    let mut dice = ScriptedDice::new(vec![3, 6, 1, 4, 2, 3, 1, 1, 5, 4, 3, 6]);
    let r = play_game(game, &mut greedy_bots(2), &mut dice, &mut ()).unwrap();
    assert_eq!(counters(&r), [11, 12, 12, 1, 1, 0, 3, 1, 1, 0]);
    assert_eq!(dice.remaining(), 0);
    assert!(!r.unfinished);
    assert_eq!(r.winner, Some(RED));
    assert_eq!(r.ranks, [1, 0, 2, 0]);
    assert_eq!(r.final_steps[0], [56; 4]);
    assert_eq!(r.final_steps[2], [12, H, H, H]);
}

#[test]
fn record_counts_stacks_crossed_captures_and_all_moved_penalties() {
    // classic 2p (launch 2/4/6, centre 56, stack, crossed on, all_moved):
    // red 4 launch (stack at 0); blue 5 pass; red 6 stack 0->6->10, 6 stack 10->16,
    // 2 stack 16->18 flies (crossed: blue 53) ->30; blue 4 launch; red 1 stack 30->31;
    // blue 5: 0->5 captures the stack (2); red 4 launch; blue 6 launch, 6 0->6->10,
    // 6 punished: the plane launched and moved this turn goes back, the one at 5 stays.
    let game = position(classic(), 2, "red 0 H C C; blue 53 H C C");
    let mut dice = ScriptedDice::new(vec![4, 5, 6, 6, 2, 4, 1, 5, 4, 6, 6, 6]);
    let err = play_game(game, &mut greedy_bots(2), &mut dice, &mut ()).unwrap_err();
    let r = err.record;
    assert_eq!(counters(&r), [8, 12, 10, 4, 3, 1, 2, 1, 0, 1]);
    let mut red = r.final_steps[0];
    let mut blue = r.final_steps[2];
    red.sort_unstable();
    blue.sort_unstable();
    assert_eq!(red, [0, 56, 56, H]);
    assert_eq!(blue, [5, 56, 56, H]);
}

#[test]
fn record_counts_max_turns_as_unfinished() {
    let rules = variant(appfree(), |b| b.max_turns(3));
    let game = Game::new(rules, 4).unwrap();
    let mut dice = ScriptedDice::new(vec![6, 6, 1, 2, 3, 4, 5]);
    let r = play_game(game, &mut greedy_bots(4), &mut dice, &mut ()).unwrap();
    assert!(r.unfinished);
    assert_eq!(
        (
            r.counters[Counter::Turns],
            r.counters[Counter::Rolls],
            r.winner
        ),
        (3, 5, None)
    );
    assert_eq!(r.ranks, [0; 4]);
    assert_eq!(dice.remaining(), 2);
}

#[test]
fn record_seats_follow_the_lineup() {
    // bots[k] plays game.seats()[k]: in a 2-player game the second bot is blue.
    let game = Game::new(appfree(), 2).unwrap();
    assert_eq!(game.seats(), [Seat::ALL[0], Seat::ALL[2]]);
    let mut dice = ScriptedDice::new(vec![1, 6, 1]);
    let err = play_game(game, &mut greedy_bots(2), &mut dice, &mut ()).unwrap_err();
    assert_eq!(err.record.final_steps[2], [1, H, H, H]);
}
