//! `games.csv`: one row per game, streamed in game order.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::runner::{GameRow, GameSink};
use crate::stats::NO_BOT;

use super::ExportError;

/// The header of `games.csv` (stable). `bot_seatJ` is the lineup index (summary.csv's `bot`)
/// of the bot in seat J; `rank_seatJ` its rank; both empty when seat J is not in play or has no
/// rank. `winner_seat`/`winner_bot` are empty when nobody won (an unfinished game).
pub const GAMES_HEADER: &str = "game,deal,rotation,bot_seat0,bot_seat1,bot_seat2,bot_seat3,winner_seat,winner_bot,rank_seat0,rank_seat1,rank_seat2,rank_seat3,turns,rolls,moves,launches,captures,penalties,jumps,flights,bounces,passes,unfinished";

/// Writes one `games.csv` row (with its newline), without allocating.
pub fn write_game_row(w: &mut impl Write, row: &GameRow) -> std::io::Result<()> {
    write_game_fields(w, row)?;
    w.write_all(b"\n")
}

fn write_game_fields(w: &mut impl Write, row: &GameRow) -> std::io::Result<()> {
    let r = &row.played.record;
    let at = &row.played.bot_at_seat;
    write!(w, "{},{},{}", row.game, row.deal, row.rotation)?;
    for &b in at {
        if b == NO_BOT {
            w.write_all(b",")?;
        } else {
            write!(w, ",{b}")?;
        }
    }
    match r.winner {
        Some(s) => write!(w, ",{},{}", s.index(), at[s.index()])?,
        None => w.write_all(b",,")?,
    }
    for &rank in &r.ranks {
        if rank == 0 {
            w.write_all(b",")?;
        } else {
            write!(w, ",{rank}")?;
        }
    }
    write!(
        w,
        ",{},{},{},{},{},{},{},{},{},{},{}",
        r.turns,
        r.rolls,
        r.moves,
        r.launches,
        r.captures,
        r.penalties,
        r.jumps,
        r.flights,
        r.bounces,
        r.passes,
        u8::from(r.unfinished)
    )
}

/// Streams rows into `games.csv`, flushing after every chunk so that an interrupted run keeps
/// every chunk written so far.
pub struct GamesCsv {
    out: BufWriter<File>,
    forfeits: bool,
}

impl GamesCsv {
    /// Creates `path` and writes the header.
    pub fn create(path: &Path) -> Result<GamesCsv, ExportError> {
        Self::open(path, false)
    }

    /// [`GamesCsv::create`] with a last column `forfeit_seat` (the seat whose bot failed and
    /// forfeited the game, empty for none): for runs with `recover`.
    pub fn create_with_forfeits(path: &Path) -> Result<GamesCsv, ExportError> {
        Self::open(path, true)
    }

    fn open(path: &Path, forfeits: bool) -> Result<GamesCsv, ExportError> {
        let file = File::create(path).map_err(|e| ExportError::new(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let extra = if forfeits { ",forfeit_seat" } else { "" };
        writeln!(out, "{GAMES_HEADER}{extra}")
            .and_then(|_| out.flush())
            .map_err(|e| ExportError::new(path, e))?;
        Ok(GamesCsv { out, forfeits })
    }
}

impl GameSink for GamesCsv {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        for row in rows {
            write_game_fields(&mut self.out, row)?;
            if self.forfeits {
                match row.played.record.forfeit {
                    Some(s) => write!(self.out, ",{}", s.index())?,
                    None => self.out.write_all(b",")?,
                }
            }
            self.out.write_all(b"\n")?;
        }
        self.out.flush()
    }
}
