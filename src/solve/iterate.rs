//! Which chance nodes play can reach, and their values by Gauss-Seidel value iteration.
//!
//! **Values.** `v[s]` is the equity of chance node `s` for the seat to roll: its probability of
//! winning minus its probability of losing under optimal play by both seats (two players, so
//! one number serves both: the other seat's equity is `-v[s]`). A roll's value is the best of
//! its choices; a choice that wins is worth 1, one that rolls again is worth the mover's next
//! chance node, one that passes the turn is worth minus the opponent's.
//!
//! **Order.** A move takes the mover's planes forward; only captures, the three-sixes penalty
//! and bounces at the centre take planes back. A sweep visits the chance nodes by total
//! progress of the four (or two) planes, most advanced first, so almost every successor it
//! reads has already been updated in the same sweep (Gauss-Seidel), and values flow backwards
//! from the end of the game in one sweep; only the backward edges need further sweeps.
//!
//! **Passes.** A roll without a move leaves the progress unchanged: a pass hands the turn over,
//! a 6 without a move rolls again. The chance nodes that passes connect (the two seats' turns
//! on one pair of configurations, at every six level without marks) are solved together as one
//! small linear system per sweep, so waiting for a 6 in the hangar costs no sweeps.
//!
//! The order of every operation is fixed, so the values are the same bit for bit on every run,
//! and a sweep resumed from a checkpoint continues exactly.

use super::model::{Entry, Kind, Model};
use crate::value_table::{Bits, PartialSweep, Space, zeroed};

/// The chance node a choice leads to from opponent configuration `o`; `None` for a win.
#[inline]
pub(crate) fn successor(space: &Space, e: &Entry, o: usize) -> Option<usize> {
    let o2 = space.after_capture(o, e.capture & space.occ[o]);
    match e.kind {
        Kind::Win => None,
        Kind::Again => Some(space.index(e.target as usize, o2)),
        Kind::Over => Some(space.index(o2, e.target as usize)),
    }
}

/// What the reachable part of the space holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Chance nodes reachable from the start.
    pub chance: u64,
    /// Decision nodes reachable: (chance node, roll) pairs with at least one legal move.
    pub decision: u64,
    /// Of those, the ones with two or more moves: where a bot has a choice.
    pub choice: u64,
}

/// Marks every chance node reachable from the start (both seats' planes in the hangar, seat 0
/// to roll) and counts the decision nodes; `None` when `stop` says so (asked every 65,536
/// nodes).
pub(crate) fn reachable(
    space: &Space,
    model: &Model,
    stop: &dyn Fn() -> bool,
) -> Option<(Bits, Counts)> {
    let mut seen = Bits::new(space.movers() * space.configs());
    let mut counts = Counts::default();
    let start = space.index(0, 0);
    let mut stack = vec![start];
    seen.set(start);
    while let Some(s) = stack.pop() {
        if counts.chance.is_multiple_of(65536) && stop() {
            return None;
        }
        let (u, o) = space.split(s);
        debug_assert!(model.exists(u) && model.forbidden[u] & space.occ[o] == 0);
        counts.chance += 1;
        for r in 0..6 {
            let entries = model.entries(u, r);
            if !model.is_pass(u, r) {
                counts.decision += 1;
                counts.choice += u64::from(entries.len() > 1);
            }
            for e in entries {
                if let Some(t) = successor(space, e, o)
                    && !seen.get(t)
                {
                    seen.set(t);
                    stack.push(t);
                }
            }
        }
    }
    Some((seen, counts))
}

/// The value iteration's state: the values and what it needs to update them.
pub(crate) struct Solver<'a> {
    pub(crate) space: &'a Space,
    pub(crate) model: &'a Model,
    pub(crate) reach: &'a Bits,
    /// Equity of every chance node of the dense index (0 where unreachable).
    pub(crate) values: Vec<f64>,
}

