//! The `exact` bot: perfect play from the value table of `aeroplane solve`.
//!
//! For each legal move it plays the move on a copy of the position and looks the result up in
//! the table (a finished game is worth 1 or -1); it takes the move of highest equity for its
//! own seat, the first in the engine's canonical order among equals. The table is loaded once
//! per process and shared by every copy of the bot. A table solves one rule variant with two
//! players; a game of other rules (`max_turns` and `planes` included) is refused, before any
//! game is played when the bot is part of a run ([`check`]).

use std::path::PathBuf;
use std::sync::Arc;

use aeroplane_core::{Game, MAX_MOVES, Move, Seat};

use super::params::{ParamDef, ParamKind, Params};
use super::{Bot, BotFault};
use crate::value_table::{Table, TableError};

/// The parameters of the `exact` kind.
pub const PARAMS: [ParamDef; 1] = [ParamDef {
    name: "table",
    kind: ParamKind::Path,
    default: "",
    help: "the --out folder of `aeroplane solve`, or its table.bin (required)",
}];

/// Builds an exact bot from resolved [`PARAMS`].
pub fn build(name: &str, params: &Params) -> Box<dyn Bot> {
    Box::new(ExactBot::new(name, PathBuf::from(params.word("table"))))
}

/// Whether an exact bot with `params` can play `rules` with `players`: its table loads, checks
/// out, and solves exactly these rules for two players. The message says why not.
pub fn check(params: &Params, rules: &aeroplane_core::Rules, players: usize) -> Result<(), String> {
    let table = Table::load(&PathBuf::from(params.word("table"))).map_err(|e| e.to_string())?;
    table.check_rules(rules, players).map_err(|e| e.to_string())
}

/// The index of the best of `moves` (legal moves of `roll` at `game`) by the table, the first
/// among equals, with every move's equity for the seat to move in `values`.
pub fn best_move(
    table: &Table,
    game: &Game,
    roll: u8,
    moves: &[Move],
    values: &mut [f64; MAX_MOVES],
) -> Result<usize, TableError> {
    table.move_values(game, roll, moves, &mut values[..moves.len()])?;
    let mut best = 0;
    for (i, &v) in values[..moves.len()].iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    Ok(best)
}

/// The exact bot.
pub struct ExactBot {
    name: String,
    path: PathBuf,
    table: Option<Arc<Table>>,
    values: [f64; MAX_MOVES],
    /// The latest choice's move equities as [`Bot::move_values`] gives them (the decision log
    /// records them), and how many.
    logged: [f32; MAX_MOVES],
    logged_len: usize,
}

impl ExactBot {
    /// A bot playing from the table at `path` (a solve's folder or its `table.bin`), loaded
    /// at its first game.
    pub fn new(name: &str, path: PathBuf) -> ExactBot {
        ExactBot {
            name: name.to_string(),
            path,
            table: None,
            values: [0.0; MAX_MOVES],
            logged: [0.0; MAX_MOVES],
            logged_len: 0,
        }
    }

    fn fault(&self, what: String) -> Box<BotFault> {
        Box::new(BotFault {
            bot: self.name.clone(),
            command: None,
            what,
            line: None,
            // The table does not fit the game: an error in the set-up, never a forfeit.
            kind: aeroplane_core::FaultKind::Start,
            stderr: None,
        })
    }

    /// The table, loaded and checked against the game's rules.
    fn table_for(&mut self, game: &Game) -> Result<Arc<Table>, Box<BotFault>> {
        if let Some(t) = &self.table
            && t.rules() == game.rules()
        {
            return Ok(Arc::clone(t));
        }
        let table = Table::load(&self.path).map_err(|e| self.fault(e.to_string()))?;
        table
            .check_rules(game.rules(), game.players())
            .map_err(|e| self.fault(e.to_string()))?;
        self.table = Some(Arc::clone(&table));
        Ok(table)
    }
}

impl Bot for ExactBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn choose(&mut self, game: &Game, roll: u8, moves: &[Move]) -> usize {
        super::choose_or_panic(self, game, roll, moves)
    }

    fn try_new_game(
        &mut self,
        start: &Game,
        _seat: Seat,
        _seed: u64,
        _game_index: u64,
    ) -> Result<(), Box<BotFault>> {
        self.table_for(start).map(|_| ())
    }

    fn try_choose(
        &mut self,
        game: &Game,
        roll: u8,
        moves: &[Move],
    ) -> Result<usize, Box<BotFault>> {
        let table = self.table_for(game)?;
        let best = best_move(&table, game, roll, moves, &mut self.values)
            .map_err(|e| self.fault(e.to_string()))?;
        for (l, v) in self.logged.iter_mut().zip(&self.values[..moves.len()]) {
            *l = *v as f32;
        }
        self.logged_len = moves.len();
        Ok(best)
    }

    /// Every move's equity for the seat to move under perfect play, from the table.
    fn move_values(&self) -> Option<&[f32]> {
        (self.logged_len > 0).then(|| &self.logged[..self.logged_len])
    }
}
