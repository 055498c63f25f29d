//! A first end-to-end check: every preset and player count plays to the end with both bots.

use aeroplane::{Bot, Game, Greedy, Preset, RandomBot, Seat, SeededDice, play_game};

#[test]
fn every_preset_plays_to_the_end() {
    for preset in Preset::ALL {
        for players in 2..=4 {
            for i in 0..50u64 {
                let mut bots: Vec<Box<dyn Bot>> = (0..players)
                    .map(|k| -> Box<dyn Bot> {
                        if k % 2 == 0 {
                            Box::new(Greedy)
                        } else {
                            Box::new(RandomBot::default())
                        }
                    })
                    .collect();
                for (k, b) in bots.iter_mut().enumerate() {
                    b.new_game(Seat::ALL[k], i);
                }
                let game = Game::new(preset.rules(), players).unwrap();
                let rec = play_game(game, &mut bots, &mut SeededDice::new(9, i), &mut ()).unwrap();
                assert!(!rec.unfinished);
                assert!(rec.winner.is_some());
            }
        }
    }
}