impl<'a> Solver<'a> {
    /// A solver starting from all values 0.
    pub(crate) fn new(space: &'a Space, model: &'a Model, reach: &'a Bits) -> Solver<'a> {
        Solver {
            space,
            model,
            reach,
            values: zeroed(space.movers() * space.configs()),
        }
    }

    /// The value of a choice from opponent configuration `o`, from the mover's side.
    #[inline]
    fn choice(&self, e: &Entry, o: usize) -> f64 {
        match (e.kind, successor(self.space, e, o)) {
            (Kind::Again, Some(t)) => self.values[t],
            (Kind::Over, Some(t)) => -self.values[t],
            _ => 1.0,
        }
    }

    /// The best choice of roll `r + 1` at (`u`, `o`) under the current values.
    #[inline]
    fn best(&self, u: usize, o: usize, r: usize) -> f64 {
        self.model
            .entries(u, r)
            .iter()
            .fold(f64::NEG_INFINITY, |best, e| best.max(self.choice(e, o)))
    }

    /// The Bellman update of one chance node (not stored).
    #[inline]
    pub(crate) fn backup(&self, u: usize, o: usize) -> f64 {
        (0..6).map(|r| self.best(u, o, r)).sum::<f64>() / 6.0
    }

    /// One Gauss-Seidel sweep over every reachable chance node, from the start of `from`
    /// (a sweep stopped part-way: its steps done and its change so far); returns the largest
    /// change, or the sweep's position when `stop` says so (asked at every step: a
    /// configuration of one progress total, many times a second). The values stopped part-way
    /// are exactly those an unstopped sweep has there, so going on from the position gives
    /// the same values bit for bit.
    pub(crate) fn sweep(
        &mut self,
        from: Option<PartialSweep>,
        stop: &dyn Fn() -> bool,
    ) -> Result<f64, PartialSweep> {
        let space = self.space;
        let c = space.configs();
        let max_prog = space.prog_start.len() - 2;
        let (skip, mut change) = from.map_or((0, 0.0f64), |p| (p.step, p.change));
        let mut step = 0u64;
        // Counts a step; whether to do it (`false`: done before the stop this goes on from).
        let mut next = |change: f64| -> Result<bool, PartialSweep> {
            step += 1;
            if step <= skip {
                return Ok(false);
            }
            if stop() {
                return Err(PartialSweep {
                    step: step - 1,
                    change,
                });
            }
            Ok(true)
        };
        for total in (0..=2 * max_prog).rev() {
            for a in 0..c {
                let pa = usize::from(space.prog[a]);
                if pa > total {
                    break;
                }
                if !next(change)? {
                    continue;
                }
                let Some(range) = prog_range(space, total - pa) else {
                    continue;
                };
                for b in range.filter(|&b| b >= a) {
                    change = change.max(self.group(a, b));
                }
            }
            for level in (1..space.levels).rev() {
                for m in 0..c {
                    let pm = usize::from(space.prog[m]);
                    if pm > total {
                        break;
                    }
                    if !next(change)? {
                        continue;
                    }
                    let Some(range) = prog_range(space, total - pm) else {
                        continue;
                    };
                    for marks in 1..space.mark_sets() {
                        let u = space.mover(level, m, marks);
                        if !self.model.exists(u) {
                            continue;
                        }
                        for o in range.clone() {
                            let s = space.index(u, o);
                            if self.reach.get(s) {
                                let new = self.backup(u, o);
                                change = change.max((new - self.values[s]).abs());
                                self.values[s] = new;
                            }
                        }
                    }
                }
            }
        }
        Ok(change)
    }

    /// Solves the pass group of configurations `a` and `b` (level 0 and unmarked higher levels,
    /// each seat to roll) as one linear system; returns the largest change.
    fn group(&mut self, a: usize, b: usize) -> f64 {
        let space = self.space;
        let mut members = [0usize; 6];
        let mut n = 0;
        for (m, o) in [(a, b), (b, a)] {
            if m == o && n > 0 {
                break;
            }
            for level in 0..space.levels {
                let s = space.index(space.mover(level, m, 0), o);
                if self.reach.get(s) {
                    members[n] = s;
                    n += 1;
                }
            }
        }
        if n == 0 {
            return 0.0;
        }
        // x = rhs + A x, then (I - A) x = rhs.
        let mut matrix = [[0.0f64; 7]; 6];
        for i in 0..n {
            let (u, o) = space.split(members[i]);
            let mut rhs = 0.0;
            for r in 0..6 {
                if self.model.is_pass(u, r) {
                    let e = &self.model.entries(u, r)[0];
                    let sign = if e.kind == Kind::Again { 1.0 } else { -1.0 };
                    let t = successor(space, e, o).expect("a pass does not win");
                    match members[..n].iter().position(|&m| m == t) {
                        Some(j) => matrix[i][j] -= sign / 6.0,
                        None => rhs += sign * self.values[t] / 6.0,
                    }
                } else {
                    rhs += self.best(u, o, r) / 6.0;
                }
            }
            matrix[i][i] += 1.0;
            matrix[i][6] = rhs;
        }
        let x = solve_small(&mut matrix, n);
        let mut change = 0.0f64;
        for i in 0..n {
            change = change.max((x[i] - self.values[members[i]]).abs());
            self.values[members[i]] = x[i];
        }
        change
    }

    /// The largest Bellman residual `|backup(s) - v(s)|` over the reachable chance nodes;
    /// `None` when `stop` says so (asked every 65,536 nodes).
    pub(crate) fn residual(&self, stop: &dyn Fn() -> bool) -> Option<f64> {
        let mut worst = 0.0f64;
        for s in 0..self.values.len() {
            if s.is_multiple_of(65536) && stop() {
                return None;
            }
            if self.reach.get(s) {
                let (u, o) = self.space.split(s);
                worst = worst.max((self.backup(u, o) - self.values[s]).abs());
            }
        }
        Some(worst)
    }
}

/// The configurations of progress `v`, if any.
fn prog_range(space: &Space, v: usize) -> Option<std::ops::Range<usize>> {
    (v + 1 < space.prog_start.len())
        .then(|| space.prog_start[v] as usize..space.prog_start[v + 1] as usize)
}

/// Gaussian elimination with partial pivoting on the augmented `n x (n + 1)` system in
/// `m[..n]` (the right-hand side in column 6).
fn solve_small(m: &mut [[f64; 7]; 6], n: usize) -> [f64; 6] {
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))
            .expect("non-empty");
        m.swap(col, pivot);
        let pivot_row = m[col];
        for row in &mut m[col + 1..n] {
            let f = row[col] / pivot_row[col];
            if f != 0.0 {
                for (a, b) in row[col..n].iter_mut().zip(&pivot_row[col..n]) {
                    *a -= f * b;
                }
                row[6] -= f * pivot_row[6];
            }
        }
    }
    let mut x = [0.0; 6];
    for row in (0..n).rev() {
        let mut s = m[row][6];
        for k in row + 1..n {
            s -= m[row][k] * x[k];
        }
        x[row] = s / m[row][row];
    }
    x
}
