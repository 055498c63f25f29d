//! The random bot: uniform among the distinct legal moves.

use rand_pcg::Pcg32;

use crate::board::{HANGAR, Seat, TAKE_OFF};
use crate::bot::{Bot, Inline};
use crate::dice::below;
use crate::game::{Game, match_mask, movable_steps};
use crate::kernel::Kernel;
use crate::moves::{Move, flag};

/// Picks uniformly among the distinct legal moves, from its own seeded generator.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: Pcg32,
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot {
            rng: Pcg32::new(0, 0),
        }
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    fn new_game(&mut self, _seat: Seat, seed: u64) {
        self.rng = Pcg32::new(seed, crate::dice::splitmix64(seed));
    }

    fn inline(&mut self) -> Option<Inline<'_>> {
        Some(Inline::Random(&mut self.rng))
    }

    fn generator(&mut self) -> Option<&mut Pcg32> {
        Some(&mut self.rng)
    }

    #[inline]
    fn choose(&mut self, _game: &Game, _roll: u8, moves: &[Move]) -> usize {
        if moves.len() == 1 {
            0
        } else {
            below(&mut self.rng, moves.len() as u32) as usize
        }
    }
}

impl Game {
    /// The move [`RandomBot`] picks for `roll` with generator `rng` (`None` for a pass), found
    /// without listing the moves: the driver's loop plays a random seat this way.
    ///
    /// The bot takes move `k = below(rng, n)` of the `n` legal moves in canonical order (and
    /// draws nothing when `n` is 0 or 1). `n` comes from bit sets over the starting steps: a
    /// launch, one move per movable step the roll keeps within the board (every one, where
    /// planes bounce), one more per step that offers to stay on the flight cell. Then only
    /// move `k` is built: the launch, or the step whose moves hold position `k` in ascending
    /// order, flying before staying. Debug builds check every answer, and the generator's
    /// state after it, against [`RandomBot::choose`] over the list.
    #[inline(always)]
    pub(crate) fn random_move<K: Kernel>(&self, roll: u8, rng: &mut Pcg32) -> Option<Move> {
        #[cfg(debug_assertions)]
        let (listed, listed_rng) = {
            let moves = self.legal_moves(roll);
            let mut bot = RandomBot { rng: rng.clone() };
            let k = (moves.len() >= 2).then(|| bot.choose(self, roll, &moves));
            ((!moves.is_empty()).then(|| moves[k.unwrap_or(0)]), bot.rng)
        };
        let choice = self.random_move_unchecked::<K>(roll, rng);
        #[cfg(debug_assertions)]
        {
            debug_assert_eq!(choice, listed, "random move for roll {roll} in {self:?}");
            debug_assert!(
                *rng == listed_rng,
                "random draws for roll {roll} in {self:?}"
            );
        }
        choice
    }

    #[inline(always)]
    fn random_move_unchecked<K: Kernel>(&self, roll: u8, rng: &mut Pcg32) -> Option<Move> {
        if self.punished::<K>(roll) {
            return None;
        }
        let rules = &self.rules;
        let seat = self.to_move;
        let mine = self.steps[seat.index()];
        let centre = rules.centre();
        let at = movable_steps(mine, centre);
        let in_hangar = match_mask(mine, HANGAR);
        let launch = rules.launch_rolls.contains(roll) && in_hangar != 0;
        // Steps s with s + roll <= centre; the others bounce, or have no move.
        let forward = at & ((2u64 << (centre - roll)) - 1);
        let steps = if K::bounces(rules) { at } else { forward };
        // A bounce ends on step 49 or later, never on the flight cell: only forward moves
        // can offer to stay.
        let stays = if K::flight_optional(rules) {
            forward & (K::chains(rules).choice >> roll)
        } else {
            0
        };
        let n = u32::from(launch) + steps.count_ones() + stays.count_ones();
        if n == 0 {
            return None;
        }
        let mut k = if n >= 2 { below(rng, n) } else { 0 };
        if launch {
            if k == 0 {
                return Some(Move::new(
                    HANGAR,
                    TAKE_OFF,
                    in_hangar & in_hangar.wrapping_neg(),
                    flag::LAUNCH,
                    0,
                ));
            }
            k -= 1;
        }
        let mut rest = steps;
        loop {
            let s = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let here = 1 + (stays >> s & 1) as u32;
            if k < here {
                let cells = self.opponent_cells(seat);
                let (fly, _) = self.step_move::<K>(seat, centre, cells, s, roll);
                return Some(if k == 0 {
                    fly
                } else {
                    self.stay_move::<K>(seat, centre, fly, roll)
                });
            }
            k -= here;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{SeededDice, bot_stream};
    use crate::driver::play_game;
    use crate::rules::{Overshoot, Preset, Rules, Specials, Stacking, ThreeSixes};

    /// [`RandomBot`] asked through the trait with the list: its `inline` is the default.
    struct Listed(RandomBot);

    impl Bot for Listed {
        fn name(&self) -> &str {
            "listed random"
        }
        fn new_game(&mut self, seat: Seat, seed: u64) {
            self.0.new_game(seat, seed);
        }
        fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
            self.0.choose(game, roll, moves)
        }
    }

    /// The driver's list-free random moves (with their draws) are the bot's choices over the
    /// list, game for game, in every variant the move count depends on.
    #[test]
    fn inline_random_plays_as_the_listed_bot() {
        let mut games = 0;
        for overshoot in [Overshoot::Illegal, Overshoot::Bounce] {
            for flight_optional in [false, true] {
                for specials in [Specials::One, Specials::JumpThenFlight, Specials::Both] {
                    for stacking in [Stacking::None, Stacking::MoveTogether] {
                        let rules = Rules::builder()
                            .base(Preset::Classic)
                            .overshoot(overshoot)
                            .flight_optional(flight_optional)
                            .specials(specials)
                            .stacking(stacking)
                            .three_sixes(ThreeSixes::LastMoved)
                            .launch_rolls(&[5, 6])
                            .build()
                            .unwrap();
                        for (players, deal) in [(2, 0), (3, 1), (4, 2), (4, 3)] {
                            let play = |listed: bool| {
                                let game = Game::new(rules, players).unwrap();
                                let mut bots: Vec<Box<dyn Bot>> = game
                                    .seats()
                                    .iter()
                                    .map(|&seat| {
                                        let mut bot = RandomBot::default();
                                        bot.new_game(seat, bot_stream(9, deal, seat));
                                        if listed {
                                            Box::new(Listed(bot)) as Box<dyn Bot>
                                        } else {
                                            Box::new(bot)
                                        }
                                    })
                                    .collect();
                                play_game(game, &mut bots, &mut SeededDice::new(9, deal), &mut ())
                                    .unwrap()
                            };
                            assert_eq!(play(false), play(true), "{rules:?}, deal {deal}");
                            games += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(games, 96);
    }
}
