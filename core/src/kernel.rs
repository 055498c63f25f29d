//! Kernels: the fast path compiled once per rule combination that matters.
//!
//! Move generation, `apply` and the driver's game loop branch on seven options (`stacking`,
//! `overshoot`, `specials`, `flight_optional`, `flight_captures_crossed`, `three_sixes`,
//! `end`). They are known before the first game of a run, so the loop is generic over a
//! [`Kernel`] that answers them: a preset's kernel answers with constants, and the compiler
//! removes every branch and table choice they decide (no bounce arithmetic under `overshoot =
//! illegal`, the lowest plane of a step without stacks, no fly-or-stay pair without
//! `flight_optional`, ...); the kernel [`Any`] reads them from the [`Rules`] and plays every
//! variant. The other options (`launch_rolls`, `home_lane_cells`, `max_turns`, `planes`) are
//! data on the hot path either way: a bit test, a comparison with the centre's step.
//!
//! [`with_kernel!`] picks the kernel for a variant once (per game in the driver, per decision
//! in a search) and names it as a type for the code it runs; every kernel plays exactly the
//! same game, which the tests check by playing every preset through [`Any`] too.

use crate::chain::{self, ChainTable};
use crate::rules::{End, Overshoot, Preset, Rules, Specials, Stacking, ThreeSixes};

/// The options the fast path branches on, as a kernel answers them (see the module docs).
/// Every method is `#[inline(always)]`: a fixed kernel's answer is a constant.
pub(crate) trait Kernel {
    /// `stacking = move_together`.
    fn stacks(rules: &Rules) -> bool;
    /// `overshoot = bounce`.
    fn bounces(rules: &Rules) -> bool;
    /// `specials`.
    fn specials(rules: &Rules) -> Specials;
    /// `flight_optional`.
    fn flight_optional(rules: &Rules) -> bool;
    /// `flight_captures_crossed`.
    fn crossed(rules: &Rules) -> bool;
    /// `three_sixes`.
    fn three_sixes(rules: &Rules) -> ThreeSixes;
    /// `end = full_ranking`.
    fn full_ranking(rules: &Rules) -> bool;

    /// The landing chains of the variant.
    #[inline(always)]
    fn chains(rules: &Rules) -> &'static ChainTable {
        chain::table(Self::specials(rules), Self::flight_optional(rules))
    }
}

/// The kernel for any variant: every answer read from the rules.
pub(crate) struct Any;

impl Kernel for Any {
    #[inline(always)]
    fn stacks(rules: &Rules) -> bool {
        rules.stacking == Stacking::MoveTogether
    }
    #[inline(always)]
    fn bounces(rules: &Rules) -> bool {
        rules.overshoot == Overshoot::Bounce
    }
    #[inline(always)]
    fn specials(rules: &Rules) -> Specials {
        rules.specials
    }
    #[inline(always)]
    fn flight_optional(rules: &Rules) -> bool {
        rules.flight_optional
    }
    #[inline(always)]
    fn crossed(rules: &Rules) -> bool {
        rules.flight_captures_crossed
    }
    #[inline(always)]
    fn three_sixes(rules: &Rules) -> ThreeSixes {
        rules.three_sixes
    }
    #[inline(always)]
    fn full_ranking(rules: &Rules) -> bool {
        rules.end == End::FullRanking
    }
}

