//! The state space of a two-player variant: every chance node as a pair of small integers, and
//! the canonical form that maps a [`Game`] onto it.
//!
//! **Positions.** A plane stands on a *position*: 0 is the hangar, then every step a plane can
//! rest on ([`aeroplane_core::resting_steps`]: the take-off cell, the ring steps a move can end
//! on, the lane, the centre) in ascending order. A position's number is its progress.
//!
//! **Configurations.** A seat's planes are a multiset of positions (planes of one seat are
//! interchangeable), stored sorted; configurations are numbered in order of total progress, so
//! the configurations of one progress form a contiguous range. One exception: where two
//! planes share a step the engine moves the lowest-numbered one, and with `three_sixes =
//! all_moved` and `stacking = none` (in no preset) that decides which of them the penalty will
//! send back, so there a plane's number is part of the state and a configuration is the tuple
//! of positions in plane order (`R^P` of them instead of `R` multichoose `P`).
//!
//! **The mover's state.** The value of a chance node is taken from the side of the seat to roll
//! (the *mover*): seats 0 and 2 see the same board (turned half round), so a position and its
//! mirror image with the other seat to roll have the same value, and one table entry serves
//! both. Besides its configuration the mover has a *level* (the sixes rolled in a row this
//! turn: 0, 1 or 2; always 0 when `three_sixes = none`, where the streak changes nothing) and,
//! at levels 1 and 2, *marks*: which of its planes the three-sixes penalty would send back
//! (`last_moved`: the planes of the latest move; `all_moved`: every plane the turn moved).
//! Marks on planes at the centre are dropped (the penalty spares them); among planes on one
//! step, marked ones are listed first.
//!
//! A mover state `u` is a level-0 configuration (`u < C`), or `C + (k-1) M + c 2^P + marks` at
//! level `k`, with `M = C 2^P`. A chance node's index is `o * C + u` at level 0 and `u * C + o`
//! above, `o` the opponent's configuration: the level-0 block is stored opponent-major because
//! most successors are the opponent's turn, `(o', c')` with `c'` fixed by the move, so a sweep
//! over one mover state and a run of opponent configurations reads them side by side.
//!
//! Tables on disk hold values in this index order: any change to the positions, the
//! configurations' order or the index is a new table format ([`super::TABLE_FORMAT`]).

use aeroplane_core::board::{HANGAR, PLANES, Seat};
use aeroplane_core::{Game, Rules, Setting, Setup, SetupError, Stacking, ThreeSixes};

/// Which planes the three-sixes penalty sends back, as far as the state must remember.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marks {
    /// No penalty: no level, no marks.
    None,
    /// `last_moved`: the planes of the latest move.
    LastMoved,
    /// `all_moved`: every plane moved this turn.
    AllMoved,
}

/// The sizes of a variant's state space, computed without allocating it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    /// Planes per seat.
    pub planes: usize,
    /// Positions a plane can be on (the hangar, every resting step).
    pub positions: usize,
    /// Configurations of one seat's planes.
    pub configs: u64,
    /// Mover states (configuration, level, marks).
    pub movers: u64,
    /// Chance nodes of the dense index: mover states times opponent configurations.
    pub states: u64,
}

impl Size {
    /// The sizes for `rules` (two players).
    pub fn of(rules: &Rules) -> Size {
        let planes = usize::from(rules.planes());
        let positions = 1 + aeroplane_core::resting_steps(rules).count_ones() as usize;
        let configs = if ordered(rules) {
            (positions as u64).saturating_pow(planes as u32)
        } else {
            multichoose(positions as u64, planes as u64)
        };
        let levels = if marks_of(rules) == Marks::None { 1 } else { 3 };
        let movers = configs + (levels - 1) * (configs << planes);
        Size {
            planes,
            positions,
            configs,
            movers,
            states: movers.saturating_mul(configs),
        }
    }

