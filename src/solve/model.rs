//! The transitions of every mover state, worked out once by the engine itself.
//!
//! A move never depends on where the opponent's planes stand, only its captures do. So for
//! each mover state and roll the engine plays every legal move (or the pass, or the
//! three-sixes penalty) once, with the opponent's planes all in the hangar, and records where
//! the mover ends up; then, with one opponent plane on each position in turn, which of those
//! positions each move captures. A chance node's successors are then a table lookup and a
//! bit test, and the solver's rules are exactly the engine's.

use aeroplane_core::board::{PLANES, Seat};
use aeroplane_core::{Game, SetupError};

use crate::value_table::Space;

/// What a choice leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The mover brought its last plane home and won.
    Win,
    /// The mover rolled a 6 and rolls again: `target` is its new mover state.
    Again,
    /// The turn passes: `target` is the mover's configuration, now the opponent's.
    Over,
}

/// One choice of one roll: the move's result and the opponent positions it captures.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    /// Bit `p`: an opponent plane on position `p` is sent to the hangar.
    pub(crate) capture: u64,
    /// The mover state ([`Kind::Again`]) or configuration ([`Kind::Over`]) reached.
    pub(crate) target: u32,
    /// Where the choice leads.
    pub(crate) kind: Kind,
}

/// Every mover state's transitions.
pub(crate) struct Model {
    entries: Vec<Entry>,
    /// `start[6 u + r]..start[6 u + r + 1]`: the entries of mover state `u`, roll `r + 1`.
    start: Vec<u32>,
    /// Per mover state: bit `r` set when roll `r + 1` offers no move (its one entry is a pass
    /// or the three-sixes penalty).
    pass: Vec<u8>,
    /// Per mover state: the opponent positions that share a ring cell with its planes (a
    /// state with an opponent plane there does not exist); all bits for a state that does not
    /// exist at all.
    pub(crate) forbidden: Vec<u64>,
}

impl Model {
    /// Plays every mover state's rolls with the engine; `None` when `stop` says so (asked
    /// every 4,096 mover states, many times a second).
    pub(crate) fn build(space: &Space, stop: &dyn Fn() -> bool) -> Option<Model> {
        let movers = space.movers();
        let mut model = Model {
            entries: Vec::with_capacity(movers * 12),
            start: Vec::with_capacity(movers * 6 + 1),
            pass: vec![0; movers],
            forbidden: vec![u64::MAX; movers],
        };
        model.start.push(0);
        for u in 0..movers {
            if u.is_multiple_of(4096) && stop() {
                return None;
            }
            match mover_game(space, u) {
                Some(game) => model.add(space, u, &game),
                None => model.start.extend([model.entries.len() as u32; 6]),
            }
        }
        Some(model)
    }