/// Defines a kernel whose answers are those of a preset, as constants.
macro_rules! preset_kernel {
    ($(#[$meta:meta])* $name:ident = $preset:expr) => {
        $(#[$meta])*
        pub(crate) struct $name;

        impl $name {
            const RULES: Rules = $preset.rules();
        }

        impl Kernel for $name {
            #[inline(always)]
            fn stacks(_: &Rules) -> bool {
                const V: bool = matches!($name::RULES.stacking, Stacking::MoveTogether);
                V
            }
            #[inline(always)]
            fn bounces(_: &Rules) -> bool {
                const V: bool = matches!($name::RULES.overshoot, Overshoot::Bounce);
                V
            }
            #[inline(always)]
            fn specials(_: &Rules) -> Specials {
                $name::RULES.specials
            }
            #[inline(always)]
            fn flight_optional(_: &Rules) -> bool {
                $name::RULES.flight_optional
            }
            #[inline(always)]
            fn crossed(_: &Rules) -> bool {
                $name::RULES.flight_captures_crossed
            }
            #[inline(always)]
            fn three_sixes(_: &Rules) -> ThreeSixes {
                $name::RULES.three_sixes
            }
            #[inline(always)]
            fn full_ranking(_: &Rules) -> bool {
                const V: bool = matches!($name::RULES.end, End::FullRanking);
                V
            }
            #[inline(always)]
            fn chains(_: &Rules) -> &'static ChainTable {
                const T: &ChainTable =
                    chain::table($name::RULES.specials, $name::RULES.flight_optional);
                T
            }
        }
    };
}

preset_kernel!(
    /// `appfreegame`'s options fixed.
    AppFreeGame = Preset::AppFreeGame
);
preset_kernel!(
    /// `classic`'s options fixed.
    Classic = Preset::Classic
);
preset_kernel!(
    /// `chinese`'s options fixed.
    Chinese = Preset::Chinese
);

/// The kernels, as [`select`] names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KernelId {
    AppFreeGame,
    Classic,
    Chinese,
    Any,
}

/// The seven options a kernel fixes, as one comparable value.
fn fixed_options(r: &Rules) -> (Stacking, Overshoot, Specials, bool, bool, ThreeSixes, End) {
    (
        r.stacking,
        r.overshoot,
        r.specials,
        r.flight_optional,
        r.flight_captures_crossed,
        r.three_sixes,
        r.end,
    )
}

/// The kernel that plays `rules`: a preset's when the variant agrees with that preset on every
/// option a kernel fixes (launch rolls, lane length, `max_turns` and `planes` may differ), else
/// [`Any`].
pub(crate) fn select(rules: &Rules) -> KernelId {
    let options = fixed_options(rules);
    if options == fixed_options(&AppFreeGame::RULES) {
        KernelId::AppFreeGame
    } else if options == fixed_options(&Classic::RULES) {
        KernelId::Classic
    } else if options == fixed_options(&Chinese::RULES) {
        KernelId::Chinese
    } else {
        KernelId::Any
    }
}

/// Runs `$body` with `$k` naming the kernel type that [`select`] picks for `$rules`.
macro_rules! with_kernel {
    ($rules:expr, $k:ident => $body:expr) => {
        match $crate::kernel::select($rules) {
            $crate::kernel::KernelId::AppFreeGame => {
                type $k = $crate::kernel::AppFreeGame;
                $body
            }
            $crate::kernel::KernelId::Classic => {
                type $k = $crate::kernel::Classic;
                $body
            }
            $crate::kernel::KernelId::Chinese => {
                type $k = $crate::kernel::Chinese;
                $body
            }
            $crate::kernel::KernelId::Any => {
                type $k = $crate::kernel::Any;
                $body
            }
        }
    };
}
pub(crate) use with_kernel;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_get_their_own_kernels_and_other_variants_the_general_one() {
        assert_eq!(select(&Preset::AppFreeGame.rules()), KernelId::AppFreeGame);
        assert_eq!(select(&Preset::Classic.rules()), KernelId::Classic);
        assert_eq!(select(&Preset::Chinese.rules()), KernelId::Chinese);
        let lane = Rules::builder()
            .home_lane_cells(3)
            .planes(2)
            .build()
            .unwrap();
        assert_eq!(
            select(&lane),
            KernelId::AppFreeGame,
            "data options are free"
        );
        let bounce = Rules::builder()
            .overshoot(Overshoot::Bounce)
            .build()
            .unwrap();
        assert_eq!(select(&bounce), KernelId::Any);
    }

    /// A fixed kernel answers as `Any` does for its preset's rules.
    fn agrees<K: Kernel>(preset: Preset) {
        let r = preset.rules();
        assert_eq!(K::stacks(&r), Any::stacks(&r));
        assert_eq!(K::bounces(&r), Any::bounces(&r));
        assert_eq!(K::specials(&r), Any::specials(&r));
        assert_eq!(K::flight_optional(&r), Any::flight_optional(&r));
        assert_eq!(K::crossed(&r), Any::crossed(&r));
        assert_eq!(K::three_sixes(&r), Any::three_sixes(&r));
        assert_eq!(K::full_ranking(&r), Any::full_ranking(&r));
        assert!(std::ptr::eq(K::chains(&r), Any::chains(&r)));
    }

    #[test]
    fn fixed_kernels_answer_as_the_rules_do() {
        agrees::<AppFreeGame>(Preset::AppFreeGame);
        agrees::<Classic>(Preset::Classic);
        agrees::<Chinese>(Preset::Chinese);
    }
}