    /// Bytes a solve of this size needs at most: a value per state (8 bytes), its
    /// reachability bit, the transition model (about 40 bytes per mover state and roll), and
    /// while a checkpoint or the table is written, the table's copy of the reachable values
    /// and its encoding (8 bytes each per reachable state, counted here for every state: how
    /// many are reachable is known only after the set-up), and 32 MiB for the program itself.
    pub fn solve_bytes(&self) -> u64 {
        (32u64 << 20)
            .saturating_add(self.states.saturating_mul(8 + 8 + 8))
            .saturating_add(self.states / 8)
            .saturating_add(self.movers.saturating_mul(6 * 40))
            .saturating_add(self.configs.saturating_mul(32))
    }
}

/// `n` multichoose `k`: multisets of `k` items from `n` kinds.
fn multichoose(n: u64, k: u64) -> u64 {
    let mut r: u64 = 1;
    for i in 0..k {
        r = r.saturating_mul(n + i) / (i + 1);
    }
    r
}

/// Whether plane numbers are part of the state (see the module documentation).
fn ordered(rules: &Rules) -> bool {
    rules.three_sixes() == ThreeSixes::AllMoved
        && rules.stacking() == Stacking::None
        && rules.planes() > 1
}

pub(crate) fn marks_of(rules: &Rules) -> Marks {
    match rules.three_sixes() {
        ThreeSixes::None => Marks::None,
        ThreeSixes::LastMoved => Marks::LastMoved,
        ThreeSixes::AllMoved => Marks::AllMoved,
    }
}

/// The rules the model plays: the variant without its turn cap (the solver solves the
/// uncapped game; see the module documentation of [`crate::solve`]).
pub(crate) fn uncapped(rules: &Rules) -> Rules {
    let cap = Setting::integer(aeroplane_core::RuleOption::MaxTurns, i64::from(u32::MAX))
        .expect("u32::MAX is a valid max_turns");
    rules.with(cap)
}

/// The indexed state space of one variant (two players, `planes` planes each).
#[derive(Clone, Debug)]
pub struct Space {
    pub(crate) rules: Rules,
    pub(crate) engine_rules: Rules,
    pub(crate) size: Size,
    pub(crate) planes: usize,
    pub(crate) marks: Marks,
    /// Whether planes keep their numbers (see the module documentation).
    pub(crate) ordered: bool,
    pub(crate) levels: usize,
    /// Position -> step ([`HANGAR`] for position 0).
    pub(crate) step_of: Vec<u8>,
    /// Step -> position (`u8::MAX` where no plane rests).
    pub(crate) pos_of: [u8; 256],
    /// The centre's position.
    pub(crate) centre: u8,
    /// Configuration -> its sorted positions (the first `planes` entries).
    pub(crate) conf: Vec<[u8; PLANES]>,
    /// Configuration -> total progress.
    pub(crate) prog: Vec<u16>,
    /// `prog_start[v]..prog_start[v + 1]`: the configurations of progress `v`.
    pub(crate) prog_start: Vec<u32>,
    /// Sorted positions (base `positions`) -> configuration.
    lookup: Vec<u32>,
    /// Configuration -> bit set of its positions.
    pub(crate) occ: Vec<u64>,
}

