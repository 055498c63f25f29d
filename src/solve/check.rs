//! An independent check of a solved table through the engine's state API.
//!
//! The solver reads the rules through the fast path (`legal_moves`/`apply`, once per mover
//! state) and a canonical form of positions. This check takes the other road: it plays random
//! games through the state API (`apply_roll`, `legal_actions`, `apply_action`, `returns`) and
//! at every chance node it meets verifies the Bellman equation with the table's values: the
//! node's equity must be the mean over the six faces of the best action's equity. The table is
//! the unique solution of those equations, so a table that passes at every position checked is
//! right there.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

use aeroplane_core::{Game, Player};

use crate::value_table::Table;

/// What the check found.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CheckReport {
    /// Chance nodes checked.
    pub positions: u64,
    /// The largest difference between a node's equity and its Bellman backup.
    pub largest_residual: f64,
    /// The seed of the random games.
    pub seed: u64,
}

/// The most chance nodes a check visits (about a minute on one core).
pub const MAX_CHECK_POSITIONS: u64 = 100_000_000;

/// Checks the Bellman equation at `positions` chance nodes of random games (seeded by
/// `seed`). Errors name a position the table does not hold.
pub fn check(table: &Table, positions: u64, seed: u64) -> Result<CheckReport, String> {
    Ok(check_until(table, positions, seed, &|| false)?.expect("never stopped"))
}

/// [`check`], asking `stop` every 1,024 positions: `None` when it says so.
pub fn check_until(
    table: &Table,
    positions: u64,
    seed: u64,
    stop: &dyn Fn() -> bool,
) -> Result<Option<CheckReport>, String> {
    let rules = table.space().engine_rules;
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut report = CheckReport {
        positions: 0,
        largest_residual: 0.0,
        seed,
    };
    let missing = |g: &Game| format!("the table does not hold the position `{g}`");
    while report.positions < positions {
        let mut game = Game::new(rules, 2).map_err(|e| e.to_string())?;
        while report.positions < positions && !game.is_terminal() {
            if report.positions.is_multiple_of(1024) && stop() {
                return Ok(None);
            }
            let mover = game.to_move();
            let equity = table.equity(&game).ok_or_else(|| missing(&game))?;
            let mut backup = 0.0;
            for face in 1..=6 {
                let mut rolled = game;
                let played = rolled.apply_roll(face).map_err(|e| e.to_string())?;
                let best = if played.is_some() {
                    table
                        .seat_equity(&rolled, mover)
                        .ok_or_else(|| missing(&rolled))?
                } else {
                    let mut best = f64::NEG_INFINITY;
                    for a in rolled.legal_actions().iter() {
                        let mut next = rolled;
                        next.apply_action(a.index() as u32)
                            .map_err(|e| e.to_string())?;
                        best = best.max(
                            table
                                .seat_equity(&next, mover)
                                .ok_or_else(|| missing(&next))?,
                        );
                    }
                    best
                };
                backup += best / 6.0;
            }
            report.largest_residual = report.largest_residual.max((backup - equity).abs());
            report.positions += 1;
            // On along a random path: a random face, then a random action.
            let face = rng.random_range(1..=6u8);
            if game.apply_roll(face).map_err(|e| e.to_string())?.is_none() {
                debug_assert!(matches!(game.current_player(), Player::Seat(_)));
                let actions = game.legal_actions();
                let a = actions.as_slice()[rng.random_range(0..actions.len())];
                game.apply_action(u32::from(a)).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(Some(report))
}