/// Every kernel plays exactly the game [`Any`] plays, roll by roll.
#[cfg(test)]
mod same_games {
    use super::*;
    use crate::bot::Bot;
    use crate::dice::{SeededDice, bot_stream};
    use crate::driver::{Observer, play_as};
    use crate::game::{Game, Outcome};
    use crate::greedy::Greedy;
    use crate::moves::MoveList;
    use crate::random::RandomBot;
    use crate::record::GameRecord;

    /// Every roll's position and outcome, and for each position the moves of every face.
    #[derive(Default, PartialEq, Debug)]
    struct Log(Vec<(Game, Outcome)>);

    impl Observer for Log {
        fn on_roll(&mut self, before: &Game, outcome: &Outcome) {
            // The six faces at once list what each face lists alone.
            let mut all = [MoveList::default(); 6];
            before.legal_moves_all(&mut all);
            for (roll, list) in (1..=6).zip(&all) {
                assert_eq!(list.as_slice(), before.legal_moves(roll).as_slice());
            }
            // Each face's captures are those its moves list.
            let listed = all.map(|l| l.iter().fold(0u16, |a, m| a | m.captured()));
            assert_eq!(before.face_captures(), listed, "{before:?}");
            self.0.push((*before, *outcome));
        }
    }

    fn lineup(game: &Game, greedy: u8, seed: u64, deal: u64) -> Vec<Box<dyn Bot>> {
        game.seats()
            .iter()
            .enumerate()
            .map(|(k, &seat)| {
                let mut bot: Box<dyn Bot> = if greedy >> k & 1 != 0 {
                    Box::new(Greedy)
                } else {
                    Box::new(RandomBot::default())
                };
                bot.new_game(seat, bot_stream(seed, deal, seat));
                bot
            })
            .collect()
    }

    fn play<K: Kernel>(rules: Rules, players: usize, greedy: u8, deal: u64) -> (GameRecord, Log) {
        let game = Game::new(rules, players).unwrap();
        let mut bots = lineup(&game, greedy, 5, deal);
        let mut log = Log::default();
        let record = play_as::<K, _, _>(game, &mut bots, &mut SeededDice::new(5, deal), &mut log)
            .expect("seeded dice and built-in bots");
        (record, log)
    }

    fn agrees<K: Kernel>(preset: Preset) {
        for players in [2, 3, 4] {
            for planes in [4, 2] {
                let rules = Rules::builder()
                    .base(preset)
                    .planes(planes)
                    .build()
                    .unwrap();
                for deal in 0..40 {
                    // All greedy, all random, and a mix (the greedy seats take the list-free
                    // path, the others the list).
                    let greedy = [0b1111, 0, 0b0101][deal as usize % 3];
                    let fixed = play::<K>(rules, players, greedy, deal);
                    let any = play::<Any>(rules, players, greedy, deal);
                    assert_eq!(fixed, any, "{preset:?}, {players} players, deal {deal}");
                }
            }
        }
    }

    #[test]
    fn each_preset_kernel_plays_as_the_general_one() {
        agrees::<AppFreeGame>(Preset::AppFreeGame);
        agrees::<Classic>(Preset::Classic);
        agrees::<Chinese>(Preset::Chinese);
    }
}