impl Space {
    /// Builds the space of `rules` for two players. The caller checks the size first
    /// ([`Size::of`]); this allocates the configuration tables only (a few MB for 2 planes).
    pub fn new(rules: &Rules) -> Space {
        let size = Size::of(rules);
        let planes = size.planes;
        let resting = aeroplane_core::resting_steps(rules);
        let mut step_of = vec![HANGAR];
        let mut pos_of = [u8::MAX; 256];
        pos_of[usize::from(HANGAR)] = 0;
        for s in 0..64u8 {
            if resting & (1 << s) != 0 {
                pos_of[usize::from(s)] = step_of.len() as u8;
                step_of.push(s);
            }
        }
        let positions = step_of.len();
        let centre = pos_of[usize::from(rules.centre())];
        // Every sorted tuple of positions (every tuple, when planes keep their numbers),
        // ordered by progress, then lexicographically.
        let ordered = ordered(rules);
        let mut tuples: Vec<[u8; PLANES]> = Vec::new();
        let mut t = [0; PLANES];
        tuples_from(&mut tuples, &mut t, 0, planes, 0, positions as u8, ordered);
        let sum = |t: &[u8; PLANES]| t[..planes].iter().map(|&p| u16::from(p)).sum::<u16>();
        tuples.sort_by_key(|t| (sum(t), *t));
        let max_prog = (positions - 1) * planes;
        let mut prog_start = vec![0u32; max_prog + 2];
        let mut lookup = vec![u32::MAX; positions.pow(planes as u32)];
        let mut prog = Vec::with_capacity(tuples.len());
        let mut occ = Vec::with_capacity(tuples.len());
        for (c, t) in tuples.iter().enumerate() {
            let p = sum(t);
            prog.push(p);
            prog_start[usize::from(p) + 1] = c as u32 + 1;
            lookup[tuple_key(t, planes, positions)] = c as u32;
            occ.push(t[..planes].iter().fold(0u64, |m, &p| m | 1 << p));
        }
        for v in 1..prog_start.len() {
            prog_start[v] = prog_start[v].max(prog_start[v - 1]);
        }
        debug_assert_eq!(tuples.len() as u64, size.configs);
        let marks = marks_of(rules);
        Space {
            rules: *rules,
            engine_rules: uncapped(rules),
            size,
            planes,
            marks,
            ordered,
            levels: if marks == Marks::None { 1 } else { 3 },
            step_of,
            pos_of,
            centre,
            conf: tuples,
            prog,
            prog_start,
            lookup,
            occ,
        }
    }

    /// The rules the table solves (with their `max_turns`, which the values ignore).
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The sizes.
    pub fn size(&self) -> Size {
        self.size
    }

    /// Configurations `C`.
    #[inline]
    pub(crate) fn configs(&self) -> usize {
        self.conf.len()
    }

    /// Mover states `U`.
    #[inline]
    pub(crate) fn movers(&self) -> usize {
        self.size.movers as usize
    }

    /// Marks per configuration at a level above 0: `2^planes`.
    #[inline]
    pub(crate) fn mark_sets(&self) -> usize {
        1 << self.planes
    }

    /// The mover state of configuration `c` at `level` with `marks`.
    #[inline]
    pub(crate) fn mover(&self, level: usize, c: usize, marks: usize) -> usize {
        if level == 0 {
            c
        } else {
            self.configs()
                + (level - 1) * self.configs() * self.mark_sets()
                + c * self.mark_sets()
                + marks
        }
    }

    /// (level, configuration, marks) of a mover state.
    #[inline]
    pub(crate) fn unpack(&self, u: usize) -> (usize, usize, usize) {
        let c = self.configs();
        if u < c {
            return (0, u, 0);
        }
        let rest = u - c;
        let per_level = c * self.mark_sets();
        (
            1 + rest / per_level,
            (rest % per_level) / self.mark_sets(),
            rest % self.mark_sets(),
        )
    }

    /// The index of chance node (`u`, `o`).
    #[inline]
    pub(crate) fn index(&self, u: usize, o: usize) -> usize {
        let c = self.configs();
        if u < c { o * c + u } else { u * c + o }
    }

    /// The (mover state, opponent configuration) of an index.
    #[inline]
    pub(crate) fn split(&self, s: usize) -> (usize, usize) {
        let c = self.configs();
        if s < c * c {
            (s % c, s / c)
        } else {
            (s / c, s % c)
        }
    }

    /// The configuration of sorted positions.
    #[inline]
    pub(crate) fn config_of(&self, sorted: &[u8; PLANES]) -> usize {
        self.lookup[tuple_key(sorted, self.planes, self.size.positions)] as usize
    }