    /// The entries of mover state `u` and roll `r + 1`.
    #[inline]
    pub(crate) fn entries(&self, u: usize, r: usize) -> &[Entry] {
        let i = 6 * u + r;
        &self.entries[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Whether roll `r + 1` offers mover state `u` no move.
    #[inline]
    pub(crate) fn is_pass(&self, u: usize, r: usize) -> bool {
        self.pass[u] & (1 << r) != 0
    }

    /// Whether mover state `u` exists (a reachable position can have it).
    #[inline]
    pub(crate) fn exists(&self, u: usize) -> bool {
        self.forbidden[u] != u64::MAX
    }

    fn add(&mut self, space: &Space, u: usize, game: &Game) {
        let first = self.entries.len();
        let mut lists = [aeroplane_core::MoveList::default(); 6];
        for (r, list) in lists.iter_mut().enumerate() {
            let roll = r as u8 + 1;
            *list = game.legal_moves(roll);
            if list.is_empty() {
                let mut next = *game;
                next.apply(roll, None);
                self.pass[u] |= 1 << r;
                self.entries.push(entry(space, &next));
            } else {
                for &m in list.iter() {
                    let mut next = *game;
                    next.apply(roll, Some(m));
                    self.entries.push(entry(space, &next));
                }
            }
            self.start.push(self.entries.len() as u32);
        }
        // Captures: one opponent plane on each position a plane can be captured on.
        let mut forbidden = 0u64;
        for p in 1..space.centre {
            let mut t = [0u8; PLANES];
            t[space.planes - 1] = p;
            let o = space.config_of(&t);
            let probe = match space.game(u, o) {
                Ok(g) => g,
                Err(SetupError::SharedCell { .. }) => {
                    forbidden |= 1 << p;
                    continue;
                }
                Err(e) => panic!("mover state {u}, opponent on position {p}: {e}"),
            };
            let mut at = first;
            for (r, list) in lists.iter().enumerate() {
                if list.is_empty() {
                    at += 1;
                    continue;
                }
                let probed = probe.legal_moves(r as u8 + 1);
                debug_assert_eq!(probed.len(), list.len());
                for (a, b) in list.iter().zip(probed.iter()) {
                    debug_assert_eq!((a.from(), a.stays()), (b.from(), b.stays()));
                    if b.captures_seat(Seat::ALL[2]) > 0 {
                        self.entries[at].capture |= 1 << p;
                    }
                    at += 1;
                }
            }
        }
        self.forbidden[u] = forbidden;
    }
}

/// The game of mover state `u` with the opponent's planes in the hangar, if `u` is a canonical
/// state that exists.
fn mover_game(space: &Space, u: usize) -> Option<Game> {
    let game = space.game(u, 0).ok()?;
    (space.key_unchecked(&game) == (u, 0)).then_some(game)
}

/// The entry for the position a choice left (the mover was seat 0).
fn entry(space: &Space, next: &Game) -> Entry {
    if next.is_over() {
        debug_assert_eq!(next.winner(), Some(Seat::ALL[0]));
        return Entry {
            capture: 0,
            target: 0,
            kind: Kind::Win,
        };
    }
    let (u, o) = space.key_unchecked(next);
    if next.to_move() == Seat::ALL[0] {
        debug_assert_eq!(o, 0, "the opponent stays in the hangar");
        Entry {
            capture: 0,
            target: u as u32,
            kind: Kind::Again,
        }
    } else {
        debug_assert_eq!(u, 0, "the opponent, to move, has everything in the hangar");
        Entry {
            capture: 0,
            target: o as u32,
            kind: Kind::Over,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solve::iterate::{reachable, successor};
    use aeroplane_core::{Preset, Rules, Stacking, ThreeSixes};
    use rand::{RngExt, SeedableRng};

    /// Where a chance node's roll leads through the state API: the successor chance nodes (as
    /// indices) of each legal action, or `None` for a win, sorted.
    fn api_successors(space: &Space, game: &Game, face: u8) -> Vec<Option<usize>> {
        let mut rolled = *game;
        let mut out = Vec::new();
        let next_of = |g: &Game| {
            if g.is_over() {
                None
            } else {
                let (u, o) = space.key(g).expect("a chance node of these rules");
                Some(space.index(u, o))
            }
        };
        if rolled.apply_roll(face).unwrap().is_some() {
            out.push(next_of(&rolled));
        } else {
            for a in rolled.legal_actions().iter() {
                let mut g = rolled;
                g.apply_action(a.index() as u32).unwrap();
                out.push(next_of(&g));
            }
        }
        out.sort_unstable();
        out
    }

    /// Two planes, the presets and the variants where plane order matters (all_moved without
    /// stacking) or marks split a stack (last_moved with stacks): along random games, every
    /// chance node's successors by the model are exactly those by the state API, and every
    /// node met is reachable by the model's search.
    #[test]
    fn two_plane_model_agrees_with_the_state_api_along_random_games() {
        let variants = [
            Rules::builder().base(Preset::AppFreeGame).planes(2).build(),
            Rules::builder().base(Preset::Classic).planes(2).build(),
            Rules::builder()
                .base(Preset::Chinese)
                .planes(2)
                .home_lane_cells(3)
                .build(),
            Rules::builder()
                .base(Preset::AppFreeGame)
                .planes(2)
                .three_sixes(ThreeSixes::AllMoved)
                .stacking(Stacking::None)
                .launch_rolls(&[2, 4, 6])
                .build(),
            Rules::builder()
                .base(Preset::Classic)
                .planes(2)
                .three_sixes(ThreeSixes::LastMoved)
                .build(),
        ];
        for (k, rules) in variants.into_iter().enumerate() {
            let rules = rules.unwrap();
            let space = Space::new(&rules);
            let model = Model::build(&space, &|| false).unwrap();
            let reach = (k == 1).then(|| reachable(&space, &model, &|| false).unwrap().0);
            let mut rng = rand_pcg::Pcg64::seed_from_u64(k as u64);
            let mut checked = 0;
            for _ in 0..40 {
                let mut game = Game::new(rules, 2).unwrap();
                while !game.is_over() {
                    let (u, o) = space.key(&game).unwrap();
                    assert!(model.exists(u), "{game}");
                    if let Some(reach) = &reach {
                        assert!(reach.get(space.index(u, o)), "not reachable: {game}");
                    }
                    for r in 0..6 {
                        let mut by_model: Vec<Option<usize>> = model
                            .entries(u, r)
                            .iter()
                            .map(|e| successor(&space, e, o))
                            .collect();
                        by_model.sort_unstable();
                        assert_eq!(
                            by_model,
                            api_successors(&space, &game, r as u8 + 1),
                            "{rules:?} at {game}, roll {}",
                            r + 1
                        );
                    }
                    checked += 1;
                    if game
                        .apply_roll(rng.random_range(1..=6u8))
                        .unwrap()
                        .is_none()
                    {
                        let actions = game.legal_actions();
                        let a = actions.as_slice()[rng.random_range(0..actions.len())];
                        game.apply_action(u32::from(a)).unwrap();
                    }
                }
            }
            assert!(checked > 1000, "{checked}");
        }
    }
}
