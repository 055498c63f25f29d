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
    writeln!(
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

/// Streams rows into `games.csv`, flushing after every unit so that an interrupted run keeps
/// every unit written so far, each row whole.
pub struct GamesCsv {
    out: BufWriter<File>,
}

impl GamesCsv {
    /// The name `games.csv` has while it is written; renamed when the job is complete.
    pub const PARTIAL: &'static str = "games.csv.partial";

    /// Creates `path` and writes the header.
    pub fn create(path: &Path) -> Result<GamesCsv, ExportError> {
        let file = File::create(path).map_err(|e| ExportError::new(path, e))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        writeln!(out, "{GAMES_HEADER}")
            .and_then(|_| out.flush())
            .map_err(|e| ExportError::new(path, e))?;
        Ok(GamesCsv { out })
    }

    /// Flushes and syncs what was written.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()?;
        self.out.get_ref().sync_all()
    }
}

impl GameSink for GamesCsv {
    fn write_games(&mut self, rows: &[GameRow]) -> std::io::Result<()> {
        for row in rows {
            write_game_row(&mut self.out, row)?;
        }
        self.out.flush()
    }
}