    /// The opponent's configuration after the planes on the positions in `captured` went to
    /// the hangar.
    #[inline]
    pub(crate) fn after_capture(&self, o: usize, captured: u64) -> usize {
        if captured == 0 {
            return o;
        }
        let mut t = self.conf[o];
        for p in &mut t[..self.planes] {
            if captured & (1 << *p) != 0 {
                *p = 0;
            }
        }
        if !self.ordered {
            t[..self.planes].sort_unstable();
        }
        self.config_of(&t)
    }

    /// The chance node of `game` as (mover state, opponent configuration), from the side of the
    /// seat to roll; `None` for a game that is over, a decision node, or a game this space does
    /// not describe (other rules or player count).
    pub fn key(&self, game: &Game) -> Option<(usize, usize)> {
        if game.is_over() || game.pending_roll().is_some() || game.players() != 2 {
            return None;
        }
        if *game.rules() != self.rules && *game.rules() != self.engine_rules {
            return None;
        }
        Some(self.key_unchecked(game))
    }

    /// [`Space::key`] for a game known to be a chance node of these rules (either cap).
    pub(crate) fn key_unchecked(&self, game: &Game) -> (usize, usize) {
        let mover = game.to_move();
        let other = Seat::ALL[(mover.index() + 2) % 4];
        let marks = match self.marks {
            Marks::None => 0,
            Marks::LastMoved => game.planes_moved_last(),
            Marks::AllMoved => game.planes_moved_this_turn(),
        };
        let level = if self.levels == 1 {
            0
        } else {
            usize::from(game.sixes_this_turn()).min(2)
        };
        let (c, m) = self.canonical(game.steps(mover), if level == 0 { 0 } else { marks });
        let (o, _) = self.canonical(game.steps(other), 0);
        (self.mover(level, c, m), o)
    }

    /// The configuration and marks of one seat's steps (plane order) and marked planes.
    fn canonical(&self, steps: [u8; PLANES], marks: u8) -> (usize, usize) {
        let mut planes: [(u8, u8, u8); PLANES] = [(0, 0, 0); PLANES];
        for (i, p) in planes[..self.planes].iter_mut().enumerate() {
            let pos = self.pos_of[usize::from(steps[i])];
            let marked = marks & (1 << i) != 0 && pos != self.centre;
            // By position, marked planes first.
            *p = (pos, u8::from(!marked), u8::from(marked));
        }
        if !self.ordered {
            planes[..self.planes].sort_unstable();
        }
        let mut sorted = [0u8; PLANES];
        let mut m = 0usize;
        for (i, p) in planes[..self.planes].iter().enumerate() {
            sorted[i] = p.0;
            m |= usize::from(p.2) << i;
        }
        (self.config_of(&sorted), m)
    }

    /// The position of mover state `u` against configuration `o`, with the mover in `seat`
    /// (the opponent opposite), as plain data: the form the engine checks.
    pub(crate) fn setup(&self, u: usize, o: usize, seat: Seat) -> Setup {
        let (level, c, marks) = self.unpack(u);
        let mut steps = [[HANGAR; PLANES]; 4];
        let other = (seat.index() + 2) % 4;
        let step = |pos: u8| self.step_of[usize::from(pos)];
        for (i, (&pm, &po)) in self.conf[c].iter().zip(&self.conf[o]).enumerate() {
            if i < self.planes {
                steps[seat.index()][i] = step(pm);
                steps[other][i] = step(po);
            }
        }
        let marks = marks as u8;
        let (moved, last) = match self.marks {
            Marks::None => (0, 0),
            Marks::LastMoved => (marks, marks),
            Marks::AllMoved => (marks, marks & marks.wrapping_neg()),
        };
        Setup {
            players: 2,
            planes: self.planes as u8,
            steps,
            to_move: seat,
            roll: None,
            sixes: level as u8,
            moved_this_turn: moved,
            moved_last: last,
            ranks: [0; 4],
            turns: 1,
        }
    }

    /// The game at chance node (`u`, `o`) with the mover in seat 0, under the uncapped rules.
    pub(crate) fn game(&self, u: usize, o: usize) -> Result<Game, SetupError> {
        self.setup(u, o, Seat::ALL[0]).into_game(self.engine_rules)
    }
}

/// Appends every tuple that extends `t[..i]` to length `planes` with entries below
/// `positions`: the non-decreasing ones (from `lo` on), or all of them when `ordered`.
fn tuples_from(
    out: &mut Vec<[u8; PLANES]>,
    t: &mut [u8; PLANES],
    i: usize,
    planes: usize,
    lo: u8,
    positions: u8,
    ordered: bool,
) {
    if i == planes {
        out.push(*t);
        return;
    }
    for p in if ordered { 0 } else { lo }..positions {
        t[i] = p;
        tuples_from(out, t, i + 1, planes, p, positions, ordered);
    }
    t[i] = 0;
}

#[inline]
fn tuple_key(t: &[u8; PLANES], planes: usize, positions: usize) -> usize {
    t[..planes]
        .iter()
        .fold(0usize, |k, &p| k * positions + usize::from(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use aeroplane_core::Preset;

    fn rules(preset: Preset, planes: i64) -> Rules {
        Rules::builder()
            .base(preset)
            .planes(planes)
            .build()
            .unwrap()
    }

    #[test]
    fn sizes_count_positions_configurations_and_levels() {
        let s = Size::of(&rules(Preset::AppFreeGame, 1));
        // Hangar, take-off, 48 ring steps (no 2, no 22), 6 lane cells, the centre.
        assert_eq!(s.positions, 57);
        assert_eq!(s.configs, 57);
        assert_eq!(s.movers, 57 + 2 * 57 * 2);
        let s = Size::of(&rules(Preset::AppFreeGame, 2));
        assert_eq!(s.configs, 57 * 58 / 2);
        assert_eq!(s.states, s.movers * s.configs);
        let chinese = Size::of(&rules(Preset::Chinese, 2));
        assert_eq!(chinese.movers, chinese.configs, "no penalty: one level");
        // Plane numbers matter (all_moved without stacks): every ordered pair.
        let numbered = Rules::builder()
            .planes(2)
            .three_sixes(ThreeSixes::AllMoved)
            .build()
            .unwrap();
        assert_eq!(Size::of(&numbered).configs, 57 * 57);
        assert_eq!(Space::new(&numbered).configs(), 57 * 57);
        let four = Size::of(&rules(Preset::AppFreeGame, 4));
        assert!(four.solve_bytes() > 1 << 40, "{four:?}");
    }

    #[test]
    fn configurations_are_numbered_by_progress_and_looked_up() {
        let space = Space::new(&rules(Preset::Classic, 2));
        for c in 0..space.configs() {
            let t = space.conf[c];
            assert!(t[0] <= t[1] || space.ordered);
            assert_eq!(space.config_of(&t), c);
            let v = usize::from(space.prog[c]);
            assert!((space.prog_start[v] as usize..space.prog_start[v + 1] as usize).contains(&c));
        }
        assert!(space.prog.windows(2).all(|w| w[0] <= w[1]));
    }

    #[test]
    fn a_game_maps_to_its_key_and_back() {
        for preset in Preset::ALL {
            for planes in [1, 2] {
                let space = Space::new(&rules(preset, planes));
                let start = Game::new(space.rules, 2).unwrap();
                let (u, o) = space.key(&start).unwrap();
                assert_eq!((u, o), (0, 0), "the start: everything in the hangar");
                let back = space.game(u, o).unwrap();
                assert_eq!(space.key_unchecked(&back), (u, o));
            }
        }
    }
}
